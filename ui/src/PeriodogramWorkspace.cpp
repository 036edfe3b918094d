#include "warpscope/ui/PeriodogramWorkspace.h"

#include "LightCurveView.h"
#include "PrewhiteningPanel.h"
#include "Style.h"
#include "ValueText.h"
#include "warpscope/scene/PeriodogramUnits.h"
#include "warpscope/ui/FoldView.h"
#include "warpscope/ui/SpectrumView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProgressDialog>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>

namespace warpscope::ui {
PeriodogramWorkspace::PeriodogramWorkspace(std::shared_ptr<gpu::DevicePool> devices,
                                           QWidget* parent)
    : QWidget(parent), m_devices(std::move(devices)), m_undo(new QUndoStack(this))
{
    setAcceptDrops(true);
    createControls();
    QWidget* controls = makeControlsPanel();
    QWidget* results = makeResultViews();
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(controls);
    layout->addWidget(results, 1);

    connectControls();
    connectResults();
    connect(&m_load, &QFutureWatcher<std::pair<gpu::Status, gpu::TimeSeries>>::finished, this,
            &PeriodogramWorkspace::onLoaded);
    // After the handlers above: a load or a run that leaves nothing running settles the view.
    for (QFutureWatcherBase* watcher :
         {static_cast<QFutureWatcherBase*>(&m_job), static_cast<QFutureWatcherBase*>(&m_load),
          static_cast<QFutureWatcherBase*>(&m_fit)})
        connect(watcher, &QFutureWatcherBase::finished, this, [this] {
            if (!busy())
                emit settled();
        });

    // Every change a person makes to a control becomes one undo step.
    for (QSpinBox* box : findChildren<QSpinBox*>())
        connect(box, &QSpinBox::valueChanged, this, &PeriodogramWorkspace::recordUndo);
    for (QDoubleSpinBox* box : findChildren<QDoubleSpinBox*>())
        connect(box, &QDoubleSpinBox::valueChanged, this, &PeriodogramWorkspace::recordUndo);
    for (QComboBox* box : findChildren<QComboBox*>())
        connect(box, &QComboBox::currentIndexChanged, this, &PeriodogramWorkspace::recordUndo);
    for (QCheckBox* box : findChildren<QCheckBox*>())
        connect(box, &QCheckBox::toggled, this, &PeriodogramWorkspace::recordUndo);
    for (QLineEdit* edit : findChildren<QLineEdit*>())
        connect(edit, &QLineEdit::editingFinished, this, &PeriodogramWorkspace::recordUndo);
    m_committed = readControls(m_committed);
}

// The first computation waits until the workspace is first shown, so the distance field
// alone has the machine at startup.
void PeriodogramWorkspace::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_series.t.empty() && !m_loading)
        useSynthetic();
}

PeriodogramWorkspace::~PeriodogramWorkspace()
{
    if (m_loadCancel)
        *m_loadCancel = true;
    m_load.waitForFinished();
    m_job.waitForFinished();
}

void PeriodogramWorkspace::setManualGrid(double fmin, double fmax, long long count,
                                         bool logarithmic)
{
    {
        const QSignalBlocker quiet(m_gridMode);
        m_gridMode->setCurrentIndex(logarithmic ? 2 : 1);
    }
    if (logarithmic)
        m_logX->setChecked(true);
    m_samplesPerPeak->setEnabled(false);
    m_nyquist->setEnabled(false);
    for (QLineEdit* e : {m_fmin, m_fmax, m_count})
        e->setEnabled(true);
    m_fmin->setText(QString::number(fmin, 'g', QLocale::FloatingPointShortest));
    m_fmax->setText(QString::number(fmax, 'g', QLocale::FloatingPointShortest));
    m_count->setText(QString::number(count));
    recordUndo();
    schedule();
}

void PeriodogramWorkspace::setMethod(gpu::PeriodogramMethod method)
{
    m_method->setCurrentIndex(int(method)); // recomputes when it changes
}

