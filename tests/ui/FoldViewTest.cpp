#include "warpscope/ui/FoldView.h"

#include <QTest>
#include <cmath>
#include <limits>
#include <numbers>

using namespace warpscope;

// The fold as a reader of the plot sees it: what each graph holds, checked against values
// worked out by hand here.
class FoldViewTest : public QObject
{
    Q_OBJECT

private:
    static std::vector<std::pair<double, double>> points(const QCPGraph* graph)
    {
        std::vector<std::pair<double, double>> out;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            out.emplace_back(it->key, it->value);
        return out;
    }

    static bool allFinite(const QCPGraph* graph)
    {
        for (const auto& [x, y] : points(graph))
            if (!std::isfinite(x) || !std::isfinite(y))
                return false;
        return true;
    }

private slots:
    // Every point appears twice, at its phase and one cycle later, all within [0, 2).
    void drawsTwoCycles()
    {
        ui::FoldView fold;
        gpu::TimeSeries s;
        s.t = {0.1, 0.35, 0.8, 1.45, 2.9};
        s.y = {1.0, 2.0, 3.0, 4.0, 5.0};
        fold.setFold(s, 1.0, {}, "1", "y");
        const auto drawn = points(fold.pointsGraph());
        QCOMPARE(drawn.size(), std::size_t(10));
        for (const auto& [x, y] : drawn)
            QVERIFY(x >= 0.0 && x < 2.0);
        // t = 1.45 at frequency 1: phase 0.45 and 1.45, both with y = 4.
        int found = 0;
        for (const auto& [x, y] : drawn)
            if (std::abs(x - 0.45) < 1e-12 || std::abs(x - 1.45) < 1e-12) {
                QCOMPARE(y, 4.0);
                ++found;
            }
        QCOMPARE(found, 2);
        QCOMPARE(fold.xAxis->range().lower, 0.0);
        QCOMPARE(fold.xAxis->range().upper, 2.0);
    }

    // Four bins: the first holds phases 0.01, 0.02 and 0.03 (t = 1.03) with dy 1, 2 and 0.5,
    // so weights 1, 1/4 and 4: (1 + 3/4 + 20) / (1 + 1/4 + 4) = 21.75 / 5.25. The third holds
    // one point; the second and fourth none, and are not drawn.
    void binsAreWeightedMeans()
    {
        ui::FoldView fold;
        fold.setBins(4);
        gpu::TimeSeries s;
        s.t = {0.01, 0.02, 0.6, 1.03};
        s.y = {1.0, 3.0, -2.0, 5.0};
        s.dy = {1.0, 2.0, 1.0, 0.5};
        fold.setFold(s, 1.0, {}, "1", "y");
        const auto bins = points(fold.binnedGraph());
        QCOMPARE(bins.size(), std::size_t(4));
        const double first = 21.75 / 5.25;
        const std::vector<std::pair<double, double>> expected{
            {0.125, first}, {0.625, -2.0}, {1.125, first}, {1.625, -2.0}};
        for (std::size_t i = 0; i < bins.size(); ++i) {
            QCOMPARE(bins[i].first, expected[i].first);
            QVERIFY2(std::abs(bins[i].second - expected[i].second) < 1e-14,
                     qPrintable(QString::number(bins[i].second, 'g', 17)));
        }
        // Error bars for every point drawn, twice.
        auto* errors = fold.findChild<QCPErrorBars*>();
        QVERIFY(errors);
        QCOMPARE(errors->dataCount(), 8);
        // Without dy, every point weighs the same.
        s.dy.clear();
        fold.setFold(s, 1.0, {}, "1", "y");
        QCOMPARE(points(fold.binnedGraph())[0].second, 3.0);
    }

    // The model line is offset + sum_k a_k cos(2 pi k phase) + b_k sin(2 pi k phase) over two
    // cycles, written out here term by term.
    void modelIsTheFormula()
    {
        ui::FoldView fold;
        ui::FoldModel model;
        model.epoch = 3.0;
        model.offset = 0.5;
        model.harmonics = {{1.0, 2.0}, {0.3, -0.1}};
        model.parameters = {"period 2", "amplitude 2.236"};
        gpu::TimeSeries s;
        s.t = {3.0, 3.5, 4.2};
        s.y = {0.0, 1.0, 2.0};
        fold.setFold(s, 0.5, model, "2", "flux");
        const auto line = points(fold.modelGraph());
        QVERIFY(line.size() > 100);
        QCOMPARE(line.front().first, 0.0);
        QCOMPARE(line.back().first, 2.0);
        for (const auto& [p, y] : line) {
            const double x = 2.0 * std::numbers::pi * p;
            const double expected = 0.5 + 1.0 * std::cos(x) + 2.0 * std::sin(x) +
                                    0.3 * std::cos(2.0 * x) - 0.1 * std::sin(2.0 * x);
            QVERIFY2(std::abs(y - expected) < 1e-12, qPrintable(QString::number(p)));
        }
        QVERIFY(fold.caption().contains("period 2"));
        QVERIFY(fold.caption().contains("amplitude 2.236"));
        QVERIFY(fold.xAxis->label().contains("period 2"));
        QCOMPARE(fold.yAxis->label(), QString("flux"));
        // The model's phase 0 is at the epoch: t = 3.5 at frequency 0.5 is phase 0.25.
        bool quarter = false;
        for (const auto& [x, y] : points(fold.pointsGraph()))
            quarter = quarter || (std::abs(x - 0.25) < 1e-12 && y == 1.0);
        QVERIFY(quarter);
    }

