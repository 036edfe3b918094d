#include "Contrast.h"
#include "WindowTest.h"
#include "warpscope/ui/KernelWorkspace.h"
#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QApplication>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QToolButton>
#include <Qsci/qsciscintilla.h>
#include <qcustomplot.h>

namespace ui = warpscope::ui;
namespace test = warpscope::test;
namespace gpu = warpscope::gpu;

// The first window on a laptop's screen (the test runs under a 1280x720 X screen): everything
// a person needs is on the screen, and the timeline leaves the workspace most of the height.
class LaptopWindowTest : public QObject
{
    Q_OBJECT

    static bool onScreen(const QWidget* widget)
    {
        const QRect screen = widget->screen()->availableGeometry();
        return widget->isVisible() &&
               screen.contains(QRect(widget->mapToGlobal(QPoint(0, 0)), widget->size()));
    }

    // Wholly inside its window: not cut by the window's edge.
    static bool insideWindow(const QWidget* widget)
    {
        const QWidget* window = widget->window();
        return widget->isVisible() &&
               window->rect().contains(QRect(widget->mapTo(window, QPoint(0, 0)), widget->size()));
    }

    // The window as the command line opens it: at --size's size where one is given (set
    // before the window is shown, as main does), or as large as the screen allows.
    static std::unique_ptr<ui::MainWindow> openWindow(const QSize& size)
    {
        auto window = std::make_unique<ui::MainWindow>(test::cpuWindowOptions());
        if (size.isValid())
            window->resize(size);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get()))
            return nullptr;
        return window;
    }

    // The sizes a laptop opens the window at, and the fewest lines the Kernel editor shows at
    // each: the window on this 1280x720 screen, and --size at both laptop sizes.
    struct LaptopSize
    {
        const char* name;
        QSize size;
        int lines;
    };
    static constexpr LaptopSize kLaptopSizes[] = {{"1280x720 screen", QSize(), 12},
                                                  {"--size 1280x720", QSize(1280, 720), 12},
                                                  {"--size 1366x768", QSize(1366, 768), 15}};

    static QString lesson(const char* name)
    {
        return QStringLiteral(WARPSCOPE_LESSON_DIR "/%1.scene.json").arg(name);
    }

