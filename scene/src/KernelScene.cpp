#include "warpscope/scene/KernelScene.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace warpscope::scene {
namespace {

bool isIdentifier(const std::string& name)
{
    if (name.empty() || name.size() > 64 || std::isdigit(static_cast<unsigned char>(name[0])))
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

} // namespace

gpu::Status validate(const KernelScene& kernel)
{
    std::vector<std::string> problems;
    if (kernel.shape != gpu::KernelShape::PerNode && kernel.shape != gpu::KernelShape::WholeKernel)
        problems.push_back("Unknown kernel template " + std::to_string(int(kernel.shape)));
    if (kernel.source.size() > gpu::kMaxKernelSourceBytes)
        problems.push_back("The source holds " + std::to_string(kernel.source.size()) +
                           " bytes, more than the " + std::to_string(gpu::kMaxKernelSourceBytes) +
                           " a kernel may have");
    if (const std::size_t at = kernel.source.find('\0'); at != std::string::npos)
        problems.push_back("The source holds a NUL character at byte " + std::to_string(at) +
                           ": it is not text");
    if (kernel.values.size() > std::size_t(gpu::kMaxKernelParams))
        problems.push_back(std::to_string(kernel.values.size()) +
                           " parameter values, more than the " +
                           std::to_string(gpu::kMaxKernelParams) + " a kernel may declare");
    else {
        std::set<std::string> seen;
        for (const KernelParamValue& v : kernel.values) {
            if (!isIdentifier(v.name))
                problems.push_back("A parameter must be named like a C variable (up to 64 "
                                   "letters, digits and _), not '" +
                                   v.name.substr(0, 40) + "'");
            else if (!seen.insert(v.name).second)
                problems.push_back("The parameter '" + v.name + "' has two values");
            if (!std::isfinite(v.value))
                problems.push_back("The value of the parameter '" + v.name.substr(0, 40) +
                                   "' is not finite");
        }
    }
    if (kernel.flags.size() > std::size_t(gpu::kMaxKernelFlags))
        problems.push_back(std::to_string(kernel.flags.size()) +
                           " compiler options, more than the " +
                           std::to_string(gpu::kMaxKernelFlags) + " allowed");
    else
        for (const std::string& flag : kernel.flags)
            if (const std::string problem = gpu::kernelFlagProblem(flag); !problem.empty())
                problems.push_back(problem);
    if (problems.empty())
        return gpu::Status::success();
    std::string message;
    for (const std::string& p : problems)
        message += (message.empty() ? "" : "; ") + p;
    return gpu::Status::failure(message);
}

bool isExample(const KernelScene& kernel)
{
    const auto& examples = gpu::kernelExamples();
    return std::any_of(examples.begin(), examples.end(), [&kernel](const gpu::KernelExample& e) {
        return e.source.shape == kernel.shape && e.source.code == kernel.source;
    });
}

} // namespace warpscope::scene
