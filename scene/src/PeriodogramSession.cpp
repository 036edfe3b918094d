#include "warpscope/scene/PeriodogramSession.h"

#include "warpscope/scene/PeriodogramUnits.h"
#include "warpscope/scene/Prewhitening.h"

namespace warpscope::scene {

ReportedPeaks reportPeaks(const PeriodogramMethodTraits& method, const std::vector<gpu::Peak>& top,
                          const gpu::TimeSeries& series, const gpu::PeriodogramOptions& options,
                          int count)
{
    ReportedPeaks r;
    r.peaks = gpu::reportablePeaks(top, options.grid, gpu::timeBaseline(series), count);
    r.falseAlarm = method.falseAlarm
                       ? falseAlarmProbabilities(r.peaks, options.grid, series, options)
                       : std::vector<std::optional<double>>(r.peaks.size());
    return r;
}

std::optional<double> ReportedPeaks::detail(std::size_t i, const std::string& name) const
{
    for (std::size_t c = 0; c < detailNames.size(); ++c)
        if (detailNames[c] == name && i < details.size())
            return details[i][c];
    return std::nullopt;
}

PeriodogramSession::PeriodogramSession(PeriodogramScene scene, const PeriodogramMethod* method)
    : m_scene(std::move(scene)), m_method(method ? method : &periodogramMethod(m_scene))
{}

gpu::Status PeriodogramSession::prepare(gpu::TimeSeries loaded)
{
    m_loaded = std::move(loaded);
    return prepareSeries(m_scene, m_loaded, m_prepared);
}

gpu::Status PeriodogramSession::makeRequest(const std::atomic<bool>* cancel)
{
    const gpu::Status s = makePeriodogramRequest(m_scene, m_prepared.series, m_request);
    m_request.options.cancel = cancel;
    return s;
}

gpu::Status PeriodogramSession::computeSpectrum(gpu::Context& context)
{
    m_power.clear();
    m_spectrum.reset();
    m_columns.clear();
    return m_method->computeSpectrum(context, m_prepared.series, m_scene, m_request.options,
                                     m_spectrum, m_columns);
}

gpu::Status PeriodogramSession::computePower(gpu::Context& context, double* kernelMs)
{
    m_spectrum.reset();
    m_columns.clear();
    m_power.resize(std::size_t(m_request.options.grid.count));
    return m_method->computePower(context, m_prepared.series, m_scene, m_request.options, m_power,
                                  kernelMs, m_columns);
}

gpu::Status PeriodogramSession::computeWindow(gpu::Context& context,
                                              std::shared_ptr<const gpu::Spectrum>& window) const
{
    return gpu::computeSpectrum(context, gpu::windowSeries(m_prepared.series),
                                gpu::windowOptions(m_request.options), window);
}

ReportedPeaks PeriodogramSession::peaks(int count) const
{
    const gpu::PeriodogramOptions& o = m_request.options;
    if (!m_spectrum && m_power.empty())
        return {};
    ReportedPeaks r =
        m_spectrum ? reportPeaks(traits(), m_spectrum->peaks(), m_prepared.series, o, count)
                   : reportPeaks(traits(), gpu::topPeaks(m_power, o.grid, gpu::kSpectrumMaxPeaks),
                                 m_prepared.series, o, count);
    for (const MethodColumn& c : m_columns)
        r.detailNames.push_back(c.name);
    for (const gpu::Peak& p : r.peaks) {
        r.refined.push_back(m_method->refine(m_prepared.series, m_scene, o, p, m_columns));
        std::vector<double> row;
        for (const MethodColumn& c : m_columns)
            row.push_back(std::size_t(p.index) < c.values.size() ? c.values[std::size_t(p.index)]
                                                                 : 0.0);
        r.details.push_back(std::move(row));
    }
    return r;
}

gpu::HarmonicFit PeriodogramSession::fold(double frequency) const
{
    return gpu::fitHarmonics(m_prepared.series, frequency, traits().foldHarmonics,
                             m_request.options.fitMean);
}

gpu::Status PeriodogramSession::addPrewhitened(PeriodogramScene& into, double frequency) const
{
    return scene::addPrewhitened(into, m_prepared, frequency);
}

gpu::Status PeriodogramSession::refitPrewhitened(PeriodogramScene& into) const
{
    return scene::refitPrewhitened(into, m_prepared);
}

gpu::Status PeriodogramSession::prewhiten(double frequency)
{
    if (const gpu::Status s = addPrewhitened(m_scene, frequency); !s)
        return s;
    return prepareSeries(m_scene, m_loaded, m_prepared);
}

gpu::Status PeriodogramSession::refit()
{
    if (const gpu::Status s = refitPrewhitened(m_scene); !s)
        return s;
    return prepareSeries(m_scene, m_loaded, m_prepared);
}

} // namespace warpscope::scene
