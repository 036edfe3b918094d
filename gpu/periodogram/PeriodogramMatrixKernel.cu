#include "periodogram/KernelAttribute.cuh"
#include "periodogram/LombScargle.h"
#include "periodogram/PeriodogramBatchKernel.cuh"
#include "periodogram/PeriodogramMatrixKernel.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>
#include <type_traits>

namespace warpscope::gpu {
namespace {

constexpr int kFrequencies = 64; // K: frequencies a block of the grid holds
constexpr int kPairs = kFrequencies / 2;
constexpr int kBlocks = 32;  // grid blocks a CTA computes
constexpr int kSamples = 32; // samples a stage holds: the inner dimension
// Shared memory holds doubles for float64, and for float32 each value as two FP16 halves.
template <typename Real> using Stored = std::conditional_t<sizeof(Real) == 8, double, __half>;
// Elements per shared row: fragment loads are free of bank conflicts, for doubles (read by
// half-warps) and halves (by ldmatrix, whose rows must be 16-byte aligned) alike.
template <typename Real> constexpr int kStride = kSamples + (sizeof(Real) == 8 ? 4 : 8);
// Samples one MMA consumes: m16n8k8 in FP64, m16n8k16 in FP16.
template <typename Real> constexpr int kStep = sizeof(Real) == 8 ? 8 : 16;
constexpr int kColumns = 2 * kPairs; // cos d_j t, then sin d_j t
constexpr int kThreads = 256;

// Rows of the left-hand matrix, 2 kBlocks of each kind: the cosine rows of the blocks, then
// their sine rows. The kinds are wy e^{i w_c t}, then (floating mean only) w e^{i w_c t}, then
// w e^{2 i w_c t}.
constexpr int kKindRows = 2 * kBlocks;
template <bool FitMean> constexpr int rowCount()
{
    return (FitMean ? 3 : 2) * kKindRows;
}
// A stage: the left rows, then the two right matrices, kStride elements a row. float32 keeps
// every value as two FP16 halves, high and low, in two planes kLowPlane apart (splitting after
// each load instead costs more than the second plane's loads).
template <typename Real, bool FitMean> constexpr int planeElements()
{
    return (rowCount<FitMean>() + 2 * kColumns) * kStride<Real>;
}
constexpr int kLowPlane = planeElements<float, true>();
template <typename Real, bool FitMean> constexpr int stageElements()
{
    return sizeof(Real) == 8 ? planeElements<Real, FitMean>() : 2 * kLowPlane;
}
template <typename Real, bool FitMean> constexpr std::size_t sharedBytes()
{
    const std::size_t stages =
        2 * std::size_t(stageElements<Real, FitMean>()) * sizeof(Stored<Real>);
    const std::size_t epilogue = std::size_t(rowCount<FitMean>()) * kColumns * sizeof(Real);
    return stages > epilogue ? stages : epilogue;
}

[[maybe_unused]] __device__ __forceinline__ void mma8x8x4(double& d0, double& d1, double a,
                                                          double b)
{
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
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
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
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

// D (16 x 8) += A (16 x 16) B (16 x 8) in FP16 with float accumulators; each register holds
// two halves adjacent in k, as ldmatrix loads them.
__device__ __forceinline__ void mma16x8x16(float (&d)[4], const unsigned (&a)[4],
                                           const unsigned (&b)[2])
{
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    __trap();
#endif
}

// (cos, sin) of 2 pi `cycles`, reduced to one cycle in double first.
__device__ __forceinline__ void phase(double cycles, double& c, double& s)
{
    sincospi(2.0 * (cycles - rint(cycles)), &s, &c);
}
__device__ __forceinline__ void phase(double cycles, float& c, float& s)
{
    sincospif(float(2.0 * (cycles - rint(cycles))), &s, &c);
}

// The sample a thread's part of a stage needs; past the end a sample weighs nothing.
template <typename Real> struct Sample
{
    double t = 0.0;
    Real w = 0, wy = 0, stepC = 1, stepS = 0;
};

// Each thread makes its stage entries for sample threadIdx.x % kSamples.
template <typename Real>
__device__ __forceinline__ Sample<Real> loadSample(const PeriodogramArgs<Real>& a, int first)
{
    Sample<Real> x;
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

__device__ __forceinline__ void put(double* at, double x)
{
    *at = x;
}
// float32 stores x as its FP16 high half and, a plane further on, the FP16 of what the high
// half misses, so that three FP16 products (high x high, high x low, low x high) keep float32
// accuracy. The weights are scaled (PeriodogramArgs::scale) to keep the halves in range.
__device__ __forceinline__ void put(__half* at, float x)
{
    const __half h = __float2half_rn(x);
    *at = h;
    at[kLowPlane] = __float2half_rn(x - __half2float(h));
}

// Fills one stage: the left rows for this CTA's blocks and the two right matrices, for the
// threads' samples, one sample a column.
template <typename Real, bool FitMean>
__device__ void fillStage(const PeriodogramArgs<Real>& a, long long firstBlock,
                          const Sample<Real>& x, Stored<Real>* stage)
{
    constexpr int rows = rowCount<FitMean>();
    constexpr int stride = kStride<Real>;
    Stored<Real>* left = stage;
    Stored<Real>* right1 = stage + rows * stride;
    Stored<Real>* right2 = right1 + kColumns * stride;
    const int walker = threadIdx.x % 128;
    const int s = walker % kSamples;
    const int segment = walker / kSamples; // 4 segments of 8 blocks or 8 pairs
    const double t = x.t;
    if (threadIdx.x < 128) {
        // Left rows of blocks segment*8 .. +8, at each block's centre frequency: the start
        // phase exactly, then rotations by K df t from block to block.
        const Real w = x.w * a.scale, wy = x.wy * a.scale;
        const long long block = firstBlock + segment * 8;
        Real c, sn, stepC, stepS;
        phase((a.fmin + a.df * (double(block * kFrequencies) + 0.5 * (kFrequencies - 1))) * t, c,
              sn);
        if constexpr (sizeof(Real) == 8) {
            // The rotation by K df t, from the per-sample step by df t, squared log2(K) times.
            stepC = x.stepC;
            stepS = x.stepS;
#pragma unroll
            for (int k = 1; k < kFrequencies; k *= 2) {
                const Real c2 = stepC * stepC - stepS * stepS;
                stepS = 2 * stepC * stepS;
                stepC = c2;
            }
        } else {
            phase(a.df * double(kFrequencies) * t, stepC, stepS); // squaring loses float bits
        }
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            const int b = segment * 8 + q;
            const Real c2 = c * c - sn * sn, s2 = 2 * c * sn;
            put(left + b * stride + s, wy * c);
            put(left + (kBlocks + b) * stride + s, wy * sn);
            if (FitMean) {
                put(left + (kKindRows + b) * stride + s, w * c);
                put(left + (kKindRows + kBlocks + b) * stride + s, w * sn);
            }
            put(left + (rows - kKindRows + b) * stride + s, w * c2);
            put(left + (rows - kBlocks + b) * stride + s, w * s2);
            const Real next = c * stepC - sn * stepS;
            sn = sn * stepC + c * stepS;
            c = next;
        }
    } else {
        // Right matrices for the offsets d_j = (j + 1/2) df from the centre, j = segment*8 ..
        // +8: e^{i d_j t} and its square.
        Real c, sn;
        phase(a.df * (segment * 8 + 0.5) * t, c, sn);
        const Real stepC = x.stepC, stepS = x.stepS;
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            const int j = segment * 8 + q;
            // float32 starts again halfway, exactly: four rotations round less than eight, and
            // these threads would otherwise wait at the barrier for the left rows' makers.
            if (sizeof(Real) == 4 && q == 4)
                phase(a.df * (j + 0.5) * t, c, sn);
            const Real c2 = c * c - sn * sn, s2 = 2 * c * sn;
            put(right1 + j * stride + s, c);
            put(right1 + (kPairs + j) * stride + s, sn);
            put(right2 + j * stride + s, c2);
            put(right2 + (kPairs + j) * stride + s, s2);
            const Real next = c * stepC - sn * stepS;
            sn = sn * stepC + c * stepS;
            c = next;
        }
    }
}

// A warp's fragments of one MMA step, and its products: FP64 directly, or in float32 the
// three FP16 products high x high, high x low and low x high.
template <typename Real> struct Operand;

template <> struct Operand<double>
{
    double v[4];
    // The A fragment of the 16 rows from `rows`, at inner step kk.
    __device__ void loadA(const double* rows, int kk)
    {
        const int g = threadIdx.x % 32 / 4, tq = threadIdx.x % 4;
        const double* at = rows + g * kStride<double> + kk + tq;
        v[0] = at[0];
        v[1] = at[8 * kStride<double>];
        v[2] = at[4];
        v[3] = at[8 * kStride<double> + 4];
    }
};

// The four 8 x 8 half tiles at `at` (this lane's row of one of them) into this lane's
// registers, as the FP16 fragments lay them out.
__device__ __forceinline__ void loadTiles(const __half* at, unsigned (&r)[4])
{
    const unsigned address = unsigned(__cvta_generic_to_shared(at));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

template <> struct Operand<float>
{
    unsigned hi[4], lo[4];
    __device__ void loadA(const __half* rows, int kk)
    {
        // Lane L addresses row L % 8 (+8 for tiles 1 and 3) and samples kk (+8 for tiles 2, 3).
        const int lane = threadIdx.x % 32;
        const __half* at =
            rows + (lane % 8 + (lane / 8 % 2) * 8) * kStride<float> + kk + (lane / 16) * 8;
        loadTiles(at, hi);
        loadTiles(at + kLowPlane, lo);
    }
};

// B fragments of two 8-column groups, `columns` the first column of the first group.
template <typename Real> struct ColumnOperands;

template <> struct ColumnOperands<double>
{
    double v[2][2];
    __device__ void load(const double* columns, int kk)
    {
        const int g = threadIdx.x % 32 / 4, tq = threadIdx.x % 4;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const double* at = columns + (8 * i + g) * kStride<double> + kk + tq;
            v[i][0] = at[0];
            v[i][1] = at[4];
        }
    }
};

template <> struct ColumnOperands<float>
{
    unsigned hi[4], lo[4]; // groups 0 and 1: {b0, b1} each
    __device__ void load(const __half* columns, int kk)
    {
        // Lane L addresses column L % 8 (+8 for tiles 2 and 3) and samples kk (+8 for 1, 3).
        const int lane = threadIdx.x % 32;
        const __half* at =
            columns + (lane % 8 + (lane / 16) * 8) * kStride<float> + kk + (lane / 8 % 2) * 8;
        loadTiles(at, hi);
        loadTiles(at + kLowPlane, lo);
    }
};

// D += A B for column group i of b.
__device__ __forceinline__ void multiply(double (&d)[4], const Operand<double>& a,
                                         const ColumnOperands<double>& b, int i)
{
    mma16x8x8(d, a.v, b.v[i]);
}
__device__ __forceinline__ void multiply(float (&d)[4], const Operand<float>& a,
                                         const ColumnOperands<float>& b, int i)
{
    const unsigned hi[2] = {b.hi[2 * i], b.hi[2 * i + 1]};
    const unsigned lo[2] = {b.lo[2 * i], b.lo[2 * i + 1]};
    mma16x8x16(d, a.lo, hi);
    mma16x8x16(d, a.hi, lo);
    mma16x8x16(d, a.hi, hi);
}

// One CTA's work: the kBlocks grid blocks from firstBlock, of the series a, into power (the
// whole grid's array). Shared by the kernel of one series and the kernel of a batch.
template <typename Real, bool FitMean>
__device__ __forceinline__ void matrixCta(const PeriodogramArgs<Real>& a, long long firstBlock,
                                          double* __restrict__ power)
{
    constexpr int rows = rowCount<FitMean>();
    // Warps in 4 row groups x 2 column groups; each holds fragmentRows 16-row fragments by
    // 4 8-column fragments. Row group r takes fragments r, r + 4, r + 8, so that which right
    // matrix a fragment multiplies depends on its place in the warp alone, a constant.
    constexpr int fragmentRows = rows / 16 / 4;
    constexpr int columnFragments = kColumns / 8 / 2;
    constexpr int secondFrom = (rows - kKindRows) / 16; // fragments from here use the 2w matrix
    extern __shared__ __align__(16) unsigned char sharedBytesRaw[];
    Stored<Real>* shared = reinterpret_cast<Stored<Real>*>(sharedBytesRaw);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, tq = lane % 4;
    const int rowGroup = warp / 2;
    const int firstColumn = (warp % 2) * columnFragments * 8;

    // float32 sums each stage's samples apart and then adds them up, which keeps the
    // rounding of long sums down; float64 accumulates directly.
    constexpr bool twoLevel = sizeof(Real) == 4;
    Real acc[fragmentRows][columnFragments][4] = {};
    Real part[fragmentRows][columnFragments][4];
    const int stages = (a.n + kSamples - 1) / kSamples;
    fillStage<Real, FitMean>(a, firstBlock, loadSample(a, 0), shared);
    // Samples are loaded a stage ahead, so their latency hides behind a stage of products.
    Sample<Real> next = loadSample(a, kSamples);
    __syncthreads();
    for (int st = 0; st < stages; ++st) {
        // Fill the next stage while this one is multiplied; the barrier at the end keeps a
        // buffer from being refilled before every warp has read it.
        // Unconditional (the last one fills samples past the end, harmlessly), so that filling
        // and products share one block and the scheduler interleaves them.
        fillStage<Real, FitMean>(a, firstBlock, next,
                                 shared + ((st + 1) % 2) * stageElements<Real, FitMean>());
        next = loadSample(a, (st + 2) * kSamples);
        if constexpr (twoLevel) {
#pragma unroll
            for (int m = 0; m < fragmentRows; ++m)
#pragma unroll
                for (int nf = 0; nf < columnFragments; ++nf)
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        part[m][nf][e] = 0;
        }
        const Stored<Real>* stage = shared + (st % 2) * stageElements<Real, FitMean>();
        const Stored<Real>* left = stage;
        const Stored<Real>* right1 = stage + rows * kStride<Real>;
        const Stored<Real>* right2 = right1 + kColumns * kStride<Real>;
#pragma unroll
        for (int kk = 0; kk < kSamples; kk += kStep<Real>) {
            ColumnOperands<Real> b1[columnFragments / 2], b2[columnFragments / 2];
#pragma unroll
            for (int np = 0; np < columnFragments / 2; ++np) {
                const int at = (firstColumn + np * 16) * kStride<Real>;
                b1[np].load(right1 + at, kk);
                b2[np].load(right2 + at, kk);
            }
#pragma unroll
            for (int m = 0; m < fragmentRows; ++m) {
                Operand<Real> av;
                av.loadA(left + (rowGroup + 4 * m) * 16 * kStride<Real>, kk);
#pragma unroll
                for (int nf = 0; nf < columnFragments; ++nf)
                    multiply(twoLevel ? part[m][nf] : acc[m][nf], av,
                             (4 * m < secondFrom ? b1 : b2)[nf / 2], nf % 2);
            }
        }
        if constexpr (twoLevel) {
#pragma unroll
            for (int m = 0; m < fragmentRows; ++m)
#pragma unroll
                for (int nf = 0; nf < columnFragments; ++nf)
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        acc[m][nf][e] += part[m][nf][e];
        }
        __syncthreads();
    }

    // Gather the sums (they sit in different warps) and finish two frequencies at a time.
    Real* out = reinterpret_cast<Real*>(sharedBytesRaw); // rows x kColumns
#pragma unroll
    for (int m = 0; m < fragmentRows; ++m)
#pragma unroll
        for (int nf = 0; nf < columnFragments; ++nf) {
            const int row = (rowGroup + 4 * m) * 16 + g;
            const int column = firstColumn + nf * 8 + 2 * tq;
            out[row * kColumns + column] = acc[m][nf][0];
            out[row * kColumns + column + 1] = acc[m][nf][1];
            out[(row + 8) * kColumns + column] = acc[m][nf][2];
            out[(row + 8) * kColumns + column + 1] = acc[m][nf][3];
        }
    __syncthreads();
    for (int idx = threadIdx.x; idx < kBlocks * kPairs; idx += kThreads) {
        const int b = idx / kPairs, j = idx % kPairs;
        math::LsSums<Real> up, down; // at the centre plus and minus d_j
        // With the products A = (a cos x)(cos d), B = (a sin x)(sin d), D = (a sin x)(cos d)
        // and E = (a cos x)(sin d) of one kind of row, angle addition gives a cos(x +- d) =
        // A -+ B and a sin(x +- d) = D +- E.
        // The weights' scale, a power of two, comes off exactly.
        const Real unscale = Real(1) / a.scale;
        const auto combine = [&](int kindRow, Real& cosUp, Real& sinUp, Real& cosDown,
                                 Real& sinDown) {
            const Real* cosRow = out + (kindRow + b) * kColumns;
            const Real* sinRow = cosRow + kBlocks * kColumns;
            const Real pa = cosRow[j] * unscale, pe = cosRow[kPairs + j] * unscale;
            const Real pd = sinRow[j] * unscale, pb = sinRow[kPairs + j] * unscale;
            cosUp = pa - pb;
            cosDown = pa + pb;
            sinUp = pd + pe;
            sinDown = pd - pe;
        };
        combine(0, up.yc, up.ys, down.yc, down.ys);
        if (FitMean)
            combine(kKindRows, up.c, up.s, down.c, down.s);
        combine(rows - kKindRows, up.c2, up.s2, down.c2, down.s2);
        const long long first = (firstBlock + b) * kFrequencies;
        if (const long long f = first + kPairs + j; f < a.count)
            power[f] = math::lsPower(up, a.yy, a.psdScale, a.normalization, a.fitMean);
        if (const long long f = first + kPairs - 1 - j; f < a.count)
            power[f] = math::lsPower(down, a.yy, a.psdScale, a.normalization, a.fitMean);
    }
}

template <typename Real, bool FitMean>
__global__ void __launch_bounds__(kThreads, 1)
    periodogramMatrixKernel(PeriodogramArgs<Real> a, double* __restrict__ power, long long firstCta)
{
    matrixCta<Real, FitMean>(a, (firstCta + (long long)blockIdx.x) * kBlocks, power);
}

// A batch: block b is CTA b % ctasPerSlot of slot firstSlot + b / ctasPerSlot, on that
// slot's samples and scale, into its row of powers.
template <typename Real, bool FitMean>
__global__ void __launch_bounds__(kThreads, 1)
    periodogramMatrixBatchKernel(PeriodogramBatchArgs<Real> b, const Real* __restrict__ scale,
                                 long long firstSlot, long long ctasPerSlot,
                                 double* __restrict__ power)
{
    const long long slot = firstSlot + (long long)blockIdx.x / ctasPerSlot;
    const long long cta = (long long)blockIdx.x % ctasPerSlot;
    const long long first = b.offsets[slot];
    PeriodogramArgs<Real> a{};
    a.t = b.t + first;
    a.w = b.w + first;
    a.wy = b.wy + first;
    a.stepCos = b.stepCos + first;
    a.stepSin = b.stepSin + first;
    a.n = int(b.offsets[slot + 1] - first);
    a.fmin = b.fmin;
    a.df = b.df;
    a.count = b.count;
    a.logGrid = false;
    a.yy = b.yy[slot];
    a.psdScale = b.psdScale[slot];
    a.normalization = b.normalization;
    a.fitMean = b.fitMean;
    a.scale = scale[slot];
    matrixCta<Real, FitMean>(a, cta * kBlocks, power + slot * b.count);
}

// Lets Kernel use bytes of dynamic shared memory.
template <auto Kernel> cudaError_t allowSharedBytes(std::size_t bytes)
{
    return setKernelAttribute<Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize>(int(bytes));
}

template <typename Real, bool FitMean>
cudaError_t launchBatchWith(const PeriodogramBatchArgs<Real>& b, const Real* scale,
                            long long firstSlot, long long slots, double* power,
                            cudaStream_t stream)
{
    constexpr std::size_t bytes = sharedBytes<Real, FitMean>();
    if (const cudaError_t e = allowSharedBytes<periodogramMatrixBatchKernel<Real, FitMean>>(bytes);
        e != cudaSuccess)
        return e;
    if (slots < 1 || b.logGrid)
        return cudaErrorInvalidConfiguration;
    const long long ctas = periodogramMatrixCtas(b.count);
    // Within the grid's 2^31 - 1 blocks, a launch at a time.
    const long long slotsPerLaunch = 0x7fffffffLL / ctas;
    for (long long done = 0; done < slots; done += slotsPerLaunch) {
        const long long now = slots - done < slotsPerLaunch ? slots - done : slotsPerLaunch;
        periodogramMatrixBatchKernel<Real, FitMean>
            <<<unsigned(now * ctas), kThreads, bytes, stream>>>(b, scale, firstSlot + done, ctas,
                                                                power);
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

template <typename Real, bool FitMean>
cudaError_t launchWith(const PeriodogramArgs<Real>& a, double* power, cudaStream_t stream,
                       long long firstCta, long long ctaCount)
{
    constexpr std::size_t bytes = sharedBytes<Real, FitMean>();
    if (const cudaError_t e = allowSharedBytes<periodogramMatrixKernel<Real, FitMean>>(bytes);
        e != cudaSuccess)
        return e;
    const long long ctas = periodogramMatrixCtas(a.count);
    if (ctaCount < 0)
        ctaCount = ctas - firstCta;
    if (firstCta < 0 || ctaCount <= 0 || firstCta + ctaCount > ctas || ctaCount > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    periodogramMatrixKernel<Real, FitMean>
        <<<unsigned(ctaCount), kThreads, bytes, stream>>>(a, power, firstCta);
    return cudaGetLastError();
}

template <typename Real, bool FitMean> int ctasPerSm()
{
    int ctas = 0;
    // Above 48 KB of dynamic shared memory the query counts none until the kernel may use it.
    if (allowSharedBytes<periodogramMatrixKernel<Real, FitMean>>(sharedBytes<Real, FitMean>()) !=
            cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, periodogramMatrixKernel<Real, FitMean>,
                                                      kThreads, sharedBytes<Real, FitMean>()) !=
            cudaSuccess) {
        cudaGetLastError(); // not sticky; the caller then launches in one piece
        return 0;
    }
    return ctas;
}

} // namespace

float periodogramMatrixScale(const float* w, const float* wy, int n)
{
    // The bits of finite magnitudes order as their values do, and an integer maximum
    // vectorises, where fmaxf's rules for NaN keep the loop scalar: 0.4 µs instead of 8 for 1024
    // samples, which the GPU would wait for before the sums.
    std::uint32_t bits = 0;
    for (int i = 0; i < n; ++i) {
        std::uint32_t a = 0, b = 0;
        std::memcpy(&a, w + i, sizeof a);
        std::memcpy(&b, wy + i, sizeof b);
        bits = std::max(bits, std::max(a & 0x7fffffffu, b & 0x7fffffffu));
    }
    float largest = 0.0f;
    std::memcpy(&largest, &bits, sizeof largest);
    // The largest value to between 2^13 and 2^14, by a power of two the epilogue divides out.
    return largest > 0.0f ? exp2f(14.0f - ceilf(log2f(largest))) : 1.0f;
}

bool periodogramMatrixSupported(int ccMajor)
{
    return ccMajor >= 8;
}

bool periodogramMatrixPreferred(int ccMajor, int ccMinor, bool float64)
{
    if (!float64)
        return ccMajor >= 8;
    // The data-centre parts, whose FP64 tensor cores run at full rate.
    return (ccMajor == 8 && ccMinor == 0) || ccMajor == 9 || ccMajor == 10;
}

long long periodogramMatrixCtaFrequencies()
{
    return (long long)kBlocks * kFrequencies;
}

long long periodogramMatrixCtas(long long count)
{
    const long long perCta = periodogramMatrixCtaFrequencies();
    return (count + perCta - 1) / perCta;
}

int periodogramMatrixCtasPerSm(bool float64, bool fitMean)
{
    if (float64)
        return fitMean ? ctasPerSm<double, true>() : ctasPerSm<double, false>();
    return fitMean ? ctasPerSm<float, true>() : ctasPerSm<float, false>();
}

cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<double>& args, double* power,
                                    cudaStream_t stream, long long firstCta, long long ctaCount)
{
    return args.fitMean ? launchWith<double, true>(args, power, stream, firstCta, ctaCount)
                        : launchWith<double, false>(args, power, stream, firstCta, ctaCount);
}

cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<float>& args, double* power,
                                    cudaStream_t stream, long long firstCta, long long ctaCount)
{
    return args.fitMean ? launchWith<float, true>(args, power, stream, firstCta, ctaCount)
                        : launchWith<float, false>(args, power, stream, firstCta, ctaCount);
}

cudaError_t launchPeriodogramMatrixBatch(const PeriodogramBatchArgs<double>& args,
                                         const double* scale, long long firstSlot, long long slots,
                                         double* power, cudaStream_t stream)
{
    return args.fitMean
               ? launchBatchWith<double, true>(args, scale, firstSlot, slots, power, stream)
               : launchBatchWith<double, false>(args, scale, firstSlot, slots, power, stream);
}

cudaError_t launchPeriodogramMatrixBatch(const PeriodogramBatchArgs<float>& args,
                                         const float* scale, long long firstSlot, long long slots,
                                         double* power, cudaStream_t stream)
{
    return args.fitMean
               ? launchBatchWith<float, true>(args, scale, firstSlot, slots, power, stream)
               : launchBatchWith<float, false>(args, scale, firstSlot, slots, power, stream);
}

} // namespace warpscope::gpu
