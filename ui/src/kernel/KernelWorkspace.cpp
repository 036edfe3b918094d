#include "warpscope/ui/KernelWorkspace.h"

#include "KernelParamControl.h"
#include "MemcheckRerun.h"
#include "MemoryPanel.h"
#include "PrintedLines.h"
#include "common/NotesBox.h"
#include "common/Style.h"
#include "common/ValueText.h"
#include "warpscope/scene/KernelFile.h"
#include "warpscope/ui/FieldWorkspace.h"
#include "warpscope/ui/KernelVariantsPanel.h"
#include "warpscope/ui/LaunchPanel.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyle>
#include <QTabWidget>
#include <QTemporaryFile>
#include <QTimer>
#include <QVBoxLayout>
#include <Qsci/qscilexercpp.h>
#include <Qsci/qsciscintilla.h>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

namespace warpscope::ui {
namespace {

constexpr int kErrorMarker = 1;
constexpr int kWarningMarker = 2;
constexpr int kFindingMarker = 3;
constexpr int kMemoryMarker = 4;
// Typing pauses this long before a compile starts.
constexpr int kPauseMs = 400;
// On a laptop's screen the editor keeps room to work in: at least this many lines, with a
// lesson's text cut to a few lines (More shows the rest) and the tabs under the editor low
// until the person drags the splitter.
constexpr int kEditorLines = 12;
constexpr int kNotesLines = 3;
constexpr int kInfoLines = 6;    // the tabs' first height
constexpr int kInfoMinLines = 4; // their tab bar and a line or two of their page

QString kernelCacheDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/kernels";
}

// SASS through the toolkit's disassembler, or why there is none.
QString disassemble(const std::vector<char>& cubin)
{
    QString tool = QStandardPaths::findExecutable("nvdisasm");
    if (tool.isEmpty())
        tool = QStandardPaths::findExecutable("nvdisasm", {"/usr/local/cuda/bin"});
    if (tool.isEmpty())
        return QObject::tr("nvdisasm is not installed (it comes with the CUDA toolkit's "
                           "cuda-nvdisasm package), so the SASS cannot be shown.");
    if (cubin.empty())
        return QObject::tr("No CUBIN: the kernel did not compile.");
    QTemporaryFile file(QDir::tempPath() + "/warpscope-XXXXXX.cubin");
    if (!file.open() || file.write(cubin.data(), qint64(cubin.size())) != qint64(cubin.size()))
        return QObject::tr("Could not write the CUBIN for nvdisasm.");
    file.flush();
    QProcess process;
    process.start(tool, {"-c", "-g", file.fileName()});
    if (!process.waitForFinished(20000) || process.exitCode() != 0)
        return QObject::tr("nvdisasm failed: %1")
            .arg(QString::fromLocal8Bit(process.readAllStandardError()));
    return QString::fromLocal8Bit(process.readAllStandardOutput());
}

// C++ highlighting in a monospaced font, line numbers, a margin for the messages' markers,
// four-space indents.
void setUpEditor(QsciScintilla* editor, const QFont& mono)
{
    auto* lexer = new QsciLexerCPP(editor);
    lexer->setDefaultFont(mono);
    for (int style = 0; style < 128; ++style)
        lexer->setFont(mono, style);
    editor->setLexer(lexer);
    editor->setMarginType(0, QsciScintilla::NumberMargin);
    editor->setMarginWidth(0, "0000");
    editor->setMarginLineNumbers(0, true);
    editor->setMarginType(1, QsciScintilla::SymbolMargin);
    editor->setMarginWidth(1, 14);
    editor->markerDefine(QsciScintilla::Circle, kErrorMarker);
    editor->setMarkerBackgroundColor(QColor(220, 50, 47), kErrorMarker);
    editor->markerDefine(QsciScintilla::Circle, kWarningMarker);
    editor->setMarkerBackgroundColor(QColor(230, 160, 30), kWarningMarker);
    editor->markerDefine(QsciScintilla::RightTriangle, kFindingMarker);
    editor->setMarkerBackgroundColor(QColor(230, 160, 30), kFindingMarker);
    editor->markerDefine(QsciScintilla::RightArrow, kMemoryMarker);
    editor->setMarkerBackgroundColor(QColor(80, 140, 230), kMemoryMarker);
    editor->setAutoIndent(true);
    editor->setIndentationsUseTabs(false);
    editor->setTabWidth(4);
    editor->setBraceMatching(QsciScintilla::SloppyBraceMatch);
}

// The editor's height for kEditorLines lines of text and its horizontal scroll bar.
int editorMinimumHeight(QsciScintilla* editor)
{
    const auto lineHeight = int(editor->SendScintilla(QsciScintilla::SCI_TEXTHEIGHT, 0));
    return kEditorLines * lineHeight +
           editor->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, editor) +
           2 * editor->frameWidth();
}

} // namespace

