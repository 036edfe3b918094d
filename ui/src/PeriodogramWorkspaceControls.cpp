#include "warpscope/scene/SceneFile.h"
#include "warpscope/ui/PeriodogramWorkspace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonDocument>
#include <QLineEdit>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QUndoCommand>
#include <QUndoStack>
#include <cmath>
#include <type_traits>

namespace warpscope::ui {

scene::PeriodogramScene PeriodogramWorkspace::readControls(const scene::PeriodogramScene& fallback,
                                                           QStringList* unparsed) const
{
    scene::PeriodogramScene c = fallback;
    c.points = m_points->value();
    c.baseline = m_baseline->value();
    c.noise = m_noise->value();
    c.period = m_period->value();
    c.amplitude = m_amplitude->value();
    c.seed = m_seed->value();
    c.gridMode = scene::GridMode(m_gridMode->currentIndex());
    c.samplesPerPeak = m_samplesPerPeak->value();
    c.nyquistFactor = m_nyquist->value();
    const auto number = [unparsed](const QLineEdit* edit, const char* name, auto& target) {
        bool ok = false;
        const double v = edit->text().trimmed().toDouble(&ok);
        using Target = std::remove_reference_t<decltype(target)>;
        // Whole numbers as makeRequest() reads them, within what a double holds exactly.
        if constexpr (std::is_integral_v<Target>)
            ok = ok && v == std::floor(v) && std::abs(v) <= 0x1p53;
        if (ok)
            target = static_cast<Target>(v);
        else if (unparsed)
            *unparsed << QString::fromLatin1(name);
    };
    number(m_fmin, "minimum frequency", c.fmin);
    number(m_fmax, "maximum frequency", c.fmax);
    number(m_count, "number of frequencies", c.count);
    number(m_blockThreads, "threads per block", c.blockThreads);
    number(m_gridBlocks, "blocks", c.gridBlocks);
    c.unit = scene::FrequencyUnit(m_frequencyUnit->currentIndex());
    c.xAxis = scene::FrequencyAxis(m_xAxis->currentIndex());
    c.logX = m_logX->isChecked();
    c.normalization = gpu::Normalization(m_normalization->currentIndex());
    c.fitMean = m_fitMean->isChecked();
    c.center = m_center->isChecked();
    c.useErrors = m_useErrors->isChecked();
    c.precision =
        m_precision->currentIndex() == 0 ? gpu::Precision::Float64 : gpu::Precision::Float32;
    c.method = gpu::PeriodogramMethod(m_method->currentIndex());
    c.nterms = m_nterms->value();
    c.search = m_search->currentData().toString().toStdString();
    const QString durations = m_blsDurations->text().trimmed();
    c.blsDurations = durations.isEmpty() ? "auto" : durations.toStdString();
    c.blsObjective = m_blsObjective->currentData().toString().toStdString();
    c.peaks = m_peakCount->value();
    c.gridStride = m_gridStride->isChecked();
    c.detrend = {gpu::DetrendMethod(m_detrendMethod->currentIndex()), m_detrendDegree->value(),
                 m_detrendWindow->value()};
    c.masks = m_masks;
    c.prewhitened = m_prewhitened;
    c.prewhitenEpoch = m_prewhitenEpoch;
    return c;
}

std::optional<scene::PeriodogramScene> PeriodogramWorkspace::currentScene(QString* problem) const
{
    QStringList unparsed;
    const scene::PeriodogramScene c = readControls(m_committed, &unparsed);
    if (unparsed.isEmpty())
        return c;
    if (problem)
        *problem = tr("The periodogram's %1 must be numbers").arg(unparsed.join(", "));
    return std::nullopt;
}

// Sets the controls quietly: the caller recomputes once with all of them.
void PeriodogramWorkspace::setControls(const scene::PeriodogramScene& c)
{
    const QList<QWidget*> children = findChildren<QWidget*>();
    std::vector<std::unique_ptr<QSignalBlocker>> quiet;
    for (QWidget* w : children)
        quiet.push_back(std::make_unique<QSignalBlocker>(w));
    const auto text = [](double v) {
        return QString::number(v, 'g', QLocale::FloatingPointShortest);
    };
    m_points->setValue(c.points);
    m_baseline->setValue(c.baseline);
    m_noise->setValue(c.noise);
    m_period->setValue(c.period);
    m_amplitude->setValue(c.amplitude);
    m_seed->setValue(c.seed);
    m_gridMode->setCurrentIndex(int(c.gridMode));
    m_samplesPerPeak->setValue(c.samplesPerPeak);
    m_nyquist->setValue(c.nyquistFactor);
    m_fmin->setText(text(c.fmin));
    m_fmax->setText(text(c.fmax));
    m_count->setText(QString::number(c.count));
    m_frequencyUnit->setCurrentIndex(int(c.unit));
    m_xAxis->setCurrentIndex(int(c.xAxis));
    m_logX->setChecked(c.logX);
    m_normalization->setCurrentIndex(int(c.normalization));
    m_fitMean->setChecked(c.fitMean);
    m_center->setChecked(c.center);
    m_useErrors->setChecked(c.useErrors);
    m_precision->setCurrentIndex(c.precision == gpu::Precision::Float64 ? 0 : 1);
    m_method->setCurrentIndex(int(c.method));
    m_nterms->setValue(c.nterms);
    m_search->setCurrentIndex(std::max(0, m_search->findData(QString::fromStdString(c.search))));
    m_blsDurations->setText(QString::fromStdString(c.blsDurations));
    m_blsObjective->setCurrentIndex(
        std::max(0, m_blsObjective->findData(QString::fromStdString(c.blsObjective))));
    enableSearchControls();
    m_peakCount->setValue(c.peaks);
    m_blockThreads->setText(QString::number(c.blockThreads));
    m_gridBlocks->setText(QString::number(c.gridBlocks));
    m_gridStride->setChecked(c.gridStride);
    m_detrendMethod->setCurrentIndex(int(c.detrend.method));
    m_detrendDegree->setValue(c.detrend.degree);
    m_detrendWindow->setValue(c.detrend.window);
    m_detrendDegree->setEnabled(c.detrend.method == gpu::DetrendMethod::Polynomial);
    m_detrendWindow->setEnabled(c.detrend.method == gpu::DetrendMethod::RunningMedian);
    m_masks = c.masks;
    m_prewhitened = c.prewhitened;
    m_prewhitenEpoch = c.prewhitenEpoch;
    showPrewhitening();
    const bool manual = c.gridMode != scene::GridMode::Automatic;
    m_samplesPerPeak->setEnabled(!manual);
    m_nyquist->setEnabled(!manual);
    for (QLineEdit* e : {m_fmin, m_fmax, m_count})
        e->setEnabled(manual);
}

void PeriodogramWorkspace::saveSettings(QSettings& s) const
{
    const QJsonDocument controls(scene::toJson(readControls(m_committed)));
    s.setValue("periodogram/scene", QString::fromUtf8(controls.toJson(QJsonDocument::Compact)));
}

void PeriodogramWorkspace::restoreSettings(const QSettings& s)
{
    // Values arrive quietly: the first showing computes with all of them at once. Settings
    // that no longer read as a scene (edited by hand, or from an older version) leave the
    // defaults.
    const QJsonDocument saved =
        QJsonDocument::fromJson(s.value("periodogram/scene").toString().toUtf8());
    if (const auto controls = scene::periodogramFromJson(saved.object()))
        setControls(*controls);
    m_committed = readControls(m_committed);
}

// One change of the controls, undone and redone as a whole.
class PeriodogramWorkspace::ControlsCommand : public QUndoCommand
{
public:
    // shown: the controls already hold after, so pushing the command need not set them.
    ControlsCommand(PeriodogramWorkspace* workspace, scene::PeriodogramScene before,
                    scene::PeriodogramScene after, const QString& text, bool shown)
        : QUndoCommand(text), m_workspace(workspace), m_before(std::move(before)),
          m_after(std::move(after)), m_skipRedo(shown)
    {}
    void undo() override { m_workspace->applyControls(m_before); }
    void redo() override
    {
        if (!m_skipRedo)
            m_workspace->applyControls(m_after);
        m_skipRedo = false;
    }

private:
    PeriodogramWorkspace* m_workspace;
    scene::PeriodogramScene m_before, m_after;
    bool m_skipRedo;
};

void PeriodogramWorkspace::recordUndo()
{
    if (m_applying)
        return;
    const scene::PeriodogramScene now = readControls(m_committed);
    if (now == m_committed)
        return;
    const QString changed = scene::differingKeys(m_committed, now).join(", ");
    m_undo->push(new ControlsCommand(this, m_committed, now, tr("Change %1").arg(changed), true));
    m_committed = now;
}

void PeriodogramWorkspace::applyScene(const scene::PeriodogramScene& controls, const QString& text)
{
    if (controls == m_committed)
        applyControls(controls); // no step, but typed text that did not parse goes
    else
        m_undo->push(new ControlsCommand(this, m_committed, controls, text, false));
}

void PeriodogramWorkspace::applyControls(const scene::PeriodogramScene& c)
{
    m_applying = true;
    setControls(c);
    m_committed = readControls(c);
    m_applying = false;
    replot();
    if (m_series.t.empty() && !m_loading)
        return; // never shown: the first showing computes
    if (m_source.isEmpty())
        useSynthetic(); // the synthetic series follows its controls, and recomputes
    else
        schedule();
}

} // namespace warpscope::ui
