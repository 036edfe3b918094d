#pragma once

#include "BatchRanks.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Timeline.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace warpscope::batch {

// The run's timeline (--trace): each worker's stream and host thread, its objects' loading,
// and its waits, written at the end as Chrome trace JSON (Perfetto, chrome://tracing). Under
// MPI each rank writes its own file, FILE with ".rankR" before its extension.
class RunTrace
{
public:
    // Records the contexts' work from now on; records nothing when path is empty.
    RunTrace(const std::string& path, const Ranks& ranks,
             const std::vector<std::unique_ptr<gpu::Context>>& contexts);
    // Null when not recording, for ScopedHostSpan.
    gpu::Timeline* timeline() const { return m_timeline.get(); }
    // The lane of the thread that loads and prepares a worker's objects (-1 when not
    // recording).
    int loadingLane(const gpu::Context& worker) const;
    // Moves worker's completed device spans into the timeline (from the worker's thread),
    // keeping the first problem for write().
    void collect(gpu::Context& worker);
    // Writes the file; on success, line says where, how many spans it holds and how much of
    // the run each GPU spent in kernels.
    gpu::Status write(std::string& line) const;

private:
    std::string m_path;
    std::shared_ptr<gpu::Timeline> m_timeline;
    // Each context's device (-1 for the CPU), and the lanes its work goes to.
    struct Worker
    {
        const gpu::Context* context;
        int ordinal;
        int loadingLane;
        int streamLane;
    };
    std::vector<Worker> m_workers;
    mutable std::mutex m_mutex;
    std::string m_problem;
};

// The file a rank writes for path: path itself in a run of one rank.
std::string rankTracePath(const std::string& path, const Ranks& ranks);

// The fraction of [from, to] that the union of spans covers.
double coveredFraction(std::vector<std::pair<double, double>> spans, double from, double to);

} // namespace warpscope::batch
