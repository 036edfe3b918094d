#include "cuda/PeriodogramMatrixKernel.cuh"
#include "math/LombScargle.h"

namespace warpscope::gpu {
namespace {

constexpr int kFrequencies = 32; // K: frequencies a block of the grid holds
constexpr int kBlocks = 64;      // grid blocks a CTA computes
constexpr int kSamples = 16;     // samples a stage holds
constexpr int kInner = 2 * kSamples;
// Elements per shared row: fragment loads are free of bank conflicts, for doubles (read by
// half-warps) and floats alike.
constexpr int kStride = kInner + 4;
constexpr int kColumns = 2 * kFrequencies;
constexpr int kThreads = 256;

// Rows of the left-hand matrix: wy e^{i w_b t}, then (floating mean only) w e^{i w_b t}, then
// w e^{2 i w_b t}, each kBlocks rows.
template <bool FitMean> constexpr int rowCount()
{
    return (FitMean ? 3 : 2) * kBlocks;
}
// A stage: the left rows, then the two right matrices, kStride elements a row. float32 keeps
// every value as two TF32 parts, high and low, in two planes kLowPlane apart (splitting after
// each load instead costs more than the second plane's loads).
template <bool FitMean> constexpr int planeElements()
{
    return (rowCount<FitMean>() + 2 * kColumns) * kStride;
}
constexpr int kLowPlane = planeElements<true>();
template <typename Real, bool FitMean> constexpr int stageElements()
{
    return sizeof(Real) == 8 ? planeElements<FitMean>() : 2 * kLowPlane;
}
template <typename Real, bool FitMean> constexpr std::size_t sharedBytes()
{
    const std::size_t stages = 2 * std::size_t(stageElements<Real, FitMean>());
    const std::size_t epilogue = std::size_t(rowCount<FitMean>()) * kColumns;
    return (stages > epilogue ? stages : epilogue) * sizeof(Real);
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

// The same shape in TF32 with float accumulators; the fragments are laid out alike.
__device__ __forceinline__ void mma16x8x8(float (&d)[4], const unsigned (&a)[4],
                                          const unsigned (&b)[2])
{
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    __trap();
#endif
}

// x rounded to TF32 (10 mantissa bits), as the bits the MMA reads.
__device__ __forceinline__ unsigned toTf32(float x)
{
#if __CUDA_ARCH__ >= 800
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
#else
    return __float_as_uint(x);
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

__device__ __forceinline__ void put(double* at, double c, double s)
{
    *reinterpret_cast<double2*>(at) = make_double2(c, s);
}
// float32 stores x as its TF32 high part and, a plane further on, the TF32 of what the high
// part misses, so that three TF32 products (high x high, high x low, low x high) keep float32
// accuracy.
__device__ __forceinline__ void put(float* at, float c, float s)
{
    const unsigned ch = toTf32(c), sh = toTf32(s);
    *reinterpret_cast<float2*>(at) = make_float2(__uint_as_float(ch), __uint_as_float(sh));
    *reinterpret_cast<float2*>(at + kLowPlane) =
        make_float2(__uint_as_float(toTf32(c - __uint_as_float(ch))),
                    __uint_as_float(toTf32(s - __uint_as_float(sh))));
}

// Fills one stage: the left rows for this CTA's blocks and the two right matrices, for the
// threads' samples. Inner index 2s holds the cosine part of sample s and 2s + 1 the sine
// part, so that a row [a cos x, a sin x] times the columns [cos y, -sin y] and
// [sin y, cos y] gives a cos(x + y) and a sin(x + y).
template <typename Real, bool FitMean>
__device__ void fillStage(const PeriodogramArgs<Real>& a, long long firstBlock,
                          const Sample<Real>& x, Real* stage)
{
    constexpr int rows = rowCount<FitMean>();
    Real* left = stage;
    Real* right1 = stage + rows * kStride;
    Real* right2 = right1 + kColumns * kStride;
    const int walker = threadIdx.x % 128;
    const int s = walker % kSamples;
    const int segment = walker / kSamples; // 8 segments
    const double t = x.t;
    if (threadIdx.x < 128) {
        // Left rows of blocks segment*8 .. +8: the start phase exactly, then rotations by
        // K df t from block to block.
        const Real w = x.w, wy = x.wy;
        const long long block = firstBlock + segment * 8;
        Real c, sn, stepC, stepS;
        phase((a.fmin + a.df * double(block * kFrequencies)) * t, c, sn);
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
            put(left + b * kStride + 2 * s, wy * c, wy * sn);
            if (FitMean)
                put(left + (kBlocks + b) * kStride + 2 * s, w * c, w * sn);
            put(left + (rows - kBlocks + b) * kStride + 2 * s, w * c2, w * s2);
            const Real next = c * stepC - sn * stepS;
            sn = sn * stepC + c * stepS;
            c = next;
        }
    } else {
        // Right matrices for frequencies segment*4 .. +4 of a block: e^{i k df t} and its square.
        Real c, sn;
        phase(a.df * double(segment * 4) * t, c, sn);
        const Real stepC = x.stepC, stepS = x.stepS;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int k = segment * 4 + q;
            const Real c2 = c * c - sn * sn, s2 = 2 * c * sn;
            put(right1 + k * kStride + 2 * s, c, -sn);
            put(right1 + (kFrequencies + k) * kStride + 2 * s, sn, c);
            put(right2 + k * kStride + 2 * s, c2, -s2);
            put(right2 + (kFrequencies + k) * kStride + 2 * s, s2, c2);
            const Real next = c * stepC - sn * stepS;
            sn = sn * stepC + c * stepS;
            c = next;
        }
    }
}

// A warp's fragments of one stage's k8 step, and its products: FP64 directly, or in float32
// the three TF32 products high x high, high x low and low x high.
template <typename Real> struct Operand;

template <> struct Operand<double>
{
    double v[4];
    __device__ void loadA(const double* row)
    {
        v[0] = row[0];
        v[1] = row[8 * kStride];
        v[2] = row[4];
        v[3] = row[8 * kStride + 4];
    }
};

template <> struct Operand<float>
{
    unsigned hi[4], lo[4];
    __device__ void loadA(const float* row)
    {
        const int at[4] = {0, 8 * kStride, 4, 8 * kStride + 4};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            hi[i] = __float_as_uint(row[at[i]]);
            lo[i] = __float_as_uint(row[kLowPlane + at[i]]);
        }
    }
};

template <typename Real> struct ColumnOperand;

template <> struct ColumnOperand<double>
{
    double v[2];
    __device__ void load(const double* column)
    {
        v[0] = column[0];
        v[1] = column[4];
    }
};

template <> struct ColumnOperand<float>
{
    unsigned hi[2], lo[2];
    __device__ void load(const float* column)
    {
        hi[0] = __float_as_uint(column[0]);
        hi[1] = __float_as_uint(column[4]);
        lo[0] = __float_as_uint(column[kLowPlane]);
        lo[1] = __float_as_uint(column[kLowPlane + 4]);
    }
};

__device__ __forceinline__ void multiply(double (&d)[4], const Operand<double>& a,
                                         const ColumnOperand<double>& b)
{
    mma16x8x8(d, a.v, b.v);
}
__device__ __forceinline__ void multiply(float (&d)[4], const Operand<float>& a,
                                         const ColumnOperand<float>& b)
{
    mma16x8x8(d, a.lo, b.hi);
    mma16x8x8(d, a.hi, b.lo);
    mma16x8x8(d, a.hi, b.hi);
}

template <typename Real, bool FitMean>
__global__ void __launch_bounds__(kThreads, 1)
    periodogramMatrixKernel(PeriodogramArgs<Real> a, double* __restrict__ power)
{
    constexpr int rows = rowCount<FitMean>();
    // Warps in 4 row groups x 2 column groups; each holds fragmentRows 16-row fragments by
    // 4 8-column fragments. Row group r takes fragments r, r + 4, r + 8, so that which right
    // matrix a fragment multiplies depends on its place in the warp alone, a constant.
    constexpr int fragmentRows = rows / 16 / 4;
    constexpr int columnFragments = kColumns / 8 / 2;
    constexpr int secondFrom = (rows - kBlocks) / 16; // fragments from here use the 2w matrix
    extern __shared__ __align__(16) unsigned char sharedBytesRaw[];
    Real* shared = reinterpret_cast<Real*>(sharedBytesRaw);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, tq = lane % 4;
    const long long firstBlock = (long long)blockIdx.x * kBlocks;
    const int rowGroup = warp / 2;
    const int firstColumn = (warp % 2) * columnFragments * 8;

    // float32 sums each stage's 16 samples apart and then adds them up, which keeps the
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
        const Real* stage = shared + (st % 2) * stageElements<Real, FitMean>();
        const Real* left = stage;
        const Real* right1 = stage + rows * kStride;
        const Real* right2 = right1 + kColumns * kStride;
#pragma unroll
        for (int kk = 0; kk < kInner; kk += 8) {
            ColumnOperand<Real> b1[columnFragments], b2[columnFragments];
#pragma unroll
            for (int nf = 0; nf < columnFragments; ++nf) {
                const int at = (firstColumn + nf * 8 + g) * kStride + kk + tq;
                b1[nf].load(right1 + at);
                b2[nf].load(right2 + at);
            }
#pragma unroll
            for (int m = 0; m < fragmentRows; ++m) {
                const int fragment = rowGroup + 4 * m;
                Operand<Real> av;
                av.loadA(left + (fragment * 16 + g) * kStride + kk + tq);
#pragma unroll
                for (int nf = 0; nf < columnFragments; ++nf)
                    multiply(twoLevel ? part[m][nf] : acc[m][nf], av,
                             4 * m < secondFrom ? b1[nf] : b2[nf]);
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

    // Gather the six sums of each frequency (they sit in different warps) and finish.
    Real* out = shared; // rows x kColumns
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
    for (int idx = threadIdx.x; idx < kBlocks * kFrequencies; idx += kThreads) {
        const int b = idx / kFrequencies, k = idx % kFrequencies;
        const long long f = (firstBlock + b) * kFrequencies + k;
        if (f >= a.count)
            continue;
        math::LsSums<Real> sums;
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

template <typename Real, bool FitMean>
cudaError_t launchWith(const PeriodogramArgs<Real>& a, double* power, cudaStream_t stream)
{
    constexpr std::size_t bytes = sharedBytes<Real, FitMean>();
    if (const cudaError_t e =
            cudaFuncSetAttribute(periodogramMatrixKernel<Real, FitMean>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
        e != cudaSuccess)
        return e;
    const long long perCta = (long long)kBlocks * kFrequencies;
    const long long ctas = (a.count + perCta - 1) / perCta;
    if (ctas > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    periodogramMatrixKernel<Real, FitMean><<<unsigned(ctas), kThreads, bytes, stream>>>(a, power);
    return cudaGetLastError();
}

} // namespace

bool periodogramMatrixSupported(int ccMajor)
{
    return ccMajor >= 8;
}

bool periodogramMatrixPreferred(int ccMajor, int ccMinor, bool float64)
{
    if (!float64)
        return ccMajor >= 8; // TF32 runs at full rate on every part that has it
    // The data-centre parts, whose FP64 tensor cores run at full rate.
    return (ccMajor == 8 && ccMinor == 0) || ccMajor == 9 || ccMajor == 10;
}

cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<double>& args, double* power,
                                    cudaStream_t stream)
{
    return args.fitMean ? launchWith<double, true>(args, power, stream)
                        : launchWith<double, false>(args, power, stream);
}

cudaError_t launchPeriodogramMatrix(const PeriodogramArgs<float>& args, double* power,
                                    cudaStream_t stream)
{
    return args.fitMean ? launchWith<float, true>(args, power, stream)
                        : launchWith<float, false>(args, power, stream);
}

} // namespace warpscope::gpu
