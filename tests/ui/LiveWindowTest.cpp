#include "WindowTest.h"
#include "warpscope/gpu/UserKernel.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/KernelView.h"
#include "warpscope/ui/KernelWorkspace.h"
#include "warpscope/ui/MainWindow.h"
#include "warpscope/ui/NumberField.h"
#include "warpscope/ui/ParametersPanel.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/SpectrumView.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <Qsci/qsciscintilla.h>
#include <algorithm>
#include <cmath>
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
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeTests"); // never the user's own settings
    LiveWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "LiveWindowTest.moc"
