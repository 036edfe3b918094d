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

// The distance field in the real main window, driven as a person would: typing into
// its fields, clicking the map, undoing; its launch lesson and block-size sweep. Runs under Xvfb
// (or any X server) with the CPU backend.
class FieldWorkspaceTest : public test::WindowTest
{
    Q_OBJECT

private slots:
    void init() { QVERIFY(openWindow()); }
    void cleanup() { closeWindow(); }

    void opensOnTheDefaultScene()
    {
        settledImage();
        const gpu::DistanceParams p = view()->shownParams();
        QCOMPARE(p, gpu::DistanceParams{});
        QCOMPARE(p.nx, 1000);
        QVERIFY(view()->backendDescription().startsWith("CPU"));
    }

    // The colour bar's labels are in the text's pale grey, whatever the markers drew before
    // them (the selected reference's red ring left them red).
    void colourBarLabelsAreNotRed()
    {
        const QImage image = test::screenPixels(view(), [&] {
            view()->update();
            return view()->frameSettled() && view()->shownParams() == view()->params();
        });
        int red = 0, pale = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = image.width() - 60; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                red += c.red() > 170 && c.green() < 110 && c.blue() < 110;
                pale += c.red() > 180 && c.green() > 180 && c.blue() > 180;
            }
        QCOMPARE(red, 0);
        QVERIFY2(pale > 20, qPrintable(QString::number(pale))); // the labels are there
    }

    // A mesh beyond the OpenGL driver's buffer limit fails as the window is first shown,
    // before anything has been drawn; the map says why instead of "Computing…" for ever, and
    // after a good field, the old picture is marked as not updated.
    void aFailureBeforeTheFirstFrameIsNamedOnTheMap()
    {
        gpu::DistanceParams huge;
        huge.nx = huge.ny = 16384;
        ui::WindowOptions options;
        options.backend = gpu::BackendKind::Cpu;
        options.useSettings = false;
        m_window = std::make_unique<ui::MainWindow>(options);
        m_window->setParams(huge);
        m_window->resize(1000, 700);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QTRY_VERIFY2(view()->failureText().contains("can display at most"),
                     qPrintable(view()->failureText()));

        // The banner is drawn by the overlay widget, so the grabs include the children.
        m_window->setParams(gpu::DistanceParams{});
        settledImage();
        QVERIFY(view()->failureText().isEmpty());
        const QImage good = view()->grab().toImage();
        m_window->setParams(huge);
        QTRY_VERIFY(!view()->failureText().isEmpty());
        QTRY_VERIFY2(differingPixels(good, view()->grab().toImage()) > 1000,
                     "the map does not show that the field was not updated");
    }

    // Moving the view to another window destroys its GL context and makes a new one; the
    // field went with the old context and must be computed again, not left blank.
    void theFieldIsDrawnAgainInANewContext()
    {
        QWidget other; // first, so that the view, its child by the end, goes before it
        ui::FieldView standalone;
        standalone.setDevices(std::make_shared<gpu::DevicePool>(gpu::BackendKind::Cpu, -1, nullptr),
                              true);
        standalone.resize(600, 400);
        standalone.show();
        QVERIFY(QTest::qWaitForWindowExposed(&standalone));
        const auto settled = [&] {
            return QTest::qWaitFor(
                [&] {
                    standalone.update();
                    return standalone.frameSettled() &&
                           standalone.shownParams() == standalone.params();
                },
                20000);
        };
        QVERIFY(settled());
        const QImage before = standalone.grabFramebuffer();
        other.resize(600, 400);
        standalone.setParent(&other);
        other.show();
        standalone.show();
        QVERIFY(QTest::qWaitForWindowExposed(&other));
        // Each grab paints, which starts the computation if the view knows it must.
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return differingPixels(before, standalone.grabFramebuffer()) == 0; }, 20000),
            "the field was not computed again in the new context");
    }

    void devicePanelShowsTheSimulatedDeviceOnTheCpu()
    {
        // A choice of GPU appears only where there are several.
        QCOMPARE(m_window->devicePanel()->chooser()->isVisibleTo(m_window->devicePanel()),
                 gpu::cudaDeviceNames().size() > 1);
        // Choosing a device reopens the view's context, and the field comes back.
        const QImage before = settledImage();
        QSignalSpy reopened(view(), &ui::FieldView::backendReady);
        emit m_window->devicePanel()->deviceChosen(0);
        QCOMPARE(differingPixels(before, settledImage()), 0);
        QTRY_COMPARE(reopened.count(), 1); // said once the frame that reopened it is drawn
        settledImage();
        const ui::DevicePanel* device = m_window->devicePanel();
        QVERIFY(device->value("Kind").contains("simulated"));
        QCOMPARE(device->value("SMs"), QString("132"));
        QCOMPARE(device->value("Threads per block"), QString("1024"));
        QCOMPARE(device->value("Grid dimensions"), QString("2147483647 x 65535 x 65535"));
    }

    void typingABoundChangesThePicture()
    {
        const QImage before = settledImage();
        typeInto(spin("latMin"), "29.9");
        const QImage after = settledImage();
        QCOMPARE(view()->shownParams().latMin, 29.9);
        QVERIFY2(differingPixels(before, after) > before.width() * before.height() / 10,
                 "the picture should change when a bound changes");
    }

    void outOfRangeLatitudeIsExplainedAndThePictureKept()
    {
        const QImage before = settledImage();
        typeInto(spin("latMin"), "95");
        QTest::qWait(50);
        const QImage after = settledImage();
        QVERIFY(spin("latMin")->property("invalid").toBool());
        QVERIFY(panel()->errorText().contains("[-90, 90]"));
        QCOMPARE(view()->shownParams().latMin, 29.0);
        QCOMPARE(differingPixels(before, after), 0);
        QVERIFY(m_window->isVisible());
        // Correcting it clears the message.
        typeInto(spin("latMin"), "29.5");
        settledImage();
        QVERIFY(!spin("latMin")->property("invalid").toBool());
        QVERIFY(panel()->errorText().isEmpty());
        QCOMPARE(view()->shownParams().latMin, 29.5);
    }

    void sliderDragUpdatesLive()
    {
        const QImage before = settledImage();
        auto* slider = panel()->findChild<ui::NumberField*>("lonMin")->slider();
        slider->setValue(slider->value() + 3); // as a drag does, one step at a time
        const QImage after = settledImage();
        QVERIFY(view()->shownParams().lonMin > 99.0);
        QVERIFY(differingPixels(before, after) > 0);
    }

    void minimumAboveMaximumIsFlaggedOnTheMaximum()
    {
        settledImage();
        typeInto(spin("lonMin"), "102");
        QVERIFY(spin("lonMax")->property("invalid").toBool());
        QVERIFY(panel()->errorText().contains("greater than the minimum"));
        QCOMPARE(view()->shownParams().lonMin, 99.0);
    }

    void meshTooLargeForTheDriverKeepsTheLastPicture()
    {
        const QImage before = settledImage();
        QSignalSpy failed(view(), &ui::FieldView::computeFailed);
        typeInto(spin("nx"), "16384");
        typeInto(spin("ny"), "16384");
        QVERIFY(QTest::qWaitFor([&] { return failed.count() > 0; }, 20000));
        QVERIFY(failed.last().at(0).toString().contains("at most"));
        QVERIFY(panel()->findChild<QLabel*>("computeError")->isVisible());
        QCOMPARE(view()->shownParams().nx, 1000);
        QTest::qWait(50);
        QCOMPARE(differingPixels(before, view()->grabFramebuffer()), 0);
        QVERIFY(m_window->isVisible());
    }

    void undoAndRedoRestoreParameters()
    {
        settledImage();
        typeInto(spin("lonMax"), "100.5");
        settledImage();
        QCOMPARE(view()->shownParams().lonMax, 100.5);
        QVERIFY(m_window->undoStack()->canUndo());
        m_window->undoStack()->undo();
        settledImage();
        QCOMPARE(view()->shownParams().lonMax, 101.0);
        QCOMPARE(spin("lonMax")->value(), 101.0);
        m_window->undoStack()->redo();
        settledImage();
        QCOMPARE(view()->shownParams().lonMax, 100.5);
    }

    void ctrlClickAddsAReferenceAndClickMovesIt()
    {
        const QImage before = settledImage();
        const QPoint centre = view()->rect().center();
        QTest::mouseClick(view(), Qt::LeftButton, Qt::ControlModifier, centre);
        settledImage();
        QCOMPARE(int(view()->shownParams().references.size()), 2);
        QCOMPARE(panel()->findChild<QTableWidget*>("references")->rowCount(), 2);
        QTest::mouseClick(view(), Qt::LeftButton, Qt::NoModifier, centre + QPoint(-150, 100));
        const QImage after = settledImage();
        const gpu::GeoPoint moved = view()->shownParams().references[1];
        QVERIFY(moved.lon < 100.0 && moved.lat < 30.0);
        QVERIFY(differingPixels(before, after) > 1000);
    }

    void teachingKernelOverlaysChangeThePicture()
    {
        const QImage fast = settledImage();
        ui::LaunchPanel* launch = m_window->launchPanel();
        auto* kernel = launch->findChild<QComboBox*>("kernel");
        kernel->setCurrentIndex(1); // teaching, grid fitted to the mesh: same field
        QTRY_VERIFY(view()->lessonActive());
        const QImage teaching = settledImage();
        QVERIFY(differingPixels(fast, teaching) < fast.width() * fast.height() / 50);
        auto* overlay = launch->findChild<QComboBox*>("overlay");
        overlay->setCurrentIndex(int(render::Overlay::Block));
        view()->update();
        QTest::qWait(50);
        const QImage blocks = settledImage();
        QVERIFY2(differingPixels(teaching, blocks) > teaching.width() * teaching.height() / 4,
                 "colouring by block must change the picture");
        overlay->setCurrentIndex(int(render::Overlay::Sm));
        view()->update();
        QTest::qWait(50);
        QVERIFY(differingPixels(blocks, settledImage()) > 1000);
    }

    // The block, thread, warp and SM colours are categories: a legend stands where the
    // distance's colour bar was, with block (0, 0)'s swatch.
    void teachingOverlaysShowALegendNotTheKmBar()
    {
        const QImage distance = shownPixels();
        teach(16, 16, 63, 63, render::Overlay::Block);
        const QImage blocks = shownPixels();
        const int barX = distance.width() - 104 + 12 + 8;
        int sameAsBar = 0, rows = 0;
        for (int y = 20; y < distance.height() - 40; ++y, ++rows)
            sameAsBar += near(distance.pixelColor(barX, y), blocks.pixelColor(barX, y));
        QVERIFY2(sameAsBar < rows / 4, qPrintable(QString("%1 of %2").arg(sameAsBar).arg(rows)));
        const QColor first = QColor::fromRgbF(1.0, 0.35, 0.35); // hue 0, toward white
        QVERIFY(countNear(blocks, first, distance.width() - 104) > 150);
        QCOMPARE(countNear(distance, first, distance.width() - 104), 0);
    }

    // Warps are coloured by their global id: the same warp of two neighbouring blocks, and
    // the last warp of a block and the first of the block above, differ in hue.
    void neighbouringWarpsOfNeighbouringBlocksDiffer()
    {
        smallMesh();
        teach(32, 8, 4, 8, render::Overlay::Warp);
        const QImage image = shownPixels();
        // Block (1, 1) is columns 32 to 63 and rows 8 to 15; a warp is one row of it.
        QVERIFY(hueApart(image, {12, 48}, {12, 80}) >= 30); // warp 4 of blocks (1,1), (2,1)
        QVERIFY(hueApart(image, {15, 48}, {16, 48}) >= 30); // (1,1)'s last, (1,2)'s first
        QVERIFY(hueApart(image, {12, 48}, {13, 48}) >= 30); // warps 4 and 5 of one block
        QVERIFY(hueApart(image, {12, 63}, {12, 64}) >= 30); // either side of a block's edge
        // Hovering names the warp by its global id: block 1 * 4 + 2 = 6 of 8 warps, warp 4.
        QSignalSpy hover(view(), &ui::FieldView::hoverText);
        QTest::mouseMove(view(), view()->nodePosition(12, 80).toPoint());
        QTRY_VERIFY(!hover.isEmpty());
        const QString text = hover.back().at(0).toString();
        QVERIFY2(text.contains("warp 52 (4 of its block)"), qPrintable(text));
    }

    // Under threadIdx, x runs to red and y to green within every block.
    void threadsAreARampOfTheirPlaceInTheBlock()
    {
        smallMesh();
        teach(16, 16, 8, 4, render::Overlay::Thread);
        const QImage image = shownPixels();
        // Block (2, 1): columns 32 to 47, rows 16 to 31.
        const QColor origin = pixel(image, {16, 32});
        const QColor lastX = pixel(image, {16, 47});
        const QColor lastY = pixel(image, {31, 32});
        QVERIFY2(lastX.red() - origin.red() > 150, qPrintable(lastX.name()));
        QVERIFY2(std::abs(lastX.green() - origin.green()) < 10, qPrintable(lastX.name()));
        QVERIFY2(lastY.green() - origin.green() > 150, qPrintable(lastY.name()));
        QVERIFY2(std::abs(lastY.red() - origin.red()) < 10, qPrintable(lastY.name()));
        QVERIFY(near(origin, pixel(image, {48, 96}))); // threadIdx (0, 0) of block (6, 3)
    }

    // With nodes smaller than a pixel, a dark line still marks where the block changes, and
    // block (0, 0) is named on the picture.
    void blockOutlinesShowAtEveryZoom()
    {
        teach(16, 16, 63, 63, render::Overlay::Block);
        const QImage picture = settledImage();
        const QRect centre(picture.width() * 4 / 10, picture.height() * 4 / 10, picture.width() / 5,
                           picture.height() / 5);
        int dark = 0;
        for (int y = centre.top(); y <= centre.bottom(); ++y)
            for (int x = centre.left(); x <= centre.right(); ++x) {
                const QColor c = picture.pixelColor(x, y);
                dark += std::max({c.red(), c.green(), c.blue()}) < 60;
            }
        QVERIFY2(dark > centre.width() * centre.height() / 30, qPrintable(QString::number(dark)));
        const QImage shown = shownPixels();
        const QPoint label =
            ((view()->nodePosition(0, 0) + view()->nodePosition(15, 15)) / 2).toPoint();
        int white = 0;
        for (int y = label.y() - 12; y <= label.y() + 12; ++y)
            for (int x = label.x() - 30; x <= label.x() + 30; ++x)
                white += shown.valid(x, y) && shown.pixelColor(x, y).lightness() > 225;
        QVERIFY2(white > 10, qPrintable(QString::number(white)));
    }

    // The caption counts the nodes the launch reaches, and says how to reach the rest.
    void captionCountsTheCoverage()
    {
        teach(16, 16, 63, 63, render::Overlay::Block);
        shownPixels();
        QCOMPARE(view()->coverageCaption(),
                 QString("grid 63 x 63 of 16 x 16 threads: 1 000 000 of 1 000 000 nodes reached"));
        teach(16, 16, 2, 2, render::Overlay::Block);
        shownPixels();
        QCOMPARE(view()->coverageCaption(),
                 QString("grid 2 x 2 of 16 x 16 threads: 1 024 of 1 000 000 nodes reached: "
                         "tick Grid-stride loop or fit the grid"));
        for (QCheckBox* box : m_window->launchPanel()->findChildren<QCheckBox*>())
            if (box->text() == "Grid-stride loop")
                box->setChecked(true);
        QTRY_VERIFY(view()->lesson()->gridStride);
        shownPixels();
        QCOMPARE(view()->coverageCaption(),
                 QString("grid 2 x 2 of 16 x 16 threads: 1 000 000 of 1 000 000 nodes reached"));
    }

    void impossibleLaunchIsExplainedAtTheField()
    {
        ui::LaunchPanel* launch = m_window->launchPanel();
        launch->findChild<QComboBox*>("kernel")->setCurrentIndex(1);
        QTRY_VERIFY(view()->lessonActive());
        const QImage before = settledImage();
        const gpu::LaunchConfig shown = view()->lesson()->launch;
        QLineEdit* bx = launch->field("blockx");
        QLineEdit* by = launch->field("blocky");
        bx->setText("64");
        by->setText("32"); // 2048 threads per block
        emit by->editingFinished();
        QVERIFY(launch->errorText().contains("2048 threads per block"));
        QVERIFY(launch->errorText().contains("1024"));
        QVERIFY(!bx->styleSheet().isEmpty());
        settledImage();
        QVERIFY(view()->lesson()->launch == shown); // the last valid launch stays
        launch->field("gridx")->setText("1125899906842624");
        emit launch->field("gridx")->editingFinished();
        QVERIFY(launch->errorText().contains("exceeds the limit of 2147483647"));
        // A grid too small to cover the mesh is allowed: the rest shows as uncovered.
        bx->setText("16");
        by->setText("16");
        launch->field("gridx")->setText("2");
        launch->field("gridy")->setText("2");
        emit by->editingFinished();
        QVERIFY(launch->errorText().isEmpty());
        const QImage partial = settledImage();
        QCOMPARE(view()->lesson()->launch.grid.x, 2);
        QVERIFY(differingPixels(before, partial) > before.width() * before.height() / 4);
    }

    // Auto picks the block with the most occupancy for the teaching kernel's registers on the
    // simulated H100 (40 a thread: 768 threads, 75%), and the panel says what limits it.
    void autoBlockUsesTheOccupancyCalculator()
    {
        settledImage();
        m_window->showLaunchPanel();
        QTest::mouseClick(m_window->launchPanel()->findChild<QPushButton*>("autoBlock"),
                          Qt::LeftButton);
        QCOMPARE(m_window->launchPanel()->field("blockx")->text(), QString("768"));
        QCOMPARE(m_window->launchPanel()->field("blocky")->text(), QString("1"));
        const QString occupancy = m_window->launchPanel()->occupancyText();
        QVERIFY2(occupancy.contains("Theoretical occupancy 75%"), qPrintable(occupancy));
        QVERIFY2(occupancy.contains("registers"), qPrintable(occupancy));
        QVERIFY(m_window->launchPanel()->lesson().has_value());
    }

    void blockSizeSweepRunsAndCancels()
    {
        gpu::DistanceParams p = view()->params();
        p.nx = 96;
        p.ny = 64;
        m_window->setParams(p);
        ui::SweepDialog* sweep = m_window->startSweep();
        QSignalSpy finished(sweep, &ui::SweepDialog::finished);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.front().at(0).toBool(), true);
        QCOMPARE(sweep->points().size(), 32u);
        for (const auto& point : sweep->points())
            QVERIFY(point.medianMs > 0.0 && point.occupancy > 0.0);
        // The CPU backend's timings say nothing of a GPU's: no fastest block size is named,
        // and the occupancy model's peak is. The kernel's sm_90 build takes 40 registers a
        // thread, 1280 a warp: the H100's 65536 registers an SM hold 51 warps, 48 in whole
        // groups of four. 32 threads a block stop at 32 blocks an SM (32 warps, 50%); 64
        // threads reach 24 blocks of 2 warps, 48 of the 64 warps (75%), and no size does better.
        const QString result = sweep->resultText();
        QVERIFY2(!result.contains("Fastest at"), qPrintable(result));
        QVERIFY2(result.contains("CPU timings do not predict a GPU's"), qPrintable(result));
        QVERIFY2(result.contains("highest (75%) from 64 threads per block"), qPrintable(result));
        sweep->close();

        p.nx = p.ny = 2000; // slow enough on the simulator to cancel midway
        m_window->setParams(p);
        sweep = m_window->startSweep();
        QSignalSpy cancelled(sweep, &ui::SweepDialog::finished);
        QTest::mouseClick(sweep->findChild<QPushButton*>("sweepCancel"), Qt::LeftButton);
        QVERIFY(cancelled.wait(60000));
        QCOMPARE(cancelled.front().at(0).toBool(), false);
        QVERIFY2(sweep->resultText().contains("Cancelled"), qPrintable(sweep->resultText()));
        sweep->close();
    }

    void switchingPrecisionShowsTheHintOnlyWhereItMatters()
    {
        settledImage();
        auto* hint = panel()->findChild<QLabel*>("precisionHint");
        QVERIFY(!hint->isVisible());
        typeInto(spin("latMin"), "-90");
        typeInto(spin("latMax"), "90");
        typeInto(spin("lonMin"), "-180");
        typeInto(spin("lonMax"), "180");
        auto* refs = panel()->findChild<QTableWidget*>("references");
        refs->item(0, 0)->setText("0");
        refs->item(0, 1)->setText("0");
        settledImage();
        typeInto(spin("nx"), "4000");
        typeInto(spin("ny"), "4000");
        settledImage();
        QVERIFY2(hint->isVisible(), "a global float32 mesh with the antipode on it should warn");
    }

