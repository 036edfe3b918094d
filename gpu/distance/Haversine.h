#pragma once

#include "runtime/HostDevice.h"

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
// The GPU's approximate square root is one instruction, against about eight for the
// correctly rounded one, and is within 2^-23 relative: nothing a float32 distance can tell.
// Measured on an H100: the 4096² field kernel went from 35.5 to 31 µs (docs/PERFORMANCE.md).
WS_HD float wsSqrt(float x)
{
#if defined(__CUDA_ARCH__)
    float root;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(root) : "f"(x));
    return root;
#else
    return sqrtf(x);
#endif
}
WS_HD double wsSqrt(double x)
{
    return sqrt(x);
}

// Fused multiply-add on the GPU; on a host built without FMA instructions fmaf is a slow
// library call, so there it is a multiply and an add (within the tests' tolerances).
WS_HD float wsFma(float a, float b, float c)
{
#if defined(__CUDA_ARCH__)
    return fmaf(a, b, c);
#else
    return a * b + c;
#endif
}

// asin(x) for 0 <= x <= sqrt(1/2). float: x + x z P(z) with z = x², P a degree-6 fit made for
// this range (at most 2 ulp from the true asin; tests/gpu checks it), 9 instructions where
// the library's general asinf or atan2f take several times more. double: the library's asin.
WS_HD float asinSmall(float x)
{
    const float z = x * x;
    float p = 0.0958801582f;
    p = wsFma(p, z, -0.0668102875f);
    p = wsFma(p, z, 0.0601206385f);
    p = wsFma(p, z, 0.0217972826f);
    p = wsFma(p, z, 0.0456247479f);
    p = wsFma(p, z, 0.0749504566f);
    p = wsFma(p, z, 0.166667402f);
    return wsFma(x * z, p, x);
}
WS_HD double asinSmall(double x)
{
    return asin(x);
}

// On the GPU fmin/fmax are one instruction where a compare and select are two; on the host
// they are library calls, and a compare and select vectorises. The inner loop of the
// nearest-reference search is a multiply-add and a min.
#if defined(__CUDA_ARCH__)
#define WS_MIN(a, b) fmin(a, b)
#define WS_MAX(a, b) fmax(a, b)
#else
#define WS_MIN(a, b) ((b) < (a) ? (b) : (a))
#define WS_MAX(a, b) ((a) < (b) ? (b) : (a))
#endif
WS_HD float wsMin(float a, float b)
{
    return WS_MIN(a, b);
}
WS_HD double wsMin(double a, double b)
{
    return WS_MIN(a, b);
}
WS_HD float wsMax(float a, float b)
{
    return WS_MAX(a, b);
}
WS_HD double wsMax(double a, double b)
{
    return WS_MAX(a, b);
}
#undef WS_MIN
#undef WS_MAX
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
// Aligned as a pair, so a GPU reads both terms with one 8- or 16-byte load.
template <typename T> struct alignas(2 * sizeof(T)) RowTerms
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

// Central angle (radians) from the haversine term: θ = 2 atan2(√a, √(1 − a)), evaluated as
// 2 asin of whichever of √a and √(1 − a) is at most √½, where asin is well conditioned, so
// neither end (a → 0 or the antipode, a → 1) loses accuracy. Clamping a keeps every fast
// path free of NaN when rounding pushes a a hair outside [0, 1].
template <typename T> WS_HD T centralAngle(T a)
{
    a = clamp01(a);
    const bool nearHalf = a <= T(0.5);
    const T half = asinSmall(wsSqrt(nearHalf ? a : T(1) - a));
    return nearHalf ? T(2) * half : T(3.14159265358979323846) - T(2) * half;
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
