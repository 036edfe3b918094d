// NVRTC, linked from the CUDA toolkit: compiles a translation unit to PTX and CUBIN for an
// architecture, with no device.
#include "kernel/KernelShared.h"

#include <climits>
#include <dlfcn.h>
#include <memory>
#include <nvrtc.h>

namespace warpscope::gpu {
namespace {

Status nvrtcStatus(nvrtcResult result, const char* what)
{
    if (result == NVRTC_SUCCESS)
        return Status::success();
    return Status::failure(std::string(what) + " failed: " + nvrtcGetErrorString(result));
}

struct ProgramDeleter
{
    void operator()(_nvrtcProgram* program) const { nvrtcDestroyProgram(&program); }
};

// NVRTC loads its builtins library by name at its first compile, and fails with
// NVRTC_ERROR_BUILTIN_OPERATION_FAILURE where the toolkit's folder is not on the loader's path
// (a CUDA install that ld.so.conf does not name, a clean root, a bundle): the executable's
// RUNPATH found libnvrtc but does not apply to libnvrtc's own loads. Loading the builtins
// first, from the folder libnvrtc came from, makes the name known to the loader.
void loadBuiltins()
{
    static const bool loaded = [] {
        int major = 0, minor = 0;
        if (::nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
            return false;
        void* self =
            dlopen(("libnvrtc.so." + std::to_string(major)).c_str(), RTLD_NOW | RTLD_NOLOAD);
        char folder[PATH_MAX] = {};
        if (!self || dlinfo(self, RTLD_DI_ORIGIN, folder) != 0)
            return false;
        const std::string builtins = std::string(folder) + "/libnvrtc-builtins.so." +
                                     std::to_string(major) + "." + std::to_string(minor);
        return dlopen(builtins.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr;
    }();
    (void)loaded; // where it failed, NVRTC's own search may still succeed
}

} // namespace

bool nvrtcAvailable()
{
    int major = 0, minor = 0;
    return ::nvrtcVersion(&major, &minor) == NVRTC_SUCCESS;
}

std::string nvrtcVersion()
{
    int major = 0, minor = 0;
    if (::nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return {};
    return std::to_string(major) + "." + std::to_string(minor);
}

Status nvrtcBuild(const std::string& text, const std::vector<std::string>& options,
                  const std::string& nameExpression, NvrtcOutput& out)
{
    out = {};
    loadBuiltins();
    nvrtcProgram raw = nullptr;
    if (Status s =
            nvrtcStatus(nvrtcCreateProgram(&raw, text.c_str(), "wrapper", 0, nullptr, nullptr),
                        "Creating the NVRTC program");
        !s)
        return s;
    const std::unique_ptr<_nvrtcProgram, ProgramDeleter> program(raw);
    if (Status s = nvrtcStatus(nvrtcAddNameExpression(raw, nameExpression.c_str()),
                               "Naming the kernel for NVRTC");
        !s)
        return s;
    std::vector<const char*> argv;
    for (const std::string& option : options)
        argv.push_back(option.c_str());
    const nvrtcResult compiled = nvrtcCompileProgram(raw, int(argv.size()), argv.data());
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(raw, &size) == NVRTC_SUCCESS && size > 1) {
        out.log.resize(size);
        nvrtcGetProgramLog(raw, out.log.data());
        out.log.resize(size - 1);
    }
    if (compiled == NVRTC_ERROR_COMPILATION)
        return Status::success();
    if (Status s = nvrtcStatus(compiled, "NVRTC's compilation"); !s)
        return s;
    out.compiled = true;
    if (Status s = nvrtcStatus(nvrtcGetPTXSize(raw, &size), "Reading the PTX's size"); !s)
        return s;
    out.ptx.resize(size);
    if (Status s = nvrtcStatus(nvrtcGetPTX(raw, out.ptx.data()), "Reading the PTX"); !s)
        return s;
    if (!out.ptx.empty() && out.ptx.back() == '\0')
        out.ptx.pop_back();
    if (Status s = nvrtcStatus(nvrtcGetCUBINSize(raw, &size), "Reading the CUBIN's size"); !s)
        return s;
    out.cubin.resize(size);
    if (Status s = nvrtcStatus(nvrtcGetCUBIN(raw, out.cubin.data()), "Reading the CUBIN"); !s)
        return s;
    const char* lowered = nullptr;
    if (Status s = nvrtcStatus(nvrtcGetLoweredName(raw, nameExpression.c_str(), &lowered),
                               "Finding the kernel's name");
        !s)
        return s;
    out.entry = lowered;
    return Status::success();
}

} // namespace warpscope::gpu
