#pragma once

#include "phasebins/PhaseBinsPlan.h"

#include <atomic>
#include <span>

// The implementations of phase dispersion and conditional entropy on each kind of device,
// reached through computePhaseDispersion and computeConditionalEntropy once the request is
// validated and planned. Each writes plan.grid.count values into out and its own time into
// computeMs.
namespace warpscope::gpu {

Status phaseDispersionCpu(Context& context, const DispersionPlan& plan, std::span<double> out,
                          const std::atomic<bool>* cancel, double& computeMs);
Status conditionalEntropyCpu(Context& context, const EntropyPlan& plan, std::span<double> out,
                             const std::atomic<bool>* cancel, double& computeMs);

Status phaseDispersionCuda(Context& context, const DispersionPlan& plan, std::span<double> out,
                           double& kernelMs);
Status conditionalEntropyCuda(Context& context, const EntropyPlan& plan, std::span<double> out,
                              double& kernelMs);

} // namespace warpscope::gpu
