#include "WindowTest.h"
#include "warpscope/scene/FieldScene.h"
#include "warpscope/ui/DevicePanel.h"
#include "warpscope/ui/FoldView.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/SpectrumView.h"
#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/SweepDialog.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QUndoStack>
#include <cmath>
#include <numbers>
#include <qcustomplot.h>
#include <random>

using namespace warpscope;
using test::differingPixels;

// The streams lab in the real main window: its runs, its sweep and its spans in the
// timeline. Runs under Xvfb (or any X server) with the CPU backend.
class StreamsLabWorkspaceTest : public test::WindowTest
{
    Q_OBJECT

private slots:
    void init() { QVERIFY(openWindow()); }
    void cleanup() { closeWindow(); }

    void streamsLabRunsAndItsStepsShowInTheTimeline()
    {
        m_window->showStreamsLab();
        ui::StreamsLabPanel* lab = m_window->streamsLabPanel();
        QLineEdit* length = lab->lengthField();
        length->setFocus();
        length->selectAll();
        QTest::keyClicks(length, "200000");
        lab->arraysField()->setValue(4);
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        QTest::mouseClick(lab->findChild<QPushButton*>("labCompare"), Qt::LeftButton);
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.front().at(0).toBool(), true);
        QVERIFY2(lab->resultText().contains("every array sums to 1"),
                 qPrintable(lab->resultText()));
        QVERIFY2(lab->resultText().contains("faster"), qPrintable(lab->resultText()));
        ui::TimelinePanel* timeline = m_window->timelinePanel();
        timeline->refresh();
        int arrays = 0;
        for (const gpu::Span& s : timeline->shown().spans)
            arrays += s.name.rfind("normalise array", 0) == 0;
        QCOMPARE(arrays, 8); // 4 arrays, twice
    }

    // The lab's chart: the same data split over 1..16 streams, one point per k, each run
    // checked, the progress bar counting the k done; on the CPU there are no copies, so no
    // floor is drawn and the legend says why.
    void streamsLabSweepChartsEveryStreamCount()
    {
        m_window->showStreamsLab();
        ui::StreamsLabPanel* lab = m_window->streamsLabPanel();
        lab->lengthField()->setText("40000");
        lab->arraysField()->setValue(4);
        QCustomPlot* chart = lab->sweepChart();
        QVERIFY(!chart->isVisible());
        QProgressBar* progress = lab->findChild<QProgressBar*>();
        QVERIFY(progress);
        QSignalSpy steps(progress, &QProgressBar::valueChanged);
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        QTest::mouseClick(lab->findChild<QPushButton*>("labSweep"), Qt::LeftButton);
        QVERIFY(!lab->findChild<QPushButton*>("labRun")->isEnabled()); // until it ends
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.front().at(0).toBool(), qPrintable(lab->resultText()));
        QVERIFY(chart->isVisible());
        QCOMPARE(chart->graph(0)->dataCount(), ui::StreamsLabPanel::kSweepStreams);
        for (int k = 0; k < chart->graph(0)->dataCount(); ++k) {
            QCOMPARE(chart->graph(0)->data()->at(k)->key, double(k + 1));
            QVERIFY(chart->graph(0)->data()->at(k)->value > 0.0);
        }
        QCOMPARE(steps.last().at(0).toInt(), ui::StreamsLabPanel::kSweepStreams);
        QCOMPARE(chart->graph(1)->dataCount(), 0);
        QVERIFY2(chart->graph(1)->name().contains("needs a GPU"),
                 qPrintable(chart->graph(1)->name()));
        QVERIFY2(lab->resultText().contains("every array summed to 1"),
                 qPrintable(lab->resultText()));
        // A bad length is refused at the field, as for a run, and the chart stays.
        lab->lengthField()->setText("abc");
        QSignalSpy refused(lab, &ui::StreamsLabPanel::finished);
        QTest::mouseClick(lab->findChild<QPushButton*>("labSweep"), Qt::LeftButton);
        QCOMPARE(refused.size(), 1);
        QCOMPARE(refused.front().at(0).toBool(), false);
        QVERIFY(!lab->running());
        lab->lengthField()->setText("40000");
    }

    void badStreamsLabSizesAreExplainedAtTheField()
    {
        ui::StreamsLabPanel* lab = m_window->streamsLabPanel();
        QLineEdit* length = lab->lengthField();
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        for (const char* bad : {"abc", "2.5", "-3", "1e30"}) {
            length->setFocus();
            length->selectAll();
            QTest::keyClicks(length, bad);
            QTest::mouseClick(lab->findChild<QPushButton*>("labRun"), Qt::LeftButton);
            QVERIFY2(length->styleSheet().contains("border"), bad);
            QVERIFY2(lab->resultText().contains("length"), qPrintable(lab->resultText()));
            QCOMPARE(finished.takeLast().at(0).toBool(), false);
        }
        // Valid on its own, but 64 arrays of 2^32 values need 2 TiB of host memory.
        length->selectAll();
        QTest::keyClicks(length, QString::number(gpu::kStreamsLabMaxLength));
        lab->arraysField()->setValue(gpu::kStreamsLabMaxArrays);
        QTest::mouseClick(lab->findChild<QPushButton*>("labRun"), Qt::LeftButton);
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.front().at(0).toBool(), false);
        QVERIFY2(lab->resultText().contains("host memory"), qPrintable(lab->resultText()));
        QVERIFY(lab->arraysField()->styleSheet().contains("border"));
        QVERIFY(!lab->running());
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeTests"); // never the user's own settings
    StreamsLabWorkspaceTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "StreamsLabWorkspaceTest.moc"
