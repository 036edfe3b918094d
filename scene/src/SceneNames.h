#pragma once

#include "warpscope/scene/Scene.h"

#include <array>

namespace warpscope::scene {

// The names each enumeration has in a scene file, in the enumeration's order. The command
// line takes the same names, so that a value means one thing wherever it is written.
inline constexpr std::array kWorkspaces{"field", "periodogram", "kernel"};
inline constexpr std::array kKernelTemplates{"perNode", "wholeKernel"};
inline constexpr std::array kPrecisions{"float32", "float64"};
inline constexpr std::array kUnits{"km", "mi", "nmi"};
inline constexpr std::array kOverlays{"distance", "block",   "thread",    "warp",
                                      "sm",       "sectors", "conflicts", "lanes"};
inline constexpr std::array kGridModes{"automatic", "linear", "logarithmic"};
inline constexpr std::array kFrequencyUnits{"ordinary", "angular"};
inline constexpr std::array kAxes{"frequency", "period"};
inline constexpr std::array kNormalizations{"standard", "model", "log", "psd"};
inline constexpr std::array kMethods{"auto", "direct", "matrix"};
inline constexpr std::array kDetrendMethods{"none", "polynomial", "median"};

// Each enumeration's names, found by its type.
constexpr const auto& sceneNames(Workspace)
{
    return kWorkspaces;
}
constexpr const auto& sceneNames(gpu::KernelShape)
{
    return kKernelTemplates;
}
constexpr const auto& sceneNames(gpu::Precision)
{
    return kPrecisions;
}
constexpr const auto& sceneNames(gpu::DistanceUnit)
{
    return kUnits;
}
constexpr const auto& sceneNames(LessonOverlay)
{
    return kOverlays;
}
constexpr const auto& sceneNames(GridMode)
{
    return kGridModes;
}
constexpr const auto& sceneNames(FrequencyUnit)
{
    return kFrequencyUnits;
}
constexpr const auto& sceneNames(FrequencyAxis)
{
    return kAxes;
}
constexpr const auto& sceneNames(gpu::Normalization)
{
    return kNormalizations;
}
constexpr const auto& sceneNames(gpu::PeriodogramMethod)
{
    return kMethods;
}
constexpr const auto& sceneNames(gpu::DetrendMethod)
{
    return kDetrendMethods;
}

} // namespace warpscope::scene
