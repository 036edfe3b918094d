#pragma once

#include "warpscope/gpu/Catalogue.h"
#include "warpscope/gpu/DevicePool.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/PeriodogramSampling.h"
#include "warpscope/gpu/TimeSeriesIO.h"
#include "warpscope/scene/PeriodogramRequest.h"
#include "warpscope/scene/PeriodogramScene.h"
#include "warpscope/scene/PeriodogramSession.h"

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QProgressDialog;
class QSettings;
class QSpinBox;
class QTabWidget;
class QToolButton;
class QTableWidget;
class QUndoStack;

namespace warpscope::ui {

class FoldView;
class LightCurveView;
class PeriodogramMarks;
class PrewhiteningPanel;
class SpectrumView;

// The periodogram workspace: a time series (the synthetic default, or a file opened or
// dropped), its Lomb-Scargle periodogram on the chosen device, the highest peaks with their
// false-alarm probabilities, the 1 % and 0.1 % false-alarm levels and the selected peak's
// aliases marked on the plot, optionally the spectral window, and the data folded at a chosen
// peak with the fitted sinusoid. Regularly sampled times are recognised: the automatic grid
// stops at their Nyquist frequency and a note says so. Every control recomputes live, off the GUI
// thread; a result made stale by a newer change is dropped and the newest parameters run next.
class PeriodogramWorkspace : public QWidget
{
    Q_OBJECT

public:
    explicit PeriodogramWorkspace(std::shared_ptr<gpu::DevicePool> devices,
                                  QWidget* parent = nullptr);
    ~PeriodogramWorkspace() override;

    // Loads a file in the background with a progress dialog; the old series stays until it
    // succeeds. Columns are found by their header names where it has them, and the time
    // format from the time column unless one is given.
    void openFile(const QString& path, gpu::TimeFormat timeFormat = gpu::TimeFormat::Auto);
    // Loads one object of a long table (a survey warpscope-batch ran on) in the background,
    // as the batch read it: the rows of that id, with the batch's columns and time format,
    // read off the GUI thread. It is then shown as a file is, its columns fixed to the
    // batch's; a table that is gone or lacks the object leaves the series shown and says why.
    void openTableObject(const QString& table, const gpu::TableColumns& columns,
                         gpu::TimeFormat timeFormat, const QString& id);
    // The object of a table shown, or "" when a file or the synthetic series is.
    const QString& shownObject() const { return m_sourceObject; }
    // Loads the file shown again with these columns (0-based; dy -1 for none).
    void chooseColumns(int t, int y, int dy);
    // Loads the file shown again reading its time column in this format (Auto: detected).
    void chooseTimeFormat(gpu::TimeFormat format);
    void useSynthetic();
    // A manual grid of count frequencies from fmin to fmax, in the unit chosen (ordinary by
    // default), evenly or logarithmically spaced, and the CUDA method; both recompute.
    void setManualGrid(double fmin, double fmax, long long count, bool logarithmic = false);
    void setMethod(gpu::PeriodogramMethod method);
    // True while a load or a computation runs or waits.
    bool busy() const;

