#include "warpscope/ui/ParametersPanel.h"

#include "common/Style.h"
#include "warpscope/render/Colormap.h"
#include "warpscope/ui/NumberField.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace warpscope::ui {
namespace {

const QColor kInvalidCell(120, 30, 34);

double parseCell(const QTableWidgetItem* item)
{
    bool ok = false;
    const double v = item ? item->text().trimmed().toDouble(&ok) : NAN;
    return ok ? v : NAN;
}

} // namespace

ParametersPanel::ParametersPanel(QWidget* parent)
    : QWidget(parent), m_latMin(new NumberField(-90, 90, 4, false, this)),
      m_latMax(new NumberField(-90, 90, 4, false, this)),
      m_lonMin(new NumberField(-180, 360, 4, false, this)),
      m_lonMax(new NumberField(-180, 360, 4, false, this)),
      m_nx(new NumberField(gpu::kMinMeshAxis, 8192, 0, true, this)),
      m_ny(new NumberField(gpu::kMinMeshAxis, 8192, 0, true, this)),
      m_references(new QTableWidget(0, 2, this)), m_addReference(new QPushButton(tr("&Add"), this)),
      m_removeReference(new QPushButton(tr("&Remove"), this)), m_precision(new QComboBox(this)),
      m_unit(new QComboBox(this)), m_radius(new QDoubleSpinBox(this)),
      m_colormap(new QComboBox(this)), m_errors(new QLabel(this)), m_computeError(new QLabel(this)),
      m_hint(new QLabel(this))
{
    m_latMin->setToolTip(tr("Southern edge of the mesh, degrees in [-90, 90]"));
    m_latMax->setToolTip(tr("Northern edge of the mesh, degrees in [-90, 90]"));
    m_lonMin->setToolTip(tr("Western edge of the mesh, degrees in [-180, 360]"));
    m_lonMax->setToolTip(tr("Eastern edge of the mesh, degrees in [-180, 360]"));
    m_nx->setToolTip(
        tr("Mesh nodes along longitude, %1 to %2").arg(gpu::kMinMeshAxis).arg(gpu::kMaxMeshAxis));
    m_ny->setToolTip(
        tr("Mesh nodes along latitude, %1 to %2").arg(gpu::kMinMeshAxis).arg(gpu::kMaxMeshAxis));
    const std::pair<NumberField*, QString> names[] = {{m_latMin, "latMin"}, {m_latMax, "latMax"},
                                                      {m_lonMin, "lonMin"}, {m_lonMax, "lonMax"},
                                                      {m_nx, "nx"},         {m_ny, "ny"}};
    for (const auto& [f, name] : names)
        f->setObjectName(name);

    auto* mesh = new QGroupBox(tr("Mesh"), this);
    auto* meshForm = new QFormLayout(mesh);
    meshForm->addRow(tr("Lat min"), m_latMin);
    meshForm->addRow(tr("Lat max"), m_latMax);
    meshForm->addRow(tr("Lon min"), m_lonMin);
    meshForm->addRow(tr("Lon max"), m_lonMax);
    meshForm->addRow(tr("Columns (nx)"), m_nx);
    meshForm->addRow(tr("Rows (ny)"), m_ny);
    m_computeError->setWordWrap(true);
    m_computeError->setStyleSheet(kErrorText);
    m_computeError->setObjectName("computeError");
    m_computeError->hide();
    meshForm->addRow(m_computeError);

    auto* refs = new QGroupBox(tr("Reference points"), this);
    auto* refsLayout = new QVBoxLayout(refs);
    m_references->setObjectName("references");
    m_references->setHorizontalHeaderLabels({tr("Latitude"), tr("Longitude")});
    m_references->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_references->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_references->setSelectionMode(QAbstractItemView::SingleSelection);
    m_references->setMinimumHeight(110);
    m_references->setToolTip(tr("The field is the distance to the nearest point (up to %1).\n"
                                "Edit a cell, click the map to move the selected point,\n"
                                "Ctrl+click the map to add one, or drag a marker.")
                                 .arg(gpu::kMaxReferencePoints));
    refsLayout->addWidget(m_references);
    auto* refButtons = new QHBoxLayout;
    m_addReference->setToolTip(tr("Add a reference point at the mesh centre (Ctrl+click on the map "
                                  "adds one where you click)"));
    m_removeReference->setToolTip(tr("Remove the selected reference point (Delete)"));
    m_removeReference->setShortcut(QKeySequence::Delete);
    refButtons->addWidget(m_addReference);
    refButtons->addWidget(m_removeReference);
    refsLayout->addLayout(refButtons);

    auto* compute = new QGroupBox(tr("Computation"), this);
    auto* computeForm = new QFormLayout(compute);
    m_precision->addItem("float32", int(gpu::Precision::Float32));
    m_precision->addItem("float64", int(gpu::Precision::Float64));
    m_precision->setToolTip(
        tr("Arithmetic precision of the kernel. float32 loses up to kilometres near the\n"
           "antipode of a reference point; float64 is exact to micrometres."));
    m_unit->addItem(tr("kilometres (km)"), int(gpu::DistanceUnit::Kilometres));
    m_unit->addItem(tr("miles (mi)"), int(gpu::DistanceUnit::Miles));
    m_unit->addItem(tr("nautical miles (nmi)"), int(gpu::DistanceUnit::NauticalMiles));
    m_radius->setObjectName("radius");
    m_radius->setRange(-1e12, 1e12);
    m_radius->setDecimals(4);
    m_radius->setKeyboardTracking(false); // like the mesh fields: typing commits on Enter
    m_radius->setSuffix(" km");
    m_radius->setToolTip(tr("Sphere radius; the default %1 km is the IUGG mean Earth radius")
                             .arg(gpu::kDefaultRadiusKm));
    for (const std::string& name : render::colormapNames())
        m_colormap->addItem(QString::fromStdString(name));
    m_colormap->setToolTip(tr("Perceptually uniform colormaps (turbo is a rainbow for contrast)"));
    computeForm->addRow(tr("Precision"), m_precision);
    computeForm->addRow(tr("Units"), m_unit);
    computeForm->addRow(tr("Radius"), m_radius);
    computeForm->addRow(tr("Colormap"), m_colormap);
    m_hint->setWordWrap(true);
    m_hint->setObjectName("precisionHint");
    m_hint->setStyleSheet(kWarningText);
    m_hint->hide();
    computeForm->addRow(m_hint);

    m_errors->setWordWrap(true);
    m_errors->setObjectName("errors");
    m_errors->setStyleSheet(kErrorText);
    m_errors->hide();

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(mesh);
    layout->addWidget(refs);
    layout->addWidget(compute);
    layout->addWidget(m_errors);
    layout->addStretch(1);

    using gpu::ParamField;
    const std::pair<NumberField*, ParamField> controls[] = {
        {m_latMin, ParamField::LatMin}, {m_latMax, ParamField::LatMax},
        {m_lonMin, ParamField::LonMin}, {m_lonMax, ParamField::LonMax},
        {m_nx, ParamField::Nx},         {m_ny, ParamField::Ny}};
    for (const auto& [f, id] : controls)
        connect(f, &NumberField::edited, this, [this, id = id] { emit edited(id); });
    connect(m_precision, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updating)
            emit edited(gpu::ParamField::Precision);
    });
    connect(m_unit, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updating)
            emit edited(gpu::ParamField::Unit);
    });
    connect(m_radius, &QDoubleSpinBox::valueChanged, this, [this] {
        if (!m_updating)
            emit edited(gpu::ParamField::Radius);
    });
    connect(m_colormap, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        if (!m_updating)
            emit colormapChanged(name);
    });
    connect(m_references, &QTableWidget::itemChanged, this, [this] {
        if (!m_updating)
            emit edited(gpu::ParamField::References);
    });
    connect(m_references, &QTableWidget::itemSelectionChanged, this, [this] {
        if (!m_updating)
            emit selectedReferenceChanged(selectedReference());
    });
    connect(m_addReference, &QPushButton::clicked, this, &ParametersPanel::addReference);
    connect(m_removeReference, &QPushButton::clicked, this, &ParametersPanel::removeReference);
    setParams(gpu::DistanceParams{});
}

