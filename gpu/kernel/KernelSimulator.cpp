// The CPU simulator's build: the user's source compiled as C++ by the system's compiler into
// a shared library, which the kernel runner loads (KernelRunnerServe.cpp): never the app, so
// that nothing of the user's code runs in the app's process. What it cannot run is said
// before compiling.
#include "kernel/KernelShared.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

extern char** environ;

namespace warpscope::gpu {
namespace {

namespace fs = std::filesystem;

// A compiler that runs longer than this (a template bomb, say) is stopped.
constexpr auto kCompileTimeout = std::chrono::seconds(60);

// hint: text every match holds, so that a line without it is not searched (a search costs far
// more than a find).
// What the simulator cannot run, matched on the source's identifiers by hand: a regular
// expression's matcher in libstdc++ recurses once a character, so a hostile identifier of a
// million characters would take the app's stack.
struct Limitation
{
    bool (*matches)(std::string_view name, std::string_view after);
    const char* why;
};

bool startsWith(std::string_view name, std::string_view prefix, std::size_t minLength = 0)
{
    return name.size() >= std::max(prefix.size(), minLength) &&
           name.substr(0, prefix.size()) == prefix;
}

// The first character after the blanks that follow an identifier.
char nextAfterBlanks(std::string_view after)
{
    const std::size_t next = after.find_first_not_of(" \t\r\f\v");
    return next == std::string_view::npos ? '\0' : after[next];
}

const Limitation kLimitations[] = {
    {[](std::string_view n, std::string_view) { return n == "asm" || n == "__asm__"; },
     "inline PTX"},
    {[](std::string_view n, std::string_view after) {
         const char next = nextAfterBlanks(after);
         return startsWith(n, "tex") && n.find('D', 3) != std::string_view::npos &&
                (next == '<' || next == '(');
     },
     "textures"},
    {[](std::string_view n, std::string_view) {
         return n == "this_grid" || n == "grid_group" || n == "this_multi_grid" ||
                n == "this_cluster" || n == "cluster_group";
     },
     "grid-wide and cluster groups"},
};

// What needs a block's threads as fibers (BlockFibers.h).
bool isCollective(std::string_view n)
{
    return startsWith(n, "__syncthreads") || n == "__syncwarp" || startsWith(n, "__shfl") ||
           n == "__ballot_sync" || n == "__any_sync" || n == "__all_sync" || n == "__activemask" ||
           startsWith(n, "__match_") || startsWith(n, "__reduce_") || n == "cooperative_groups" ||
           n == "this_thread_block" || n == "tiled_partition";
}

bool identifierChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Calls visit(line, column, name, rest of the line) for each identifier of code outside
// comments and literals; stops when visit returns false.
template <typename Visit> void forEachIdentifier(std::string_view code, Visit visit)
{
    const std::string stripped = codeWithoutComments(code);
    int line = 0;
    std::size_t start = 0;
    while (start <= stripped.size()) {
        ++line;
        std::size_t end = stripped.find('\n', start);
        if (end == std::string::npos)
            end = stripped.size();
        const std::string_view text = std::string_view(stripped).substr(start, end - start);
        start = end + 1;
        for (std::size_t at = 0; at < text.size();) {
            if (!identifierChar(text[at])) {
                ++at;
                continue;
            }
            std::size_t stop = at;
            while (stop < text.size() && identifierChar(text[stop]))
                ++stop;
            const std::string_view name = text.substr(at, stop - at);
            if (!std::isdigit(static_cast<unsigned char>(name[0])) &&
                !visit(line, int(at) + 1, name, text.substr(stop)))
                return;
            at = stop;
        }
    }
}

std::string findOnPath(const std::string& name)
{
    if (name.find('/') != std::string::npos)
        return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (!dirs.empty()) {
        const std::size_t colon = dirs.find(':');
        const std::string dir(dirs.substr(0, colon));
        dirs.remove_prefix(colon == std::string_view::npos ? dirs.size() : colon + 1);
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

// The compiler reads the user's source, which may come from a stranger's scene file: an
// include of /dev/zero or a template that never ends must cost the compiler, not the machine.
constexpr rlim_t kCompileAddressSpace = rlim_t(2) << 30;
constexpr rlim_t kCompileCpuSeconds = 120;
constexpr rlim_t kCompileFileBytes = rlim_t(256) << 20;

// Runs argv with its output into logPath, under the compile limits; false with a reason when
// it could not run or end.
bool runProcess(const std::vector<std::string>& argv, const std::string& logPath, int& exitCode,
                std::string& why)
{
    const int log = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log < 0) {
        why = "Could not write the compiler's log " + logPath + ": " + std::strerror(errno);
        return false;
    }
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // Between fork and exec only async-signal-safe calls: the app has other threads.
    const pid_t pid = ::fork();
    if (pid == 0) {
        const std::pair<int, rlim_t> limits[] = {{RLIMIT_AS, kCompileAddressSpace},
                                                 {RLIMIT_CPU, kCompileCpuSeconds},
                                                 {RLIMIT_FSIZE, kCompileFileBytes},
                                                 {RLIMIT_CORE, 0}};
        for (const auto& [resource, value] : limits) {
            const rlimit limit{value, value};
            ::setrlimit(resource, &limit);
        }
        ::setpgid(0, 0); // a group of its own, so that a stop reaches the compiler's children
        const int devNull = ::open("/dev/null", O_RDONLY);
        if (devNull < 0 || ::dup2(devNull, 0) < 0 || ::dup2(log, 1) < 0 || ::dup2(log, 2) < 0)
            ::_exit(127);
        ::execve(args[0], args.data(), environ);
        ::_exit(127);
    }
    const int forkError = errno;
    ::close(log);
    if (pid < 0) {
        why = "Could not start " + argv[0] + ": " + std::strerror(forkError);
        return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + kCompileTimeout;
    int status = 0;
    while (true) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0) {
            why = "Lost the compiler's process";
            return false;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(-pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            why = "The C++ compiler did not finish within 60 s and was stopped";
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
}

std::string readText(const std::string& path)
{
    std::ifstream file(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(file)), {});
}

Status firstError(const std::vector<KernelMessage>& messages, const std::string& fallback)
{
    for (const KernelMessage& m : messages)
        if (m.severity == Severity::Error)
            return Status::failure(m.line > 0 ? "Line " + std::to_string(m.line) + ": " + m.text
                                              : m.text);
    return Status::failure(fallback);
}

// Identifies the compiler's binary in the cache key: a new compiler builds anew.
std::string compilerStamp(const std::string& compiler)
{
    struct stat info
    {};
    const std::string resolved = fs::weakly_canonical(compiler).string();
    if (::stat(resolved.c_str(), &info) != 0)
        return resolved;
    return resolved + " " + std::to_string(info.st_size) + " " + std::to_string(info.st_mtime);
}

} // namespace

std::vector<KernelMessage> simulatorLimitations(std::string_view code)
{
    std::vector<KernelMessage> messages;
    // The first identifier on each line that each limitation names, listed in the
    // limitations' order.
    int lastLine = 0;
    std::optional<KernelMessage> named[std::size(kLimitations)];
    const auto flush = [&] {
        for (std::optional<KernelMessage>& message : named)
            if (message)
                messages.push_back(std::move(*std::exchange(message, std::nullopt)));
    };
    forEachIdentifier(code, [&](int line, int column, std::string_view name,
                                std::string_view after) {
        if (line != lastLine)
            flush();
        lastLine = line;
        for (std::size_t k = 0; k < std::size(kLimitations); ++k)
            if (!named[k] && kLimitations[k].matches(name, after)) {
                const std::string shown =
                    name.size() > 64 ? std::string(name.substr(0, 64)) + "..." : std::string(name);
                named[k] = KernelMessage{Severity::Error, line, column,
                                         "The CPU simulator cannot run " + shown + " (" +
                                             kLimitations[k].why +
                                             "): they need a GPU, so run the kernel on one"};
            }
        return true;
    });
    flush();
    return messages;
}

bool usesBlockCollectives(std::string_view code)
{
    bool found = false;
    forEachIdentifier(code, [&](int, int, std::string_view name, std::string_view) {
        found = isCollective(name);
        return !found;
    });
    return found;
}

std::string hostCompiler()
{
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx) {
        std::string first(cxx);
        first = first.substr(0, first.find(' '));
        if (std::string found = findOnPath(first); !found.empty())
            return found;
    }
    // clang first: its instrumentation of loads and stores feeds shared memory's checks.
    for (const char* name : {"clang++", "c++", "g++"})
        if (std::string found = findOnPath(name); !found.empty())
            return found;
    return {};
}

bool simulatorChecksMemory()
{
    const std::string compiler = hostCompiler();
    return !compiler.empty() &&
           fs::path(fs::weakly_canonical(compiler)).filename().string().find("clang") !=
               std::string::npos;
}

Status buildSimulatedKernel(const KernelSource& source, const std::string& cacheDir,
                            SimulatorBuild& out)
{
    const auto start = std::chrono::steady_clock::now();
    out = {};
    out.source = source;
    KernelParamParse parsed = parseKernelParams(source.code);
    out.params = parsed.params;
    out.buffers = parsed.buffers;
    out.messages = parsed.errors;
    if (std::optional<KernelMessage> brace = unbalancedBrace(source.code))
        out.messages.push_back(*brace);
    for (KernelMessage& m : simulatorLimitations(source.code))
        out.messages.push_back(std::move(m));
    if (!out.messages.empty())
        return firstError(out.messages, "The kernel cannot run on the CPU simulator");
    const std::string compiler = hostCompiler();
    if (compiler.empty())
        return Status::failure("No C++ compiler was found (c++, g++ or clang++ on PATH, or $CXX), "
                               "so the CPU simulator cannot build kernels");
    std::vector<std::string> flags = {"-std=gnu++17",        "-O2", "-fPIC", "-shared",
                                      "-fvisibility=hidden", "-w",  "-x",    "c++"};
    // Each load and store calls the library's callbacks (SharedMemoryCheck.h), whose findings
    // are named at their lines from the line table (libdw finds an address's unit by the
    // address ranges table, which clang writes only when asked).
    // A recording build (MemoryRecord.h) also reports each basic block a thread enters, and
    // keeps the user's scalar accesses scalar, as a GPU's lanes make them.
    if (simulatorChecksMemory() && source.recordMemory)
        flags.insert(flags.end(),
                     {"-fsanitize-coverage=edge,trace-pc-guard,trace-loads,"
                      "trace-stores",
                      "-fno-vectorize", "-fno-slp-vectorize", "-gline-tables-only",
                      "-gdwarf-aranges", "-DWS_CHECK_ACCESSES=1", "-DWS_RECORD_ACCESSES=1"});
    else if (simulatorChecksMemory())
        flags.insert(flags.end(),
                     {"-fsanitize-coverage=func,trace-loads,trace-stores", "-gline-tables-only",
                      "-gdwarf-aranges", "-DWS_CHECK_ACCESSES=1"});
    else
        out.messages.push_back({Severity::Warning, 0, 0,
                                "The simulator's compiler is not clang++: shared memory's checks "
                                "(races, reads of memory never written, out of bounds) and the "
                                "record of memory accesses are off"});
    const std::string text = wrapKernelSource(source, out.params, out.buffers, KernelTarget::Cpu);
    std::string key = "simulator " + compilerStamp(compiler) + "\n";
    for (const std::string& flag : flags)
        key += flag + "\n";
    key += text;
    std::error_code error;
    const fs::path dir = cacheDir.empty() ? fs::temp_directory_path(error) /
                                                ("warpscope-kernels-" + std::to_string(::getpid()))
                                          : fs::path(cacheDir);
    fs::create_directories(dir, error);
    const std::string stem = (dir / ("sim-" + hashHex(key))).string();
    const std::string library = stem + ".so";
    auto elapsedMs = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    };
    if (readCacheEntry(stem + ".key", key) && fs::exists(library)) {
        out.library = library;
        out.ok = true;
        out.fromCache = true;
        out.compileMs = elapsedMs();
        return Status::success();
    }
    const std::string unique = stem + "-" + std::to_string(::getpid());
    {
        std::ofstream file(unique + ".cpp", std::ios::binary | std::ios::trunc);
        if (!file.write(text.data(), std::streamsize(text.size())))
            return Status::failure("Could not write the simulator's source into " + dir.string());
    }
    std::vector<std::string> argv = {compiler};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {unique + ".cpp", "-o", unique + ".so"});
    int exitCode = 0;
    std::string why;
    const bool ran = runProcess(argv, unique + ".log", exitCode, why);
    out.log = readText(unique + ".log");
    fs::remove(unique + ".cpp", error);
    fs::remove(unique + ".log", error);
    if (!ran)
        return Status::failure(why);
    for (KernelMessage& m : gccMessages(out.log))
        out.messages.push_back(std::move(m));
    if (exitCode != 0) {
        fs::remove(unique + ".so", error);
        return firstError(out.messages, "The C++ compiler failed:\n" + out.log);
    }
    fs::rename(unique + ".so", library, error);
    if (error)
        return Status::failure("Could not keep the simulator's library in " + dir.string());
    writeCacheEntry(stem + ".key", {key, {}});
    out.library = library;
    out.ok = true;
    out.compileMs = elapsedMs();
    return Status::success();
}

} // namespace warpscope::gpu