    const gpu::TimeSeries& series() const { return m_series; }
    // The periodogram shown, where it was computed (device memory on CUDA); null before the
    // first.
    const std::shared_ptr<const gpu::Spectrum>& spectrum() const { return m_spectrum; }
    // Its powers, copied to the host (empty before the first).
    std::vector<double> readPower() const;
    // The shown periodogram's grid (empty before the first).
    const gpu::FrequencyGrid& grid() const;
    const std::vector<gpu::Peak>& peaks() const { return m_peaks; }
    QString launchText() const;
    // Sets the block to the occupancy API's (or calculator's) suggestion and the grid to cover.
    void chooseAutoLaunch();
    QString errorText() const;
    SpectrumView* spectrumView() const { return m_view; }
    // The data folded at the selected peak, with the model the periodogram fits there.
    FoldView* foldPlot() const { return m_fold; }
    // The series over time above the periodogram, with the trend and the masked ranges.
    QCustomPlot* lightCurveView() const;
    // The time ranges left out of the detrending and the periodogram.
    const std::vector<gpu::TimeRange>& masks() const { return m_masks; }
    // The series the shown periodogram was computed on: masked points left out, the trend
    // taken out, dy cleared when the weights are not used.
    const gpu::TimeSeries& analysedSeries() const { return m_analysed; }
    // The spectral window's plot, shown under the periodogram while "Spectral window" is on.
    QCustomPlot* windowPlot() const { return m_windowPlot; }
    // The labels of the marks drawn over the periodogram: false-alarm levels, then aliases.
    QStringList markLabels() const;
    // The false-alarm levels' labels as last painted: lines closer than a label's height share
    // one ("FAP 1 %, 0.1 %").
    QStringList paintedLevelLabels() const;
    // Writes frequency, period and power, the header naming the time unit; returns an error
    // message or an empty string.
    QString exportCsv(const QString& path) const;
    // Writes the listed peaks and the prewhitened sinusoids as JSON (scene::peaksJson);
    // returns an error message or "".
    QString exportPeaks(const QString& path) const;
    // Writes the prewhitened sinusoids as CSV (scene::prewhitenedCsv); "" or an error.
    QString exportSinusoids(const QString& path) const;
    // Prewhitening (one undo step each, off the GUI thread): fit the sinusoid of peak (a row
    // of the peak table) and take it out; fit every listed sinusoid together; remove one.
    void prewhitenPeak(int peak);
    void refitSinusoids();
    void removeSinusoid(int index);
    PrewhiteningPanel* prewhiteningPanel() const { return m_prewhitening; }
    // The time unit of the periodogram shown (Unknown for the synthetic series).
    gpu::TimeUnit shownUnit() const { return m_shownUnit; }
    // The controls' values, remembered between runs (the data itself is not).
    void saveSettings(QSettings& settings) const;
    void restoreSettings(const QSettings& settings);
    // Every change of the controls, for Edit > Undo while the workspace is shown.
    QUndoStack* undoStack() const { return m_undo; }
    // The controls as a scene; std::nullopt, with the reason in problem, while a typed
    // number does not parse.
    std::optional<scene::PeriodogramScene> currentScene(QString* problem = nullptr) const;
    // Sets every control to a scene as one undo step, named text, and recomputes.
    void applyScene(const scene::PeriodogramScene& controls, const QString& text);

signals:
    void message(const QString& text);
    // The device the last periodogram ran on.
    void deviceKnown(const gpu::DeviceInfo& device);
    // Nothing is loading or computing any more: a periodogram or an error is shown.
    void settled();

protected:
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    struct Request
    {
        gpu::TimeSeries series;
        scene::PeriodogramRequest request; // as the command line and the batch make it
        QString gridNote;                  // what the automatic grid left out, or empty
        QString samplingNote;              // regular sampling and its Nyquist frequency, or empty
        bool window = false;               // compute the spectral window too
        gpu::TimeUnit unit = gpu::TimeUnit::Unknown;
        QString detrendNote; // what was taken out, for the status line
        // The loaded series and the controls: the worker prepares the series (trend,
        // prewhitening) before its periodogram. series above is the masked one, for the grid.
        gpu::TimeSeries loaded;
        scene::PeriodogramScene controls;
    };
    struct Result
    {
        gpu::Status status;
        // The series prepared and its periodogram computed (the spectrum in it).
        std::shared_ptr<scene::PeriodogramSession> session;
        double ms = 0.0;
        std::string device;
        gpu::DeviceInfo deviceInfo;
        gpu::KernelOccupancy occupancy;
        gpu::Status timeline;
        gpu::TimeUnit unit = gpu::TimeUnit::Unknown;
        std::shared_ptr<const gpu::Spectrum> window;
        gpu::Status windowStatus;
        bool useErrors = true;
    };
    // The constructor's parts: the controls, the panel that holds them (the Data group its
    // first part), the plots and tables of the result, then their signals.
    void createControls();
    QGroupBox* makeDataGroup();
    QWidget* makeControlsPanel();
    QWidget* makeResultViews();
    void connectControls();
    // The period search's controls: the method, and the rows only some methods use.
    QWidget* createSearchControls();
    void enableSearchControls();
    // The shown periodogram's method's traits (Lomb-Scargle's before the first).
    scene::PeriodogramMethodTraits shownTraits() const;
    // The box least squares peak i's box, for the status and the fold.
    QString boxText(std::size_t i) const;
    // " (refined: period ± error, how)" for a refined peak i, else empty.
    QString refinedText(std::size_t i) const;
    void showBoxFold(std::size_t peak);
    void connectResults();
    // A load has ended: its series is shown and computed, or its error said.
    void onLoaded();
    std::optional<Request> makeRequest();
    // Shows the problems and marks their fields; true when there are none.
    bool explainProblems(const std::vector<gpu::PeriodogramProblem>& problems);
    void schedule();
    void start(Request request);
    void onComputed();
    void showPeaks();
    void showFold(int peak);
    // Folds the selected peak at its period times 2^step more (step 1: x2, -1: /2): an
    // eclipsing binary's strongest peak is often half its period.
    void scaleFoldPeriod(int step);
    // The values' column name from the file, or "y" for the built-in series.
    QString valueLabel() const;
    // Selects the peak drawn nearest to a click on the periodogram, if one is close.
    void clickPlot(const QPointF& pos);
    void replot();
    void showWindow();
    // The false-alarm levels of the periodogram shown, in the label and on the plot.
    void showLevels();
    // The aliases of the selected peak (and the Nyquist frequency) on the plot and in a label.
    void showAliases(int peak);
    void setError(const QString& text);
    void load(const QString& path, const gpu::ColumnChoice& columns);
    // Starts a load on a worker: read fills the series and m_loadReport, reporting progress.
    using Reader =
        std::function<gpu::Status(gpu::TimeSeries&, gpu::LoadReport&, const gpu::LoadProgress&)>;
    void startLoad(const QString& path, const QString& object, const gpu::ColumnChoice& columns,
                   Reader read);
    // What the data shown is, for telling fitted sinusoids of other data apart: the file,
    // and the object of a table after a newline.
    QString sourceKey() const;
    class ControlsCommand;
    // The controls' values. A typed number that does not parse keeps fallback's value and is
    // named in unparsed.
    scene::PeriodogramScene readControls(const scene::PeriodogramScene& fallback,
                                         QStringList* unparsed = nullptr) const;
    void setControls(const scene::PeriodogramScene& controls);
    // Pushes the controls' change since the last one onto the undo stack.
    void recordUndo();
    // Sets the controls (undo and redo) and recomputes.
    void applyControls(const scene::PeriodogramScene& controls);
    void showColumns();
    // The unit of the series loaded (Unknown for the synthetic one), in the grid's controls.
    void showUnits();
    // The synthetic series' controls, shown only while it is the data.
    void showSyntheticControls(bool shown);
    // The shown series as it was computed: dy cleared when the weights are not used.
    gpu::TimeSeries usedSeries() const;
    void exportDialog();
    // A mask drawn on the light curve, or one clicked away: one undo step each.
    void addMask(const gpu::TimeRange& range);
    void removeMask(int index);
    // Runs a prewhitening fit on a worker; the scene it returns becomes one undo step.
    void startFit(std::function<gpu::Status(scene::PeriodogramScene&)> fit, const QString& text);
    void onFitted();
    void showPrewhitening();
    // The light curve of the series loaded, with the masked ranges and, where known, the
    // points kept and the trend fitted to them.
    void showLightCurve(const gpu::TimeSeries& kept, const std::vector<double>& trend,
                        bool useErrors);

