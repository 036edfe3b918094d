#pragma once

#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/render/FieldRenderer.h"
#include "warpscope/scene/FieldScene.h"

#include <QWidget>
#include <array>
#include <functional>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace warpscope::ui {

// Chooses the kernel and, for the teaching kernel, its launch configuration and overlay.
// Fields accept any number so that an impossible launch can be explained at the field, with
// the limit that it breaks and the device's value.
class LaunchPanel : public QWidget
{
    Q_OBJECT

public:
    explicit LaunchPanel(QWidget* parent = nullptr);

    void setDevice(const gpu::DeviceInfo& device);
    // The teaching launch when it is chosen and valid for the device, else std::nullopt.
    std::optional<gpu::LessonLaunch> lesson() const;
    bool teachingChosen() const;
    render::Overlay overlay() const;
    // Sets the grid to the fewest blocks that cover an nx x ny mesh.
    void fitGrid(int nx, int ny);
    // The mesh size "Fit grid to mesh" uses.
    void setMeshSize(int nx, int ny)
    {
        m_nx = nx;
        m_ny = ny;
    }
    // Chooses the teaching kernel with this launch and overlay (for the command line).
    void chooseTeaching(const gpu::LaunchConfig& launch, bool gridStride, render::Overlay overlay);
    // The fields as a lesson scene, its grid marked fitted when it is the one that fits the
    // mesh; std::nullopt, with the reason in problem, while a field is not a whole number.
    std::optional<scene::LessonScene> settings(QString* problem = nullptr) const;
    // Sets every field from a lesson scene; a fitted grid fits the mesh size.
    void setSettings(const scene::LessonScene& lesson);
    QString errorText() const;
    QLineEdit* field(const char* name) const;
    // Where the occupancy of the teaching kernel at a block size comes from (the view's
    // device); without it the panel shows none.
    using OccupancySource =
        std::function<std::optional<gpu::KernelOccupancy>(long long blockThreads)>;
    void setOccupancySource(OccupancySource source);
    QString occupancyText() const;
    // Sets the block to the size the occupancy API (or calculator) suggests, and fits the grid.
    void chooseAutoBlock();

signals:
    void changed();
    // The user asks for a sweep of measured time against block size.
    void sweepRequested();

private:
    std::optional<gpu::LaunchConfig> readLaunch(QStringList& problems) const;
    void revalidate();

    QComboBox* m_kernel;
    std::array<QLineEdit*, 3> m_block;
    std::array<QLineEdit*, 3> m_grid;
    QCheckBox* m_gridStride;
    QComboBox* m_overlay;
    QLabel* m_overlayNote;
    QLabel* m_errors;
    QLabel* m_note;
    QLabel* m_occupancy;
    OccupancySource m_occupancySource;
    gpu::DeviceInfo m_device;
    int m_nx = 1000, m_ny = 1000;
};

} // namespace warpscope::ui
