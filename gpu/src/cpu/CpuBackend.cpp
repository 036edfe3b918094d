#include "cpu/CpuBackend.h"

#include "BackendInternal.h"
#include "DistancePlan.h"
#include "GlUpload.h"
#include "periodogram/LombScargle.h"
#include "periodogram/PeriodogramPlan.h"
#include "periodogram/SpectrumSupport.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <unistd.h>

namespace warpscope::gpu {
namespace {

std::size_t availableHostBytes()
{
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
        return std::numeric_limits<std::size_t>::max();
    return std::size_t(pages) * std::size_t(pageSize);
}

} // namespace

namespace {

std::unique_ptr<Context> openCpuContext(unsigned threads)
{
    std::unique_ptr<Context> context;
    Context::open({DeviceKind::Cpu, 0}, context, threads); // the CPU is always there
    return context;
}

} // namespace

CpuBackend::CpuBackend(unsigned threads)
    : m_context(openCpuContext(threads)), m_pool(m_context->hostPool())
{}

std::string CpuBackend::deviceName() const
{
    return m_context->name();
}

Status CpuBackend::checkCapacity(const DistanceParams& params) const
{
    const FieldLayout layout = layoutFor(params);
    const std::size_t valueBytes = params.precision == Precision::Float64 ? 8 : 4;
    const std::size_t needed = layout.elementCount() * (valueBytes + sizeof(float));
    const std::size_t available = availableHostBytes();
    if (needed > available)
        return Status::failure("The mesh needs " + std::to_string(needed >> 20) +
                               " MiB of host memory; only " + std::to_string(available >> 20) +
                               " MiB are available");
    return Status::success();
}

template <typename T, typename Out> void CpuBackend::run(const DistanceParams& params, Out* out)
{
    const DistancePlan<T> plan = makePlan<T>(params);
    const FieldLayout layout = layoutFor(params);
    const int nx = plan.nx;
    const int refs = plan.refCount;

    // Column terms once per frame: sin² of half the longitude difference, per reference.
    std::vector<T> colTerms(std::size_t(refs) * nx);
    m_pool.parallelFor(colTerms.size(), [&](std::size_t b, std::size_t e, unsigned w) {
        const ScopedHostSpan span(timeline(), workerLane(w), "column terms");
        for (std::size_t k = b; k < e; ++k)
            colTerms[k] = planColTerm(plan, int(k % nx), int(k / nx));
    });

    std::vector<Out> mins(m_pool.size(), std::numeric_limits<Out>::max());
    std::vector<Out> maxs(m_pool.size(), Out(0));
    m_pool.parallelFor(std::size_t(plan.ny), [&](std::size_t b, std::size_t e, unsigned w) {
        const ScopedHostSpan span(timeline(), workerLane(w),
                                  "rows " + std::to_string(b) + "-" + std::to_string(e - 1));
        std::vector<T> best(nx);
        Out lo = mins[w], hi = maxs[w];
        for (std::size_t i = b; i < e; ++i) {
            const T latRad = planLatRad(plan, int(i));
            std::fill(best.begin(), best.end(), T(2));
            for (int r = 0; r < refs; ++r) {
                const math::RowTerms<T> row =
                    math::rowTerms(latRad, plan.refLatRad[r], plan.cosRefLat[r]);
                const T* col = colTerms.data() + std::size_t(r) * nx;
                for (int j = 0; j < nx; ++j)
                    best[j] = math::wsMin(best[j], math::haversineA(row, col[j]));
            }
            Out* dst = out + layout.index(int(i), 0);
            for (int j = 0; j < nx; ++j) {
                const Out v = Out(plan.radius * math::centralAngle(best[j]));
                dst[j] = v;
                lo = math::wsMin(lo, v);
                hi = math::wsMax(hi, v);
            }
            // Padding repeats the last column, so every element holds a real distance.
            std::fill(dst + nx, dst + layout.pitch, dst[nx - 1]);
        }
        mins[w] = lo;
        maxs[w] = hi;
    });
    out[layout.statsOffset()] = *std::min_element(mins.begin(), mins.end());
    out[layout.statsOffset() + 1] = *std::max_element(maxs.begin(), maxs.end());
}

template <typename Out> Status CpuBackend::compute(const DistanceParams& params, std::span<Out> out)
{
    if (Status s = checkHostOutput(params, out.size()); !s)
        return s;
    const FieldLayout layout = layoutFor(params);
    const auto start = std::chrono::steady_clock::now();
    const ScopedHostSpan span(timeline(), workerLane(0), "distance field");
    try {
        if (params.precision == Precision::Float64)
            run<double>(params, out.data());
        else
            run<float>(params, out.data());
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory while computing the field");
    }
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    m_lastMs = elapsed.count();
    m_lastStats =
        FieldStats{double(out[layout.statsOffset()]), double(out[layout.statsOffset() + 1])};
    return Status::success();
}

Status CpuBackend::computeDistance(const DistanceParams& params, std::span<float> out)
{
    return compute(params, out);
}

Status CpuBackend::computeDistance(const DistanceParams& params, std::span<double> out)
{
    return compute(params, out);
}

Status CpuBackend::fillDistance(const DistanceParams& params, const GlBuffer& target)
{
    if (target.layout != layoutFor(params))
        return Status::failure("The OpenGL buffer was made for another mesh size");
    if (Status s = checkCapacity(params); !s)
        return s;
    try {
        m_staging.resize(target.layout.elementCount());
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the field");
    }
    if (Status s = compute(params, std::span<float>(m_staging)); !s)
        return s;
    const ScopedHostSpan span(timeline(), workerLane(0), "glBufferSubData");
    return uploadToGlBuffer(target.id, m_staging.data(), m_staging.size());
}

// Executes the teaching kernel block by block, each thread with the indices it would have on
// a GPU. Blocks whose threads cannot reach a node return at once there, so they are skipped.

Status CpuBackend::runLesson(const DistanceParams& params, const LessonLaunch& lesson,
                             std::span<float> field, std::span<std::uint32_t> owners)
{
    double ms = 0.0;
    const Status status = gpu::runLesson(*m_context, params, lesson, field, owners, &ms);
    if (status)
        m_lastMs = ms;
    return status;
}

KernelOccupancy CpuBackend::lessonOccupancy(Precision precision, long long blockThreads)
{
    return gpu::lessonOccupancy(*m_context, precision, blockThreads);
}

KernelOccupancy CpuBackend::periodogramOccupancy(Precision precision, long long blockThreads)
{
    return gpu::periodogramOccupancy(*m_context, precision, blockThreads);
}

Status CpuBackend::fillLesson(const DistanceParams& params, const LessonLaunch& lesson,
                              const GlBuffer& field, const GlOwnerBuffer& owners)
{
    const FieldLayout layout = layoutFor(params);
    if (field.layout != layout || owners.nodes != std::size_t(params.nx) * std::size_t(params.ny))
        return Status::failure("The OpenGL buffers were made for another mesh size");
    std::vector<float> values;
    std::vector<std::uint32_t> words;
    try {
        values.assign(layout.elementCount(), std::numeric_limits<float>::quiet_NaN());
        words.resize(2 * owners.nodes);
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the teaching kernel's record");
    }
    if (Status s = runLesson(params, lesson, values, words); !s)
        return s;
    const auto [lo, hi] =
        writeLessonStats(values.data(), params.nx, params.ny, layout.pitch, layout.statsOffset());
    m_lastStats = FieldStats{lo, hi};
    if (Status s = uploadToGlBuffer(field.id, values.data(), values.size()); !s)
        return s;
    return uploadBytesToGlBuffer(owners.id, words.data(), words.size() * sizeof(std::uint32_t));
}

Status CpuBackend::timeLesson(const DistanceParams& params, const LessonLaunch& lesson,
                              int repetitions, double& medianMs)
{
    return gpu::timeLesson(*m_context, params, lesson, repetitions, medianMs);
}

Status CpuBackend::timeKernel(const DistanceParams& params, int repetitions, double& medianMs)
{
    std::vector<float> out;
    try {
        out.resize(layoutFor(params).elementCount());
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the field");
    }
    std::vector<double> times;
    for (int k = 0; k < std::max(1, repetitions); ++k) {
        if (Status s = computeDistance(params, std::span<float>(out)); !s)
            return s;
        times.push_back(*m_lastMs);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    medianMs = times[times.size() / 2];
    return Status::success();
}

Status CpuBackend::computePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                                      std::span<double> power)
{
    return gpu::computePeriodogram(*m_context, series, options, power);
}

Status CpuBackend::computeSpectrum(const TimeSeries& series, const PeriodogramOptions& options,
                                   std::shared_ptr<const Spectrum>& spectrum)
{
    return gpu::computeSpectrum(*m_context, series, options, spectrum);
}

Status CpuBackend::fillSpectrum(const Spectrum& spectrum, const SpectrumAxis& axis,
                                const GlVertexBuffer& target)
{
    const ScopedHostSpan span(timeline(), workerLane(0), "periodogram line");
    return uploadSpectrum(spectrum, axis, target);
}

void CpuBackend::setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role)
{
    m_context->setTimeline(std::move(timeline), role);
}

} // namespace warpscope::gpu
