#pragma once

#include "warpscope/scene/Scene.h"

namespace warpscope::scene {

// The ways into the app that Help > Getting started offers, each a ready scene.
enum class StartingPath
{
    Kernel,    // explore a kernel: the Ripples example in the Kernel workspace
    Blocks,    // teach grids and blocks: a small mesh coloured by the block of each node
    LightCurve // analyse a light curve: the synthetic series' periodogram, by period
};

// The scene a path opens: the defaults with what the path needs set, so that it runs at once
// (the kernel is a built-in example, which runs without asking).
Scene startingScene(StartingPath path);

} // namespace warpscope::scene
