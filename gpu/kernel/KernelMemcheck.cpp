// A faulting kernel run again under compute-sanitizer's memcheck (KernelMemcheck.h).
#include "warpscope/gpu/KernelMemcheck.h"

#include "kernel/KernelRunner.h"
#include "kernel/KernelShared.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <unistd.h>

namespace warpscope::gpu {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "=========";

bool runnable(const fs::path& path)
{
    std::error_code error;
    return !path.empty() && fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\r' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

// "(x,y,z)" at the front of text, as memcheck writes a thread's or block's index.
bool readTriple(std::string_view text, std::array<int, 3>& out)
{
    int x = 0, y = 0, z = 0, used = 0;
    const std::string copy(text.substr(0, 64));
    if (std::sscanf(copy.c_str(), " (%d,%d,%d)%n", &x, &y, &z, &used) != 3 || used == 0)
        return false;
    out = {x, y, z};
    return true;
}

// "at kernel(Out, Mesh)+0x70 in /some/where/kernel.cu:12" (or a device frame, "Device Frame:"
// then the same). The first location is where the error happened.
void readLocation(std::string_view line, MemcheckFinding& finding)
{
    if (!finding.function.empty())
        return;
    const std::size_t in = line.rfind(" in ");
    if (in == std::string_view::npos)
        return;
    std::string_view function = line.substr(0, in);
    if (const std::size_t plus = function.rfind("+0x"); plus != std::string_view::npos)
        function = function.substr(0, plus);
    finding.function = std::string(trimmed(function));
    const std::string_view place = trimmed(line.substr(in + 4));
    const std::size_t colon = place.rfind(':');
    if (colon == std::string_view::npos)
        return;
    finding.file = fs::path(std::string(place.substr(0, colon))).filename().string();
    const std::string number(place.substr(colon + 1));
    char* end = nullptr;
    const long value = std::strtol(number.c_str(), &end, 10);
    if (end != number.c_str() && *end == '\0' && value > 0 && value < 1 << 24)
        finding.line = int(value);
}

void readDetail(std::string_view line, MemcheckFinding& finding)
{
    if (line.starts_with("at "))
        return readLocation(line.substr(3), finding);
    if (line.starts_with("Device Frame:"))
        return readLocation(line.substr(13), finding);
    if (line.starts_with("by thread ")) {
        const std::size_t block = line.find(" in block ");
        finding.located = block != std::string_view::npos &&
                          readTriple(line.substr(10), finding.thread) &&
                          readTriple(line.substr(block + 10), finding.block);
        return;
    }
    // The host's backtrace at the launch says nothing about the user's code.
    if (line.starts_with("Saved host backtrace") || line.starts_with("Host Frame"))
        return;
    if (finding.details.size() < 4)
        finding.details.emplace_back(line);
}

// A file for memcheck's report, made empty in the temporary folder and removed with this.
struct MemcheckLog
{
    // Reports are short (at most 20 errors are printed); more is not read.
    static constexpr std::size_t kMaxBytes = std::size_t(4) << 20;

    MemcheckLog()
    {
        std::error_code error;
        std::string pattern =
            (fs::temp_directory_path(error) / "warpscope-memcheck-XXXXXX").string();
        const int fd = ::mkstemp(pattern.data());
        if (fd >= 0) {
            ::close(fd);
            path = pattern;
        }
    }
    ~MemcheckLog()
    {
        if (!path.empty())
            ::unlink(path.c_str());
    }
    MemcheckLog(const MemcheckLog&) = delete;
    MemcheckLog& operator=(const MemcheckLog&) = delete;

    std::string read() const
    {
        std::string text;
        if (FILE* file = std::fopen(path.c_str(), "rb")) {
            text.resize(kMaxBytes);
            text.resize(std::fread(text.data(), 1, kMaxBytes, file));
            std::fclose(file);
        }
        return text;
    }

    std::string path;
};

} // namespace

std::string computeSanitizerPath()
{
    if (const char* given = std::getenv("WARPSCOPE_COMPUTE_SANITIZER"); given && *given)
        return runnable(given) ? std::string(given) : std::string();
    if (const char* path = std::getenv("PATH")) {
        std::string_view rest = path;
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            const fs::path dir(std::string(rest.substr(0, colon)));
            if (!dir.empty() && runnable(dir / "compute-sanitizer"))
                return (dir / "compute-sanitizer").string();
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    }
    for (const char* home : {static_cast<const char*>(std::getenv("CUDA_HOME")), "/usr/local/cuda"})
        if (home && *home && runnable(fs::path(home) / "bin" / "compute-sanitizer"))
            return (fs::path(home) / "bin" / "compute-sanitizer").string();
    return {};
}

std::string MemcheckFinding::summary() const
{
    std::string text;
    if (userLine() > 0)
        text = "Line " + std::to_string(userLine()) + ": ";
    text += what;
    const auto triple = [](const std::array<int, 3>& t) {
        return "(" + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " +
               std::to_string(t[2]) + ")";
    };
    if (located)
        text += ", by thread " + triple(thread) + " of block " + triple(block);
    if (userLine() == 0 && !file.empty())
        text += ", in " + function + " (" + file +
                (line > 0 ? ":" + std::to_string(line) : std::string()) + ")";
    if (!details.empty())
        text += ". " + details.front();
    return text;
}

MemcheckReport parseMemcheckReport(std::string_view output)
{
    MemcheckReport report;
    // Each header that is not one of the run's own lines may start an error; it is one of the
    // device's when its details say where (memcheck names more kinds than any list here).
    std::optional<MemcheckFinding> current;
    const auto close = [&] {
        if (current && (current->located || !current->function.empty()))
            report.findings.push_back(std::move(*current));
        current.reset();
    };
    while (!output.empty()) {
        const std::size_t end = output.find('\n');
        std::string_view line = output.substr(0, end);
        output = end == std::string_view::npos ? std::string_view() : output.substr(end + 1);
        if (!line.starts_with(kPrefix))
            continue;
        line.remove_prefix(kPrefix.size());
        // A header follows the prefix with one space; an error's details are indented further.
        const std::size_t indent = line.find_first_not_of(' ');
        const std::string_view text = trimmed(line);
        report.text += std::string(text) + "\n";
        if (text.empty() || indent == std::string_view::npos)
            continue;
        if (indent > 1) {
            if (current)
                readDetail(text, *current);
            continue;
        }
        close();
        if (text.starts_with("ERROR SUMMARY:"))
            std::sscanf(std::string(text).c_str(), "ERROR SUMMARY: %d", &report.errorCount);
        else if (text.starts_with("Program hit "))
            report.apiErrors.emplace_back(text);
        else if (text != "COMPUTE-SANITIZER" && !text.starts_with("Target application"))
            current.emplace().what = std::string(text);
    }
    close();
    return report;
}

double memcheckTimeoutMs(double timeoutMs)
{
    return std::clamp(timeoutMs * 50.0, 60000.0, 600000.0);
}

Status prepareMemcheck(Context& context, const CompiledKernel& gpu, const KernelArgs& args,
                       MemcheckJob& job)
{
    job = {};
    if (!context.isCuda())
        return Status::failure("memcheck runs kernels on a GPU; this context is the CPU's");
    if (!gpu.ok)
        return Status::failure("The kernel has no GPU build to run");
    if (computeSanitizerPath().empty())
        return Status::failure("compute-sanitizer was not found (on PATH, in $CUDA_HOME/bin or "
                               "/usr/local/cuda/bin); it comes with the CUDA toolkit");
    job.busId = cudaRunnerBusId(context);
    if (job.busId.empty())
        return Status::failure("The GPU's PCI bus id could not be read");
    job.kernel = gpu;
    job.args = args;
    job.args.owners = {};
    return Status::success();
}

Status runUnderMemcheck(const MemcheckJob& job, MemcheckReport& report, std::string& printed)
{
    report = {};
    printed.clear();
    const std::string sanitizer = computeSanitizerPath();
    if (sanitizer.empty())
        return Status::failure("compute-sanitizer was not found");
    KernelOptions options = job.kernel.options;
    if (std::find(options.flags.begin(), options.flags.end(), "-lineinfo") == options.flags.end())
        options.flags.push_back("-lineinfo"); // so that memcheck can name the user's lines
    CompiledKernel build;
    if (Status s = compileKernel(job.kernel.source, options, {}, build); !s)
        return Status::failure("The kernel did not build with line information: " + s.message());
    RunnerRequest request = runnerRequest(
        job.args, build.params, userKernelLaunch(build.source.shape, job.args), build.buffers);
    request.target = RunnerTarget::Cuda;
    request.program.assign(build.cubin.begin(), build.cubin.end());
    request.entry = build.entry;
    SharedOutput output;
    if (Status s = output.reserve(runnerOutputBytes(request)); !s)
        return s;
    request.output = output.descriptor();
    // memcheck writes its report to a file of its own: in the runner's output, a kernel's
    // printf could forge lines that read as memcheck's.
    const MemcheckLog log;
    if (log.path.empty())
        return Status::failure("No temporary file could be made for memcheck's report");
    KernelRunner runner(job.busId);
    runner.setTool({sanitizer, "--tool", "memcheck", "--print-limit", "20", "--show-backtrace",
                    "device", "--log-file", log.path});
    Status ran = runner.send(request, output.fd(), memcheckTimeoutMs(job.args.timeoutMs));
    RunnerReply reply;
    if (ran)
        ran = runner.receive(reply);
    runner.cancel(); // the runner ends, and memcheck writes its summary
    bool capped = false;
    printed = runner.printed(capped);
    report = parseMemcheckReport(log.read());
    if (report.errorCount < 0 && report.findings.empty())
        return Status::failure(ran ? "memcheck ran the kernel but wrote no report"
                                   : "memcheck did not run the kernel: " + ran.message());
    return Status::success();
}

} // namespace warpscope::gpu
