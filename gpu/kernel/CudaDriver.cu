#include "kernel/CudaDriver.h"

#include <cuda_runtime.h>

namespace warpscope::gpu {
namespace {

template <typename Fn> bool entry(const char* name, unsigned version, Fn& fn, std::string& missing)
{
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    void* pointer = nullptr;
    if (cudaGetDriverEntryPointByVersion(name, &pointer, version, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess || !pointer) {
        cudaGetLastError();
        missing = name;
        return false;
    }
    fn = reinterpret_cast<Fn>(pointer);
    return true;
}

} // namespace

const CudaDriver& cudaDriver()
{
    static const CudaDriver loaded = [] {
        CudaDriver d;
        std::string missing;
        const bool ok = entry("cuModuleLoadData", 2000, d.moduleLoad, missing) &&
                        entry("cuModuleUnload", 2000, d.moduleUnload, missing) &&
                        entry("cuModuleGetFunction", 2000, d.moduleGetFunction, missing) &&
                        entry("cuFuncGetAttribute", 2020, d.funcGetAttribute, missing) &&
                        entry("cuFuncSetAttribute", 9000, d.funcSetAttribute, missing) &&
                        entry("cuLaunchKernel", 4000, d.launchKernel, missing) &&
                        entry("cuGetErrorName", 6000, d.errorName, missing) &&
                        entry("cuGetErrorString", 6000, d.errorString, missing);
        if (!ok)
            d.loaded = Status::failure("The CUDA driver does not offer " + missing +
                                       ", which user kernels need");
        return d;
    }();
    return loaded;
}

Status cuStatus(CUresult result, const char* what)
{
    if (result == CUDA_SUCCESS)
        return Status::success();
    const char* name = nullptr;
    const char* description = nullptr;
    if (cudaDriver().errorName)
        cudaDriver().errorName(result, &name);
    if (cudaDriver().errorString)
        cudaDriver().errorString(result, &description);
    return Status::failure(std::string(what) +
                           " failed: " + (description ? description : "unknown error") + " (" +
                           (name ? name : "?") + ")");
}

} // namespace warpscope::gpu