KernelWorkspace::KernelWorkspace(std::shared_ptr<gpu::DevicePool> devices, QWidget* parent)
    : QWidget(parent), m_devices(devices), m_editor(new QsciScintilla(this)),
      m_examples(new QComboBox(this)), m_status(new QLabel(this)), m_options(new QLineEdit(this)),
      m_messages(new QListWidget(this)), m_paramsBox(new QWidget(this)),
      m_paramsLayout(new QFormLayout(m_paramsBox)), m_resources(new QLabel(this)),
      m_ptx(new QPlainTextEdit(this)), m_sass(new QPlainTextEdit(this)),
      m_view(new KernelView(devices, this)),
      m_variants(new KernelVariantsPanel(
          devices, [this](QString& why) { return variantsRequest(why); }, this)),
      m_memory(new MemoryPanel(this)), m_notes(new QLabel(this)), m_pause(new QTimer(this))
{
    setObjectName("kernelWorkspace");
    m_editor->setObjectName("kernelEditor");
    m_examples->setObjectName("kernelExamples");
    m_messages->setObjectName("kernelMessages");
    m_messages->setWordWrap(true); // a run's failure says what happened in a sentence or two
    m_status->setObjectName("kernelStatus");
    m_options->setObjectName("kernelOptions");
    m_options->setPlaceholderText(tr("NVRTC options, e.g. -use_fast_math"));
    m_options->setToolTip(tr("Options for NVRTC, separated by spaces: -use_fast_math, "
                             "-maxrregcount=N, -lineinfo, -ftz=, -prec-div=, -prec-sqrt=, -fmad="));

    const QFont mono("DejaVu Sans Mono", 10);
    setUpEditor(m_editor, mono);

    for (const gpu::KernelExample& e : gpu::kernelExamples())
        m_examples->addItem(QString::fromStdString(e.name), QString::fromStdString(e.description));
    auto* compile = new QPushButton(tr("Compile (Ctrl+Enter)"), this);
    auto* open = new QPushButton(tr("Open .cu…"), this);
    auto* save = new QPushButton(tr("Save .cu…"), this);
    open->setObjectName("kernelOpen");
    save->setObjectName("kernelSave");
    m_ptx->setReadOnly(true);
    m_sass->setReadOnly(true);
    m_ptx->setFont(mono);
    m_sass->setFont(mono);
    m_ptx->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_sass->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_resources->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_resources->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_resources->setWordWrap(true);
    m_resources->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Start from:"), this));
    bar->addWidget(m_examples, 1);
    bar->addWidget(m_options, 1);
    bar->addWidget(compile);
    m_examples->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_examples->setMinimumContentsLength(8);
    auto* info = m_infoTabs = new QTabWidget(this);
    info->addTab(makeMessagesTab(), tr("Messages"));
    info->addTab(m_memory, tr("Memory"));
    info->addTab(m_resources, tr("Resources"));
    info->addTab(m_ptx, tr("PTX"));
    info->addTab(m_sass, tr("SASS"));
    info->addTab(m_variants, tr("Variants"));
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(bar);
    m_consentBar = makeConsentBar();
    leftLayout->addWidget(m_consentBar);
    m_notes->setObjectName("kernelNotes");
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notesBox = new NotesBox(m_notes, kNotesLines, left);
    leftLayout->addWidget(m_notesBox);
    m_editor->setMinimumHeight(editorMinimumHeight(m_editor));
    auto* editorSplit = new QSplitter(Qt::Vertical, left);
    editorSplit->setChildrenCollapsible(false);
    editorSplit->addWidget(m_editor);
    editorSplit->addWidget(info);
    // The editor takes what the window gives; the tabs start a few lines high.
    editorSplit->setStretchFactor(0, 1);
    editorSplit->setStretchFactor(1, 0);
    // The tabs' pages (the Memory tab's table) would ask for more than a laptop has.
    info->setMinimumHeight(kInfoMinLines * fontMetrics().lineSpacing());
    editorSplit->setSizes({QWIDGETSIZE_MAX / 2, kInfoLines * fontMetrics().lineSpacing()});
    leftLayout->addWidget(editorSplit, 1);
    leftLayout->addWidget(m_paramsBox);
    QHBoxLayout* bottom = makeRunBar();
    bottom->addWidget(open);
    bottom->addWidget(save);
    leftLayout->addWidget(m_status);
    leftLayout->addLayout(bottom);
    // The status can be long; it must not widen the window.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(m_view);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({1000, 1000}); // the editor and the picture share the width
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);

    m_pause->setSingleShot(true);
    m_pause->setInterval(kPauseMs);
    connect(m_pause, &QTimer::timeout, this, &KernelWorkspace::startBuild);
    connect(m_editor, &QsciScintilla::textChanged, this, &KernelWorkspace::sourceEdited);
    connect(compile, &QPushButton::clicked, this, &KernelWorkspace::compileNow);
    connect(open, &QPushButton::clicked, this, &KernelWorkspace::askToOpen);
    connect(save, &QPushButton::clicked, this, &KernelWorkspace::askToSave);
    // The editor takes its keys before shortcuts see them, so Ctrl+Enter is caught there.
    m_editor->installEventFilter(this);
    connect(m_examples, &QComboBox::activated, this, &KernelWorkspace::chooseExample);
    connect(m_options, &QLineEdit::editingFinished, this, [this] {
        if (const QString error = setOptions(m_options->text()); !error.isEmpty())
            emit message(error);
    });
    connect(&m_job, &QFutureWatcher<std::shared_ptr<KernelBuild>>::finished, this,
            &KernelWorkspace::buildFinished);
    connect(m_memory, &MemoryPanel::recordingChanged, this, &KernelWorkspace::startBuild);
    connect(m_memory, &MemoryPanel::lineActivated, this, [this](int line) {
        m_editor->setCursorPosition(line - 1, 0);
        m_editor->ensureLineVisible(line - 1);
        m_editor->setFocus();
    });
    connect(m_view, &KernelView::contextReady, this, [this] {
        m_contextKnown = true;
        m_memory->setSimulated(!m_view->cuda());
        startBuild();
    });
    connect(m_view, &KernelView::ran, this,
            [this](const QString& problem, const gpu::KernelRun& run) {
                showRunProblem(problem);
                showPrinted(run);
                showFindings(run);
                showMemory(run);
                m_memcheck->offer(!problem.isEmpty() && run.gpuFault);
                if (!problem.isEmpty()) {
                    m_awaitingPicture = false;
                    emit message(tr("Kernel: %1").arg(problem));
                    return;
                }
                const QString compiled = m_status->property("compiled").toString();
                m_status->setText(compiled + tr("  ·  ran in %1 ms").arg(run.kernelMs, 0, 'f', 2));
                if (m_awaitingPicture) {
                    // From the compile's start (after the typing pause) to the first frame
                    // the new build drew.
                    m_awaitingPicture = false;
                    emit message(compiled +
                                 tr("  ·  edit to pixels %1 ms")
                                     .arg(double(m_compileClock.nsecsElapsed()) / 1e6, 0, 'f', 0));
                }
                showNonFinite(run);
            });
    chooseExample(0);
}

