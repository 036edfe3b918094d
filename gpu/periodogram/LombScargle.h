#pragma once

#include "runtime/HostDevice.h"

#include <cmath>

// Lomb-Scargle power at one frequency from weighted sums over the samples, written once for
// both backends. With weights w (summing to 1), y centred, and phase x = 2 pi f t:
//   c = sum w cos x      s = sum w sin x        (only with a floating mean)
//   c2 = sum w cos 2x    s2 = sum w sin 2x
//   yc = sum w y cos x   ys = sum w y sin x
// The explained sum of squares of the least-squares sinusoid fit is
//   p = (SS yc^2 + CC ys^2 - 2 CS yc ys) / (CC SS - CS^2)
// with CC = sum w cos^2 x, SS = sum w sin^2 x, CS = sum w cos x sin x, each less the mean's
// share when the mean floats (Zechmeister & Kurster 2009). This is astropy's p, which uses
// the time shift tau to make the same 2 x 2 system diagonal.
namespace warpscope::gpu::math {

template <typename T> struct LsSums
{
    T c = T(0), s = T(0), c2 = T(0), s2 = T(0), yc = T(0), ys = T(0);
};

// Adds one sample with phase (cosX, sinX).
template <typename T> WS_HD void lsAccumulate(LsSums<T>& a, T w, T wy, T cosX, T sinX)
{
    a.c += w * cosX;
    a.s += w * sinX;
    a.c2 += w * (cosX * cosX - sinX * sinX);
    a.s2 += w * (T(2) * cosX * sinX);
    a.yc += wy * cosX;
    a.ys += wy * sinX;
}

// Normalisations, in the order of gpu::Normalization.
enum LsNormalization
{
    kLsStandard = 0,
    kLsModel = 1,
    kLsLog = 2,
    kLsPsd = 3
};

// The normalised power of an explained sum of squares p, in the order of LsNormalization. yy
// is the weighted sum of squares of the centred y; psdScale is sum(dy^-2) / 2.
WS_HD double lsNormalize(double p, double yy, double psdScale, int normalization)
{
    switch (normalization) {
    case kLsModel:
        return p / (yy - p);
    case kLsLog:
        return -log(1.0 - p / yy);
    case kLsPsd:
        return p * psdScale;
    default:
        return p / yy;
    }
}

// The power from the sums (evaluated in double: a few operations per frequency).
template <typename T>
WS_HD double lsPower(const LsSums<T>& a, double yy, double psdScale, int normalization,
                     bool fitMean)
{
    double cc = 0.5 * (1.0 + double(a.c2));
    double ss = 0.5 * (1.0 - double(a.c2));
    double cs = 0.5 * double(a.s2);
    if (fitMean) {
        cc -= double(a.c) * double(a.c);
        ss -= double(a.s) * double(a.s);
        cs -= double(a.c) * double(a.s);
    }
    const double yc = double(a.yc), ys = double(a.ys);
    const double d = cc * ss - cs * cs;
    // The sums carry T's rounding, so a determinant within a few ulps of T of cc * ss is
    // rounding, not data: the centred cosine and sine columns are parallel (a series of 3 to 5
    // points, or phases that coincide), and the 2 x 2 solve would amplify that rounding into
    // any value at all. Only their common direction can be fitted then, so the power is that
    // of the larger column alone; none where both vanish (every phase the same).
    const double eps = sizeof(T) == 4 ? 0x1p-23 : 0x1p-52;
    double p = 0.0;
    if (d > 64.0 * eps * cc * ss)
        p = (ss * yc * yc + cc * ys * ys - 2.0 * cs * yc * ys) / d;
    else if (cc >= ss && cc > 0.0)
        p = yc * yc / cc;
    else if (ss > 0.0)
        p = ys * ys / ss;
    // What a fit explains lies between nothing and all of yy; rounding can step outside.
    p = fmin(fmax(p, 0.0), yy);
    return lsNormalize(p, yy, psdScale, normalization);
}

} // namespace warpscope::gpu::math