void PeriodogramWorkspace::useSynthetic()
{
    gpu::SyntheticOptions o;
    o.points = m_points->value();
    o.baseline = m_baseline->value();
    o.noise = m_noise->value();
    o.sinusoids[0].period = m_period->value();
    o.sinusoids[0].amplitude = m_amplitude->value();
    o.seed = std::uint64_t(m_seed->value());
    m_series = gpu::syntheticSeries(o);
    // Sinusoids fitted here to the file left mean nothing for the synthetic series.
    if (!m_prewhitened.empty() && m_prewhitenedSource && !m_prewhitenedSource->isEmpty()) {
        m_prewhitened.clear();
        recordUndo();
    }
    m_source.clear();
    m_sourceObject.clear();
    showColumns();
    showUnits();
    showSyntheticControls(true);
    m_sourceLabel->setText(tr("Synthetic: %1 points, sinusoids at periods %2 and 2.9, noise σ %3")
                               .arg(o.points)
                               .arg(o.sinusoids[0].period)
                               .arg(o.noise));
    schedule();
}

void PeriodogramWorkspace::openFile(const QString& path, gpu::TimeFormat timeFormat)
{
    gpu::ColumnChoice columns;
    columns.timeFormat = timeFormat;
    load(path, columns);
}

void PeriodogramWorkspace::openTableObject(const QString& table, const gpu::TableColumns& columns,
                                           gpu::TimeFormat timeFormat, const QString& id)
{
    gpu::ColumnChoice choice;
    choice.timeFormat = timeFormat;
    startLoad(table, id, choice,
              [cache = m_tableCache, table = table.toStdString(), columns, timeFormat,
               id = id.toStdString()](gpu::TimeSeries& series, gpu::LoadReport& report,
                                      const gpu::LoadProgress& progress) {
                  // The table is read once, to where each object's rows lie (a FITS table's
                  // id column alone); each choice then reads its object's rows.
                  std::shared_ptr<const gpu::Catalogue> indexed;
                  const std::string key = table + '\n' + columns.id + '\n' + columns.t + '\n' +
                                          columns.y + '\n' + columns.dy + '\n' +
                                          std::to_string(int(timeFormat));
                  {
                      const std::lock_guard lock(cache->mutex);
                      if (cache->key == key)
                          indexed = cache->index;
                  }
                  if (!indexed) {
                      auto built = std::make_shared<gpu::Catalogue>();
                      if (gpu::Status s =
                              gpu::Catalogue::indexTable(table, columns, timeFormat, *built);
                          !s)
                          return s;
                      indexed = built;
                      const std::lock_guard lock(cache->mutex);
                      cache->key = key;
                      cache->index = indexed;
                  }
                  if (!progress(1.0))
                      return gpu::Status::failure("Loading was cancelled");
                  const gpu::Catalogue& catalogue = *indexed;
                  const std::size_t object = catalogue.find(id);
                  if (object == catalogue.size())
                      return gpu::Status::failure(table + " has no object '" + id +
                                                  "' (the table changed since the batch ran?)");
                  const gpu::Status s = catalogue.load(object, series, report);
                  if (!s) { // the file may have changed: the next choice reads it again
                      const std::lock_guard lock(cache->mutex);
                      cache->key.clear();
                      cache->index.reset();
                  }
                  return s;
              });
}

QString PeriodogramWorkspace::sourceKey() const
{
    return m_sourceObject.isEmpty() ? m_source : m_source + '\n' + m_sourceObject;
}

void PeriodogramWorkspace::chooseColumns(int t, int y, int dy)
{
    if (m_source.isEmpty() || !m_sourceObject.isEmpty())
        return; // the synthetic series has no columns, a table's object the batch's
    gpu::ColumnChoice columns;
    columns.t = t;
    columns.y = y;
    columns.dy = dy;
    columns.byName = false;
    columns.timeFormat = m_shownChoice.timeFormat;
    load(m_source, columns);
}