    std::shared_ptr<gpu::DevicePool> m_devices;
    QUndoStack* m_undo;
    scene::PeriodogramScene m_committed; // the controls as the undo stack last saw them
    bool m_applying = false;
    std::unique_ptr<gpu::Context> m_context; // opened and used by the worker thread only
    std::uint64_t m_contextGeneration = 0;   // the pool's generation it was opened in
    QFutureWatcher<Result> m_job;
    bool m_pending = false;
    // From the start of a job or load until its result is handled on the GUI thread (the
    // watcher stops running before its finished signal arrives).
    bool m_computing = false;
    bool m_loading = false;
    std::shared_ptr<std::atomic<bool>> m_cancel; // the running job's
    QString m_source;       // the file shown, or empty for the synthetic series
    QString m_sourceObject; // the object of table m_source shown, or empty
    // The last text table an object was read from, indexed, so that object after object of
    // one survey reads only each one's lines; shared with the worker that reads.
    struct TableCache
    {
        std::mutex mutex;
        std::string key; // the table and how it is read
        std::shared_ptr<const gpu::Catalogue> index;
    };
    std::shared_ptr<TableCache> m_tableCache = std::make_shared<TableCache>();
    QString m_loadingPath;             // the file being loaded
    QString m_loadingObject;           // and its object, for a table's
    gpu::ColumnChoice m_loadingChoice; // its columns and time format
    gpu::LoadReport m_loadReport;      // written by the load in progress
    gpu::LoadReport m_shownReport;     // of the file shown
    gpu::ColumnChoice m_shownChoice;   // what was asked of the file shown
    // Of the periodogram shown: a new file's unit names its axes once its periodogram is.
    gpu::TimeUnit m_shownUnit = gpu::TimeUnit::Unknown;

