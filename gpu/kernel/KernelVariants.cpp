// The variants table: one kernel compiled under several option sets, each measured on the
// context's device and compared with the default's output.
#include "warpscope/gpu/KernelVariants.h"

#include "kernel/KernelShared.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <regex>

namespace warpscope::gpu {
namespace {

bool hasFlagStartingWith(const KernelOptions& options, std::string_view prefix)
{
    return std::any_of(options.flags.begin(), options.flags.end(),
                       [&](const std::string& f) { return f.starts_with(prefix); });
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// The largest |a - b| over nodes finite in both, and the nodes that differ: a non-finite value
// differs from any number and from another kind of non-finite value, so an output of NaN is
// never the same as a finite one.
void compareFields(const FieldLayout& layout, const std::vector<float>& a,
                   const std::vector<float>& b, KernelVariantRow& row)
{
    double largest = 0.0;
    long long differing = 0, nonFinite = 0;
    for (int r = 0; r < layout.ny; ++r)
        for (int c = 0; c < layout.nx; ++c) {
            const float x = a[layout.index(r, c)], y = b[layout.index(r, c)];
            if (std::isfinite(x) && std::isfinite(y)) {
                largest = std::max(largest, std::abs(double(x) - double(y)));
                differing += x != y;
            } else if (!(std::isnan(x) && std::isnan(y)) && x != y) {
                ++differing;
                ++nonFinite;
            }
        }
    row.compared = true;
    row.maxAbsDiff = largest;
    row.differingNodes = differing;
    row.nonFiniteDiffering = nonFinite;
}

std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string number(double value, const char* format)
{
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

} // namespace

std::vector<KernelVariant> kernelVariants(const KernelSource& source, const KernelOptions& base,
                                          long long blockThreads)
{
    const std::string code = codeWithoutComments(source.code);
    std::vector<KernelVariant> variants;
    const auto add = [&](std::string name, KernelSource s, KernelOptions o, std::string skip,
                         bool simulated) {
        variants.push_back(
            {std::move(name), std::move(s), std::move(o), std::move(skip), simulated});
    };
    add("default", source, base, {}, true);

    KernelOptions fast = base;
    fast.flags.push_back("-use_fast_math");
    add("-use_fast_math", source, fast,
        hasFlagStartingWith(base, "-use_fast_math") ? "the kernel's own options have it already"
                                                    : "",
        false);
    for (int registers : {32, 64}) {
        KernelOptions limited = base;
        limited.flags.push_back("-maxrregcount=" + std::to_string(registers));
        add("-maxrregcount=" + std::to_string(registers), source, limited,
            hasFlagStartingWith(base, "-maxrregcount=")
                ? "the kernel's own options set -maxrregcount already"
                : "",
            false);
    }

    KernelSource bounded = source;
    bounded.launchBounds = int(blockThreads);
    std::string boundsSkip;
    if (code.find("__launch_bounds__") != std::string::npos)
        boundsSkip = "the source declares __launch_bounds__ itself";
    else if (blockThreads < 1 || blockThreads > 1024)
        boundsSkip = "the block has " + std::to_string(blockThreads) + " threads, not 1 to 1024";
    add("__launch_bounds__(" + std::to_string(blockThreads) + ")", bounded, base, boundsSkip,
        false);

    // The per-node value's type is real, so the row always applies there; a whole kernel's
    // only where its code uses real.
    KernelSource wide = source;
    wide.realIsDouble = true;
    static const std::regex usesReal(R"(\breal\b)");
    const bool applies = source.shape == KernelShape::PerNode || std::regex_search(code, usesReal);
    add("float64 (real = double)", wide, base,
        applies ? "" : "the kernel does not use the type real, so float64 would change nothing",
        true);
    return variants;
}

namespace {

// One run of the variant's recording build on the simulator, for the memory columns; its
// output and time are not used.
void recordVariantMemory(Context& context, const KernelVariant& variant,
                         const KernelVariantsRequest& request, bool cuda, KernelVariantRow& row)
{
    if (!request.recordMemory) {
        row.memoryNote = "not recorded: tick \"Record memory accesses\" in the Memory tab";
        return;
    }
    if (cuda) {
        row.memoryNote = "recorded by the CPU simulator only; these runs were on the GPU";
        return;
    }
    KernelSource source = variant.source;
    source.recordMemory = true;
    SimulatorBuild build;
    if (const Status built = buildSimulatedKernel(source, request.cacheDir, build); !built) {
        row.memoryNote = "the recording build failed: " + built.message();
        return;
    }
    std::vector<float> out(layoutFor(request.args.mesh).elementCount());
    KernelRun run;
    if (const Status ran =
            runUserKernel(context, {}, build, request.args, BufferView<float>::host(out), &run);
        !ran) {
        row.memoryNote = "the recorded run failed: " + ran.message();
        return;
    }
    if (!run.memory.recorded) {
        row.memoryNote = "nothing recorded: the simulator's compiler is not clang++";
        return;
    }
    row.memoryKnown = true;
    row.memory = summarizeMemory(run.memory);
    row.memoryNote = "one run recorded by the simulator";
    if (run.memory.blocksInPart > 0)
        row.memoryNote += "; " + std::to_string(run.memory.blocksInPart) +
                          " blocks recorded in part (too many accesses between barriers)";
}

} // namespace

Status measureKernelVariants(Context& context, const KernelVariantsRequest& request,
                             std::vector<KernelVariantRow>& rows, const std::atomic<bool>* cancel,
                             const KernelVariantsProgress& progress)
{
    rows.clear();
    if (request.runs < 1 || request.runs > 1000)
        return Status::failure("Variants need 1 to 1000 timed runs each, not " +
                               std::to_string(request.runs));
    if (const auto errors = validate(request.args.mesh); !errors.empty())
        return Status::failure(errors.front().message);
    const bool cuda = context.isCuda();
    const long long blockThreads = request.source.shape == KernelShape::PerNode
                                       ? kPerNodeBlock * kPerNodeBlock
                                       : request.args.launch.block.volume();
    const std::vector<KernelVariant> variants =
        kernelVariants(request.source, request.options, blockThreads);
    const FieldLayout layout = layoutFor(request.args.mesh);
    std::vector<float> reference(layout.elementCount()), out(layout.elementCount());
    // The simulator is slow on large meshes: fewer runs there.
    const int runs = cuda ? request.runs : std::min(request.runs, 3);
    const auto cancelled = [&] { return cancel && cancel->load(); };

    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (cancelled())
            return Status::failure("Cancelled");
        const KernelVariant& v = variants[i];
        KernelVariantRow& row = rows.emplace_back();
        row.name = v.name;
        const bool isDefault = i == 0;
        if (!v.skip.empty()) {
            row.problem = v.skip;
            row.timeNote = row.diffNote = "not built: " + v.skip;
            if (progress)
                progress(int(i + 1), int(variants.size()));
            continue;
        }
        CompiledKernel gpuBuild;
        const Status compiled = compileKernel(v.source, v.options, request.cacheDir, gpuBuild);
        row.compiled = compiled.ok();
        if (compiled) {
            row.usage = gpuBuild.usage;
            if (gpuBuild.usage.known) {
                KernelResources resources;
                resources.registersPerThread = gpuBuild.usage.registers;
                resources.staticSharedBytes = gpuBuild.usage.sharedBytes;
                row.occupancy = theoreticalOccupancy(context.info(), resources, blockThreads);
                row.occupancyKnown = true;
            }
        } else {
            row.problem = compiled.message();
        }

        SimulatorBuild cpuBuild;
        if (cuda) {
            if (!compiled) {
                row.timeNote = row.diffNote = "not run: NVRTC did not build it";
                if (isDefault)
                    return Status::failure("The default variant did not compile: " +
                                           compiled.message());
                continue;
            }
        } else if (!v.simulated) {
            row.timeNote = row.diffNote = v.source.launchBounds > 0
                                              ? "CPU simulator: launch bounds do not apply"
                                              : "CPU simulator: compile flags do not apply";
            if (progress)
                progress(int(i + 1), int(variants.size()));
            continue;
        } else if (const Status built = buildSimulatedKernel(v.source, request.cacheDir, cpuBuild);
                   !built) {
            row.timeNote = row.diffNote = "not run: the simulator did not build it";
            if (row.problem.empty())
                row.problem = built.message();
            if (isDefault)
                return Status::failure("The default variant did not build for the simulator: " +
                                       built.message());
            continue;
        }

        // One warm-up run (module load, caches), then the timed runs; the last run's output is
        // compared. The default's warm-up output is the reference, so the default's own row
        // compares two of its runs: a kernel that is not deterministic shows there.
        std::vector<double> times;
        Status ran = Status::success();
        for (int r = 0; r <= runs && ran; ++r) {
            if (cancelled())
                return Status::failure("Cancelled");
            KernelRun run;
            std::vector<float>& target = isDefault && r == 0 ? reference : out;
            ran = runUserKernel(context, gpuBuild, cpuBuild, request.args,
                                BufferView<float>::host(target), &run);
            if (ran && r > 0)
                times.push_back(run.kernelMs);
        }
        if (!ran) {
            row.problem = ran.message();
            row.timeNote = row.diffNote = "the run failed";
            if (isDefault)
                return Status::failure("The default variant's run failed: " + ran.message());
            continue;
        }
        row.timed = true;
        row.medianMs = median(times);
        row.timeNote = (cuda ? "GPU, CUDA events, median of " : "CPU simulator, median of ") +
                       std::to_string(times.size()) + " runs";
        compareFields(layout, reference, out, row);
        row.diffNote =
            isDefault ? "the default's last run against its first" : "against the default's output";
        row.expected = expectedDifference(v, cuda);
        if (!row.expected.empty())
            row.diffNote += "; " + row.expected;
        recordVariantMemory(context, v, request, cuda, row);
        if (progress)
            progress(int(i + 1), int(variants.size()));
    }
    return Status::success();
}

std::string expectedDifference(const KernelVariant& variant, bool cuda)
{
    std::string why;
    const std::vector<std::string>& flags = variant.options.flags;
    if (cuda && std::find(flags.begin(), flags.end(), "-use_fast_math") != flags.end())
        why = "-use_fast_math approximates division, square roots, sin, cos, exp and log: a few "
              "units in the last place are expected, more near zero";
    const std::string code = codeWithoutComments(variant.source.code);
    for (std::size_t at = code.find("atomicAdd"); at != std::string::npos;
         at = code.find("atomicAdd", at + 1))
        if (at == 0 ||
            !(std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_')) {
            why += std::string(why.empty() ? "" : "; ") +
                   "atomicAdd on float or double adds in the order threads arrive, which "
                   "changes from run to run (blocks run in parallel on the simulator too): the "
                   "last bits may differ";
            break;
        }
    return why;
}

std::string kernelVariantsCsv(const std::vector<KernelVariantRow>& rows)
{
    std::string csv = "variant,compiled,time_ms,registers,spill_store_bytes,spill_load_bytes,"
                      "occupancy_percent,max_abs_diff,nodes_differing,nodes_differing_not_finite,"
                      "sectors_per_request,ideal_sectors_per_request,conflict_ways,active_lanes,"
                      "timing,comparison,memory,problem\n";
    for (const KernelVariantRow& r : rows) {
        csv += csvField(r.name) + "," + (r.compiled ? "yes" : "no") + ",";
        csv += (r.timed ? number(r.medianMs, "%.6g") : std::string()) + ",";
        if (r.compiled && r.usage.known)
            csv += std::to_string(r.usage.registers) + "," +
                   (r.usage.spillsKnown ? std::to_string(r.usage.spillStoreBytes) + "," +
                                              std::to_string(r.usage.spillLoadBytes)
                                        : std::string(",")) +
                   ",";
        else
            csv += ",,,";
        csv +=
            (r.occupancyKnown ? number(r.occupancy.fraction * 100.0, "%.1f") : std::string()) + ",";
        csv += (r.compared ? number(r.maxAbsDiff, "%.9g") + "," + std::to_string(r.differingNodes) +
                                 "," + std::to_string(r.nonFiniteDiffering)
                           : std::string(",,")) +
               ",";
        for (const std::optional<double>& f :
             {r.memory.sectorsPerRequest, r.memory.idealSectorsPerRequest, r.memory.conflictWays,
              r.memory.activeLanes})
            csv += (r.memoryKnown && f ? number(*f, "%.6g") : std::string()) + ",";
        csv += csvField(r.timeNote) + "," + csvField(r.diffNote) + "," + csvField(r.memoryNote) +
               "," + csvField(r.problem) + "\n";
    }
    return csv;
}

} // namespace warpscope::gpu
