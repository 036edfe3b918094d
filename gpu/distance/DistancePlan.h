#pragma once

#include "distance/Haversine.h"
#include "warpscope/gpu/DistanceParams.h"

namespace warpscope::gpu {

// Everything a distance kernel needs, precomputed once per frame on the host in the compute
// precision. Passed to CUDA kernels by value, so it holds fixed-size arrays only.
template <typename T> struct DistancePlan
{
    T latMin, latMax, lonMin, lonMax;
    T radius; // sphere radius in the output unit
    int nx, ny, pitch;
    int refCount;
    T refLatRad[kMaxReferencePoints];
    T refLonDeg[kMaxReferencePoints];
    T cosRefLat[kMaxReferencePoints];
};

template <typename T> DistancePlan<T> makePlan(const DistanceParams& p)
{
    DistancePlan<T> plan{};
    plan.latMin = T(p.latMin);
    plan.latMax = T(p.latMax);
    plan.lonMin = T(p.lonMin);
    plan.lonMax = T(p.lonMax);
    plan.radius = T(p.radiusKm * unitsPerKilometre(p.unit));
    const FieldLayout layout = layoutFor(p);
    plan.nx = layout.nx;
    plan.ny = layout.ny;
    plan.pitch = layout.pitch;
    plan.refCount = int(p.references.size());
    for (int r = 0; r < plan.refCount; ++r) {
        // The reference terms are rounded from double so both precisions see the same points.
        const double latRad = p.references[r].lat * 0.017453292519943295769236907684886;
        plan.refLatRad[r] = T(latRad);
        plan.refLonDeg[r] = T(p.references[r].lon);
        plan.cosRefLat[r] = T(std::cos(latRad));
    }
    return plan;
}

template <typename T> WS_HD T planLatRad(const DistancePlan<T>& plan, int row)
{
    return math::degToRad(math::meshCoord(plan.latMin, plan.latMax, row, plan.ny));
}

template <typename T> WS_HD T planColTerm(const DistancePlan<T>& plan, int col, int ref)
{
    const T lon = math::meshCoord(plan.lonMin, plan.lonMax, col, plan.nx);
    return math::halfSinSquared(math::degToRad(lon - plan.refLonDeg[ref]));
}

// Distance of one mesh node to the nearest reference, computed the way the kernels do.
template <typename T> WS_HD T planNodeDistance(const DistancePlan<T>& plan, int row, int col)
{
    const T latRad = planLatRad(plan, row);
    T best = T(2);
    for (int r = 0; r < plan.refCount; ++r) {
        const math::RowTerms<T> terms =
            math::rowTerms(latRad, plan.refLatRad[r], plan.cosRefLat[r]);
        best = math::wsMin(best, math::haversineA(terms, planColTerm(plan, col, r)));
    }
    return plan.radius * math::centralAngle(best);
}

} // namespace warpscope::gpu
