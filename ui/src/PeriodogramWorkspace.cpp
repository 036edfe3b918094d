#include "warpscope/ui/PeriodogramWorkspace.h"

#include "LightCurveView.h"
#include "PeriodogramMarks.h"
#include "PrewhiteningPanel.h"
#include "Style.h"
#include "ValueText.h"
#include "warpscope/gpu/FrequencyFit.h"
#include "warpscope/gpu/TraceExport.h"
#include "warpscope/scene/PeriodogramUnits.h"
#include "warpscope/scene/Prewhitening.h"
#include "warpscope/scene/SceneFile.h"
#include "warpscope/ui/FoldView.h"
#include "warpscope/ui/SpectrumView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProgressDialog>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <qcustomplot.h>
#include <tuple>
#include <type_traits>

namespace warpscope::ui {
namespace {

QDoubleSpinBox* doubleBox(QWidget* parent, double lo, double hi, double value, int decimals,
                          const QString& tip)
{
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(lo, hi);
    box->setDecimals(decimals);
    box->setValue(value);
    box->setToolTip(tip);
    box->setKeyboardTracking(false);
    return box;
}

} // namespace

PeriodogramWorkspace::PeriodogramWorkspace(std::shared_ptr<gpu::DevicePool> devices,
                                           QWidget* parent)
    : QWidget(parent), m_devices(std::move(devices)), m_undo(new QUndoStack(this))
{
    setAcceptDrops(true);
    const gpu::SyntheticOptions synthetic;
    m_points = new QSpinBox(this);
    m_points->setRange(scene::kMinPoints, scene::kMaxPoints);
    m_points->setValue(synthetic.points);
    m_points->setKeyboardTracking(false);
    m_points->setToolTip(tr("Samples in the synthetic series"));
    m_points->setObjectName("points");
    m_baseline = doubleBox(this, scene::kMinBaseline, scene::kMaxBaseline, synthetic.baseline, 2,
                           tr("Time span of the samples"));
    m_noise = doubleBox(this, 0.0, scene::kMaxNoise, synthetic.noise, 3,
                        tr("Standard deviation of the Gaussian noise (also each point's dy)"));
    m_period =
        doubleBox(this, scene::kMinPeriod, scene::kMaxPeriod, synthetic.sinusoids[0].period, 4,
                  tr("Period of the main sinusoid (a second at 2.9 with half its "
                     "amplitude is always added)"));
    m_amplitude = doubleBox(this, 0.0, scene::kMaxAmplitude, synthetic.sinusoids[0].amplitude, 3,
                            tr("Amplitude of the main sinusoid"));
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, scene::kMaxSeed);
    m_seed->setValue(int(synthetic.seed));
    m_seed->setToolTip(tr("Random seed: sampling times, gaps and noise"));
    m_seed->setKeyboardTracking(false);
    m_baseline->setObjectName("baseline");
    m_noise->setObjectName("noise");
    m_period->setObjectName("period");
    m_amplitude->setObjectName("amplitude");
    m_seed->setObjectName("seed");

    m_gridMode = new QComboBox(this);
    m_gridMode->setObjectName("gridMode");
    m_gridMode->addItems({tr("Automatic"), tr("Manual, evenly spaced"), tr("Manual, logarithmic")});
    m_gridMode->setToolTip(
        tr("Automatic follows astropy's autofrequency: df = 1 / (baseline x samples per peak),\n"
           "from df / 2 up to the Nyquist factor times the average Nyquist frequency.\n"
           "Logarithmic: each frequency a constant ratio above the one before, for periods\n"
           "over several decades; CUDA computes it with the direct kernel (the matrix\n"
           "products need even spacing)."));
    m_samplesPerPeak = doubleBox(this, scene::kMinSamplesPerPeak, scene::kMaxSamplesPerPeak, 5, 2,
                                 tr("Grid points across each peak"));
    m_nyquist = doubleBox(this, scene::kMinNyquistFactor, scene::kMaxNyquistFactor, 5, 2,
                          tr("Highest frequency as a multiple of the average Nyquist frequency"));
    m_samplesPerPeak->setObjectName("samplesPerPeak");
    m_nyquist->setObjectName("nyquistFactor");
    m_fmin = new QLineEdit("0.001", this);
    m_fmax = new QLineEdit("2", this);
    m_count = new QLineEdit("100000", this);
    m_fmin->setObjectName("fmin");
    m_fmax->setObjectName("fmax");
    m_count->setObjectName("frequencyCount");
    m_count->setToolTip(tr("Number of frequencies M, up to %1").arg(gpu::kMaxFrequencies));
    m_frequencyUnit = new QComboBox(this);
    m_frequencyUnit->addItems(
        {tr("ordinary f (cycles per unit time)"), tr("angular ω = 2πf (radians per unit time)")});
    m_frequencyUnit->setToolTip(tr("The unit of the manual grid and of the frequency axis"));
    m_xAxis = new QComboBox(this);
    m_xAxis->addItems({tr("Frequency"), tr("Period")});
    m_xAxis->setObjectName("xAxis");
    m_logX = new QCheckBox(tr("Logarithmic"), this);
    m_logX->setObjectName("logX");

