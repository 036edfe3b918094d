#pragma once

#include "warpscope/gpu/Precision.h"

#include <cstddef>
#include <string>
#include <vector>

namespace warpscope::gpu {

enum class DistanceUnit
{
    Kilometres,
    Miles,
    NauticalMiles
};

struct GeoPoint
{
    double lat = 0.0; // degrees
    double lon = 0.0; // degrees
    bool operator==(const GeoPoint&) const = default;
};

// Limits a user can rely on. The per-axis limit is twice what the brief promises; the total
// is further bounded by memory and by what the OpenGL driver can display.
inline constexpr int kMinMeshAxis = 2;
inline constexpr int kMaxMeshAxis = 16384;
inline constexpr int kMaxReferencePoints = 64;
inline constexpr double kDefaultRadiusKm = 6371.0088; // IUGG mean Earth radius
inline constexpr double kMinRadiusKm = 1e-3;
inline constexpr double kMaxRadiusKm = 1e9;

// A distance field: for every node of a regular lat/lon mesh, the great-circle distance to
// the nearest reference point. Row i holds latitude latMin + i * (latMax - latMin) / (ny - 1),
// column j longitude lonMin + j * (lonMax - lonMin) / (nx - 1).
struct DistanceParams
{
    double latMin = 29.0;
    double latMax = 31.0;
    double lonMin = 99.0;
    double lonMax = 101.0;
    int nx = 1000;
    int ny = 1000;
    std::vector<GeoPoint> references = std::vector<GeoPoint>(1, GeoPoint{30.0, 101.0});
    Precision precision = Precision::Float32;
    DistanceUnit unit = DistanceUnit::Kilometres;
    double radiusKm = kDefaultRadiusKm;

    bool operator==(const DistanceParams&) const = default;
};

// A parameter of DistanceParams: what a validation message belongs to, so a UI can
// highlight that control, and what a UI change touched.
enum class ParamField
{
    LatMin,
    LatMax,
    LonMin,
    LonMax,
    Nx,
    Ny,
    References,
    Radius,
    Precision,
    Unit
};

struct ParamError
{
    ParamField field;
    int index = -1; // reference point index for ParamField::References, else -1
    std::string message;
};

// Checks ranges, ordering, finiteness and counts. An empty result means the parameters are
// usable; memory limits are checked by the backend and the renderer.
std::vector<ParamError> validate(const DistanceParams& params);

// Kilometres to the chosen unit.
double unitsPerKilometre(DistanceUnit unit);
const char* unitSymbol(DistanceUnit unit);
const char* precisionName(Precision precision);

// Where each value of a field lies in a linear buffer. Rows are padded to a multiple of four
// values so a GPU thread can write four at once; the two values after the last row hold the
// field's minimum and maximum, so a renderer can scale colours without asking the host.
struct FieldLayout
{
    int nx = 0;
    int ny = 0;
    int pitch = 0;

    static FieldLayout forMesh(int nx, int ny);
    std::size_t statsOffset() const { return std::size_t(pitch) * std::size_t(ny); }
    std::size_t elementCount() const { return statsOffset() + 2; }
    std::size_t index(int row, int col) const { return std::size_t(row) * pitch + col; }
    bool operator==(const FieldLayout&) const = default;
};

inline FieldLayout layoutFor(const DistanceParams& params)
{
    return FieldLayout::forMesh(params.nx, params.ny);
}

// Exact great-circle distance (double precision) from a point to the nearest reference, in
// the parameters' unit. Used for the hover readout; it needs no field on the host.
double distanceToNearest(const DistanceParams& params, GeoPoint point, int* nearestIndex = nullptr);

// Expected largest float32 error, in the parameters' unit, over a sample of the mesh that
// includes each reference's antipode when it falls inside: the larger of the error observed
// on the host and an error model of the GPU's arithmetic. And the mesh spacing, to compare.
struct PrecisionEstimate
{
    double maxFloat32Error = 0.0;
    double cellSize = 0.0; // smaller mesh spacing at the middle latitude, in the parameters' unit
};
PrecisionEstimate estimateFloat32Error(const DistanceParams& params);

} // namespace warpscope::gpu
