#include "cpu/CpuBackend.h"

#include "BackendInternal.h"
#include "DistancePlan.h"
#include "GlUpload.h"
#include "PeriodogramPlan.h"
#include "SpectrumSupport.h"
#include "StreamsLabSupport.h"
#include "math/LombScargle.h"

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

CpuBackend::CpuBackend(unsigned threads) : m_pool(threads) {}

std::string CpuBackend::deviceName() const
{
    return "CPU, " + std::to_string(m_pool.size()) + " threads";
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
        const ScopedHostSpan span(m_timeline.get(), workerLane(w), "column terms");
        for (std::size_t k = b; k < e; ++k)
            colTerms[k] = planColTerm(plan, int(k % nx), int(k / nx));
    });

    std::vector<Out> mins(m_pool.size(), std::numeric_limits<Out>::max());
    std::vector<Out> maxs(m_pool.size(), Out(0));
    m_pool.parallelFor(std::size_t(plan.ny), [&](std::size_t b, std::size_t e, unsigned w) {
        const ScopedHostSpan span(m_timeline.get(), workerLane(w),
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
    const ScopedHostSpan span(m_timeline.get(), workerLane(0), "distance field");
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
    const ScopedHostSpan span(m_timeline.get(), workerLane(0), "glBufferSubData");
    return uploadToGlBuffer(target.id, m_staging.data(), m_staging.size());
}

// Executes the teaching kernel block by block, each thread with the indices it would have on
// a GPU. Blocks whose threads cannot reach a node return at once there, so they are skipped.
template <typename T>
void CpuBackend::simulateLesson(const DistanceParams& params, const LessonLaunch& lesson,
                                float* field, std::uint32_t* owners)
{
    const DistancePlan<T> plan = makePlan<T>(params);
    const FieldLayout layout = layoutFor(params);
    const Dim3& b = lesson.launch.block;
    const Dim3& g = lesson.launch.grid;
    const long long nx = params.nx, ny = params.ny;
    const long long activeX = std::min(g.x, (nx + b.x - 1) / b.x);
    const long long activeY = std::min(g.y, (ny + b.y - 1) / b.y);
    const int smCount = std::max(1, simulatedHopper().smCount);
    m_pool.parallelFor(
        std::size_t(activeX * activeY), [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t k = begin; k < end; ++k) {
                const long long bx = k % activeX, by = k / activeX;
                const auto block = static_cast<std::uint32_t>(by * g.x + bx);
                const std::uint32_t sm = block % std::uint32_t(smCount);
                for (long long ty = 0; ty < b.y; ++ty)
                    for (long long tx = 0; tx < b.x; ++tx) {
                        const auto thread = static_cast<std::uint32_t>(ty * b.x + tx);
                        const long long strideY = lesson.gridStride ? g.y * b.y : ny;
                        const long long strideX = lesson.gridStride ? g.x * b.x : nx;
                        for (long long row = by * b.y + ty; row < ny; row += strideY)
                            for (long long col = bx * b.x + tx; col < nx; col += strideX) {
                                field[layout.index(int(row), int(col))] =
                                    float(planNodeDistance(plan, int(row), int(col)));
                                std::uint32_t* owner = owners + 2 * (row * nx + col);
                                owner[0] = block;
                                owner[1] = thread | (sm << 16);
                            }
                    }
            }
        });
}

Status CpuBackend::runLesson(const DistanceParams& params, const LessonLaunch& lesson,
                             std::span<float> field, std::span<std::uint32_t> owners)
{
    if (Status s = checkLesson(params, lesson, deviceInfo(), field.size(), owners.size()); !s)
        return s;
    std::fill(owners.begin(), owners.begin() + 2 * std::size_t(params.nx) * params.ny, kUncovered);
    const auto start = std::chrono::steady_clock::now();
    if (params.precision == Precision::Float64)
        simulateLesson<double>(params, lesson, field.data(), owners.data());
    else
        simulateLesson<float>(params, lesson, field.data(), owners.data());
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    m_lastMs = elapsed.count();
    return Status::success();
}

// The kernels' resources as nvcc builds them for sm_90 (ptxas -v), on the simulated device.
Backend::KernelOccupancy CpuBackend::presetOccupancy(const KernelResources& kernel,
                                                     long long blockThreads) const
{
    KernelOccupancy o;
    o.resources = kernel;
    o.theoretical = theoreticalOccupancy(deviceInfo(), kernel, blockThreads);
    o.suggestedBlock = suggestedBlockThreads(deviceInfo(), kernel);
    return o;
}

Backend::KernelOccupancy CpuBackend::lessonOccupancy(Precision precision, long long blockThreads)
{
    const bool f64 = precision == Precision::Float64;
    return presetOccupancy({f64 ? 46 : 40, 0, 1024}, blockThreads);
}

Backend::KernelOccupancy CpuBackend::periodogramOccupancy(Precision precision,
                                                          long long blockThreads)
{
    const bool f64 = precision == Precision::Float64;
    return presetOccupancy({f64 ? 128 : 86, f64 ? 10240 : 6144, kPeriodogramMaxBlock},
                           blockThreads);
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
    std::vector<float> field;
    std::vector<std::uint32_t> owners;
    try {
        field.resize(layoutFor(params).elementCount());
        owners.resize(2 * std::size_t(params.nx) * std::size_t(params.ny));
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the teaching kernel");
    }
    std::vector<double> times;
    for (int k = 0; k < std::max(1, repetitions); ++k) {
        if (Status s = runLesson(params, lesson, field, owners); !s)
            return s;
        times.push_back(*m_lastMs);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    medianMs = times[times.size() / 2];
    return Status::success();
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

namespace {

// The sums of `steps` consecutive frequencies, two at a time per pass over the samples, and
// each sample's phase advanced as it goes. Compiled for AVX-512, AVX2 + FMA and baseline
// x86-64, picked at load time; this loop is all of the CPU periodogram's time.
template <typename T>
[[gnu::always_inline]] inline void periodogramSteps(const T* w, const T* wy, const T* stepCos,
                                                    const T* stepSin, T* cx, T* sx, std::size_t n,
                                                    long long steps, math::LsSums<T>* sums)
{
    long long k = 0;
    for (; k + 1 < steps; k += 2) {
        T c0 = 0, s0 = 0, cc0 = 0, ss0 = 0, yc0 = 0, ys0 = 0;
        T c1 = 0, s1 = 0, cc1 = 0, ss1 = 0, yc1 = 0, ys1 = 0;
#pragma omp simd reduction(+ : c0, s0, cc0, ss0, yc0, ys0, c1, s1, cc1, ss1, yc1, ys1)
        for (std::size_t i = 0; i < n; ++i) {
            const T a = stepCos[i], b = stepSin[i], wi = w[i], wyi = wy[i];
            const T cv = cx[i], sv = sx[i];
            c0 += wi * cv;
            s0 += wi * sv;
            cc0 += wi * (cv * cv - sv * sv);
            ss0 += wi * (T(2) * cv * sv);
            yc0 += wyi * cv;
            ys0 += wyi * sv;
            const T cn = cv * a - sv * b, sn = sv * a + cv * b;
            c1 += wi * cn;
            s1 += wi * sn;
            cc1 += wi * (cn * cn - sn * sn);
            ss1 += wi * (T(2) * cn * sn);
            yc1 += wyi * cn;
            ys1 += wyi * sn;
            cx[i] = cn * a - sn * b;
            sx[i] = sn * a + cn * b;
        }
        sums[k] = {c0, s0, cc0, ss0, yc0, ys0};
        sums[k + 1] = {c1, s1, cc1, ss1, yc1, ys1};
    }
    if (k < steps) {
        T c = 0, s = 0, cc = 0, ss = 0, yc = 0, ys = 0;
#pragma omp simd reduction(+ : c, s, cc, ss, yc, ys)
        for (std::size_t i = 0; i < n; ++i) {
            const T cv = cx[i], sv = sx[i];
            c += w[i] * cv;
            s += w[i] * sv;
            cc += w[i] * (cv * cv - sv * sv);
            ss += w[i] * (T(2) * cv * sv);
            yc += wy[i] * cv;
            ys += wy[i] * sv;
        }
        sums[k] = {c, s, cc, ss, yc, ys};
    }
}

#define WS_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

WS_CPU_CLONES void periodogramStepsDouble(const double* w, const double* wy, const double* stepCos,
                                          const double* stepSin, double* cx, double* sx,
                                          std::size_t n, long long steps,
                                          math::LsSums<double>* sums)
{
    periodogramSteps(w, wy, stepCos, stepSin, cx, sx, n, steps, sums);
}

WS_CPU_CLONES void periodogramStepsFloat(const float* w, const float* wy, const float* stepCos,
                                         const float* stepSin, float* cx, float* sx, std::size_t n,
                                         long long steps, math::LsSums<float>* sums)
{
    periodogramSteps(w, wy, stepCos, stepSin, cx, sx, n, steps, sums);
}

void periodogramStepsFor(const double* w, const double* wy, const double* sc, const double* ss,
                         double* cx, double* sx, std::size_t n, long long steps,
                         math::LsSums<double>* sums)
{
    periodogramStepsDouble(w, wy, sc, ss, cx, sx, n, steps, sums);
}

void periodogramStepsFor(const float* w, const float* wy, const float* sc, const float* ss,
                         float* cx, float* sx, std::size_t n, long long steps,
                         math::LsSums<float>* sums)
{
    periodogramStepsFloat(w, wy, sc, ss, cx, sx, n, steps, sums);
}

// Frequencies k0 .. k0 + steps with every phase exact: a logarithmic grid has no common step
// to rotate by. The sums are double in either precision: next to the trigonometry they cost
// nothing, and one long float sum per frequency loses ten times float32's usual accuracy.
template <typename T>
void periodogramExact(const PeriodogramPlan<T>& plan, long long k0, long long steps, double* power)
{
    for (long long k = k0; k < k0 + steps; ++k) {
        const double f = plan.grid.frequency(k);
        math::LsSums<double> sums;
        for (std::size_t i = 0; i < plan.t.size(); ++i) {
            double c = 0.0, s = 0.0;
            exactPhase(f, plan.tDouble[i], c, s);
            math::lsAccumulate<double>(sums, plan.w[i], plan.wy[i], T(c), T(s));
        }
        power[k] = math::lsPower(sums, plan.yy, plan.psdScale, plan.normalization, plan.fitMean);
    }
}

} // namespace

// Frequencies go in chunks: each chunk starts every sample's phase exactly, then steps it
// from one frequency to the next by a rotation, so the inner loop has no trigonometry. The
// rotation's rounding grows with the steps, so chunks are short enough to keep it far below
// the precision's error budget.
template <typename T>
void CpuBackend::periodogram(const TimeSeries& series, const PeriodogramOptions& options,
                             double* power)
{
    const PeriodogramPlan<T> plan = makePeriodogramPlan<T>(series, options);
    const std::size_t n = plan.t.size();
    const long long count = plan.grid.count;
    constexpr long long kChunk = sizeof(T) == 8 ? 1024 : 256;
    const long long chunks = (count + kChunk - 1) / kChunk;
    m_pool.parallelFor(
        std::size_t(chunks), [&](std::size_t begin, std::size_t end, unsigned worker) {
            const ScopedHostSpan span(m_timeline.get(), workerLane(worker),
                                      "periodogram chunks " + std::to_string(begin) + "-" +
                                          std::to_string(end - 1));
            std::vector<T> cosX(n), sinX(n);
            std::vector<math::LsSums<T>> sums(kChunk);
            for (std::size_t chunk = begin; chunk < end; ++chunk) {
                if (options.cancel && options.cancel->load(std::memory_order_relaxed))
                    return;
                const long long k0 = (long long)chunk * kChunk;
                const long long steps = std::min(count - k0, kChunk);
                if (plan.grid.logarithmic) {
                    periodogramExact(plan, k0, steps, power);
                    continue;
                }
                const double f0 = plan.grid.frequency(k0);
                for (std::size_t i = 0; i < n; ++i) {
                    double c = 0.0, s = 0.0;
                    exactPhase(f0, plan.tDouble[i], c, s);
                    cosX[i] = T(c);
                    sinX[i] = T(s);
                }
                periodogramStepsFor(plan.w.data(), plan.wy.data(), plan.stepCos.data(),
                                    plan.stepSin.data(), cosX.data(), sinX.data(), n, steps,
                                    sums.data());
                for (long long k = 0; k < steps; ++k)
                    power[k0 + k] = math::lsPower(sums[std::size_t(k)], plan.yy, plan.psdScale,
                                                  plan.normalization, plan.fitMean);
            }
        });
}

Status CpuBackend::computePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                                      std::span<double> power)
{
    if (Status s = checkPeriodogram(series, options, power.size(), deviceInfo()); !s)
        return s;
    const auto start = std::chrono::steady_clock::now();
    // The simulated launch evaluates the frequencies its grid covers; the rest stay NaN.
    PeriodogramOptions covered = options;
    covered.grid.count = coveredFrequencies(options.launch, options.grid.count);
    std::fill(power.begin() + covered.grid.count, power.begin() + options.grid.count,
              std::numeric_limits<double>::quiet_NaN());
    try {
        if (options.precision == Precision::Float64)
            periodogram<double>(series, covered, power.data());
        else
            periodogram<float>(series, covered, power.data());
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram");
    }
    if (options.cancel && options.cancel->load())
        return Status::failure("The periodogram was cancelled");
    m_lastMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const long long nonFinite = std::count_if(power.begin(), power.begin() + covered.grid.count,
                                              [](double p) { return !std::isfinite(p); });
    return checkPowers(nonFinite, 0, options);
}

Status CpuBackend::computeSpectrum(const TimeSeries& series, const PeriodogramOptions& options,
                                   std::shared_ptr<const Spectrum>& spectrum)
{
    std::vector<double> power;
    try {
        power.resize(std::size_t(std::max(0LL, options.grid.count)));
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram");
    }
    if (Status s = computePeriodogram(series, options, power); !s)
        return s;
    try {
        spectrum = std::make_shared<HostSpectrum>(
            std::move(power), options.grid, *m_lastMs,
            options.grid.logarithmic ? "exact phases on the CPU" : "rotation tables on the CPU");
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of host memory for the periodogram's peaks");
    }
    return Status::success();
}

Status CpuBackend::fillSpectrum(const Spectrum& spectrum, const SpectrumAxis& axis,
                                const GlVertexBuffer& target)
{
    const ScopedHostSpan span(m_timeline.get(), workerLane(0), "periodogram line");
    return uploadSpectrum(spectrum, axis, target);
}

void CpuBackend::setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role)
{
    m_timeline = std::move(timeline);
    m_workerLanes.clear();
    if (m_timeline)
        for (unsigned w = 0; w < m_pool.size(); ++w)
            m_workerLanes.push_back(
                m_timeline->lane("CPU thread " + std::to_string(w) + ": " + role));
}

// The same steps as on the GPU, as nested spans: partial sums over blocks of the array, the
// final sum of the partial sums, then the division.
void CpuBackend::normaliseArray(const float* in, float* out, std::size_t length, unsigned worker)
{
    constexpr std::size_t kBlocks = 64;
    Timeline* timeline = m_timeline.get();
    const int lane = workerLane(worker);
    std::vector<double> partial(kBlocks, 0.0);
    {
        const ScopedHostSpan span(timeline, lane, "partial sums");
        for (std::size_t b = 0; b < kBlocks; ++b)
            for (std::size_t i = length * b / kBlocks; i < length * (b + 1) / kBlocks; ++i)
                partial[b] += in[i];
    }
    double sum = 0.0;
    {
        const ScopedHostSpan span(timeline, lane, "final sum");
        for (const double p : partial)
            sum += p;
    }
    const ScopedHostSpan span(timeline, lane, "divide");
    const float divisor = float(sum);
    for (std::size_t i = 0; i < length; ++i)
        out[i] = in[i] / divisor;
}

Status CpuBackend::runStreamsLab(const StreamsLabConfig& config, StreamsLabResult& result)
{
    if (const auto problems = validateStreamsLab(config); !problems.empty())
        return Status::failure(problems.front());
    if (Status s = checkStreamsLabHostMemory(config); !s)
        return s;
    const auto arrays = std::size_t(config.arrays);
    const auto length = std::size_t(config.length);
    const bool sameInputs = m_labInputs.size() == arrays && !m_labInputs.empty() &&
                            m_labInputs.front().size() == length && m_labConfig.seed == config.seed;
    std::vector<float*> inputs, outputs;
    try {
        if (!sameInputs) {
            m_labInputs.assign(arrays, std::vector<float>(length));
            m_labOutputs.assign(arrays, std::vector<float>(length));
        }
    } catch (const std::bad_alloc&) {
        m_labInputs.clear();
        m_labOutputs.clear();
        return Status::failure("Out of host memory for the streams lab's arrays");
    }
    for (std::size_t a = 0; a < arrays; ++a) {
        inputs.push_back(m_labInputs[a].data());
        outputs.push_back(m_labOutputs[a].data());
        std::fill(m_labOutputs[a].begin(), m_labOutputs[a].end(), std::nanf(""));
    }
    if (!sameInputs)
        fillStreamsLabInputs(m_pool, config, inputs);
    m_labConfig = config;

    // Host memory has no copies and no pinning; streams map to threads: one thread takes
    // every array in turn, or the arrays are spread over all threads.
    result = StreamsLabResult{};
    result.streams = config.multiStream ? int(std::min<std::size_t>(arrays, m_pool.size())) : 1;
    const auto start = std::chrono::steady_clock::now();
    auto normaliseRange = [&](std::size_t begin, std::size_t end, unsigned worker) {
        for (std::size_t a = begin; a < end; ++a) {
            const ScopedHostSpan span(m_timeline.get(), workerLane(worker),
                                      "normalise array " + std::to_string(a));
            normaliseArray(inputs[a], outputs[a], length, worker);
        }
    };
    if (config.multiStream)
        m_pool.parallelFor(arrays, normaliseRange);
    else
        normaliseRange(0, arrays, 0);
    const auto stop = std::chrono::steady_clock::now();
    result.totalMs = std::chrono::duration<double, std::milli>(stop - start).count();
    if (m_timeline) {
        result.jobStartUs = m_timeline->toUs(start);
        result.jobEndUs = m_timeline->toUs(stop);
    }
    checkStreamsLabOutputs(m_pool, config, inputs, outputs, result);
    return Status::success();
}

} // namespace warpscope::gpu
