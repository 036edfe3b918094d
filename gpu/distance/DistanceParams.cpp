#include "warpscope/gpu/DistanceParams.h"

#include "distance/DistancePlan.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace warpscope::gpu {
namespace {

std::string number(double v)
{
    if (std::isnan(v))
        return "NaN";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void checkRange(std::vector<ParamError>& errors, ParamField field, const char* what, double v,
                double lo, double hi)
{
    if (!std::isfinite(v))
        errors.push_back(
            {field, -1, std::string(what) + " must be a finite number, not " + number(v)});
    else if (v < lo || v > hi)
        errors.push_back({field, -1,
                          std::string(what) + " must lie in [" + number(lo) + ", " + number(hi) +
                              "], not " + number(v)});
}

void checkAxis(std::vector<ParamError>& errors, ParamField field, const char* what, int n)
{
    if (n < kMinMeshAxis || n > kMaxMeshAxis)
        errors.push_back({field, -1,
                          std::string(what) + " must be between " + std::to_string(kMinMeshAxis) +
                              " and " + std::to_string(kMaxMeshAxis) + ", not " +
                              std::to_string(n)});
}

bool hasError(const std::vector<ParamError>& errors, ParamField field)
{
    return std::any_of(errors.begin(), errors.end(),
                       [field](const ParamError& e) { return e.field == field; });
}

} // namespace

std::vector<ParamError> validate(const DistanceParams& p)
{
    std::vector<ParamError> errors;
    checkRange(errors, ParamField::LatMin, "Minimum latitude", p.latMin, -90.0, 90.0);
    checkRange(errors, ParamField::LatMax, "Maximum latitude", p.latMax, -90.0, 90.0);
    checkRange(errors, ParamField::LonMin, "Minimum longitude", p.lonMin, -180.0, 360.0);
    checkRange(errors, ParamField::LonMax, "Maximum longitude", p.lonMax, -180.0, 360.0);
    if (!hasError(errors, ParamField::LatMin) && !hasError(errors, ParamField::LatMax) &&
        p.latMin >= p.latMax)
        errors.push_back({ParamField::LatMax, -1,
                          "Maximum latitude (" + number(p.latMax) +
                              ") must be greater than the minimum (" + number(p.latMin) + ")"});
    if (!hasError(errors, ParamField::LonMin) && !hasError(errors, ParamField::LonMax)) {
        if (p.lonMin >= p.lonMax)
            errors.push_back({ParamField::LonMax, -1,
                              "Maximum longitude (" + number(p.lonMax) +
                                  ") must be greater than the minimum (" + number(p.lonMin) + ")"});
        else if (p.lonMax - p.lonMin > 360.0)
            errors.push_back({ParamField::LonMax, -1,
                              "The longitude span must not exceed 360 degrees, not " +
                                  number(p.lonMax - p.lonMin)});
    }
    checkAxis(errors, ParamField::Nx, "Columns (nx)", p.nx);
    checkAxis(errors, ParamField::Ny, "Rows (ny)", p.ny);
    checkRange(errors, ParamField::Radius, "Sphere radius (km)", p.radiusKm, kMinRadiusKm,
               kMaxRadiusKm);

    if (p.references.empty())
        errors.push_back({ParamField::References, -1, "At least one reference point is needed"});
    if (p.references.size() > std::size_t(kMaxReferencePoints))
        errors.push_back({ParamField::References, -1,
                          "At most " + std::to_string(kMaxReferencePoints) +
                              " reference points are supported, not " +
                              std::to_string(p.references.size())});
    for (std::size_t i = 0; i < p.references.size(); ++i) {
        const GeoPoint& r = p.references[i];
        const std::string name = "Reference " + std::to_string(i + 1);
        if (!std::isfinite(r.lat) || r.lat < -90.0 || r.lat > 90.0)
            errors.push_back({ParamField::References, int(i),
                              name + ": latitude must lie in [-90, 90], not " + number(r.lat)});
        if (!std::isfinite(r.lon) || r.lon < -180.0 || r.lon > 360.0)
            errors.push_back({ParamField::References, int(i),
                              name + ": longitude must lie in [-180, 360], not " + number(r.lon)});
    }
    return errors;
}

double unitsPerKilometre(DistanceUnit unit)
{
    switch (unit) {
    case DistanceUnit::Miles:
        return 1.0 / 1.609344; // international mile
    case DistanceUnit::NauticalMiles:
        return 1.0 / 1.852;
    case DistanceUnit::Kilometres:
        break;
    }
    return 1.0;
}

const char* unitSymbol(DistanceUnit unit)
{
    switch (unit) {
    case DistanceUnit::Miles:
        return "mi";
    case DistanceUnit::NauticalMiles:
        return "nmi";
    case DistanceUnit::Kilometres:
        break;
    }
    return "km";
}

const char* precisionName(Precision precision)
{
    return precision == Precision::Float64 ? "float64" : "float32";
}

FieldLayout FieldLayout::forMesh(int nx, int ny)
{
    return {nx, ny, (nx + 3) / 4 * 4};
}

double distanceToNearest(const DistanceParams& p, GeoPoint point, int* nearestIndex)
{
    const double radius = p.radiusKm * unitsPerKilometre(p.unit);
    double best = INFINITY;
    int bestIndex = -1;
    for (std::size_t i = 0; i < p.references.size(); ++i) {
        const GeoPoint& r = p.references[i];
        const double d = math::haversineDistance(point.lat, point.lon, r.lat, r.lon, radius);
        if (d < best) {
            best = d;
            bestIndex = int(i);
        }
    }
    if (nearestIndex)
        *nearestIndex = bestIndex;
    return best;
}

PrecisionEstimate estimateFloat32Error(const DistanceParams& p)
{
    PrecisionEstimate estimate;
    if (!validate(p).empty())
        return estimate;
    const auto f32 = makePlan<float>(p);
    const auto f64 = makePlan<double>(p);
    const double radius = f64.radius;
    // North-south spacing, or east-west at the mesh's middle latitude if that is smaller.
    const double degree = radius * 0.017453292519943295;
    const double midLat = 0.5 * (p.latMin + p.latMax) * 0.017453292519943295;
    estimate.cellSize = degree * std::min((p.latMax - p.latMin) / (p.ny - 1),
                                          (p.lonMax - p.lonMin) / (p.nx - 1) * std::cos(midLat));

    // An even sample of rows and columns, plus those nearest each reference's antipode,
    // where float32 loses the most. Small enough to run on every parameter change: with 64
    // references, about 0.3 M node evaluations.
    constexpr int kSamples = 33;
    std::vector<int> rows, cols;
    for (int k = 0; k < kSamples; ++k) {
        rows.push_back(int(std::lround(double(k) * (p.ny - 1) / (kSamples - 1))));
        cols.push_back(int(std::lround(double(k) * (p.nx - 1) / (kSamples - 1))));
    }
    for (const GeoPoint& r : p.references) {
        const double lat = -r.lat;
        for (double lon : {r.lon + 180.0, r.lon - 180.0, r.lon + 540.0, r.lon - 540.0}) {
            if (lat < p.latMin || lat > p.latMax || lon < p.lonMin || lon > p.lonMax)
                continue;
            const int i = int(std::lround((lat - p.latMin) / (p.latMax - p.latMin) * (p.ny - 1)));
            const int j = int(std::lround((lon - p.lonMin) / (p.lonMax - p.lonMin) * (p.nx - 1)));
            for (int d = -2; d <= 2; ++d) {
                rows.push_back(std::clamp(i + d, 0, p.ny - 1));
                cols.push_back(std::clamp(j + d, 0, p.nx - 1));
            }
        }
    }
    for (int i : rows)
        for (int j : cols) {
            const double exact = planNodeDistance(f64, i, j);
            const double observed = std::abs(double(planNodeDistance(f32, i, j)) - exact);
            // The host's sinf is more accurate than a GPU's, so the observed error is combined
            // with a model: a is known to about one float32 rounding u, which atan2 turns into
            // u / sqrt(1 - a), about 3 km on Earth at the antipode (observed: up to 5 km).
            constexpr double u = 5.96e-8;
            const double c = std::cos(0.5 * exact / radius);
            const double modelled =
                radius * std::min(u / std::max(std::abs(c), 1e-300), 2.0 * std::sqrt(u));
            estimate.maxFloat32Error = std::max({estimate.maxFloat32Error, observed, modelled});
        }
    return estimate;
}

} // namespace warpscope::gpu
