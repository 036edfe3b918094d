#include "warpscope/ui/BatchResultsDialog.h"

#include "common/ValueText.h"
#include "warpscope/scene/BatchResults.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

namespace warpscope::ui {
namespace {

enum Column
{
    IdColumn,
    StatusColumn,
    PointsColumn,
    PeriodColumn,
    PowerColumn,
    FapColumn,
    WarningsColumn,
    ColumnCount
};

// What the table sorts by: the number itself where a cell shows it in words.
constexpr int kSortRole = Qt::UserRole + 1;

// A number the table sorts as a number; an empty cell where there is none.
QStandardItem* numberItem(const std::optional<double>& value)
{
    auto* item = new QStandardItem;
    if (value)
        item->setData(*value, Qt::DisplayRole);
    item->setEditable(false);
    return item;
}

// A false-alarm probability as the peak table shows it ("< 1e-300" where it underflowed),
// sorted by its value.
QStandardItem* falseAlarmItem(const std::optional<double>& fap)
{
    QStandardItem* item = numberItem(fap);
    if (fap) {
        item->setData(falseAlarmText(*fap), Qt::DisplayRole);
        item->setData(*fap, kSortRole);
    }
    return item;
}

// Sorts as QSortFilterProxyModel does, except that empty cells (a failed object's numbers)
// go last in either order, so that sorting by power puts the strongest objects first.
class ResultsProxy : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override
    {
        const bool a = left.data().isValid(), b = right.data().isValid();
        if (a != b)
            return sortOrder() == Qt::AscendingOrder ? a : b;
        const QVariant x = left.data(kSortRole), y = right.data(kSortRole);
        if (x.isValid() && y.isValid())
            return QVariant::compare(x, y) == QPartialOrdering::Less;
        return QSortFilterProxyModel::lessThan(left, right);
    }
};

QStandardItem* textItem(const QString& text)
{
    auto* item = new QStandardItem(text);
    item->setEditable(false);
    return item;
}

} // namespace

BatchResultsDialog::BatchResultsDialog(QWidget* parent)
    : QDialog(parent), m_summary(new QLabel(this)), m_filter(new QLineEdit(this)),
      m_table(new QTableView(this)), m_model(new QStandardItemModel(0, ColumnCount, this)),
      m_proxy(new ResultsProxy(this)), m_histogram(new QCustomPlot(this)),
      m_scatter(new QCustomPlot(this))
{
    setWindowTitle(tr("Batch Results"));
    resize(1200, 760);
    m_model->setHorizontalHeaderLabels({tr("Object"), tr("Status"), tr("Points"), tr("Best period"),
                                        tr("Power"), tr("FAP"), tr("Warnings")});
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(-1); // any column
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_filter->setPlaceholderText(tr("Filter: any text of a row (an id, failed, a warning)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { showSelection(); });

    m_histogram->xAxis->setLabel(tr("best period (log10)"));
    m_histogram->yAxis->setLabel(tr("objects"));
    // log10 of the period on a linear axis, as the histogram: a catalogue spans decades, and
    // a logarithmic axis over one or two of them gets crowded linear ticks.
    m_scatter->xAxis->setLabel(tr("best period (log10)"));
    m_scatter->yAxis->setLabel(tr("power"));
    m_points = m_scatter->addGraph();
    m_points->setLineStyle(QCPGraph::lsNone);
    m_points->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(40, 100, 200, 160), 5));
    m_selected = m_scatter->addGraph();
    m_selected->setLineStyle(QCPGraph::lsNone);
    m_selected->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::red, 2), Qt::NoBrush, 12));
    connect(m_scatter, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (event->button() == Qt::LeftButton)
            clickScatter(event->position());
    });

    auto* plots = new QSplitter(Qt::Vertical);
    plots->addWidget(m_histogram);
    plots->addWidget(m_scatter);
    auto* split = new QSplitter(Qt::Horizontal);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_table);
    split->addWidget(left);
    split->addWidget(plots);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
}

QString BatchResultsDialog::open(const QString& path)
{
    std::vector<scene::BatchResult> rows;
    if (const gpu::Status s = scene::readResultsCsv(path.toStdString(), 0, rows); !s)
        return QString::fromStdString(s.message());
    m_folder = QFileInfo(path).absolutePath();
    m_source.reset();
    m_sourceProblem.clear();
    scene::BatchSource source;
    bool recorded = false;
    if (const gpu::Status s = scene::readBatchSource(path.toStdString(), source, recorded); !s)
        m_sourceProblem = QString::fromStdString(s.message());
    else if (recorded)
        m_source = std::move(source);
    m_table->setSortingEnabled(false);
    m_model->removeRows(0, m_model->rowCount());
    int failed = 0, warned = 0;
    for (const scene::BatchResult& r : rows) {
        const scene::BatchPeak* best = r.peaks.empty() ? nullptr : &r.peaks.front();
        failed += r.failed;
        warned += !r.failed && !r.warnings.empty();
        m_model->appendRow({textItem(QString::fromStdString(r.id)),
                            textItem(r.failed ? tr("failed") : tr("ok")),
                            numberItem(double(r.points)),
                            numberItem(best ? std::optional(best->period) : std::nullopt),
                            numberItem(best ? std::optional(best->power) : std::nullopt),
                            falseAlarmItem(best ? best->fap : std::nullopt),
                            textItem(QString::fromStdString(scene::warningsText(r)))});
    }
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the table's order until a header is clicked
    m_proxy->sort(-1);
    QString summary = tr("%1: %2 objects, %3 failed, %4 with warnings")
                          .arg(QDir::toNativeSeparators(path))
                          .arg(rows.size())
                          .arg(failed)
                          .arg(warned);
    if (m_source)
        summary +=
            tr("; from %1").arg(QDir::toNativeSeparators(QString::fromStdString(m_source->input)));
    else if (!m_sourceProblem.isEmpty())
        summary += tr("; its source is unknown: %1").arg(m_sourceProblem);
    m_summary->setText(summary);
    setWindowTitle(tr("Batch Results: %1").arg(QFileInfo(path).fileName()));
    fillPlots();
    return {};
}

