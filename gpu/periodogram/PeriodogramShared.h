#pragma once

#include "periodogram/PeriodogramPlan.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Spectrum.h"

#include <memory>
#include <span>

// The periodogram's implementations on each kind of device, reached through the public
// functions (Periodogram.h, Spectrum.h) once the request is validated, and the checks they
// share.
namespace warpscope::gpu {

// Validates a periodogram and that power can hold its grid. moments: what the check found of
// the series, which the implementations' plans take.
Status checkPeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                        std::size_t powerSize, const DeviceInfo& device,
                        PeriodogramMoments& moments);

// Fails when powers a periodogram evaluated are NaN or infinite: validation scales the data
// so that they should never be, and such a power drawn or exported would pass for a result.
// nonFinite counts every such power; unevaluated, the NaN a launch leaves out on purpose.
Status checkPowers(long long nonFinite, long long unevaluated, const PeriodogramOptions& options);

Status computePeriodogramCpu(Context& context, const TimeSeries& series,
                             const PeriodogramMoments& moments, const PeriodogramOptions& options,
                             std::span<double> power, double& computeMs);
Status computeSpectrumCpu(Context& context, const TimeSeries& series,
                          const PeriodogramMoments& moments, const PeriodogramOptions& options,
                          std::shared_ptr<const Spectrum>& spectrum);
KernelOccupancy periodogramOccupancyCpu(Context& context, Precision precision,
                                        long long blockThreads);

Status computePeriodogramCuda(Context& context, const TimeSeries& series,
                              const PeriodogramMoments& moments, const PeriodogramOptions& options,
                              std::span<double> power, double& kernelMs);
Status computeSpectrumCuda(Context& context, const TimeSeries& series,
                           const PeriodogramMoments& moments, const PeriodogramOptions& options,
                           std::shared_ptr<const Spectrum>& spectrum);
// out is device memory of the context's device.
Status writeSpectrumLineCuda(Context& context, const Spectrum& spectrum, const SpectrumAxis& axis,
                             float* out);
KernelOccupancy periodogramOccupancyCuda(Context& context, Precision precision,
                                         long long blockThreads);

} // namespace warpscope::gpu
