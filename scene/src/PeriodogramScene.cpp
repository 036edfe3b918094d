#include "warpscope/scene/PeriodogramScene.h"

#include "AnyGpu.h"
#include "warpscope/gpu/BoxLeastSquares.h"
#include "warpscope/gpu/ConditionalEntropy.h"
#include "warpscope/gpu/PhaseDispersion.h"

#include <QStringList>
#include <cmath>
#include <numbers>
#include <sstream>

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

std::optional<std::vector<double>> parseBlsDurations(const std::string& text, std::string& problem)
{
    std::vector<double> durations;
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        std::size_t used = 0;
        double d = 0.0;
        try {
            d = std::stod(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || item.find_first_not_of(" \t", used) != std::string::npos ||
            !(std::isfinite(d) && d > 0.0)) {
            problem = "Transit durations must be 'auto' or numbers above 0 separated by commas";
            return std::nullopt;
        }
        durations.push_back(d);
    }
    if (durations.empty() || durations.size() > std::size_t(gpu::kMaxBlsDurations)) {
        problem = "Give 1 to " + std::to_string(gpu::kMaxBlsDurations) + " transit durations";
        return std::nullopt;
    }
    return durations;
}

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
    // Every method's own keys, the chosen one's or not: a scene holds them all.
    QStringList keys;
    for (const char* key : kPeriodSearches)
        keys << QString::fromLatin1(key);
    if (!keys.contains(QString::fromStdString(p.search)))
        problems << QStringLiteral("The period search must be one of %1, not '%2'")
                        .arg(keys.join(", "), QString::fromStdString(p.search).left(40));
    std::string durationsProblem;
    if (p.blsDurations != "auto" && !parseBlsDurations(p.blsDurations, durationsProblem))
        problems << QString::fromStdString(durationsProblem);
    if (p.blsObjective != kBlsObjectives[0] && p.blsObjective != kBlsObjectives[1])
        problems << QStringLiteral("The box least squares objective must be likelihood or snr");
    checkRange(problems, "PDM bins", p.pdmBins, gpu::kPhaseDispersionMinBins,
               gpu::kPhaseDispersionMaxBins);
    checkRange(problems, "PDM covers", p.pdmCovers, gpu::kPhaseDispersionMinCovers,
               gpu::kPhaseDispersionMaxCovers);
    checkRange(problems, "Conditional entropy's phase bins", p.ceBins,
               gpu::kConditionalEntropyMinBins, gpu::kConditionalEntropyMaxBins);
    checkRange(problems, "Conditional entropy's magnitude bins", p.ceMagnitudeBins,
               gpu::kConditionalEntropyMinBins, gpu::kConditionalEntropyMaxBins);
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