gpu::DistanceParams ParametersPanel::params() const
{
    gpu::DistanceParams p;
    p.latMin = m_latMin->value();
    p.latMax = m_latMax->value();
    p.lonMin = m_lonMin->value();
    p.lonMax = m_lonMax->value();
    p.nx = int(std::lround(m_nx->value()));
    p.ny = int(std::lround(m_ny->value()));
    p.references.clear();
    for (int row = 0; row < m_references->rowCount(); ++row)
        p.references.push_back(
            {parseCell(m_references->item(row, 0)), parseCell(m_references->item(row, 1))});
    p.precision = gpu::Precision(m_precision->currentData().toInt());
    p.unit = gpu::DistanceUnit(m_unit->currentData().toInt());
    p.radiusKm = m_radius->value();
    return p;
}

void ParametersPanel::fillReferenceTable(const std::vector<gpu::GeoPoint>& references)
{
    const int selected = selectedReference();
    m_references->setRowCount(int(references.size()));
    for (int row = 0; row < int(references.size()); ++row) {
        const double values[2] = {references[row].lat, references[row].lon};
        for (int col = 0; col < 2; ++col) {
            auto* item = new QTableWidgetItem(QString::number(values[col], 'g', 10));
            m_references->setItem(row, col, item);
        }
    }
    m_references->selectRow(std::clamp(selected, 0, int(references.size()) - 1));
    m_addReference->setEnabled(int(references.size()) < gpu::kMaxReferencePoints);
    m_removeReference->setEnabled(references.size() > 1);
}