    m_normalization = new QComboBox(this);
    m_normalization->setObjectName("normalization");
    for (auto n : {gpu::Normalization::Standard, gpu::Normalization::Model, gpu::Normalization::Log,
                   gpu::Normalization::Psd})
        m_normalization->addItem(QString::fromUtf8(gpu::normalizationName(n)));
    m_normalization->setToolTip(tr("astropy's normalisations: standard (fraction of variance "
                                   "explained), model, log, psd"));
    m_fitMean = new QCheckBox(tr("Floating mean"), this);
    m_fitMean->setChecked(true);
    m_fitMean->setToolTip(tr("Generalised Lomb-Scargle: the model has its own offset"));
    m_center = new QCheckBox(tr("Center data"), this);
    m_center->setChecked(true);
    m_useErrors = new QCheckBox(tr("Weights from dy"), this);
    m_useErrors->setChecked(true);
    m_showWindow = new QCheckBox(tr("Spectral window"), this);
    m_showWindow->setObjectName("spectralWindow");
    m_showWindow->setToolTip(
        tr("The periodogram of the sampling alone (y = 1 at every time, no mean fitted or\n"
           "removed, standard normalisation), drawn under the periodogram: a peak of the\n"
           "window at w puts a copy of every signal f at f ± w."));
    m_precision = new QComboBox(this);
    m_precision->addItems({"float64", "float32"});
    m_method = new QComboBox(this);
    m_method->setObjectName("periodogramMethod");
    m_method->addItems({tr("Auto"), tr("Direct kernel"), tr("Tensor-core matrix products")});
    m_method->setToolTip(
        tr("How CUDA sums, both exactly.\nDirect kernel: shaped by the Launch settings below.\n"
           "Matrix products: the sums as products of matrices on tensor cores (compute "
           "capability 8.0 and newer): FP64 in float64, three FP16 products in float32.\n"
           "Auto: matrix products in float64 where FP64 tensor cores run at full rate, in "
           "float32 on any GPU with tensor cores.\n"
           "The CPU always uses rotation tables and simulates the direct kernel's launch."));
    m_nterms = new QSpinBox(this);
    m_nterms->setObjectName("nterms");
    m_nterms->setRange(1, gpu::kMaxPeriodogramTerms);
    m_nterms->setToolTip(
        tr("Harmonics in the model (astropy's nterms): 1 fits a sinusoid; more terms follow\n"
           "eclipses, pulsations and other non-sinusoidal light curves, whose one-term\n"
           "periodogram splits power between the fundamental and its overtones. More than\n"
           "one term runs on the direct kernel, and has no false-alarm probability."));
    m_blockThreads = new QLineEdit("128", this);
    m_blockThreads->setObjectName("periodogramBlock");
    m_blockThreads->setToolTip(tr("Threads per block (x); each thread evaluates %1 consecutive "
                                  "frequencies. At most %2.")
                                   .arg(gpu::kFrequenciesPerThread)
                                   .arg(gpu::kPeriodogramMaxBlock));
    m_gridBlocks = new QLineEdit("0", this);
    m_gridBlocks->setObjectName("periodogramGrid");
    m_gridBlocks->setToolTip(tr("Blocks in the grid; 0 for enough to cover every frequency.\n"
                                "Fewer leave frequencies unevaluated, unless grid-stride is on."));
    m_gridStride = new QCheckBox(tr("Grid-stride loop"), this);
    m_gridStride->setObjectName("periodogramGridStride");
    m_launchInfo = new QLabel(this);
    m_detrendMethod = new QComboBox(this);
    m_detrendMethod->setObjectName("detrendMethod");
    m_detrendMethod->addItems({tr("None"), tr("Polynomial"), tr("Running median")});
    m_detrendMethod->setToolTip(
        tr("A trend taken out before the periodogram, which is then of the residuals.\n"
           "Polynomial: weighted least squares in t (weights 1/dy² when dy is used).\n"
           "Running median: at each time, the median of the values within ± window / 2."));
    const gpu::DetrendOptions detrend;
    m_detrendDegree = new QSpinBox(this);
    m_detrendDegree->setObjectName("detrendDegree");
    m_detrendDegree->setRange(0, gpu::kMaxDetrendDegree);
    m_detrendDegree->setValue(detrend.degree);
    m_detrendDegree->setKeyboardTracking(false);
    m_detrendDegree->setToolTip(tr("Degree of the polynomial trend"));
    m_detrendWindow = doubleBox(this, 1e-6, 1e12, detrend.window, 6,
                                tr("Width of the running median's window, in the unit of t"));
    m_detrendWindow->setObjectName("detrendWindow");
    m_launchInfo->setObjectName("periodogramLaunch");
    m_launchInfo->setWordWrap(true);

    auto* open = new QPushButton(tr("&Open…"), this);
    open->setToolTip(tr("CSV, TSV or whitespace-separated t, y and optional dy (or drop a file "
                        "on the window)"));
    auto* generate = new QPushButton(tr("S&ynthetic"), this);
    generate->setObjectName("synthetic");
    generate->setToolTip(tr("Use the synthetic series again, with its controls"));
    m_sourceLabel = new QLabel(this);
    m_sourceLabel->setWordWrap(true);
    m_samplingNote = new QLabel(this);
    m_samplingNote->setObjectName("samplingNote");
    m_samplingNote->setWordWrap(true);
    m_samplingNote->setVisible(false);

