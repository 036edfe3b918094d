#pragma once

#include "warpscope/scene/FieldScene.h"
#include "warpscope/scene/KernelScene.h"
#include "warpscope/scene/LabScene.h"
#include "warpscope/scene/PeriodogramScene.h"

namespace warpscope::scene {

enum class Workspace
{
    Field,
    Periodogram,
    Kernel
};

// Everything a person sets up in the window, apart from data files and the layout: each
// workspace's settings and which workspace is shown.
struct Scene
{
    FieldScene field;
    PeriodogramScene periodogram;
    LabScene lab;
    KernelScene kernel;
    Workspace workspace = Workspace::Field;

    bool operator==(const Scene&) const = default;
};

// validate() of each part, prefixed with the part's name ("field: ...").
gpu::Status validate(const Scene& scene);

} // namespace warpscope::scene
