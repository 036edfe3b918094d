// The workbench's starting points: its three templates and the examples, as source a person
// edits. The signatures they are written against are documented in UserKernel.h.
#include "warpscope/gpu/UserKernel.h"

namespace warpscope::gpu {
namespace {

const char* kPerNode = R"(// The value of one mesh node, like @vectorize: lat and lon in degrees,
// refs[i].lat and refs[i].lon for i < refs.count, refs.radius in the scene's unit.
// real is float (double in the Variants tab's float64 row).
// @param float k = 1.0 [0, 10]
const real dLat = real(lat - refs[0].lat);
const real dLon = real(lon - refs[0].lon);
return p.k * sqrt(dLat * dLat + dLon * dLon);
)";

const char* kWholeKernel =
    R"(// A whole kernel, like @cuda.jit or RawKernel, launched with the Launch panel's
// grid and block. out.write(row, col, value) ignores nodes outside the mesh.
// real is float (double in the Variants tab's float64 row).
// @param float scale = 1.0 [0, 10]
__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= mesh.ny || col >= mesh.nx)
        return;
    const real dLat = real(mesh.lat(row) - refs[0].lat);
    const real dLon = real(mesh.lon(col) - refs[0].lon);
    out.write(row, col, float(p.scale * sqrt(dLat * dLat + dLon * dLon)));
}
)";

const char* kHaversine =
    R"(// Great-circle distance to the nearest reference (haversine), in the scene's
// unit: the same field as the built-in kernel, in double precision.
const double toRad = 0.017453292519943295;
const double phi = lat * toRad;
double best = 1.0;
for (int i = 0; i < refs.count; ++i) {
    const double refPhi = refs[i].lat * toRad;
    const double sLat = sin(0.5 * (phi - refPhi));
    const double sLon = sin(0.5 * (lon - refs[i].lon) * toRad);
    const double a = sLat * sLat + cos(phi) * cos(refPhi) * sLon * sLon;
    best = fmin(best, a);
}
best = fmin(fmax(best, 0.0), 1.0);
return float(refs.radius * 2.0 * atan2(sqrt(best), sqrt(1.0 - best)));
)";

const char* kRipples = R"(// Ripples spreading from every reference, fading with distance (degrees).
// @param float wavelength = 0.25 [0.01, 2]
// @param float decay = 1.0 [0, 10]
float sum = 0.0f;
for (int i = 0; i < refs.count; ++i) {
    const float dLat = float(lat - refs[i].lat);
    const float dLon = float(lon - refs[i].lon);
    const float d = sqrtf(dLat * dLat + dLon * dLon);
    sum += cosf(6.2831853f * d / p.wavelength) * expf(-p.decay * d);
}
return sum;
)";

const char* kVoronoi = R"(// Voronoi cells by Manhattan distance: the index of the nearest reference
// measured as |dLat| + |dLon| (degrees), with the cell's edges shaded.
// @param float edge = 0.02 [0, 0.5]
float best = 1e30f, second = 1e30f;
int nearest = 0;
for (int i = 0; i < refs.count; ++i) {
    const float d = fabsf(float(lat - refs[i].lat)) + fabsf(float(lon - refs[i].lon));
    if (d < best) {
        second = best;
        best = d;
        nearest = i;
    } else if (d < second) {
        second = d;
    }
}
return (second - best < p.edge) ? -1.0f : float(nearest);
)";

const char* kBearing = R"(// Initial bearing (degrees from north, 0 to 360) from the node to the
// nearest reference along the great circle.
const double toRad = 0.017453292519943295;
const double phi = lat * toRad;
double best = 2.0;
int nearest = 0;
for (int i = 0; i < refs.count; ++i) {
    const double sLat = sin(0.5 * (phi - refs[i].lat * toRad));
    const double sLon = sin(0.5 * (lon - refs[i].lon) * toRad);
    const double a = sLat * sLat + cos(phi) * cos(refs[i].lat * toRad) * sLon * sLon;
    if (a < best) {
        best = a;
        nearest = i;
    }
}
const double refPhi = refs[nearest].lat * toRad;
const double dLon = (refs[nearest].lon - lon) * toRad;
const double y = sin(dLon) * cos(refPhi);
const double x = cos(phi) * sin(refPhi) - sin(phi) * cos(refPhi) * cos(dLon);
const double degrees = atan2(y, x) / toRad;
return float(degrees < 0.0 ? degrees + 360.0 : degrees);
)";

// The memory lessons: one kernel each with its slow and fast forms a parameter away, meant to
// be run with the Memory tab recording and blocks of 32 x 8 threads (a warp is a row).
const char* kCoalescing =
    R"(// Each thread loads one float of src and paints the 32-byte sector it came from.
