#include "WindowTest.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QApplication>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QStatusBar>
#include <QToolButton>
#include <qcustomplot.h>

namespace ui = warpscope::ui;
namespace test = warpscope::test;

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

private slots:
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
