#include "WindowTest.h"
#include "periodogram/PeriodogramMarks.h"
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
#include <QToolButton>
#include <QToolTip>
#include <QUndoStack>
#include <cmath>
#include <fitsio.h>
#include <numbers>
#include <qcustomplot.h>
#include <random>

using namespace warpscope;
using test::differingPixels;

// The periodogram workspace in the real main window: its synthetic series and files, its
// controls, plots, exports and undo steps. Runs under Xvfb (or any X server) with the CPU
// backend.
class PeriodogramWorkspaceTest : public test::WindowTest
{
    Q_OBJECT

private:
    // Recomputes the periodogram as a person holding the arrow keys on its Points field does.
    void recomputePeriodogram(int times)
    {
        QSpinBox* points = periodogramPoints();
        QVERIFY(points);
        points->setFocus();
        for (int i = 0; i < times; ++i) {
            QTest::keyClick(points, i % 2 ? Qt::Key_Down : Qt::Key_Up);
            QVERIFY(waitForPeriodogram());
        }
    }

    // Writes a t,y[,dy] file into dir and opens it on the periodogram.
    void openRows(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
    {
        const QString path = dir.filePath(name);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        periodogram()->openFile(path);
        QVERIFY(waitForPeriodogram());
    }

    // Writes a FITS light curve with cfitsio: a LIGHTCURVE table of TIME (days) and a value
    // column named name whose TUNIT is unit, 300 points of a 2.5-day dip; opens it.
    void openFits(const QTemporaryDir& dir, const char* name, const char* unit)
    {
        const std::string path = dir.filePath(QString(name) + ".fits").toStdString();
        fitsfile* file = nullptr;
        int status = 0;
        const char* names[] = {"TIME", name};
        const char* forms[] = {"D", "D"};
        const char* units[] = {"d", unit};
        fits_create_file(&file, path.c_str(), &status);
        fits_create_tbl(file, BINARY_TBL, 0, 2, const_cast<char**>(names),
                        const_cast<char**>(forms), const_cast<char**>(units), "LIGHTCURVE",
                        &status);
        std::vector<double> t, y;
        for (int i = 0; i < 300; ++i) { // period 2.5, one point in five dips
            t.push_back(i * 0.37);
            y.push_back(i % 5 == 0 ? 9.0 : 10.0);
        }
        fits_write_col(file, TDOUBLE, 1, 1, 1, LONGLONG(t.size()), t.data(), &status);
        fits_write_col(file, TDOUBLE, 2, 1, 1, LONGLONG(y.size()), y.data(), &status);
        fits_close_file(file, &status);
        QCOMPARE(status, 0);
        periodogram()->openFile(QString::fromStdString(path));
        QVERIFY(waitForPeriodogram());
    }

    // Chooses a time format in the workspace's picker as a person does, and waits for the
    // reload and its periodogram.
    void chooseTimeFormat(gpu::TimeFormat format)
    {
        auto* box = periodogram()->findChild<QComboBox*>("timeFormat");
        QVERIFY(box->isEnabled());
        const int index = box->findData(int(format));
        QVERIFY(index >= 0);
        box->setCurrentIndex(index);
        emit box->activated(index);
        QVERIFY(waitForPeriodogram());
    }

private slots:
    void init() { QVERIFY(openWindow()); }
    void cleanup() { closeWindow(); }

    // The periodogram never begins a frame (the field, hidden, does not draw), yet its spans
    // go with the frames kept like the field's.
    void periodogramWorkKeepsTheTimelineBounded()
    {
        m_window->timelinePanel()->setKeptFrames(1);
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        recomputePeriodogram(200); // three spans or more each
        const std::size_t kept = m_window->timeline()->snapshot().spans.size();
        QVERIFY2(kept < 200, qPrintable(QString::number(kept)));
    }

    // Every change is an undo step holding the controls; hours of changes must not pile up.
    void periodogramUndoIsLimited()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QSpinBox* points = periodogramPoints();
        QVERIFY(points);
        for (int i = 0; i < 1100; ++i)
            points->setValue(points->value() + (i % 2 ? -1 : 2));
        QVERIFY(waitForPeriodogram());
        const QUndoStack* undo = periodogram()->undoStack();
        QVERIFY2(undo->count() <= 1000, qPrintable(QString::number(undo->count())));
        QVERIFY(undo->canUndo());
    }

    // The default scene finds the synthetic sinusoid, gives its false-alarm probability and
    // folds the data at it.
    void periodogramFindsTheSyntheticSignal()
    {
        m_window->resize(1600, 1100); // room for the plot to resolve its peaks
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->spectrum(), qPrintable(periodogram()->errorText()));
        QVERIFY(!periodogram()->peaks().empty());
        QVERIFY(std::abs(1.0 / periodogram()->peaks()[0].frequency - 7.3) < 0.1);
        auto* fap = periodogram()->findChild<QLabel*>("falseAlarm");
        QVERIFY2(fap->text().contains("false-alarm probability"), qPrintable(fap->text()));
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        QVERIFY(table->rowCount() >= 2);
        // Up to 20 peaks, found where the periodogram lives.
        auto* count = periodogram()->findChild<QSpinBox*>("peakCount");
        count->setValue(20);
        QCOMPARE(table->rowCount(), 20);
        QCOMPARE(periodogram()->peaks().size(), std::size_t(20));
        count->setValue(10);
        QCOMPARE(table->rowCount(), 10);
        table->setCurrentCell(1, 0);
        const QString period = table->item(1, 1)->text();
        QVERIFY2(periodogram()->foldPlot()->xAxis->label().contains(period.left(5)),
                 qPrintable(periodogram()->foldPlot()->xAxis->label()));
        // Clicking the highest peak on the plot folds at it again.
        ui::SpectrumView* view = periodogram()->spectrumView();
        const gpu::Peak& top = periodogram()->peaks()[0];
        const QPoint at(int(view->xPixel(top.frequency)), int(view->yPixel(top.power)));
        QTest::mouseClick(view, Qt::LeftButton, {}, at);
        QCOMPARE(table->currentRow(), 0);
        // Hovering the peak reads its power back from the line.
        // Sent straight to the view: moving the real pointer would race its own events.
        QMouseEvent move(QEvent::MouseMove, QPointF(at), view->mapToGlobal(QPointF(at)),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(view, &move);
        view->grabFramebuffer(); // paints
        QVERIFY2(view->readout().contains("power"), qPrintable(view->readout()));
        QVERIFY2(view->readout().contains(QString::number(top.power, 'g', 3).left(4)),
                 qPrintable(view->readout() + " vs " + QString::number(top.power)));
    }