void PeriodogramWorkspace::chooseTimeFormat(gpu::TimeFormat format)
{
    if (m_source.isEmpty() || !m_sourceObject.isEmpty())
        return; // the synthetic series has no time column, a table's object the batch's
    // The columns shown, so that only the reading of the times changes.
    gpu::ColumnChoice columns;
    columns.t = m_shownReport.tColumn;
    columns.y = m_shownReport.yColumn;
    columns.dy = m_shownReport.dyColumn;
    columns.byName = false;
    columns.timeFormat = format;
    load(m_source, columns);
}

void PeriodogramWorkspace::showUnits()
{
    const gpu::TimeUnit unit = m_source.isEmpty() ? gpu::TimeUnit::Unknown : m_shownReport.timeUnit;
    m_frequencyUnit->setItemText(0, tr("ordinary f (%1)").arg(scene::frequencyUnitText(unit)));
    m_frequencyUnit->setItemText(
        1, tr("angular ω = 2πf (%1)").arg(scene::frequencyUnitText(unit, true)));
}

void PeriodogramWorkspace::showSyntheticControls(bool shown)
{
    m_syntheticControls->setVisible(shown);
}

// The loaded file's columns in the pickers, the ones used selected.
void PeriodogramWorkspace::showColumns()
{
    const bool file = !m_source.isEmpty();
    // A table's object keeps the batch's columns: another column is another table.
    const bool choosable = file && m_sourceObject.isEmpty();
    for (QComboBox* box : {m_tColumn, m_yColumn, m_dyColumn}) {
        const QSignalBlocker quiet(box);
        box->clear();
        box->setEnabled(choosable);
    }
    {
        const QSignalBlocker quiet(m_timeFormat);
        m_timeFormat->setEnabled(choosable);
        // Automatic names what it found, so the choice to override it is an informed one.
        m_timeFormat->setItemText(
            0, file && m_shownChoice.timeFormat == gpu::TimeFormat::Auto
                   ? tr("automatic: %1")
                         .arg(QString::fromUtf8(gpu::timeFormatName(m_shownReport.timeFormat)))
                   : tr("automatic"));
        m_timeFormat->setCurrentIndex(file ? int(m_shownChoice.timeFormat) : 0);
    }
    if (!file)
        return;
    m_dyColumn->addItem(tr("none"));
    for (const std::string& name : m_shownReport.columns)
        for (QComboBox* box : {m_tColumn, m_yColumn, m_dyColumn})
            box->addItem(QString::fromStdString(name));
    m_tColumn->setCurrentIndex(m_shownReport.tColumn);
    m_yColumn->setCurrentIndex(m_shownReport.yColumn);
    m_dyColumn->setCurrentIndex(m_shownReport.dyColumn + 1);
}

void PeriodogramWorkspace::load(const QString& path, const gpu::ColumnChoice& columns)
{
    startLoad(path, {}, columns,
              [path = path.toStdString(), columns](gpu::TimeSeries& series, gpu::LoadReport& report,
                                                   const gpu::LoadProgress& progress) {
                  return gpu::loadTimeSeries(path, columns, series, report, progress);
              });
}

