#include "warpscope/ui/FieldWorkspace.h"

#include "warpscope/ui/DevicePanel.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/ParametersPanel.h"
#include "warpscope/ui/SweepDialog.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QSettings>
#include <QUndoCommand>
#include <QUndoStack>
#include <algorithm>

namespace warpscope::ui {
namespace {

// One parameter change. Consecutive changes with the same merge id (a slider drag, the
// moves of one marker drag) become one step; QUndoStack merges only equal ids other than -1.
class ParamsCommand : public QUndoCommand
{
public:
    ParamsCommand(FieldWorkspace* field, gpu::DistanceParams before, gpu::DistanceParams after,
                  int mergeId, const QString& text)
        : QUndoCommand(text), m_field(field), m_before(std::move(before)),
          m_after(std::move(after)), m_mergeId(mergeId)
    {}
    int id() const override { return m_mergeId; }
    bool mergeWith(const QUndoCommand* other) override
    {
        m_after = static_cast<const ParamsCommand*>(other)->m_after;
        return true;
    }
    void undo() override { m_field->applyParams(m_before); }
    void redo() override { m_field->applyParams(m_after); }

private:
    FieldWorkspace* m_field;
    gpu::DistanceParams m_before, m_after;
    int m_mergeId;
};

QString fieldName(gpu::ParamField field)
{
    switch (field) {
    case gpu::ParamField::LatMin:
        return QObject::tr("minimum latitude");
    case gpu::ParamField::LatMax:
        return QObject::tr("maximum latitude");
    case gpu::ParamField::LonMin:
        return QObject::tr("minimum longitude");
    case gpu::ParamField::LonMax:
        return QObject::tr("maximum longitude");
    case gpu::ParamField::Nx:
        return QObject::tr("columns");
    case gpu::ParamField::Ny:
        return QObject::tr("rows");
    case gpu::ParamField::Precision:
        return QObject::tr("precision");
    case gpu::ParamField::Unit:
        return QObject::tr("units");
    case gpu::ParamField::Radius:
        return QObject::tr("radius");
    case gpu::ParamField::References:
        break;
    }
    return QObject::tr("reference points");
}

// Undo merge ids: a parameter's field, or one id per marker drag above this.
constexpr int kMarkerDragControl = 1000;

} // namespace

FieldWorkspace::FieldWorkspace(const WorkspaceServices& services, bool allowInterop)
    : QObject(services.window), m_services(services), m_multiGpu(gpu::cudaDeviceNames().size() > 1),
      m_view(new FieldView(services.window)), m_panel(new ParametersPanel(services.window)),
      m_device(new DevicePanel(services.window)), m_launch(new LaunchPanel(services.window)),
      m_undo(new QUndoStack(this)), m_backendLabel(new QLabel(services.window)),
      m_meshLabel(new QLabel(services.window)), m_timeLabel(new QLabel(services.window))
{
    m_view->setDevices(m_services.devices, allowInterop);
    m_backendLabel->setObjectName("backendLabel");
    m_timeLabel->setObjectName("timeLabel");
    m_backendLabel->setText(tr("Starting…"));
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(300);
    m_docks = {{makeDock(tr("Parameters"), "parametersDock", scroll)},
               {makeDock(tr("Device"), "deviceDock", m_device)},
               {makeDock(tr("Launch"), "launchDock", m_launch)}};
    m_committed = m_panel->params();
    m_view->setParams(m_committed);
    updatePrecisionHint(m_committed);
    connectPanels();
    connectView();
    // GPU spans resolve once the device has finished them; gathered a few times a second.
    m_statusTimer.setInterval(250);
    connect(&m_statusTimer, &QTimer::timeout, this, &FieldWorkspace::refreshStatus);
    m_statusTimer.start();
}

FieldWorkspace::~FieldWorkspace() = default;

QString FieldWorkspace::title() const
{
    return tr("Distance field");
}

QWidget* FieldWorkspace::page()
{
    return m_view;
}

QDockWidget* FieldWorkspace::makeDock(const QString& title, const char* name, QWidget* content)
{
    auto* dock = new QDockWidget(title, m_services.window);
    dock->setObjectName(name);
    dock->setWidget(content);
    return dock;
}

QList<WorkspaceDock> FieldWorkspace::docks()
{
    return m_docks;
}

QList<QWidget*> FieldWorkspace::statusWidgets()
{
    return {m_meshLabel, m_timeLabel, m_backendLabel};
}

void FieldWorkspace::addActions(const WorkspaceMenus& menus)
{
    connect(menus.addEditAction(tr("Reset to &Defaults")), &QAction::triggered, this,
            [this] { commit(gpu::DistanceParams{}, -1, tr("Reset to defaults")); });
    QAction* fit = menus.addViewAction(tr("&Fit Mesh"));
    fit->setShortcut(Qt::Key_Home);
    connect(fit, &QAction::triggered, m_view, &FieldView::fitView);
    QAction* zoomIn = menus.addViewAction(tr("Zoom &In"));
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    connect(zoomIn, &QAction::triggered, m_view, [this] { m_view->zoomBy(1.25); });
    QAction* zoomOut = menus.addViewAction(tr("Zoom &Out"));
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    connect(zoomOut, &QAction::triggered, m_view, [this] { m_view->zoomBy(0.8); });
}

void FieldWorkspace::connectPanels()
{
    connect(m_panel, &ParametersPanel::edited, this, &FieldWorkspace::onEdited);
    connect(m_panel, &ParametersPanel::colormapChanged, m_view, &FieldView::setColormap);
    connect(m_panel, &ParametersPanel::selectedReferenceChanged, m_view,
            &FieldView::setSelectedReference);
    m_launch->setOccupancySource(
        [this](long long threads) { return m_view->lessonOccupancy(threads); });
    connect(m_launch, &LaunchPanel::sweepRequested, this, &FieldWorkspace::startSweep);
    connect(m_device, &DevicePanel::deviceChosen, this, [this](int index) {
        m_services.devices->setOrdinal(index);
        m_view->update(); // the field reopens its context on the next frame
    });
    connect(m_launch, &LaunchPanel::changed, this, [this] {
        // An invalid launch leaves the last valid one in place; the panel says why.
        if (!m_launch->teachingChosen())
            m_view->setLesson(std::nullopt, m_launch->overlay());
        else if (const auto lesson = m_launch->lesson())
            m_view->setLesson(lesson, m_launch->overlay());
    });
}

void FieldWorkspace::connectView()
{
    WorkspaceHost* host = m_services.host;
    connect(m_view, &FieldView::referenceMoved, this, &FieldWorkspace::onReferenceMoved);
    connect(m_view, &FieldView::referenceAdded, this, &FieldWorkspace::onReferenceAdded);
    connect(m_view, &FieldView::hoverText, this,
            [host](const QString& text) { host->showMessage(text); });
    connect(m_view, &FieldView::backendReady, this,
            [this](const QString& description, const QString& device) {
                m_backendLabel->setText(description);
                m_device->setDevice(m_view->deviceInfo());
                m_device->setDevices(gpu::cudaDeviceNames(), m_view->deviceInfo().ordinal);
                m_launch->setDevice(m_view->deviceInfo());
                m_backendLabel->setToolTip(tr("Backend device: %1").arg(device));
            });
    connect(m_view, &FieldView::computeFailed, this, [this, host](const QString& message) {
        m_panel->showComputeError(message);
        host->showMessage(message, 10000);
    });
    connect(m_view, &FieldView::fieldShown, this, [this](const gpu::DistanceParams& p) {
        m_panel->showComputeError(QString());
        m_meshLabel->setText(
            tr("%1 x %2 %3").arg(p.nx).arg(p.ny).arg(gpu::precisionName(p.precision)));
        refreshStatus();
    });
    connect(m_view, &FieldView::resultReady, this, [this](const gpu::FieldResult& result) {
        const double ms = result.kernelMs;
        m_timeLabel->setText(tr("kernel %1 ms").arg(ms, 0, 'f', ms < 1 ? 3 : 1));
    });
}

void FieldWorkspace::deviceKnown(const gpu::DeviceInfo& device)
{
    // The field starts its backend when first shown; until then, as when the app opens on
    // another workspace, the panel describes that workspace's device rather than stay empty.
    if (m_device->value(tr("Device")).isEmpty())
        m_device->setDevice(device);
}

SweepDialog* FieldWorkspace::startSweep()
{
    auto* dialog = new SweepDialog(m_committed, m_services.devices, m_services.window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    dialog->start();
    return dialog;
}

void FieldWorkspace::setParams(const gpu::DistanceParams& params)
{
    applyParams(params);
    m_panel->showErrors(gpu::validate(params));
}

void FieldWorkspace::setColormap(const QString& name)
{
    m_panel->setColormap(name);
    m_view->setColormap(name);
}

void FieldWorkspace::applyParams(const gpu::DistanceParams& params)
{
    m_launch->setMeshSize(params.nx, params.ny);
    m_committed = params;
    m_panel->setParams(params);
    m_panel->showErrors({});
    m_view->setParams(params);
    emit meshChanged(params);
    updatePrecisionHint(params);
}

bool FieldWorkspace::writeScene(scene::Scene& s, QString* problem)
{
    s.field.params = m_committed; // the mesh shown; the panel may hold a value it refused
    s.field.colormap = m_view->colormapName();
    const auto lesson = m_launch->settings(problem);
    if (!lesson)
        return false;
    s.field.lesson = *lesson;
    return true;
}

void FieldWorkspace::readScene(const scene::Scene& s, const QString& /*file*/)
{
    setColormap(s.field.colormap);
    // The mesh first: a fitted launch grid fits the new mesh.
    if (s.field.params == m_committed)
        applyParams(s.field.params); // no step, but a value the panel refused goes
    else
        commit(s.field.params, -1, tr("Open scene"));
    m_launch->setSettings(s.field.lesson);
}

QString FieldWorkspace::failure(bool shown) const
{
    // The Launch panel's launch runs on every page that draws on the mesh.
    if (QString launch = m_launch->errorText(); !launch.isEmpty())
        return launch;
    return shown ? m_view->failureText() : QString();
}

bool FieldWorkspace::ready(bool shown) const
{
    // A hidden field view does not paint, so it settles only when shown.
    return !shown || (m_view->frameSettled() && m_view->shownParams() == m_view->params());
}

void FieldWorkspace::commit(const gpu::DistanceParams& params, int mergeId, const QString& text)
{
    if (params == m_committed)
        return;
    m_undo->push(new ParamsCommand(this, m_committed, params, mergeId, text));
}

void FieldWorkspace::onEdited(gpu::ParamField field)
{
    const gpu::DistanceParams p = m_panel->params();
    const auto errors = gpu::validate(p);
    m_panel->showErrors(errors);
    if (errors.empty())
        commit(p, int(field), tr("Change %1").arg(fieldName(field)));
}

void FieldWorkspace::onReferenceMoved(int index, gpu::GeoPoint point, bool finished)
{
    gpu::DistanceParams p = m_committed;
    if (index < 0 || index >= int(p.references.size()))
        return;
    point.lat = std::clamp(point.lat, -90.0, 90.0);
    point.lon = std::clamp(point.lon, -180.0, 360.0);
    p.references[index] = point;
    // One drag is one undo step: its moves share an id, and the next drag gets a new one.
    commit(p, kMarkerDragControl + m_dragSerial * gpu::kMaxReferencePoints + index,
           tr("Move reference point %1").arg(index + 1));
    if (finished)
        m_dragSerial = (m_dragSerial + 1) % 1000;
}

void FieldWorkspace::onReferenceAdded(gpu::GeoPoint point)
{
    gpu::DistanceParams p = m_committed;
    if (int(p.references.size()) >= gpu::kMaxReferencePoints) {
        m_services.host->showMessage(
            tr("At most %1 reference points are supported").arg(gpu::kMaxReferencePoints), 5000);
        return;
    }
    p.references.push_back(point);
    commit(p, int(gpu::ParamField::References), tr("Add reference point"));
    m_panel->selectReference(int(p.references.size()) - 1);
}

void FieldWorkspace::updatePrecisionHint(const gpu::DistanceParams& params)
{
    if (params.precision != gpu::Precision::Float32) {
        m_panel->setPrecisionHint(QString());
        return;
    }
    const gpu::PrecisionEstimate e = gpu::estimateFloat32Error(params);
    // It matters once float32's error reaches a quarter of a cell.
    if (e.maxFloat32Error > 0.25 * e.cellSize) {
        const char* unit = gpu::unitSymbol(params.unit);
        m_panel->setPrecisionHint(
            tr("float32 is off by up to %1 %2 on this mesh, %3 of a cell (%4 %2). "
               "Choose float64 for exact values.")
                .arg(e.maxFloat32Error, 0, 'g', 3)
                .arg(unit)
                .arg(e.maxFloat32Error >= e.cellSize ? tr("more than the size")
                                                     : tr("a large part"))
                .arg(e.cellSize, 0, 'g', 3));
    } else {
        m_panel->setPrecisionHint(QString());
    }
}

void FieldWorkspace::refreshStatus()
{
    if (const QString problem = m_view->collectTimeline(); !problem.isEmpty())
        m_services.timelinePanel->setProblem(problem);
    // With several GPUs the parts of the app may compute on different ones: say which.
    const QString where = QString::fromStdString(m_services.devices->summary());
    if (where == m_where)
        return;
    m_where = where;
    m_backendLabel->setToolTip(where);
    m_device->setUse(where);
    // Until the field starts (it does when first shown), the label says where the parts
    // shown instead compute rather than "Starting…".
    if ((m_multiGpu || m_view->backendDescription().isEmpty()) && !where.isEmpty())
        m_backendLabel->setText(where);
}

QString FieldWorkspace::restoreSettings(const QSettings& s)
{
    if (!s.contains("scene/latMin"))
        return {};
    gpu::DistanceParams p;
    p.latMin = s.value("scene/latMin", p.latMin).toDouble();
    p.latMax = s.value("scene/latMax", p.latMax).toDouble();
    p.lonMin = s.value("scene/lonMin", p.lonMin).toDouble();
    p.lonMax = s.value("scene/lonMax", p.lonMax).toDouble();
    p.nx = s.value("scene/nx", p.nx).toInt();
    p.ny = s.value("scene/ny", p.ny).toInt();
    p.precision = s.value("scene/precision").toString() == "float64" ? gpu::Precision::Float64
                                                                     : gpu::Precision::Float32;
    p.unit = gpu::DistanceUnit(std::clamp(s.value("scene/unit", 0).toInt(), 0, 2));
    p.radiusKm = s.value("scene/radiusKm", p.radiusKm).toDouble();
    const QVariantList refs = s.value("scene/references").toList();
    if (!refs.isEmpty()) {
        p.references.clear();
        for (const QVariant& r : refs) {
            const QStringList parts = r.toString().split(',');
            p.references.push_back({parts.value(0).toDouble(), parts.value(1).toDouble()});
        }
    }
    setColormap(s.value("scene/colormap", "viridis").toString());
    if (!gpu::validate(p).empty())
        return tr("The saved scene was not valid; the default scene is shown instead.");
    setParams(p);
    return {};
}

void FieldWorkspace::saveSettings(QSettings& s)
{
    const gpu::DistanceParams& p = m_committed;
    s.setValue("scene/latMin", p.latMin);
    s.setValue("scene/latMax", p.latMax);
    s.setValue("scene/lonMin", p.lonMin);
    s.setValue("scene/lonMax", p.lonMax);
    s.setValue("scene/nx", p.nx);
    s.setValue("scene/ny", p.ny);
    s.setValue("scene/precision", gpu::precisionName(p.precision));
    s.setValue("scene/unit", int(p.unit));
    s.setValue("scene/radiusKm", p.radiusKm);
    QVariantList refs;
    for (const gpu::GeoPoint& r : p.references)
        refs << QString("%1,%2").arg(r.lat, 0, 'g', 17).arg(r.lon, 0, 'g', 17);
    s.setValue("scene/references", refs);
    s.setValue("scene/colormap", m_view->colormapName());
}

} // namespace warpscope::ui
