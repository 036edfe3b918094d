#include "warpscope/ui/LaunchPanel.h"

#include "common/Style.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace warpscope::ui {
namespace {

const char* const kAxes[] = {"x", "y", "z"};
// A scene's overlay is the panel's overlay index.
static_assert(int(render::Overlay::Distance) == int(scene::LessonOverlay::Distance) &&
              int(render::Overlay::Sm) == int(scene::LessonOverlay::Sm) &&
              int(render::Overlay::Lanes) == int(scene::LessonOverlay::Lanes));

} // namespace

LaunchPanel::LaunchPanel(QWidget* parent)
    : QWidget(parent), m_kernel(new QComboBox(this)),
      m_gridStride(new QCheckBox(tr("Grid-stride loop"), this)), m_overlay(new QComboBox(this)),
      m_overlayNote(new QLabel(this)), m_errors(new QLabel(this)), m_note(new QLabel(this)),
      m_occupancy(new QLabel(this))
{
    m_device = gpu::simulatedHopper();
    m_kernel->addItem(tr("Optimised (tiled, 4 x 8 nodes a thread)"));
    m_kernel->addItem(tr("Teaching (one node per thread)"));
    m_kernel->setObjectName("kernel");
    m_kernel->setToolTip(
        tr("The teaching kernel computes one node per thread with the launch below,\n"
           "and records which block, thread and SM computed each node."));
    auto* form = new QFormLayout;
    form->addRow(tr("Kernel"), m_kernel);
    const auto row = [this, form](const QString& label, std::array<QLineEdit*, 3>& edits,
                                  const char* prefix, const QString& tip) {
        auto* line = new QHBoxLayout;
        for (int a = 0; a < 3; ++a) {
            edits[a] = new QLineEdit("1", this);
            edits[a]->setObjectName(QString("%1%2").arg(prefix, kAxes[a]));
            edits[a]->setToolTip(tip.arg(kAxes[a]));
            line->addWidget(edits[a]);
            connect(edits[a], &QLineEdit::editingFinished, this, &LaunchPanel::revalidate);
        }
        form->addRow(label, line);
    };
    row(tr("Block (x, y, z)"), m_block, "block", tr("Threads per block along %1"));
    row(tr("Grid (x, y, z)"), m_grid, "grid", tr("Blocks along %1"));
    m_block[0]->setText("16");
    m_block[1]->setText("16");
    auto* fit = new QPushButton(tr("&Fit grid to mesh"), this);
    fit->setToolTip(tr("The fewest blocks that cover the mesh with this block shape"));
    connect(fit, &QPushButton::clicked, this, [this] { fitGrid(m_nx, m_ny); });
    auto* autoBlock = new QPushButton(tr("&Auto block"), this);
    autoBlock->setObjectName("autoBlock");
    autoBlock->setToolTip(tr("The block size with the most theoretical occupancy for this "
                             "kernel\n(the CUDA occupancy API's suggestion on a GPU)"));
    connect(autoBlock, &QPushButton::clicked, this, &LaunchPanel::chooseAutoBlock);
    auto* sweep = new QPushButton(tr("S&weep block sizes…"), this);
    sweep->setObjectName("sweep");
    sweep->setToolTip(tr("Measure the teaching kernel at every block size from 32 to 1024 "
                         "threads"));
    connect(sweep, &QPushButton::clicked, this, &LaunchPanel::sweepRequested);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(fit);
    buttons->addWidget(autoBlock);
    form->addRow(QString(), buttons);
    form->addRow(QString(), sweep);
    form->addRow(QString(), m_gridStride);
    m_gridStride->setToolTip(
        tr("Each thread also takes the nodes a whole grid further on, so a small\n"
           "grid still covers the mesh"));
    connect(m_gridStride, &QCheckBox::toggled, this, &LaunchPanel::revalidate);
    for (const QString& name :
         {tr("Distance"), tr("blockIdx"), tr("threadIdx"), tr("Warp"), tr("SM"),
          tr("Sectors per request"), tr("Bank-conflict ways"), tr("Active lanes")})
        m_overlay->addItem(name);
    m_overlay->setObjectName("overlay");
    m_overlay->setToolTip(
        tr("Colour each node by the block, thread, warp or SM that computed it,\n"
           "or (a kernel of the Kernel tab) by what its warp did to memory.\n"
           "Striped nodes were reached by no thread. Zoom in to see block edges."));
    form->addRow(tr("Colour by"), m_overlay);
    m_overlayNote->setObjectName("overlayNote");
    m_overlayNote->setWordWrap(true);
    m_overlayNote->setText(
        tr("Each node takes its warp's figure, from the simulator's record of the launch: "
           "global sectors per request (4 for 32 floats side by side, 32 at worst), "
           "shared-memory bank-conflict ways (1 is none) or active lanes (32 is no "
           "divergence). Shown in the Kernel tab, which records the kernel's accesses "
           "once this is chosen; the distance field's own kernel is drawn by distance."));
    m_overlayNote->hide();
    form->addRow(m_overlayNote);
    connect(m_overlay, &QComboBox::currentIndexChanged, this, [this] {
        m_overlayNote->setVisible(render::isMemoryOverlay(overlay()));
        emit changed();
    });
    connect(m_kernel, &QComboBox::currentIndexChanged, this, &LaunchPanel::revalidate);
    m_errors->setObjectName("launchErrors");
    m_errors->setWordWrap(true);
    m_errors->setStyleSheet(kErrorText);
    m_errors->hide();
    m_note->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_errors);
    layout->addWidget(m_occupancy);
    layout->addWidget(m_note);
    m_occupancy->setObjectName("occupancy");
    m_occupancy->setWordWrap(true);
    layout->addStretch(1);
    fitGrid(m_nx, m_ny);
}