void PeriodogramWorkspace::startLoad(const QString& path, const QString& object,
                                     const gpu::ColumnChoice& columns, Reader read)
{
    if (m_loading)
        return;
    m_loading = true;
    m_loadingPath = path;
    m_loadingObject = object;
    m_loadingChoice = columns;
    m_loadProgress = std::make_shared<std::atomic<double>>(0.0);
    m_loadCancel = std::make_shared<std::atomic<bool>>(false);
    const QString what = object.isEmpty() ? QFileInfo(path).fileName()
                                          : tr("%1 of %2").arg(object, QFileInfo(path).fileName());
    // A table's object is found by reading the whole table: no fraction to show.
    m_loadDialog = new QProgressDialog(tr("Loading %1…").arg(what), tr("Cancel"), 0,
                                       object.isEmpty() ? 1000 : 0, this);
    m_loadDialog->setMinimumDuration(300);
    m_loadDialog->setWindowModality(Qt::WindowModal);
    auto progress = m_loadProgress;
    auto cancel = m_loadCancel;
    connect(m_loadDialog, &QProgressDialog::canceled, this, [cancel] { *cancel = true; });
    auto* poll = new QTimer(m_loadDialog);
    // The timer is the dialog's child and dies with it; the member may be cleared before.
    connect(poll, &QTimer::timeout, m_loadDialog,
            [dialog = m_loadDialog, progress] { dialog->setValue(int(1000 * progress->load())); });
    poll->start(100);
    m_load.setFuture(QtConcurrent::run([this, read = std::move(read), progress, cancel] {
        gpu::TimeSeries series;
        gpu::Status status = read(series, m_loadReport, [progress, cancel](double f) {
            *progress = f;
            return !cancel->load();
        });
        return std::make_pair(status, std::move(series));
    }));
}

