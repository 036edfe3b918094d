#include "WindowTest.h"
#include "warpscope/gpu/UserKernel.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/KernelView.h"
#include "warpscope/ui/KernelWorkspace.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/MainWindow.h"
#include "warpscope/ui/NumberField.h"
#include "warpscope/ui/ParametersPanel.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/SpectrumView.h"

#include <QApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFontInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QToolTip>
#include <Qsci/qsciscintilla.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

using namespace warpscope;

namespace {

// The real window, shown, and what the X screen shows of it: the pixels a person sees
// (test::screenPixels). Nothing here asks a view to repaint.
class LiveWindow
{
public:
    explicit LiveWindow(QSize size)
        : m_window(std::make_unique<ui::MainWindow>(test::cpuWindowOptions()))
    {
        m_window->resize(size);
    }

    ui::MainWindow& window() { return *m_window; }

    bool show()
    {
        m_window->show();
        return QTest::qWaitForWindowExposed(m_window.get());
    }

    // Waits for `settled`, lets the frame reach the screen, and reads widget's pixels there.
    QImage pixelsWhen(QWidget* widget, const std::function<bool()>& settled)
    {
        return test::screenPixels(widget, settled);
    }

private:
    std::unique_ptr<ui::MainWindow> m_window;
};

bool greyish(QRgb c)
{
    const int hi = std::max({qRed(c), qGreen(c), qBlue(c)});
    const int lo = std::min({qRed(c), qGreen(c), qBlue(c)});
    return hi - lo < 20;
}

// Viridis from dark to light: its channels' sum grows along the map.
int lightness(QRgb c)
{
    return qRed(c) + qGreen(c) + qBlue(c);
}

// The heat map's pixels along row y, from the middle of the widget out to the map's edges
// (grey: the frame, the background or the axes' labels).
std::pair<int, int> heatRun(const QImage& image, int y)
{
    int left = image.width() / 2, right = left;
    if (greyish(image.pixel(left, y)))
        return {left, left};
    while (left > 0 && !greyish(image.pixel(left - 1, y)))
        --left;
    while (right + 1 < image.width() && !greyish(image.pixel(right + 1, y)))
        ++right;
    return {left, right + 1};
}

// The middle of the darkest pixels between [from, to) on row y.
double darkest(const QImage& image, int y, int from, int to)
{
    int least = 1 << 30;
    for (int x = from; x < to; ++x)
        least = std::min(least, lightness(image.pixel(x, y)));
    double sum = 0;
    int n = 0;
    for (int x = from; x < to; ++x)
        if (lightness(image.pixel(x, y)) <= least + 3) {
            sum += x;
            ++n;
        }
    return n > 0 ? sum / n : -1.0;
}

// How many colours the heat map shows along row y: a drawn field is a gradient, a blank
// frame one colour.
int coloursOnRow(const QImage& image, int y)
{
    const auto [from, to] = heatRun(image, y);
    std::set<QRgb> colours;
    for (int x = from; x < to; ++x)
        colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

// The live window as a person sees it, on the CPU backend under an X server: each view's
// picture reaches the screen after launch and after every change, with no zoom, pan or
// repaint to help it.
class LiveWindowTest : public QObject
{
    Q_OBJECT

private:
    static bool fieldSettled(ui::FieldView* view)
    {
        return view->frameSettled() && view->shownParams() == view->params();
    }

    // Why the field's heat map is not on screen along the row at a quarter of the view's
    // height (a drawn field is a gradient there; a blank frame has no heat map at all), or
    // an empty string.
    static QString fieldProblem(const QImage& image)
    {
        const int y = image.height() / 4;
        const auto [from, to] = heatRun(image, y);
        if (to - from <= image.width() / 4)
            return QString("no heat map: %1 px of it on the row").arg(to - from);
        if (coloursOnRow(image, y) <= 40)
            return "the heat map is one flat colour";
        return {};
    }

    // The settled field on screen after one more frame of it, asked for here, so that a test
    // of a change questions the change's frame alone.
    static QImage redrawn(LiveWindow& live, ui::FieldView* view)
    {
        live.pixelsWhen(view, [&] { return fieldSettled(view); });
        QSignalSpy swapped(view, &QOpenGLWidget::frameSwapped);
        view->update();
        if (!swapped.wait(5000))
            qWarning("no frame was drawn");
        return live.pixelsWhen(view, [] { return true; });
    }

    // A whole kernel whose thread writes its node (col + row) and prints one line, node (0, 0)'s
    // thread seven more: 32 x 8 nodes, 263 lines.
    static constexpr const char* kPrintingKernel =
        R"(__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= mesh.ny || col >= mesh.nx)
        return;
    out.write(row, col, float(col + row));
    printf("node %d,%d first\n", col, row);
    if (col == 0 && row == 0)
        for (int k = 0; k < 7; ++k)
            printf("node 0,0 again %d\n", k);
}
)";

