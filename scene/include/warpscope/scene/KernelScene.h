#pragma once

#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/UserKernel.h"

#include <string>
#include <vector>

namespace warpscope::scene {

// One @param's value, by the name the source declares: a float's, an int's (whole) or a
// bool's (0 or 1), which the workspace fits to the declaration (gpu::kernelParamValue).
struct KernelParamValue
{
    std::string name;
    double value = 0.0;
    bool operator==(const KernelParamValue&) const = default;
};

// The Kernel workspace: the user's source and its template (per node or whole kernel), the
// sliders' values and the NVRTC options. The default is the per-node template.
struct KernelScene
{
    gpu::KernelShape shape = gpu::kernelExamples().front().source.shape;
    std::string source = gpu::kernelExamples().front().source.code;
    // Values for the source's @param declarations; one whose name the source no longer
    // declares is ignored, as when a slider's line is deleted.
    std::vector<KernelParamValue> values;
    std::vector<std::string> flags;
    // The Memory tab records the runs (a lesson's scene asks for it).
    bool recordMemory = false;

    bool operator==(const KernelScene&) const = default;
};

// The source's size and bytes, the values' names and finiteness and the options
// (gpu::kernelFlagProblem), every problem in one message. Whether the source compiles is the
// workspace's to show, at its lines.
gpu::Status validate(const KernelScene& kernel);
// Whether the source is one of the built-in examples as written (kernelExamples()): the app's
// own code, which runs without asking. Any other source came from whoever wrote the file.
bool isExample(const KernelScene& kernel);

} // namespace warpscope::scene
