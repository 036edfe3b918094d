#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/FrequencyFit.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/scene/PeriodogramRequest.h"
#include "warpscope/scene/PeriodogramScene.h"
#include "warpscope/scene/methods/PeriodogramMethod.h"

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

// The periodogram's work without a window, as the window, the command line and the batch
// program share it: a loaded series made ready as a scene asks, the request, the computation
// by the scene's method, the peaks with their false-alarm probabilities, the fold's model and
// prewhitening. Results come back as plain values; what to show or print is the caller's.
namespace warpscope::scene {

// Peaks as a request reports them, highest first, each with its false-alarm probability
// where the method has one (std::nullopt elsewhere).
struct ReportedPeaks
{
    std::vector<gpu::Peak> peaks;
    std::vector<std::optional<double>> falseAlarm;
    // The method's own figures at each peak (box least squares: the box), named as the
    // method's columns; empty for methods without.
    std::vector<std::string> detailNames;
    std::vector<std::vector<double>> details;
    // Each peak refined where its method can (PeriodogramMethod::refine).
    std::vector<std::optional<RefinedPeak>> refined;

    // Peak i's figure named name, or none.
    std::optional<double> detail(std::size_t i, const std::string& name) const;
};

// The reportable peaks among top (the highest local maxima, as gpu::topPeaks or a spectrum
// finds them): inside the grid, periods within series' baseline, at most count; series is
// the one computed, method the traits of the method that computed it.
ReportedPeaks reportPeaks(const PeriodogramMethodTraits& method, const std::vector<gpu::Peak>& top,
                          const gpu::TimeSeries& series, const gpu::PeriodogramOptions& options,
                          int count);

class PeriodogramSession
{
public:
    // The scene's method (periodogramMethod), or the one given.
    explicit PeriodogramSession(PeriodogramScene scene, const PeriodogramMethod* method = nullptr);

    const PeriodogramScene& scene() const { return m_scene; }
    const PeriodogramMethod& method() const { return *m_method; }
    // The traits of the method for the request made.
    PeriodogramMethodTraits traits() const { return m_method->traits(m_scene, m_request.options); }

    // Makes the loaded series ready (scene::prepareSeries); fails, saying why, when every
    // point is masked or the trend cannot be fitted.
    gpu::Status prepare(gpu::TimeSeries loaded);
    // The request for the prepared series (scene::makePeriodogramRequest), running until
    // cancel, when given, turns true.
    gpu::Status makeRequest(const std::atomic<bool>* cancel = nullptr);

    // Takes a request made before the preparation instead (the window makes it from the
    // masked series on its GUI thread; the times, all the grid needs, are the same).
    void useRequest(PeriodogramRequest request) { m_request = std::move(request); }

    const gpu::TimeSeries& loaded() const { return m_loaded; }
    const PreparedSeries& prepared() const { return m_prepared; }
    const PeriodogramRequest& request() const { return m_request; }

    // Computes the request's periodogram, kept where it was computed (spectrum()).
    gpu::Status computeSpectrum(gpu::Context& context);
    // Computes it into host memory (power()); kernelMs: the device's time.
    gpu::Status computePower(gpu::Context& context, double* kernelMs = nullptr);
    const std::shared_ptr<const gpu::Spectrum>& spectrum() const { return m_spectrum; }
    const std::vector<double>& power() const { return m_power; }
    // The method's own figures of the last computation, one per frequency (methods/
    // PeriodogramMethod.h); empty for most.
    const std::vector<MethodColumn>& columns() const { return m_columns; }
    // The spectral window of the prepared series' times on the request's grid.
    gpu::Status computeWindow(gpu::Context& context,
                              std::shared_ptr<const gpu::Spectrum>& window) const;

    // The last computation's reportable peaks (reportPeaks), at most count.
    ReportedPeaks peaks(int count) const;
    // The fold's model at frequency: as many harmonics as the method's model, its epoch in the
    // middle of the data.
    gpu::HarmonicFit fold(double frequency) const;

    // Prewhitening's steps on the prepared series, into a scene (the window's, whose undo step
    // it becomes): one sinusoid from frequency added; every listed sinusoid fitted together.
    gpu::Status addPrewhitened(PeriodogramScene& into, double frequency) const;
    gpu::Status refitPrewhitened(PeriodogramScene& into) const;
    // The same steps on the session's own scene, the series prepared again to match; the
    // request stays (the times are the same), the next computation is of the residuals.
    gpu::Status prewhiten(double frequency);
    gpu::Status refit();

private:
    PeriodogramScene m_scene;
    const PeriodogramMethod* m_method;
    gpu::TimeSeries m_loaded;
    PreparedSeries m_prepared;
    PeriodogramRequest m_request;
    std::shared_ptr<const gpu::Spectrum> m_spectrum;
    std::vector<double> m_power;
    std::vector<MethodColumn> m_columns;
};

} // namespace warpscope::scene
