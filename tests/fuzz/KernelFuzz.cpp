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
#include <cmath>
#include <cstdint>
#include <cstdlib>

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

    // Every parameter is a name with a finite range that holds its value.
    const gpu::KernelParamParse parsed = gpu::parseKernelParams(code);
    check(parsed.params.size() <= std::size_t(gpu::kMaxKernelParams));
    for (const gpu::KernelParam& p : parsed.params) {
        check(!p.name.empty() && p.name.size() <= 64 && p.line >= 1 && p.line <= lines);
        check(std::isfinite(p.min) && std::isfinite(p.max) && p.min < p.max);
        check(p.min <= p.value && p.value <= p.max);
        check(std::count_if(parsed.params.begin(), parsed.params.end(),
                            [&p](const gpu::KernelParam& o) { return o.name == p.name; }) == 1);
    }
    for (const gpu::KernelMessage& m : parsed.errors)
        checkLine(m, lines);

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
        const std::string unit = gpu::wrapKernelSource(source, parsed.params, target);
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
    }
    return 0;
}
