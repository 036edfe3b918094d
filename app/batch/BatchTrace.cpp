#include "BatchTrace.h"

#include "warpscope/gpu/TraceExport.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <map>

namespace warpscope::batch {

std::string rankTracePath(const std::string& path, const Ranks& ranks)
{
    if (ranks.size <= 1)
        return path;
    const std::filesystem::path p(path);
    const std::string name =
        p.stem().string() + ".rank" + std::to_string(ranks.rank) + p.extension().string();
    return (p.parent_path() / name).string();
}

double coveredFraction(std::vector<std::pair<double, double>> spans, double from, double to)
{
    if (!(to > from))
        return 0.0;
    std::sort(spans.begin(), spans.end());
    double covered = 0.0, reached = from;
    for (auto [start, end] : spans) {
        start = std::max(start, reached);
        end = std::min(end, to);
        if (end > start) {
            covered += end - start;
            reached = end;
        }
    }
    return covered / (to - from);
}

RunTrace::RunTrace(const std::string& path, const Ranks& ranks,
                   const std::vector<std::unique_ptr<gpu::Context>>& contexts)
    : m_path(rankTracePath(path, ranks))
{
    if (path.empty())
        return;
    // Every frame is kept: only the timeline's own bound on spans trims a long run.
    m_timeline = std::make_shared<gpu::Timeline>(INT_MAX);
    std::map<int, int> perDevice;
    for (const auto& context : contexts) {
        const int ordinal = context->isCuda() ? context->info().ordinal : -1;
        const std::string role = ordinal < 0 ? std::string("CPU")
                                             : "GPU " + std::to_string(ordinal) + " worker " +
                                                   std::to_string(++perDevice[ordinal]);
        context->setTimeline(m_timeline, role);
        m_workers.push_back({context.get(), ordinal, m_timeline->lane("Host: " + role + " loading"),
                             context->streamLane()});
    }
}

int RunTrace::loadingLane(const gpu::Context& worker) const
{
    for (const Worker& w : m_workers)
        if (w.context == &worker)
            return w.loadingLane;
    return -1;
}

void RunTrace::collect(gpu::Context& worker)
{
    if (!m_timeline)
        return;
    if (const gpu::Status s = worker.collectTimeline(); !s) {
        std::lock_guard lock(m_mutex);
        if (m_problem.empty())
            m_problem = s.message();
    }
}

gpu::Status RunTrace::write(std::string& line) const
{
    if (!m_timeline)
        return gpu::Status::success();
    const gpu::TimelineSnapshot snapshot = m_timeline->snapshot();
    if (const gpu::Status s = gpu::writeTextFile(m_path, gpu::chromeTraceJson(snapshot)); !s)
        return s;
    line = "the run's timeline is in " + m_path + " (" + std::to_string(snapshot.spans.size()) +
           " spans";
    if (snapshot.spans.size() >= gpu::Timeline::kMaxSpans)
        line += ", the run's last";
    line += ")";
    {
        std::lock_guard lock(m_mutex);
        if (!m_problem.empty())
            line += "; some spans are missing: " + m_problem;
    }
    if (snapshot.spans.empty())
        return gpu::Status::success();
    double from = snapshot.spans.front().startUs, to = from;
    for (const gpu::Span& s : snapshot.spans)
        to = std::max(to, s.endUs);
    // Each GPU's kernels, from all of its workers' streams: the share of the traced time in
    // which at least one ran says whether the device or the host held the run back.
    std::map<int, std::vector<std::pair<double, double>>> kernels;
    std::map<int, int> deviceOfLane;
    for (const Worker& w : m_workers)
        if (w.ordinal >= 0 && w.streamLane >= 0)
            deviceOfLane[w.streamLane] = w.ordinal;
    for (const gpu::Span& s : snapshot.spans)
        if (const auto d = deviceOfLane.find(s.lane);
            s.kind == gpu::SpanKind::Kernel && d != deviceOfLane.end())
            kernels[d->second].push_back({s.startUs, s.endUs});
    std::string busy;
    for (auto& [ordinal, spans] : kernels) {
        char part[64];
        std::snprintf(part, sizeof part, "%sGPU %d %.0f %%", busy.empty() ? "" : ", ", ordinal,
                      100.0 * coveredFraction(std::move(spans), from, to));
        busy += part;
    }
    if (!busy.empty())
        line += "; kernels ran " + busy + " of its " +
                std::to_string((long long)((to - from) / 1000.0 + 0.5)) + " ms";
    return gpu::Status::success();
}

} // namespace warpscope::batch