QHBoxLayout* KernelWorkspace::makeRunBar()
{
    // A run that does not answer within the timeout is stopped; Stop ends one sooner.
    auto* timeout = new QSpinBox(this);
    timeout->setObjectName("kernelTimeout");
    timeout->setRange(10, 600000);
    timeout->setSingleStep(500);
    timeout->setSuffix(tr(" ms"));
    timeout->setValue(int(m_view->timeoutMs()));
    timeout->setToolTip(tr("The longest a run may take: after it, the kernel's process is ended "
                           "and the picture keeps the last good run"));
    auto* stop = new QPushButton(tr("Stop"), this);
    stop->setObjectName("kernelStop");
    stop->setEnabled(false);
    stop->setToolTip(tr("End the kernel running now (its process is ended; the app goes on)"));
    connect(timeout, &QSpinBox::valueChanged, this,
            [this](int ms) { m_view->setTimeoutMs(double(ms)); });
    connect(stop, &QPushButton::clicked, m_view, &KernelView::stopRun);
    connect(m_view, &KernelView::runningChanged, this, [this, stop](bool running) {
        stop->setEnabled(running);
        if (running)
            m_status->setText(tr("Running… (Stop ends it; the timeout is %1 ms)")
                                  .arg(m_view->timeoutMs(), 0, 'f', 0));
    });
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(new QLabel(tr("Timeout:"), this));
    bottom->addWidget(timeout);
    bottom->addWidget(stop);
    bottom->addStretch(1);
    return bottom;
}

KernelWorkspace::~KernelWorkspace()
{
    m_job.waitForFinished();
}

KernelWorkspace::KernelWorkspace(const WorkspaceServices& services, FieldWorkspace& field)
    : KernelWorkspace(services.devices, services.window)
{
    m_host = services.host;
    m_field = &field;
    connect(this, &KernelWorkspace::message, this,
            [this](const QString& text) { m_host->showMessage(text, 10000); });
    setMesh(field.params());
    connect(&field, &FieldWorkspace::meshChanged, this, &KernelWorkspace::setMesh);
    // A whole kernel runs with the Launch panel's block and grid.
    LaunchPanel* launch = field.launchPanel();
    connect(launch, &LaunchPanel::changed, this, [this, launch] {
        if (const auto lesson = launch->settings()) {
            setLaunch(lesson->launch, lesson->gridFitted);
            const auto overlay = render::Overlay(lesson->overlay);
            setTeaching(lesson->teaching, overlay);
            // Colouring by memory needs its record: choosing it starts recording.
            if (lesson->teaching && render::isMemoryOverlay(overlay))
                m_memory->setRecording(true);
        }
    });
}

QString KernelWorkspace::title() const
{
    return tr("Kernel");
}

void KernelWorkspace::addActions(const WorkspaceMenus& menus)
{
    connect(menus.addFileAction(tr("Open &Kernel .cu…")), &QAction::triggered, this, [this] {
        m_host->showWorkspace(*this);
        askToOpen();
    });
    connect(menus.addFileAction(tr("Save Kernel as .c&u…")), &QAction::triggered, this, [this] {
        m_host->showWorkspace(*this);
        askToSave();
    });
}

bool KernelWorkspace::writeScene(scene::Scene& scene, QString* /*problem*/)
{
    scene.kernel = currentScene();
    return true;
}

void KernelWorkspace::readScene(const scene::Scene& scene, const QString& file)
{
    applyScene(scene.kernel, file);
}

