#include "BatchRun.h"

#include "BatchTable.h"
#include "BatchTrace.h"
#include "BatchWorkers.h"
#include "warpscope/scene/PeriodogramCost.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <sched.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

namespace warpscope::batch {
namespace {

using Clock = std::chrono::steady_clock;

std::string partPath(const std::string& csv, int rank)
{
    return csv + ".rank" + std::to_string(rank) + ".part";
}

// The parts beside the table, of this run or of one that was killed, whatever its ranks.
std::vector<std::string> partPaths(const std::string& csv)
{
    namespace fs = std::filesystem;
    const fs::path table(csv);
    const fs::path folder = table.has_parent_path() ? table.parent_path() : fs::path(".");
    const std::string prefix = table.filename().string() + ".rank";
    std::vector<std::string> parts;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && name.size() > 5 &&
            name.compare(name.size() - 5, 5, ".part") == 0)
            parts.push_back(entry.path().string());
    }
    std::sort(parts.begin(), parts.end());
    return parts;
}

struct TableCounts
{
    long long rows = 0, ok = 0, failed = 0, warned = 0, foreign = 0;
};

// The table and every part (rank 0's own rows taken from own instead of its part, when
// given), in the catalogue's order (rows of objects not in this input after them, as they
// were), written as CSV and FITS; the parts are then removed.
gpu::Status mergeTable(const gpu::Catalogue& catalogue, const RunOptions& options,
                       TableCounts& counts, std::vector<BatchResult>* own)
{
    std::vector<BatchResult> rows;
    std::error_code error;
    const std::vector<std::string> parts = partPaths(options.csvPath);
    // Rank 0's rows come from memory: its part on disk holds a checkpoint of them at most.
    // The other ranks' parts are read at once, each on a thread of its own.
    const std::string ownPart = partPath(options.csvPath, 0);
    std::vector<std::future<gpu::Status>> reading;
    std::vector<std::vector<BatchResult>> partRows(parts.size());
    for (std::size_t p = 0; p < parts.size(); ++p) {
        if (own && parts[p] == ownPart)
            continue;
        const auto read = [&, p] {
            return readResultsCsv(parts[p], options.settings.peaks, partRows[p]);
        };
        try {
            reading.push_back(std::async(std::launch::async, read));
        } catch (const std::system_error&) { // no thread to be had: read when waited for
            reading.push_back(std::async(std::launch::deferred, read));
        }
    }
    gpu::Status tableRead;
    if (std::filesystem::exists(options.csvPath, error))
        tableRead = readResultsCsv(options.csvPath, options.settings.peaks, rows);
    gpu::Status partsRead;
    for (auto& r : reading)
        if (const gpu::Status s = r.get(); !s && partsRead)
            partsRead = s;
    if (!tableRead)
        return tableRead;
    if (!partsRead)
        return partsRead;
    if (own)
        rows.insert(rows.end(), std::make_move_iterator(own->begin()),
                    std::make_move_iterator(own->end()));
    for (auto& more : partRows)
        rows.insert(rows.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
    std::unordered_map<std::string, std::size_t> byId;
    for (std::size_t r = 0; r < rows.size(); ++r)
        byId.try_emplace(rows[r].id, r);
    // Each row moves into its place; an id the catalogue holds twice (files of one name in
    // two folders) gets a copy the second time.
    constexpr std::size_t kNowhere = std::size_t(-1);
    std::vector<BatchResult> merged;
    merged.reserve(catalogue.size());
    std::vector<std::size_t> mergedAt(rows.size(), kNowhere);
    for (std::size_t i = 0; i < catalogue.size(); ++i)
        if (auto at = byId.find(catalogue.id(i)); at != byId.end()) {
            std::size_t& placed = mergedAt[at->second];
            if (placed == kNowhere) {
                placed = merged.size();
                merged.push_back(std::move(rows[at->second]));
            } else {
                BatchResult again = merged[placed];
                merged.push_back(std::move(again));
            }
        }
    counts = {};
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (mergedAt[r] == kNowhere && byId[rows[r].id] == r) {
            merged.push_back(rows[r]);
            ++counts.foreign;
        }
    for (const BatchResult& r : merged) {
        ++counts.rows;
        r.failed ? ++counts.failed : ++counts.ok;
        counts.warned += !r.failed && !r.warnings.empty();
    }
    // The two tables hold the same rows: they are written at once.
    const auto fits = [&] {
        return writeResultsFits(options.fitsPath, merged, options.settings.peaks);
    };
    std::future<gpu::Status> fitsWritten;
    try {
        fitsWritten = std::async(std::launch::async, fits);
    } catch (const std::system_error&) { // no thread to be had: one after the other
        fitsWritten = std::async(std::launch::deferred, fits);
    }
    const gpu::Status csvWritten = writeResultsCsv(options.csvPath, merged, options.settings.peaks);
    const gpu::Status fitsStatus = fitsWritten.get();
    if (!csvWritten)
        return csvWritten;
    if (!fitsStatus)
        return fitsStatus;
    for (const std::string& part : parts)
        std::filesystem::remove(part, error);
    return gpu::Status::success();
}

// The cores this rank may use: those it is allowed to run on (mpirun binds each rank to one
// core unless told otherwise) when that is fewer than all, else the machine's cores divided
// among the ranks on it.
unsigned rankCores(const Ranks& ranks)
{
    const unsigned all = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    const unsigned usable = sched_getaffinity(0, sizeof allowed, &allowed) == 0
                                ? unsigned(std::max(1, CPU_COUNT(&allowed)))
                                : all;
    return usable < all ? usable : std::max(1u, all / unsigned(std::max(1, ranks.localSize)));
}

// contextsPerGpu on every CUDA device, or on the one of its local rank under MPI, or one on
// the CPU with its cores when there is no GPU or the CPU was asked for.
gpu::Status openContexts(const RunOptions& options, const Ranks& ranks,
                         std::vector<std::unique_ptr<gpu::Context>>& contexts)
{
    std::vector<gpu::Device> cuda;
    for (const gpu::Device& d : gpu::listDevices())
        if (d.kind == gpu::DeviceKind::Cuda)
            cuda.push_back(d);
    std::vector<gpu::Device> devices;
    if (options.backend == gpu::BackendKind::Cpu ||
        (options.backend == gpu::BackendKind::Auto && cuda.empty()))
        devices = {gpu::Device{}};
    else if (cuda.empty())
        return gpu::Status::failure("--backend cuda: this machine or build has no CUDA device");
    else if (ranks.mpi)
        devices = {cuda[std::size_t(ranks.localRank) % cuda.size()]};
    else
        devices = cuda;
    // The GPU contexts' host work (each batch's checks, plans and results) spreads over the
    // rank's cores divided among them: each of their pools splits a loop evenly, so one with
    // more threads than its share waits for the slowest. The CPU backend takes them all.
    const unsigned cores = rankCores(ranks);
    const unsigned gpuContexts =
        unsigned(std::max<std::size_t>(1, devices.size() * std::size_t(options.contextsPerGpu)));
    const unsigned gpuThreads =
        options.cpuThreads > 0 ? options.cpuThreads : std::max(2u, cores / gpuContexts);
    // Each GPU's contexts open on a thread of its own: starting a device takes a few hundred
    // milliseconds, which one after another would add up.
    std::vector<std::vector<std::unique_ptr<gpu::Context>>> opened(devices.size());
    std::vector<gpu::Status> status(devices.size(), gpu::Status::success());
    {
        std::vector<std::jthread> openers;
        for (std::size_t i = 0; i < devices.size(); ++i)
            openers.emplace_back([&, i] {
                const gpu::Device& d = devices[i];
                const bool gpu = d.kind == gpu::DeviceKind::Cuda;
                const unsigned threads = gpu                      ? gpuThreads
                                         : options.cpuThreads > 0 ? options.cpuThreads
                                                                  : cores;
                // The GPU's workers ranked, the first ahead: they take turns on it rather than
                // finish their batches together and leave it idle while they all prepare
                // the next.
                const int workers = gpu ? options.contextsPerGpu : 1;
                for (int k = 0; k < workers && status[i]; ++k) {
                    std::unique_ptr<gpu::Context> context;
                    status[i] = gpu::Context::open(d, context, threads, workers - 1 - k);
                    if (status[i])
                        opened[i].push_back(std::move(context));
                }
            });
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (!status[i])
            return status[i];
        for (auto& context : opened[i])
            contexts.push_back(std::move(context));
    }
    return gpu::Status::success();
}

// A line of this rank's on stderr: "warpscope-batch: ", "rank R: " under MPI, then message.
void say(const Ranks& ranks, const std::string& message)
{
    if (ranks.size > 1)
        std::fprintf(stderr, "warpscope-batch: rank %d: %s\n", ranks.rank, message.c_str());
    else
        std::fprintf(stderr, "warpscope-batch: %s\n", message.c_str());
}

// The objects the results table already holds, when it exists: a rerun resumes.
struct Resume
{
    std::vector<bool> done; // by catalogue index
    long long alreadyDone = 0;
    bool resuming = false;
};

gpu::Status readResume(const gpu::Catalogue& catalogue, const RunOptions& options, Resume& resume)
{
    resume.done.assign(catalogue.size(), false);
    std::error_code error;
    resume.resuming = std::filesystem::exists(options.csvPath, error);
    if (!resume.resuming)
        return gpu::Status::success();
    std::vector<BatchResult> rows;
    const gpu::Status read = readResultsCsv(options.csvPath, options.settings.peaks, rows);
    std::unordered_set<std::string> ids;
    for (const BatchResult& r : rows)
        ids.insert(r.id);
    for (std::size_t i = 0; i < catalogue.size(); ++i)
        if (ids.count(catalogue.id(i))) {
            resume.done[i] = true;
            ++resume.alreadyDone;
        }
    return read;
}

// The run's first lines: what is computed (rank 0), and where (every rank).
void announce(const gpu::Catalogue& catalogue, const RunOptions& options, const Ranks& ranks,
              const Resume& resume, std::size_t todo, std::size_t mine,
              const std::vector<std::unique_ptr<gpu::Context>>& contexts)
{
    if (ranks.rank == 0) {
        std::string line = "warpscope-batch: " + std::to_string(catalogue.size()) + " objects";
        if (resume.resuming)
            line += ", " + std::to_string(resume.alreadyDone) + " already in " + options.csvPath +
                    " and skipped";
        line += "; " + std::to_string(todo) + " to compute";
        if (ranks.size > 1)
            line += " on " + std::to_string(ranks.size) + " ranks";
        std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::string where;
    for (const auto& c : contexts)
        where += (where.empty() ? "" : ", ") + c->name();
    if (ranks.size > 1)
        std::fprintf(stderr, "warpscope-batch: rank %d: %zu objects on %s\n", ranks.rank, mine,
                     where.c_str());
    else
        std::fprintf(stderr, "warpscope-batch: computing on %s\n", where.c_str());
    // Ranks on one machine share its cores (--threads 0: every core, divided among them).
    const unsigned cores = rankCores(ranks);
    if (ranks.mpi && ranks.rank == 0 && options.cpuThreads == 0 &&
        cores < std::max(1u, std::thread::hardware_concurrency() /
                                 unsigned(std::max(1, ranks.localSize))))
        std::fprintf(stderr,
                     "warpscope-batch: warning: each rank may run on %u of this machine's %u "
                     "cores (mpirun binds a rank to a core by default); mpirun --bind-to none "
                     "lets the ranks share them all\n",
                     cores, std::thread::hardware_concurrency());
}

// Until the workers have all left: the progress line now and then, and the rank's part
// saved every checkpointSeconds; then the workers are joined and the final line said.
// Returns the first failure to save (no checkpoint is tried after it).
gpu::Status superviseRun(RankWorkers& workers, const RunOptions& options, const Ranks& ranks,
                         const std::function<gpu::Status()>& savePart)
{
    const bool terminal = isatty(STDERR_FILENO);
    const Clock::time_point start = Clock::now();
    Clock::time_point lastLine = start, lastSave = start;
    const auto progressLine = [&](bool final) {
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        const long long n = workers.computed();
        const double rate = elapsed > 0 ? double(n) / elapsed : 0.0;
        char rank[32] = "";
        if (ranks.size > 1)
            std::snprintf(rank, sizeof rank, "rank %d: ", ranks.rank);
        std::fprintf(stderr,
                     "%swarpscope-batch: %s%lld/%zu objects (%lld failed), %.1f objects/s, %s %s%s",
                     terminal ? "\r" : "", rank, n, workers.objects(), workers.failed(), rate,
                     final ? "in" : "ETA",
                     (final ? scene::durationText(elapsed)
                            : etaText(n, (long long)workers.objects(), elapsed))
                         .c_str(),
                     terminal && !final ? "   " : "\n");
        std::fflush(stderr);
    };
    gpu::Status saved;
    while (!workers.waitAllLeft(std::chrono::milliseconds(50))) {
        const Clock::time_point now = Clock::now();
        if (options.progress &&
            now - lastLine > std::chrono::milliseconds(terminal ? 500 : 10000)) {
            progressLine(false);
            lastLine = now;
        }
        if (std::chrono::duration<double>(now - lastSave).count() > options.checkpointSeconds) {
            if (saved = savePart(); !saved)
                break;
            lastSave = now;
        }
    }
    workers.join();
    if (options.progress)
        progressLine(true);
    return saved;
}

// Where the workers' time went, averaged over them.
void sayTimes(const RankWorkers& workers, std::size_t contexts, const Ranks& ranks)
{
    const double n = double(std::max<std::size_t>(1, contexts));
    char times[160];
    std::snprintf(times, sizeof times,
                  "time per worker (%zu of them): %.2f s waiting for objects, %.2f s in the "
                  "periodograms, %.2f s finishing rows",
                  contexts, workers.waited() / n, workers.spent().periodograms / n,
                  workers.spent().finishing / n);
    say(ranks, times);
}

// Rank 0's end: the table merged from its own rows and the parts, and what it holds said.
// False when the merge failed (said).
bool mergeAndReport(const gpu::Catalogue& catalogue, const RunOptions& options, const Ranks& ranks,
                    std::vector<BatchResult> own, long long anyStopped)
{
    TableCounts counts;
    const Clock::time_point writing = Clock::now();
    if (const gpu::Status s = mergeTable(catalogue, options, counts, &own); !s) {
        say(ranks, s.message());
        return false;
    }
    const long long remaining = (long long)catalogue.size() - (counts.rows - counts.foreign);
    std::fprintf(stderr,
                 "warpscope-batch: %s and %s hold %lld objects: %lld ok (%lld with "
                 "warnings), %lld failed (written in %.2f s)",
                 options.csvPath.c_str(), options.fitsPath.c_str(), counts.rows, counts.ok,
                 counts.warned, counts.failed,
                 std::chrono::duration<double>(Clock::now() - writing).count());
    if (counts.foreign > 0)
        std::fprintf(stderr, ", %lld not in this input", counts.foreign);
    if (remaining > 0)
        std::fprintf(stderr, "; %lld objects remain, run again to resume%s", remaining,
                     anyStopped ? " (stopped)" : "");
    std::fprintf(stderr, "\n");
    return true;
}

} // namespace

std::string etaText(long long done, long long total, double elapsed)
{
    if (done <= 0 || elapsed <= 0.0)
        return "unknown";
    return scene::durationText(double(total - done) * elapsed / double(done));
}

RankDevices openRankDevices(const RunOptions& options, const Ranks& ranks)
{
    RankDevices opened;
    opened.status = openContexts(options, ranks, opened.contexts);
    return opened;
}

int runBatch(const gpu::Catalogue& catalogue, const RunOptions& options, const Ranks& ranks,
             RankDevices& devices, std::atomic<bool>& stop)
{
    // A killed run's parts first, so that every rank starts from one table.
    long long failures = 0;
    if (ranks.rank == 0 && !partPaths(options.csvPath).empty()) {
        TableCounts counts;
        if (const gpu::Status s = mergeTable(catalogue, options, counts, nullptr); !s) {
            say(ranks, s.message());
            ++failures;
        }
    }
    if (sumOverRanks(ranks, failures) > 0)
        return 1;

    Resume resume;
    if (const gpu::Status s = readResume(catalogue, options, resume); !s) {
        say(ranks, s.message());
        ++failures;
    }
    std::vector<std::unique_ptr<gpu::Context>>& contexts = devices.contexts;
    if (failures == 0 && !devices.status) {
        say(ranks, devices.status.message());
        ++failures;
    }
    if (sumOverRanks(ranks, failures) > 0)
        return 1;

    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < catalogue.size(); ++i)
        if (!resume.done[i] && (options.limit < 0 || (long long)todo.size() < options.limit))
            todo.push_back(i);
    std::vector<std::size_t> mine;
    for (std::size_t j = std::size_t(ranks.rank); j < todo.size(); j += std::size_t(ranks.size))
        mine.push_back(todo[j]);
    announce(catalogue, options, ranks, resume, todo.size(), mine.size(), contexts);

    // The objects' host work, shared by the workers: while one worker's chunk is on its GPU,
    // the others' are loaded, prepared and finished on every core, so that the GPUs do not
    // wait for one thread's serial work between their batches.
    HostPool pool(options.cpuThreads > 0 ? options.cpuThreads : rankCores(ranks));
    RunTrace trace(options.tracePath, ranks, contexts);
    RankWorkers workers(catalogue, options.settings, std::move(mine), contexts, pool, trace, stop);
    workers.start();
    const auto savePart = [&]() -> gpu::Status {
        const std::vector<BatchResult> part = workers.rows();
        if (part.empty())
            return gpu::Status::success();
        return writeResultsCsv(partPath(options.csvPath, ranks.rank), part, options.settings.peaks);
    };
    gpu::Status saved = superviseRun(workers, options, ranks, savePart);
    if (options.progress)
        sayTimes(workers, contexts.size(), ranks);
    bool traceFailed = false;
    if (!options.tracePath.empty()) {
        std::string line;
        if (const gpu::Status s = trace.write(line); !s) {
            say(ranks, "the run's timeline: " + s.message());
            traceFailed = true;
        } else if (options.progress) {
            say(ranks, line);
        }
    }
    // The other ranks leave their rows to rank 0 in their parts; rank 0 merges its own from
    // memory, and saves them as its part only if the merge fails.
    if (saved && ranks.rank != 0)
        saved = savePart();
    if (!saved) {
        say(ranks, saved.message());
        ++failures;
    }

    const long long anyStopped = sumOverRanks(ranks, stop.load() ? 1 : 0);
    if (sumOverRanks(ranks, failures) > 0)
        return 1;
    int exitCode = anyStopped > 0 ? 130 : 0;
    if (ranks.rank == 0 && !mergeAndReport(catalogue, options, ranks, workers.rows(), anyStopped)) {
        if (const gpu::Status kept = savePart(); !kept)
            say(ranks, kept.message());
        exitCode = 1;
    }
    // Every rank leaves with rank 0's verdict on the merge.
    const long long mergeFailed = sumOverRanks(ranks, exitCode == 1 ? 1 : 0);
    return mergeFailed > 0 || traceFailed ? 1 : exitCode;
}

} // namespace warpscope::batch
