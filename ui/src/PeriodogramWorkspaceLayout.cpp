#include "LightCurveView.h"
#include "PeriodogramMarks.h"
#include "PrewhiteningPanel.h"
#include "Style.h"
#include "warpscope/ui/FoldView.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/SpectrumView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>
#include <tuple>

namespace warpscope::ui {

namespace {

// The periodogram's and the fold's fewest pixels of height.
constexpr int kPlotMinimumHeight = 150;

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

void PeriodogramWorkspace::createControls()
{
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
}

QGroupBox* PeriodogramWorkspace::makeDataGroup()
{
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
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open time series"), QString(),
            tr("Time series (*.csv *.tsv *.txt *.dat);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    connect(generate, &QPushButton::clicked, this, &PeriodogramWorkspace::useSynthetic);
    return data;
}

QWidget* PeriodogramWorkspace::makeControlsPanel()
{
    QGroupBox* data = makeDataGroup();
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
    optionsForm->addRow(createSearchControls());
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
    connect(autoLaunch, &QPushButton::clicked, this, &PeriodogramWorkspace::chooseAutoLaunch);
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
    return scroll;
}

QWidget* PeriodogramWorkspace::makeResultViews()
{
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
    // The fold's period doubled or halved, beside the tabs.
    auto* foldScale = new QWidget(this);
    auto* foldScaleRow = new QHBoxLayout(foldScale);
    foldScaleRow->setContentsMargins(0, 0, 0, 0);
    m_foldDouble = new QToolButton(foldScale);
    m_foldDouble->setObjectName("foldDouble");
    m_foldDouble->setText(tr("Period \u00d72"));
    m_foldDouble->setToolTip(tr("Fold at twice the period: an eclipsing binary's strongest peak "
                                "is often at half its period"));
    m_foldHalve = new QToolButton(foldScale);
    m_foldHalve->setObjectName("foldHalve");
    m_foldHalve->setText(tr("Period \u00f72"));
    m_foldHalve->setToolTip(tr("Fold at half the period"));
    foldScaleRow->addWidget(m_foldDouble);
    foldScaleRow->addWidget(m_foldHalve);
    m_lowerTabs->setCornerWidget(foldScale, Qt::TopRightCorner);
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
    // Low enough that the page, the timeline's header and the status bar fit a 1280x720
    // screen; the splitter and the window's height give the plots more.
    m_view->setMinimumHeight(kPlotMinimumHeight);
    m_fold->setMinimumHeight(kPlotMinimumHeight);
    return right;
}

void PeriodogramWorkspace::connectControls()
{
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
    for (QComboBox* box : {m_gridMode, m_normalization, m_precision, m_frequencyUnit, m_method})
        connect(box, &QComboBox::currentIndexChanged, this, &PeriodogramWorkspace::schedule);
    connect(m_nterms, &QSpinBox::valueChanged, this, &PeriodogramWorkspace::schedule);
    connect(m_search, &QComboBox::currentIndexChanged, this, [this] {
        enableSearchControls();
        // Transits are searched and read in period, over decades of it: box least squares
        // opens on a logarithmic period axis, as astronomers plot it.
        if (m_search->currentData().toString() == "bls") {
            m_xAxis->setCurrentIndex(int(scene::FrequencyAxis::Period));
            m_logX->setChecked(true);
        }
        schedule();
    });
    connect(m_blsObjective, &QComboBox::currentIndexChanged, this, &PeriodogramWorkspace::schedule);
    connect(m_blsDurations, &QLineEdit::editingFinished, this, &PeriodogramWorkspace::schedule);
}

QWidget* PeriodogramWorkspace::createSearchControls()
{
    m_search = new QComboBox(this);
    m_search->setObjectName("search");
    for (const std::string& key : scene::periodogramMethodKeys())
        m_search->addItem(QString::fromStdString(scene::findPeriodogramMethod(key)->name()),
                          QString::fromStdString(key));
    m_search->setToolTip(
        tr("Lomb-Scargle fits sinusoids: pulsations, rotation, anything smooth.\n"
           "Box least squares fits a periodic box: transits, whose power Lomb-Scargle\n"
           "spreads over many harmonics (astropy's BoxLeastSquares, exact).\n"
           "Phase dispersion (Stellingwerf) and conditional entropy (Graham et al.) ask\n"
           "only that the folded curve be tidy: eclipsing binaries, whose Lomb-Scargle\n"
           "peak is often half the period. Their minima are drawn as peaks."));
    m_blsDurations = new QLineEdit("auto", this);
    m_blsDurations->setObjectName("blsDurations");
    m_blsDurations->setToolTip(
        tr("Transit durations to try, in the data's unit of time, separated by commas;\n"
           "auto: ten from three cadences to a tenth of the span (at most half a day)."));
    m_blsObjective = new QComboBox(this);
    m_blsObjective->setObjectName("blsObjective");
    m_blsObjective->addItem(tr("log-likelihood"), "likelihood");
    m_blsObjective->addItem(tr("depth S/N"), "snr");
    m_blsObjective->setToolTip(tr("Which box is best at each period: the one that most raises "
                                  "the likelihood, or whose depth is measured at the highest "
                                  "signal-to-noise"));
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Search"), m_search);
    form->addRow(tr("Durations"), m_blsDurations);
    form->addRow(tr("Objective"), m_blsObjective);
    enableSearchControls();
    return box;
}

// Each method's own controls are enabled where they apply.
void PeriodogramWorkspace::enableSearchControls()
{
    const QString search = m_search->currentData().toString();
    m_blsDurations->setEnabled(search == "bls");
    m_blsObjective->setEnabled(search == "bls");
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_normalization, m_nterms, m_fitMean, m_center, m_method})
        w->setEnabled(search == "ls");
}

void PeriodogramWorkspace::connectResults()
{
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
    connect(m_peakTable, &QTableWidget::currentCellChanged, this, [this](int row) {
        m_foldDoublings = 0;
        showFold(row);
    });
    connect(m_foldDouble, &QToolButton::clicked, this, [this] { scaleFoldPeriod(1); });
    connect(m_foldHalve, &QToolButton::clicked, this, [this] { scaleFoldPeriod(-1); });
    // A peak picked by hand is looked at folded.
    connect(m_peakTable, &QTableWidget::cellClicked, this,
            [this] { m_lowerTabs->setCurrentWidget(m_fold); });
    connect(&m_job, &QFutureWatcher<Result>::finished, this, &PeriodogramWorkspace::onComputed);
}

void PeriodogramWorkspace::onLoaded()
{
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
    const bool otherData =
        !m_prewhitened.empty() && m_prewhitenedSource && *m_prewhitenedSource != sourceKey();
    if (otherData) {
        m_prewhitened.clear();
        recordUndo();
    }
    m_shownReport = m_loadReport;
    m_shownChoice = m_loadingChoice;
    const QString summary = QString::fromStdString(m_loadReport.summary());
    const QString name = m_sourceObject.isEmpty()
                             ? QFileInfo(m_source).fileName()
                             : tr("%1 of %2").arg(m_sourceObject, QFileInfo(m_source).fileName());
    m_sourceLabel->setText(tr("%1: %2").arg(name, summary));
    showColumns();
    showUnits();
    showSyntheticControls(false);
    emit message(
        tr("Loaded %1: %2")
            .arg(m_sourceObject.isEmpty() ? m_source : tr("%1 of %2").arg(m_sourceObject, m_source),
                 summary));
    schedule();
}

} // namespace warpscope::ui