QString KernelWorkspace::failure(bool shown) const
{
    // A kernel that never compiled has no picture to wait for.
    if (shown && !busy() && m_view->framesDrawn() == 0 && !m_buildProblem.isEmpty())
        return "the kernel did not compile: " + m_buildProblem;
    return {};
}

bool KernelWorkspace::ready(bool shown) const
{
    // A kernel whose run failed is shown with its message, then the command fails.
    return !shown || (!busy() && !m_view->running() &&
                      (m_view->framesDrawn() > 0 || !m_view->lastProblem().isEmpty()));
}

QString KernelWorkspace::failureAfterPicture(bool shown) const
{
    if (shown && !m_view->lastProblem().isEmpty())
        return "the kernel's run failed: " + m_view->lastProblem();
    return {};
}

bool KernelWorkspace::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::KeyPress || event->type() == QEvent::ShortcutOverride) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
            (key->modifiers() & Qt::ControlModifier)) {
            if (event->type() == QEvent::KeyPress)
                compileNow();
            event->accept();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void KernelWorkspace::chooseExample(int index)
{
    const auto& examples = gpu::kernelExamples();
    if (index < 0 || index >= int(examples.size()))
        return;
    m_examples->setCurrentIndex(index);
    giveReferences(examples[index].referencesAcross);
    setSource(QString::fromStdString(examples[index].source.code), examples[index].source.shape);
}

void KernelWorkspace::giveReferences(const std::vector<gpu::GeoPoint>& across)
{
    if (!m_field || m_field->params().references.size() >= across.size())
        return; // the person's own references are kept where they are enough
    gpu::DistanceParams params = m_field->params();
    params.references.clear();
    for (const gpu::GeoPoint& at : across)
        params.references.push_back({params.latMin + at.lat * (params.latMax - params.latMin),
                                     params.lonMin + at.lon * (params.lonMax - params.lonMin)});
    m_field->setParams(params);
}

QString KernelWorkspace::source() const
{
    return m_editor->text();
}

void KernelWorkspace::setSource(const QString& code, gpu::KernelShape shape)
{
    m_awaitingConsent = false;
    m_consentBar->hide();
    // A lesson's text stays beside its kernel, also through the person's edits.
    QString notes;
    for (const gpu::KernelExample& e : gpu::kernelExamples())
        if (!e.notes.empty() && e.source.code == code.toStdString())
            notes = QString::fromStdString(e.notes);
    m_notesBox->setText(notes);
    showSource(code, shape);
    startBuild();
}

void KernelWorkspace::sourceEdited()
{
    // The person's edit of a scene's kernel is their word to run it.
    if (!m_showingSource && m_awaitingConsent) {
        m_awaitingConsent = false;
        m_consentBar->hide();
    }
    m_pause->start();
}

void KernelWorkspace::showSource(const QString& code, gpu::KernelShape shape)
{
    m_shape = shape;
    m_showingSource = true;
    m_editor->setText(code);
    m_showingSource = false;
}

QWidget* KernelWorkspace::makeConsentBar()
{
    auto* bar = new QFrame(this);
    bar->setObjectName("kernelConsentBar");
    bar->setFrameShape(QFrame::StyledPanel);
    bar->setStyleSheet("#kernelConsentBar { background: #fff3c4; }");
    m_consentText = new QLabel(bar);
    m_consentText->setObjectName("kernelConsentText");
    m_consentText->setWordWrap(true);
    auto* run = new QPushButton(tr("Run"), bar);
    run->setObjectName("kernelConsentRun");
    auto* keep = new QPushButton(tr("Keep it stopped"), bar);
    keep->setObjectName("kernelConsentKeep");
    auto* layout = new QHBoxLayout(bar);
    layout->addWidget(m_consentText, 1);
    layout->addWidget(run);
    layout->addWidget(keep);
    connect(run, &QPushButton::clicked, this, &KernelWorkspace::compileNow);
    connect(keep, &QPushButton::clicked, this, [this] {
        m_consentBar->hide();
        m_status->setText(tr("The scene's kernel is stopped: edit it or compile it to run it"));
    });
    bar->hide();
    return bar;
}

void KernelWorkspace::askToOpen()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a kernel"), {},
                                                      tr("CUDA source (*.cu);;All files (*)"));
    if (!path.isEmpty()) {
        const QString error = openFile(path);
        emit message(error.isEmpty() ? tr("Opened %1").arg(path) : error);
    }
}

void KernelWorkspace::askToSave()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the kernel"), "kernel.cu",
                                                      tr("CUDA source (*.cu)"));
    if (!path.isEmpty()) {
        const QString error = saveFile(path);
        emit message(error.isEmpty() ? tr("Saved %1").arg(path) : error);
    }
}

QString KernelWorkspace::saveFile(const QString& path) const
{
    QSaveFile file(path);
    const QByteArray text = scene::kernelFileText({m_shape, m_editor->text().toStdString()});
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
        return tr("Could not save %1: %2").arg(path, file.errorString());
    return {};
}

QString KernelWorkspace::openFile(const QString& path)
{
    const scene::KernelFileRead read = scene::loadKernelFile(path);
    if (!read.kernel)
        return read.error;
    setSource(QString::fromStdString(read.kernel->code), read.kernel->shape);
    showOrigin(tr("Opened: %1").arg(QFileInfo(path).fileName()));
    return {};
}

