#include "warpscope/scene/BatchResults.h"

#include "warpscope/scene/BatchSource.h"
#include "warpscope/ui/BatchResultsDialog.h"
#include "warpscope/ui/FoldView.h"
#include "warpscope/ui/MainWindow.h"
#include "warpscope/ui/PeriodogramWorkspace.h"

#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <qcustomplot.h>

using namespace warpscope;

// File > Open Batch Results as a person uses it: the table of a warpscope-batch run in the
// real main window, filtered, sorted, and an object chosen on the scatter, which opens its
// light curve on the periodogram.
class BatchResultsTest : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_results;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Three objects beside their light curves, as a folder run leaves them; one failed.
        const QString star = m_dir.filePath("star02.csv");
        QVERIFY(QFile::copy(WARPSCOPE_FIXTURE_DIR "/batch/files/star02.csv", star));
        std::vector<scene::BatchResult> rows(3);
        rows[0] = {"star01.csv", 80, false, {{1 / 3.7, 3.7, 0.79, 2e-23}}, {}};
        rows[1] = {"star02.csv", 150, false, {{1 / 11.2, 11.2, 0.84, 4e-55}}, {}};
        rows[2] = {"single.csv", 1, true, {}, {"A periodogram needs at least 3 points"}};
        m_results = m_dir.filePath("results.csv");
        QVERIFY(scene::writeResultsCsv(m_results.toStdString(), rows, 3));
    }

    void aResultsTableIsFilteredSortedAndOpensAnObject()
    {
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        ui::MainWindow window(options);
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QVERIFY(!window.openBatchResults(m_dir.filePath("missing.csv")).isEmpty());
        QCOMPARE(window.openBatchResults(m_results), QString());
        auto* dialog = window.findChild<ui::BatchResultsDialog*>();
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCOMPARE(dialog->shownRows(), 3);

        QTest::keyClicks(dialog->filter(), "failed");
        QCOMPARE(dialog->shownRows(), 1);
        dialog->filter()->clear();
        QCOMPARE(dialog->shownRows(), 3);

        // Sorted by power, highest first: star02 on top; the failed row has no power.
        dialog->table()->sortByColumn(4, Qt::DescendingOrder);
        QCOMPARE(dialog->table()->model()->index(0, 0).data().toString(), QString("star02.csv"));
        dialog->table()->sortByColumn(4, Qt::AscendingOrder); // empty cells last either way
        QCOMPARE(dialog->table()->model()->index(0, 0).data().toString(), QString("star01.csv"));
        QCOMPARE(dialog->table()->model()->index(2, 0).data().toString(), QString("single.csv"));

        // A click on star02's point selects its row and opens its light curve.
        QSignalSpy chosen(dialog, &ui::BatchResultsDialog::objectChosen);
        QPointF pixel;
        QVERIFY(!dialog->pointOf("single.csv", pixel)); // a failed object has no point
        QVERIFY(dialog->pointOf("star02.csv", pixel));
        QTest::mouseClick(dialog->scatter(), Qt::LeftButton, {}, pixel.toPoint());
        QCOMPARE(dialog->selectedId(), QString("star02.csv"));
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen.front().at(1).toString(), m_dir.filePath("star02.csv"));
        auto* periodogram = window.findChild<ui::PeriodogramWorkspace*>();
        QVERIFY(periodogram);
        QVERIFY(QTest::qWaitFor([&] { return periodogram->series().t.size() == 150u; }, 30000));

        // star01's light curve is not beside the results: its row is chosen, nothing opens.
        dialog->selectObject("star01.csv");
        QCOMPARE(dialog->selectedId(), QString("star01.csv"));
        QCOMPARE(chosen.size(), 2);
        QCOMPARE(chosen.back().at(1).toString(), QString());
        QCOMPARE(periodogram->series().t.size(), 150u);
    }

    // A false-alarm probability that underflowed to 0 reads "< 1e-300", and still sorts as the
    // smallest.
    void anUnderflowedFalseAlarmProbabilityIsNotShownAsZero()
    {
        std::vector<scene::BatchResult> rows(3);
        rows[0] = {"weak.csv", 80, false, {{0.5, 2.0, 0.3, 0.02}}, {}};
        rows[1] = {"strong.csv", 500, false, {{0.25, 4.0, 0.99, 0.0}}, {}};
        rows[2] = {"middle.csv", 200, false, {{0.2, 5.0, 0.8, 3e-12}}, {}};
        const QString results = m_dir.filePath("underflow.csv");
        QVERIFY(scene::writeResultsCsv(results.toStdString(), rows, 1));
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        ui::MainWindow window(options);
        QCOMPARE(window.openBatchResults(results), QString());
        auto* dialog = window.findChild<ui::BatchResultsDialog*>();
        QVERIFY(dialog);
        const QAbstractItemModel* model = dialog->table()->model();
        QCOMPARE(model->index(1, 5).data().toString(), QString("< 1e-300"));
        QCOMPARE(model->index(2, 5).data().toString(), QString("3e-12"));
        dialog->table()->sortByColumn(5, Qt::AscendingOrder);
        QCOMPARE(model->index(0, 0).data().toString(), QString("strong.csv"));
        QCOMPARE(model->index(1, 0).data().toString(), QString("middle.csv"));
        QCOMPARE(model->index(2, 0).data().toString(), QString("weak.csv"));
    }

    // A run over one long table (the fixture catalogue, CSV and FITS) records its source; an
    // object chosen in its results opens that object's rows, with the run's grid, and its
    // best period is astropy's (tests/fixtures/batch/expected.csv, on the same grid).
    void anObjectOfALongTableOpensItsRows_data()
    {
        QTest::addColumn<QString>("table");
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("points");
        QTest::addColumn<double>("bestFrequency");
        QTest::newRow("csv star04") << "catalogue.csv"
                                    << "star04" << 300 << 0.19824941647215738;
        QTest::newRow("fits star02") << "catalogue.fits"
                                     << "star02" << 150 << 0.08966322107369123;
        // gappy's rows with NaN flux are skipped as the batch skipped them: 87 of 90.
        QTest::newRow("csv gappy") << "catalogue.csv"
                                   << "gappy" << 87 << 0.38486162054018;
    }

    void anObjectOfALongTableOpensItsRows()
    {
        QFETCH(QString, table);
        QFETCH(QString, id);
        QFETCH(int, points);
        QFETCH(double, bestFrequency);
        // The batch's tests' grid (tests/app/batch_test.sh, generate_batch.py).
        scene::BatchSource source;
        source.input = WARPSCOPE_FIXTURE_DIR "/batch/" + table.toStdString();
        source.table = true;
        source.scene.gridMode = scene::GridMode::Linear;
        source.scene.fmin = 0.05;
        source.scene.fmax = 2.0;
        source.scene.count = 3000;
        const QString results = m_dir.filePath("table-" + table + ".csv");
        std::vector<scene::BatchResult> rows(1);
        rows[0] = {
            id.toStdString(), points, false, {{bestFrequency, 1 / bestFrequency, 0.8, 1e-20}}, {}};
        QVERIFY(scene::writeResultsCsv(results.toStdString(), rows, 3));
        QVERIFY(scene::writeBatchSource(results.toStdString(), source));

        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        ui::MainWindow window(options);
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.openBatchResults(results), QString());
        auto* dialog = window.findChild<ui::BatchResultsDialog*>();
        QVERIFY(dialog && dialog->source());
        QCOMPARE(dialog->source()->input, source.input);
        auto* periodogram = window.findChild<ui::PeriodogramWorkspace*>();
        QVERIFY(periodogram);
        dialog->selectObject(id);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return periodogram->shownObject() == id && !periodogram->busy() &&
                       !periodogram->peaks().empty();
            },
            30000));
        QCOMPARE(periodogram->series().t.size(), std::size_t(points));
        QCOMPARE(periodogram->grid().count, 3000LL);
        const double df = (2.0 - 0.05) / 2999;
        QVERIFY2(std::abs(periodogram->peaks().front().frequency - bestFrequency) < 0.5 * df,
                 qPrintable(QString::number(periodogram->peaks().front().frequency, 'g', 17)));
        // Folded at that peak, every point of the object drawn.
        QVERIFY(periodogram->foldPlot()->pointsGraph()->dataCount() >= points);
    }

    // A folder run whose results were written elsewhere: the object's file is found in the
    // run's input folder, and opens with the run's grid (astropy's best frequency, as above).
    void anObjectOfAFolderRunOpensFromTheInputFolder()
    {
        scene::BatchSource source;
        source.input = WARPSCOPE_FIXTURE_DIR "/batch/files";
        source.scene.gridMode = scene::GridMode::Linear;
        source.scene.fmin = 0.05;
        source.scene.fmax = 2.0;
        source.scene.count = 3000;
        const QString results = m_dir.filePath("folder-run.csv");
        std::vector<scene::BatchResult> rows(1);
        rows[0] = {"star05.csv", 120, false, {{0.5266, 1 / 0.5266, 0.8, 1e-38}}, {}};
        QVERIFY(scene::writeResultsCsv(results.toStdString(), rows, 3));
        QVERIFY(scene::writeBatchSource(results.toStdString(), source));

        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        ui::MainWindow window(options);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.openBatchResults(results), QString());
        auto* dialog = window.findChild<ui::BatchResultsDialog*>();
        QVERIFY(dialog);
        QSignalSpy chosen(dialog, &ui::BatchResultsDialog::objectChosen);
        dialog->selectObject("star05.csv");
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen.front().at(1).toString(),
                 QString(WARPSCOPE_FIXTURE_DIR "/batch/files/star05.csv"));
        auto* periodogram = window.findChild<ui::PeriodogramWorkspace*>();
        QVERIFY(QTest::qWaitFor(
            [&] {
                return periodogram->series().t.size() == 120u && !periodogram->busy() &&
                       !periodogram->peaks().empty();
            },
            30000));
        QVERIFY(periodogram->shownObject().isEmpty());
        const double df = (2.0 - 0.05) / 2999;
        QVERIFY(std::abs(periodogram->peaks().front().frequency - 0.5266088696232077) < 0.5 * df);
    }

    // An object at the end of a long table (a million rows) is read on a worker: the GUI
    // thread's timer keeps ticking while the table is read, and the object shows.
    void aLongTableIsReadOffTheGuiThread()
    {
        const QString table = m_dir.filePath("long.csv");
        {
            QFile out(table);
            QVERIFY(out.open(QIODevice::WriteOnly));
            QByteArray text = "id,time,flux,flux_err\n";
            for (int i = 0; i < 1000000; ++i)
                text += "filler" + QByteArray::number(i % 1000) + ',' + QByteArray::number(i) +
                        ",1.5,0.1\n";
            for (int i = 0; i < 50; ++i)
                text += "last," + QByteArray::number(i) + ',' +
                        QByteArray::number(std::sin(0.7 * i), 'g', 17) + ",0.1\n";
            QVERIFY(out.write(text) == text.size());
        }
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        ui::MainWindow window(options);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* periodogram = window.findChild<ui::PeriodogramWorkspace*>();
        QVERIFY(periodogram);
        // The longest the GUI thread went without its timer: the whole read, were it frozen.
        QElapsedTimer clock, sinceTick;
        qint64 longestGap = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout,
                [&] { longestGap = std::max(longestGap, sinceTick.restart()); });
        timer.start(5);
        clock.start();
        sinceTick.start();
        periodogram->openTableObject(table, {}, gpu::TimeFormat::Auto, "last");
        QVERIFY(QTest::qWaitFor([&] { return periodogram->shownObject() == "last"; }, 60000));
        const qint64 elapsed = clock.elapsed();
        QCOMPARE(periodogram->series().t.size(), 50u);
        // Another object of the same table: read from the index the first one left.
        periodogram->openTableObject(table, {}, gpu::TimeFormat::Auto, "filler7");
        QVERIFY(QTest::qWaitFor([&] { return periodogram->shownObject() == "filler7"; }, 60000));
        QCOMPARE(periodogram->series().t.size(), 1000u);
        QVERIFY2(
            longestGap < elapsed / 2,
            qPrintable(
                QString("the GUI thread stopped for %1 of %2 ms").arg(longestGap).arg(elapsed)));
    }

    // Results whose table is gone: choosing an object says so and leaves the workspace alone.
    void aMissingTableSaysSo()
    {
        scene::BatchSource source;
        source.input = m_dir.filePath("moved-away.csv").toStdString();
        source.table = true;
        const QString results = m_dir.filePath("orphan.csv");
        std::vector<scene::BatchResult> rows(1);
        rows[0] = {"star01", 80, false, {{0.27, 3.7, 0.79, 2e-23}}, {}};
        QVERIFY(scene::writeResultsCsv(results.toStdString(), rows, 3));
        QVERIFY(scene::writeBatchSource(results.toStdString(), source));

        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        ui::MainWindow window(options);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.openBatchResults(results), QString());
        auto* dialog = window.findChild<ui::BatchResultsDialog*>();
        QVERIFY(dialog);
        dialog->selectObject("star01");
        QVERIFY(window.statusBar()->currentMessage().contains("missing or was moved"));
        QVERIFY(window.findChild<ui::PeriodogramWorkspace*>()->shownObject().isEmpty());
    }
};

QTEST_MAIN(BatchResultsTest)
#include "BatchResultsTest.moc"
