#pragma once

#include "BatchAnalysis.h"
#include "BatchTrace.h"
#include "HostPool.h"
#include "warpscope/gpu/Catalogue.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace warpscope::batch {

// A rank's objects computed by its devices' workers: one thread per context takes the next
// chunk of objects from a shared counter, has the chunk after it loaded and prepared on the
// host pool while its own is on the device, and keeps the rows by object.
class RankWorkers
{
public:
    // mine: the catalogue's indices of the objects this rank computes.
    RankWorkers(const gpu::Catalogue& catalogue, const BatchSettings& settings,
                std::vector<std::size_t> mine, std::vector<std::unique_ptr<gpu::Context>>& contexts,
                HostPool& pool, RunTrace& trace, std::atomic<bool>& stop);
    ~RankWorkers(); // joins the workers
    RankWorkers(const RankWorkers&) = delete;
    RankWorkers& operator=(const RankWorkers&) = delete;

    // Starts a thread for every context.
    void start();
    // Waits up to timeout for every worker to leave; true when they all have.
    bool waitAllLeft(std::chrono::milliseconds timeout);
    void join();

    std::size_t objects() const { return m_mine.size(); }
    long long computed() const { return m_computed.load(); }
    long long failed() const { return m_failed.load(); }
    // The rows computed so far, in the catalogue's order.
    std::vector<BatchResult> rows() const;

    // Where the workers' time went, summed over them as they left: what says whether the
    // devices or the host hold a run back.
    double waited() const { return m_waited; }
    const AnalysisTimes& spent() const { return m_spent; }

private:
    std::vector<PreparedObject> prepareChunk(const gpu::Context* worker, std::size_t first);
    void work(gpu::Context& context);
    // Called once by each worker as it leaves; the last wakes waitAllLeft at once, so that
    // the run's time and rate end with the last object, not at the progress loop's next tick.
    void leave(double waited, const AnalysisTimes& spent);

    const gpu::Catalogue& m_catalogue;
    const BatchSettings& m_settings;
    const std::vector<std::size_t> m_mine;
    std::vector<std::unique_ptr<gpu::Context>>& m_contexts;
    HostPool& m_pool;
    RunTrace& m_trace;
    std::atomic<bool>& m_stop;
    // Objects go to the workers a chunk at a time, which their periodograms share as a batch:
    // up to 256, and small enough that every worker gets several.
    const std::size_t m_chunk;

    std::atomic<std::size_t> m_next{0};
    std::atomic<long long> m_computed{0}, m_failed{0};
    mutable std::mutex m_rowsMutex;
    std::vector<std::optional<BatchResult>> m_rows; // by catalogue index

    std::mutex m_leftMutex;
    std::condition_variable m_allLeft;
    std::size_t m_active = 0;
    double m_waited = 0.0;
    AnalysisTimes m_spent;
    std::vector<std::thread> m_threads;
};

} // namespace warpscope::batch
