// libFuzzer target for what reads a user's kernel text before a compiler sees it: a .cu
// file's shape line (scene::parseKernelFile), the @param declarations (parseKernelParams),
// the comment blanking and brace check, the CPU simulator's limitations and the wrapping into
// a translation unit (the simulator's rewrite of the code included), for both shapes and
// targets. The first byte chooses the shape and the
// wrapping's options; the rest is the source. None may crash or hang, and each keeps its word.
#include "kernel/KernelShared.h"
#include "warpscope/gpu/UserKernel.h"
#include "warpscope/scene/KernelFile.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using namespace warpscope;

void check(bool promise)
{
    if (!promise)
        std::abort();
}

// A message's line is one of the source's lines.
void checkLine(const gpu::KernelMessage& message, int lines)
{
    check(message.line >= 1 && message.line <= lines && !message.text.empty());
}

void checkParamType(const gpu::KernelParam& p)
{
    switch (p.type) {
    case gpu::KernelParamType::Int:
        for (const double v : {p.value, p.min, p.max})
            check(v == std::trunc(v) && v >= INT_MIN && v <= INT_MAX);
        break;
    case gpu::KernelParamType::Bool:
        check(p.min == 0.0 && p.max == 1.0 && (p.value == 0.0 || p.value == 1.0));
        break;
    case gpu::KernelParamType::Float:
        check(p.value == double(float(p.value)) && p.min == double(float(p.min)) &&
              p.max == double(float(p.max)));
        break;
    }
}

// The double whose bytes are the source's from at on (zeros past its end).
double doubleAt(std::string_view code, std::size_t at)
{
    double value = 0.0;
    if (at < code.size())
        std::memcpy(&value, code.data() + at,
                    std::min<std::size_t>(sizeof value, code.size() - at));
    return value;
}

// Every buffer has a name of its own, a size of at least one element that never passes the
// limit whatever the mesh and launch, and a place in Params after the values, 8-byte aligned.
void checkBuffers(const gpu::KernelParamParse& parsed, int lines)
{
    check(parsed.buffers.size() <= std::size_t(gpu::kMaxKernelBuffers));
    gpu::DistanceParams mesh;
    mesh.nx = mesh.ny = 65536;
    gpu::LaunchConfig launch;
    launch.grid = {65535, 65535, 64};
    launch.block = {1024, 1, 1};
    for (const gpu::KernelBuffer& b : parsed.buffers) {
        check(!b.name.empty() && b.name.size() <= 64 && b.line >= 1 && b.line <= lines);
        check(b.factor >= 1);
        check(std::count_if(parsed.params.begin(), parsed.params.end(),
                            [&b](const gpu::KernelParam& p) { return p.name == b.name; }) == 0);
        const std::uint64_t count = gpu::kernelBufferCount(b, mesh, launch);
        check(count * gpu::kernelBufferElementBytes(b.type) <= gpu::kMaxKernelBufferBytes);
    }
    const gpu::KernelParamLayout layout = gpu::kernelParamLayout(parsed.params, parsed.buffers);
    check(layout.bufferOffsets.size() == parsed.buffers.size());
    std::size_t end = parsed.params.empty() ? 0 : layout.offsets.back() + 1;
    for (std::size_t offset : layout.bufferOffsets) {
        check(offset % 8 == 0 && offset >= end);
        end = offset + sizeof(gpu::KernelAbiBuffer);
    }
    check(end <= layout.size);
}