    // An eclipsing binary's strongest peak is often half its period: the fold doubles or
    // halves the selected peak's period on a press, and a newly selected peak starts at its own.
    void foldPeriodDoublesAndHalves()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        QVERIFY(table->rowCount() >= 2);
        table->setCurrentCell(0, 0);
        // The fold is at the period the list gives: the peak refined (about 7.3 days).
        const double period = table->item(0, 1)->text().section(' ', 0, 0).toDouble();
        QVERIFY2(std::abs(period - 7.3) < 0.05, qPrintable(table->item(0, 1)->text()));
        auto* twice = periodogram()->findChild<QToolButton*>("foldDouble");
        auto* half = periodogram()->findChild<QToolButton*>("foldHalve");
        QVERIFY(twice && half && twice->isVisible());
        ui::FoldView* fold = periodogram()->foldPlot();
        const auto shows = [&](double p) {
            return fold->xAxis->label().contains(QString::number(p, 'g', 6).left(4));
        };
        QVERIFY2(shows(period), qPrintable(fold->xAxis->label()));
        QTest::mouseClick(twice, Qt::LeftButton);
        QVERIFY2(shows(2 * period), qPrintable(fold->xAxis->label()));
        QVERIFY2(fold->caption().contains(QString::fromUtf8("2\u00d7 the peak's")),
                 qPrintable(fold->caption()));
        QTest::mouseClick(half, Qt::LeftButton);
        QTest::mouseClick(half, Qt::LeftButton);
        QVERIFY2(shows(0.5 * period), qPrintable(fold->xAxis->label()));
        QVERIFY2(fold->caption().contains("1/2 the peak's"), qPrintable(fold->caption()));
        // Halving stops at an eighth.
        for (int i = 0; i < 5; ++i)
            half->click();
        QVERIFY(!half->isEnabled());
        table->setCurrentCell(1, 0);
        table->setCurrentCell(0, 0);
        QVERIFY2(shows(period), qPrintable(fold->xAxis->label()));
        QVERIFY(half->isEnabled());
    }

    // A TESS-like light curve: a spotted star (4.217 d) in noise over 27 days at a 2-minute
    // cadence, the times written with six decimals as a text export has them. The automatic
    // grid stops at the cadence's Nyquist frequency, 360 cycles a day; the view opens on where
    // the power is, the peak well inside the plot with a few peak widths beyond it, says so,
    // and a double click shows the whole grid.
    void aFastCadenceOpensWhereThePowerIs()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        std::mt19937 rng(17);
        std::normal_distribution<double> noise(0.0, 0.5);
        QByteArray rows = "t,y\n";
        for (int i = 0; i < 27 * 720; ++i) {
            const double t = 1468.27 + i / 720.0;
            rows += QString("%1,%2\n")
                        .arg(t, 0, 'f', 6)
                        .arg(std::sin(2.0 * std::numbers::pi * t / 4.217) + noise(rng), 0, 'g', 8)
                        .toUtf8();
        }
        openRows(dir, "spotted.csv", rows);
        const auto spectrum = periodogram()->spectrum();
        QVERIFY(spectrum);
        ui::SpectrumView* view = periodogram()->spectrumView();
        const gpu::FrequencyGrid& g = spectrum->grid();
        QVERIFY2(std::abs(g.fmax() - 360.0) < 0.01, qPrintable(QString::number(g.fmax())));
        const double peak = periodogram()->peaks()[0].frequency;
        QVERIFY2(std::abs(1.0 / peak - 4.217) < 0.1, qPrintable(QString::number(1.0 / peak)));
        QVERIFY(view->openedZoomed());
        QVERIFY2(view->xTitle().contains("double click or Home shows all, to 360"),
                 qPrintable(view->xTitle()));
        QVERIFY2(view->toolTip().contains("double click or Home: the whole grid"),
                 qPrintable(view->toolTip()));
        // The two false-alarm levels lie a pixel apart near zero: one label names both.
        periodogram()->grab();
        QCOMPARE(periodogram()->paintedLevelLabels(), QStringList{"FAP 1 %, 0.1 %"});
        const auto [lo, hi] = view->xRange();
        QCOMPARE(lo, g.fmin);
        const double width = 1.0 / 27.0; // a peak's width: 1 / the baseline
        QVERIFY2(hi >= peak + 3.0 * width && hi < 1.0, qPrintable(QString::number(hi)));
        // Not against either edge: between 40 % and 80 % of the way across.
        const double across = (peak - lo) / (hi - lo);
        QVERIFY2(across > 0.4 && across < 0.8, qPrintable(QString::number(across)));
        const QPoint centre(view->width() / 2, view->height() / 2);
        QTest::mouseDClick(view, Qt::LeftButton, {}, centre);
        QVERIFY(!view->openedZoomed());
        QCOMPARE(view->xRange().second, g.fmax());
        QCOMPARE(view->xTitle(), view->xLabel());
    }

    void periodogramOptionsChangeThePicture()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        const QImage before = periodogram()->spectrumView()->grabFramebuffer();
        auto* normalization = periodogram()->findChild<QComboBox*>("normalization");
        normalization->setCurrentIndex(3); // psd
        QVERIFY(waitForPeriodogram());
        const QImage after = periodogram()->spectrumView()->grabFramebuffer();
        QVERIFY(differingPixels(before, after) > 100);
        // A logarithmic period axis redraws the same spectrum, without recomputing it.
        const auto spectrum = periodogram()->spectrum();
        periodogram()->findChild<QComboBox*>("xAxis")->setCurrentIndex(1);
        periodogram()->findChild<QCheckBox*>("logX")->setChecked(true);
        ui::SpectrumView* view = periodogram()->spectrumView();
        const QImage period = view->grabFramebuffer();
        QVERIFY(differingPixels(after, period) > 100);
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
        QCOMPARE(periodogram()->spectrum(), spectrum);
        const gpu::FrequencyGrid& g = spectrum->grid();
        QCOMPARE(view->xRange().first, 1.0 / g.fmax());
        QCOMPARE(view->xRange().second, 1.0 / g.fmin);
        // The highest peak stays where the period axis puts it.
        const gpu::Peak top = periodogram()->peaks().at(0);
        const double x = view->xPixel(top.frequency);
        QVERIFY(x > 0 && x < view->width());
        periodogram()->findChild<QCheckBox*>("logX")->setChecked(false);
        periodogram()->findChild<QComboBox*>("xAxis")->setCurrentIndex(0);
    }

    // A million frequencies across a few hundred pixels: the line comes from the GL vertex
    // buffer, two vertices a pixel column, and still reaches the top of the highest peak.
    // Zooming in redraws it from the same spectrum.
    void spectrumLineKeepsPeaksAndZooms()
    {
        m_window->resize(1400, 1000);
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->findChild<QComboBox*>("gridMode")->setCurrentIndex(1);
        auto* count = periodogram()->findChild<QLineEdit*>("frequencyCount");
        count->setText("1000000");
        QMetaObject::invokeMethod(count, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QTRY_VERIFY(periodogram()->spectrum() &&
                    periodogram()->spectrum()->grid().count == 1000000);
        ui::SpectrumView* view = periodogram()->spectrumView();
        // The line alone: the selected peak's red dashed stem runs over the line's top, and
        // whether a dash or a gap lands there depends on the plot's height.
        view->setPeaks({}, -1);
        const QImage image = view->grabFramebuffer();
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
        const gpu::Peak top = periodogram()->spectrum()->peaks().at(0);
        const qreal ratio = image.devicePixelRatio();
        const int x = int(view->xPixel(top.frequency) * ratio);
        const int peakY = int(view->yPixel(top.power) * ratio);
        // The line's blue, in the peak's column or its neighbours, within 3 px of its top.
        auto lineAt = [&](int px, int py) {
            const QColor c = image.pixelColor(px, py);
            return c.blue() > 150 && c.red() < 120 && c.green() < 160;
        };
        bool reached = false;
        for (int dx = -1; dx <= 1 && !reached; ++dx)
            for (int y = peakY - 3; y <= peakY + 3 && !reached; ++y)
                reached = lineAt(x + dx, y);
        QVERIFY2(reached, "the highest peak is not drawn at its height");
        const auto [lo, hi] = view->xRange();
        QWheelEvent wheel(QPointF(view->width() / 2.0, view->height() / 2.0),
                          view->mapToGlobal(QPointF(view->width() / 2.0, view->height() / 2.0)),
                          QPoint(), QPoint(0, 480), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                          false);
        QApplication::sendEvent(view, &wheel);
        QVERIFY(view->xRange().second - view->xRange().first < 0.7 * (hi - lo));
        const QImage zoomed = view->grabFramebuffer();
        QVERIFY(differingPixels(image, zoomed) > 100);
        // The keyboard: the right arrow pans by a tenth, minus zooms out, Home fits.
        const auto [zlo, zhi] = view->xRange();
        QTest::keyClick(view, Qt::Key_Right);
        QCOMPARE(view->xRange().first, zlo + 0.1 * (zhi - zlo));
        QTest::keyClick(view, Qt::Key_Minus);
        QVERIFY(view->xRange().second - view->xRange().first > 1.2 * (zhi - zlo));
        // Home shows the whole grid (the view may have opened on its peaks' part).
        QTest::keyClick(view, Qt::Key_Home);
        const gpu::FrequencyGrid& g = periodogram()->spectrum()->grid();
        QCOMPARE(view->xRange().first, std::min(lo, g.fmin));
        QCOMPARE(view->xRange().second, std::max(hi, g.fmax()));
    }

    void badGridIsExplainedAtTheField()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        const auto kept = periodogram()->spectrum();
        auto* mode = periodogram()->findChild<QComboBox*>("gridMode");
        mode->setCurrentIndex(1);
        auto* fmin = periodogram()->findChild<QLineEdit*>("fmin");
        fmin->setText("0");
        QMetaObject::invokeMethod(fmin, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(fmin->styleSheet().contains("border"));
        QVERIFY2(periodogram()->errorText().contains("minimum frequency"),
                 qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->spectrum(), kept); // the last good periodogram stays
        fmin->setText("0.01");
        auto* fmax = periodogram()->findChild<QLineEdit*>("fmax");
        fmax->setText("inf");
        QMetaObject::invokeMethod(fmax, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(fmax->styleSheet().contains("border"));
        QVERIFY2(periodogram()->errorText().contains("finite"),
                 qPrintable(periodogram()->errorText()));
        fmax->setText("2");
        QMetaObject::invokeMethod(fmin, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->errorText().isEmpty());
        QCOMPARE(periodogram()->grid().count, 100000);
    }

    // The periodogram's launch: a block beyond the kernel's limit is explained at the field;
    // a small grid leaves frequencies out (NaN), which the panel counts; Auto restores a
    // covering launch at the suggested block size.
    void periodogramLaunchIsExplainedAndCounted()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        auto* block = periodogram()->findChild<QLineEdit*>("periodogramBlock");
        auto* grid = periodogram()->findChild<QLineEdit*>("periodogramGrid");
        block->setText("2048");
        QMetaObject::invokeMethod(block, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(block->styleSheet().contains("border"));
        QVERIFY2(periodogram()->errorText().contains("2048"),
                 qPrintable(periodogram()->errorText()));
        block->setText("64");
        grid->setText("2");
        QMetaObject::invokeMethod(grid, "editingFinished");
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->errorText().isEmpty());
        const std::vector<double> power = periodogram()->readPower();
        QVERIFY(!std::isnan(power[1023]) && std::isnan(power[1024]));
        QCOMPARE(periodogram()->spectrum()->nonFinite(), 5001 - 1024);
        QVERIFY2(periodogram()->launchText().contains("1024 of 5001 frequencies"),
                 qPrintable(periodogram()->launchText()));
        QTest::mouseClick(periodogram()->findChild<QPushButton*>("periodogramAuto"),
                          Qt::LeftButton);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(grid->text(), QString("0"));
        QVERIFY(block->text().toInt() >= 32);
        QVERIFY2(periodogram()->launchText().contains("5001 of 5001"),
                 qPrintable(periodogram()->launchText()));
    }

    void periodogramLoadsFilesAndExplainsBadOnes()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/periodogram/series_B.csv");
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->series().t.size(), 200u);
        QVERIFY(periodogram()->spectrum());
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.csv");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("t,y\nnot,numbers\n");
        f.close();
        periodogram()->openFile(bad);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().contains("No row holds usable numbers"),
                 qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->series().t.size(), 200u); // the loaded series stays
        const QString csv = dir.filePath("power.csv");
        QCOMPARE(periodogram()->exportCsv(csv), QString());
        QFile out(csv);
        QVERIFY(out.open(QIODevice::ReadOnly));
        QCOMPARE(out.readAll().count('\n'), qsizetype(periodogram()->readPower().size() + 1));
        QVERIFY(!periodogram()->exportCsv("/nonexistent/p.csv").isEmpty());
    }

    // y = +-1e308: the sums of squares overflow unless y is scaled first. The periodogram is
    // the same as for +-1, with finite peaks and a false-alarm probability.
    void periodogramOfHugeValuesIsFinite()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        QByteArray rows = "t,y\n";
        for (int i = 0; i < 200; ++i)
            rows +=
                QString("%1,%2\n")
                    .arg(i * 0.37 + 0.01 * (i % 7), 0, 'g', 10)
                    .arg(std::sin(i * 0.37 * 2.0 * std::numbers::pi / 5.0) > 0 ? "1e308" : "-1e308")
                    .toUtf8();
        openRows(dir, "huge.csv", rows);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QVERIFY(periodogram()->spectrum());
        QVERIFY(!periodogram()->peaks().empty());
        QVERIFY(std::abs(1.0 / periodogram()->peaks()[0].frequency - 5.0) < 0.05);
        for (const double p : periodogram()->readPower())
            QVERIFY(std::isfinite(p));
        const QString fap = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(!fap.contains("nan", Qt::CaseInsensitive), qPrintable(fap));
        // The folded data, in units of a power of ten the plot can hold.
        QCPAxis* foldY = periodogram()->foldPlot()->yAxis;
        QVERIFY2(foldY->label().contains("1e30"), qPrintable(foldY->label()));
        QVERIFY(foldY->range().lower < -0.5 && foldY->range().upper > 0.5);
    }

    // Weekly dates over ten years with a linear and quadratic trend and a yearly sinusoid: the
    // trend's leakage is the highest peak until a degree-2 polynomial is taken out. A range
    // masked with Shift+drag on the light curve leaves its points out, as one undo step, and a
    // click on it unmasks it. Then the yearly sinusoid is prewhitened and the results export:
    // the whole flow from a dated CSV.
    void detrendingAndMaskingTheLightCurve()
    {
        // At the default size a pixel of the light curve is a few days, less than a week.
        m_window->resize(1400, 900);
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        std::mt19937 rng(5);
        std::normal_distribution<double> noise(0.0, 0.3);
        QByteArray rows = "date,value\n";
        const QDate start(2010, 1, 3);
        for (int i = 0; i < 520; ++i) {
            const double x = i / 52.0;
            const double y = 10.0 + 4.0 * x + 0.8 * (x - 5.0) * (x - 5.0) +
                             std::sin(2.0 * std::numbers::pi * i * 7.0 / 365.25) + noise(rng);
            rows += QString("%1,%2\n")
                        .arg(start.addDays(7 * i).toString(Qt::ISODate))
                        .arg(y, 0, 'f', 4)
                        .toUtf8();
        }
        openRows(dir, "trended.csv", rows);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        const auto bestPeriod = [this] {
            return periodogram()->peaks().empty() ? 0.0 : 1.0 / periodogram()->peaks()[0].frequency;
        };
        QVERIFY2(bestPeriod() > 0.0 && std::abs(bestPeriod() - 365.25) > 0.2 * 365.25,
                 qPrintable(QString::number(bestPeriod())));

        periodogram()->findChild<QSpinBox*>("detrendDegree")->setValue(2);
        periodogram()->findChild<QComboBox*>("detrendMethod")->setCurrentIndex(1);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QVERIFY2(std::abs(bestPeriod() - 365.25) < 0.02 * 365.25,
                 qPrintable(QString::number(bestPeriod())));
        auto* status = periodogram()->findChild<QLabel*>("periodogramStatus");
        QVERIFY2(status->text().contains("periodogram of residuals after a degree-2 polynomial"),
                 qPrintable(status->text()));
        QCOMPARE(periodogram()->analysedSeries().t.size(), std::size_t(520));

        // Shift+drag between the 100th and 150th weeks, halfway between samples.
        QCustomPlot* curve = periodogram()->lightCurveView();
        curve->replot();
        const std::vector<double>& t = periodogram()->series().t;
        const int x0 = qRound(curve->xAxis->coordToPixel(t[100] + 3.5));
        const int x1 = qRound(curve->xAxis->coordToPixel(t[150] + 3.5));
        const int y = curve->axisRect()->center().y();
        QVERIFY2(x1 - x0 > 20, qPrintable(QString("%1 to %2").arg(x0).arg(x1)));
        const int steps = periodogram()->undoStack()->count();
        QTest::mousePress(curve, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, y));
        QTest::mouseMove(curve, QPoint((x0 + x1) / 2, y));
        QTest::mouseRelease(curve, Qt::LeftButton, Qt::ShiftModifier, QPoint(x1, y));
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->masks().size(), std::size_t(1));
        QCOMPARE(periodogram()->undoStack()->count(), steps + 1);
        const gpu::TimeRange mask = periodogram()->masks()[0];
        const auto masked = std::size_t(
            std::count_if(t.begin(), t.end(), [&mask](double v) { return mask.contains(v); }));
        // A pixel is a few days: the ends may move by a sample, no more.
        QVERIFY2(masked >= 49 && masked <= 51, qPrintable(QString::number(masked)));
        QCOMPARE(periodogram()->analysedSeries().t.size(), 520 - masked);
        QVERIFY2(status->text().contains(QString("; %1 points masked").arg(masked)),
                 qPrintable(status->text()));
        QVERIFY2(std::abs(bestPeriod() - 365.25) < 0.03 * 365.25,
                 qPrintable(QString::number(bestPeriod())));

        periodogram()->undoStack()->undo();
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->masks().empty());
        QCOMPARE(periodogram()->analysedSeries().t.size(), std::size_t(520));
        periodogram()->undoStack()->redo();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->masks().size(), std::size_t(1));
        QCOMPARE(periodogram()->analysedSeries().t.size(), 520 - masked);

        // A click on the shaded range unmasks it.
        curve->replot();
        QTest::mouseClick(curve, Qt::LeftButton, Qt::NoModifier,
                          QPoint(qRound(curve->xAxis->coordToPixel(t[125])), y));
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->masks().empty());
        QCOMPARE(periodogram()->analysedSeries().t.size(), std::size_t(520));

        // On to the end of the flow: the yearly sinusoid is prewhitened, its fitted period is
        // a year within its error, what is left has no significant peak, and the list and the
        // residuals' peaks export.
        QTest::mouseClick(periodogram()->findChild<QPushButton*>("prewhiten"), Qt::LeftButton);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        const auto prewhitened = periodogram()->currentScene()->prewhitened;
        QCOMPARE(prewhitened.size(), std::size_t(1));
        const double period = 1.0 / prewhitened[0].frequency;
        const double periodError = prewhitened[0].frequencyError * period * period;
        QVERIFY2(std::abs(period - 365.25) < 3.0 * periodError && periodError < 2.0,
                 qPrintable(QString("%1 +- %2").arg(period).arg(periodError)));
        QVERIFY2(std::abs(prewhitened[0].amplitude - 1.0) < 0.05,
                 qPrintable(QString::number(prewhitened[0].amplitude)));
        auto* fap = periodogram()->findChild<QLabel*>("falseAlarm");
        QVERIFY2(fap->text().contains("false-alarm probability"), qPrintable(fap->text()));
        const double highestFap =
            fap->text().section("false-alarm probability ", 1).section(' ', 0, 0).toDouble();
        QVERIFY2(highestFap > 0.01, qPrintable(fap->text()));
        QTemporaryDir out;
        QCOMPARE(periodogram()->exportSinusoids(out.filePath("frequencies.csv")), QString());
        QCOMPARE(periodogram()->exportPeaks(out.filePath("peaks.json")), QString());
        QFile json(out.filePath("peaks.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject root = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(root["timeUnit"].toString(), QString("day"));
        const QJsonArray sinusoids = root["prewhitened"].toObject()["sinusoids"].toArray();
        QCOMPARE(sinusoids.size(), 1);
        QCOMPARE(sinusoids[0].toObject()["frequency"].toDouble(), prewhitened[0].frequency);
    }

    // Three sinusoids near BJD 2459000 (tests/fixtures/generate_multiterm.py). Prewhitening
    // as a person does it: the highest peak is selected, Prewhiten peak fits and takes it out,
    // three times, each the next sinusoid; Fit all together then gives scipy's simultaneous
    // fit; the list exports as CSV; every step undoes. A second file starts its own list.
    void prewhiteningFindsFitsAndExportsTheSinusoids()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/periodogram/series_P.csv");
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        auto* prewhiten = periodogram()->findChild<QPushButton*>("prewhiten");
        auto* refit = periodogram()->findChild<QPushButton*>("refitAll");
        auto* list = periodogram()->findChild<QTableWidget*>("prewhitened");
        auto* peaks = periodogram()->findChild<QTableWidget*>("peaks");
        QVERIFY(prewhiten && refit && list && peaks);
        QVERIFY(!refit->isEnabled());
        const int steps = periodogram()->undoStack()->count();
        const double truth[] = {0.731, 1.173, 0.2217};
        for (int round = 0; round < 3; ++round) {
            QVERIFY(!periodogram()->peaks().empty());
            QVERIFY2(std::abs(periodogram()->peaks()[0].frequency - truth[round]) < 0.002,
                     qPrintable(QString::number(periodogram()->peaks()[0].frequency)));
            QCOMPARE(peaks->currentRow(), 0);
            QVERIFY(prewhiten->isEnabled());
            QTest::mouseClick(prewhiten, Qt::LeftButton);
            QVERIFY(waitForPeriodogram());
            QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
            QCOMPARE(list->rowCount(), round + 1);
        }
        QCOMPARE(periodogram()->undoStack()->count(), steps + 3);
        auto* status = periodogram()->findChild<QLabel*>("periodogramStatus");
        QVERIFY2(status->text().contains("3 sinusoids prewhitened"), qPrintable(status->text()));

        QVERIFY(refit->isEnabled());
        QTest::mouseClick(refit, Qt::LeftButton);
        QVERIFY(waitForPeriodogram());
        const auto scene = periodogram()->currentScene();
        QVERIFY(scene);
        QCOMPARE(scene->prewhitened.size(), std::size_t(3));
        // scipy's curve_fit of all three, to 1e-4 of each error bar (MultiTermTest says why).
        QFile fixture(WARPSCOPE_FIXTURE_DIR "/periodogram/fit_P.csv");
        QVERIFY(fixture.open(QIODevice::ReadOnly));
        int compared = 0;
        for (const QByteArray& line : fixture.readAll().split('\n')) {
            const QList<QByteArray> f = line.split(',');
            if (f.size() != 4 || f[0] != "all" || f[1] == "offset")
                continue;
            const gpu::FittedSinusoid& s = scene->prewhitened[std::size_t(f[1].right(1).toInt())];
            const double value = f[1].startsWith("frequency")   ? s.frequency
                                 : f[1].startsWith("amplitude") ? s.amplitude
                                                                : s.phase;
            QVERIFY2(std::abs(value - f[2].toDouble()) < 1e-4 * f[3].toDouble(), line.constData());
            ++compared;
        }
        QCOMPARE(compared, 9);

        QTemporaryDir dir;
        const QString csv = dir.filePath("frequencies.csv");
        QCOMPARE(periodogram()->exportSinusoids(csv), QString());
        QFile out(csv);
        QVERIFY(out.open(QIODevice::ReadOnly));
        const QByteArray text = out.readAll();
        QCOMPARE(text.count('\n'), 5); // the model, the header and three sinusoids
        QVERIFY(text.contains("frequency (cycles per day)"));
        QVERIFY(!periodogram()->exportSinusoids("/nonexistent/f.csv").isEmpty());

        // Undo the joint fit, then the last prewhitening.
        periodogram()->undoStack()->undo();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->currentScene()->prewhitened.size(), std::size_t(3));
        QVERIFY(periodogram()->currentScene()->prewhitened != scene->prewhitened);
        periodogram()->undoStack()->undo();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(list->rowCount(), 2);
        QVERIFY2(std::abs(periodogram()->peaks()[0].frequency - truth[2]) < 0.002,
                 qPrintable(QString::number(periodogram()->peaks()[0].frequency)));

        // Another file: the list was fitted to other data, so it starts empty.
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/periodogram/series_H.csv");
        QVERIFY(waitForPeriodogram());
        QCOMPARE(list->rowCount(), 0);
        QVERIFY(!refit->isEnabled());
    }

    // A light curve with two overtones: three terms put the highest peak at the fundamental,
    // and the panel says why no false-alarm probability is given.
    void multiTermModelsFindTheFundamental()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/periodogram/series_H.csv");
        QVERIFY(waitForPeriodogram());
        auto* terms = periodogram()->findChild<QSpinBox*>("nterms");
        QVERIFY(terms);
        terms->setFocus();
        QTest::keyClick(terms, Qt::Key_Up);
        QTest::keyClick(terms, Qt::Key_Up);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(terms->value(), 3);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QVERIFY(!periodogram()->peaks().empty());
        QVERIFY2(std::abs(1.0 / periodogram()->peaks()[0].frequency - 2.37) < 0.01,
                 qPrintable(QString::number(1.0 / periodogram()->peaks()[0].frequency)));
        auto* fap = periodogram()->findChild<QLabel*>("falseAlarm");
        QVERIFY2(fap->text().contains("3 terms"), qPrintable(fap->text()));
        auto* levels = periodogram()->findChild<QLabel*>("falseAlarmLevels");
        QVERIFY2(levels->text().contains("one-term model"), qPrintable(levels->text()));
        QVERIFY(periodogram()->markLabels().filter("FAP").isEmpty());
    }

    // A transiting planet (the fixture's: P = 3.5725 d, 0.5 % deep, 2.5 h, from its generator)
    // chosen as a person does: Search set to box least squares, three durations typed. The
    // peak is the orbit, the status names the box, the Lomb-Scargle-only controls are off
    // and the fold draws the box: its lowest level in the middle of the cycle, 0.5 % down.
    void boxLeastSquaresFindsTheTransitAndDrawsItsBox()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/period-methods/transit.csv");
        QVERIFY(waitForPeriodogram());
        periodogram()->setManualGrid(1.0 / 6.0, 0.5, 3000);
        QVERIFY(waitForPeriodogram());
        auto* durations = periodogram()->findChild<QLineEdit*>("blsDurations");
        auto* search = periodogram()->findChild<QComboBox*>("search");
        QVERIFY(durations && search);
        QVERIFY(!durations->isEnabled());
        const int bls = search->findData("bls");
        QVERIFY(bls >= 0);
        search->setCurrentIndex(bls);
        QVERIFY(waitForPeriodogram());
        QVERIFY(durations->isEnabled());
        QVERIFY(!periodogram()->findChild<QSpinBox*>("nterms")->isEnabled());
        QCOMPARE(periodogram()->findChild<QComboBox*>("xAxis")->currentIndex(), 1); // period
        QVERIFY(periodogram()->findChild<QCheckBox*>("logX")->isChecked());
        durations->setText("0.05,0.1,0.15");
        QTest::keyClick(durations, Qt::Key_Return);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QVERIFY(!periodogram()->peaks().empty());
        const double period = 1.0 / periodogram()->peaks()[0].frequency;
        QVERIFY2(std::abs(period - 3.5725) < 0.003, qPrintable(QString::number(period)));
        auto* status = periodogram()->findChild<QLabel*>("falseAlarm");
        QVERIFY2(status->text().contains("box") && status->text().contains("S/N"),
                 qPrintable(status->text()));
        auto* fold = periodogram()->findChild<ui::FoldView*>();
        QVERIFY(fold);
        const QCPGraph* model = fold->modelGraph();
        QVERIFY(model->dataCount() > 10);
        double low = 1e300, high = -1e300, lowAt = 0.0;
        for (auto it = model->data()->constBegin(); it != model->data()->constEnd(); ++it) {
            if (it->value < low) {
                low = it->value;
                lowAt = it->key;
            }
            high = std::max(high, it->value);
        }
        QVERIFY2(std::abs(high - low - 0.005) < 0.0005, qPrintable(QString::number(high - low)));
        QVERIFY2(std::abs(std::remainder(lowAt - 0.5, 1.0)) < 0.05,
                 qPrintable(QString::number(lowAt)));
    }

    // Yearly means from 1700, as sunspot numbers come: an 11-year cycle and noise. Above 0.5
    // cycles per year the periodogram of yearly times only mirrors what lies below, so the
    // automatic grid stops there, the panel says why, and the highest peak is the cycle, not
    // its twin at 1 + 1/11 cycles per year. The false-alarm levels and the peak's aliases are
    // drawn, every listed peak has its false-alarm probability, and the spectral window shows.
    void regularSamplingStopsTheGridAndMarksAliases()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        std::mt19937 rng(11);
        std::normal_distribution<double> noise(0.0, 20.0);
        QByteArray rows = "year,value\n";
        for (int i = 0; i < 320; ++i)
            rows += QString("%1,%2\n")
                        .arg(1700 + i)
                        .arg(80.0 + 60.0 * std::sin(2.0 * std::numbers::pi * i / 11.0) + noise(rng),
                             0, 'f', 1)
                        .toUtf8();
        openRows(dir, "yearly.csv", rows);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        auto* note = periodogram()->findChild<QLabel*>("samplingNote");
        QVERIFY(note && note->isVisibleTo(periodogram()));
        QVERIFY2(note->text().contains("Regular sampling every 1 years") &&
                     note->text().contains("Nyquist frequency 0.5 cycles per year") &&
                     note->text().contains("automatic grid stops there"),
                 qPrintable(note->text()));
        QVERIFY(periodogram()->grid().fmax() <= 0.5);
        QVERIFY(!periodogram()->peaks().empty());
        const double best = 1.0 / periodogram()->peaks()[0].frequency;
        QVERIFY2(std::abs(best - 11.0) < 0.2, qPrintable(QString::number(best)));
        const QString fap = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(fap.contains("period " + QString::number(best, 'g', 6) + " years"),
                 qPrintable(fap));
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        QCOMPARE(table->horizontalHeaderItem(3)->text(), QString("FAP"));
        for (int row = 0; row < table->rowCount(); ++row) {
            bool number = false;
            table->item(row, 3)->text().toDouble(&number);
            QVERIFY2(number, qPrintable(table->item(row, 3)->text()));
        }
        QVERIFY2(table->item(0, 0)->toolTip().contains("1/dt - f"),
                 qPrintable(table->item(0, 0)->toolTip()));
        const QStringList marks = periodogram()->markLabels();
        QVERIFY2(marks.contains("FAP 1 %") && marks.contains("FAP 0.1 %") &&
                     marks.contains("1/dt - f") && marks.contains("f + 1/dt"),
                 qPrintable(marks.join(", ")));
        const QString levels = periodogram()->findChild<QLabel*>("falseAlarmLevels")->text();
        QVERIFY2(levels.contains("1 % at power") && !levels.contains("nan", Qt::CaseInsensitive),
                 qPrintable(levels));
        const QString aliases = periodogram()->findChild<QLabel*>("aliases")->text();
        // Sampled every year, the cycle's twins lie at 1 - f and 1 + f cycles per year.
        const double f = periodogram()->peaks()[0].frequency;
        QVERIFY2(aliases.contains(QString::number(1.0 - f, 'g', 6) + " (1/dt - f)") &&
                     aliases.contains(QString::number(1.0 + f, 'g', 6) + " (f + 1/dt)"),
                 qPrintable(aliases));

        // A manual grid may go beyond the Nyquist frequency: the note says what lies there,
        // the plot marks the Nyquist frequency, and peaks above it are listed as aliases.
        periodogram()->setManualGrid(0.01, 2.5, 20000);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(note->text().contains("goes beyond it"), qPrintable(note->text()));
        QVERIFY(periodogram()->markLabels().contains("Nyquist"));
        bool aliasListed = false;
        for (int row = 0; row < table->rowCount(); ++row)
            aliasListed = aliasListed || table->item(row, 1)->text().contains("(alias)");
        QVERIFY(aliasListed);

        // The spectral window: the sampling's own periodogram, 1 where every sample is in
        // phase (at 1 cycle per year, inside this grid), under the periodogram.
        QVERIFY(!periodogram()->windowPlot()->isVisibleTo(periodogram()));
        periodogram()->findChild<QCheckBox*>("spectralWindow")->setChecked(true);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QCustomPlot* window = periodogram()->windowPlot();
        QVERIFY(window->isVisibleTo(periodogram()));
        QVERIFY(window->graph(0)->dataCount() > 100);
        bool found = false;
        double highest = 0.0;
        for (auto it = window->graph(0)->data()->begin(); it != window->graph(0)->data()->end();
             ++it) {
            QVERIFY(std::isfinite(it->value));
            highest = std::max(highest, it->value);
            found = found || (std::abs(it->key - 1.0) < 0.01 && it->value > 0.99);
        }
        QVERIFY(found);
        QVERIFY(highest <= 1.0 + 1e-6);
    }

    // Three rows left once the row with dy = 0 is skipped: a sinusoid and its floating mean
    // pass through all three at every frequency, so there is no peak, and the panel says why
    // instead of printing nan.
    void periodogramFalseAlarmIsExplainedForFewPoints()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        openRows(dir, "few.csv", "t,y,dy\n0,1,0.1\n1.3,-0.5,0.2\n2,3,0\n2.9,0.7,0.1\n");
        QCOMPARE(periodogram()->series().t.size(), std::size_t(3));
        const QString fap = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(!fap.contains("nan", Qt::CaseInsensitive), qPrintable(fap));
        QVERIFY2(fap.contains("too few points"), qPrintable(fap));
    }

    // The light curve and the fold name the file's value column, and draw magnitudes upright:
    // the brightest point (the smallest magnitude) highest, where a flux keeps larger up.
    void magnitudesAreDrawnBrighterUp()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        for (const QString column : {QString("kp_mag"), QString("flux")}) {
            QByteArray rows = "t," + column.toUtf8() + "\n";
            for (int i = 0; i < 200; ++i) // period 2.5, one point in five dips
                rows += QByteArray::number(i * 0.37) + "," + (i % 5 == 0 ? "9" : "10") + "\n";
            openRows(dir, column + ".csv", rows);
            const bool upright = column == "kp_mag";
            QCustomPlot* curve = periodogram()->lightCurveView();
            curve->replot();
            QCOMPARE(curve->yAxis->label(), column);
            const double y9 = curve->yAxis->coordToPixel(9.0);
            const double y10 = curve->yAxis->coordToPixel(10.0);
            QVERIFY2(upright ? y9 < y10 : y9 > y10, qPrintable(QString("%1 %2").arg(y9).arg(y10)));
            ui::FoldView* fold = periodogram()->foldPlot();
            fold->replot();
            QVERIFY2(fold->yAxis->label().startsWith(column), qPrintable(fold->yAxis->label()));
            const double f9 = fold->yAxis->coordToPixel(9.0);
            const double f10 = fold->yAxis->coordToPixel(10.0);
            QVERIFY2(upright ? f9 < f10 : f9 > f10, qPrintable(QString("%1 %2").arg(f9).arg(f10)));
        }
    }

    // A FITS column's TUNIT goes on the axes with its name; a unit of "mag" marks magnitudes,
    // drawn brighter up in the light curve and the fold whatever the column's name.
    void fitsUnitsNameTheValueAxis()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        for (const auto& [name, unit, label] :
             {std::tuple{"PDCSAP_FLUX", "e-/s", "PDCSAP_FLUX (e-/s)"},
              std::tuple{"FLUX", "mag", "FLUX (mag)"}}) {
            openFits(dir, name, unit);
            QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
            const bool upright = QString(unit) == "mag";
            QCustomPlot* curve = periodogram()->lightCurveView();
            curve->replot();
            QCOMPARE(curve->yAxis->label(), QString(label));
            const double y9 = curve->yAxis->coordToPixel(9.0);
            const double y10 = curve->yAxis->coordToPixel(10.0);
            QVERIFY2(upright ? y9 < y10 : y9 > y10, qPrintable(QString("%1 %2").arg(y9).arg(y10)));
            ui::FoldView* fold = periodogram()->foldPlot();
            fold->replot();
            QVERIFY2(fold->yAxis->label().startsWith(label), qPrintable(fold->yAxis->label()));
            const double f9 = fold->yAxis->coordToPixel(9.0);
            const double f10 = fold->yAxis->coordToPixel(10.0);
            QVERIFY2(upright ? f9 < f10 : f9 > f10, qPrintable(QString("%1 %2").arg(f9).arg(f10)));
        }
    }

    // A sinusoid with almost no noise: its false-alarm probability underflows double, and the
    // peak list and the line under the plot say "< 1e-300", never "0".
    void anUnderflowedFalseAlarmReadsBelowDoublesRange()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        std::mt19937 rng(29);
        std::normal_distribution<double> noise(0.0, 1e-3);
        QByteArray rows = "t,y\n";
        for (int i = 0; i < 2000; ++i) {
            const double t = i * 0.0137 + 0.003 * (i % 7);
            rows += QByteArray::number(t, 'g', 12) + "," +
                    QByteArray::number(std::sin(2.0 * std::numbers::pi * t / 1.3) + noise(rng), 'g',
                                       12) +
                    "\n";
        }
        openRows(dir, "clean.csv", rows);
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        QVERIFY(table->rowCount() >= 1);
        QCOMPARE(table->item(0, 3)->text(), QString("< 1e-300"));
        const QString line = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(line.contains("false-alarm probability < 1e-300"), qPrintable(line));
    }

    // Two close peaks, seen on the whole grid where they lie a few pixels apart, with their
    // aliases and the false-alarm levels: no label covers another, nor a peak's marker; the
    // highest peak keeps its number.
    void periodogramLabelsDoNotOverlap()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        std::mt19937 rng(31);
        std::uniform_real_distribution<double> jitter(0.0, 0.2);
        std::normal_distribution<double> noise(0.0, 0.3);
        QByteArray rows = "mjd,y\n";
        for (int i = 0; i < 600; ++i) {
            const double t = 59000.0 + i * 0.1 + jitter(rng);
            const double y = std::sin(2.0 * std::numbers::pi * 1.0 * t) +
                             0.9 * std::sin(2.0 * std::numbers::pi * 1.06 * t) + noise(rng);
            rows += QByteArray::number(t, 'f', 6) + "," + QByteArray::number(y, 'g', 10) + "\n";
        }
        openRows(dir, "close.csv", rows);
        ui::SpectrumView* view = periodogram()->spectrumView();
        view->setFocus();
        QTest::keyClick(view, Qt::Key_Home); // the whole grid: the peaks side by side
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        table->setCurrentCell(1, 0); // the second peak's aliases
        periodogram()->grab();
        const ui::SpectrumView::PeakMarks peaks = view->peakMarks();
        QString where = QString("view %1x%2; markers").arg(view->width()).arg(view->height());
        for (const QRectF& m : peaks.markers)
            where += QString(" (%1, %2)").arg(m.x()).arg(m.y());
        QVERIFY2(!peaks.labels.empty() && peaks.labels.front().number == 1, qPrintable(where));
        const gpu::Peak& first = periodogram()->peaks()[0];
        const gpu::Peak& second = periodogram()->peaks()[1];
        QVERIFY2(std::abs(view->xPixel(first.frequency) - view->xPixel(second.frequency)) < 20.0,
                 "the test wants the peaks close on the plot");
        std::vector<std::pair<QString, QRectF>> all;
        for (const auto& label : peaks.labels)
            all.emplace_back(QString::number(label.number), label.rect);
        const auto* marks = periodogram()->findChild<ui::PeriodogramMarks*>("periodogramMarks");
        QVERIFY(marks);
        QVERIFY(!marks->paintedLabels().empty());
        for (const auto& label : marks->paintedLabels())
            all.emplace_back(label.text, label.rect);
        for (std::size_t i = 0; i < all.size(); ++i) {
            for (std::size_t j = i + 1; j < all.size(); ++j)
                QVERIFY2(
                    !all[i].second.intersects(all[j].second),
                    qPrintable(QString("'%1' and '%2' overlap").arg(all[i].first, all[j].first)));
            for (const QRectF& marker : peaks.markers)
                QVERIFY2(!all[i].second.intersects(marker),
                         qPrintable(QString("'%1' covers a marker").arg(all[i].first)));
        }
    }

    // All times equal: one message, about the times, not about the grid made from them.
    void equalTimesAreExplainedOnce()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        openRows(dir, "same.csv", "t,y\n5,1\n5,2\n5,0.5\n5,3\n");
        const QString error = periodogram()->errorText();
        QVERIFY2(error.contains("times are equal") && !error.contains('\n'), qPrintable(error));
    }

    // 1000 samples a peak up to 1000 times the Nyquist frequency asks for 2e8 frequencies:
    // the automatic grid stops at the maximum and the panel says so, and what to change. The
    // capped computation is cancelled by going back, so the test stays short.
    void cappedAutomaticGridIsExplained()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        auto* samples = periodogram()->findChild<QDoubleSpinBox*>("samplesPerPeak");
        auto* nyquist = periodogram()->findChild<QDoubleSpinBox*>("nyquistFactor");
        auto* status = periodogram()->findChild<QLabel*>("periodogramStatus");
        samples->setValue(1000.0);
        nyquist->setValue(1000.0);
        QTRY_VERIFY2_WITH_TIMEOUT(status->text().contains("would need 200000"),
                                  qPrintable(status->text()), 30000);
        QVERIFY2(status->text().contains(QString::number(gpu::kMaxFrequencies)) &&
                     status->text().contains("samples per peak"),
                 qPrintable(status->text()));
        QVERIFY(periodogram()->errorText().isEmpty()); // a note, not an error
        nyquist->setValue(5.0);
        samples->setValue(5.0);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(!status->text().contains("would need"), qPrintable(status->text()));
        QCOMPARE(periodogram()->grid().count, 5001);
    }

    // Edit > Undo follows the workspace shown: on the periodogram it takes back the last
    // control change and recomputes; redo brings it back.
    void periodogramChangesUndo()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QAction* undo = nullptr;
        QAction* redo = nullptr;
        for (QAction* a : m_window->findChildren<QAction*>()) {
            if (a->shortcut() == QKeySequence(QKeySequence::Undo))
                undo = a;
            if (a->shortcut() == QKeySequence(QKeySequence::Redo))
                redo = a;
        }
        QVERIFY(undo && redo);
        auto* normalization = periodogram()->findChild<QComboBox*>("normalization");
        const int before = normalization->currentIndex();
        const auto first = periodogram()->spectrum();
        normalization->setCurrentIndex(before == 2 ? 1 : 2);
        QVERIFY(waitForPeriodogram());
        const int after = normalization->currentIndex();
        QVERIFY2(undo->isEnabled() && undo->text().contains("normalization"),
                 qPrintable(undo->text()));
        undo->trigger();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(normalization->currentIndex(), before);
        QVERIFY(periodogram()->spectrum() != first); // recomputed
        redo->trigger();
        QVERIFY(waitForPeriodogram());
        QCOMPARE(normalization->currentIndex(), after);
        // The map's undo is its own: on its tab the periodogram's steps are out of reach.
        m_window->showPeriodogram(false);
        QVERIFY(!undo->text().contains("normalization"));
        m_window->showPeriodogram();
        normalization->setCurrentIndex(before);
        QVERIFY(waitForPeriodogram());
    }

    // A logarithmic axis chosen before any periodogram has arrived: a positive placeholder
    // range, axes drawn, no crash.
    void spectrumViewTakesALogAxisBeforeItsFirstSpectrum()
    {
        ui::SpectrumView view(std::make_shared<gpu::DevicePool>(gpu::BackendKind::Cpu, -1,
                                                                std::make_shared<gpu::Timeline>()));
        view.resize(600, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAxis(false, true, 1.0, "frequency");
        const QImage image = view.grabFramebuffer();
        QVERIFY(view.xRange().first > 0.0 && view.xRange().second > view.xRange().first);
        QVERIFY(!image.isNull());
        view.setAxis(true, true, 1.0, "period");
        view.grabFramebuffer();
        QVERIFY(view.xRange().first > 0.0);
    }

    // A logarithmic grid typed in by hand spans its range, finds the signal and says it is
    // log-spaced; going back to the automatic grid spaces it evenly again.
    void periodogramLogGridFindsTheSignal()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        auto* mode = periodogram()->findChild<QComboBox*>("gridMode");
        auto* logX = periodogram()->findChild<QCheckBox*>("logX");
        logX->setChecked(false);
        mode->setCurrentIndex(2);
        QVERIFY(logX->isChecked()); // the grid's even steps on a logarithmic axis
        const std::pair<const char*, const char*> fields[] = {
            {"fmin", "0.01"}, {"fmax", "2"}, {"frequencyCount", "30000"}};
        for (const auto& [name, text] : fields) {
            auto* edit = periodogram()->findChild<QLineEdit*>(name);
            QVERIFY(edit->isEnabled());
            edit->selectAll();
            QTest::keyClicks(edit, text);
            QTest::keyClick(edit, Qt::Key_Return);
        }
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->spectrum(), qPrintable(periodogram()->errorText()));
        const gpu::FrequencyGrid grid = periodogram()->spectrum()->grid();
        QVERIFY(grid.logarithmic);
        QCOMPARE(grid.count, 30000LL);
        QVERIFY(std::abs(grid.fmin - 0.01) < 1e-12 && std::abs(grid.fmax() - 2.0) < 1e-9);
        // Equal ratios: the middle frequency is the geometric mean of the ends.
        QVERIFY(std::abs(grid.frequency(14999) * grid.frequency(15000) - 0.02) < 1e-6);
        QVERIFY(std::abs(1.0 / periodogram()->peaks()[0].frequency - 7.3) < 0.1);
        auto* status = periodogram()->findChild<QLabel*>("periodogramStatus");
        QVERIFY2(status->text().contains("log-spaced"), qPrintable(status->text()));
        mode->setCurrentIndex(0);
        QVERIFY(waitForPeriodogram());
        QVERIFY(!periodogram()->spectrum()->grid().logarithmic);
        logX->setChecked(false);
    }

    // A file's columns are found by name, shown in the pickers, and can be chosen by hand;
    // a choice that leaves no usable row is explained and the series kept.
    void periodogramColumnsCanBeChosen()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QTemporaryDir dir;
        const QString path = dir.filePath("four.csv");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("time,note,flux,flux_err\n");
        for (int i = 0; i < 50; ++i)
            f.write(QString("%1,n%2,%3,%4\n")
                        .arg(i * 0.7)
                        .arg(i)
                        .arg(std::sin(i * 0.9) + 5.0)
                        .arg(0.1 + 0.001 * i)
                        .toUtf8());
        f.close();
        periodogram()->openFile(path);
        QVERIFY(waitForPeriodogram());
        auto* t = periodogram()->findChild<QComboBox*>("tColumn");
        auto* y = periodogram()->findChild<QComboBox*>("yColumn");
        auto* dy = periodogram()->findChild<QComboBox*>("dyColumn");
        QVERIFY(y->isEnabled());
        QCOMPARE(t->currentText(), QString("time"));
        QCOMPARE(y->currentText(), QString("flux"));
        QCOMPARE(dy->currentText(), QString("flux_err"));
        QCOMPARE(periodogram()->series().dy.size(), std::size_t(50));
        // No uncertainties: every point weighs the same.
        periodogram()->chooseColumns(0, 2, -1);
        QVERIFY(waitForPeriodogram());
        QVERIFY(periodogram()->series().dy.empty());
        QCOMPARE(dy->currentText(), QString("none"));
        // The text column as values: nothing usable, so the series stays.
        periodogram()->chooseColumns(0, 1, -1);
        QVERIFY(waitForPeriodogram());
        QVERIFY2(!periodogram()->errorText().isEmpty(), "no message for an unusable column");
        QCOMPARE(periodogram()->series().t.size(), std::size_t(50));
        QCOMPARE(y->currentText(), QString("flux"));
        periodogram()->useSynthetic();
        QVERIFY(!y->isEnabled());
        QVERIFY(waitForPeriodogram());
    }

    // Weekly YYYYMMDD dates are days: the axis, the peak table, the status line, the fold,
    // the false-alarm line and the export name the unit, and the yearly cycle is found at 365
    // days (below the Nyquist frequency). Read as plain numbers the file has no unit, and the
    // wording says so; read as ISO dates it is refused, with the loader's reason, and the numbers
    // stay.
    void periodogramNamesTheFilesTimeUnit()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        // Strictly weekly samples alias the yearly cycle, equally high, above the Nyquist
        // frequency: the grid stops at it.
        auto* nyquist = periodogram()->findChild<QDoubleSpinBox*>("nyquistFactor");
        nyquist->setValue(1.0);
        QVERIFY(waitForPeriodogram());
        periodogram()->openFile(WARPSCOPE_FIXTURE_DIR "/dates/weekly_yyyymmdd.csv");
        QVERIFY(waitForPeriodogram());
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->shownUnit(), gpu::TimeUnit::Day);
        ui::SpectrumView* view = periodogram()->spectrumView();
        QVERIFY2(view->xLabel().contains("cycles per day"), qPrintable(view->xLabel()));
        QVERIFY(!periodogram()->peaks().empty());
        const double f = periodogram()->peaks()[0].frequency;
        // Within a grid step of a year, measured in period.
        const double step = periodogram()->grid().df / (f * f);
        QVERIFY2(std::abs(1.0 / f - 365.25) <= step,
                 qPrintable(QString("%1 days, step %2").arg(1.0 / f).arg(step)));
        auto* table = periodogram()->findChild<QTableWidget*>("peaks");
        QCOMPARE(table->horizontalHeaderItem(0)->text(), QString("frequency (cycles per day)"));
        QCOMPARE(table->horizontalHeaderItem(1)->text(), QString("period (days)"));
        const QString status = periodogram()->findChild<QLabel*>("periodogramStatus")->text();
        QVERIFY2(status.contains("cycles per day"), qPrintable(status));
        const QString fold = periodogram()->foldPlot()->xAxis->label();
        QVERIFY2(fold.contains("days"), qPrintable(fold));
        const QString fap = periodogram()->findChild<QLabel*>("falseAlarm")->text();
        QVERIFY2(fap.contains("days"), qPrintable(fap));
        periodogram()->findChild<QComboBox*>("xAxis")->setCurrentIndex(1);
        QCOMPARE(view->xLabel(), QString("period (days)"));
        periodogram()->findChild<QComboBox*>("xAxis")->setCurrentIndex(0);
        QTemporaryDir dir;
        const QString csv = dir.filePath("power.csv");
        QCOMPARE(periodogram()->exportCsv(csv), QString());
        QFile out(csv);
        QVERIFY(out.open(QIODevice::ReadOnly));
        QCOMPARE(out.readLine(), QByteArray("frequency (cycles per day),period (days),power\n"));
        const QString json = dir.filePath("peaks.json");
        QCOMPARE(periodogram()->exportPeaks(json), QString());
        QFile peaksFile(json);
        QVERIFY(peaksFile.open(QIODevice::ReadOnly));
        const QJsonObject peaks = QJsonDocument::fromJson(peaksFile.readAll()).object();
        QCOMPARE(peaks["periodUnit"].toString(), QString("days"));
        QCOMPARE(peaks["peaks"].toArray().size(), qsizetype(periodogram()->peaks().size()));

        chooseTimeFormat(gpu::TimeFormat::Number);
        QVERIFY2(periodogram()->errorText().isEmpty(), qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->series().t.front(), 19580329.0);
        QCOMPARE(periodogram()->shownUnit(), gpu::TimeUnit::Unknown);
        QVERIFY2(view->xLabel().contains("cycles per unit time"), qPrintable(view->xLabel()));
        QCOMPARE(table->horizontalHeaderItem(1)->text(), QString("period"));

        chooseTimeFormat(gpu::TimeFormat::IsoDate);
        QVERIFY2(periodogram()->errorText().contains("is not a date"),
                 qPrintable(periodogram()->errorText()));
        QCOMPARE(periodogram()->series().t.front(), 19580329.0); // the series shown stays
        auto* box = periodogram()->findChild<QComboBox*>("timeFormat");
        QCOMPARE(box->currentData().toInt(), int(gpu::TimeFormat::Number));

        chooseTimeFormat(gpu::TimeFormat::Auto);
        QCOMPARE(periodogram()->shownUnit(), gpu::TimeUnit::Day);
        QVERIFY2(box->currentText().contains("YYYYMMDD"), qPrintable(box->currentText()));
        QVERIFY2(view->xLabel().contains("cycles per day"), qPrintable(view->xLabel()));
        periodogram()->useSynthetic();
        QVERIFY(waitForPeriodogram());
        QVERIFY2(view->xLabel().contains("cycles per unit time"), qPrintable(view->xLabel()));
        QVERIFY(!box->isEnabled());
        nyquist->setValue(5.0);
        QVERIFY(waitForPeriodogram());
    }

    // While a file is shown, the synthetic series' controls are hidden, and a change to one
    // (a scene applied, say) leaves the file; the Synthetic button brings them back with the
    // synthetic series. Quoted header names show without their quotes.
    void syntheticControlsNeverReplaceAFile()
    {
        m_window->showPeriodogram();
        QVERIFY(waitForPeriodogram());
        QSpinBox* points = periodogramPoints();
        QVERIFY(points->isVisibleTo(periodogram()));
        QTemporaryDir dir;
        QByteArray rows = "\"time\", \"flux\"\n";
        for (int i = 0; i < 60; ++i)
            rows += QString("%1,%2\n").arg(i * 0.61).arg(std::sin(i * 0.8)).toUtf8();
        openRows(dir, "quoted.csv", rows);
        QCOMPARE(periodogram()->series().t.size(), std::size_t(60));
        QCOMPARE(periodogram()->findChild<QComboBox*>("tColumn")->currentText(), QString("time"));
        QCOMPARE(periodogram()->findChild<QComboBox*>("yColumn")->currentText(), QString("flux"));
        for (const char* name : {"points", "baseline", "noise", "period", "amplitude", "seed"})
            QVERIFY2(!periodogram()->findChild<QWidget*>(name)->isVisibleTo(periodogram()), name);
        points->setValue(points->value() + 10);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->series().t.size(), std::size_t(60));
        QTest::mouseClick(periodogram()->findChild<QPushButton*>("synthetic"), Qt::LeftButton);
        QVERIFY(waitForPeriodogram());
        QVERIFY(points->isVisibleTo(periodogram()));
        QCOMPARE(periodogram()->series().t.size(), std::size_t(points->value()));
        points->setValue(points->value() - 10);
        QVERIFY(waitForPeriodogram());
        QCOMPARE(periodogram()->series().t.size(), std::size_t(points->value()));
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeTests"); // never the user's own settings
    PeriodogramWorkspaceTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "PeriodogramWorkspaceTest.moc"
