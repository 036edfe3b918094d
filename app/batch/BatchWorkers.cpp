#include "BatchWorkers.h"

#include <algorithm>
#include <future>
#include <string>

namespace warpscope::batch {

using Clock = std::chrono::steady_clock;

RankWorkers::RankWorkers(const gpu::Catalogue& catalogue, const BatchSettings& settings,
                         std::vector<std::size_t> mine,
                         std::vector<std::unique_ptr<gpu::Context>>& contexts, HostPool& pool,
                         RunTrace& trace, std::atomic<bool>& stop)
    : m_catalogue(catalogue), m_settings(settings), m_mine(std::move(mine)), m_contexts(contexts),
      m_pool(pool), m_trace(trace), m_stop(stop),
      m_chunk(std::clamp<std::size_t>(
          m_mine.size() / (4 * std::max<std::size_t>(1, contexts.size())), 1, 256)),
      m_rows(catalogue.size())
{}

RankWorkers::~RankWorkers()
{
    join();
}

void RankWorkers::start()
{
    m_active = m_contexts.size();
    for (auto& context : m_contexts)
        m_threads.emplace_back([this, c = context.get()] { work(*c); });
}

bool RankWorkers::waitAllLeft(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_leftMutex);
    return m_allLeft.wait_for(lock, timeout, [&] { return m_active == 0; });
}

void RankWorkers::join()
{
    for (std::thread& t : m_threads)
        if (t.joinable())
            t.join();
}

std::vector<BatchResult> RankWorkers::rows() const
{
    std::vector<BatchResult> part;
    std::lock_guard lock(m_rowsMutex);
    for (const auto& r : m_rows)
        if (r)
            part.push_back(*r);
    return part;
}

std::vector<PreparedObject> RankWorkers::prepareChunk(const gpu::Context* worker, std::size_t first)
{
    const std::size_t end = std::min(m_mine.size(), first + m_chunk);
    const gpu::ScopedHostSpan span(m_trace.timeline(), m_trace.loadingLane(*worker),
                                   "loading and preparing " + std::to_string(end - first) +
                                       (end - first == 1 ? " object" : " objects"));
    std::vector<BatchObject> objects(end - first);
    m_pool.forEach(objects.size(), [&](std::size_t j) {
        BatchObject& o = objects[j];
        o.id = m_catalogue.id(m_mine[first + j]);
        o.loaded = m_catalogue.load(m_mine[first + j], o.series, o.report);
    });
    return prepareObjects(m_settings, objects, m_pool, &m_stop);
}

void RankWorkers::work(gpu::Context& context)
{
    double waited = 0.0;
    AnalysisTimes spent;
    // Leaves on every path, the stops included.
    struct Leaving
    {
        RankWorkers& workers;
        double& waited;
        AnalysisTimes& spent;
        ~Leaving() { workers.leave(waited, spent); }
    } leaving{*this, waited, spent};
    std::size_t k = m_next.fetch_add(m_chunk);
    if (k >= m_mine.size() || m_stop.load())
        return;
    std::future<std::vector<PreparedObject>> pending =
        std::async(std::launch::async, &RankWorkers::prepareChunk, this, &context, k);
    for (;;) {
        const Clock::time_point asked = Clock::now();
        std::vector<PreparedObject> prepared;
        {
            const gpu::ScopedHostSpan span(m_trace.timeline(), context.hostLane(),
                                           "waiting for objects");
            prepared = pending.get();
        }
        waited += std::chrono::duration<double>(Clock::now() - asked).count();
        if (m_stop.load())
            return; // the objects are left for the rerun
        // The next chunk is loaded and prepared while this one is on the device, so that the
        // device's next batch does not wait for it.
        const std::size_t following = m_next.fetch_add(m_chunk);
        const bool more = following < m_mine.size() && !m_stop.load();
        if (more)
            pending = std::async(std::launch::async, &RankWorkers::prepareChunk, this, &context,
                                 following);
        bool cancelled = false;
        std::vector<BatchResult> done =
            analyseObjects(context, m_settings, prepared, m_pool, &m_stop, cancelled, &spent);
        m_trace.collect(context);
        if (cancelled)
            return; // stopped during their periodograms: the objects are left for the rerun
        {
            std::lock_guard lock(m_rowsMutex);
            for (std::size_t j = 0; j < done.size(); ++j) {
                m_failed += done[j].failed;
                m_rows[m_mine[k + j]] = std::move(done[j]);
                ++m_computed;
            }
        }
        if (!more)
            return;
        k = following;
    }
}

void RankWorkers::leave(double waited, const AnalysisTimes& spent)
{
    std::lock_guard lock(m_leftMutex);
    m_waited += waited;
    m_spent.periodograms += spent.periodograms;
    m_spent.finishing += spent.finishing;
    if (--m_active == 0)
        m_allLeft.notify_all();
}

} // namespace warpscope::batch
