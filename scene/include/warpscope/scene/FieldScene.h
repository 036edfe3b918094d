#pragma once

#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/Status.h"

#include <QString>

namespace warpscope::scene {

// How the teaching kernel colours the mesh. The order is render::Overlay's, which the UI converts
// to by index.
enum class LessonOverlay
{
    Distance,
    Block,
    Thread,
    Warp,
    Sm,
    Sectors,   // a user kernel's warp: global sectors per request (recorded by the simulator)
    Conflicts, // shared-memory bank-conflict ways
    Lanes      // active lanes
};

// The distance field's launch lesson: whether the teaching kernel runs instead of the
// optimised one, and with which launch.
struct LessonScene
{
    bool teaching = false;
    gpu::LaunchConfig launch{{16, 16, 1}, {1, 1, 1}, 0};
    // The grid is the fewest blocks that cover the mesh (launch.grid is then ignored).
    bool gridFitted = true;
    bool gridStride = false;
    LessonOverlay overlay = LessonOverlay::Distance;

    bool operator==(const LessonScene&) const = default;
};

// The distance field workspace: the mesh and its reference points, how it is coloured, and
// the launch lesson.
struct FieldScene
{
    gpu::DistanceParams params;
    QString colormap = QStringLiteral("viridis");
    LessonScene lesson;

    bool operator==(const FieldScene&) const = default;
};

// The grid the lesson launches: launch.grid, or the fewest blocks that cover nx x ny.
gpu::Dim3 lessonGrid(const LessonScene& lesson, int nx, int ny);

// The scene's own checks (gpu::validate and gpu::validateLaunch against the limits every CUDA
// GPU shares), every problem in one message. Whether the renderer knows the colormap is for
// the renderer to say: here the name need only be one it could have.
gpu::Status validate(const FieldScene& field);

} // namespace warpscope::scene
