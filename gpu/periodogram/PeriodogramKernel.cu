#include "periodogram/CyclePhase.cuh"
#include "periodogram/KernelAttribute.cuh"
#include "periodogram/PeriodogramBlock.cuh"
#include "periodogram/PeriodogramKernel.cuh"

#include <algorithm>
#include <cstdint>

namespace warpscope::gpu {
namespace {

constexpr int kMaxThreads = 512;
constexpr int kPerThread = kPeriodogramPerThread;

// With gridStride, blocks step through the grid until every frequency is done.
template <typename T, bool LogGrid>
__global__ void __launch_bounds__(kMaxThreads)
    periodogramKernel(PeriodogramArgs<T> a, bool gridStride, double* power)
{
    const long long perBlock = (long long)blockDim.x * kPerThread;
    periodogramBlock<T, LogGrid>(a, blockIdx.x * perBlock,
                                 gridStride ? (long long)gridDim.x * perBlock : a.count, power);
}

constexpr int kStepThreads = 256;

// One sample's rotation step, the same bits whichever kernel computes it.
template <typename T> __device__ void writeStep(double t, double df, T& stepCos, T& stepSin)
{
    const double cycles = df * t;
    double s = 0.0, c = 0.0;
    sinCosCycles<double>(cycles - rint(cycles), s, c);
    stepCos = T(c);
    stepSin = T(s);
}

template <typename T>
__global__ void __launch_bounds__(kStepThreads)
    periodogramStepsKernel(const double* __restrict__ t, long long n, double df, T* stepCos,
                           T* stepSin)
{
    for (long long i = (long long)blockIdx.x * kStepThreads + threadIdx.x; i < n;
         i += (long long)gridDim.x * kStepThreads)
        writeStep(t[i], df, stepCos[i], stepSin[i]);
}

// The upload, the steps (from the staged times) and the poison in one launch.
template <typename T>
__global__ void __launch_bounds__(kStepThreads)
    periodogramPrepareKernel(const unsigned long long* __restrict__ staged,
                             unsigned long long* __restrict__ series, long long words, long long n,
                             double df, T* stepCos, T* stepSin, unsigned long long* power,
                             long long count)
{
    const long long first = (long long)blockIdx.x * kStepThreads + threadIdx.x;
    const long long stride = (long long)gridDim.x * kStepThreads;
    // The staging starts with the n times, so a thread's step needs no second read of the
    // host's memory.
    for (long long i = first; i < words; i += stride) {
        const unsigned long long word = staged[i];
        series[i] = word;
        if (i < n)
            writeStep(__longlong_as_double((long long)word), df, stepCos[i], stepSin[i]);
    }
    // NaN, as a memset of 0xff bytes, 16 bytes a store (power is 16-byte aligned).
    const long long pairs = count / 2;
    auto* paired = reinterpret_cast<ulonglong2*>(power);
    for (long long i = first; i < pairs; i += stride)
        paired[i] = make_ulonglong2(~0ULL, ~0ULL);
    if (first == 0 && 2 * pairs < count)
        power[count - 1] = ~0ULL;
}

} // namespace

template <typename T>
cudaError_t launchPeriodogramSteps(const double* t, long long n, double df, T* stepCos, T* stepSin,
                                   cudaStream_t stream)
{
    if (n < 1)
        return cudaSuccess;
    const long long blocks = std::min((n + kStepThreads - 1) / kStepThreads, 1LL << 16);
    periodogramStepsKernel<T>
        <<<unsigned(blocks), kStepThreads, 0, stream>>>(t, n, df, stepCos, stepSin);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launchPeriodogramPrepare(const void* staged, void* series, std::size_t bytes,
                                     long long n, double df, T* stepCos, T* stepSin, double* power,
                                     long long count, cudaStream_t stream)
{
    // The staging is read, and the powers poisoned, a word and two words a store.
    if (bytes % sizeof(unsigned long long) != 0 || reinterpret_cast<std::uintptr_t>(power) % 16)
        return cudaErrorInvalidValue;
    const long long words = (long long)(bytes / sizeof(unsigned long long));
    if (words < n)
        return cudaErrorInvalidValue; // the times must all be staged
    // A thread for each staged word, whose reads of host memory then wait on the link
    // together, and enough threads for the poison at four 16-byte stores each: fewer blocks
    // than a thread a value, which the SMs would take up in several waves.
    constexpr long long kPoisonPerThread = 8;
    const long long most =
        std::max({words, n, (count + kPoisonPerThread - 1) / kPoisonPerThread, 1LL});
    const long long blocks = std::min((most + kStepThreads - 1) / kStepThreads, 1LL << 12);
    if (const cudaError_t e = keepSharedCarveout<periodogramPrepareKernel<T>>(); e != cudaSuccess)
        return e;
    periodogramPrepareKernel<T><<<unsigned(blocks), kStepThreads, 0, stream>>>(
        static_cast<const unsigned long long*>(staged), static_cast<unsigned long long*>(series),
        words, n, df, stepCos, stepSin, reinterpret_cast<unsigned long long*>(power), count);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launchPeriodogram(const PeriodogramArgs<T>& args, const PeriodogramShape& shape,
                              double* power, cudaStream_t stream)
{
    if (shape.blockThreads < 1 || shape.blockThreads > kMaxThreads)
        return cudaErrorInvalidConfiguration;
    const long long perBlock = (long long)shape.blockThreads * kPerThread;
    const long long cover = (args.count + perBlock - 1) / perBlock;
    const long long blocks = shape.gridBlocks > 0 ? shape.gridBlocks : cover;
    if (blocks > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    if (args.logGrid)
        periodogramKernel<T, true><<<unsigned(blocks), unsigned(shape.blockThreads), 0, stream>>>(
            args, shape.gridStride, power);
    else
        periodogramKernel<T, false><<<unsigned(blocks), unsigned(shape.blockThreads), 0, stream>>>(
            args, shape.gridStride, power);
    return cudaGetLastError();
}

const void* periodogramKernelSymbol(bool float64, bool logGrid)
{
    if (float64)
        return logGrid ? reinterpret_cast<const void*>(periodogramKernel<double, true>)
                       : reinterpret_cast<const void*>(periodogramKernel<double, false>);
    return logGrid ? reinterpret_cast<const void*>(periodogramKernel<float, true>)
                   : reinterpret_cast<const void*>(periodogramKernel<float, false>);
}

template cudaError_t launchPeriodogramSteps(const double*, long long, double, float*, float*,
                                            cudaStream_t);
template cudaError_t launchPeriodogramSteps(const double*, long long, double, double*, double*,
                                            cudaStream_t);
template cudaError_t launchPeriodogramPrepare(const void*, void*, std::size_t, long long, double,
                                              float*, float*, double*, long long, cudaStream_t);
template cudaError_t launchPeriodogramPrepare(const void*, void*, std::size_t, long long, double,
                                              double*, double*, double*, long long, cudaStream_t);
template cudaError_t launchPeriodogram(const PeriodogramArgs<float>&, const PeriodogramShape&,
                                       double*, cudaStream_t);
template cudaError_t launchPeriodogram(const PeriodogramArgs<double>&, const PeriodogramShape&,
                                       double*, cudaStream_t);

} // namespace warpscope::gpu
