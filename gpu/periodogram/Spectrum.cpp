#include "periodogram/SpectrumSupport.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>
#include <thread>

namespace warpscope::gpu {

std::string validateSpectrumAxis(const SpectrumAxis& axis)
{
    if (!std::isfinite(axis.xMin) || !std::isfinite(axis.xMax) || !(axis.xMin < axis.xMax))
        return "The plot's x range must be finite and increasing";
    if (axis.logX && !(axis.xMin > 0.0))
        return "A logarithmic x axis needs a positive range";
    if (!(axis.frequencyScale > 0.0) || !std::isfinite(axis.frequencyScale))
        return "The frequency scale must be positive";
    if (axis.columns < 1 || axis.columns > kSpectrumMaxColumns)
        return "The plot must be 1 to " + std::to_string(kSpectrumMaxColumns) + " pixels wide";
    return {};
}

Status checkDecimation(const SpectrumAxis& axis, std::size_t vertexFloats)
{
    if (const std::string problem = validateSpectrumAxis(axis); !problem.empty())
        return Status::failure(problem);
    if (vertexFloats < std::size_t(axis.columns) * kSpectrumFloatsPerColumn)
        return Status::failure("The vertex buffer is too small for the plot's width");
    return Status::success();
}

math::SpectrumMapping spectrumMapping(const FrequencyGrid& grid, const SpectrumAxis& axis)
{
    return {axis.xMin,    axis.xMax, axis.period, axis.logX,  axis.frequencyScale,
            axis.columns, grid.fmin, grid.df,     grid.count, grid.logarithmic};
}

namespace {

void decimateColumns(std::span<const double> power, const math::SpectrumMapping& m, int first,
                     int last, std::span<float> vertices)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int c = first; c < last; ++c) {
        float* v = vertices.data() + std::size_t(c) * kSpectrumFloatsPerColumn;
        long long lo = 0, hi = 0;
        math::spectrumColumnRange(m, c, lo, hi);
        if (hi > lo) {
            double low = std::numeric_limits<double>::infinity(), high = -low;
            for (long long k = lo; k < hi; ++k) {
                const double p = power[std::size_t(k)];
                if (math::isFiniteValue(p)) {
                    low = std::min(low, p);
                    high = std::max(high, p);
                }
            }
            const float x = float(c) + 0.5f;
            const bool any = low <= high;
            v[0] = v[2] = x;
            v[1] = any ? float(low) : nan;
            v[3] = any ? float(high) : nan;
        } else {
            const long long k = math::spectrumNearestIndex(m, c);
            v[0] = v[2] = float(math::spectrumColumnOf(m, k));
            v[1] = v[3] = float(power[std::size_t(k)]);
        }
    }
}

} // namespace

void decimateSpectrum(std::span<const double> power, const FrequencyGrid& grid,
                      const SpectrumAxis& axis, std::span<float> vertices)
{
    const math::SpectrumMapping m = spectrumMapping(grid, axis);
    long long lo = 0, hi = 0, unused = 0;
    math::spectrumColumnRange(m, 0, lo, unused);
    math::spectrumColumnRange(m, axis.columns - 1, unused, hi);
    const long long visible = std::abs(hi - lo);
    // Millions of frequencies in view (a zoom of a large grid): the columns go to all cores.
    const unsigned threads =
        visible < (1LL << 20) ? 1u : std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
    if (threads == 1) {
        decimateColumns(power, m, 0, axis.columns, vertices);
        return;
    }
    std::vector<std::thread> workers;
    const int per = (axis.columns + int(threads) - 1) / int(threads);
    for (unsigned t = 1; t < threads; ++t) {
        const int first = std::min(axis.columns, int(t) * per);
        const int last = std::min(axis.columns, first + per);
        if (first >= last)
            break;
        try {
            workers.emplace_back(decimateColumns, power, std::cref(m), first, last, vertices);
        } catch (const std::system_error&) { // no thread to be had: this one does them
            decimateColumns(power, m, first, last, vertices);
        }
    }
    decimateColumns(power, m, 0, std::min(axis.columns, per), vertices);
    for (std::thread& w : workers)
        w.join();
}

std::shared_ptr<const Spectrum> hostSpectrum(std::vector<double> power, const FrequencyGrid& grid,
                                             double ms, std::string method)
{
    return std::make_shared<HostSpectrum>(std::move(power), grid, ms, std::move(method));
}

HostSpectrum::HostSpectrum(std::vector<double> power, const FrequencyGrid& grid, double ms,
                           std::string method)
    : m_power(std::move(power))
{
    m_grid = grid;
    m_ms = ms;
    m_method = std::move(method);
    m_peaks = topPeaks(m_power, grid, kSpectrumMaxPeaks);
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const double p : m_power) {
        if (math::isFiniteValue(p)) {
            low = std::min(low, p);
            high = std::max(high, p);
        } else {
            ++m_nonFinite;
        }
    }
    if (low <= high) {
        m_min = low;
        m_max = high;
    }
}

Status HostSpectrum::read(std::span<double> power) const
{
    if (power.size() < m_power.size())
        return Status::failure("The output is smaller than the periodogram");
    std::copy(m_power.begin(), m_power.end(), power.begin());
    return Status::success();
}

Status HostSpectrum::decimate(const SpectrumAxis& axis, std::span<float> vertices) const
{
    if (Status s = checkDecimation(axis, vertices.size()); !s)
        return s;
    if (m_power.empty())
        return Status::failure("The periodogram is empty");
    decimateSpectrum(m_power, m_grid, axis, vertices);
    return Status::success();
}

} // namespace warpscope::gpu