void ParametersPanel::setParams(const gpu::DistanceParams& p)
{
    m_updating = true;
    m_latMin->setValue(p.latMin);
    m_latMax->setValue(p.latMax);
    m_lonMin->setValue(p.lonMin);
    m_lonMax->setValue(p.lonMax);
    m_nx->setValue(p.nx);
    m_ny->setValue(p.ny);
    if (p.references != params().references)
        fillReferenceTable(p.references);
    m_precision->setCurrentIndex(m_precision->findData(int(p.precision)));
    m_unit->setCurrentIndex(m_unit->findData(int(p.unit)));
    m_radius->setValue(p.radiusKm);
    m_updating = false;
}

NumberField* ParametersPanel::field(gpu::ParamField f) const
{
    switch (f) {
    case gpu::ParamField::LatMin:
        return m_latMin;
    case gpu::ParamField::LatMax:
        return m_latMax;
    case gpu::ParamField::LonMin:
        return m_lonMin;
    case gpu::ParamField::LonMax:
        return m_lonMax;
    case gpu::ParamField::Nx:
        return m_nx;
    case gpu::ParamField::Ny:
        return m_ny;
    default:
        return nullptr;
    }
}

void ParametersPanel::showErrors(const std::vector<gpu::ParamError>& errors)
{
    QStringList lines;
    for (NumberField* f : {m_latMin, m_latMax, m_lonMin, m_lonMax, m_nx, m_ny})
        f->setError(QString());
    m_radius->setStyleSheet(QString());
    m_updating = true;
    for (int row = 0; row < m_references->rowCount(); ++row)
        for (int col = 0; col < 2; ++col)
            if (auto* item = m_references->item(row, col)) {
                item->setBackground(QBrush());
                item->setToolTip(QString());
            }
    for (const gpu::ParamError& e : errors) {
        const QString message = QString::fromStdString(e.message);
        lines << message;
        if (NumberField* f = field(e.field))
            f->setError(message);
        else if (e.field == gpu::ParamField::Radius)
            m_radius->setStyleSheet("QDoubleSpinBox { border: 2px solid #e5484d; }");
        else if (e.field == gpu::ParamField::References && e.index >= 0)
            for (int col = 0; col < 2; ++col)
                if (auto* item = m_references->item(e.index, col)) {
                    item->setBackground(kInvalidCell);
                    item->setToolTip(message);
                }
    }
    m_updating = false;
    if (!lines.isEmpty())
        lines << tr("The picture shows the last valid parameters.");
    m_errors->setText(lines.join('\n'));
    m_errors->setVisible(!errors.empty());
    if (!errors.empty())
        showComputeError(QString());
}

void ParametersPanel::showComputeError(const QString& message)
{
    m_computeError->setText(
        message.isEmpty()
            ? QString()
            : message + tr("\nThe picture shows the last field that could be computed."));
    m_computeError->setVisible(!message.isEmpty());
    m_nx->setError(message);
    m_ny->setError(message);
}

void ParametersPanel::setPrecisionHint(const QString& hint)
{
    m_hint->setText(hint);
    m_hint->setVisible(!hint.isEmpty());
}

int ParametersPanel::selectedReference() const
{
    const auto rows = m_references->selectionModel()->selectedRows();
    return rows.isEmpty() ? 0 : rows.front().row();
}

void ParametersPanel::selectReference(int index)
{
    m_references->selectRow(index);
}

QString ParametersPanel::colormap() const
{
    return m_colormap->currentText();
}

void ParametersPanel::setColormap(const QString& name)
{
    m_updating = true;
    m_colormap->setCurrentText(name);
    m_updating = false;
}

QString ParametersPanel::errorText() const
{
    return m_errors->isVisible() ? m_errors->text() : QString();
}

void ParametersPanel::addReference()
{
    gpu::DistanceParams p = params();
    if (int(p.references.size()) >= gpu::kMaxReferencePoints)
        return;
    p.references.push_back({0.5 * (p.latMin + p.latMax), 0.5 * (p.lonMin + p.lonMax)});
    m_updating = true;
    fillReferenceTable(p.references);
    m_references->selectRow(int(p.references.size()) - 1);
    m_updating = false;
    emit edited(gpu::ParamField::References);
    emit selectedReferenceChanged(selectedReference());
}

void ParametersPanel::removeReference()
{
    gpu::DistanceParams p = params();
    if (p.references.size() <= 1)
        return;
    const int row = selectedReference();
    p.references.erase(p.references.begin() + row);
    m_updating = true;
    fillReferenceTable(p.references);
    m_references->selectRow(std::min(row, int(p.references.size()) - 1));
    m_updating = false;
    emit edited(gpu::ParamField::References);
    emit selectedReferenceChanged(selectedReference());
}

} // namespace warpscope::ui