    auto* data = new QGroupBox(tr("Data"), this);
    auto* dataLayout = new QVBoxLayout(data);
    auto* dataForm = new QFormLayout;
    dataLayout->addLayout(dataForm);
    auto* dataButtons = new QHBoxLayout;
    dataButtons->addWidget(open);
    dataButtons->addWidget(generate);
    dataForm->addRow(dataButtons);
    dataForm->addRow(m_sourceLabel);
    // A row each, so that long column names (PDCSAP_FLUX_ERR) show whole.
    for (auto [box, name, label, tip] :
         {std::tuple{&m_tColumn, "tColumn", tr("Time (t)"), tr("The column of times")},
          std::tuple{&m_yColumn, "yColumn", tr("Value (y)"), tr("The column of values")},
          std::tuple{&m_dyColumn, "dyColumn", tr("Error (dy)"),
                     tr("The column of uncertainties, or none")}}) {
        *box = new QComboBox(this);
        (*box)->setObjectName(name);
        (*box)->setToolTip(tip);
        (*box)->setEnabled(false);
        (*box)->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        (*box)->setMinimumContentsLength(12);
        dataForm->addRow(label, *box);
        connect(*box, &QComboBox::activated, this, [this] {
            chooseColumns(m_tColumn->currentIndex(), m_yColumn->currentIndex(),
                          m_dyColumn->currentIndex() - 1);
        });
    }
    m_timeFormat = new QComboBox(this);
    m_timeFormat->setObjectName("timeFormat");
    m_timeFormat->setToolTip(tr("How the time column is written: automatic detects it from the "
                                "header and the values; another choice reloads the file reading "
                                "the column so"));
    m_timeFormat->setEnabled(false);
    for (int f = int(gpu::TimeFormat::Auto); f <= int(gpu::TimeFormat::Bkjd); ++f)
        m_timeFormat->addItem(QString::fromUtf8(gpu::timeFormatName(gpu::TimeFormat(f))), f);
    connect(m_timeFormat, &QComboBox::activated, this,
            [this] { chooseTimeFormat(gpu::TimeFormat(m_timeFormat->currentData().toInt())); });
    dataForm->addRow(tr("Time format"), m_timeFormat);
    // The synthetic series' controls in a form of their own, shown and hidden as one: hiding
    // rows of a QFormLayout whose labels wrap makes Qt 6.4's height-for-width write past its
    // cache (heap corruption, found with valgrind).
    m_syntheticControls = new QWidget(this);
    m_syntheticControls->setObjectName("syntheticControls");
    auto* syntheticForm = new QFormLayout(m_syntheticControls);
    syntheticForm->setContentsMargins(0, 0, 0, 0);
    syntheticForm->addRow(tr("Points"), m_points);
    syntheticForm->addRow(tr("Baseline"), m_baseline);
    syntheticForm->addRow(tr("Noise σ"), m_noise);
    syntheticForm->addRow(tr("Period"), m_period);
    syntheticForm->addRow(tr("Amplitude"), m_amplitude);
    syntheticForm->addRow(tr("Seed"), m_seed);
    dataLayout->addWidget(m_syntheticControls);
    auto* grid = new QGroupBox(tr("Frequency grid"), this);
    auto* gridForm = new QFormLayout(grid);
    gridForm->addRow(tr("Grid"), m_gridMode);
    gridForm->addRow(tr("Samples per peak"), m_samplesPerPeak);
    gridForm->addRow(tr("Nyquist factor"), m_nyquist);
    gridForm->addRow(tr("Minimum"), m_fmin);
    gridForm->addRow(tr("Maximum"), m_fmax);
    gridForm->addRow(tr("Frequencies (M)"), m_count);
    gridForm->addRow(tr("Unit"), m_frequencyUnit);
    auto* axisRow = new QHBoxLayout;
    axisRow->addWidget(m_xAxis);
    axisRow->addWidget(m_logX);
    gridForm->addRow(tr("X axis"), axisRow);
    gridForm->addRow(m_samplingNote);
    auto* options = new QGroupBox(tr("Options"), this);
    auto* optionsForm = new QFormLayout(options);
    optionsForm->addRow(tr("Normalisation"), m_normalization);
    optionsForm->addRow(tr("Terms"), m_nterms);
    optionsForm->addRow(m_fitMean);
    optionsForm->addRow(m_center);
    optionsForm->addRow(m_useErrors);
    optionsForm->addRow(m_showWindow);
    optionsForm->addRow(tr("Detrend"), m_detrendMethod);
    optionsForm->addRow(tr("Degree"), m_detrendDegree);
    optionsForm->addRow(tr("Window"), m_detrendWindow);
    optionsForm->addRow(tr("Precision"), m_precision);
    optionsForm->addRow(tr("Method"), m_method);
    auto* launch = new QGroupBox(tr("Launch (direct kernel)"), this);
    auto* launchForm = new QFormLayout(launch);
    launchForm->addRow(tr("Threads per block"), m_blockThreads);
    launchForm->addRow(tr("Blocks (0: cover)"), m_gridBlocks);
    auto* autoLaunch = new QPushButton(tr("Auto"), this);
    autoLaunch->setObjectName("periodogramAuto");
    autoLaunch->setToolTip(tr("The block size the CUDA occupancy API suggests (the calculator "
                              "without a GPU), and a grid that covers"));
    auto* launchRow = new QHBoxLayout;
    launchRow->addWidget(m_gridStride);
    launchRow->addWidget(autoLaunch);
    launchForm->addRow(launchRow);
    launchForm->addRow(m_launchInfo);
    auto* exportCsvButton = new QPushButton(tr("Export CSV…"), this);
    auto* exportPng = new QPushButton(tr("Export PNG…"), this);
    auto* exportRow = new QHBoxLayout;
    exportRow->addWidget(exportCsvButton);
    exportRow->addWidget(exportPng);

    auto* controls = new QWidget(this);
    auto* controlsLayout = new QVBoxLayout(controls);
    controlsLayout->addWidget(data);
    controlsLayout->addWidget(grid);
    controlsLayout->addWidget(options);
    controlsLayout->addWidget(launch);
    controlsLayout->addLayout(exportRow);
    controlsLayout->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(controls);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(320);