    // The point of the Kernel view at the middle of node (col, row): the mesh fills the view,
    // latitude upwards.
    static QPoint nodeCentre(const QWidget* view, int col, int row, int nx, int ny)
    {
        return QPoint(int(std::lround(double(col) / (nx - 1) * (view->width() - 1))),
                      int(std::lround((1.0 - double(row) / (ny - 1)) * (view->height() - 1))));
    }

    static void typeInto(QDoubleSpinBox* box, const QString& text)
    {
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, text);
        QTest::keyClick(box, Qt::Key_Return);
    }

private slots:
    void theFieldIsDrawnAfterLaunch()
    {
        LiveWindow live({1000, 700});
        QVERIFY(live.show());
        ui::FieldView* view = live.window().fieldView();
        const QImage image = live.pixelsWhen(view, [&] { return fieldSettled(view); });
        QVERIFY2(fieldProblem(image).isEmpty(), qPrintable("after launch: " + fieldProblem(image)));
    }

    // The reference moves from the mesh's eastern edge (101°) to its middle (100°): the
    // nearest, darkest, point of a row moves with it to the middle of the heat map.
    void theFieldFollowsAReferenceTypedIntoTheTable()
    {
        LiveWindow live({1000, 700});
        QVERIFY(live.show());
        ui::FieldView* view = live.window().fieldView();
        const QImage before = redrawn(live, view);
        QVERIFY2(fieldProblem(before).isEmpty(),
                 qPrintable("before the change: " + fieldProblem(before)));
        const int y = before.height() / 4;
        const auto [from, to] = heatRun(before, y);
        QVERIFY2(darkest(before, y, from, to) > to - 0.1 * (to - from),
                 "a reference on the eastern edge: the darkest pixels at the right");

        auto* refs = live.window().parametersPanel()->findChild<QTableWidget*>("references");
        refs->setFocus();
        refs->setCurrentCell(0, 1);
        QTest::keyClick(refs, Qt::Key_F2);
        auto* editor = refs->viewport()->findChild<QLineEdit*>();
        QVERIFY2(editor, "F2 should open the cell's editor");
        QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(editor, "100");
        QTest::keyClick(editor, Qt::Key_Return);
        QTRY_COMPARE(view->params().references.at(0).lon, 100.0);

        const QImage after = live.pixelsWhen(view, [&] { return fieldSettled(view); });
        QVERIFY2(fieldProblem(after).isEmpty(),
                 qPrintable("after the reference moved: " + fieldProblem(after)));
        const auto [left, right] = heatRun(after, y);
        const double middle = 0.5 * (left + right);
        QVERIFY2(std::abs(darkest(after, y, left, right) - middle) < 0.05 * (right - left),
                 "a reference in the middle: the darkest pixels in the middle");
    }

    void theFieldFollowsRowsTypedIntoTheSpinBox()
    {
        LiveWindow live({1000, 700});
        QVERIFY(live.show());
        ui::FieldView* view = live.window().fieldView();
        const QImage before = redrawn(live, view);
        QVERIFY2(fieldProblem(before).isEmpty(),
                 qPrintable("before the change: " + fieldProblem(before)));

        auto* rows = live.window().parametersPanel()->findChild<ui::NumberField*>("ny");
        typeInto(rows->spinBox(), "1001");
        QTRY_COMPARE(view->params().ny, 1001);
        const QImage after = live.pixelsWhen(view, [&] { return fieldSettled(view); });
        QVERIFY2(fieldProblem(after).isEmpty(),
                 qPrintable("after the rows changed: " + fieldProblem(after)));
    }

    // The periodogram's line (blue) is on screen after launch, and moves with the period.
    void thePeriodogramIsDrawnAndFollowsThePeriod()
    {
        LiveWindow live({1200, 800});
        live.window().showPeriodogram();
        QVERIFY(live.show());
        ui::PeriodogramWorkspace* workspace = live.window().periodogramWorkspace();
        ui::SpectrumView* view = workspace->spectrumView();
        const auto settled = [&] { return !workspace->busy() && !workspace->peaks().empty(); };
        const QImage first = live.pixelsWhen(view, settled);
        const auto lineColumn = [](const QImage& image, int* count) {
            // The column with the most pixels of the line's colour: the highest peak's.
            int best = -1, most = 0;
            *count = 0;
            for (int x = 0; x < image.width(); ++x) {
                int n = 0;
                for (int y = 0; y < image.height(); ++y) {
                    const QRgb c = image.pixel(x, y);
                    n += std::abs(qRed(c) - 0x25) < 24 && std::abs(qGreen(c) - 0x63) < 24 &&
                         std::abs(qBlue(c) - 0xeb) < 24;
                }
                *count += n;
                if (n > most)
                    std::tie(best, most) = std::pair(x, n);
            }
            return best;
        };
        int count = 0;
        const int peakBefore = lineColumn(first, &count);
        QVERIFY2(count > 500, qPrintable(QString("%1 line pixels after launch").arg(count)));

        auto* period = workspace->findChild<QDoubleSpinBox*>("period");
        const double before = workspace->peaks().front().frequency;
        typeInto(period, "5.1");
        QTRY_VERIFY_WITH_TIMEOUT(!workspace->busy() && !workspace->peaks().empty() &&
                                     workspace->peaks().front().frequency != before,
                                 30000);
        const QImage second = live.pixelsWhen(view, settled);
        const int peakAfter = lineColumn(second, &count);
        QVERIFY2(count > 500, qPrintable(QString("%1 line pixels after the change").arg(count)));
        // The highest peak moves from 1/7.3 to 1/5.1 cycles per unit time: to the right.
        QVERIFY2(
            peakAfter > peakBefore,
            qPrintable(QString("the peak's column %1, before %2").arg(peakAfter).arg(peakBefore)));
    }

    // The Kernel view's picture is on screen after the first run and after a typed kernel:
    // longitude rises to the east, latitude to the north (viridis: dark to light).
    void theKernelViewIsDrawnAndFollowsTheKernel()
    {
        if (gpu::hostCompiler().empty())
            QSKIP("no C++ compiler for the CPU simulator");
        LiveWindow live({1200, 800});
        live.window().showKernel();
        QVERIFY(live.show());
        ui::KernelWorkspace* workspace = live.window().kernelWorkspace();
        ui::KernelView* view = workspace->view();
        // A receiver that uses the view's GL context, as the window's status refresh uses the
        // field's: the picture must not depend on what receivers do.
        QObject::connect(view, &ui::KernelView::ran, view, [view] {
            view->makeCurrent();
            view->doneCurrent();
        });
        const auto drawnAfter = [&](int frames) {
            return [=] { return !workspace->busy() && view->framesDrawn() > frames; };
        };
        const auto gradient = [](const QImage& image, bool eastward) {
            const QPoint low = eastward ? QPoint(4, image.height() / 2)
                                        : QPoint(image.width() / 2, image.height() - 5);
            const QPoint high = eastward ? QPoint(image.width() - 5, image.height() / 2)
                                         : QPoint(image.width() / 2, 4);
            const QRgb dark = image.pixel(low), light = image.pixel(high);
            // Viridis' ends: (68, 1, 84) and (253, 231, 37).
            return std::abs(qRed(dark) - 68) + std::abs(qGreen(dark) - 1) +
                           std::abs(qBlue(dark) - 84) <
                       30 &&
                   std::abs(qRed(light) - 253) + std::abs(qGreen(light) - 231) +
                           std::abs(qBlue(light) - 37) <
                       30;
        };
        const QImage first = live.pixelsWhen(view, drawnAfter(0));
        std::set<QRgb> colours;
        for (int x = 0; x < first.width(); ++x)
            colours.insert(first.pixel(x, first.height() / 2));
        QVERIFY2(colours.size() > 40, "the first run's picture should be on screen");

        auto* editor = workspace->findChild<QsciScintilla*>("kernelEditor");
        const auto type = [&](const QString& code) {
            editor->setFocus();
            editor->selectAll();
            QTest::keyClick(editor, Qt::Key_Delete);
            QTest::keyClicks(editor, code);
            QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
        };
        int frames = view->framesDrawn();
        type("return float(lon);");
        QImage image = live.pixelsWhen(view, drawnAfter(frames));
        QVERIFY2(gradient(image, true), "longitude should rise from west to east");
        frames = view->framesDrawn();
        type("return float(lat);");
        image = live.pixelsWhen(view, drawnAfter(frames));
        QVERIFY2(gradient(image, false), "latitude should rise from south to north");
    }

    void printfIsListedByThreadAndHoveringANodeShowsItsThreadsLines_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    // A printing kernel on the simulator with the Launch tab's teaching kernel: the Messages
    // tab lists each line with its block and thread in monospaced columns, and hovering a node
    // shows the lines of the thread that wrote it, the first five and how many more. With
    // WARPSCOPE_SCREENSHOTS naming a folder, the screen with the hover is saved there.
    void printfIsListedByThreadAndHoveringANodeShowsItsThreadsLines()
    {
        if (gpu::hostCompiler().empty())
            QSKIP("no C++ compiler for the CPU simulator");
        QFETCH(QSize, size);
        LiveWindow live(size);
        gpu::DistanceParams mesh = live.window().fieldView()->params();
        mesh.nx = 32;
        mesh.ny = 8;
        live.window().setParams(mesh);
        // Blocks of 2 x 4 threads, 16 x 2 of them: block indices of one and two digits.
        live.window().launchPanel()->chooseTeaching({{2, 4, 1}, {16, 2, 1}, 0}, false,
                                                    render::Overlay::Distance);
        live.window().showKernel();
        QVERIFY(live.show());
        ui::KernelWorkspace* workspace = live.window().kernelWorkspace();
        ui::KernelView* view = workspace->view();
        QTRY_VERIFY(view->teaching() && view->launch().grid.x == 16);
        const int frames = view->framesDrawn();
        workspace->setSource(kPrintingKernel, gpu::KernelShape::WholeKernel);
        const QString header = "The kernel printed 263 line(s), each with the block and thread "
                               "that printed it";
        QTRY_VERIFY2_WITH_TIMEOUT(view->framesDrawn() > frames && !workspace->busy() &&
                                      workspace->messages().contains(header),
                                  qPrintable(workspace->messages().mid(0, 3).join('\n')), 60000);
        QVERIFY2(view->lastProblem().isEmpty(), qPrintable(view->lastProblem()));

        // Each printed line under a heading row: block, thread and text in columns.
        const QStringList messages = workspace->messages();
        const QRegularExpression printed(
            R"(^(\(\d+,\d+,\d+\) *)(\(\d+,\d+,\d+\) *)(node \d+,\d+ .*)$)");
        QStringList rows = messages.filter(printed);
        QCOMPARE(rows.size(), 263);
        const QRegularExpression heading("^(blockIdx *)(threadIdx *)printed$");
        const QRegularExpressionMatch columns = heading.match(messages.at(1));
        QVERIFY2(columns.hasMatch(), qPrintable(messages.mid(0, 3).join('\n')));
        for (const QString& row : rows) {
            const QRegularExpressionMatch m = printed.match(row);
            QCOMPARE(m.capturedStart(2), columns.capturedStart(2));
            QCOMPARE(m.capturedStart(3), columns.capturedEnd(2));
        }
        // Node (21, 5) is thread (1, 1) of block (10, 1).
        QVERIFY2(
            rows.filter(QRegularExpression(R"(^\(10,1,0\) +\(1,1,0\) +node 21,5 first$)")).size() ==
                1,
            qPrintable(rows.mid(0, 5).join('\n')));
        auto* list = workspace->findChild<QListWidget*>("kernelMessages");
        for (int i = 0; i < list->count(); ++i)
            if (const QString text = list->item(i)->text();
                printed.match(text).hasMatch() || heading.match(text).hasMatch())
                QVERIFY2(QFontInfo(list->item(i)->font()).fixedPitch(), qPrintable(text));

        // Hovering node (21, 5), then node (0, 0), whose thread printed eight lines.
        QTest::mouseMove(view, nodeCentre(view, 21, 5, mesh.nx, mesh.ny));
        QTRY_VERIFY(QToolTip::isVisible() && QToolTip::text().contains("node 21,5 first"));
        QCOMPARE(view->printsAt(nodeCentre(view, 21, 5, mesh.nx, mesh.ny)),
                 QString("printf of this thread:\n(10,1,0)  (1,1,0)  node 21,5 first"));
        const QPoint origin = nodeCentre(view, 0, 0, mesh.nx, mesh.ny);
        QTest::mouseMove(view, origin);
        QTRY_VERIFY(QToolTip::isVisible() && QToolTip::text().contains("node 0,0 again 3"));
        QCOMPARE(view->printsAt(origin), QString("printf of this thread:\n"
                                                 "(0,0,0)  (0,0,0)  node 0,0 first\n"
                                                 "(0,0,0)  (0,0,0)  node 0,0 again 0\n"
                                                 "(0,0,0)  (0,0,0)  node 0,0 again 1\n"
                                                 "(0,0,0)  (0,0,0)  node 0,0 again 2\n"
                                                 "(0,0,0)  (0,0,0)  node 0,0 again 3\n"
                                                 "... and 3 more"));
        QVERIFY(!QToolTip::text().contains("again 4"));
        if (const char* folder = std::getenv("WARPSCOPE_SCREENSHOTS")) {
            QTest::qWait(500); // the tooltip's new text, drawn and flushed to the X server
            const QRect frame = live.window().frameGeometry();
            const QString path = QDir(folder).filePath(
                QString("cpu-kernel-printf-%1x%2.png").arg(size.width()).arg(size.height()));
            QVERIFY2(live.window()
                         .screen()
                         ->grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
                         .save(path),
                     qPrintable(path));
        }

        // Four lines a thread, 1024 in all: the run keeps 1000, and each node's hover shows
        // the kept lines of its thread, or says that none were kept.
        int frames4 = view->framesDrawn();
        workspace->setSource(QString(kPrintingKernel)
                                 .replace("printf(\"node %d,%d first\\n\", col, row);",
                                          "for (int k = 0; k < 4; ++k) printf(\"node %d,%d line "
                                          "%d\\n\", col, row, k);")
                                 .replace("k < 7", "k < 0"),
                             gpu::KernelShape::WholeKernel);
        QTRY_VERIFY2_WITH_TIMEOUT(
            view->framesDrawn() > frames4 && !workspace->busy() &&
                workspace->messages().contains("The kernel printed 1024 lines; the first 1000 "
                                               "are kept, each with the block and thread that "
                                               "printed it"),
            qPrintable(workspace->messages().mid(0, 3).join('\n')), 60000);
        int keptRows = 0;
        for (int row = 0; row < mesh.ny; ++row)
            for (int col = 0; col < mesh.nx; ++col) {
                const QStringList hover =
                    view->printsAt(nodeCentre(view, col, row, mesh.nx, mesh.ny)).split('\n');
                if (hover == QStringList{"printf: none of this thread's lines are among the "
                                         "run's first 1000, the ones kept"})
                    continue;
                QVERIFY2(hover.size() >= 3 && hover.first() == "printf of this thread:" &&
                             hover.last() == "(the run's lines past its first 1000 were not "
                                             "kept)",
                         qPrintable(hover.join('\n')));
                keptRows += int(hover.size()) - 2;
            }
        QCOMPARE(keptRows, 1000);

        // Without the teaching kernel no record names a node's thread; the hover says so.
        const int recorded = view->framesDrawn();
        live.window().launchPanel()->setSettings({false, {{2, 4, 1}, {16, 2, 1}, 0}});
        QTRY_VERIFY_WITH_TIMEOUT(!view->teaching() && view->framesDrawn() > recorded, 60000);
        QTRY_COMPARE(view->printsAt(origin),
                     QString("printf: choose the Launch tab's teaching kernel to see the lines "
                             "of the thread that wrote this node"));
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeTests"); // never the user's own settings
    LiveWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "LiveWindowTest.moc"
