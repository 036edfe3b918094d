#include "WindowTest.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QStatusBar>

namespace ui = warpscope::ui;
namespace test = warpscope::test;

// The first window on a laptop's screen (the test runs under a 1280x720 X screen): everything
// a person needs is on the screen, and the timeline leaves the workspace most of the height.
class LaptopWindowTest : public QObject
{
    Q_OBJECT

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
        const QStatusBar* status = window.statusBar();
        QVERIFY(status->isVisible());
        QVERIFY(screen.contains(QRect(status->mapToGlobal(QPoint(0, 0)), status->size())));
    }

    void timelineStartsAsAStrip()
    {
        ui::MainWindow window(test::cpuWindowOptions());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const auto* dock = window.findChild<QDockWidget*>("timelineDock");
        QVERIFY(dock && dock->isVisible());
        QVERIFY2(
            dock->height() * 4 <= window.height(),
            qPrintable(QString("timeline %1 of %2 px").arg(dock->height()).arg(window.height())));
    }
};

QTEST_MAIN(LaptopWindowTest)
#include "LaptopWindowTest.moc"