    m_view = new SpectrumView(m_devices, this);
    m_view->setObjectName("periodogramView");
    m_fold = new FoldView(this);
    m_fold->setObjectName("foldPlot");
    m_marks = new PeriodogramMarks(m_view);
    m_prewhitening = new PrewhiteningPanel(this);
    m_lightCurve = new LightCurveView(this);
    m_lightCurve->setObjectName("lightCurve");
    m_windowPlot = new QCustomPlot(this);
    m_windowPlot->setObjectName("windowPlot");
    m_windowPlot->setMinimumSize(160, 140);
    m_windowPlot->addGraph();
    m_windowPlot->graph(0)->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.0));
    m_windowPlot->yAxis->setLabel(tr("window power"));
    m_windowPlot->setVisible(false);
    m_levels = new QLabel(this);
    m_levels->setObjectName("falseAlarmLevels");
    m_levels->setWordWrap(true);
    m_aliases = new QLabel(this);
    m_aliases->setObjectName("aliases");
    m_aliases->setWordWrap(true);
    m_status = new QLabel(this);
    m_status->setObjectName("periodogramStatus");
    m_status->setWordWrap(true);
    m_error = new QLabel(this);
    m_error->setObjectName("periodogramError");
    m_error->setStyleSheet(kErrorText);
    m_error->setWordWrap(true);
    m_fap = new QLabel(this);
    m_fap->setObjectName("falseAlarm");
    m_peakTable = new QTableWidget(0, 4, this);
    m_peakTable->setObjectName("peaks");
    m_peakTable->setHorizontalHeaderLabels({tr("frequency"), tr("period"), tr("power"), tr("FAP")});
    // Each column as wide as its title and numbers (the titles name the unit), the last taking
    // what is left.
    m_peakTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_peakTable->horizontalHeader()->setStretchLastSection(true);
    m_peakTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_peakTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_peakTable->setToolTip(
        tr("The highest peaks, each with its false-alarm probability (Baluev 2008); select one "
           "to fold the data at its period and mark its aliases. No peak is listed at the "
           "grid's ends or at a period longer than the data's baseline."));
    m_peakCount = new QSpinBox(this);
    m_peakCount->setObjectName("peakCount");
    m_peakCount->setRange(1, gpu::kSpectrumMaxPeaks);
    m_peakCount->setValue(10);
    m_peakCount->setToolTip(tr("How many of the highest peaks to list and mark (found where the "
                               "periodogram was computed)"));

    // Under the plots, side by side and about as wide as each other to begin with: the peaks
    // with their false-alarm lines, and the fold (or the prewhitening list) of the selected
    // peak. A splitter between them, and another above them, let either have more room.
    m_fap->setWordWrap(true);
    m_peakTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    // Four rows at the least; the splitter's first sizes give more.
    m_peakTable->setMinimumHeight(m_peakTable->horizontalHeader()->sizeHint().height() +
                                  4 * m_peakTable->verticalHeader()->defaultSectionSize() + 4);
    auto* peaksPanel = new QWidget(this);
    peaksPanel->setObjectName("peaksPanel");
    auto* peaksBox = new QVBoxLayout(peaksPanel);
    peaksBox->setContentsMargins(0, 0, 0, 0);
    auto* peaksRow = new QHBoxLayout;
    peaksRow->addWidget(m_fap, 1);
    peaksRow->addWidget(new QLabel(tr("Peaks"), this), 0, Qt::AlignTop);
    peaksRow->addWidget(m_peakCount, 0, Qt::AlignTop);
    peaksBox->addLayout(peaksRow);
    peaksBox->addWidget(m_peakTable, 1);
    peaksBox->addWidget(m_levels);
    peaksBox->addWidget(m_aliases);
    // The fold and the prewhitening list share the place: a Prewhiten press shows the list,
    // a peak selected shows its fold.
    m_lowerTabs = new QTabWidget(this);
    m_lowerTabs->setObjectName("foldTabs");
    m_lowerTabs->addTab(m_fold, tr("Fold"));
    m_lowerTabs->addTab(m_prewhitening, tr("Prewhitening"));
    auto* lower = new QSplitter(Qt::Horizontal, this);
    lower->setObjectName("lowerSplitter");
    lower->setChildrenCollapsible(false);
    lower->addWidget(peaksPanel);
    lower->addWidget(m_lowerTabs);
    lower->setStretchFactor(0, 6);
    lower->setStretchFactor(1, 5);
    auto* right = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_lightCurve, 1);
    topLayout->addWidget(m_view, 2);
    topLayout->addWidget(m_windowPlot);
    topLayout->addWidget(m_status);
    topLayout->addWidget(m_error);
    right->setObjectName("plotSplitter");
    right->setChildrenCollapsible(false);
    right->addWidget(top);
    right->addWidget(lower);
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 1);
    m_view->setMinimumHeight(220);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(scroll);
    layout->addWidget(right, 1);

    connect(open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open time series"), QString(),
            tr("Time series (*.csv *.tsv *.txt *.dat);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    connect(generate, &QPushButton::clicked, this, &PeriodogramWorkspace::useSynthetic);
    // The synthetic controls are hidden while a file is shown; should one change all the same
    // (a scene applied, a test), the file stays: only the Synthetic button replaces it.
    const auto followSynthetic = [this] {
        if (m_source.isEmpty())
            useSynthetic();
    };
    for (QSpinBox* box : {m_points, m_seed})
        connect(box, &QSpinBox::valueChanged, this, followSynthetic);
    for (QDoubleSpinBox* box : {m_baseline, m_noise, m_period, m_amplitude})
        connect(box, &QDoubleSpinBox::valueChanged, this, followSynthetic);
    for (QDoubleSpinBox* box : {m_samplesPerPeak, m_nyquist})
        connect(box, &QDoubleSpinBox::valueChanged, this, &PeriodogramWorkspace::schedule);
    for (QLineEdit* edit : {m_fmin, m_fmax, m_count, m_blockThreads, m_gridBlocks})
        connect(edit, &QLineEdit::editingFinished, this, &PeriodogramWorkspace::schedule);
    connect(m_gridStride, &QCheckBox::toggled, this, &PeriodogramWorkspace::schedule);
    connect(m_detrendMethod, &QComboBox::currentIndexChanged, this, [this](int method) {
        m_detrendDegree->setEnabled(method == int(gpu::DetrendMethod::Polynomial));
        m_detrendWindow->setEnabled(method == int(gpu::DetrendMethod::RunningMedian));
        schedule();
    });
    connect(m_detrendDegree, &QSpinBox::valueChanged, this, &PeriodogramWorkspace::schedule);
    connect(m_detrendWindow, &QDoubleSpinBox::valueChanged, this, &PeriodogramWorkspace::schedule);
    m_detrendDegree->setEnabled(false);
    m_detrendWindow->setEnabled(false);
    connect(m_lightCurve, &LightCurveView::maskAdded, this, &PeriodogramWorkspace::addMask);
    connect(m_lightCurve, &LightCurveView::maskRemoved, this, &PeriodogramWorkspace::removeMask);
    connect(autoLaunch, &QPushButton::clicked, this, &PeriodogramWorkspace::chooseAutoLaunch);
    for (QComboBox* box : {m_gridMode, m_normalization, m_precision, m_frequencyUnit, m_method})
        connect(box, &QComboBox::currentIndexChanged, this, &PeriodogramWorkspace::schedule);
    connect(m_nterms, &QSpinBox::valueChanged, this, &PeriodogramWorkspace::schedule);
    connect(m_prewhitening, &PrewhiteningPanel::prewhitenRequested, this,
            [this] { prewhitenPeak(m_peakTable->currentRow()); });
    connect(m_prewhitening, &PrewhiteningPanel::refitRequested, this,
            &PeriodogramWorkspace::refitSinusoids);
    connect(m_prewhitening, &PrewhiteningPanel::removeRequested, this,
            &PeriodogramWorkspace::removeSinusoid);
    connect(m_prewhitening, &PrewhiteningPanel::clearRequested, this, [this] {
        scene::PeriodogramScene c = m_committed;
        c.prewhitened.clear();
        applyScene(c, tr("Clear the prewhitened sinusoids"));
    });
    connect(m_prewhitening, &PrewhiteningPanel::exportRequested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export prewhitened sinusoids"),
                                                          "frequencies.csv", tr("CSV (*.csv)"));
        if (path.isEmpty())
            return;
        if (const QString error = exportSinusoids(path); !error.isEmpty())
            setError(error);
        else
            emit message(tr("Saved %1").arg(path));
    });
    connect(&m_fit, &QFutureWatcher<Fitted>::finished, this, &PeriodogramWorkspace::onFitted);
    for (QCheckBox* box : {m_fitMean, m_center, m_useErrors, m_showWindow})
        connect(box, &QCheckBox::toggled, this, &PeriodogramWorkspace::schedule);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, &PeriodogramWorkspace::replot);
    connect(m_logX, &QCheckBox::toggled, this, &PeriodogramWorkspace::replot);
    connect(m_gridMode, &QComboBox::currentIndexChanged, this, [this](int mode) {
        const bool manual = mode != 0;
        m_samplesPerPeak->setEnabled(!manual);
        m_nyquist->setEnabled(!manual);
        m_fmin->setEnabled(manual);
        m_fmax->setEnabled(manual);
        m_count->setEnabled(manual);
        // A logarithmic grid is evenly spaced on a logarithmic axis: show it on one.
        if (mode == 2)
            m_logX->setChecked(true);
    });
    m_fmin->setEnabled(false);
    m_fmax->setEnabled(false);
    m_count->setEnabled(false);
    connect(m_view, &SpectrumView::clicked, this, &PeriodogramWorkspace::clickPlot);
    connect(m_view, &SpectrumView::message, this, &PeriodogramWorkspace::message);
    connect(m_peakCount, &QSpinBox::valueChanged, this, &PeriodogramWorkspace::showPeaks);
    connect(m_peakTable, &QTableWidget::currentCellChanged, this,
            [this](int row) { showFold(row); });
    // A peak picked by hand is looked at folded.
    connect(m_peakTable, &QTableWidget::cellClicked, this,
            [this] { m_lowerTabs->setCurrentWidget(m_fold); });
    connect(&m_job, &QFutureWatcher<Result>::finished, this, &PeriodogramWorkspace::onComputed);
    connect(exportCsvButton, &QPushButton::clicked, this, &PeriodogramWorkspace::exportDialog);
    connect(exportPng, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plots"),
                                                          "periodogram.png", tr("PNG (*.png)"));
        if (path.isEmpty())
            return;
        const QString fold =
            QFileInfo(path).path() + "/" + QFileInfo(path).completeBaseName() + "-folded.png";
        if (!m_view->grabFramebuffer().save(path, "PNG") || !m_fold->savePng(fold))
            setError(tr("Could not write %1").arg(path));
        else
            emit message(tr("Saved %1 and %2").arg(path, fold));
    });
    connect(&m_load, &QFutureWatcher<std::pair<gpu::Status, gpu::TimeSeries>>::finished, this,
            [this] {
                m_loading = false;
                if (m_loadDialog) {
                    m_loadDialog->deleteLater();
                    m_loadDialog = nullptr;
                }
                auto [status, series] = m_load.result();
                if (!status) {
                    setError(QString::fromStdString(status.message()));
                    emit message(QString::fromStdString(status.message()));
                    showColumns(); // back to the columns of the series kept
                    return;
                }
                m_series = std::move(series);
                m_source = m_loadingPath;
                m_sourceObject = m_loadingObject;
                // Sinusoids fitted here to other data mean nothing for this file: it starts its
                // own list (one undo step, so it can come back). A list from a scene file is
                // kept: the scene came with its data.
                const bool otherData = !m_prewhitened.empty() && m_prewhitenedSource &&
                                       *m_prewhitenedSource != sourceKey();
                if (otherData) {
                    m_prewhitened.clear();
                    recordUndo();
                }
                m_shownReport = m_loadReport;
                m_shownChoice = m_loadingChoice;
                const QString summary = QString::fromStdString(m_loadReport.summary());
                const QString name =
                    m_sourceObject.isEmpty()
                        ? QFileInfo(m_source).fileName()
                        : tr("%1 of %2").arg(m_sourceObject, QFileInfo(m_source).fileName());
                m_sourceLabel->setText(tr("%1: %2").arg(name, summary));
                showColumns();
                showUnits();
                showSyntheticControls(false);
                emit message(tr("Loaded %1: %2")
                                 .arg(m_sourceObject.isEmpty()
                                          ? m_source
                                          : tr("%1 of %2").arg(m_sourceObject, m_source),
                                      summary));
                schedule();
            });
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