std::optional<PeriodogramWorkspace::Request> PeriodogramWorkspace::makeRequest()
{
    Request r;
    r.unit = m_source.isEmpty() ? gpu::TimeUnit::Unknown : m_shownReport.timeUnit;
    r.controls = readControls(m_committed);
    r.loaded = m_series;
    // The masked points go here, as the grid needs their times; the worker then takes out the
    // trend and the prewhitened sinusoids (scene::prepareSeries, as on the command line),
    // which for a long series is too slow for the GUI thread.
    r.series = r.loaded;
    if (!r.controls.useErrors)
        r.series.dy.clear();
    std::size_t masked = 0;
    r.series = gpu::applyMasks(r.series, m_masks, &masked);
    m_lightCurve->setTimeLabel(
        m_source.isEmpty() || m_shownReport.timeLabel.empty()
            ? tr("t")
            : tr("t, %1").arg(QString::fromStdString(m_shownReport.timeLabel)));
    m_lightCurve->setValueLabel(valueLabel());
    if (r.series.t.empty()) {
        showLightCurve(r.series, {}, r.controls.useErrors);
        setError(tr("Every point is masked: click a shaded range on the light curve to unmask "
                    "it"));
        return std::nullopt;
    }
    if (r.controls.detrend.method != gpu::DetrendMethod::None)
        r.detrendNote = tr("periodogram of residuals after %1")
                            .arg(scene::detrendText(r.controls.detrend, r.unit));
    if (masked > 0)
        r.detrendNote += (r.detrendNote.isEmpty() ? QString() : tr("; ")) +
                         (masked == 1 ? tr("1 point masked") : tr("%1 points masked").arg(masked));
    const std::size_t sinusoids = r.controls.prewhitened.size();
    if (sinusoids > 0)
        r.detrendNote += (r.detrendNote.isEmpty() ? QString() : tr("; ")) +
                         (sinusoids == 1 ? tr("1 sinusoid prewhitened")
                                         : tr("%1 sinusoids prewhitened").arg(sinusoids));
    for (QLineEdit* e : {m_fmin, m_fmax, m_count, m_blockThreads, m_gridBlocks})
        e->setStyleSheet(QString());
    bool okBlock = false, okGrid = false;
    const gpu::PeriodogramLaunch launch{m_blockThreads->text().trimmed().toLongLong(&okBlock),
                                        m_gridBlocks->text().trimmed().toLongLong(&okGrid),
                                        m_gridStride->isChecked()};
    if (!okBlock || !okGrid) {
        (okBlock ? m_gridBlocks : m_blockThreads)->setStyleSheet(kInvalidInput);
        setError(tr("Threads per block and blocks must be whole numbers"));
        return std::nullopt;
    }
    if (const auto errors = gpu::validatePeriodogramLaunch(launch, m_deviceInfo); !errors.empty()) {
        QStringList text;
        for (const gpu::LaunchError& e : errors) {
            (e.field == gpu::LaunchField::GridX ? m_gridBlocks : m_blockThreads)
                ->setStyleSheet(kInvalidInput);
            text << QString::fromStdString(e.message);
        }
        setError(text.join('\n'));
        return std::nullopt;
    }
    // The manual grid's unit; the automatic grid's note uses it too.
    const double scale = m_frequencyUnit->currentIndex() == 1 ? 2.0 * std::numbers::pi : 1.0;
    r.window = m_showWindow->isChecked();
    if (m_gridMode->currentIndex() != 0) {
        // Angular input is divided by 2 pi: the kernels take ordinary frequency.
        bool okMin = false, okMax = false, okCount = false;
        const double fmin = m_fmin->text().toDouble(&okMin) / scale;
        const double fmax = m_fmax->text().toDouble(&okMax) / scale;
        const double count = m_count->text().toDouble(&okCount);
        if (!okMin)
            m_fmin->setStyleSheet(kInvalidInput);
        if (!okMax)
            m_fmax->setStyleSheet(kInvalidInput);
        if (!okCount || count != std::floor(count))
            m_count->setStyleSheet(kInvalidInput);
        if (!okMin || !okMax || !okCount || count != std::floor(count)) {
            setError(tr("The manual grid needs numbers: minimum and maximum frequency, and a "
                        "whole number of frequencies"));
            return std::nullopt;
        }
        const long long frequencies = static_cast<long long>(std::clamp(count, -1.0, 1e15));
        const bool logarithmic = m_gridMode->currentIndex() == 2;
        if (!explainProblems(gpu::validateFrequencyRange(fmin, fmax, frequencies, logarithmic)))
            return std::nullopt;
    }
    // The request itself is the command line's and the batch's, from the same scene.
    scene::PeriodogramRequest& request = r.request;
    if (!scene::makePeriodogramRequest(r.controls, r.series, request)) {
        explainProblems(request.problems);
        return std::nullopt;
    }
    const gpu::FrequencyGrid& grid = request.options.grid;
    if (request.cap.wanted > 0.0)
        r.gridNote = tr("The automatic grid would need %1 frequencies, more than the %2 a "
                        "periodogram may have, so it stops at %3 instead of %4. To reach "
                        "higher, lower the samples per peak or the Nyquist factor, or set a "
                        "manual grid.")
                         .arg(request.cap.wanted, 0, 'f', 0)
                         .arg(gpu::kMaxFrequencies)
                         .arg(grid.fmax() * scale, 0, 'g', 6)
                         .arg(request.cap.wantedFmax * scale, 0, 'g', 6);
    r.samplingNote =
        scene::samplingNote(request.sampling, r.unit, grid.fmax(), request.stoppedAtNyquist);
    return r;
}

bool PeriodogramWorkspace::explainProblems(const std::vector<gpu::PeriodogramProblem>& problems)
{
    if (problems.empty())
        return true;
    QStringList text;
    for (const gpu::PeriodogramProblem& p : problems) {
        text << QString::fromStdString(p.message);
        QLineEdit* field = p.input == gpu::PeriodogramInput::Fmin    ? m_fmin
                           : p.input == gpu::PeriodogramInput::Fmax  ? m_fmax
                           : p.input == gpu::PeriodogramInput::Count ? m_count
                                                                     : nullptr;
        if (field)
            field->setStyleSheet(kInvalidInput);
    }
    setError(text.join('\n'));
    return false;
}

void PeriodogramWorkspace::schedule()
{
    if (m_series.t.empty())
        return; // nothing to compute before the first series (the workspace's first showing)
    if (m_computing) {
        m_pending = true; // the newest parameters run when this job ends
        *m_cancel = true;
        return;
    }
    if (auto request = makeRequest())
        start(std::move(*request));
}

