#include "distance/DistanceKernel.cuh"
#include "runtime/WarpReduce.cuh"

#include <cstdint>

namespace warpscope::gpu {
namespace {

// A block covers 128 columns x 64 rows. Each thread owns 4 adjacent columns (one 16-byte
// store per row) and 8 rows. The column terms (per reference, per column) and
// row terms (per reference, per row) a block needs are staged in shared memory, so a node
// costs one multiply-add and one min per reference, and only the nearest reference gets the
// inverse trigonometry.
//
// Two variants, measured on an H100 (docs/PERFORMANCE.md):
//  - up to two references: the block computes its terms itself, in the one launch (34 µs
//    at 4096² with one reference, against 38 µs with a table launch first);
//  - more references: termsKernel first computes every term once per frame into tables and
//    the field kernel only loads them (16 references at 8192²: 0.24 ms, against 0.28 ms
//    computing them per block).
constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kCols = 4;
constexpr int kBlockCols = kThreadsX * kCols;
constexpr int kRefChunk = 8;
constexpr int kThreads = kThreadsX * kThreadsY;
constexpr int kRows = 8;
constexpr int kBlockRows = kThreadsY * kRows;
constexpr int kMaxInlineRefs = 2;

// Four adjacent values moved with 16-byte accesses (p 16-byte aligned).
template <typename T> struct Vec4;
template <> struct Vec4<float>
{
    __device__ static void store(float* p, const float (&v)[kCols])
    {
        *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    }
    __device__ static void load(const float* p, float (&v)[kCols])
    {
        const float4 f = *reinterpret_cast<const float4*>(p);
        v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
    }
};
template <> struct Vec4<double>
{
    __device__ static void store(double* p, const double (&v)[kCols])
    {
        reinterpret_cast<double2*>(p)[0] = make_double2(v[0], v[1]);
        reinterpret_cast<double2*>(p)[1] = make_double2(v[2], v[3]);
    }
    __device__ static void load(const double* p, double (&v)[kCols])
    {
        const double2 a = reinterpret_cast<const double2*>(p)[0];
        const double2 b = reinterpret_cast<const double2*>(p)[1];
        v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
    }
};

// Distances are never negative, so the bit patterns of their doubles order like the values.
// The minimum is kept complemented, so both keys start from zero and grow with atomicMax.
// The last block to finish publishes the result and zeroes the state for the next launch.
template <typename Out>
__device__ void publishStats(DistanceStatsState* state, double lo, double hi, Out* statsOut)
{
    atomicMax(&state->minKey, ~static_cast<unsigned long long>(__double_as_longlong(lo)));
    atomicMax(&state->maxKey, static_cast<unsigned long long>(__double_as_longlong(hi)));
    __threadfence(); // the keys are visible before this block counts as done
    const unsigned int blocks = gridDim.x * gridDim.y;
    if (atomicAdd(&state->blocksDone, 1u) != blocks - 1)
        return;
    __threadfence();
    const double fieldMin =
        __longlong_as_double(static_cast<long long>(~atomicAdd(&state->minKey, 0ull)));
    const double fieldMax =
        __longlong_as_double(static_cast<long long>(atomicAdd(&state->maxKey, 0ull)));
    statsOut[0] = Out(fieldMin);
    statsOut[1] = Out(fieldMax);
    state->finalMin = fieldMin;
    state->finalMax = fieldMax;
    state->minKey = 0;
    state->maxKey = 0;
    state->blocksDone = 0;
}

// Term tables in scratch memory: rows first (paired, 8- or 16-byte aligned), then columns.
template <typename T> struct Terms
{
    math::RowTerms<T>* row; // [ref][ny]   sin²(Δφ/2), cos φ cos φ_ref
    T* col;                 // [ref][nx]   sin²(Δλ/2)
};

template <typename T> Terms<T> termsIn(const DistancePlan<T>& plan, void* scratch)
{
    auto* rows = static_cast<math::RowTerms<T>*>(scratch);
    return {rows, reinterpret_cast<T*>(rows + std::size_t(plan.refCount) * plan.ny)};
}

// One thread per table entry.
template <typename T> __global__ void termsKernel(const DistancePlan<T> plan, Terms<T> terms)
{
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t cols = std::size_t(plan.refCount) * plan.nx;
    const std::size_t rows = std::size_t(plan.refCount) * plan.ny;
    if (k < cols) {
        terms.col[k] = planColTerm(plan, int(k % plan.nx), int(k / plan.nx));
    } else if (k < cols + rows) {
        const std::size_t r = k - cols;
        const int ref = int(r / plan.ny);
        terms.row[r] = math::rowTerms(planLatRad(plan, int(r % plan.ny)), plan.refLatRad[ref],
                                      plan.cosRefLat[ref]);
    }
}

// Four resident blocks per SM in float32 (64 registers), two in float64 (128).
template <typename T> constexpr int kMinBlocks = sizeof(T) == 4 ? 4 : 2;

template <typename T, typename Out, bool Tables>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T>)
    distanceKernel(const DistancePlan<T> plan, const Terms<T> terms, Out* __restrict__ out,
                   DistanceStatsState* state)
{
    __shared__ alignas(16) T sColTerm[kRefChunk][kBlockCols];
    __shared__ math::RowTerms<T> sRow[kRefChunk][kBlockRows];
    __shared__ double sLo[kThreads / 32];
    __shared__ double sHi[kThreads / 32];

    const int tid = threadIdx.y * kThreadsX + threadIdx.x;
    const int blockCol0 = blockIdx.x * kBlockCols;
    const int blockRow0 = blockIdx.y * kBlockRows;
    const int localCol0 = threadIdx.x * kCols;
    const int localRow0 = threadIdx.y * kRows;

    T best[kRows][kCols];
#pragma unroll
    for (int k = 0; k < kRows; ++k)
#pragma unroll
        for (int q = 0; q < kCols; ++q)
            best[k][q] = T(2);

    for (int r0 = 0; r0 < plan.refCount; r0 += kRefChunk) {
        const int chunk = min(kRefChunk, plan.refCount - r0);
        __syncthreads(); // the previous chunk's terms are no longer read
        // Padding columns and rows past the mesh use the last real one.
        for (int k = tid; k < chunk * kBlockCols; k += kThreads) {
            const int ref = r0 + k / kBlockCols;
            const int col = min(blockCol0 + k % kBlockCols, plan.nx - 1);
            sColTerm[k / kBlockCols][k % kBlockCols] =
                Tables ? terms.col[std::size_t(ref) * plan.nx + col] : planColTerm(plan, col, ref);
        }
        for (int k = tid; k < chunk * kBlockRows; k += kThreads) {
            const int ref = r0 + k / kBlockRows;
            const int row = min(blockRow0 + k % kBlockRows, plan.ny - 1);
            sRow[k / kBlockRows][k % kBlockRows] =
                Tables ? terms.row[std::size_t(ref) * plan.ny + row]
                       : math::rowTerms(planLatRad(plan, row), plan.refLatRad[ref],
                                        plan.cosRefLat[ref]);
        }
        __syncthreads();
        for (int ref = 0; ref < chunk; ++ref) {
            T colTerm[kCols];
            Vec4<T>::load(&sColTerm[ref][localCol0], colTerm);
#pragma unroll
            for (int k = 0; k < kRows; ++k) {
                const math::RowTerms<T> row = sRow[ref][localRow0 + k];
#pragma unroll
                for (int q = 0; q < kCols; ++q)
                    best[k][q] = math::wsMin(best[k][q], math::haversineA(row, colTerm[q]));
            }
        }
    }

    // Padding columns (col >= nx) hold exactly the last real column's values (their terms
    // were computed from it), so every element is written, and they may enter the min and max
    // without changing them.
    const int col0 = blockCol0 + localCol0;
    Out lo = Out(3.0e38f);
    Out hi = Out(0);
    if (col0 < plan.pitch) {
#pragma unroll
        for (int k = 0; k < kRows; ++k) {
            const int row = blockRow0 + localRow0 + k;
            if (row >= plan.ny)
                break;
            Out v[kCols];
#pragma unroll
            for (int q = 0; q < kCols; ++q) {
                v[q] = Out(plan.radius * math::centralAngle(best[k][q]));
                lo = math::wsMin(lo, v[q]);
                hi = math::wsMax(hi, v[q]);
            }
            Vec4<Out>::store(out + std::size_t(row) * plan.pitch + col0, v);
        }
    }

    lo = warpReduce(lo, [](Out a, Out b) { return math::wsMin(a, b); });
    hi = warpReduce(hi, [](Out a, Out b) { return math::wsMax(a, b); });
    if (tid % 32 == 0) {
        sLo[tid / 32] = lo;
        sHi[tid / 32] = hi;
    }
    __syncthreads();
    if (tid == 0) {
        double blockLo = sLo[0], blockHi = sHi[0];
        for (int w = 1; w < kThreads / 32; ++w) {
            blockLo = math::wsMin(blockLo, sLo[w]);
            blockHi = math::wsMax(blockHi, sHi[w]);
        }
        publishStats(state, blockLo, blockHi, out + std::size_t(plan.pitch) * plan.ny);
    }
}

dim3 fieldGrid(int pitch, int ny)
{
    return dim3((pitch + kBlockCols - 1) / kBlockCols, (ny + kBlockRows - 1) / kBlockRows);
}

} // namespace