// The members lie in order, each aligned to its size, inside a struct whose size is a multiple
// of the widest; the defaults pack, each in its own bytes, and any value a control gives
// (kernelParamValue of some bytes of the source, NaN and infinities among them) is one a run
// takes.
void checkPacking(const std::vector<gpu::KernelParam>& params, std::string_view code)
{
    const gpu::KernelParamLayout layout = gpu::kernelParamLayout(params);
    check(layout.offsets.size() == params.size() && layout.size >= 1);
    std::size_t end = 0, widest = 1;
    std::vector<double> defaults, moved;
    for (std::size_t i = 0; i < params.size(); ++i) {
        const std::size_t bytes = gpu::kernelParamBytes(params[i].type);
        check(layout.offsets[i] >= end && layout.offsets[i] % bytes == 0);
        end = layout.offsets[i] + bytes;
        widest = std::max(widest, bytes);
        defaults.push_back(params[i].value);
        const double fitted = gpu::kernelParamValue(params[i], doubleAt(code, i * 8));
        check(fitted >= params[i].min && fitted <= params[i].max);
        moved.push_back(fitted);
    }
    check(end <= layout.size && layout.size % widest == 0);
    check(params.empty() ? layout.size == 1 : layout.size < end + widest);
    check(gpu::kernelValuesProblem(params, defaults).empty());
    check(gpu::kernelValuesProblem(params, moved).empty());
    const std::string bytes = gpu::packKernelParams(params, defaults);
    check(bytes.size() == layout.size);
    for (std::size_t i = 0; i < params.size(); ++i) {
        const char* at = bytes.data() + layout.offsets[i];
        double read = 0.0;
        if (params[i].type == gpu::KernelParamType::Float) {
            float v = 0.0f;
            std::memcpy(&v, at, sizeof v);
            read = v;
        } else if (params[i].type == gpu::KernelParamType::Int) {
            std::int32_t v = 0;
            std::memcpy(&v, at, sizeof v);
            read = v;
        } else {
            check(*at == 0 || *at == 1);
            read = *at;
        }
        check(read == params[i].value);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::string_view code(reinterpret_cast<const char*>(data) + 1, size - 1);
    const int lines = int(std::count(code.begin(), code.end(), '\n')) + 1;

    // A file is refused with a message naming it, or read as text without a NUL.
    const scene::KernelFileRead file = scene::parseKernelFile(
        QByteArray(reinterpret_cast<const char*>(data), qsizetype(size)), "fuzz.cu");
    if (file.kernel)
        check(file.error.isEmpty() && file.kernel->code.find('\0') == std::string::npos &&
              file.kernel->code.size() <= size);
    else
        check(file.error.startsWith("fuzz.cu: "));

    // Every parameter is a name with a finite range that holds its value: an int's whole
    // numbers within int's range, a bool's 0 or 1.
    const gpu::KernelParamParse parsed = gpu::parseKernelParams(code);
    check(parsed.params.size() <= std::size_t(gpu::kMaxKernelParams));
    for (const gpu::KernelParam& p : parsed.params) {
        check(!p.name.empty() && p.name.size() <= 64 && p.line >= 1 && p.line <= lines);
        check(std::isfinite(p.min) && std::isfinite(p.max) && p.min < p.max);
        check(p.min <= p.value && p.value <= p.max);
        check(std::count_if(parsed.params.begin(), parsed.params.end(),
                            [&p](const gpu::KernelParam& o) { return o.name == p.name; }) == 1);
        checkParamType(p);
    }
    for (const gpu::KernelMessage& m : parsed.errors)
        checkLine(m, lines);
    checkPacking(parsed.params, code);
    checkBuffers(parsed, lines);

    // Blanking keeps the length and every newline, so lines and columns still match.
    const std::string blanked = gpu::codeWithoutComments(code);
    check(blanked.size() == code.size());
    for (std::size_t i = 0; i < code.size(); ++i)
        check(code[i] == '\n' ? blanked[i] == '\n' : blanked[i] == code[i] || blanked[i] == ' ');
    if (const auto brace = gpu::unbalancedBrace(code))
        checkLine(*brace, lines);
    for (const gpu::KernelMessage& m : gpu::simulatorLimitations(code))
        checkLine(m, lines);

    // The unit holds the user's code after its #line, launch bounds aside.
    gpu::KernelSource source;
    source.shape = data[0] & 1 ? gpu::KernelShape::WholeKernel : gpu::KernelShape::PerNode;
    source.realIsDouble = data[0] & 2;
    source.launchBounds = data[0] & 4 ? 256 : 0;
    source.code = std::string(code);
    for (const gpu::KernelTarget target : {gpu::KernelTarget::Cuda, gpu::KernelTarget::Cpu}) {
        const std::string unit =
            gpu::wrapKernelSource(source, parsed.params, parsed.buffers, target);
        const std::string marker = "#line 1 \"kernel.cu\"\n";
        check(unit.find(marker) != std::string::npos);
        // The simulator's unit holds the code as cpuUserCode rewrites it (shared memory's
        // declarations made the runner's), on the same lines, so that messages keep the
        // user's lines.
        const std::string user = target == gpu::KernelTarget::Cpu
                                     ? gpu::cpuUserCode(source.code, source.shape)
                                     : source.code;
        check(std::count(user.begin(), user.end(), '\n') ==
              std::count(source.code.begin(), source.code.end(), '\n'));
        if (source.launchBounds == 0 || source.shape == gpu::KernelShape::PerNode)
            check(unit.find(marker + user) != std::string::npos);
        // Each parameter is a member of its own type, before the user's code.
        for (const gpu::KernelParam& p : parsed.params) {
            const char* type = p.type == gpu::KernelParamType::Int    ? " int "
                               : p.type == gpu::KernelParamType::Bool ? " bool "
                                                                      : " float ";
            const std::size_t member = unit.find(type + p.name + ";");
            check(member != std::string::npos && member < unit.find(marker));
        }
    }
    return 0;
}
