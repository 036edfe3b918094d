#include "warpscope/scene/Prewhitening.h"

#include "warpscope/scene/PeriodogramUnits.h"

#include <cstdio>

namespace warpscope::scene {

gpu::Status addPrewhitened(PeriodogramScene& scene, const PreparedSeries& prepared,
                           double frequency)
{
    if (scene.prewhitened.size() >= kMaxPrewhitened)
        return gpu::Status::failure("The list holds " + std::to_string(kMaxPrewhitened) +
                                    " sinusoids, as many as prewhitening takes");
    gpu::FrequencyFit fit;
    if (const gpu::Status s = gpu::fitFrequencies(prepared.series, {frequency}, fit); !s)
        return s;
    // The residuals keep the detrended data's times, so every sinusoid shares one epoch.
    scene.prewhitenEpoch = fit.epoch;
    scene.prewhitened.push_back(fit.terms.front());
    return gpu::Status::success();
}

gpu::Status refitPrewhitened(PeriodogramScene& scene, const PreparedSeries& prepared)
{
    std::vector<double> frequencies;
    for (const gpu::FittedSinusoid& s : scene.prewhitened)
        frequencies.push_back(s.frequency);
    gpu::FrequencyFit fit;
    if (const gpu::Status s = gpu::fitFrequencies(prepared.detrended, frequencies, fit); !s)
        return s;
    scene.prewhitenEpoch = fit.epoch;
    scene.prewhitened = fit.terms;
    return gpu::Status::success();
}

std::string prewhitenedCsv(const PeriodogramScene& scene, gpu::TimeUnit unit)
{
    const std::string f = frequencyUnitText(unit).toStdString();
    const std::string p = periodUnitText(unit).toStdString();
    char line[400];
    std::snprintf(line, sizeof line,
                  "# y = offset + sum amplitude sin(2 pi (frequency (t - epoch) + phase)), "
                  "phase in cycles; epoch = %.17g\n",
                  scene.prewhitenEpoch);
    std::string text = line;
    text += unit == gpu::TimeUnit::Unknown
                ? "n,frequency,frequency_error,period,period_error,amplitude,amplitude_error,"
                  "phase,phase_error\n"
                : "n,frequency (" + f + "),frequency_error,period (" + p +
                      "),period_error,amplitude,amplitude_error,phase,phase_error\n";
    for (std::size_t i = 0; i < scene.prewhitened.size(); ++i) {
        const gpu::FittedSinusoid& s = scene.prewhitened[i];
        std::snprintf(line, sizeof line, "%zu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                      i + 1, s.frequency, s.frequencyError, 1.0 / s.frequency,
                      s.frequencyError / (s.frequency * s.frequency), s.amplitude, s.amplitudeError,
                      s.phase, s.phaseError);
        text += line;
    }
    return text;
}

} // namespace warpscope::scene