void PeriodogramWorkspace::start(Request request)
{
    setError(QString());
    m_gridNote = request.gridNote;
    m_samplingNote->setText(request.samplingNote);
    m_samplingNote->setVisible(!request.samplingNote.isEmpty());
    const gpu::PeriodogramOptions& options = request.request.options;
    m_status->setText(tr("Computing %1 frequencies…").arg(options.grid.count) +
                      (m_gridNote.isEmpty() ? QString() : " " + m_gridNote));
    m_shownOptions = options;
    m_analysed = request.series;
    m_detrendNote = request.detrendNote;
    m_computing = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    request.request.options.cancel = m_cancel.get();
    m_job.setFuture(QtConcurrent::run([this, request = std::move(request), cancel = m_cancel] {
        Result result;
        result.unit = request.unit;
        result.session = std::make_shared<scene::PeriodogramSession>(request.controls);
        // A device chosen since the last job takes over from this one.
        if (!m_context || m_contextGeneration != m_devices->generation()) {
            m_contextGeneration = m_devices->generation();
            m_context.reset();
            result.status = m_devices->open("periodogram", m_context);
        }
        if (!result.status)
            return result;
        // A GPU by its number as well as its name: two GPUs of a machine often share the name.
        result.device = m_context->isCuda()
                            ? gpu::deviceLabel(m_context->device()) + " (" + m_context->name() + ")"
                            : m_context->name();
        result.useErrors = request.controls.useErrors;
        const auto t0 = std::chrono::steady_clock::now();
        scene::PeriodogramSession& session = *result.session;
        if (const gpu::Status s = session.prepare(request.loaded); !s) {
            result.status = gpu::Status::failure("The trend cannot be taken out: " + s.message());
            return result;
        }
        session.useRequest(request.request);
        result.status = session.computeSpectrum(*m_context);
        if (result.status && request.window)
            result.windowStatus = session.computeWindow(*m_context, result.window);
        result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
        result.timeline = m_context->collectTimeline();
        result.deviceInfo = m_context->info();
        const gpu::PeriodogramOptions& o = session.request().options;
        result.occupancy =
            gpu::periodogramOccupancy(*m_context, o.precision, o.launch.blockThreads);
        return result;
    }));
}

