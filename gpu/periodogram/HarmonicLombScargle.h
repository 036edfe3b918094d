#pragma once

#include "periodogram/LombScargle.h"
#include "runtime/HostDevice.h"

// The multi-term Lomb-Scargle power (astropy's LombScargle(nterms=K), its "chi2" method),
// written once for both backends. The model at frequency f is
//   y = [offset] + sum_{k=1..K} (a_k sin kx + b_k cos kx),   x = 2 pi f t,
// fitted by weighted least squares; the power is the weighted sum of squares it explains,
// p = b^T A^-1 b, with A the normal matrix of the model's columns and b their products with
// y. Every entry of A is a sum w cos(m x) or w sin(m x) for some m <= 2K, by the product
// formulas (sin ix sin jx = (cos (i-j)x - cos (i+j)x) / 2 and so on), so one pass over the
// samples collects 2 (2K + 1) + 2 (K + 1) sums and the system is built from them. The
// weights sum to 1, as in LombScargle.h, so p is normalised the same way.
namespace warpscope::gpu::math {

inline constexpr int kMaxHarmonicTerms = 6;

template <int K> struct HarmonicSums
{
    double c[2 * K + 1] = {}; // sum w cos(m x), m = 0 .. 2K (c[0] = sum w)
    double s[2 * K + 1] = {}; // sum w sin(m x)
    double yc[K + 1] = {};    // sum w y cos(m x), m = 0 .. K (yc[0] = sum w y)
    double ys[K + 1] = {};    // sum w y sin(m x)
};

// Adds one sample whose phase x has (cosX, sinX); the harmonics follow by rotation.
template <int K, typename T>
WS_HD void harmonicAccumulate(HarmonicSums<K>& a, double w, double wy, T cosX, T sinX)
{
    T cm = T(1), sm = T(0);
    a.c[0] += w;
    a.yc[0] += wy;
    WS_UNROLL
    for (int m = 1; m <= 2 * K; ++m) {
        const T next = cm * cosX - sm * sinX;
        sm = sm * cosX + cm * sinX;
        cm = next;
        a.c[m] += w * double(cm);
        a.s[m] += w * double(sm);
        if (m <= K) {
            a.yc[m] += wy * double(cm);
            a.ys[m] += wy * double(sm);
        }
    }
}

// sum w sin(m x) for any integer m, from the sums kept for m >= 0.
template <int K> WS_HD double harmonicSin(const HarmonicSums<K>& a, int m)
{
    return m > 0 ? a.s[m] : (m < 0 ? -a.s[-m] : 0.0);
}

// The explained sum of squares b^T A^-1 b, by a Cholesky factorisation of A. Zero where A is
// too close to singular for double to solve (a pivot under 1e-9 of its diagonal: a condition
// number near 1e9 or more, where rounding alone moves p by 1e-7 of it): every phase coincides
// (f = 0, a multiple of a common sampling rate), or, with several terms, the frequency makes
// less than a cycle over the data and the overtones cannot be told from the offset. Such a
// power would be rounding noise, different on every device; nothing can be explained there,
// as with one term. Clamped to [0, yy], which rounding could otherwise leave.
template <int K> WS_HD double harmonicExplained(const HarmonicSums<K>& a, bool fitMean)
{
    constexpr int kMax = 2 * K + 1;
    const int first = fitMean ? 0 : 1; // column 0 is the offset
    const int size = kMax - first;
    double m[kMax][kMax];
    double r[kMax];
    // Column j >= 1: harmonic (j + 1) / 2, sin for odd j, cos for even j.
    auto harmonic = [](int j) { return (j + 1) / 2; };
    auto isSin = [](int j) { return (j & 1) == 1; };
    for (int i = 0; i < size; ++i) {
        const int ci = i + first;
        const int hi = harmonic(ci);
        r[i] = ci == 0 ? a.yc[0] : (isSin(ci) ? a.ys[hi] : a.yc[hi]);
        for (int j = 0; j <= i; ++j) {
            const int cj = j + first;
            const int hj = harmonic(cj);
            double v;
            if (ci == 0 && cj == 0)
                v = a.c[0];
            else if (cj == 0)
                v = isSin(ci) ? a.s[hi] : a.c[hi];
            else {
                const int d = hi > hj ? hi - hj : hj - hi;
                const bool si = isSin(ci), sj = isSin(cj);
                if (si && sj)
                    v = 0.5 * (a.c[d] - a.c[hi + hj]);
                else if (!si && !sj)
                    v = 0.5 * (a.c[d] + a.c[hi + hj]);
                else if (si) // sin(hi x) cos(hj x)
                    v = 0.5 * (a.s[hi + hj] + harmonicSin(a, hi - hj));
                else // cos(hi x) sin(hj x)
                    v = 0.5 * (a.s[hi + hj] + harmonicSin(a, hj - hi));
            }
            m[i][j] = v;
        }
    }
    // The factor L overwrites the lower triangle; a pivot that is not clearly positive
    // (relative to the diagonal it came from) means a singular system.
    for (int j = 0; j < size; ++j) {
        double d = m[j][j];
        for (int k = 0; k < j; ++k)
            d -= m[j][k] * m[j][k];
        if (!(d > 1e-9 * m[j][j]))
            return 0.0;
        const double l = sqrt(d);
        m[j][j] = l;
        for (int i = j + 1; i < size; ++i) {
            double v = m[i][j];
            for (int k = 0; k < j; ++k)
                v -= m[i][k] * m[j][k];
            m[i][j] = v / l;
        }
    }
    // p = |L^-1 r|^2.
    double p = 0.0;
    for (int i = 0; i < size; ++i) {
        double v = r[i];
        for (int k = 0; k < i; ++k)
            v -= m[i][k] * r[k];
        r[i] = v / m[i][i];
        p += r[i] * r[i];
    }
    return p;
}

template <int K>
WS_HD double harmonicPower(const HarmonicSums<K>& a, double yy, double psdScale, int normalization,
                           bool fitMean)
{
    const double explained = harmonicExplained(a, fitMean);
    return lsNormalize(explained < 0.0 ? 0.0 : (explained > yy ? yy : explained), yy, psdScale,
                       normalization);
}

} // namespace warpscope::gpu::math