private slots:
    // Each kernel a newcomer meets (the example, each lesson with its text above the editor,
    // a kernel with four sliders under it) leaves the editor lines enough to work in, and the
    // status bar in the window.
    void kernelEditorKeepsItsLines_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("lines");
        QTest::addColumn<QString>("scene");
        QTest::addColumn<QString>("source");
        const QString sliders = "// @param float a = 1 [0, 2]\n// @param float b = 1 [0, 2]\n"
                                "// @param float c = 1 [0, 2]\n// @param int d = 1 [1, 8]\n"
                                "__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)\n"
                                "{\n    const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                "    const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                                "    if (row < mesh.ny && col < mesh.nx)\n"
                                "        out.write(row, col, p.a * col + p.b * row + p.c * p.d);\n"
                                "}\n";
        for (const LaptopSize& laptop : kLaptopSizes) {
            const auto row = [&](const char* kernel) -> QTestData& {
                return QTest::addRow("%s, %s", kernel, laptop.name) << laptop.size << laptop.lines;
            };
            row("default kernel") << QString() << QString();
            for (const char* scene : {"coalescing", "bank-conflicts", "divergence"})
                row(scene) << lesson(scene) << QString();
            row("four sliders") << QString() << sliders;
        }
    }
    void kernelEditorKeepsItsLines()
    {
        QFETCH(QSize, size);
        QFETCH(int, lines);
        QFETCH(QString, scene);
        QFETCH(QString, source);
        auto window = openWindow(size);
        QVERIFY(window);
        const int height = window->height();
        ui::KernelWorkspace* workspace = window->kernelWorkspace();
        window->showKernel();
        if (!scene.isEmpty())
            QCOMPARE(window->openScene(scene), QString());
        if (!source.isEmpty()) {
            workspace->setSource(source, gpu::KernelShape::WholeKernel);
            QTRY_VERIFY_WITH_TIMEOUT(workspace->findChild<QWidget*>("param_d"), 60000);
        }
        QTRY_VERIFY_WITH_TIMEOUT(!workspace->busy(), 120000);
        QTest::qWait(100); // the parameters' rows laid out
        auto* editor = workspace->findChild<QsciScintilla*>("kernelEditor");
        const auto shown = int(editor->SendScintilla(QsciScintilla::SCI_LINESONSCREEN));
        QVERIFY2(shown >= lines, qPrintable(QString("%1 lines of the kernel shown in a %2x%3 "
                                                    "window, the editor %4 px high")
                                                .arg(shown)
                                                .arg(window->width())
                                                .arg(window->height())
                                                .arg(editor->height())));
        QCOMPARE(window->height(), height);
        QVERIFY(insideWindow(window->statusBar()));
        QVERIFY(!window->timelinePanel()->lanesShown());
    }

    // The field (its colour bar at the view's right edge) and the periodogram keep everything
    // inside the window, and the window its size: the periodogram's plots asked for more
    // height than a 1280x720 screen has.
    void workspacesFitTheWindow_data()
    {
        QTest::addColumn<QSize>("size");
        for (const LaptopSize& laptop : kLaptopSizes)
            QTest::newRow(laptop.name) << laptop.size;
    }
    void workspacesFitTheWindow()
    {
        QFETCH(QSize, size);
        auto window = openWindow(size);
        QVERIFY(window);
        const int height = window->height();
        QVERIFY(insideWindow(window->fieldView()));
        QVERIFY(insideWindow(window->statusBar()));
        window->showPeriodogram();
        QVERIFY(QTest::qWaitFor([&] { return !window->periodogramWorkspace()->busy(); }, 30000));
        QTest::qWait(100); // the page's limits laid out
        QVERIFY2(window->height() <= height,
                 qPrintable(QString("%1 px tall on the periodogram, %2 px before")
                                .arg(window->height())
                                .arg(height)));
        QVERIFY(insideWindow(window->statusBar()));
        if (!size.isValid())
            QVERIFY(onScreen(window->statusBar()));
        QVERIFY(!window->timelinePanel()->lanesShown());
    }

    // The timeline's first height follows the size the window opens at, however it was set:
    // a laptop's height starts with the one-line header, a desktop's with the lanes.
    void timelineFollowsTheFirstSize_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("lanes");
        QTest::newRow("--size 1366x768") << QSize(1366, 768) << false;
        QTest::newRow("--size 1280x720") << QSize(1280, 720) << false;
        QTest::newRow("--size 1400x900") << QSize(1400, 900) << true;
    }
    void timelineFollowsTheFirstSize()
    {
        QFETCH(QSize, size);
        QFETCH(bool, lanes);
        auto window = openWindow(size);
        QVERIFY(window);
        QCOMPARE(window->timelinePanel()->lanesShown(), lanes);
    }

    // Opened on the Kernel workspace (--kernel, a lesson's scene), the field never starts: the
    // status bar says where the kernel runs instead of "Starting…" for ever.
    void kernelWindowSaysWhereItRuns()
    {
        ui::MainWindow window(test::cpuWindowOptions());
        window.showKernel();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ui::KernelWorkspace* workspace = window.kernelWorkspace();
        QTRY_VERIFY_WITH_TIMEOUT(workspace->view()->framesDrawn() > 0 && !workspace->busy(), 60000);
        const auto* backend = window.findChild<QLabel*>("backendLabel");
        QVERIFY(backend->isVisible());
        QTRY_VERIFY(backend->text().contains("kernel"));
    }

    // The streams lab's summary is longer than the status bar's room at 1280 px: it ends in
    // "…" a gap short of the permanent labels, not cut against "1000 x 1000 float32", and
    // the whole of it is the bar's tooltip.
    void aLongMessageStopsShortOfTheLabels()
    {
        auto window = openWindow(QSize());
        QVERIFY(window);
        QStatusBar* bar = window->statusBar();
        const auto* time = bar->findChild<QLabel*>("timeLabel");
        QTRY_VERIFY_WITH_TIMEOUT(time && !time->text().isEmpty(), 30000); // the field's labels
        ui::StreamsLabPanel* lab = window->streamsLabPanel();
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        window->showStreamsLab();
        lab->run();
        QVERIFY(finished.wait(120000));
        const QString summary = "Streams lab: " + finished.first().at(1).toString();
        QCOMPARE(bar->toolTip(), summary);
        const QString shown = bar->currentMessage();
        QVERIFY2(shown.endsWith(QChar(0x2026)), qPrintable(shown));
        const int textEnd = 6 + bar->fontMetrics().horizontalAdvance(shown);
        for (const QLabel* label : bar->findChildren<QLabel*>())
            if (label->isVisible() && !label->text().isEmpty())
                QVERIFY2(textEnd + 8 <= label->x(),
                         qPrintable(QString("'%1' ends at %2 px, '%3' starts at %4 px")
                                        .arg(shown)
                                        .arg(textEnd)
                                        .arg(label->text())
                                        .arg(label->x())));
    }

    // The field's panels say what is wrong in a red, and the precision hint in an orange,
    // that can be read on their grey (WCAG AA, 4.5:1), not the light red and orange they were.
    void panelErrorsAreReadable()
    {
        auto window = openWindow(QSize());
        QVERIFY(window);
        for (const char* name : {"errors", "computeError", "launchErrors", "precisionHint"}) {
            auto* label = window->findChild<QLabel*>(name);
            QVERIFY2(label, name);
            label->ensurePolished();
            const QColor text = label->palette().color(label->foregroundRole());
            const QColor grey = label->palette().color(QPalette::Window);
            QVERIFY2(test::contrast(text, grey) >= 4.5,
                     qPrintable(QString("%1: %2 on %3").arg(name, text.name(), grey.name())));
        }
    }

    void firstWindowFitsTheScreen()
    {
        ui::MainWindow window(test::cpuWindowOptions());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QRect screen = window.screen()->availableGeometry();
        QVERIFY2(screen.height() <= 768, "run under a laptop-sized X screen");
        QVERIFY2(screen.contains(window.frameGeometry()),
                 qPrintable(QString("window %1x%2 on a %3x%4 screen")
                                .arg(window.width())
                                .arg(window.height())
                                .arg(screen.width())
                                .arg(screen.height())));
        QVERIFY(onScreen(window.statusBar()));
    }

    // The picture taken as soon as the window is ready (as --screenshot does) shows the
    // status bar's labels whole, not the few pixels they had before their texts came.
    void thePictureShowsTheStatusBarWhole()
    {
        ui::MainWindow window(test::cpuWindowOptions());
        window.show();
        QVERIFY(QTest::qWaitFor([&] { return window.readyForPicture(); }, 30000));
        QApplication::processEvents();
        const QPixmap picture = window.picture();
        QCOMPARE(picture.size(), window.size());
        for (const QLabel* label : window.statusBar()->findChildren<QLabel*>())
            if (label->isVisible() && !label->text().isEmpty())
                QVERIFY2(label->width() >= label->sizeHint().width(),
                         qPrintable(QString("'%1' %2 px of %3")
                                        .arg(label->text())
                                        .arg(label->width())
                                        .arg(label->sizeHint().width())));
    }

    // A strip of lanes a sixth of the window high had its legend cut and its lanes' names
    // written over each other: the timeline starts as its row of buttons, all on the screen.
    void timelineStartsAsAOneLineHeader()
    {
        ui::MainWindow window(test::cpuWindowOptions());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const auto* dock = window.findChild<QDockWidget*>("timelineDock");
        QVERIFY(dock && dock->isVisible());
        ui::TimelinePanel* panel = window.timelinePanel();
        QVERIFY(!panel->lanesShown());
        QVERIFY(!panel->plot()->isVisible());
        const auto* lanes = panel->findChild<QToolButton*>("showLanes");
        QVERIFY(onScreen(lanes));
        QVERIFY(onScreen(panel->findChild<QPushButton*>("exportCsv")));
        // One line: the buttons' row and the panel's margins, nothing more.
        QVERIFY2(panel->height() <= 2 * lanes->height(),
                 qPrintable(QString("timeline %1 px, its buttons %2 px")
                                .arg(panel->height())
                                .arg(lanes->height())));
    }

    // Opened, every lane has a row its name fits in, and the legend is drawn whole.
    void openedLanesAreReadable()
    {
        ui::MainWindow window(test::cpuWindowOptions());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ui::TimelinePanel* panel = window.timelinePanel();
        // The field's first frames put spans on their lanes.
        QVERIFY(QTest::qWaitFor(
            [&] {
                panel->refresh();
                return panel->shown().lanes.size() >= 2;
            },
            30000));
        QTest::mouseClick(panel->findChild<QToolButton*>("showLanes"), Qt::LeftButton);
        QVERIFY(panel->lanesShown());
        QCustomPlot* plot = panel->plot();
        QTRY_VERIFY(plot->isVisible());
        QTest::qWait(300); // the dock resized and the plot laid out
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(onScreen(plot));
        QVERIFY2(panel->height() * 2 <= window.height(), "the workspace keeps half the window");

        // Each kind's entry whole, its name's full height, inside the plot.
        const int legendText = QFontMetrics(plot->legend->font()).height();
        QVERIFY(plot->legend->itemCount() > 0);
        for (int i = 0; i < plot->legend->itemCount(); ++i) {
            const QRect item = plot->legend->item(i)->rect();
            QVERIFY2(plot->rect().contains(item) && item.height() >= legendText,
                     qPrintable(QString("legend entry %1 px high, its name %2 px")
                                    .arg(item.height())
                                    .arg(legendText)));
        }
        const int nameHeight = QFontMetrics(plot->yAxis->tickLabelFont()).height();
        const double rowPixels =
            std::abs(plot->yAxis->coordToPixel(1.0) - plot->yAxis->coordToPixel(0.0));
        QVERIFY2(rowPixels >= nameHeight,
                 qPrintable(
                     QString("rows %1 px apart, names %2 px high").arg(rowPixels).arg(nameHeight)));
        // Closed again, it is one line again.
        panel->setLanesShown(false);
        QTRY_VERIFY(panel->height() <= 2 * panel->findChild<QToolButton*>("showLanes")->height());
    }
};

QTEST_MAIN(LaptopWindowTest)
#include "LaptopWindowTest.moc"