void PeriodogramWorkspace::onComputed()
{
    Result result = m_job.result();
    m_computing = false;
    if (m_pending) { // stale: a newer change is waiting
        m_pending = false;
        schedule();
        return;
    }
    const scene::PreparedSeries& prepared = result.session->prepared();
    showLightCurve(prepared.unmasked, prepared.trend, result.useErrors);
    if (!result.status) {
        setError(QString::fromStdString(result.status.message()));
        m_status->clear();
        return;
    }
    m_session = std::move(result.session);
    m_analysed = m_session->prepared().series;
    m_spectrum = m_session->spectrum();
    m_window = std::move(result.window);
    m_shownSampling = m_session->request().sampling;
    m_shownUnit = result.unit;
    if (!result.windowStatus)
        setError(tr("The spectral window could not be computed: %1")
                     .arg(QString::fromStdString(result.windowStatus.message())));
    const gpu::FrequencyGrid& grid = m_spectrum->grid();
    m_deviceInfo = result.deviceInfo;
    emit deviceKnown(m_deviceInfo);
    m_suggestedBlock = result.occupancy.suggestedBlock;
    const gpu::Occupancy& t = result.occupancy.theoretical;
    // Counted on the result: frequencies the launch left out are the non-finite ones.
    const long long covered = grid.count - m_spectrum->nonFinite();
    QString launchText = tr("Theoretical occupancy %1% (%2 blocks a SM), limited by %3; %4 "
                            "registers a thread")
                             .arg(qRound(100.0 * t.fraction))
                             .arg(t.activeBlocksPerSm)
                             .arg(QString::fromStdString(t.limitedBy))
                             .arg(result.occupancy.resources.registersPerThread);
    if (result.occupancy.api)
        launchText += result.occupancy.api->activeBlocksPerSm == t.activeBlocksPerSm
                          ? tr(". The CUDA occupancy API agrees")
                          : tr(". The CUDA occupancy API says %1 blocks")
                                .arg(result.occupancy.api->activeBlocksPerSm);
    launchText += tr(". %1 of %2 frequencies evaluated.").arg(covered).arg(grid.count);
    if (m_spectrum->method() == gpu::periodogramMethodName(gpu::PeriodogramMethod::Matrix))
        launchText += tr(" The matrix products ran, so this launch was not used.");
    m_launchInfo->setText(launchText);
    // The unit only where the file says it: plain numbers keep the bare range.
    const QString highest =
        QString::number(grid.fmax(), 'g', 4) + (m_shownUnit == gpu::TimeUnit::Unknown
                                                    ? QString()
                                                    : ' ' + scene::frequencyUnitText(m_shownUnit));
    m_status->setText(tr("%1 points, %2 frequencies from %3 to %4, in %5 ms (kernel %6 ms) on "
                         "%7; drawn through %8")
                          .arg(m_analysed.t.size())
                          .arg(grid.logarithmic ? tr("%1 log-spaced").arg(grid.count)
                                                : QString::number(grid.count))
                          .arg(grid.fmin, 0, 'g', 4)
                          .arg(highest)
                          .arg(result.ms, 0, 'f', 1)
                          .arg(m_spectrum->computeMs(), 0, 'f', 2)
                          .arg(QString::fromStdString(result.device) + ", " +
                               QString::fromStdString(m_spectrum->method()))
                          .arg(m_view->pathText()) +
                      (m_detrendNote.isEmpty() ? QString() : "; " + m_detrendNote) +
                      (m_gridNote.isEmpty() ? QString() : " " + m_gridNote));
    replot();
    showPeaks();
}

void PeriodogramWorkspace::setError(const QString& text)
{
    m_error->setText(text);
    m_error->setVisible(!text.isEmpty());
}

bool PeriodogramWorkspace::busy() const
{
    return m_computing || m_pending || m_loading || m_fitting;
}

QCustomPlot* PeriodogramWorkspace::lightCurveView() const
{
    return m_lightCurve;
}

QString PeriodogramWorkspace::launchText() const
{
    return m_launchInfo->text();
}

void PeriodogramWorkspace::chooseAutoLaunch()
{
    if (m_suggestedBlock < 1)
        return;
    m_blockThreads->setText(QString::number(m_suggestedBlock));
    m_gridBlocks->setText("0");
    recordUndo();
    schedule();
}

const gpu::FrequencyGrid& PeriodogramWorkspace::grid() const
{
    static const gpu::FrequencyGrid none;
    return m_spectrum ? m_spectrum->grid() : none;
}

QString PeriodogramWorkspace::errorText() const
{
    return m_error->text();
}

gpu::TimeSeries PeriodogramWorkspace::usedSeries() const
{
    return m_analysed;
}

void PeriodogramWorkspace::addMask(const gpu::TimeRange& range)
{
    if (m_masks.size() >= gpu::kMaxMasks) {
        setError(tr("At most %1 ranges can be masked").arg(gpu::kMaxMasks));
        return;
    }
    m_masks.push_back(range);
    recordUndo();
    schedule();
}

void PeriodogramWorkspace::removeMask(int index)
{
    if (index < 0 || index >= int(m_masks.size()))
        return;
    m_masks.erase(m_masks.begin() + index);
    recordUndo();
    schedule();
}

