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
    };
    return examples;
}

} // namespace warpscope::gpu