QLineEdit* LaunchPanel::field(const char* name) const
{
    return findChild<QLineEdit*>(name);
}

void LaunchPanel::setDevice(const gpu::DeviceInfo& device)
{
    m_device = device;
    m_note->setText(
        device.simulated
            ? tr("No CUDA device: the CPU simulates the kernel block by block under the "
                 "limits of %1; SM ids are simulated.")
                  .arg(QString::fromStdString(device.name))
            : tr("Limits of %1 (%2 SMs).")
                  .arg(QString::fromStdString(device.name))
                  .arg(device.smCount));
    revalidate();
}

bool LaunchPanel::teachingChosen() const
{
    return m_kernel->currentIndex() == 1;
}

render::Overlay LaunchPanel::overlay() const
{
    return render::Overlay(m_overlay->currentIndex());
}

void LaunchPanel::fitGrid(int nx, int ny)
{
    m_nx = nx;
    m_ny = ny;
    QStringList problems;
    const auto launch = readLaunch(problems);
    const long long bx = launch ? launch->block.x : 16, by = launch ? launch->block.y : 16;
    m_grid[0]->setText(QString::number((nx + bx - 1) / bx));
    m_grid[1]->setText(QString::number((ny + by - 1) / by));
    m_grid[2]->setText("1");
    revalidate();
}

std::optional<gpu::LaunchConfig> LaunchPanel::readLaunch(QStringList& problems) const
{
    gpu::LaunchConfig launch;
    long long* targets[] = {&launch.block.x, &launch.block.y, &launch.block.z,
                            &launch.grid.x,  &launch.grid.y,  &launch.grid.z};
    QLineEdit* edits[] = {m_block[0], m_block[1], m_block[2], m_grid[0], m_grid[1], m_grid[2]};
    bool ok = true;
    for (int k = 0; k < 6; ++k) {
        bool parsed = false;
        *targets[k] = edits[k]->text().trimmed().toLongLong(&parsed);
        if (!parsed) {
            problems << tr("'%1' is not a whole number").arg(edits[k]->text());
            ok = false;
        }
    }
    return ok ? std::optional(launch) : std::nullopt;
}

std::optional<gpu::LessonLaunch> LaunchPanel::lesson() const
{
    QStringList problems;
    const auto launch = readLaunch(problems);
    if (!teachingChosen() || !launch || !gpu::validateLaunch(*launch, m_device).empty())
        return std::nullopt;
    return gpu::LessonLaunch{*launch, m_gridStride->isChecked()};
}