void PeriodogramWorkspace::prewhitenPeak(int peak)
{
    if (peak < 0 || peak >= int(m_peaks.size()))
        return setError(tr("Select a peak to prewhiten"));
    const double frequency = m_peaks[std::size_t(peak)].frequency;
    startFit([session = m_session, frequency](
                 scene::PeriodogramScene& c) { return session->addPrewhitened(c, frequency); },
             tr("Prewhiten period %1").arg(scene::periodText(1.0 / frequency, m_shownUnit)));
}

void PeriodogramWorkspace::refitSinusoids()
{
    if (m_prewhitened.empty())
        return;
    startFit(
        [session = m_session](scene::PeriodogramScene& c) { return session->refitPrewhitened(c); },
        tr("Fit %1 sinusoids together").arg(m_prewhitened.size()));
}

void PeriodogramWorkspace::removeSinusoid(int index)
{
    if (index < 0 || index >= int(m_prewhitened.size()))
        return;
    scene::PeriodogramScene c = m_committed;
    c.prewhitened.erase(c.prewhitened.begin() + index);
    applyScene(c, tr("Remove prewhitened sinusoid %1").arg(index + 1));
}

void PeriodogramWorkspace::startFit(std::function<gpu::Status(scene::PeriodogramScene&)> fit,
                                    const QString& text)
{
    // A fit of the periodogram shown: while another is computed, the data it would start from
    // are about to change.
    if (m_fitting || m_computing || !m_spectrum)
        return setError(tr("Wait for the periodogram to finish, then fit"));
    m_fitting = true;
    showPrewhitening();
    m_fit.setFuture(QtConcurrent::run([fit = std::move(fit), c = m_committed, text]() mutable {
        Fitted result;
        result.scene = c;
        result.text = text;
        result.status = fit(result.scene);
        return result;
    }));
}

void PeriodogramWorkspace::onFitted()
{
    m_fitting = false;
    Fitted result = m_fit.result();
    showPrewhitening();
    if (!result.status) {
        setError(tr("The fit failed: %1").arg(QString::fromStdString(result.status.message())));
        return;
    }
    applyScene(result.scene, result.text);
    m_prewhitenedSource = sourceKey();
    m_lowerTabs->setCurrentWidget(m_prewhitening);
    const gpu::FittedSinusoid& last = result.scene.prewhitened.back();
    emit message(tr("%1: frequency %2, amplitude %3")
                     .arg(result.text)
                     .arg(valueWithError(last.frequency, last.frequencyError))
                     .arg(valueWithError(last.amplitude, last.amplitudeError)));
}

QString PeriodogramWorkspace::valueLabel() const
{
    const int yColumn = m_shownReport.yColumn;
    if (m_source.isEmpty() || yColumn < 0 || yColumn >= int(m_shownReport.columns.size()))
        return tr("y");
    const QString name = QString::fromStdString(m_shownReport.columns[std::size_t(yColumn)]);
    // A FITS column's unit, "PDCSAP_FLUX (e-/s)"; "mag" there makes the axis a magnitude's.
    const std::vector<std::string>& units = m_shownReport.units;
    if (yColumn >= int(units.size()) || units[std::size_t(yColumn)].empty())
        return name;
    return tr("%1 (%2)").arg(name, QString::fromStdString(units[std::size_t(yColumn)]));
}

void PeriodogramWorkspace::showLightCurve(const gpu::TimeSeries& kept,
                                          const std::vector<double>& trend, bool useErrors)
{
    gpu::TimeSeries all = m_series;
    if (!useErrors)
        all.dy.clear();
    m_lightCurve->setData(all, m_masks, kept, trend);
}

void PeriodogramWorkspace::showPrewhitening()
{
    m_prewhitening->setSinusoids(m_prewhitened, m_source.isEmpty() ? gpu::TimeUnit::Unknown
                                                                   : m_shownReport.timeUnit);
    m_prewhitening->setState(m_fitting, !m_peaks.empty());
}

void PeriodogramWorkspace::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void PeriodogramWorkspace::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.front().isLocalFile())
        openFile(urls.front().toLocalFile());
}

} // namespace warpscope::ui
