#include "periodogram/PeriodogramShared.h"

namespace warpscope::gpu {

// Builds without nvcc open no CUDA context, so these are never reached.
Status computePeriodogramCuda(Context&, const TimeSeries&, const PeriodogramMoments&,
                              const PeriodogramOptions&, std::span<double>, double&)
{
    return Status::failure("This build has no CUDA backend");
}

Status computeSpectrumCuda(Context&, const TimeSeries&, const PeriodogramMoments&,
                           const PeriodogramOptions&, std::shared_ptr<const Spectrum>&)
{
    return Status::failure("This build has no CUDA backend");
}

KernelOccupancy periodogramOccupancyCuda(Context&, Precision, long long)
{
    return {};
}

Status writeSpectrumLineCuda(Context&, const Spectrum&, const SpectrumAxis&, float*)
{
    return Status::failure("This build has no CUDA backend");
}

} // namespace warpscope::gpu
