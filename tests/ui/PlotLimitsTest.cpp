#include "PrewhiteningPanel.h"
#include "periodogram/LightCurveView.h"
#include "warpscope/ui/SpectrumView.h"

#include <QApplication>
#include <QTableWidget>
#include <QTest>
#include <cmath>
#include <limits>

using namespace warpscope;

// The plots and figures of a series as a reader sees them: drawn, or saying why not, wherever
// the values lie in double's range, and never a NaN or an infinity printed as a number.
class PlotLimitsTest : public QObject
{
    Q_OBJECT

private:
    // Pixels in the blue of the points used (nothing else in the plot is blue).
    static int pointPixels(QWidget& view)
    {
        const QImage image = view.grab().toImage();
        int n = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                n += qBlue(image.pixel(x, y)) > qRed(image.pixel(x, y)) + 80; // blue, antialiased
        return n;
    }

private slots:
    // Values beyond 1e250 are beyond what QCustomPlot takes as a range: they are drawn in a
    // power of ten that the axis names, inside the range shown.
    void valuesNearDoublesLimitsAreDrawn()
    {
        for (const double scale : {1.0, 1e307, -1.7e308, 1e-307}) {
            ui::LightCurveView view;
            view.resize(600, 300);
            gpu::TimeSeries s;
            s.t = {0.0, 1.0, 2.0, 3.0, 4.0};
            s.y = {1.0 * scale, -1.0 * scale, 0.5 * scale, 0.25 * scale, 0.75 * scale};
            view.setData(s, {}, s, {});
            view.replot();
            const QCPGraph* points = view.graph(0);
            QCOMPARE(points->dataCount(), 5);
            const QCPRange range = view.yAxis->range();
            for (auto it = points->data()->constBegin(); it != points->data()->constEnd(); ++it) {
                QVERIFY(std::isfinite(it->value));
                QVERIFY2(range.contains(it->value), qPrintable(QString::number(scale)));
            }
            const QString label = view.yAxis->label();
            if (scale == 1.0)
                QCOMPARE(label, QString("y"));
            else
                QCOMPARE(label,
                         QString("y (×1e%1)").arg(int(std::floor(std::log10(std::abs(scale))))));
            QVERIFY2(pointPixels(view) > 20, qPrintable(QString::number(scale)));
        }
    }

    // A periodogram's powers up to double's largest: the axis keeps room above the highest
    // peak without overflowing, and where the powers pass what the float32 line holds, the plot
    // says so instead of staying blank.
    void powersNearDoublesLimitsKeepTheAxisFinite()
    {
        struct FixedSpectrum : gpu::Spectrum
        {
            explicit FixedSpectrum(double top)
            {
                m_grid = {0.1, 0.01, 100, false};
                m_max = top;
            }
            gpu::Status read(std::span<double>) const override
            {
                return gpu::Status::failure("not stored");
            }
            gpu::Status decimate(const gpu::SpectrumAxis&, std::span<float>) const override
            {
                return gpu::Status::failure("not stored");
            }
        };
        auto devices = std::make_shared<gpu::DevicePool>(gpu::BackendKind::Cpu, -1, nullptr);
        ui::SpectrumView view(devices);
        view.resize(600, 300);
        for (const double top : {0.8, 1e38, 1e300, 1.7e308}) {
            view.setSpectrum(std::make_shared<FixedSpectrum>(top));
            const double peak = view.yPixel(top), zero = view.yPixel(0.0);
            QVERIFY2(std::isfinite(peak) && std::isfinite(zero), qPrintable(QString::number(top)));
            QVERIFY2(peak < zero, qPrintable(QString::number(top))); // above the axis's foot
            QCOMPARE(view.undrawable().isEmpty(), top < 3.4e38);
        }
        QVERIFY2(view.undrawable().startsWith("The powers reach 1.7e+308"),
                 qPrintable(view.undrawable()));
    }

    // A fitted sinusoid whose error is infinite or undefined is listed by its value alone.
    void anErrorThatIsNotFiniteIsLeftOut()
    {
        ui::PrewhiteningPanel panel;
        gpu::FittedSinusoid s;
        s.frequency = 0.25;
        s.amplitude = 1.5;
        s.phase = 0.125;
        s.frequencyError = std::numeric_limits<double>::infinity();
        s.amplitudeError = std::numeric_limits<double>::quiet_NaN();
        s.phaseError = 0.0123;
        panel.setSinusoids({s}, gpu::TimeUnit::Day);
        QCOMPARE(panel.table()->item(0, 0)->text(), QString("0.25"));
        QCOMPARE(panel.table()->item(0, 2)->text(), QString("1.5"));
        QCOMPARE(panel.table()->item(0, 3)->text(), QString("0.125 ± 0.012"));
    }
};

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    PlotLimitsTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "PlotLimitsTest.moc"