    gpu::TimeSeries m_series;
    std::shared_ptr<const gpu::Spectrum> m_spectrum;
    gpu::PeriodogramOptions m_shownOptions;
    QString m_gridNote; // the shown (or computing) grid's
    std::optional<gpu::RegularSampling> m_shownSampling;
    std::shared_ptr<const gpu::Spectrum> m_window; // the spectral window shown, or null
    std::vector<gpu::Peak> m_peaks;
    std::vector<std::optional<double>> m_falseAlarm; // each peak's, where the method has one
    // Each peak's figures of the method's own (box least squares: its box), named.
    scene::ReportedPeaks m_peakDetails;
    std::vector<gpu::TimeRange> m_masks;
    gpu::TimeSeries m_analysed; // the shown (or computing) periodogram's series
    QString m_detrendNote;      // and what was taken out of it
    // The shown periodogram's session: its preparation, which fits start from, its peaks
    // and the fold's model.
    std::shared_ptr<const scene::PeriodogramSession> m_session;
    std::vector<gpu::FittedSinusoid> m_prewhitened;
    double m_prewhitenEpoch = 0.0;
    // The data a fit here added to the list: the file, or "" for the synthetic series. None
    // while the list came from a scene.
    std::optional<QString> m_prewhitenedSource;
    struct Fitted
    {
        gpu::Status status;
        scene::PeriodogramScene scene;
        QString text;
    };
    QFutureWatcher<Fitted> m_fit;
    bool m_fitting = false;

    // Loading
    QFutureWatcher<std::pair<gpu::Status, gpu::TimeSeries>> m_load;
    std::shared_ptr<std::atomic<double>> m_loadProgress;
    std::shared_ptr<std::atomic<bool>> m_loadCancel;
    QProgressDialog* m_loadDialog = nullptr;

    // Controls
    QSpinBox* m_points;
    QDoubleSpinBox* m_baseline;
    QDoubleSpinBox* m_noise;
    QDoubleSpinBox* m_period;
    QDoubleSpinBox* m_amplitude;
    QSpinBox* m_seed;
    QComboBox* m_tColumn;
    QComboBox* m_yColumn;
    QComboBox* m_dyColumn;
    QComboBox* m_timeFormat;
    QWidget* m_syntheticControls; // the synthetic series' rows, hidden while a file is shown
    QComboBox* m_gridMode;
    QDoubleSpinBox* m_samplesPerPeak;
    QDoubleSpinBox* m_nyquist;
    QLineEdit* m_fmin;
    QLineEdit* m_fmax;
    QLineEdit* m_count;
    QComboBox* m_frequencyUnit;
    QComboBox* m_xAxis;
    QCheckBox* m_logX;
    QComboBox* m_normalization;
    QCheckBox* m_fitMean;
    QCheckBox* m_center;
    QCheckBox* m_useErrors;
    QCheckBox* m_showWindow;
    QComboBox* m_precision;
    QComboBox* m_method;
    QSpinBox* m_nterms;
    // The period search (the methods' registry) and box least squares' own controls.
    QComboBox* m_search;
    QLineEdit* m_blsDurations;
    QComboBox* m_blsObjective;
    QLineEdit* m_blockThreads;
    QLineEdit* m_gridBlocks;
    QCheckBox* m_gridStride;
    QComboBox* m_detrendMethod;
    QSpinBox* m_detrendDegree;
    QDoubleSpinBox* m_detrendWindow;
    QLabel* m_launchInfo;
    gpu::DeviceInfo m_deviceInfo = gpu::simulatedHopper();
    long long m_suggestedBlock = 0;
    QLabel* m_sourceLabel;
    QLabel* m_samplingNote;
    QLabel* m_levels;
    QLabel* m_aliases;
    QLabel* m_status;
    QLabel* m_error;
    QLabel* m_fap;
    QTableWidget* m_peakTable;
    QSpinBox* m_peakCount;
    SpectrumView* m_view;
    FoldView* m_fold;
    LightCurveView* m_lightCurve;
    QCustomPlot* m_windowPlot;
    PeriodogramMarks* m_marks;
    PrewhiteningPanel* m_prewhitening;
    QTabWidget* m_lowerTabs;
    QToolButton* m_foldDouble;
    QToolButton* m_foldHalve;
    // The fold's period is the selected peak's times 2^m_foldDoublings (0 when a peak is
    // selected).
    int m_foldDoublings = 0;
};

} // namespace warpscope::ui
