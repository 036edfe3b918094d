#include "warpscope/scene/StartingScenes.h"

#include <algorithm>

namespace warpscope::scene {

Scene startingScene(StartingPath path)
{
    Scene scene;
    switch (path) {
    case StartingPath::Kernel: {
        const auto& examples = gpu::kernelExamples();
        const auto ripples = std::find_if(examples.begin(), examples.end(),
                                          [](const auto& e) { return e.name == "Ripples"; });
        const gpu::KernelExample& example = ripples != examples.end() ? *ripples : examples.front();
        scene.kernel.shape = example.source.shape;
        scene.kernel.source = example.source.code;
        scene.workspace = Workspace::Kernel;
        break;
    }
    case StartingPath::Blocks:
        // 120 x 72 nodes: 8 x 5 blocks of 16 x 16 threads, few enough to count, and a last
        // row and column of blocks that hang over the mesh's edge.
        scene.field.params.nx = 120;
        scene.field.params.ny = 72;
        scene.field.lesson.teaching = true;
        scene.field.lesson.overlay = LessonOverlay::Block;
        scene.workspace = Workspace::Field;
        break;
    case StartingPath::LightCurve:
        // Astronomers read periods, over decades.
        scene.periodogram.xAxis = FrequencyAxis::Period;
        scene.periodogram.logX = true;
        scene.workspace = Workspace::Periodogram;
        break;
    }
    return scene;
}

} // namespace warpscope::scene
