#include "warpscope/scene/PeriodogramScene.h"

#include "AnyGpu.h"
#include "warpscope/scene/methods/PeriodogramMethod.h"

#include <QStringList>
#include <cmath>
#include <numbers>

namespace warpscope::scene {
namespace {

// The wording of gpu::validate's range messages, for the controls gpu/ has no validator for.
void checkRange(QStringList& problems, const char* what, double v, double lo, double hi)
{
    if (!std::isfinite(v))
        problems << QStringLiteral("%1 must be a finite number, not %2").arg(what).arg(v);
    else if (v < lo || v > hi)
        problems << QStringLiteral("%1 must lie in [%2, %3], not %4")
                        .arg(what)
                        .arg(lo, 0, 'g', 17)
                        .arg(hi, 0, 'g', 17)
                        .arg(v, 0, 'g', 17);
}

} // namespace

gpu::Status validate(const PeriodogramScene& p)
{
    QStringList problems;
    checkRange(problems, "Points", p.points, kMinPoints, kMaxPoints);
    checkRange(problems, "Baseline", p.baseline, kMinBaseline, kMaxBaseline);
    checkRange(problems, "Noise", p.noise, 0.0, kMaxNoise);
    checkRange(problems, "Period", p.period, kMinPeriod, kMaxPeriod);
    checkRange(problems, "Amplitude", p.amplitude, 0.0, kMaxAmplitude);
    checkRange(problems, "Seed", p.seed, 0, kMaxSeed);
    checkRange(problems, "Samples per peak", p.samplesPerPeak, kMinSamplesPerPeak,
               kMaxSamplesPerPeak);
    checkRange(problems, "Nyquist factor", p.nyquistFactor, kMinNyquistFactor, kMaxNyquistFactor);
    checkRange(problems, "Peaks", p.peaks, 1, gpu::kSpectrumMaxPeaks);
    // The kernels take ordinary frequency; angular input is divided by 2 pi, as the workspace
    // does before it checks the same range.
    const double scale = p.unit == FrequencyUnit::Angular ? 2.0 * std::numbers::pi : 1.0;
    for (const gpu::PeriodogramProblem& problem : gpu::validateFrequencyRange(
             p.fmin / scale, p.fmax / scale, p.count, p.gridMode == GridMode::Logarithmic))
        problems << QString::fromStdString(problem.message);
    for (const gpu::LaunchError& e : gpu::validatePeriodogramLaunch(p.launch(), anyGpu()))
        problems << QString::fromStdString(e.message);
    if (const gpu::Status s = gpu::validateDetrend(p.detrend); !s)
        problems << QString::fromStdString(s.message());
    if (const gpu::Status s = gpu::validateMasks(p.masks); !s)
        problems << QString::fromStdString(s.message());
    checkRange(problems, "Terms", p.nterms, 1, gpu::kMaxPeriodogramTerms);
    if (const PeriodogramMethod* method = findPeriodogramMethod(p.search); !method) {
        QStringList keys;
        for (const std::string& key : periodogramMethodKeys())
            keys << QString::fromStdString(key);
        problems << QStringLiteral("The period search must be one of %1, not '%2'")
                        .arg(keys.join(", "), QString::fromStdString(p.search).left(40));
    } else {
        for (const std::string& problem : method->problems(p))
            problems << QString::fromStdString(problem);
    }
    if (p.prewhitened.size() > kMaxPrewhitened)
        problems << QStringLiteral("%1 prewhitened frequencies, more than the %2 allowed")
                        .arg(p.prewhitened.size())
                        .arg(kMaxPrewhitened);
    else if (!std::isfinite(p.prewhitenEpoch))
        problems << QStringLiteral("The prewhitening epoch must be a finite number");
    for (std::size_t i = 0; i < p.prewhitened.size() && i < kMaxPrewhitened; ++i) {
        const gpu::FittedSinusoid& f = p.prewhitened[i];
        const bool finite = std::isfinite(f.frequency) && std::isfinite(f.amplitude) &&
                            std::isfinite(f.phase) && std::isfinite(f.frequencyError) &&
                            std::isfinite(f.amplitudeError) && std::isfinite(f.phaseError);
        if (!finite || !(f.frequency > 0.0) || f.amplitude < 0.0 || f.phase < 0.0 ||
            f.phase >= 1.0 || f.frequencyError < 0.0 || f.amplitudeError < 0.0 ||
            f.phaseError < 0.0)
            problems << QStringLiteral("Prewhitened frequency %1 needs finite values, a "
                                       "frequency above 0, an amplitude and errors not "
                                       "negative and a phase in [0, 1)")
                            .arg(i + 1);
    }
    if (problems.isEmpty())
        return gpu::Status::success();
    return gpu::Status::failure(problems.join("; ").toStdString());
}

} // namespace warpscope::scene
