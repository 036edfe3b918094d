#pragma once

#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Status.h"

#include <vector>

namespace warpscope::gpu {

// One sinusoid of a multi-frequency model (Period04's convention, with a stated epoch):
//   y = offset + sum_k amplitude_k sin(2 pi (frequency_k (t - epoch) + phase_k)),
// phase in cycles, in [0, 1). The errors are one standard deviation.
struct FittedSinusoid
{
    double frequency = 0.0;
    double amplitude = 0.0;
    double phase = 0.0;
    double frequencyError = 0.0;
    double amplitudeError = 0.0;
    double phaseError = 0.0;
    bool operator==(const FittedSinusoid&) const = default;
};

struct FrequencyFit
{
    double epoch = 0.0; // the time of phase 0: the middle of the fitted data's time span
    double offset = 0.0;
    double offsetError = 0.0;
    std::vector<FittedSinusoid> terms;
    double residualRms = 0.0; // weighted: sqrt(sum w r^2 / sum w)
    int iterations = 0;

    // The model at time t; without the offset, the part prewhitening takes out.
    double at(double t) const;
    double sinusoidsAt(double t) const;
};

// Fits offset, frequency, amplitude and phase of one sinusoid per starting frequency to the
// series at once, by weighted nonlinear least squares (Levenberg-Marquardt; weights dy^-2),
// starting from the linear fit at the given frequencies. The errors are those of the
// covariance matrix scaled by the reduced chi-square, as scipy's curve_fit reports with
// sigma = dy (absolute_sigma = False). Fails, saying why, for an empty list, too few points
// (more than 1 + 3 per frequency are needed), frequencies that are not finite and positive,
// two frequencies the data's time span cannot separate, or a fit that does not converge.
Status fitFrequencies(const TimeSeries& series, const std::vector<double>& frequencies,
                      FrequencyFit& fit);

// The series less the sinusoids of terms (the offset stays: the periodogram takes out the
// mean itself), each with the given epoch.
TimeSeries subtractSinusoids(const TimeSeries& series, const std::vector<FittedSinusoid>& terms,
                             double epoch);

// The least-squares model of nterms harmonics at one fixed frequency, as the multi-term
// periodogram fits it there (weights dy^-2):
//   y = offset + sum_{k=1..nterms} (a_k cos(2 pi k f (t - epoch)) + b_k sin(2 pi k f (t - epoch)))
// with the offset the weighted mean when fitMean is false. For the fold of a peak: phase
// frac(f (t - epoch)) holds the model's shape. Empty harmonics when the columns cannot be
// told apart (every phase the same).
struct HarmonicFit
{
    double epoch = 0.0;
    double offset = 0.0;
    std::vector<std::pair<double, double>> harmonics; // (a_k, b_k), k = 1..nterms
    double at(double frequency, double t) const;
};

HarmonicFit fitHarmonics(const TimeSeries& series, double frequency, int nterms, bool fitMean);

// The epoch fitFrequencies gives a series: the middle of its time span (0 when it has none).
double fitEpoch(const TimeSeries& series);

} // namespace warpscope::gpu
