#pragma once

#include "math/HostDevice.h"

#include <cmath>

// Haversine distance, written once for the CUDA kernels and the CPU backend.
//
// a = sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2),  θ = 2 atan2(√a, √(1 − a)).
//
// On a lat/lon mesh the first term and the cosine product depend only on the row, and
// sin²(Δλ/2) only on the column, so a mesh node costs one multiply-add per reference point.
// θ grows monotonically with a, so the nearest reference is the one with the smallest a and
// only that one needs the inverse trigonometry.
namespace warpscope::gpu::math {

// Explicit float/double overloads: an unqualified sin(float) on the host would silently
// compute in double and make the float32 CPU path more accurate than the GPU's.
WS_HD float wsSin(float x)
{
    return sinf(x);
}
WS_HD double wsSin(double x)
{
    return sin(x);
}
WS_HD float wsCos(float x)
{
    return cosf(x);
}
WS_HD double wsCos(double x)
{
    return cos(x);
}
WS_HD float wsSqrt(float x)
{
    return sqrtf(x);
}
WS_HD double wsSqrt(double x)
{
    return sqrt(x);
}
WS_HD float wsAtan2(float y, float x)
{
    return atan2f(y, x);
}
WS_HD double wsAtan2(double y, double x)
{
    return atan2(y, x);
}

template <typename T> WS_HD T wsMin(T a, T b)
{
    return b < a ? b : a;
}
template <typename T> WS_HD T wsMax(T a, T b)
{
    return a < b ? b : a;
}
template <typename T> WS_HD T clamp01(T x)
{
    return wsMin(wsMax(x, T(0)), T(1));
}

template <typename T> WS_HD T degToRad(T degrees)
{
    return degrees * T(0.017453292519943295769236907684886);
}

// Coordinate of node i of n (n >= 2) between lo and hi; both ends are exact.
template <typename T> WS_HD T meshCoord(T lo, T hi, int i, int n)
{
    return i == n - 1 ? hi : lo + (hi - lo) * (T(i) / T(n - 1));
}

// sin²(x/2) for an angle difference in radians.
template <typename T> WS_HD T halfSinSquared(T deltaRad)
{
    const T s = wsSin(deltaRad * T(0.5));
    return s * s;
}

// Row terms of a for a mesh latitude and a reference latitude (radians).
template <typename T> struct RowTerms
{
    T halfDLat; // sin²(Δφ/2)
    T cosProd;  // cos φ cos φ_ref
};

template <typename T> WS_HD RowTerms<T> rowTerms(T latRad, T refLatRad, T cosRefLat)
{
    return {halfSinSquared(latRad - refLatRad), wsCos(latRad) * cosRefLat};
}

template <typename T> WS_HD T haversineA(RowTerms<T> row, T colTerm)
{
    return row.halfDLat + row.cosProd * colTerm;
}

// Central angle (radians) from the haversine term. Clamping a keeps every fast path free of
// NaN when rounding pushes a a hair outside [0, 1].
template <typename T> WS_HD T centralAngle(T a)
{
    a = clamp01(a);
    return T(2) * wsAtan2(wsSqrt(a), wsSqrt(T(1) - a));
}

// Great-circle distance between two points given in degrees, in the radius' unit.
template <typename T> WS_HD T haversineDistance(T lat1, T lon1, T lat2, T lon2, T radius)
{
    const T phi1 = degToRad(lat1);
    const T phi2 = degToRad(lat2);
    const RowTerms<T> row = rowTerms(phi1, phi2, wsCos(phi2));
    const T a = haversineA(row, halfSinSquared(degToRad(lon1 - lon2)));
    return radius * centralAngle(a);
}

} // namespace warpscope::gpu::math
