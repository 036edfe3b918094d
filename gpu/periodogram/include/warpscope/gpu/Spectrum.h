#pragma once

#include "warpscope/gpu/BufferView.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Status.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace warpscope::gpu {

// How a plot shows a periodogram: the visible x range in axis units (frequency times
// frequencyScale, or the period 1 / f), linear or logarithmic, across `columns` pixels.
struct SpectrumAxis
{
    double xMin = 0.0;
    double xMax = 1.0;
    bool period = false;
    bool logX = false;
    double frequencyScale = 1.0; // 2 pi for angular frequency
    int columns = 1;

    bool operator==(const SpectrumAxis&) const = default;
};

inline constexpr int kSpectrumMaxColumns = 16384;
inline constexpr int kSpectrumMaxPeaks = 20;

// The line drawn for a periodogram holds two vertices per pixel column, each (x, power) as
// float32, x in columns from the left edge. A column with frequencies gets their minimum and
// maximum at its centre, so no peak is lost however many frequencies share the pixel; a
// column without one gets the nearest frequency's point twice, at its exact x, so a zoomed-in
// line still passes through every point. A column whose powers are all NaN gets NaN.
inline constexpr int kSpectrumFloatsPerColumn = 4;

// Checks an axis: a finite, increasing range (positive when logarithmic) and 1 to
// kSpectrumMaxColumns columns. Empty when valid.
std::string validateSpectrumAxis(const SpectrumAxis& axis);

// A computed periodogram, kept where it was computed (device memory on CUDA) so that it can be
// drawn through interop without a copy to the host. Its peaks and range were found there too;
// only they were copied back. Used by one thread at a time.
class Spectrum
{
public:
    virtual ~Spectrum() = default;

    const FrequencyGrid& grid() const { return m_grid; }
    // The highest local maxima, highest first (at most kSpectrumMaxPeaks); the same as
    // topPeaks() on the values, ties going to the lower frequency.
    const std::vector<Peak>& peaks() const { return m_peaks; }
    // The smallest and largest finite power (0 and 0 when none is finite), and how many
    // values are not finite (frequencies a small launch left out).
    double minPower() const { return m_min; }
    double maxPower() const { return m_max; }
    long long nonFinite() const { return m_nonFinite; }
    // Milliseconds the computation took on the device (CUDA events) or the CPU.
    double computeMs() const { return m_ms; }
    // How it was computed, for example "tensor-core matrix products".
    const std::string& method() const { return m_method; }

    // Copies every power to the host (for export and tests): grid().count values.
    virtual Status read(std::span<double> power) const = 0;
    // The line's vertices for an axis into host memory: kSpectrumFloatsPerColumn * columns
    // floats. Where the spectrum lives, so only the vertices cross to the host.
    virtual Status decimate(const SpectrumAxis& axis, std::span<float> vertices) const = 0;

protected:
    FrequencyGrid m_grid;
    std::vector<Peak> m_peaks;
    double m_min = 0.0, m_max = 0.0;
    long long m_nonFinite = 0;
    double m_ms = 0.0;
    std::string m_method;
};

// Computes the periodogram like computePeriodogram but keeps it where it was computed: in
// device memory on CUDA, with its peaks and range found there (only they come back).
Status computeSpectrum(Context& context, const TimeSeries& series,
                       const PeriodogramOptions& options,
                       std::shared_ptr<const Spectrum>& spectrum);

// A spectrum of values already in host memory (grid.count of them), as another statistic than
// Lomb-Scargle's computes them: its peaks and range found on the host. method says how it was
// computed, for the workspace's status ("box least squares").
std::shared_ptr<const Spectrum> hostSpectrum(std::vector<double> power, const FrequencyGrid& grid,
                                             double ms, std::string method);

// Writes the line of spectrum for axis into out: kSpectrumFloatsPerColumn * axis.columns
// floats of host memory, or of context's device memory (a mapped OpenGL buffer). A spectrum
// in that device's memory is decimated there, straight into out, so no power crosses to the
// host; any other is decimated where it lives and copied.
Status writeSpectrumLine(Context& context, const Spectrum& spectrum, const SpectrumAxis& axis,
                         BufferView<float> out);

// The line for an axis from powers in host memory: the CPU's decimation, and the reference
// for the device's.
void decimateSpectrum(std::span<const double> power, const FrequencyGrid& grid,
                      const SpectrumAxis& axis, std::span<float> vertices);

} // namespace warpscope::gpu
