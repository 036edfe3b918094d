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
    // Degenerate only where every phase coincides (a frequency of 0 or a multiple of a
    // common sampling rate): no sinusoid can be fitted, so nothing is explained.
    const double p = d > 0.0 ? (ss * yc * yc + cc * ys * ys - 2.0 * cs * yc * ys) / d : 0.0;
    return lsNormalize(p, yy, psdScale, normalization);
}

} // namespace warpscope::gpu::math
