// The NVRTC options a kernel may carry (the workspace's options field, scene files, variants).
#include "warpscope/gpu/UserKernel.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace warpscope::gpu {
namespace {

bool isBoolean(std::string_view text)
{
    return text == "true" || text == "false";
}

} // namespace

std::string kernelFlagProblem(std::string_view flag)
{
    // Shown in messages: a hostile scene's long text is cut.
    const std::string shown =
        flag.size() > 40 ? std::string(flag.substr(0, 40)) + "…" : std::string(flag);
    if (flag == "-use_fast_math" || flag == "-lineinfo")
        return {};
    if (flag.starts_with("-maxrregcount=")) {
        const std::string_view digits = flag.substr(14);
        const bool number = !digits.empty() && digits.size() <= 3 &&
                            std::all_of(digits.begin(), digits.end(), [](char c) {
                                return std::isdigit(static_cast<unsigned char>(c));
                            });
        if (number && std::stoi(std::string(digits)) >= 16 && std::stoi(std::string(digits)) <= 255)
            return {};
        return "The compiler option '" + shown + "' needs a register count from 16 to 255";
    }
    // Options that take true or false.
    static const std::array<std::string_view, 4> switches = {
        "-ftz=", "-prec-div=", "-prec-sqrt=", "-fmad="};
    for (std::string_view prefix : switches)
        if (flag.starts_with(prefix)) {
            if (isBoolean(flag.substr(prefix.size())))
                return {};
            return "The compiler option '" + shown + "' needs true or false";
        }
    // Anything else (include paths, output files, other architectures) is refused, so a scene
    // file cannot steer the compiler elsewhere.
    return "The compiler option '" + shown +
           "' is not one the workbench passes (-use_fast_math, -maxrregcount=N, -lineinfo, "
           "-ftz=, -prec-div=, -prec-sqrt=, -fmad=)";
}

} // namespace warpscope::gpu
