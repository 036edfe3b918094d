#include "cuda/PeriodogramMatrixKernel.cuh"
#include "math/LombScargle.h"

namespace warpscope::gpu {
namespace {

constexpr int kFrequencies = 32; // K: frequencies a block of the grid holds
constexpr int kBlocks = 64;      // grid blocks a CTA computes
constexpr int kSamples = 16;     // samples a stage holds
constexpr int kInner = 2 * kSamples;
constexpr int kStride = kInner + 4; // doubles per shared row: conflict-free fragment loads
constexpr int kColumns = 2 * kFrequencies;
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Rows of the left-hand matrix: wy e^{i w_b t}, then (floating mean only) w e^{i w_b t}, then
// w e^{2 i w_b t}, each kBlocks rows.
template <bool FitMean> constexpr int rowCount()
{
    return (FitMean ? 3 : 2) * kBlocks;
}
template <bool FitMean> constexpr int stageDoubles()
{
    return (rowCount<FitMean>() + 2 * kColumns) * kStride;
}
template <bool FitMean> constexpr std::size_t sharedBytes()
{
    const std::size_t stages = 2 * std::size_t(stageDoubles<FitMean>());
    const std::size_t epilogue = std::size_t(rowCount<FitMean>()) * kColumns;
    return (stages > epilogue ? stages : epilogue) * sizeof(double);
}

__device__ __forceinline__ void mma8x8x4(double (&d)[2], double a, double b)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
#else
    __trap(); // launched only where periodogramMatrixSupported
#endif
}

// (cos, sin) of 2 pi `cycles`, reduced to one cycle first.
__device__ __forceinline__ void phase(double cycles, double& c, double& s)
{
    sincospi(2.0 * (cycles - rint(cycles)), &s, &c);
}

// Fills one stage: the left rows for this CTA's blocks and the two right matrices, for
// samples first .. first + kSamples (zeros past the end). Inner index 2s holds the cosine
// part of sample s and 2s + 1 the sine part, so that
//   [a cos, a sin] . [cos b, -sin b] = a cos(x + b),  [a cos, a sin] . [sin b, cos b] = a sin(x +
//   b).
template <bool FitMean>
__device__ void fillStage(const PeriodogramArgs<double>& a, long long firstBlock, int first,
                          double* stage)
{
    constexpr int rows = rowCount<FitMean>();
    double* left = stage;
    double* right1 = stage + rows * kStride;
    double* right2 = right1 + kColumns * kStride;
    const int walker = threadIdx.x % 128;
    const int s = walker % kSamples;
    const int segment = walker / kSamples; // 8 segments
    const int i = first + s;
    const bool valid = i < a.n;
    const double t = valid ? a.t[i] : 0.0;
    if (threadIdx.x < 128) {
        // Left rows of blocks segment*8 .. +8: the start phase exactly, then rotations by
        // K df t from block to block.
        const double w = valid ? a.w[i] : 0.0, wy = valid ? a.wy[i] : 0.0;
        const long long block = firstBlock + segment * 8;
        double c, sn, stepC, stepS;
        phase((a.fmin + a.df * double(block * kFrequencies)) * t, c, sn);
        phase(a.df * double(kFrequencies) * t, stepC, stepS);
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            const int b = segment * 8 + q;
            const double c2 = c * c - sn * sn, s2 = 2.0 * c * sn;
            *reinterpret_cast<double2*>(left + b * kStride + 2 * s) = make_double2(wy * c, wy * sn);
            if (FitMean)
                *reinterpret_cast<double2*>(left + (kBlocks + b) * kStride + 2 * s) =
                    make_double2(w * c, w * sn);
            *reinterpret_cast<double2*>(left + (rows - kBlocks + b) * kStride + 2 * s) =
                make_double2(w * c2, w * s2);
            const double next = c * stepC - sn * stepS;
            sn = sn * stepC + c * stepS;
            c = next;
        }
    } else {
        // Right matrices for frequencies segment*4 .. +4 of a block: e^{i k df t} and its square.
        double c, sn, stepC, stepS;
        phase(a.df * double(segment * 4) * t, c, sn);
        phase(a.df * t, stepC, stepS);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int k = segment * 4 + q;
            const double c2 = c * c - sn * sn, s2 = 2.0 * c * sn;
            *reinterpret_cast<double2*>(right1 + k * kStride + 2 * s) = make_double2(c, -sn);
            *reinterpret_cast<double2*>(right1 + (kFrequencies + k) * kStride + 2 * s) =
                make_double2(sn, c);
            *reinterpret_cast<double2*>(right2 + k * kStride + 2 * s) = make_double2(c2, -s2);
            *reinterpret_cast<double2*>(right2 + (kFrequencies + k) * kStride + 2 * s) =
                make_double2(s2, c2);
            const double next = c * stepC - sn * stepS;
            sn = sn * stepC + c * stepS;
            c = next;
        }
    }
}