// @param int stride = 32 [1, 32]
// @buffer float src[nodes * 32]
__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= mesh.ny || col >= mesh.nx)
        return;
    const long long i = ((long long)row * mesh.nx + col) * p.stride;
    out.write(row, col, p.src[i] + float(i / 8 % 32));
}
)";

const char* kBankConflicts =
    R"(// A transpose through a 32 x 32 tile of shared memory: written by rows, read by columns.
// @param bool padded = false
// @buffer float src[nodes]
__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    __shared__ float tile[32 * 33];
    const int pitch = p.padded ? 33 : 32;
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += blockDim.y)
        if (x < mesh.nx && y + j < mesh.ny)
            tile[(threadIdx.y + j) * pitch + threadIdx.x] =
                p.src[(long long)(y + j) * mesh.nx + x] + float(x - 2 * (y + j));
    __syncthreads();
    const int tx = blockIdx.y * 32 + threadIdx.x;
    const int ty = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += blockDim.y)
        if (tx < mesh.nx && ty + j < mesh.ny)
            out.write(ty + j, tx, tile[threadIdx.x * pitch + threadIdx.y + j]);
}
)";

const char* kDivergence =
    R"(// Two loops of the same length: split between odd and even lanes, or between warps.
// @param bool byWarp = false
__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= mesh.ny || col >= mesh.nx)
        return;
    const bool first = p.byWarp ? threadIdx.y % 2 == 0 : threadIdx.x % 2 == 0;
    float v = 0.0f;
    if (first) {
        for (int k = 0; k < 64; ++k)
            v = v * 0.99f + 1.0f;
    } else {
        for (int k = 0; k < 64; ++k)
            v = v * 0.98f - 1.0f;
    }
    out.write(row, col, v);
}
)";

} // namespace

const std::vector<KernelExample>& kernelExamples()
{
    static const std::vector<KernelExample> examples = {
        {"Per node",
         "The body of float value(lat, lon, refs, p), run for every node",
         {KernelShape::PerNode, kPerNode}},
        {"Whole kernel",
         "A __global__ kernel launched with the Launch panel's grid and block",
         {KernelShape::WholeKernel, kWholeKernel}},
        {"Built-in haversine",
         "The built-in distance field as editable source",
         {KernelShape::PerNode, kHaversine}},
        {"Ripples", "Waves spreading from the references", {KernelShape::PerNode, kRipples}},
        {"Voronoi (Manhattan)",
         "The nearest reference by |dLat| + |dLon|",
         {KernelShape::PerNode, kVoronoi},
         // One reference has one cell: five show the cells and their edges.
         {{0.2, 0.25}, {0.75, 0.2}, {0.5, 0.55}, {0.25, 0.8}, {0.8, 0.75}}},
        {"Bearing to nearest",
         "The great-circle bearing to the nearest reference",
         {KernelShape::PerNode, kBearing}},
        {"Lesson: coalescing",
         "Sectors per request as the lanes' stride grows",
         {KernelShape::WholeKernel, kCoalescing},
         {},
         "A GPU moves global memory in 32-byte sectors. With stride 1 the 32 lanes of a warp "
         "load 128 consecutive bytes: 4 sectors, the fewest. Raise the stride and each request "
         "touches more sectors for the same bytes; from 8 on every lane has a sector of its own: "
         "32 sectors, 8x the ideal. Watch the Memory tab's row for the load (recording on), and "
         "the stripes: each is the nodes that shared a sector. Blocks of 32 x 8 threads."},
        {"Lesson: bank conflicts",
         "Shared-memory wavefronts of a tile read by columns, with and without padding",
         {KernelShape::WholeKernel, kBankConflicts},
         {},
         "Shared memory has 32 banks of 4-byte words, and a warp's accesses to different words of "
         "one bank are served one after another. A column of a 32-wide tile lies in one bank, so "
         "reading it costs 32 wavefronts (a 32-way conflict). Tick padded: rows of 33 words move "
         "each row one bank on, and a column's 32 words lie in 32 banks: 1 wavefront. Blocks of "
         "32 x 8 threads, a grid that covers the mesh in 32 x 32 tiles."},
        {"Lesson: divergence",
         "Active lanes when odd and even lanes take different branches",
         {KernelShape::WholeKernel, kDivergence},
         {},
         "The 32 lanes of a warp run each instruction together. When odd and even lanes take "
         "different loops, the warp runs both, half its lanes idle in each: the Memory tab's "
         "branch rows show 16 of 32 lanes. Tick byWarp: the same work split by warp (a warp is a "
         "row of a 32 x 8 block) keeps all 32 lanes busy, and the picture's stripes turn from "
         "columns to rows."},
    };
    return examples;
}

} // namespace warpscope::gpu
