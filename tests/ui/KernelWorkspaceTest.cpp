#include "warpscope/ui/KernelWorkspace.h"

#include "Contrast.h"
#include "common/NotesBox.h"
#include "warpscope/gpu/KernelMemcheck.h"
#include "warpscope/scene/SceneFile.h"
#include "warpscope/ui/FieldWorkspace.h"
#include "warpscope/ui/KernelVariantsPanel.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QThreadPool>
#include <QToolButton>
#include <Qsci/qsciscintilla.h>
#include <algorithm>
#include <cmath>

using namespace warpscope;

// The Kernel workspace driven as a person uses it, on the CPU simulator: typing a kernel,
// a compile error at its line, a parameter slider, .cu and scene files, the variants table.
class KernelWorkspaceTest : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<ui::MainWindow> m_window;

    ui::KernelWorkspace* workspace() const { return m_window->kernelWorkspace(); }
    QsciScintilla* editor() const { return workspace()->findChild<QsciScintilla*>("kernelEditor"); }

    // Waits for the compile to finish and a frame after `frames` to be drawn, then grabs it.
    QImage frameAfter(int frames)
    {
        const bool ok = QTest::qWaitFor(
            [&] {
                workspace()->view()->update();
                return !workspace()->busy() && workspace()->view()->framesDrawn() > frames &&
                       workspace()->view()->frameSettled();
            },
            60000);
        if (!ok)
            qWarning("no new kernel frame");
        return workspace()->view()->grabFramebuffer();
    }

    // The messages shown, less the notice that builds without NVRTC show.
    QStringList problems() const
    {
        QStringList lines = workspace()->messages();
        lines.removeIf([](const QString& m) { return m.startsWith("NVRTC is not available"); });
        return lines;
    }

    static int differingPixels(const QImage& a, const QImage& b)
    {
        if (a.size() != b.size())
            return a.width() * a.height();
        int n = 0;
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x)
                n += a.pixel(x, y) != b.pixel(x, y);
        return n;
    }

    // This process's children: the simulator's compiler and the kernel's runner.
    static int childProcesses()
    {
        int n = 0;
        for (const QString& task :
             QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            QFile children("/proc/self/task/" + task + "/children");
            if (children.open(QIODevice::ReadOnly))
                n += QString::fromLatin1(children.readAll()).split(' ', Qt::SkipEmptyParts).size();
        }
        return n;
    }

    // A window that has not shown the Kernel workspace, so nothing of a kernel has run.
    void startOnTheField()
    {
        m_window.reset();
        QTRY_COMPARE_WITH_TIMEOUT(childProcesses(), 0, 10000);
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        m_window = std::make_unique<ui::MainWindow>(options);
        m_window->resize(1200, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    // A scene file, as someone else may write one, that opens on its own kernel with a mesh of
    // its own (an undo step of the field).
    static QString writeKernelScene(const QString& name)
    {
        scene::Scene s;
        s.workspace = scene::Workspace::Kernel;
        s.field.params.nx = 300;
        s.kernel.source = "return float(lat * 3.0 - lon);";
        const QString path = QDir::temp().filePath(name);
        if (const QString error = scene::saveScene(s, path); !error.isEmpty())
            qWarning("%s", qPrintable(error));
        return path;
    }

    // Nothing of the scene's kernel compiled or ran, and the bar asks.
    void verifyNothingRan(const QString& path)
    {
        // Longer than the typing pause before a compile.
        QTest::qWait(1500);
        QVERIFY(workspace()->awaitingConsent());
        QCOMPARE(childProcesses(), 0);
        QVERIFY(!workspace()->busy());
        QCOMPARE(workspace()->view()->framesDrawn(), 0);
        QVERIFY(!workspace()->view()->running());
        QVERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
        auto* bar = workspace()->findChild<QWidget*>("kernelConsentBar");
        QVERIFY(bar && bar->isVisible());
        QCOMPARE(workspace()->findChild<QLabel*>("kernelConsentText")->text(),
                 QString("This scene contains a kernel from %1. Run it?")
                     .arg(QDir::toNativeSeparators(path)));
    }

    QAction* editAction(QKeySequence::StandardKey key) const
    {
        for (QAction* action : m_window->findChildren<QAction*>())
            if (action->shortcut() == QKeySequence(key))
                return action;
        return nullptr;
    }

    void typeKernel(const QString& code)
    {
        editor()->setFocus();
        editor()->selectAll();
        QTest::keyClick(editor(), Qt::Key_Delete);
        const QStringList lines = code.split('\n');
        for (int i = 0; i < lines.size(); ++i) {
            if (i > 0)
                QTest::keyClick(editor(), Qt::Key_Return);
            QTest::keyClicks(editor(), lines[i]);
        }
        QTest::keyClick(editor(), Qt::Key_Return, Qt::ControlModifier);
    }

private slots:
    void init()
    {
        if (gpu::hostCompiler().empty())
            QSKIP("no C++ compiler for the CPU simulator");
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        m_window = std::make_unique<ui::MainWindow>(options);
        m_window->resize(1200, 800);
        m_window->showKernel();
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup() { m_window.reset(); }

    // A build is busy until its result reaches the workspace, not only until its thread ends:
    // in between, the messages and the picture are still the last build's, and a frame drawn
    // then is the old kernel's.
    void aBuildIsBusyUntilItsResultIsShown()
    {
        frameAfter(0);
        typeKernel("return float(lat) * 0.5f + 1.0f;");
        QVERIFY(workspace()->busy());
        // The compile ends on its thread while this one handles no event.
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60000));
        QVERIFY(workspace()->busy());
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        QVERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
    }

    void typingAKernelChangesThePicture()
    {
        const QImage first = frameAfter(0);
        const int frames = workspace()->view()->framesDrawn();
        typeKernel("return float(lat * 3.0 - lon);");
        const QImage typed = frameAfter(frames);
        QVERIFY2(differingPixels(first, typed) > 1000, "the typed kernel should draw a new field");
        QVERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
    }

    void anErrorIsMarkedAtItsLineAndTheLastKernelKeepsDrawing()
    {
        const QImage good = frameAfter(0);
        typeKernel("float a = 1.0f;\nreturn a + notDeclared;");
        QTRY_VERIFY_WITH_TIMEOUT(!problems().isEmpty(), 60000);
        QTRY_VERIFY(!workspace()->busy());
        QVERIFY2(problems().first().startsWith("Line 2: "), qPrintable(problems().join('\n')));
        QVERIFY(problems().first().contains("notDeclared"));
        // One compiler's account of the error: NVRTC's and the simulator's are not both listed.
        QCOMPARE(problems().filter(QRegularExpression("^Line 2: ")).size(), 1);
        QCOMPARE(editor()->markersAtLine(1) != 0, true);
        QCOMPARE(editor()->markersAtLine(0), 0u);
        workspace()->view()->update();
        QTest::qWait(200);
        QCOMPARE(differingPixels(good, workspace()->view()->grabFramebuffer()), 0);
    }

    // What the simulator finds that a GPU hides is listed with its line and marked there; the
    // next run's findings replace it.
    void aSharedRaceIsListedAndMarkedAtItsLine()
    {
        typeKernel("__shared__ float s[256];\n"
                   "const int t = threadIdx.y * blockDim.x + threadIdx.x;\n"
                   "s[t] = float(lat);\n"
                   "return s[(t + 1) % 256];");
        const auto findings = [this] {
            return workspace()->messages().filter(QRegularExpression("^Line 4: simulator: "));
        };
        QTRY_VERIFY_WITH_TIMEOUT(!findings().isEmpty(), 60000);
        QTRY_VERIFY(!workspace()->busy());
        QVERIFY2(!findings()
                      .filter(QRegularExpression("shared-memory race in block \\(0,0,0\\): "
                                                 "thread \\(15,15,0\\) reads byte 0 of "
                                                 "`s`, which thread \\(0,0,0\\) wrote at "
                                                 "line 3"))
                      .isEmpty(),
                 qPrintable(findings().join('\n')));
        QVERIFY(editor()->markersAtLine(3) != 0);
        typeKernel("return float(lat);");
        QTRY_VERIFY_WITH_TIMEOUT(findings().isEmpty() && !workspace()->busy(), 60000);
        QVERIFY2(workspace()->messages().filter("simulator:").isEmpty(),
                 qPrintable(workspace()->messages().join('\n')));
        QCOMPARE(editor()->markersAtLine(3), 0u);
    }

    // Ticking the Memory tab's box records the next run: each line's accesses with what they
    // cost beside the ideal, the worst line marked in the editor; unticked, the marks go.
    void memoryIsCountedPerLineAndTheWorstLineMarked()
    {
        // A mesh of 128 x 128, and time enough for the recording run in a sanitizer's build.
        gpu::DistanceParams mesh = m_window->fieldWorkspace()->params();
        mesh.nx = mesh.ny = 128;
        m_window->fieldWorkspace()->setParams(mesh);
        workspace()->findChild<QSpinBox*>("kernelTimeout")->setValue(120000);
        typeKernel("__shared__ float s[256 * 32];\n"
                   "const int t = threadIdx.y * blockDim.x + threadIdx.x;\n"
                   "s[t * 32] = float(lat);\n"
                   "return float(lon);");
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        auto* tabs = workspace()->findChild<QTabWidget*>();
        auto* panel = workspace()->findChild<QWidget*>("kernelMemory");
        QVERIFY(tabs && panel);
        const int tab = tabs->indexOf(panel);
        QVERIFY(tab >= 0);
        QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {},
                          tabs->tabBar()->tabRect(tab).center());
        QVERIFY(panel->isVisible());
        auto* record = panel->findChild<QCheckBox*>("recordMemory");
        QVERIFY(record && record->isEnabled());
        QTest::mouseClick(record, Qt::LeftButton, {}, QPoint(8, record->height() / 2));
        QVERIFY(record->isChecked());
        auto* table = panel->findChild<QTableWidget*>("memoryLines");
        const auto row = [table](const QString& line, const QString& op) {
            for (int r = 0; r < table->rowCount(); ++r)
                if (table->item(r, 0)->text() == line && table->item(r, 1)->text() == op)
                    return r;
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(row("3", "shared store") >= 0, 120000);
        QTRY_VERIFY(!workspace()->busy());
        const int store = row("3", "shared store");
        // A stride of 32 words puts the lanes of a warp in one bank: 32 wavefronts (fewer in the
        // warps at the mesh's edge, whose lanes past it do not run the body).
        const QString perInstruction = table->item(store, 3)->text();
        QVERIFY2(perInstruction.endsWith(" wavefronts") &&
                     perInstruction.split(' ')[0].toDouble() > 30.0 &&
                     perInstruction.split(' ')[0].toDouble() <= 32.0,
                 qPrintable(perInstruction));
        QVERIFY2(table->item(store, 5)->text().contains("32-way conflict"),
                 qPrintable(table->item(store, 5)->text()));
        QVERIFY(row("all", "shared store") >= 0);
        constexpr unsigned kMemoryMark = 1u << 4;
        QVERIFY(editor()->markersAtLine(2) & kMemoryMark);
        QCOMPARE(editor()->markersAtLine(1) & kMemoryMark, 0u);
        editor()->setCursorPosition(3, 0);
        // Double-clicking a row goes to its line.
        table->scrollToItem(table->item(store, 0));
        const QPoint cell = table->visualItemRect(table->item(store, 0)).center();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell);
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell);
        int line = -1, index = -1;
        editor()->getCursorPosition(&line, &index);
        QCOMPARE(line, 2);
        QTest::mouseClick(record, Qt::LeftButton, {}, QPoint(8, record->height() / 2));
        QTRY_VERIFY_WITH_TIMEOUT(table->rowCount() == 0 && !workspace()->busy(), 60000);
        QCOMPARE(editor()->markersAtLine(2) & kMemoryMark, 0u);
    }

    // A lesson's text shows More only where it needs more than its three lines: a long one
    // does, a short one never, and one of three lines once the editor's side is narrowed.
    void lessonNotesShowMoreOnlyWhenTheTextDoesNotFit()
    {
        QCOMPARE(m_window->openScene(WARPSCOPE_LESSON_DIR "/bank-conflicts.scene.json"), QString());
        auto* box = workspace()->findChild<ui::NotesBox*>();
        auto* notes = workspace()->findChild<QLabel*>("kernelNotes");
        auto* more = workspace()->findChild<QToolButton*>("notesMore");
        QVERIFY(box && notes && more);
        QVERIFY(notes->isVisible());
        const int three = 3 * notes->fontMetrics().lineSpacing();
        QVERIFY2(notes->heightForWidth(box->width()) > three, "the lesson's text is long");
        QVERIFY(more->isVisible());
        box->setText("One short line.");
        QVERIFY(!more->isVisible());
        // The box's width, the label's whole width without More, with the editor's side of the
        // splitter wide in a wide window and dragged to its narrowest.
        m_window->resize(1900, m_window->height());
        auto* split = qobject_cast<QSplitter*>(
            workspace()->findChild<QWidget*>("kernelView")->parentWidget());
        QVERIFY(split);
        QTRY_VERIFY(split->sizes()[0] > 600);
        const QList<int> sizes = split->sizes();
        const auto editorSide = [&](int width) {
            split->setSizes({width, sizes[0] + sizes[1] - width});
        };
        const int wide = box->width();
        editorSide(0); // as far as the editor's side goes
        QTRY_VERIFY(box->width() < wide);
        const int narrow = box->width();
        QVERIFY2(narrow < 0.8 * wide, qPrintable(QString("%1 of %2 px").arg(narrow).arg(wide)));
        editorSide(sizes[0]);
        QTRY_COMPARE(box->width(), wide);
        QString text = "A text:";
        while (notes->heightForWidth(narrow) <= three) {
            text += " a word more";
            notes->setText(text); // measured only; the box is given it below
        }
        QVERIFY(notes->heightForWidth(wide) <= three);
        box->setText(text);
        QVERIFY(!more->isVisible());
        editorSide(0);
        QTRY_VERIFY(more->isVisible());
        QCOMPARE(notes->maximumHeight(), three); // its first three lines until More opens it
    }

    // A teacher opens the bank-conflicts lesson: it runs at once with its text above the
    // kernel and the Memory tab recording; the tile's column reads cost 32 wavefronts, and
    // ticking `padded` brings them to 1.
    void theBankConflictsLessonTeachesFromItsScene()
    {
        // Time enough for the recording run in a sanitizer's build.
        workspace()->findChild<QSpinBox*>("kernelTimeout")->setValue(120000);
        QCOMPARE(m_window->openScene(WARPSCOPE_LESSON_DIR "/bank-conflicts.scene.json"), QString());
        auto* notes = workspace()->findChild<QLabel*>("kernelNotes");
        QVERIFY(notes && notes->isVisible());
        QVERIFY2(notes->text().contains("32-way conflict"), qPrintable(notes->text()));
        auto* panel = workspace()->findChild<QWidget*>("kernelMemory");
        QVERIFY(panel->findChild<QCheckBox*>("recordMemory")->isChecked());
        auto* table = panel->findChild<QTableWidget*>("memoryLines");
        const auto perLoad = [table] {
            for (int r = 0; r < table->rowCount(); ++r)
                if (table->item(r, 0)->text() == "all" &&
                    table->item(r, 1)->text() == "shared load")
                    return table->item(r, 3)->text();
            return QString();
        };
        QTRY_COMPARE_WITH_TIMEOUT(perLoad(), QString("32 wavefronts"), 120000);
        QTRY_VERIFY(!workspace()->busy());
        auto* padded = workspace()->findChild<QCheckBox*>("param_padded");
        QVERIFY(padded && !padded->isChecked());
        QTest::mouseClick(padded, Qt::LeftButton, {}, QPoint(8, padded->height() / 2));
        QTRY_COMPARE_WITH_TIMEOUT(perLoad(), QString("1 wavefronts"), 120000);
        QVERIFY(workspace()->view()->lastProblem().isEmpty());
    }

    // Colour by sectors per request: each node takes the figure of the warp that wrote it, read
    // from the simulator's record, with a colour bar and a hover readout; choosing it starts
    // recording, and the coalescing lesson's stride slider moves the picture from 32 to 4.
    void colouringBySectorsPaintsEachNodeWithItsWarpsFigure()
    {
        workspace()->findChild<QSpinBox*>("kernelTimeout")->setValue(120000);
        QCOMPARE(m_window->openScene(WARPSCOPE_LESSON_DIR "/coalescing.scene.json"), QString());
        gpu::DistanceParams mesh = m_window->fieldWorkspace()->params();
        mesh.nx = mesh.ny = 128;
        m_window->fieldWorkspace()->setParams(mesh);
        auto* record = workspace()->findChild<QCheckBox*>("recordMemory");
        QTest::mouseClick(record, Qt::LeftButton, {}, QPoint(8, record->height() / 2));
        QVERIFY(!record->isChecked());
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        m_window->showLaunchPanel();
        ui::LaunchPanel* launch = m_window->launchPanel();
        launch->findChild<QComboBox*>("kernel")->setCurrentIndex(1);
        auto* overlay = launch->findChild<QComboBox*>("overlay");
        QVERIFY(overlay->isEnabled());
        overlay->setCurrentIndex(overlay->findText("Sectors per request"));
        QVERIFY(launch->findChild<QLabel*>("overlayNote")->isVisible());
        QVERIFY(record->isChecked()); // the colours need the record
        ui::KernelView* view = workspace()->view();
        const auto painted = [&] {
            view->update();
            return !workspace()->busy() && view->frameSettled() &&
                   view->memoryNodesPainted() == 128LL * 128LL;
        };
        QTRY_VERIFY_WITH_TIMEOUT(painted(), 120000);
        QCOMPARE(view->memoryStats().min, 1.0);
        QCOMPARE(view->memoryStats().max, 32.0);
        const QPointF middle(view->width() / 2.0, view->height() / 2.0);
        // A warp's load of src costs 32 sectors at a stride of 32 floats, its store of the
        // node 4 (Nsight Compute's figures): 18 a request.
        QVERIFY2(view->memoryAt(middle).contains(QRegularExpression(
                     "^warp \\d of block \\(\\d+, \\d+\\): 18 sectors a global request \\(its "
                     "average\\) where 4 would do \\(4.5x\\); 32 of 32 lanes active$")),
                 qPrintable(view->memoryAt(middle)));
        // Every warp costs 18 on a scale of 1 to 32: the middle of viridis, green.
        const QColor worse = workspace()->view()->grabFramebuffer().pixelColor(view->width() / 3,
                                                                               view->height() / 3);
        QVERIFY2(worse.red() < 100 && worse.green() > 120, qPrintable(worse.name()));
        auto* stride = workspace()->findChild<QSlider*>("param_stride");
        QVERIFY(stride);
        stride->setValue(stride->minimum());
        QTRY_VERIFY_WITH_TIMEOUT(
            view->memoryAt(middle).contains(
                "4 sectors a global request (its average) where 4 would do (1x)"),
            120000);
        QTRY_VERIFY(painted());
        const QColor best = workspace()->view()->grabFramebuffer().pixelColor(view->width() / 3,
                                                                              view->height() / 3);
        QVERIFY2(best.red() < 100 && best.green() < 100 && best.blue() > 60,
                 qPrintable(best.name())); // viridis near its bottom: dark blue
        // Back to the kernel's own values: the hover no longer speaks of warps.
        overlay->setCurrentIndex(0);
        QVERIFY(view->memoryAt(middle).isEmpty());
        QVERIFY(!launch->findChild<QLabel*>("overlayNote")->isVisible());
    }

    // What a kernel prints is listed under the editor, its first 1000 lines with the block and
    // thread of each and a count of the rest, and the lines it printed before crashing are kept.
    void whatAKernelPrintsIsListedAlsoBeforeACrash()
    {
        // About one row in a hundred prints, each of its nodes a line.
        typeKernel("if (int(lat * 1000.0) % 97 == 0)\n    printf(\"at %.1f\\n\", lat);\n"
                   "return float(lat);");
        const auto printed = [this] {
            return workspace()->messages().filter(QRegularExpression("^The kernel printed"));
        };
        QTRY_VERIFY_WITH_TIMEOUT(!printed().isEmpty(), 60000);
        QTRY_VERIFY(!workspace()->busy());
        QStringList lines = workspace()->messages();
        const QString index = "\\(\\d+,\\d+,0\\) +"; // a block's, then a thread's
        QVERIFY2(
            lines.filter(QRegularExpression("^" + index + index + "at -?[0-9]+\\.[0-9]$")).size() ==
                1000,
            qPrintable(lines.mid(0, 5).join('\n')));
        QVERIFY2(printed().size() == 1 &&
                     printed().first().contains(
                         QRegularExpression("^The kernel printed [0-9]+ lines; the first 1000 are "
                                            "kept, each with the block and thread that printed "
                                            "it$")),
                 qPrintable(printed().join('\n')));
        QVERIFY2(
            lines.filter(QRegularExpression("^\\.\\.\\. and [0-9]+ more line\\(s\\), not kept: "
                                            "a run keeps its first 1000 \\(4 MiB\\)$"))
                    .size() == 1,
            qPrintable(lines.filter("more line").join('\n')));
        typeKernel("printf(\"before the crash\\n\");\nvolatile float* nowhere = (float*)0x10;\n"
                   "*nowhere = 1.0f;\nreturn 0.0f;");
        QTRY_VERIFY_WITH_TIMEOUT(
            !workspace()->messages().filter(QRegularExpression("^Run failed: ")).isEmpty(), 60000);
        QTRY_VERIFY(!workspace()->busy());
        lines = workspace()->messages();
        QVERIFY2(lines.contains("before the crash"), qPrintable(lines.join('\n')));
    }

    // What the runner's process prints outside the kernel's threads (here to standard error)
    // is listed apart from the threads' lines, which are not listed twice.
    void outputOutsideTheThreadsIsListedApart()
    {
        frameAfter(0);
        workspace()->setSource(
            "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
            "{\n"
            "    if (blockIdx.x + blockIdx.y + threadIdx.x + threadIdx.y == 0) {\n"
            "        printf(\"from a thread\\n\");\n"
            "        fputs(\"to standard error\\n\", stderr);\n"
            "    }\n"
            "}\n",
            gpu::KernelShape::WholeKernel);
        const QStringList expected{
            "The kernel printed 1 line(s), each with the block and thread that printed it",
            "blockIdx  threadIdx  printed", "(0,0,0)   (0,0,0)    from a thread",
            "Printed outside the kernel's threads (at the library's load, or to standard error):",
            "to standard error"};
        QTRY_VERIFY2_WITH_TIMEOUT(workspace()->messages().mid(0, 5) == expected,
                                  qPrintable(workspace()->messages().join('\n')), 60000);
        QVERIFY(!workspace()->messages().mid(5).contains("from a thread"));
    }

    // The CPU simulator's equivalent of a GPU fault: the kernel crashes the process that runs
    // it. The editor says so, the picture keeps the last good run, and a good kernel runs again.
    // On a GPU, a fault offers "Run again under memcheck", whose report names the line, the
    // block and the thread the kernel was written to fault at, and marks the line. On the CPU
    // simulator a crash offers no memcheck.
    void aGpuFaultIsLocatedByMemcheck()
    {
        frameAfter(0);
        auto* rerun = workspace()->findChild<QWidget*>("memcheckRerun");
        QVERIFY(rerun);
        typeKernel("volatile float* nowhere = (float*)0x10;\n*nowhere = 1.0f;\nreturn 0.0f;");
        QTRY_VERIFY_WITH_TIMEOUT(!problems().isEmpty(), 60000);
        QVERIFY(!rerun->isVisible());
        if (gpu::cudaDeviceNames().empty() || gpu::computeSanitizerPath().empty())
            QSKIP("needs a CUDA device and compute-sanitizer");
        m_window.reset();
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cuda;
        options.useSettings = false;
        m_window = std::make_unique<ui::MainWindow>(options);
        m_window->resize(1200, 800);
        m_window->showKernel();
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        frameAfter(0);
        QVERIFY(workspace()->view()->cuda());
        workspace()->chooseExample(1);                             // the whole-kernel template
        workspace()->setLaunch({{64, 1, 1}, {8, 1, 1}, 0}, false); // block, grid
        workspace()->view()->setTimeoutMs(20000.0);                // a fault, not the timeout
        typeKernel("__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n{\n"
                   "if (blockIdx.x == 1 && threadIdx.x == 3)\n*(volatile float*)0x10 = 1.0f;\n}");
        QTRY_VERIFY_WITH_TIMEOUT(
            !problems().isEmpty() && problems().first().startsWith("Run failed: "), 60000);
        rerun = workspace()->findChild<QWidget*>("memcheckRerun");
        QTRY_VERIFY(rerun->isVisible());
        auto* button = workspace()->findChild<QPushButton*>("memcheckRun");
        QVERIFY(button && button->isVisible());
        QTest::mouseClick(button, Qt::LeftButton);
        const QString expected = "memcheck: Line 4: Invalid __global__ write of size 4 bytes, "
                                 "by thread (3, 0, 0) of block (1, 0, 0)";
        QTRY_VERIFY2_WITH_TIMEOUT(problems().join('\n').contains(expected),
                                  qPrintable(problems().join('\n')), 120000);
        QVERIFY(editor()->markersAtLine(3) != 0);
    }

    void aCrashingKernelIsReportedAndTheAppGoesOn()
    {
        const QImage good = frameAfter(0);
        typeKernel("volatile float* nowhere = (float*)0x10;\n*nowhere = 1.0f;\nreturn 0.0f;");
        QTRY_VERIFY_WITH_TIMEOUT(!problems().isEmpty(), 60000);
        QTRY_VERIFY(!workspace()->busy());
        QVERIFY2(problems().first().startsWith("Run failed: ") &&
                     problems().first().contains("segmentation fault"),
                 qPrintable(problems().join('\n')));
        // Readable: at least WCAG AA's 4.5:1 against the list and the window's grey.
        auto* list = workspace()->findChild<QListWidget*>("kernelMessages");
        const QColor failure = list->item(0)->foreground().color();
        QVERIFY2(test::contrast(failure, list->palette().color(QPalette::Base)) >= 4.5,
                 qPrintable(failure.name()));
        QVERIFY2(test::contrast(failure, list->palette().color(QPalette::Window)) >= 4.5,
                 qPrintable(failure.name()));
        workspace()->view()->update();
        QTest::qWait(200);
        QCOMPARE(differingPixels(good, workspace()->view()->grabFramebuffer()), 0);
        // It does not run again until something changes.
        QSignalSpy runs(workspace()->view(), &ui::KernelView::ran);
        for (int i = 0; i < 5; ++i) {
            workspace()->view()->update();
            QTest::qWait(100);
        }
        QCOMPARE(runs.count(), 0);
        const int frames = workspace()->view()->framesDrawn();
        typeKernel("return float(lat * 3.0 - lon);");
        const QImage later = frameAfter(frames);
        QVERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
        QVERIFY2(differingPixels(good, later) > 1000, "a good kernel should draw again");
    }

    // A kernel that never ends: the app stays responsive while it runs, Stop ends it, and the
    // timeout the user set ends the next one.
    void anEndlessKernelCanBeStoppedAndTimesOut()
    {
        const QImage good = frameAfter(0);
        auto* timeout = workspace()->findChild<QSpinBox*>("kernelTimeout");
        auto* stop = workspace()->findChild<QPushButton*>("kernelStop");
        QVERIFY(timeout && stop);
        QTRY_VERIFY(!stop->isEnabled()); // said once the first run's frame is drawn
        timeout->setValue(600000);
        typeKernel("volatile int spin = 1;\nwhile (spin) {}\nreturn 0.0f;");
        QTRY_VERIFY_WITH_TIMEOUT(stop->isEnabled(), 60000);
        QVERIFY(workspace()->view()->running());
        QTest::mouseClick(stop, Qt::LeftButton);
        QTRY_VERIFY(!workspace()->view()->running());
        QVERIFY(!stop->isEnabled());
        QVERIFY2(problems().first().startsWith("Run failed: Stopped"),
                 qPrintable(problems().join('\n')));
        workspace()->view()->update();
        QTest::qWait(200);
        QCOMPARE(differingPixels(good, workspace()->view()->grabFramebuffer()), 0);
        timeout->setValue(300);
        typeKernel("volatile int spin = 2;\nwhile (spin) {}\nreturn 0.0f;");
        QTRY_VERIFY_WITH_TIMEOUT(problems().join('\n').contains("did not finish within 300 ms"),
                                 60000);
        QVERIFY(!workspace()->view()->running());
        // The good kernel gets time to run on a busy machine: 300 ms was for the endless one.
        timeout->setValue(60000);
        const int frames = workspace()->view()->framesDrawn();
        typeKernel("return float(lat * 3.0 - lon);");
        QVERIFY2(differingPixels(good, frameAfter(frames)) > 1000, "a good kernel should draw");
    }

    void aSliderChangesThePictureWithoutACompile()
    {
        // k changes the field's shape, not only its scale (colours span min to max).
        typeKernel("// @param float k = 0.0 [0, 10]\nreturn float(lat) + p.k * float(lon);");
        const QImage before = frameAfter(0);
        auto* slider = workspace()->findChild<QSlider*>("param_k");
        QVERIFY(slider);
        const int frames = workspace()->view()->framesDrawn();
        slider->setValue(slider->maximum());
        QVERIFY(!workspace()->busy()); // no compile started
        const QImage after = frameAfter(frames);
        QVERIFY2(differingPixels(before, after) > 1000, "the slider should change the picture");
    }

    // An int's slider has a position for each whole number of its range, and a bool's check
    // box switches the picture; a scene keeps both.
    void anIntSliderStepsWholeNumbersAndABoolIsACheckBox()
    {
        typeKernel("// @param int n = 3 [1, 6]\n// @param bool on = true\n"
                   "return p.on ? float(lat) + float(p.n) * float(lon) : float(lon) - 3.0f * "
                   "float(lat);");
        const QImage on = frameAfter(0);
        auto* slider = workspace()->findChild<QSlider*>("param_n");
        auto* box = workspace()->findChild<QCheckBox*>("param_on");
        QVERIFY(slider && box);
        QCOMPARE(slider->minimum(), 0);
        QCOMPARE(slider->maximum(), 5); // 1, 2, ... 6
        QCOMPARE(slider->value(), 2);
        QVERIFY(box->isChecked());
        slider->setValue(4);
        QCOMPARE(slider->parentWidget()->findChild<QLabel*>()->text(), QString("5"));
        int frames = workspace()->view()->framesDrawn();
        box->setChecked(false);
        QVERIFY(!workspace()->busy()); // no compile started
        const QImage off = frameAfter(frames);
        QVERIFY2(differingPixels(on, off) > 1000, "the check box should change the picture");
        const scene::KernelScene kernel = workspace()->currentScene();
        QCOMPARE(kernel.values.size(), std::size_t(2));
        QCOMPARE(kernel.values[0].value, 5.0);
        QCOMPARE(kernel.values[1].value, 0.0);

        const QString path = QDir::temp().filePath("warpscope-kernel-int-scene-test.json");
        QCOMPARE(m_window->saveScene(path), QString());
        // The scene opens while another kernel compiles: its values wait for its own build.
        frames = workspace()->view()->framesDrawn();
        workspace()->chooseExample(1);
        QVERIFY(workspace()->busy());
        QCOMPARE(m_window->openScene(path), QString());
        workspace()->compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        QTRY_VERIFY(workspace()->findChild<QCheckBox*>("param_on"));
        QCOMPARE(workspace()->findChild<QSlider*>("param_n")->value(), 4);
        QVERIFY(!workspace()->findChild<QCheckBox*>("param_on")->isChecked());
        const QImage again = frameAfter(frames);
        // The same picture as the check box draws with these values now: the panel's rows,
        // made anew, may have moved the view by a few pixels since `off`.
        auto* reopened = workspace()->findChild<QCheckBox*>("param_on");
        frames = workspace()->view()->framesDrawn();
        reopened->setChecked(true);
        frameAfter(frames);
        frames = workspace()->view()->framesDrawn();
        reopened->setChecked(false);
        const QImage expected = frameAfter(frames);
        QVERIFY2(differingPixels(expected, again) == 0, "the scene should draw it again");
        if (again.size() == off.size())
            QCOMPARE(differingPixels(off, again), 0);
        QFile::remove(path);
    }

    void aKernelSavedAsCuOpensAgain()
    {
        frameAfter(0);
        typeKernel("// @param float k = 2.0 [0, 4]\nreturn p.k * float(lon);");
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        const QString path = QDir::temp().filePath("warpscope-kernel-test.cu");
        QCOMPARE(workspace()->saveFile(path), QString());
        const QString saved = workspace()->source();
        workspace()->chooseExample(1); // the whole-kernel template
        QVERIFY(workspace()->source() != saved);
        QCOMPARE(workspace()->openFile(path), QString());
        QCOMPARE(workspace()->source(), saved);
        // The list names the file, not the example chosen before it.
        auto* examples = workspace()->findChild<QComboBox*>("kernelExamples");
        QCOMPARE(examples->currentIndex(), -1);
        QCOMPARE(examples->placeholderText(), QString("Opened: warpscope-kernel-test.cu"));
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        QVERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
        QFile::remove(path);
        QCOMPARE(workspace()->openFile("/nonexistent/k.cu"),
                 QString("/nonexistent/k.cu: no such file"));
        QVERIFY(workspace()->saveFile("/nonexistent/dir/k.cu").startsWith("Could not save"));
    }

    // The Voronoi example on the default scene of one reference would be one cell, a flat
    // picture: it brings references of its own, inside the mesh, and draws several cells.
    void theVoronoiExampleBringsItsReferences()
    {
        frameAfter(0);
        const int frames = workspace()->view()->framesDrawn();
        QCOMPARE(workspace()->view()->mesh().references.size(), 1u);
        workspace()->chooseExample(4);
        QCOMPARE(workspace()->findChild<QComboBox*>("kernelExamples")->currentText(),
                 QString("Voronoi (Manhattan)"));
        frameAfter(frames);
        const gpu::DistanceParams& mesh = workspace()->view()->mesh();
        QVERIFY(mesh.references.size() > 1);
        for (const gpu::GeoPoint& ref : mesh.references)
            QVERIFY(ref.lat > mesh.latMin && ref.lat < mesh.latMax && ref.lon > mesh.lonMin &&
                    ref.lon < mesh.lonMax);
        QTRY_VERIFY_WITH_TIMEOUT(workspace()->view()->shownStats().max >= 1.0, 60000);
        QVERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
    }

    // A kernel NVRTC compiles but the simulator cannot run says so, in the status and over
    // the picture, instead of "Not compiled" beside a black picture.
    void aKernelOnlyTheGpuCanRunSaysWhy()
    {
        if (!gpu::nvrtcAvailable())
            QSKIP("NVRTC is not in this build: nothing compiles for the GPU");
        workspace()->chooseExample(1); // the whole-kernel template
        typeKernel("__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n{\n"
                   "asm volatile(\"membar.gl;\");\n"
                   "out.write(blockIdx.y, threadIdx.x, 1.0f);\n}");
        // Until this kernel's build is shown (an earlier kernel's status may stand a while).
        const QLabel* statusLabel = workspace()->findChild<QLabel*>("kernelStatus");
        QTRY_VERIFY_WITH_TIMEOUT(statusLabel->text().startsWith("Compiled for the GPU"), 60000);
        QTRY_VERIFY(!workspace()->busy());
        QVERIFY(!problems().isEmpty());
        const QString status = statusLabel->text();
        QVERIFY2(status.startsWith("Compiled for the GPU; cannot run on the CPU simulator: "),
                 qPrintable(status));
        QVERIFY2(status.contains("inline PTX"), qPrintable(status));
        QCOMPARE(workspace()->view()->notice(), status);
        // Drawn over the picture: light text on a dark box, where there was only background.
        workspace()->view()->update();
        QTest::qWait(200);
        const QImage shown = workspace()->view()->grab().toImage();
        int light = 0;
        for (int y = 0; y < shown.height(); ++y)
            for (int x = 0; x < shown.width(); ++x)
                light += qGray(shown.pixel(x, y)) > 200;
        QVERIFY2(light > 50, "the notice should be written over the picture");
        workspace()->chooseExample(0); // a kernel the simulator runs takes the notice away
        QTRY_VERIFY_WITH_TIMEOUT(workspace()->view()->notice().isEmpty(), 60000);
    }

    // A scene's kernel is shown, not compiled nor run, until the person presses Run: undo,
    // redo, the editor's undo and opening the scene again do not run it.
    void aScenesKernelWaitsForRun()
    {
        const QString path = writeKernelScene("warpscope-kernel-consent-test.json");
        startOnTheField();
        QSignalSpy settled(workspace(), &ui::KernelWorkspace::settled);
        QSignalSpy ran(workspace()->view(), &ui::KernelView::ran);
        QCOMPARE(m_window->openScene(path), QString());
        QVERIFY(m_window->kernelShown());
        QCOMPARE(workspace()->source(), QString("return float(lat * 3.0 - lon);"));
        verifyNothingRan(path);
        QAction* undo = editAction(QKeySequence::Undo);
        QAction* redo = editAction(QKeySequence::Redo);
        QVERIFY(undo && redo && undo->isEnabled());
        undo->trigger();
        redo->trigger();
        editor()->undo();
        QCOMPARE(workspace()->source(), QString("return float(lat * 3.0 - lon);"));
        QCOMPARE(m_window->openScene(path), QString());
        verifyNothingRan(path);
        QCOMPARE(settled.count(), 0);
        QCOMPARE(ran.count(), 0);
        // The variants table runs the kernel too, so it waits as well.
        workspace()->variants()->findChild<QPushButton*>("variantsRun")->click();
        QVERIFY(!workspace()->variants()->running());
        QCOMPARE(childProcesses(), 0);

        QTest::mouseClick(workspace()->findChild<QPushButton*>("kernelConsentRun"), Qt::LeftButton);
        frameAfter(0);
        QVERIFY(workspace()->view()->framesDrawn() > 0);
        QVERIFY(!workspace()->awaitingConsent());
        QVERIFY(!workspace()->findChild<QWidget*>("kernelConsentBar")->isVisible());
        QVERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
        QFile::remove(path);
    }

    // Keeping it stopped leaves it unbuilt; editing it is the person's word, and it runs.
    void editingAScenesKernelRunsIt()
    {
        const QString path = writeKernelScene("warpscope-kernel-edit-test.json");
        startOnTheField();
        QCOMPARE(m_window->openScene(path), QString());
        QTest::mouseClick(workspace()->findChild<QPushButton*>("kernelConsentKeep"),
                          Qt::LeftButton);
        QVERIFY(!workspace()->findChild<QWidget*>("kernelConsentBar")->isVisible());
        QTest::qWait(1500);
        QCOMPARE(childProcesses(), 0);
        QCOMPARE(workspace()->view()->framesDrawn(), 0);
        editor()->setFocus();
        QTest::keyClick(editor(), Qt::Key_End);
        QTest::keyClick(editor(), Qt::Key_Space);
        frameAfter(0);
        QVERIFY(workspace()->view()->framesDrawn() > 0);
        QVERIFY(!workspace()->awaitingConsent());
        QFile::remove(path);
    }

    // A .cu file holding a NUL byte would compile only its text before the NUL: it is refused,
    // with the byte's offset, and the workspace keeps its kernel.
    void aKernelFileWithANulByteIsRefused()
    {
        frameAfter(0);
        const QString kept = workspace()->source();
        const QString path = QDir::temp().filePath("warpscope-kernel-nul-test.cu");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray("return 1.0f;\0while (true) {}", 29));
        file.close();
        QCOMPARE(workspace()->openFile(path),
                 path + ": holds a NUL byte at byte 12: a kernel's source is text, not binary "
                        "data");
        QCOMPARE(workspace()->source(), kept);
        QVERIFY(workspace()->openFile("/dev/zero").contains("is not a regular file"));
        QVERIFY(workspace()->openFile(QDir::tempPath()).contains("is a folder"));
        QFile::remove(path);
    }

    void aSceneRestoresTheKernelItsValuesAndOptions()
    {
        frameAfter(0);
        const QString code = "// @param float gain = 2.0 [0, 4]\nreturn p.gain * float(lon);";
        typeKernel(code);
        // The typed kernel's slider, at its default.
        const auto typedValues = [this] {
            const scene::KernelScene k = workspace()->currentScene();
            return k.values.size() == 1 && k.values[0].value == 2.0f;
        };
        QTRY_VERIFY_WITH_TIMEOUT(typedValues(), 60000);
        auto* slider = workspace()->findChild<QSlider*>("param_gain");
        QVERIFY(slider);
        slider->setValue(250); // a quarter of [0, 4]
        QCOMPARE(workspace()->setOptions("-use_fast_math  -maxrregcount=48"), QString());
        QVERIFY(workspace()->setOptions("--include-path=/etc").contains("not one the workbench"));
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        const QString path = QDir::temp().filePath("warpscope-kernel-scene-test.json");
        QCOMPARE(m_window->saveScene(path), QString());

        workspace()->chooseExample(1);
        workspace()->setOptions({});
        m_window->showPeriodogram();
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        QCOMPARE(m_window->openScene(path), QString());
        QVERIFY(m_window->kernelShown());
        QCOMPARE(workspace()->source(), code);
        QVERIFY(workspace()->awaitingConsent());
        workspace()->compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        QTRY_VERIFY(workspace()->findChild<QSlider*>("param_gain"));
        QCOMPARE(workspace()->findChild<QSlider*>("param_gain")->value(), 250);
        const scene::KernelScene restored = workspace()->currentScene();
        QCOMPARE(restored.shape, gpu::KernelShape::PerNode);
        QCOMPARE(restored.values.size(), std::size_t(1));
        QCOMPARE(restored.values[0].name, std::string("gain"));
        QCOMPARE(restored.values[0].value, 1.0f);
        QCOMPARE(restored.flags, (std::vector<std::string>{"-use_fast_math", "-maxrregcount=48"}));
        QCOMPARE(workspace()->findChild<QLineEdit*>("kernelOptions")->text(),
                 QString("-use_fast_math -maxrregcount=48"));

        // A hostile file is refused with its key named, and the workspace keeps its kernel.
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray json = file.readAll();
        file.close();
        json.replace("\"perNode\"", "\"perWarp\"");
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(json);
        file.close();
        const QString error = m_window->openScene(path);
        QVERIFY2(error.contains("kernel.template: expected one of"), qPrintable(error));
        QCOMPARE(workspace()->source(), code);
        QFile::remove(path);
    }

    // The Launch panel's teaching overlay over a whole kernel: colouring by block changes the
    // picture, and a grid too small for the mesh leaves its other nodes striped.
    void theTeachingOverlayColoursAWholeKernelsNodes()
    {
        frameAfter(0);
        workspace()->chooseExample(1); // the whole-kernel template
        gpu::LaunchConfig fitted{{16, 16, 1}, {1, 1, 1}, 0};
        workspace()->setLaunch(fitted, true);
        workspace()->setTeaching(true, render::Overlay::Distance);
        const QImage distance = frameAfter(workspace()->view()->framesDrawn());
        workspace()->setTeaching(true, render::Overlay::Block); // a repaint, not a run
        QTest::qWait(200);
        workspace()->view()->update();
        QTest::qWait(200);
        const QImage blocks = workspace()->view()->grabFramebuffer();
        QVERIFY2(differingPixels(distance, blocks) > 1000, "blocks should be coloured");
        workspace()->setTeaching(true, render::Overlay::Distance);
        workspace()->setLaunch(fitted, false); // one block: 16 x 16 nodes of the mesh
        const QImage striped = frameAfter(workspace()->view()->framesDrawn());
        QVERIFY2(differingPixels(distance, striped) > 1000, "uncovered nodes should be striped");
        // Node (0, 0) is at the bottom left (latitude upwards), in the one block; the top
        // right is beyond it.
        ui::KernelView* view = workspace()->view();
        QCOMPARE(
            view->ownerAt(QPointF(0, view->height() - 1)),
            QString("node (0, 0): blockIdx (0, 0), threadIdx (0, 0), warp 0, SM 0 (simulated)"));
        const gpu::DistanceParams& mesh = view->mesh();
        QCOMPARE(view->ownerAt(QPointF(view->width() - 1, 0)),
                 QString("node (%1, %2): no thread wrote it").arg(mesh.nx - 1).arg(mesh.ny - 1));
        QVERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
    }

    // Pixels in one of the stripes that non-finite nodes are drawn in.
    static int stripePixels(const QImage& image)
    {
        int n = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                for (const auto& stripe : render::kNonFiniteStripes)
                    n += std::abs(c.red() - int(stripe[0] * 255 + 0.5f)) <= 2 &&
                         std::abs(c.green() - int(stripe[1] * 255 + 0.5f)) <= 2 &&
                         std::abs(c.blue() - int(stripe[2] * 255 + 0.5f)) <= 2;
            }
        return n;
    }

    // NaN and infinity are striped, counted in the messages and the status bar, explained by
    // the colour bar's swatch and read as such by the hover readout.
    void nonFiniteNodesAreStripedCountedAndReadAsSuch()
    {
        frameAfter(0);
        ui::KernelView* view = workspace()->view();
        QWidget* legend = view->findChild<QWidget*>("kernelLegend");
        QVERIFY(legend);
        QCOMPARE(stripePixels(view->grabFramebuffer()), 0);
        QCOMPARE(stripePixels(legend->grab().toImage()), 0);
        int frames = view->framesDrawn();
        typeKernel("float zero = float(lat) * 0.0f;\nreturn zero / zero;");
        QImage image = frameAfter(frames);
        const gpu::DistanceParams& mesh = view->mesh();
        const long long nodes = (long long)mesh.nx * mesh.ny;
        QCOMPARE(stripePixels(image), image.width() * image.height());
        QCOMPARE(view->shownStats().nonFinite, nodes);
        const QString counted = QString("%1 nodes are not finite (NaN or infinity)").arg(nodes);
        // The run's report reaches the workspace after the frame that drew it.
        QTRY_VERIFY2(problems().contains(counted), qPrintable(problems().join('\n')));
        QTRY_COMPARE(m_window->statusBar()->currentMessage(), "Kernel: " + counted);
        QVERIFY(stripePixels(legend->grab().toImage()) > 20);
        QCOMPARE(view->valueAt(QPointF(0, view->height() - 1)), QString("node (0, 0): NaN"));

        frames = view->framesDrawn();
        typeKernel("float zero = float(lat) * 0.0f;\nreturn lon < 100.0 ? -1.0f / zero : 2.5f;");
        image = frameAfter(frames);
        QCOMPARE(view->valueAt(QPointF(0, 0)), QString("node (0, %1): -inf").arg(mesh.ny - 1));
        QCOMPARE(view->valueAt(QPointF(view->width() - 1, 0)),
                 QString("node (%1, %2): 2.5").arg(mesh.nx - 1).arg(mesh.ny - 1));
        const int striped = stripePixels(image);
        QVERIFY2(striped > 0 && striped < image.width() * image.height(), "part striped");

        // A kernel with no such node leaves no note, no swatch and no stripes.
        frames = view->framesDrawn();
        typeKernel("return float(lat);");
        image = frameAfter(frames);
        QCOMPARE(stripePixels(image), 0);
        QCOMPARE(view->shownStats().nonFinite, 0LL);
        QTRY_VERIFY2(problems().isEmpty(), qPrintable(problems().join('\n')));
        QCOMPARE(stripePixels(legend->grab().toImage()), 0);
    }

    // A variant whose output is NaN where the default's is a number differs there: its cell
    // says how many nodes, never "0" and never "nan".
    void aNonFiniteDifferenceIsCountedNotShownAsZero()
    {
        gpu::KernelVariantRow row;
        row.compared = true;
        QCOMPARE(ui::KernelVariantsPanel::differenceText(row), QString("0"));
        row.differingNodes = row.nonFiniteDiffering = 9471;
        QCOMPARE(ui::KernelVariantsPanel::differenceText(row),
                 QString("differs at 9471 nodes, of which 9471 not finite in one variant"));
        row.maxAbsDiff = 0.00125;
        row.differingNodes = 9500;
        QCOMPARE(
            ui::KernelVariantsPanel::differenceText(row),
            QString("0.00125; differs at 9500 nodes, of which 9471 not finite in one variant"));
        row.nonFiniteDiffering = 0;
        QCOMPARE(ui::KernelVariantsPanel::differenceText(row),
                 QString("0.00125; differs at 9500 nodes"));
    }

    void theVariantsTableFillsAndExportsCsv()
    {
        // A mesh of 128 x 128, and time enough for the recorded runs in a sanitizer's build:
        // the variants' runs take the Timeout field's limit.
        gpu::DistanceParams mesh = m_window->fieldWorkspace()->params();
        mesh.nx = mesh.ny = 128;
        m_window->fieldWorkspace()->setParams(mesh);
        workspace()->findChild<QSpinBox*>("kernelTimeout")->setValue(120000);
        frameAfter(0);
        // Recording on: the memory columns hold each simulated variant's figures.
        auto* record = workspace()->findChild<QCheckBox*>("recordMemory");
        QTest::mouseClick(record, Qt::LeftButton, {}, QPoint(8, record->height() / 2));
        QVERIFY(record->isChecked());
        QTRY_VERIFY_WITH_TIMEOUT(!workspace()->busy(), 60000);
        ui::KernelVariantsPanel* panel = workspace()->variants();
        QSignalSpy done(panel, &ui::KernelVariantsPanel::finished);
        panel->findChild<QPushButton*>("variantsRun")->click();
        QVERIFY(panel->running());
        QVERIFY(done.wait(180000));
        QVERIFY2(done.first().first().toBool(), qPrintable(panel->resultText()));
        auto* table = panel->findChild<QTableWidget*>("variantsTable");
        QCOMPARE(table->rowCount(), 6);
        QCOMPARE(table->item(0, 0)->text(), QString("default"));
        for (int r = 0; r < table->rowCount(); ++r)
            for (int c = 0; c < table->columnCount(); ++c) {
                const QTableWidgetItem* item = table->item(r, c);
                QVERIFY(item);
                QVERIFY(!item->text().isEmpty());
                QVERIFY2(!item->text().contains("nan", Qt::CaseInsensitive),
                         qPrintable(item->text()));
                // A dash always says why.
                if (item->text() == QString::fromUtf8("—"))
                    QVERIFY2(!item->toolTip().isEmpty(), qPrintable(table->item(r, 0)->text()));
            }
        // The simulator times the default; compile flags mean nothing to it, and it says so.
        QVERIFY(table->item(0, 1)->text() != QString::fromUtf8("—"));
        const auto column = [table](const QString& title) {
            for (int c = 0; c < table->columnCount(); ++c)
                if (table->horizontalHeaderItem(c)->text() == title)
                    return c;
            return -1;
        };
        QCOMPARE(table->item(0, column("Max |diff|"))->text(), QString("0"));
        // The default per-node kernel stores each node once: coalesced rows of floats, about 4
        // sectors a request (fewer where a warp has fewer lanes at the mesh's edge), no more
        // than the bytes need.
        const QString sectors = table->item(0, column("Sectors/request"))->text();
        QVERIFY2(QRegularExpression("^\\d+(\\.\\d+)? \\(ideal \\d+(\\.\\d+)?\\)$")
                     .match(sectors)
                     .hasMatch(),
                 qPrintable(sectors));
        const double perRequest = sectors.split(' ')[0].toDouble();
        QVERIFY2(perRequest > 3.5 && perRequest < 4.5, qPrintable(sectors));
        QCOMPARE(sectors.split(' ')[2].chopped(1).toDouble(), perRequest);
        QCOMPARE(table->item(0, column("Conflict ways"))->toolTip(),
                 QString("no shared memory access"));
        QCOMPARE(table->item(1, column("Sectors/request"))->toolTip(),
                 QString("CPU simulator: compile flags do not apply"));
        QCOMPARE(table->item(1, 1)->text(), QString::fromUtf8("—"));
        QCOMPARE(table->item(1, 1)->toolTip(),
                 QString("CPU simulator: compile flags do not apply"));

        const QString path = QDir::temp().filePath("warpscope-variants-test.csv");
        QCOMPARE(panel->exportCsv(path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 7);
        QVERIFY(lines[0].startsWith("variant,compiled,time_ms,registers"));
        QVERIFY(lines[1].startsWith("default,"));
        QVERIFY(lines[2].startsWith("-use_fast_math,"));
        QVERIFY(lines[6].startsWith("float64 (real = double),"));
        QFile::remove(path);
        QVERIFY(panel->exportCsv("/nonexistent/dir/v.csv").startsWith("Could not save"));
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeTests");
    KernelWorkspaceTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "KernelWorkspaceTest.moc"