    // Points with a value that is not finite, or a dy that is not positive, are left out and
    // counted; nothing drawn is NaN, and a model that is not finite is not drawn.
    void skipsNonFiniteInput()
    {
        ui::FoldView fold;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        gpu::TimeSeries s;
        s.t = {0.1, 0.2, inf, 0.4, 0.5, 0.6};
        s.y = {1.0, nan, 1.0, 2.0, 3.0, 4.0};
        s.dy = {1.0, 1.0, 1.0, 0.0, 1.0, nan};
        ui::FoldModel model;
        model.offset = 1.0;
        model.harmonics = {{nan, 0.0}};
        fold.setFold(s, 1.0, model, "1", "y");
        QCOMPARE(fold.skippedPoints(), std::size_t(4));
        QCOMPARE(fold.pointsGraph()->dataCount(), 4);
        QVERIFY(fold.caption().contains("4 points not finite"));
        QCOMPARE(fold.modelGraph()->dataCount(), 0);
        QVERIFY(fold.caption().contains("model is not finite"));
        for (const QCPGraph* g : {fold.pointsGraph(), fold.binnedGraph(), fold.modelGraph()})
            QVERIFY(allFinite(g));
        QVERIFY(!fold.caption().contains("nan", Qt::CaseInsensitive));
        QVERIFY(std::isfinite(fold.yAxis->range().lower) &&
                std::isfinite(fold.yAxis->range().upper));
        // A frequency that is not a positive number folds nothing, and says so.
        fold.setFold(s, nan, {}, "1", "y");
        QCOMPARE(fold.pointsGraph()->dataCount(), 0);
        QVERIFY(fold.caption().contains("frequency"));
        fold.clearFold("Nothing to fold");
        QCOMPARE(fold.caption(), QString("Nothing to fold"));
        QCOMPARE(fold.binnedGraph()->dataCount(), 0);
    }

    // Values and errors near double's limits are drawn in units of a power of ten, and their
    // bins' sums do not overflow: each bin holds +-1e308 alike, so its mean is the same.
    void hugeValuesKeepTheirBins()
    {
        ui::FoldView fold;
        fold.setBins(2);
        gpu::TimeSeries s;
        for (int i = 0; i < 40; ++i) {
            s.t.push_back(0.01 + i * 0.025);
            s.y.push_back(s.t.back() < 0.5 ? 1e308 : -1e308);
            s.dy.push_back(1e306 * (1 + i % 3));
        }
        fold.setFold(s, 1.0, {}, "1", "y");
        QVERIFY2(fold.yAxis->label().contains("1e308"), qPrintable(fold.yAxis->label()));
        const auto bins = points(fold.binnedGraph());
        QCOMPARE(bins.size(), std::size_t(4));
        QVERIFY(std::abs(bins[0].second - 1.0) < 1e-12 && std::abs(bins[1].second + 1.0) < 1e-12);
        QVERIFY(fold.yAxis->range().lower < -1.0 && fold.yAxis->range().upper > 1.0);
    }

    // Julian dates near 2.46e6 at 10 cycles a day: the phase is as exact as the times
    // themselves (a double near 2.46e6 days resolves 4.7e-10 days, 5e-9 cycles here).
    void phaseKeepsJulianDateAccuracy()
    {
        const double epoch = 2460123.4567;
        const double f = 10.123;
        for (int k = 0; k < 1000; k += 37) {
            const double t = epoch + (k + 0.3) / f;
            QVERIFY2(std::abs(ui::FoldView::phaseOf(t, epoch, f) - 0.3) < 1e-8,
                     qPrintable(QString::number(ui::FoldView::phaseOf(t, epoch, f), 'g', 17)));
        }
        QCOMPARE(ui::FoldView::phaseOf(-1e-300, 0.0, 1.0), 0.0);
        QVERIFY(ui::FoldView::phaseOf(-0.25, 0.0, 1.0) == 0.75);
    }

    // At its smallest the fold is wide enough for its labels, and the phase ticks never run
    // together at any width.
    void ticksNeverRunTogether()
    {
        ui::FoldView fold;
        QVERIFY(fold.minimumWidth() >= 300);
        gpu::TimeSeries s;
        for (int i = 0; i < 50; ++i) {
            s.t.push_back(i * 0.37);
            s.y.push_back(std::sin(i * 0.37));
        }
        fold.setFold(s, 1.0 / 6.28, {}, "6.28", "y");
        for (const int width : {320, 400, 700, 1200}) {
            fold.resize(width, 300);
            fold.show();
            QVERIFY(QTest::qWaitForWindowExposed(&fold));
            fold.replot();
            const QVector<double> ticks = fold.xAxis->tickVector();
            const QVector<QString> labels = fold.xAxis->tickVectorLabels();
            QVERIFY(ticks.size() >= 3);
            const QFontMetrics metrics(fold.xAxis->tickLabelFont());
            for (qsizetype i = 1; i < ticks.size(); ++i) {
                const double gap =
                    fold.xAxis->coordToPixel(ticks[i]) - fold.xAxis->coordToPixel(ticks[i - 1]);
                const int need = (metrics.horizontalAdvance(labels[i]) +
                                  metrics.horizontalAdvance(labels[i - 1])) /
                                     2 +
                                 8;
                QVERIFY2(gap >= need,
                         qPrintable(QString("width %1: %2 px between ticks").arg(width).arg(gap)));
            }
        }
    }
};

QTEST_MAIN(FoldViewTest)
#include "FoldViewTest.moc"
