#include "GettingStartedDialog.h"

#include <QCheckBox>
#include <QCommandLinkButton>
#include <QDialogButtonBox>
#include <QLabel>
#include <QSettings>
#include <QVBoxLayout>

namespace warpscope::ui {
namespace {

constexpr const char* kShowAtStartKey = "gettingStarted/showAtStart";

} // namespace

GettingStartedDialog::GettingStartedDialog(QWidget* parent) : QDialog(parent)
{
    setObjectName("gettingStarted");
    setWindowTitle(tr("Getting started"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Warpscope runs GPU kernels and shows what they compute, on an "
                                "NVIDIA GPU or, without one, on the CPU. Where would you like to "
                                "start?"),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    struct Path
    {
        scene::StartingPath path;
        const char* name;
        QString title, description;
    };
    const Path paths[] = {
        {scene::StartingPath::Kernel, "startKernel", tr("Explore a kernel"),
         tr("Edit a CUDA kernel that paints ripples around the reference points and watch the "
            "picture follow; its sliders are declared in the source.")},
        {scene::StartingPath::Blocks, "startBlocks", tr("Teach grids and blocks"),
         tr("A small mesh coloured by the block that computed each node: change the block size "
            "in the Launch panel and see the grid cover the mesh.")},
        {scene::StartingPath::LightCurve, "startLightCurve", tr("Analyse a light curve"),
         tr("A Lomb-Scargle periodogram of a synthetic light curve, with its peaks, their "
            "false-alarm probabilities and the fold; File > Open Time Series reads your own "
            "CSV or FITS light curve.")},
    };
    for (const Path& p : paths) {
        auto* button = new QCommandLinkButton(p.title, p.description, this);
        button->setObjectName(p.name);
        connect(button, &QCommandLinkButton::clicked, this, [this, path = p.path] {
            emit chosen(path);
            accept();
        });
        layout->addWidget(button);
    }
    m_atStart = new QCheckBox(tr("Show this when Warpscope starts"), this);
    m_atStart->setObjectName("showAtStart");
    m_atStart->setChecked(showAtStart());
    connect(m_atStart, &QCheckBox::toggled, this,
            [](bool on) { QSettings().setValue(kShowAtStartKey, on); });
    layout->addWidget(m_atStart);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

bool GettingStartedDialog::showAtStart()
{
    return QSettings().value(kShowAtStartKey, true).toBool();
}

} // namespace warpscope::ui