void KernelWorkspace::showOrigin(const QString& origin)
{
    // The list names where the text came from, so a file is not taken for the example that
    // happened to be chosen before it.
    m_examples->setPlaceholderText(origin);
    m_examples->setCurrentIndex(-1);
}

scene::KernelScene KernelWorkspace::currentScene() const
{
    scene::KernelScene kernel;
    kernel.shape = m_shape;
    kernel.source = m_editor->text().toStdString();
    kernel.flags = m_flags;
    kernel.recordMemory = m_memory->recording();
    // Values not yet given to sliders are still the scene's.
    if (!m_pendingValues.empty())
        kernel.values = m_pendingValues;
    else
        for (std::size_t i = 0; i < m_params.size() && i < m_values.size(); ++i)
            kernel.values.push_back({m_params[i].name, m_values[i]});
    return kernel;
}

void KernelWorkspace::applyScene(const scene::KernelScene& kernel, const QString& file)
{
    m_flags = kernel.flags;
    QStringList flags;
    for (const std::string& flag : m_flags)
        flags << QString::fromStdString(flag);
    m_options->setText(flags.join(' '));
    m_pendingValues = kernel.values;
    m_memory->setRecording(kernel.recordMemory);
    if (kernel.recordMemory) // a lesson's scene: its figures are what it is about
        m_infoTabs->setCurrentWidget(m_memory);
    if (scene::isExample(kernel)) {
        setSource(QString::fromStdString(kernel.source), kernel.shape);
        const auto& examples = gpu::kernelExamples();
        for (std::size_t i = 0; i < examples.size(); ++i)
            if (examples[i].source.code == kernel.source)
                m_examples->setCurrentIndex(int(i));
        return;
    }
    m_awaitingConsent = true;
    showSource(QString::fromStdString(kernel.source), kernel.shape);
    // The editor's undo would otherwise bring back text that was never the person's to run.
    m_editor->SendScintilla(QsciScintillaBase::SCI_EMPTYUNDOBUFFER);
    m_consentText->setText(
        tr("This scene contains a kernel from %1. Run it?").arg(QDir::toNativeSeparators(file)));
    m_consentBar->show();
    showOrigin(tr("From the scene: %1").arg(QFileInfo(file).fileName()));
    m_status->setText(tr("Not compiled: the scene's kernel waits for Run"));
}

QString KernelWorkspace::setOptions(const QString& text)
{
    std::vector<std::string> flags;
    for (const QString& flag : text.split(' ', Qt::SkipEmptyParts)) {
        if (const std::string problem = gpu::kernelFlagProblem(flag.toStdString());
            !problem.empty())
            return QString::fromStdString(problem);
        flags.push_back(flag.toStdString());
    }
    if (flags.size() > std::size_t(gpu::kMaxKernelFlags))
        return tr("At most %1 compiler options").arg(gpu::kMaxKernelFlags);
    m_options->setText(text.simplified());
    if (flags != m_flags) {
        m_flags = flags;
        startBuild();
    }
    return {};
}

std::optional<gpu::KernelVariantsRequest> KernelWorkspace::variantsRequest(QString& why) const
{
    if (m_awaitingConsent) {
        why = tr("The scene's kernel runs only once you press Run above the editor");
        return std::nullopt;
    }
    gpu::KernelVariantsRequest request;
    request.source = {m_shape, m_editor->text().toStdString()};
    request.options.flags = m_flags;
    request.args.mesh = m_view->mesh();
    request.args.launch = m_view->launch();
    request.args.timeoutMs = m_view->timeoutMs(); // the Timeout field's, as every run's
    request.cacheDir = kernelCacheDir().toStdString();
    request.recordMemory = m_memory->recording();
    // The sliders' values by name, for the source as it is now (its declarations may have
    // changed since the last compile).
    const gpu::KernelParamParse parsed = gpu::parseKernelParams(request.source.code);
    if (!parsed.errors.empty()) {
        why = tr("Line %1: %2")
                  .arg(parsed.errors.front().line)
                  .arg(QString::fromStdString(parsed.errors.front().text));
        return std::nullopt;
    }
    for (const gpu::KernelParam& p : parsed.params) {
        double value = p.value;
        for (std::size_t i = 0; i < m_params.size() && i < m_values.size(); ++i)
            if (m_params[i].name == p.name)
                value = gpu::kernelParamValue(p, m_values[i]);
        request.args.values.push_back(value);
    }
    return request;
}

QStringList KernelWorkspace::messages() const
{
    QStringList lines;
    for (int i = 0; i < m_messages->count(); ++i)
        lines << m_messages->item(i)->text();
    return lines;
}

void KernelWorkspace::compileNow()
{
    m_awaitingConsent = false;
    m_consentBar->hide();
    startBuild();
}