void LaunchPanel::revalidate()
{
    QLineEdit* edits[] = {m_block[0], m_block[1], m_block[2], m_grid[0], m_grid[1], m_grid[2]};
    for (QLineEdit* edit : edits) {
        bool parsed = false;
        edit->text().trimmed().toLongLong(&parsed);
        edit->setStyleSheet(parsed ? QString() : kInvalidInput);
        edit->setToolTip(parsed ? QString() : tr("A whole number, such as 256"));
    }
    QStringList problems;
    if (const auto launch = readLaunch(problems)) {
        for (const gpu::LaunchError& e : gpu::validateLaunch(*launch, m_device)) {
            const int f = int(e.field);
            if (f < 6) {
                QLineEdit* edit = f < 3 ? m_block[f] : m_grid[f - 3];
                edit->setStyleSheet(kInvalidInput);
                edit->setToolTip(QString::fromStdString(e.message));
            }
            problems << QString::fromStdString(e.message);
        }
    }
    for (QWidget* w : {static_cast<QWidget*>(m_overlay), static_cast<QWidget*>(m_gridStride)})
        w->setEnabled(teachingChosen());
    m_occupancy->clear();
    if (const auto launch = readLaunch(problems);
        launch && problems.isEmpty() && m_occupancySource && teachingChosen())
        if (const auto o = m_occupancySource(launch->block.volume())) {
            const gpu::Occupancy& t = o->theoretical;
            QString text = tr("Theoretical occupancy %1% (%2 blocks a SM), limited by %3; %4 "
                              "registers a thread")
                               .arg(qRound(100.0 * t.fraction))
                               .arg(t.activeBlocksPerSm)
                               .arg(QString::fromStdString(t.limitedBy))
                               .arg(o->resources.registersPerThread);
            if (o->api)
                text += o->api->activeBlocksPerSm == t.activeBlocksPerSm
                            ? tr(". The CUDA occupancy API agrees.")
                            : tr(". The CUDA occupancy API says %1 blocks.")
                                  .arg(o->api->activeBlocksPerSm);
            else
                text += tr(" (the sm_90 build, on the simulated device).");
            m_occupancy->setText(text);
        }
    if (!problems.isEmpty())
        problems << tr("The picture shows the last valid launch.");
    m_errors->setText(problems.join('\n'));
    m_errors->setVisible(!problems.isEmpty());
    emit changed();
}

void LaunchPanel::chooseTeaching(const gpu::LaunchConfig& launch, bool gridStride,
                                 render::Overlay overlay)
{
    setSettings({true, launch, false, gridStride, scene::LessonOverlay(overlay)});
}

std::optional<scene::LessonScene> LaunchPanel::settings(QString* problem) const
{
    QStringList problems;
    const auto launch = readLaunch(problems);
    if (!launch) {
        if (problem)
            *problem = tr("The launch: %1").arg(problems.join("; "));
        return std::nullopt;
    }
    scene::LessonScene lesson;
    lesson.teaching = teachingChosen();
    lesson.launch = *launch;
    lesson.gridFitted = scene::lessonGrid(lesson, m_nx, m_ny) == launch->grid;
    lesson.gridStride = m_gridStride->isChecked();
    lesson.overlay = scene::LessonOverlay(m_overlay->currentIndex());
    return lesson;
}

void LaunchPanel::setSettings(const scene::LessonScene& lesson)
{
    const gpu::Dim3 grid = scene::lessonGrid(lesson, m_nx, m_ny);
    const gpu::Dim3& block = lesson.launch.block;
    const long long values[] = {block.x, block.y, block.z, grid.x, grid.y, grid.z};
    QLineEdit* edits[] = {m_block[0], m_block[1], m_block[2], m_grid[0], m_grid[1], m_grid[2]};
    for (int k = 0; k < 6; ++k)
        edits[k]->setText(QString::number(values[k]));
    m_gridStride->setChecked(lesson.gridStride);
    m_overlay->setCurrentIndex(int(lesson.overlay));
    m_kernel->setCurrentIndex(lesson.teaching ? 1 : 0);
    revalidate();
}

void LaunchPanel::setOccupancySource(OccupancySource source)
{
    m_occupancySource = std::move(source);
    revalidate();
}

QString LaunchPanel::occupancyText() const
{
    return m_occupancy->text();
}

void LaunchPanel::chooseAutoBlock()
{
    if (!m_occupancySource)
        return;
    QStringList problems;
    const auto launch = readLaunch(problems);
    const auto o = m_occupancySource(launch ? launch->block.volume() : 256);
    if (!o || o->suggestedBlock < 1)
        return;
    m_block[0]->setText(QString::number(o->suggestedBlock));
    m_block[1]->setText("1");
    m_block[2]->setText("1");
    m_kernel->setCurrentIndex(1);
    fitGrid(m_nx, m_ny);
}

QString LaunchPanel::errorText() const
{
    return m_errors->isVisible() ? m_errors->text() : QString();
}

} // namespace warpscope::ui
