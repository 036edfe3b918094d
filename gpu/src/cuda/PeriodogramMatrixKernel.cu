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

__device__ __forceinline__ void mma8x8x4(double& d0, double& d1, double a, double b)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
#else
    __trap(); // launched only where periodogramMatrixSupported
#endif
}

// D (16 x 8) += A (16 x 8) B (8 x 8). Fragments, with g = lane / 4 and t = lane % 4:
// a = A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]; b = B[t][g], B[t+4][g];
// d = D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1].
// sm_90 has the shape in one instruction at twice the rate; sm_80 makes it from four m8n8k4.
__device__ __forceinline__ void mma16x8x8(double (&d)[4], const double (&a)[4],
                                          const double (&b)[2])
{
#if __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    mma8x8x4(d[0], d[1], a[0], b[0]);
    mma8x8x4(d[0], d[1], a[2], b[1]);
    mma8x8x4(d[2], d[3], a[1], b[0]);
    mma8x8x4(d[2], d[3], a[3], b[1]);
#endif
}

// (cos, sin) of 2 pi `cycles`, reduced to one cycle first.
__device__ __forceinline__ void phase(double cycles, double& c, double& s)
{
    sincospi(2.0 * (cycles - rint(cycles)), &s, &c);
}

// The sample a thread's part of a stage needs; past the end a sample weighs nothing.
struct Sample
{
    double t = 0.0, w = 0.0, wy = 0.0, stepC = 1.0, stepS = 0.0;
};

// Each thread makes its stage entries for sample threadIdx.x % kSamples.
__device__ __forceinline__ Sample loadSample(const PeriodogramArgs<double>& a, int first)
{
    Sample x;
    const int i = first + int(threadIdx.x) % kSamples;
    if (i < a.n) {
        x.t = a.t[i];
        x.w = a.w[i];
        x.wy = a.wy[i];
        x.stepC = a.stepCos[i];
        x.stepS = a.stepSin[i];
    }
    return x;
}

// Fills one stage: the left rows for this CTA's blocks and the two right matrices, for the
// threads' samples. Inner index 2s holds the cosine part of sample s and 2s + 1 the sine
// part, so that a row [a cos x, a sin x] times the columns [cos y, -sin y] and
// [sin y, cos y] gives a cos(x + y) and a sin(x + y).
template <bool FitMean>
__device__ void fillStage(const PeriodogramArgs<double>& a, long long firstBlock, const Sample& x,
                          double* stage)
{
    constexpr int rows = rowCount<FitMean>();
    double* left = stage;
    double* right1 = stage + rows * kStride;
    double* right2 = right1 + kColumns * kStride;
    const int walker = threadIdx.x % 128;
    const int s = walker % kSamples;
    const int segment = walker / kSamples; // 8 segments
    const double t = x.t;
    if (threadIdx.x < 128) {
        // Left rows of blocks segment*8 .. +8: the start phase exactly, then rotations by
        // K df t from block to block.
        const double w = x.w, wy = x.wy;
        const long long block = firstBlock + segment * 8;
        double c, sn;
        phase((a.fmin + a.df * double(block * kFrequencies)) * t, c, sn);
        // The rotation by K df t, from the per-sample step by df t, squared log2(K) times.
        double stepC = x.stepC, stepS = x.stepS;
#pragma unroll
        for (int k = 1; k < kFrequencies; k *= 2) {
            const double c2 = stepC * stepC - stepS * stepS;
            stepS = 2.0 * stepC * stepS;
            stepC = c2;
        }
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
        double c, sn;
        phase(a.df * double(segment * 4) * t, c, sn);
        const double stepC = x.stepC, stepS = x.stepS;
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
    // Warps in 4 row groups x 2 column groups; each holds fragmentRows 16-row fragments by
    // 4 8-column fragments.
    constexpr int fragmentRows = rows / 16 / 4;
    constexpr int columnFragments = kColumns / 8 / 2;
    constexpr int secondFrom = (rows - kBlocks) / 16; // fragments from here use the 2w matrix
    extern __shared__ double shared[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, tq = lane % 4;
    const long long firstBlock = (long long)blockIdx.x * kBlocks;
    const int firstFragment = (warp / 2) * fragmentRows;
    const int firstColumn = (warp % 2) * columnFragments * 8;
    const bool usesFirst = firstFragment < secondFrom;
    const bool usesSecond = firstFragment + fragmentRows > secondFrom;

    double acc[fragmentRows][columnFragments][4] = {};
    const int stages = (a.n + kSamples - 1) / kSamples;
    fillStage<FitMean>(a, firstBlock, loadSample(a, 0), shared);
    // Samples are loaded a stage ahead, so their latency hides behind a stage of products.
    Sample next = loadSample(a, kSamples);
    __syncthreads();
    for (int st = 0; st < stages; ++st) {
        // Fill the next stage while this one is multiplied; the barrier at the end keeps a
        // buffer from being refilled before every warp has read it.
        if (st + 1 < stages) {
            fillStage<FitMean>(a, firstBlock, next,
                               shared + ((st + 1) % 2) * stageDoubles<FitMean>());
            next = loadSample(a, (st + 2) * kSamples);
        }
        const double* stage = shared + (st % 2) * stageDoubles<FitMean>();
        const double* left = stage;
        const double* right1 = stage + rows * kStride;
        const double* right2 = right1 + kColumns * kStride;
#pragma unroll
        for (int kk = 0; kk < kInner; kk += 8) {
            double b1[columnFragments][2], b2[columnFragments][2];
#pragma unroll
            for (int nf = 0; nf < columnFragments; ++nf) {
                const int at = (firstColumn + nf * 8 + g) * kStride + kk + tq;
                b1[nf][0] = usesFirst ? right1[at] : 0.0;
                b1[nf][1] = usesFirst ? right1[at + 4] : 0.0;
                b2[nf][0] = usesSecond ? right2[at] : 0.0;
                b2[nf][1] = usesSecond ? right2[at + 4] : 0.0;
            }
#pragma unroll
            for (int m = 0; m < fragmentRows; ++m) {
                const int fragment = firstFragment + m;
                const double* row = left + (fragment * 16 + g) * kStride + kk + tq;
                const double av[4] = {row[0], row[8 * kStride], row[4], row[8 * kStride + 4]};
#pragma unroll
                for (int nf = 0; nf < columnFragments; ++nf) {
                    const bool first = fragment < secondFrom;
                    const double bv[2] = {first ? b1[nf][0] : b2[nf][0],
                                          first ? b1[nf][1] : b2[nf][1]};
                    mma16x8x8(acc[m][nf], av, bv);
                }
            }
        }
        __syncthreads();
    }

    // Gather the six sums of each frequency (they sit in different warps) and finish.
    double* out = shared; // rows x kColumns
#pragma unroll
    for (int m = 0; m < fragmentRows; ++m)
#pragma unroll
        for (int nf = 0; nf < columnFragments; ++nf) {
            const int row = (firstFragment + m) * 16 + g;
            const int column = firstColumn + nf * 8 + 2 * tq;
            *reinterpret_cast<double2*>(out + row * kColumns + column) =
                make_double2(acc[m][nf][0], acc[m][nf][1]);
            *reinterpret_cast<double2*>(out + (row + 8) * kColumns + column) =
                make_double2(acc[m][nf][2], acc[m][nf][3]);
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

bool periodogramMatrixPreferred(int ccMajor, int ccMinor)
{
    // The data-centre parts, whose FP64 tensor cores run at full rate.
    return (ccMajor == 8 && ccMinor == 0) || ccMajor == 9 || ccMajor == 10;
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