template <bool FitMean>
__global__ void __launch_bounds__(kThreads, 1)
    periodogramMatrixKernel(PeriodogramArgs<double> a, double* __restrict__ power)
{
    constexpr int rows = rowCount<FitMean>();
    constexpr int fragmentRows = rows / 8 / kWarps;  // 8-row fragments per warp: 3 or 2
    constexpr int secondFrom = (rows - kBlocks) / 8; // fragments from here use the 2w matrix
    extern __shared__ double shared[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, tq = lane % 4;
    const long long firstBlock = (long long)blockIdx.x * kBlocks;
    const int firstFragment = warp * fragmentRows;
    const bool usesFirst = firstFragment < secondFrom;
    const bool usesSecond = firstFragment + fragmentRows > secondFrom;

    double acc[fragmentRows][kColumns / 8][2] = {};
    const int stages = (a.n + kSamples - 1) / kSamples;
    fillStage<FitMean>(a, firstBlock, 0, shared);
    __syncthreads();
    for (int st = 0; st < stages; ++st) {
        // Fill the next stage while this one is multiplied; the barrier at the end keeps a
        // buffer from being refilled before every warp has read it.
        if (st + 1 < stages)
            fillStage<FitMean>(a, firstBlock, (st + 1) * kSamples,
                               shared + ((st + 1) % 2) * stageDoubles<FitMean>());
        const double* stage = shared + (st % 2) * stageDoubles<FitMean>();
        const double* left = stage;
        const double* right1 = stage + rows * kStride;
        const double* right2 = right1 + kColumns * kStride;
#pragma unroll
        for (int kk = 0; kk < kInner; kk += 4) {
            double b1[kColumns / 8], b2[kColumns / 8];
#pragma unroll
            for (int nf = 0; nf < kColumns / 8; ++nf) {
                const int at = (nf * 8 + g) * kStride + kk + tq;
                b1[nf] = usesFirst ? right1[at] : 0.0;
                b2[nf] = usesSecond ? right2[at] : 0.0;
            }
#pragma unroll
            for (int m = 0; m < fragmentRows; ++m) {
                const int fragment = firstFragment + m;
                const double av = left[(fragment * 8 + g) * kStride + kk + tq];
#pragma unroll
                for (int nf = 0; nf < kColumns / 8; ++nf)
                    mma8x8x4(acc[m][nf], av, fragment < secondFrom ? b1[nf] : b2[nf]);
            }
        }
        __syncthreads();
    }

    // Gather the six sums of each frequency (they sit in different warps) and finish.
    double* out = shared; // rows x kColumns
#pragma unroll
    for (int m = 0; m < fragmentRows; ++m)
#pragma unroll
        for (int nf = 0; nf < kColumns / 8; ++nf) {
            const int row = (firstFragment + m) * 8 + g;
            *reinterpret_cast<double2*>(out + row * kColumns + nf * 8 + 2 * tq) =
                make_double2(acc[m][nf][0], acc[m][nf][1]);
        }
    __syncthreads();
    for (int idx = threadIdx.x; idx < kBlocks * kFrequencies; idx += kThreads) {
        const int b = idx / kFrequencies, k = idx % kFrequencies;
        const long long f = (firstBlock + b) * kFrequencies + k;
        if (f >= a.count)
            continue;
        math::LsSums<double> sums;
        sums.yc = out[b * kColumns + k];
        sums.ys = out[b * kColumns + kFrequencies + k];
        if (FitMean) {
            sums.c = out[(kBlocks + b) * kColumns + k];
            sums.s = out[(kBlocks + b) * kColumns + kFrequencies + k];
        }
        sums.c2 = out[(rows - kBlocks + b) * kColumns + k];
        sums.s2 = out[(rows - kBlocks + b) * kColumns + kFrequencies + k];
        power[f] = math::lsPower(sums, a.yy, a.psdScale, a.normalization, a.fitMean);
    }
}

template <bool FitMean>
cudaError_t launchWith(const PeriodogramArgs<double>& a, double* power, cudaStream_t stream)
{
    constexpr std::size_t bytes = sharedBytes<FitMean>();
    if (const cudaError_t e =
            cudaFuncSetAttribute(periodogramMatrixKernel<FitMean>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
        e != cudaSuccess)
        return e;
    const long long perCta = (long long)kBlocks * kFrequencies;
    const long long ctas = (a.count + perCta - 1) / perCta;
    if (ctas > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    periodogramMatrixKernel<FitMean><<<unsigned(ctas), kThreads, bytes, stream>>>(a, power);
    return cudaGetLastError();
}

} // namespace

bool periodogramMatrixSupported(int ccMajor)
{
    return ccMajor >= 8;
}

cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<double>& args, double* power,
                                    cudaStream_t stream)
{
    return args.fitMean ? launchWith<true>(args, power, stream)
                        : launchWith<false>(args, power, stream);
}

const void* periodogramMatrixKernelSymbol(bool fitMean)
{
    return fitMean ? reinterpret_cast<const void*>(periodogramMatrixKernel<true>)
                   : reinterpret_cast<const void*>(periodogramMatrixKernel<false>);
}

} // namespace warpscope::gpu