void PeriodogramWorkspace::replot()
{
    const bool period = m_xAxis->currentIndex() == 1;
    const double scale = m_frequencyUnit->currentIndex() == 1 ? 2.0 * std::numbers::pi : 1.0;
    const QString periodUnit = scene::periodUnitText(m_shownUnit);
    QString label;
    if (period)
        label = periodUnit.isEmpty() ? tr("period") : tr("period (%1)").arg(periodUnit);
    else if (scale > 1.0)
        label = tr("angular frequency ω (%1)")
                    .arg(m_shownUnit == gpu::TimeUnit::Unknown
                             ? tr("rad per unit time")
                             : scene::frequencyUnitText(m_shownUnit, true));
    else
        label = tr("frequency f (%1)").arg(scene::frequencyUnitText(m_shownUnit));
    m_view->setAxis(period, m_logX->isChecked(), scale, label);
    m_view->setPeriodUnit(periodUnit);
    m_view->setYLabel(
        tr("power (%1)")
            .arg(QString::fromUtf8(gpu::normalizationName(m_shownOptions.normalization))));
    m_view->setSpectrum(m_spectrum);
    m_marks->setAxis(period, scale);
    showWindow();
}

void PeriodogramWorkspace::showPeaks()
{
    scene::ReportedPeaks reported;
    if (m_spectrum)
        reported = m_session->peaks(m_peakCount->value());
    m_peaks = std::move(reported.peaks);
    m_falseAlarm = std::move(reported.falseAlarm);
    // The frequencies as the axis shows them, in the file's unit where it has one.
    const bool angular = m_frequencyUnit->currentIndex() == 1;
    const double scale = angular ? 2.0 * std::numbers::pi : 1.0;
    const QString periodUnit = scene::periodUnitText(m_shownUnit);
    const bool unknown = m_shownUnit == gpu::TimeUnit::Unknown;
    m_peakTable->setHorizontalHeaderLabels(
        {angular   ? tr("ω (%1)").arg(unknown ? tr("rad per unit time")
                                              : scene::frequencyUnitText(m_shownUnit, true))
         : unknown ? tr("frequency")
                   : tr("frequency (%1)").arg(scene::frequencyUnitText(m_shownUnit)),
         unknown ? tr("period") : tr("period (%1)").arg(periodUnit), tr("power"), tr("FAP")});
    m_peakTable->setRowCount(int(m_peaks.size()));
    for (int i = 0; i < int(m_peaks.size()); ++i) {
        const gpu::Peak& p = m_peaks[std::size_t(i)];
        const std::optional<double>& fap = m_falseAlarm[std::size_t(i)];
        const QStringList cells{QString::number(p.frequency * scale, 'g', 8),
                                QString::number(1.0 / p.frequency, 'g', 8),
                                QString::number(p.power, 'g', 6),
                                fap ? falseAlarmText(*fap) : tr("n/a")};
        QString tip;
        for (const gpu::Alias& a : gpu::aliasFrequencies(p.frequency, m_shownUnit, m_shownSampling))
            tip += tr("\n%1 at %2")
                       .arg(QString::fromStdString(a.label))
                       .arg(a.frequency * scale, 0, 'g', 6);
        tip = tip.isEmpty() ? tr("No alias expected from the time unit or the sampling")
                            : tr("Where this peak's aliases fall:") + tip;
        // Above the Nyquist frequency of regular times a peak only mirrors one below it.
        const bool alias = m_shownSampling && p.frequency > m_shownSampling->nyquist;
        if (alias)
            tip =
                tr("Above the Nyquist frequency of the regular sampling (%1): an alias of the "
                   "peak at %2")
                    .arg(m_shownSampling->nyquist * scale, 0, 'g', 6)
                    .arg(std::abs(std::remainder(p.frequency, 1.0 / m_shownSampling->step)) * scale,
                         0, 'g', 6);
        for (int c = 0; c < 4; ++c) {
            auto* item =
                new QTableWidgetItem(c == 1 && alias ? cells[c] + tr(" (alias)") : cells[c]);
            item->setToolTip(c == 3 && fap ? tr("False-alarm probability (Baluev 2008) of a "
                                                "peak this high, from noise alone")
                                           : tip);
            if (alias)
                item->setForeground(QColor(0x88, 0x88, 0x88));
            m_peakTable->setItem(i, c, item);
        }
    }
    if (m_peaks.empty()) {
        const std::size_t points = usedSeries().t.size();
        const int parameters = gpu::periodogramParameters(m_shownOptions);
        // As many parameters as points: the model passes through every point at every
        // frequency, so the power is the same everywhere.
        m_fap->setText(points <= std::size_t(parameters)
                           ? tr("No peak: too few points (%1) for a model of %2 parameters, "
                                "which fits them exactly at every frequency")
                                 .arg(points)
                                 .arg(parameters)
                           : tr("No peak"));
    } else if (!(m_shownOptions.fitMean || m_shownOptions.centerData)) {
        m_fap->setText(tr("The false-alarm probability needs centred data"));
    } else if (!scene::periodogramTraits(m_shownOptions).falseAlarm) {
        m_fap->setText(tr("Highest peak: period %1 (%2 terms: no false-alarm probability, which "
                          "Baluev gives for one term)")
                           .arg(scene::periodText(1.0 / m_peaks[0].frequency, m_shownUnit))
                           .arg(m_shownOptions.nterms));
    } else {
        const gpu::TimeSeries used = usedSeries();
        const std::optional<double> fap = gpu::falseAlarmProbability(
            m_peaks[0].power, grid().fmax(), used, m_shownOptions.normalization);
        const QString period = scene::periodText(1.0 / m_peaks[0].frequency, m_shownUnit);
        if (fap)
            m_fap->setText(tr("Highest peak: period %1, false-alarm probability %2 (Baluev 2008)")
                               .arg(period)
                               .arg(falseAlarmText(*fap)));
        else if (used.t.size() < gpu::kFalseAlarmMinPoints)
            m_fap->setText(tr("Highest peak: period %1; too few points (%2) for the false-alarm "
                              "probability: Baluev's approximation needs at least %3")
                               .arg(period)
                               .arg(used.t.size())
                               .arg(gpu::kFalseAlarmMinPoints));
        else
            m_fap->setText(tr("Highest peak: period %1; its false-alarm probability cannot be "
                              "computed (Baluev's approximation breaks down at power %2)")
                               .arg(period)
                               .arg(m_peaks[0].power, 0, 'g', 6));
    }
    showLevels();
    showPrewhitening();
    if (!m_peaks.empty())
        m_peakTable->setCurrentCell(0, 0);
    showFold(m_peaks.empty() ? -1 : 0);
}

