// The periodogram's entry points: each request is validated here, once, then computed by the
// implementation for the context's device.
#include "periodogram/PeriodogramShared.h"
#include "periodogram/SpectrumSupport.h"
#include "runtime/CpuContext.h"

#include <string>

namespace warpscope::gpu {

Status checkPeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                        std::size_t powerSize, const DeviceInfo& device,
                        PeriodogramMoments& moments)
{
    if (const auto problems = validatePeriodogram(series, options, moments); !problems.empty())
        return Status::failure(problems.front().message);
    if (const auto errors = validatePeriodogramLaunch(options.launch, device); !errors.empty())
        return Status::failure(errors.front().message);
    if (powerSize < std::size_t(options.grid.count))
        return Status::failure("The output holds " + std::to_string(powerSize) +
                               " values; the grid has " + std::to_string(options.grid.count));
    return Status::success();
}

Status checkPowers(long long nonFinite, long long unevaluated, const PeriodogramOptions& options)
{
    const long long bad = nonFinite - unevaluated;
    if (bad <= 0)
        return Status::success();
    const bool exactFit = options.normalization == Normalization::Model ||
                          options.normalization == Normalization::Log;
    return Status::failure(
        "The periodogram failed: " + std::to_string(bad) + " of its " +
        std::to_string(options.grid.count - unevaluated) +
        " powers came out as NaN or infinity, so none is shown. " +
        (exactFit ? std::string("The ") + normalizationName(options.normalization) +
                        " power is infinite where the sinusoid fits the data exactly (data "
                        "without noise): use the standard normalisation"
                  : std::string("The sums lost all their digits; this is a defect, not a "
                                "property of the data")));
}

Status computePeriodogram(Context& context, const TimeSeries& series,
                          const PeriodogramOptions& options, std::span<double> power,
                          double* kernelMs)
{
    PeriodogramMoments moments;
    {
        // O(N) host work before any launch, shown so that the call's time adds up.
        const ScopedHostSpan span(context.timeline(), context.hostLane(), "periodogram check");
        if (Status s = checkPeriodogram(series, options, power.size(), context.info(), moments); !s)
            return s;
    }
    double ms = 0.0;
    const Status status = context.isCuda()
                              ? computePeriodogramCuda(context, series, moments, options, power, ms)
                              : computePeriodogramCpu(context, series, moments, options, power, ms);
    if (status && kernelMs)
        *kernelMs = ms;
    return status;
}

Status computeSpectrum(Context& context, const TimeSeries& series,
                       const PeriodogramOptions& options, std::shared_ptr<const Spectrum>& spectrum)
{
    PeriodogramMoments moments;
    {
        const ScopedHostSpan span(context.timeline(), context.hostLane(), "periodogram check");
        if (Status s = checkPeriodogram(series, options, std::size_t(options.grid.count),
                                        context.info(), moments);
            !s)
            return s;
    }
    return context.isCuda() ? computeSpectrumCuda(context, series, moments, options, spectrum)
                            : computeSpectrumCpu(context, series, moments, options, spectrum);
}

KernelOccupancy periodogramOccupancy(Context& context, Precision precision, long long blockThreads)
{
    return context.isCuda() ? periodogramOccupancyCuda(context, precision, blockThreads)
                            : periodogramOccupancyCpu(context, precision, blockThreads);
}

Status writeSpectrumLine(Context& context, const Spectrum& spectrum, const SpectrumAxis& axis,
                         BufferView<float> out)
{
    if (Status s = checkDecimation(axis, out.size); !s)
        return s;
    const std::size_t floats = std::size_t(axis.columns) * kSpectrumFloatsPerColumn;
    if (out.space == MemorySpace::Host) {
        // A GPU's decimation records its own spans.
        const ScopedHostSpan span(context.isCuda() ? nullptr : context.timeline(),
                                  context.isCuda() ? -1 : cpuBacking(context).workerLane(0),
                                  "periodogram line", SpanKind::Kernel);
        return spectrum.decimate(axis, std::span<float>(out.data, floats));
    }
    if (!context.isCuda())
        return Status::failure("The CPU cannot write into device memory");
    return writeSpectrumLineCuda(context, spectrum, axis, out.data);
}

} // namespace warpscope::gpu