private:
    // What the window shows of the field, annotations and legend included.
    QImage shownPixels()
    {
        return test::screenPixels(view(), [&] {
            view()->update();
            return view()->frameSettled() && view()->shownParams() == view()->params();
        });
    }

    // A mesh of 128 x 64 nodes, several pixels each.
    void smallMesh()
    {
        gpu::DistanceParams p = view()->params();
        p.nx = 128;
        p.ny = 64;
        m_window->setParams(p);
        settledImage();
    }

    // The teaching kernel with this block and grid, coloured by overlay.
    void teach(int bx, int by, int gx, int gy, render::Overlay overlay)
    {
        ui::LaunchPanel* launch = m_window->launchPanel();
        launch->findChild<QComboBox*>("kernel")->setCurrentIndex(1);
        QTRY_VERIFY(view()->lessonActive());
        launch->field("blockx")->setText(QString::number(bx));
        launch->field("blocky")->setText(QString::number(by));
        launch->field("gridx")->setText(QString::number(gx));
        launch->field("gridy")->setText(QString::number(gy));
        emit launch->field("gridy")->editingFinished();
        launch->findChild<QComboBox*>("overlay")->setCurrentIndex(int(overlay));
        QTRY_VERIFY(view()->lesson()->launch.grid.y == gy);
        view()->update();
    }

    static bool near(const QColor& a, const QColor& b)
    {
        return std::abs(a.red() - b.red()) <= 4 && std::abs(a.green() - b.green()) <= 4 &&
               std::abs(a.blue() - b.blue()) <= 4;
    }

    // Pixels right of x0 within a few levels of colour.
    static int countNear(const QImage& image, const QColor& colour, int x0)
    {
        int count = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = x0; x < image.width(); ++x)
                count += near(image.pixelColor(x, y), colour);
        return count;
    }

    // The colour at the centre of node (row, col).
    QColor pixel(const QImage& image, QPoint rowCol) const
    {
        return image.pixelColor(view()->nodePosition(rowCol.x(), rowCol.y()).toPoint());
    }

    // How far apart two nodes' hues are, in degrees round the wheel.
    int hueApart(const QImage& image, QPoint a, QPoint b) const
    {
        const int d = std::abs(pixel(image, a).hue() - pixel(image, b).hue()) % 360;
        return std::min(d, 360 - d);
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeTests"); // never the user's own settings
    FieldWorkspaceTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "FieldWorkspaceTest.moc"