void PeriodogramWorkspace::showLevels()
{
    std::vector<PeriodogramMarks::Level> levels;
    if (!m_spectrum) {
        m_levels->clear();
    } else if (!(m_shownOptions.fitMean || m_shownOptions.centerData)) {
        m_levels->setText(tr("False-alarm levels need centred data or a floating mean"));
    } else if (!scene::periodogramTraits(m_shownOptions).falseAlarm) {
        m_levels->setText(tr("False-alarm levels are for the one-term model (Baluev 2008); "
                             "this periodogram fits %1 terms")
                              .arg(m_shownOptions.nterms));
    } else {
        const gpu::TimeSeries used = usedSeries();
        QStringList text;
        for (const double probability : {0.01, 0.001}) {
            const std::optional<double> level = gpu::falseAlarmLevel(
                probability, grid().fmax(), used, m_shownOptions.normalization);
            const QString percent = QString::number(100.0 * probability, 'g', 3) + " %";
            if (!level)
                continue;
            levels.push_back({*level, tr("FAP %1").arg(percent)});
            text << tr("%1 at power %2").arg(percent).arg(*level, 0, 'g', 4);
        }
        if (text.isEmpty())
            m_levels->setText(
                used.t.size() < gpu::kFalseAlarmMinPoints
                    ? tr("Too few points (%1) for false-alarm levels").arg(used.t.size())
                    : tr("The false-alarm levels cannot be computed for these data"));
        else
            m_levels->setText(tr("False-alarm levels (Baluev 2008, dashed on the plot): %1")
                                  .arg(text.join(", ")));
    }
    m_marks->setLevels(std::move(levels));
}

void PeriodogramWorkspace::showAliases(int peak)
{
    std::vector<PeriodogramMarks::Line> lines;
    std::optional<PeriodogramMarks::Peak> selected;
    QStringList text;
    const double scale = m_frequencyUnit->currentIndex() == 1 ? 2.0 * std::numbers::pi : 1.0;
    if (peak >= 0 && peak < int(m_peaks.size())) {
        const double f = m_peaks[std::size_t(peak)].frequency;
        selected = PeriodogramMarks::Peak{f, m_peaks[std::size_t(peak)].power};
        for (const gpu::Alias& a : gpu::aliasFrequencies(f, m_shownUnit, m_shownSampling)) {
            const QString label = QString::fromStdString(a.label);
            lines.push_back({a.frequency, label});
            text << tr("%1 (%2)").arg(a.frequency * scale, 0, 'g', 6).arg(label);
        }
    }
    if (m_spectrum && m_shownSampling && grid().fmax() > m_shownSampling->nyquist)
        lines.push_back({m_shownSampling->nyquist, tr("Nyquist")});
    m_aliases->setText(
        text.isEmpty()
            ? QString()
            : tr("Aliases of the selected peak (dotted on the plot): %1").arg(text.join(", ")));
    m_aliases->setVisible(!text.isEmpty());
    m_marks->setLines(std::move(lines), selected);
}

void PeriodogramWorkspace::showWindow()
{
    const bool shown = m_showWindow->isChecked() && m_window;
    m_windowPlot->setVisible(shown);
    if (!shown)
        return;
    // The window's line as the periodogram's is drawn, a minimum and maximum per column,
    // over its whole grid, so a grid of millions of frequencies stays a few thousand points.
    const gpu::FrequencyGrid& g = m_window->grid();
    gpu::SpectrumAxis axis;
    axis.xMin = g.fmin;
    axis.xMax = g.count > 1 ? g.fmax() : g.fmin * 1.1;
    axis.logX = g.logarithmic;
    axis.columns = int(std::clamp<long long>(g.count, 1, 2000));
    std::vector<float> vertices(std::size_t(axis.columns) * gpu::kSpectrumFloatsPerColumn);
    if (const gpu::Status s = m_window->decimate(axis, vertices); !s) {
        setError(
            tr("The spectral window cannot be drawn: %1").arg(QString::fromStdString(s.message())));
        m_windowPlot->setVisible(false);
        return;
    }
    const bool period = m_xAxis->currentIndex() == 1;
    const double scale = m_frequencyUnit->currentIndex() == 1 ? 2.0 * std::numbers::pi : 1.0;
    QVector<double> keys, values;
    for (std::size_t v = 0; v < vertices.size(); v += 2) {
        if (!std::isfinite(vertices[v + 1]))
            continue;
        const double u = double(vertices[v]) / axis.columns;
        const double f = g.logarithmic ? axis.xMin * std::pow(axis.xMax / axis.xMin, u)
                                       : axis.xMin + u * (axis.xMax - axis.xMin);
        keys.push_back(period ? 1.0 / f : f * scale);
        values.push_back(vertices[v + 1]);
    }
    m_windowPlot->graph(0)->setData(keys, values);
    m_windowPlot->xAxis->setScaleType(m_logX->isChecked() ? QCPAxis::stLogarithmic
                                                          : QCPAxis::stLinear);
    m_windowPlot->xAxis->setLabel(m_view->xLabel());
    const auto [lo, hi] = m_view->xRange();
    m_windowPlot->xAxis->setRange(lo, hi);
    m_windowPlot->yAxis->setRange(0.0, 1.05);
    m_windowPlot->replot(QCustomPlot::rpQueuedReplot);
}

QStringList PeriodogramWorkspace::markLabels() const
{
    QStringList labels;
    for (const PeriodogramMarks::Level& l : m_marks->levels())
        labels << l.label;
    for (const PeriodogramMarks::Line& l : m_marks->lines())
        labels << l.label;
    return labels;
}

void PeriodogramWorkspace::showFold(int peak)
{
    m_view->setPeaks(m_peaks, peak);
    showAliases(peak);
    if (peak < 0 || peak >= int(m_peaks.size()))
        return m_fold->clearFold(m_spectrum ? tr("No peak to fold: select one in the table")
                                            : tr("The fold shows once a periodogram has peaks"));
    // The model the periodogram fits at the peak: as many harmonics as its terms, with the
    // epoch in the middle of the data so that large times keep the phase exact.
    const double f = m_peaks[std::size_t(peak)].frequency;
    const gpu::TimeSeries& used = m_session->prepared().series;
    const int nterms = m_session->traits().foldHarmonics;
    const gpu::HarmonicFit fit = m_session->fold(f);
    FoldModel model;
    model.epoch = fit.epoch;
    model.offset = fit.offset;
    model.harmonics = fit.harmonics;
    const QString period = scene::periodText(1.0 / f, m_shownUnit);
    model.parameters << tr("period %1").arg(period);
    if (fit.harmonics.empty()) {
        model.parameters << tr("no model: the data's phases cannot be told apart");
    } else {
        // One term: the sinusoid's amplitude; more: half the model's peak-to-peak range.
        double amplitude = std::hypot(fit.harmonics[0].first, fit.harmonics[0].second);
        if (nterms > 1) {
            double lo = model.at(0.0), hi = lo;
            for (int i = 1; i < 1000; ++i) {
                const double y = model.at(i / 1000.0);
                lo = std::min(lo, y);
                hi = std::max(hi, y);
            }
            amplitude = 0.5 * (hi - lo);
        }
        if (std::isfinite(amplitude) && std::isfinite(fit.offset)) {
            model.parameters << (nterms > 1 ? tr("half peak-to-peak %1 (%2 harmonics)")
                                                  .arg(amplitude, 0, 'g', 5)
                                                  .arg(nterms)
                                            : tr("amplitude %1").arg(amplitude, 0, 'g', 5));
            model.parameters << tr("offset %1").arg(fit.offset, 0, 'g', 6);
        }
    }
    model.parameters << tr("%1 points").arg(used.t.size());
    const int yColumn = m_shownReport.yColumn;
    QString yLabel =
        m_source.isEmpty() || yColumn < 0 || yColumn >= int(m_shownReport.columns.size())
            ? tr("y")
            : QString::fromStdString(m_shownReport.columns[std::size_t(yColumn)]);
    // The fold is of what the periodogram saw: after the trend and the prewhitened sinusoids.
    if (!m_session->prepared().trend.empty() || !m_prewhitened.empty())
        yLabel = tr("%1, residuals").arg(yLabel);
    m_fold->setFold(used, f, model, period, yLabel);
}

void PeriodogramWorkspace::clickPlot(const QPointF& pos)
{
    int best = -1;
    double bestScore = 12.0; // pixels
    for (int i = 0; i < int(m_peaks.size()); ++i) {
        const gpu::Peak& p = m_peaks[std::size_t(i)];
        const double x = m_view->xPixel(p.frequency);
        const double y = m_view->yPixel(p.power);
        // Anywhere on a peak's stem counts; above its top, the distance grows. Within a pixel
        // the taller peak wins (peaks are sorted tallest first).
        const double score = std::hypot(x - pos.x(), std::max(0.0, y - pos.y())) + 0.01 * i;
        if (score < bestScore) {
            bestScore = score;
            best = i;
        }
    }
    if (best >= 0)
        m_peakTable->setCurrentCell(best, 0);
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

std::vector<double> PeriodogramWorkspace::readPower() const
{
    std::vector<double> power;
    if (!m_spectrum)
        return power;
    try {
        power.resize(std::size_t(m_spectrum->grid().count));
    } catch (const std::bad_alloc&) {
        return {};
    }
    if (!m_spectrum->read(power))
        power.clear();
    return power;
}

QString PeriodogramWorkspace::exportCsv(const QString& path) const
{
    if (!m_spectrum)
        return tr("There is no periodogram to export yet");
    const std::vector<double> power = readPower();
    if (power.empty())
        return tr("Could not copy the periodogram to host memory for export");
    const gpu::Status s =
        gpu::writeTextFile(path.toStdString(), scene::periodogramCsv(grid(), power, m_shownUnit));
    return s ? QString() : QString::fromStdString(s.message());
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

QString PeriodogramWorkspace::exportPeaks(const QString& path) const
{
    if (!m_spectrum)
        return tr("There is no periodogram to export yet");
    const gpu::Status s = gpu::writeTextFile(
        path.toStdString(),
        scene::peaksJson(m_peaks, m_falseAlarm, m_shownOptions.normalization, m_shownUnit,
                         m_shownOptions.nterms, m_prewhitened, m_prewhitenEpoch));
    return s ? QString() : QString::fromStdString(s.message());
}

QString PeriodogramWorkspace::exportSinusoids(const QString& path) const
{
    const gpu::Status s = gpu::writeTextFile(
        path.toStdString(), scene::prewhitenedCsv(readControls(m_committed), m_shownUnit));
    return s ? QString() : QString::fromStdString(s.message());
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

void PeriodogramWorkspace::exportDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export periodogram"),
                                                      "periodogram.csv", tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (const QString error = exportCsv(path); !error.isEmpty())
        setError(error);
    else
        emit message(tr("Saved %1").arg(path));
}

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
