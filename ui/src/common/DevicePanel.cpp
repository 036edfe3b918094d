#include "warpscope/ui/DevicePanel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace warpscope::ui {
namespace {

QString bytes(long long value)
{
    return value <= 0 ? QObject::tr("unknown") : QLocale().formattedDataSize(value);
}

QString dims(const gpu::Dim3& d)
{
    return QString("%1 x %2 x %3").arg(d.x).arg(d.y).arg(d.z);
}

} // namespace

DevicePanel::DevicePanel(QWidget* parent)
    : QWidget(parent), m_chooser(new QComboBox(this)), m_where(new QLabel(this)),
      m_form(new QFormLayout)
{
    m_chooser->setObjectName("deviceChooser");
    m_chooser->setToolTip(tr("The GPU every workspace computes on. A GPU that does not run the "
                             "display\ndraws the field through host copies instead of interop."));
    m_chooser->hide();
    m_where->setObjectName("deviceUse");
    m_where->setWordWrap(true);
    m_where->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_where->hide();
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_chooser);
    layout->addWidget(m_where);
    layout->addLayout(m_form);
    layout->addStretch(1);
    m_form->addRow(new QLabel(tr("Starting…"), this));
    connect(m_chooser, &QComboBox::activated, this, &DevicePanel::deviceChosen);
}

void DevicePanel::setDevices(const std::vector<std::string>& names, int current)
{
    const QSignalBlocker quiet(m_chooser);
    m_chooser->clear();
    for (std::size_t i = 0; i < names.size(); ++i)
        m_chooser->addItem(tr("GPU %1: %2").arg(i).arg(QString::fromStdString(names[i])));
    if (current >= 0 && current < m_chooser->count())
        m_chooser->setCurrentIndex(current);
    m_chooser->setVisible(names.size() > 1);
}

void DevicePanel::setUse(const QString& text)
{
    m_where->setText(text);
    m_where->setVisible(!text.isEmpty());
}

QString DevicePanel::use() const
{
    return m_where->text();
}

void DevicePanel::setDevice(const gpu::DeviceInfo& d)
{
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    const auto row = [this](const QString& label, const QString& value, const QString& tip = {}) {
        auto* name = new QLabel(label, this);
        auto* field = new QLabel(value, this);
        field->setTextInteractionFlags(Qt::TextSelectableByMouse);
        field->setWordWrap(true); // long names wrap rather than widen the dock
        field->setToolTip(tip);
        m_form->addRow(name, field);
        // Shown now: a layout shows new children of a visible panel only on a later turn of
        // the event loop, and a screenshot taken before that finds the panel empty.
        name->show();
        field->show();
    };
    row(tr("Device"), QString::fromStdString(d.name));
    if (d.simulated)
        row(tr("Kind"), tr("simulated on the CPU"),
            tr("No CUDA device is in use: the CPU backend runs kernels under these limits."));
    row(tr("Compute capability"), QString("%1.%2").arg(d.ccMajor).arg(d.ccMinor));
    row(tr("SMs"), QString::number(d.smCount));
    if (d.clockKHz > 0)
        row(tr("SM clock"), tr("%1 MHz").arg(d.clockKHz / 1000));
    if (d.memoryClockKHz > 0)
        row(tr("Memory clock"), tr("%1 MHz").arg(d.memoryClockKHz / 1000));
    if (!d.simulated) {
        row(tr("Memory"), bytes(d.totalMemory));
        row(tr("L2 cache"), bytes(d.l2Bytes));
    }
    row(tr("Warp size"), QString::number(d.warpSize));
    row(tr("Threads per block"), QString::number(d.maxThreadsPerBlock));
    row(tr("Block dimensions"), dims(d.maxBlock), tr("Largest block in x, y and z"));
    row(tr("Grid dimensions"), dims(d.maxGrid), tr("Largest grid in x, y and z"));
    row(tr("Shared memory per block"),
        tr("%1 (%2 opted in)").arg(bytes(d.sharedPerBlock), bytes(d.sharedPerBlockOptin)));
    row(tr("Registers per block"), QString::number(d.regsPerBlock));
    row(tr("Threads per SM"), QString::number(d.maxThreadsPerSm));
}

QString DevicePanel::value(const QString& label) const
{
    for (int r = 0; r < m_form->rowCount(); ++r) {
        auto* l = qobject_cast<QLabel*>(m_form->itemAt(r, QFormLayout::LabelRole)
                                            ? m_form->itemAt(r, QFormLayout::LabelRole)->widget()
                                            : nullptr);
        auto* f = m_form->itemAt(r, QFormLayout::FieldRole)
                      ? qobject_cast<QLabel*>(m_form->itemAt(r, QFormLayout::FieldRole)->widget())
                      : nullptr;
        if (l && f && l->text() == label)
            return f->text();
    }
    return {};
}

} // namespace warpscope::ui