int BatchResultsDialog::shownRows() const
{
    return m_proxy->rowCount();
}

QString BatchResultsDialog::selectedId() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? m_proxy->index(current.row(), IdColumn).data().toString()
                             : QString();
}

void BatchResultsDialog::selectObject(const QString& id)
{
    for (int row = 0; row < m_proxy->rowCount(); ++row)
        if (m_proxy->index(row, IdColumn).data().toString() == id) {
            m_table->selectionModel()->setCurrentIndex(m_proxy->index(row, IdColumn),
                                                       QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
            m_table->scrollTo(m_proxy->index(row, IdColumn));
            return;
        }
}

bool BatchResultsDialog::pointOf(const QString& id, QPointF& pixel) const
{
    for (const Point& p : m_pointList)
        if (p.id == id) {
            pixel = {m_scatter->xAxis->coordToPixel(std::log10(p.period)),
                     m_scatter->yAxis->coordToPixel(p.power)};
            return true;
        }
    return false;
}

void BatchResultsDialog::fillPlots()
{
    m_pointList.clear();
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QVariant period = m_model->item(row, PeriodColumn)->data(Qt::DisplayRole);
        const QVariant power = m_model->item(row, PowerColumn)->data(Qt::DisplayRole);
        if (period.isValid() && power.isValid() && period.toDouble() > 0)
            m_pointList.push_back(
                {period.toDouble(), power.toDouble(), m_model->item(row, IdColumn)->text()});
    }
    QVector<double> x, y;
    double lo = 0, hi = 1, top = 1;
    for (const Point& p : m_pointList) {
        x << std::log10(p.period);
        y << p.power;
    }
    m_points->setData(x, y);
    m_selected->data()->clear();
    m_histogram->clearPlottables();
    if (!m_pointList.empty()) {
        lo = hi = std::log10(m_pointList.front().period);
        for (const Point& p : m_pointList) {
            lo = std::min(lo, std::log10(p.period));
            hi = std::max(hi, std::log10(p.period));
        }
        if (hi - lo < 1e-9)
            hi = lo + 1.0;
        constexpr int kBins = 40;
        QVector<double> centres(kBins), counts(kBins, 0.0);
        const double width = (hi - lo) / kBins;
        for (int b = 0; b < kBins; ++b)
            centres[b] = lo + (b + 0.5) * width;
        for (const Point& p : m_pointList)
            counts[std::clamp(int((std::log10(p.period) - lo) / width), 0, kBins - 1)] += 1.0;
        auto* bars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
        bars->setWidth(width);
        bars->setData(centres, counts, true);
        bars->setBrush(QColor(40, 100, 200, 120));
        top = *std::max_element(counts.begin(), counts.end());
        m_histogram->xAxis->setRange(lo - width, hi + width);
        m_histogram->yAxis->setRange(0, top * 1.1);
        m_scatter->xAxis->setRange(lo - 2 * width, hi + 2 * width);
        m_scatter->yAxis->setRange(0, 1.05 * *std::max_element(y.begin(), y.end()));
    }
    m_histogram->replot();
    m_scatter->replot();
}

void BatchResultsDialog::clickScatter(const QPointF& pixel)
{
    double bestDistance = 8.0; // pixels: a click near a point picks it
    QString id;
    for (const Point& p : m_pointList) {
        const double dx = m_scatter->xAxis->coordToPixel(std::log10(p.period)) - pixel.x();
        const double dy = m_scatter->yAxis->coordToPixel(p.power) - pixel.y();
        if (std::hypot(dx, dy) < bestDistance) {
            bestDistance = std::hypot(dx, dy);
            id = p.id;
        }
    }
    if (!id.isEmpty()) {
        m_filter->clear(); // the object must be in the table to be selected
        selectObject(id);
    }
}

void BatchResultsDialog::showSelection()
{
    const QString id = selectedId();
    m_selected->data()->clear();
    for (const Point& p : m_pointList)
        if (p.id == id)
            m_selected->addData(std::log10(p.period), p.power);
    m_scatter->replot();
    if (id.isEmpty())
        return;
    // The run's input folder first (results written elsewhere), then beside the results.
    for (const QString& file :
         {m_source ? QString::fromStdString(scene::batchObjectFile(*m_source, id.toStdString()))
                   : QString(),
          QDir(m_folder).filePath(id)})
        if (!file.isEmpty() && QFileInfo(file).isFile()) {
            emit objectChosen(id, file);
            return;
        }
    emit objectChosen(id, QString());
}

} // namespace warpscope::ui