void KernelWorkspace::startBuild()
{
    m_pause->stop();
    if (m_awaitingConsent) {
        m_again = false;
        return;
    }
    if (!m_contextKnown)
        return; // the view's device decides what to build; it compiles once known
    if (m_job.isRunning()) {
        m_again = true;
        return;
    }
    m_again = false;
    const bool cuda = m_view->cuda();
    gpu::KernelSource source{m_shape, m_editor->text().toStdString()};
    source.recordMemory = !cuda && m_memory->recording();
    const gpu::DeviceInfo info = m_view->deviceInfo();
    gpu::KernelOptions options;
    options.flags = m_flags;
    if (cuda) {
        options.smMajor = info.ccMajor;
        options.smMinor = info.ccMinor;
    }
    const std::string cacheDir = kernelCacheDir().toStdString();
    m_status->setText(tr("Compiling…"));
    m_view->prepareRuns(); // while the kernel compiles
    m_compileClock.start();
    m_building = true;
    m_job.setFuture(QtConcurrent::run([source, options, cacheDir, cuda] {
        auto build = std::make_shared<KernelBuild>();
        // NVRTC's build explains the kernel (resources, PTX) on every device; the CPU runs
        // the simulator's.
        build->gpuStatus = gpu::compileKernel(source, options, cacheDir, build->gpu);
        if (!cuda)
            build->cpuStatus = gpu::buildSimulatedKernel(source, cacheDir, build->cpu);
        return build;
    }));
}

void KernelWorkspace::buildFinished()
{
    m_building = false;
    if (m_awaitingConsent) {
        // Built from a source a scene's kernel has replaced: neither its messages nor its
        // sliders belong to the text shown.
        m_again = false;
        emit settled();
        return;
    }
    const std::shared_ptr<KernelBuild> build = m_job.result();
    const bool cuda = m_view->cuda();
    std::vector<gpu::KernelMessage> messages = build->gpu.messages;
    // Where NVRTC found errors, the simulator's compiler finds the same ones in its own words:
    // one compiler's account is listed, not both.
    const bool gpuErrors = std::any_of(messages.begin(), messages.end(), [](const auto& m) {
        return m.severity == gpu::Severity::Error;
    });
    if (!cuda && !gpuErrors) {
        for (const gpu::KernelMessage& m : build->cpu.messages) {
            const bool seen = std::any_of(messages.begin(), messages.end(), [&](const auto& o) {
                return o.line == m.line && o.text == m.text;
            });
            if (!seen)
                messages.push_back(m);
        }
        if (!build->cpu.ok && build->cpu.messages.empty())
            messages.push_back({gpu::Severity::Error, 0, 0, build->cpuStatus.message()});
    } else if (cuda && !build->gpu.ok && build->gpu.messages.empty()) {
        messages.push_back({gpu::Severity::Error, 0, 0, build->gpuStatus.message()});
    }
    if (!gpu::nvrtcAvailable())
        messages.push_back({gpu::Severity::Warning, 0, 0,
                            "NVRTC is not available in this build: no PTX or resources"});
    showMessages(messages);
    const bool ok = cuda ? build->gpu.ok : build->cpu.ok;
    m_buildProblem.clear();
    if (!ok) {
        const auto error = std::find_if(messages.begin(), messages.end(), [](const auto& m) {
            return m.severity == gpu::Severity::Error;
        });
        m_buildProblem =
            error == messages.end() ? tr("the kernel did not compile")
            : error->line > 0
                ? tr("Line %1: %2").arg(error->line).arg(QString::fromStdString(error->text))
                : QString::fromStdString(error->text);
    }
    const double ms = cuda ? build->gpu.compileMs : build->cpu.compileMs;
    const bool cached = cuda ? build->gpu.fromCache : build->cpu.fromCache;
    m_view->setNotice({});
    if (ok) {
        const QString text = tr("Compiled in %1 ms (%2)")
                                 .arg(ms, 0, 'f', 0)
                                 .arg(cached ? tr("warm: from the cache") : tr("cold"));
        m_awaitingPicture = true;
        m_status->setProperty("compiled", text);
        m_status->setText(text);
        emit message(text);
        if (build->gpu.params != m_params || build->cpu.params != m_params ||
            !m_pendingValues.empty())
            rebuildSliders(cuda ? build->gpu.params : build->cpu.params);
        m_view->setValues(m_values);
        m_view->setBuild(build);
    } else if (!cuda && build->gpu.ok) {
        // NVRTC took it, so the kernel is right; the simulator lacks what it uses.
        const QString text =
            tr("Compiled for the GPU; cannot run on the CPU simulator: %1").arg(m_buildProblem);
        m_status->setText(text);
        m_view->setNotice(text);
    } else {
        m_status->setText(tr("Not compiled: the last good kernel keeps drawing"));
    }
    showCompilerReport(*build);
    if (m_again)
        startBuild();
    else
        emit settled();
}

void KernelWorkspace::showMessages(const std::vector<gpu::KernelMessage>& messages)
{
    m_editor->markerDeleteAll();
    m_messages->clear();
    for (const gpu::KernelMessage& m : messages) {
        const bool error = m.severity == gpu::Severity::Error;
        const QString where = m.line > 0 ? tr("Line %1: ").arg(m.line) : QString();
        auto* item = new QListWidgetItem(where + QString::fromStdString(m.text), m_messages);
        item->setForeground(error ? kErrorColour : kWarningColour);
        if (m.line > 0)
            m_editor->markerAdd(m.line - 1, error ? kErrorMarker : kWarningMarker);
    }
}

