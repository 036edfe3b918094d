#pragma once

#include "BatchAnalysis.h"
#include "BatchRanks.h"
#include "warpscope/gpu/Catalogue.h"
#include "warpscope/gpu/Device.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace warpscope::batch {

struct RunOptions
{
    BatchSettings settings;
    std::string csvPath;  // the results table; resumed when it exists
    std::string fitsPath; // the same table in FITS
    gpu::BackendKind backend = gpu::BackendKind::Auto;
    unsigned cpuThreads = 0; // 0: every core
    // Contexts (each with its stream and worker thread) per GPU: while one batch's
    // periodograms run, another's checks, plans, peaks and FAPs run on the host. Three kept
    // an H100 busier than two on W1 (74 000 to 77 000 objects a second against 64 000; four
    // gave the same as three).
    int contextsPerGpu = 3;
    long long limit = -1;            // at most this many new objects this run (-1: all)
    double checkpointSeconds = 30.0; // how often a rank's part is saved
    bool progress = true;            // the progress line on stderr
    std::string tracePath;           // the run's timeline (Chrome trace JSON), when set
};

// The devices a rank computes on, opened before the run (while its table is read): contexts
// on every GPU (or on the one of its local rank under MPI), or one on the CPU when there is
// no GPU or the CPU was asked for; status says why they could not be opened.
struct RankDevices
{
    gpu::Status status;
    std::vector<std::unique_ptr<gpu::Context>> contexts;
};
RankDevices openRankDevices(const RunOptions& options, const Ranks& ranks);

// The progress line's estimate of the time left, done of total objects elapsed seconds in:
// "unknown" until an object is done (before, no rate has been measured: the first objects
// may take minutes), then the objects left at the rate so far.
std::string etaText(long long done, long long total, double elapsed);

// Runs the catalogue: skips the objects the results table already holds, shares the rest
// between the ranks (object i of the remaining ones goes to rank i mod size) and, in a rank,
// between its devices (one context and thread each, taking the next object from a shared
// counter); each rank saves its rows to a part file beside the table now and then and at
// the end, and rank 0 merges the table and the parts into the table, in input order, whatever
// the number of ranks and devices. Stops cleanly, saving what is done, when stop turns true.
// Returns the exit status: 0 when every object has a row (failed objects included), 1 when
// the work failed (a device, a file), 130 when stopped before the end.
int runBatch(const gpu::Catalogue& catalogue, const RunOptions& options, const Ranks& ranks,
             RankDevices& devices, std::atomic<bool>& stop);

} // namespace warpscope::batch