std::string distanceLaunchText(int pitch, int ny, int refCount)
{
    const dim3 grid = fieldGrid(pitch, ny);
    std::string text = "grid " + std::to_string(grid.x) + " x " + std::to_string(grid.y) +
                       ", block " + std::to_string(kThreadsX) + " x " + std::to_string(kThreadsY);
    if (refCount > kMaxInlineRefs)
        text += ", after a term-table launch";
    return text;
}

template <typename T, typename Out>
cudaError_t launchDistanceKernel(const DistancePlan<T>& plan, Out* out, DistanceStatsState* state,
                                 void* scratch, cudaStream_t stream)
{
    if (reinterpret_cast<std::uintptr_t>(out) % 16 != 0)
        return cudaErrorMisalignedAddress;
    const dim3 block(kThreadsX, kThreadsY);
    const dim3 grid = fieldGrid(plan.pitch, plan.ny);
    if (plan.refCount <= kMaxInlineRefs) {
        distanceKernel<T, Out, false><<<grid, block, 0, stream>>>(plan, Terms<T>{}, out, state);
        return cudaGetLastError();
    }
    const Terms<T> terms = termsIn(plan, scratch);
    const std::size_t entries = std::size_t(plan.refCount) * (plan.nx + plan.ny);
    constexpr unsigned kTermThreads = 256;
    termsKernel<T>
        <<<unsigned((entries + kTermThreads - 1) / kTermThreads), kTermThreads, 0, stream>>>(plan,
                                                                                             terms);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return e;
    distanceKernel<T, Out, true><<<grid, block, 0, stream>>>(plan, terms, out, state);
    return cudaGetLastError();
}

template cudaError_t launchDistanceKernel(const DistancePlan<float>&, float*, DistanceStatsState*,
                                          void*, cudaStream_t);
template cudaError_t launchDistanceKernel(const DistancePlan<float>&, double*, DistanceStatsState*,
                                          void*, cudaStream_t);
template cudaError_t launchDistanceKernel(const DistancePlan<double>&, float*, DistanceStatsState*,
                                          void*, cudaStream_t);
template cudaError_t launchDistanceKernel(const DistancePlan<double>&, double*, DistanceStatsState*,
                                          void*, cudaStream_t);

} // namespace warpscope::gpu