void KernelWorkspace::showRunProblem(const QString& problem)
{
    // A run's failure sits above the compiler's messages, at the editor, until a run succeeds.
    for (int i = m_messages->count() - 1; i >= 0; --i)
        if (m_messages->item(i)->data(Qt::UserRole).toBool())
            delete m_messages->takeItem(i);
    if (problem.isEmpty())
        return;
    auto* item = new QListWidgetItem(tr("Run failed: %1").arg(problem));
    item->setData(Qt::UserRole, true);
    item->setForeground(kErrorColour);
    item->setToolTip(problem);
    m_messages->insertItem(0, item);
    m_status->setText(tr("Run failed; the picture keeps the last good run"));
}

void KernelWorkspace::showFindings(const gpu::KernelRun& run)
{
    // Marks the items of a run's findings, replaced by each run.
    constexpr int kFindingRole = Qt::UserRole + 2;
    for (int i = m_messages->count() - 1; i >= 0; --i)
        if (m_messages->item(i)->data(kFindingRole).toBool())
            delete m_messages->takeItem(i);
    m_editor->markerDeleteAll(kFindingMarker);
    // Under a run's failure, above what it printed and the compiler's messages.
    int row = 0;
    while (row < m_messages->count() && m_messages->item(row)->data(Qt::UserRole).toBool())
        ++row;
    for (const gpu::KernelMessage& m : run.findings) {
        const QString text = (m.line > 0 ? tr("Line %1: ").arg(m.line) : QString()) +
                             tr("simulator: %1").arg(QString::fromStdString(m.text));
        auto* item = new QListWidgetItem(text);
        item->setData(kFindingRole, true);
        item->setForeground(kWarningColour);
        item->setToolTip(text);
        m_messages->insertItem(row++, item);
        if (m.line > 0)
            m_editor->markerAdd(m.line - 1, kFindingMarker);
    }
}

void KernelWorkspace::showMemory(const gpu::KernelRun& run)
{
    m_memory->show(run.memory);
    m_editor->markerDeleteAll(kMemoryMarker);
    for (int line : m_memory->worstLines())
        m_editor->markerAdd(line - 1, kMemoryMarker);
}

void KernelWorkspace::showPrinted(const gpu::KernelRun& run)
{
    // Marks the items of what a run printed, replaced by each run.
    constexpr int kPrintedRole = Qt::UserRole + 1;
    for (int i = m_messages->count() - 1; i >= 0; --i)
        if (m_messages->item(i)->data(kPrintedRole).toBool())
            delete m_messages->takeItem(i);
    // Below a run's failure, above the compiler's messages.
    int row = 0;
    while (row < m_messages->count() && m_messages->item(row)->data(Qt::UserRole).toBool())
        ++row;
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (const PrintedRow& printed : printedRows(run)) {
        auto* item = new QListWidgetItem(printed.text);
        item->setData(kPrintedRole, true);
        if (printed.monospace)
            item->setFont(mono);
        m_messages->insertItem(row++, item);
    }
}

QWidget* KernelWorkspace::makeMessagesTab()
{
    m_memcheck =
        new MemcheckRerun([this](gpu::MemcheckJob& job) { return m_view->memcheckJob(job); }, this);
    connect(m_memcheck, &MemcheckRerun::reported, this, &KernelWorkspace::showMemcheck);
    connect(m_memcheck, &MemcheckRerun::failed, this,
            [this](const QString& why) { emit message(tr("memcheck: %1").arg(why)); });
    auto* tab = new QWidget(this);
    auto* layout = new QVBoxLayout(tab);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_memcheck);
    layout->addWidget(m_messages, 1);
    return tab;
}

void KernelWorkspace::showMemcheck(const gpu::MemcheckReport& report, const QString& printed)
{
    // Under the run's failure, which it explains; replaced by the next run like it.
    int row = 0;
    while (row < m_messages->count() && m_messages->item(row)->data(Qt::UserRole).toBool())
        ++row;
    const auto add = [&](const QString& text, const QColor& colour) {
        auto* item = new QListWidgetItem(text);
        item->setData(Qt::UserRole, true);
        item->setForeground(colour);
        item->setToolTip(text);
        m_messages->insertItem(row++, item);
    };
    const QColor red = kErrorColour, plain = palette().color(QPalette::Text);
    for (const gpu::MemcheckFinding& finding : report.findings) {
        add(tr("memcheck: %1").arg(QString::fromStdString(finding.summary())), red);
        if (finding.userLine() > 0)
            m_editor->markerAdd(finding.userLine() - 1, kErrorMarker);
    }
    if (report.findings.empty())
        add(tr("memcheck found no error in this run of the kernel"), plain);
    for (const std::string& api : report.apiErrors)
        add(tr("memcheck: %1").arg(QString::fromStdString(api)), plain);
    if (!printed.trimmed().isEmpty())
        add(tr("Under memcheck the kernel printed: %1").arg(printed.trimmed().left(400)), plain);
    const auto first = std::find_if(report.findings.begin(), report.findings.end(),
                                    [](const auto& f) { return f.userLine() > 0; });
    if (first != report.findings.end()) {
        m_editor->setCursorPosition(first->userLine() - 1, 0);
        m_editor->ensureLineVisible(first->userLine() - 1);
    }
    const QString said =
        report.findings.empty()
            ? tr("memcheck found no error in this run")
            : tr("memcheck: %n error(s); the first: %1", "", int(report.findings.size()))
                  .arg(QString::fromStdString(report.findings.front().summary()));
    m_status->setText(said);
    emit message(tr("Kernel: %1").arg(said));
}

