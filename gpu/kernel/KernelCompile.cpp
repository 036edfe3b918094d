// The GPU build of a user's kernel: parameters, wrapping, the disk cache, NVRTC, and its log
// read back at the user's lines.
#include "kernel/KernelShared.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace warpscope::gpu {
namespace {

Status firstError(const std::vector<KernelMessage>& messages, const std::string& fallback)
{
    for (const KernelMessage& m : messages)
        if (m.severity == Severity::Error)
            return Status::failure(m.line > 0 ? "Line " + std::to_string(m.line) + ": " + m.text
                                              : m.text);
    return Status::failure(fallback);
}

void readLog(CompiledKernel& out, bool compiled)
{
    out.messages = nvrtcMessages(out.log);
    out.ok = compiled;
    if (!compiled)
        return;
    out.usage = ptxasUsage(out.log, out.entry);
    if (!out.usage.known)
        out.usage = driverUsage(out);
}

// The toolkit's headers (cooperative_groups.h, cuda_fp16.h, ...), which NVRTC does not find on
// its own: where $CUDA_HOME or $CUDA_PATH points, or the usual place. Empty when none has them.
std::string toolkitIncludeDir()
{
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(variable); home && *home) {
            const std::filesystem::path dir = std::filesystem::path(home) / "include";
            std::error_code error;
            if (std::filesystem::exists(dir / "cooperative_groups.h", error))
                return dir.string();
        }
    std::error_code error;
    return std::filesystem::exists("/usr/local/cuda/include/cooperative_groups.h", error)
               ? "/usr/local/cuda/include"
               : std::string();
}

} // namespace

Status compileKernel(const KernelSource& source, const KernelOptions& options,
                     const std::string& cacheDir, CompiledKernel& out)
{
    const auto start = std::chrono::steady_clock::now();
    out = {};
    out.source = source;
    out.options = options;
    KernelParamParse parsed = parseKernelParams(source.code);
    out.params = parsed.params;
    out.buffers = parsed.buffers;
    if (std::optional<KernelMessage> brace = unbalancedBrace(source.code))
        parsed.errors.push_back(*brace);
    if (!parsed.errors.empty()) {
        out.messages = parsed.errors;
        return firstError(out.messages, "The @param declarations have errors");
    }
    if (options.smMajor < 5 || options.smMajor > 20 || options.smMinor < 0 || options.smMinor > 9)
        return Status::failure("sm_" + std::to_string(options.smMajor) +
                               std::to_string(options.smMinor) + " is not an architecture");
    std::vector<std::string> flags = {"-arch=sm_" + std::to_string(options.smMajor) +
                                          std::to_string(options.smMinor),
                                      "-std=c++17", "--ptxas-options=-v"};
    if (const std::string include = toolkitIncludeDir(); !include.empty()) {
        flags.push_back("--include-path=" + include);
        // CUDA 13 keeps libcu++ (cuda/std/...), which cooperative groups include, under cccl/.
        std::error_code error;
        if (std::filesystem::is_directory(include + "/cccl", error))
            flags.push_back("--include-path=" + include + "/cccl");
    }
    for (const std::string& flag : options.flags) {
        if (const std::string problem = kernelFlagProblem(flag); !problem.empty())
            return Status::failure(problem);
        flags.push_back(flag);
    }
    if (!nvrtcAvailable()) {
        NvrtcOutput none;
        return nvrtcBuild({}, {}, {}, none);
    }
    const std::string text = wrapKernelSource(source, out.params, out.buffers, KernelTarget::Cuda);
    const std::string nameExpression =
        source.shape == KernelShape::PerNode ? kPerNodeEntry : kWholeKernelEntry;
    std::string key = "nvrtc " + nvrtcVersion() + "\n";
    for (const std::string& flag : flags)
        key += flag + "\n";
    key += nameExpression + "\n" + text;
    const std::string path =
        cacheDir.empty()
            ? std::string()
            : (std::filesystem::path(cacheDir) / ("nvrtc-" + hashHex(key) + ".bin")).string();

    auto elapsedMs = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    };
    if (!path.empty()) {
        if (std::optional<CacheEntry> hit = readCacheEntry(path, key);
            hit && hit->blobs.size() == 5) {
            out.log = hit->blobs[1];
            out.ptx = hit->blobs[2];
            out.cubin.assign(hit->blobs[3].begin(), hit->blobs[3].end());
            out.entry = hit->blobs[4];
            readLog(out, hit->blobs[0] == "1");
            out.fromCache = true;
            out.compileMs = elapsedMs();
            return out.ok ? Status::success()
                          : firstError(out.messages, "The kernel did not compile");
        }
    }
    NvrtcOutput built;
    if (Status s = nvrtcBuild(text, flags, nameExpression, built); !s)
        return s;
    out.log = std::move(built.log);
    out.ptx = std::move(built.ptx);
    out.cubin.assign(built.cubin.begin(), built.cubin.end());
    out.entry = std::move(built.entry);
    readLog(out, built.compiled);
    out.compileMs = elapsedMs();
    if (!path.empty())
        writeCacheEntry(path, {key,
                               {built.compiled ? "1" : "0", out.log, out.ptx,
                                std::string(out.cubin.begin(), out.cubin.end()), out.entry}});
    if (!out.ok)
        return firstError(out.messages, "The kernel did not compile:\n" + out.log);
    if (source.shape == KernelShape::WholeKernel && out.entry.empty())
        return Status::failure(
            "The source defines no __global__ void kernel(Out, Mesh, Refs, Params)");
    return Status::success();
}

} // namespace warpscope::gpu
