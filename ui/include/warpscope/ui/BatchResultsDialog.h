#pragma once

#include "warpscope/scene/BatchSource.h"

#include <QDialog>
#include <QString>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace warpscope::ui {

// A results table of warpscope-batch, to browse: the objects in a sortable, filterable table,
// a histogram of their best periods and a period-power scatter. Selecting an object (a row,
// or its point on the scatter) selects it in both and says so with objectChosen, with its
// light curve's file where it has one: in the run's input folder, as its source file records
// it (scene::BatchSource), else of that name beside the results. An object of a long table
// has no file of its own: source() says which table and columns hold it.
class BatchResultsDialog : public QDialog
{
    Q_OBJECT

public:
    explicit BatchResultsDialog(QWidget* parent = nullptr);

    // Reads a results table (CSV); an error message naming the file, or an empty string.
    QString open(const QString& path);
    // The rows shown (after the filter) and the selected object's id ("" when none).
    int shownRows() const;
    QString selectedId() const;
    void selectObject(const QString& id);

    QTableView* table() const { return m_table; }
    QLineEdit* filter() const { return m_filter; }
    QCustomPlot* scatter() const { return m_scatter; }
    QCustomPlot* histogram() const { return m_histogram; }
    // Where the run took its objects from and its settings; none for results written before
    // runs recorded them, or whose source file is unreadable (sourceProblem says why).
    const std::optional<scene::BatchSource>& source() const { return m_source; }
    const QString& sourceProblem() const { return m_sourceProblem; }
    // The scatter's point of an object, in the plot's pixels (for a click); false when the
    // object has no best period.
    bool pointOf(const QString& id, QPointF& pixel) const;

signals:
    void objectChosen(const QString& id, const QString& lightCurvePath);

private:
    struct Point
    {
        double period, power;
        QString id;
    };
    void fillPlots();
    void clickScatter(const QPointF& pixel);
    void showSelection();

    QLabel* m_summary;
    QLineEdit* m_filter;
    QTableView* m_table;
    QStandardItemModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QCustomPlot* m_histogram;
    QCustomPlot* m_scatter;
    QCPGraph* m_points = nullptr;
    QCPGraph* m_selected = nullptr;
    std::vector<Point> m_pointList;
    QString m_folder;
    std::optional<scene::BatchSource> m_source;
    QString m_sourceProblem;
};

} // namespace warpscope::ui