void KernelWorkspace::showNonFinite(const gpu::KernelRun& run)
{
    if (run.stats.nonFinite <= 0)
        return;
    const QString text = nonFiniteText(run.stats.nonFinite);
    auto* item = new QListWidgetItem(text);
    item->setData(Qt::UserRole, true); // a run's note: the next run replaces it
    item->setForeground(kWarningColour);
    m_messages->insertItem(0, item);
    emit message(tr("Kernel: %1").arg(text));
}

void KernelWorkspace::rebuildSliders(const std::vector<gpu::KernelParam>& params)
{
    // Values move to the new declarations by name (an int's rounded, a bool's 0 or 1); new
    // ones start at their default. A scene's values, by name, come first.
    std::vector<double> values;
    for (const gpu::KernelParam& p : params) {
        double value = p.value;
        for (std::size_t i = 0; i < m_params.size(); ++i)
            if (m_params[i].name == p.name && i < m_values.size())
                value = gpu::kernelParamValue(p, m_values[i]);
        for (const scene::KernelParamValue& v : m_pendingValues)
            if (v.name == p.name)
                value = gpu::kernelParamValue(p, v.value);
        values.push_back(value);
    }
    // A build that a newer one follows is of text the scene's source has replaced (the scene
    // opened while it compiled): the scene's values wait for the build of its own source.
    if (!m_again)
        m_pendingValues.clear();
    while (m_paramsLayout->rowCount() > 0)
        m_paramsLayout->removeRow(0);
    m_params = params;
    m_values = values;
    for (std::size_t i = 0; i < params.size(); ++i)
        m_paramsLayout->addRow(
            QString::fromStdString(params[i].name),
            makeKernelParamControl(params[i], values[i], m_paramsBox, [this, i](double value) {
                m_values[i] = value;
                sendValues();
            }));
}

void KernelWorkspace::sendValues()
{
    m_view->setValues(m_values);
}

void KernelWorkspace::showCompilerReport(const KernelBuild& build)
{
    const gpu::CompiledKernel& gpuBuild = build.gpu;
    if (!gpuBuild.ok) {
        m_resources->setText(gpu::nvrtcAvailable() ? tr("The kernel did not compile with NVRTC.")
                                                   : tr("NVRTC is not available in this build."));
        m_ptx->setPlainText({});
        m_sass->setPlainText({});
        return;
    }
    const gpu::KernelUsage& u = gpuBuild.usage;
    m_ptx->setPlainText(QString::fromStdString(gpuBuild.ptx));
    m_sass->setPlainText(disassemble(gpuBuild.cubin));
    if (!u.known) {
        m_resources->setText(tr("<b>sm_%1%2</b>, NVRTC %3<br>Resources unknown: this NVRTC gave "
                                "no ptxas report, and no GPU of this architecture is here to "
                                "ask")
                                 .arg(gpuBuild.options.smMajor)
                                 .arg(gpuBuild.options.smMinor)
                                 .arg(QString::fromStdString(gpu::nvrtcVersion())));
        return;
    }
    const QString spills = u.spillsKnown
                               ? tr("%1 / %2 bytes").arg(u.spillStoreBytes).arg(u.spillLoadBytes)
                               : tr("not reported (the driver's figures)");
    const gpu::DeviceInfo info = m_view->deviceInfo();
    // The per-node launcher's blocks are 16 x 16; a whole kernel has the Launch panel's.
    const long long block = m_shape == gpu::KernelShape::PerNode ? 256 : m_view->block().volume();
    gpu::KernelResources resources;
    resources.registersPerThread = u.registers;
    resources.staticSharedBytes = u.sharedBytes;
    const gpu::Occupancy occupancy = gpu::theoreticalOccupancy(info, resources, block);
    m_resources->setText(
        tr("<b>sm_%1%2</b>, NVRTC %3<br>Registers per thread: %4<br>Spill stores / loads: "
           "%5<br>Stack frame (local memory): %6 bytes<br>Static shared memory: %7 "
           "bytes<br>Constant memory: %8 bytes<br>Theoretical occupancy at %9 threads per "
           "block on %10: %11 % (%12 blocks per SM, limited by %13)")
            .arg(gpuBuild.options.smMajor)
            .arg(gpuBuild.options.smMinor)
            .arg(QString::fromStdString(gpu::nvrtcVersion()))
            .arg(u.registers)
            .arg(spills)
            .arg(u.stackBytes)
            .arg(u.sharedBytes)
            .arg(u.constantBytes)
            .arg(block)
            .arg(QString::fromStdString(info.name))
            .arg(occupancy.fraction * 100.0, 0, 'f', 0)
            .arg(occupancy.activeBlocksPerSm)
            .arg(QString::fromStdString(occupancy.limitedBy)));
}

} // namespace warpscope::ui
