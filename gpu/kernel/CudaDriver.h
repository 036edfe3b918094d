#pragma once

// The few driver API entries that users' kernels need (loading a CUBIN, launching it, asking
// its resources), reached through the runtime's cudaGetDriverEntryPointByVersion, so that no
// binary links libcuda and each starts on machines without a driver. For nvcc-compiled files.
#include "warpscope/gpu/Status.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <string>

namespace warpscope::gpu {

struct CudaDriver
{
    PFN_cuModuleLoadData_v2000 moduleLoad = nullptr;
    PFN_cuModuleUnload_v2000 moduleUnload = nullptr;
    PFN_cuModuleGetFunction_v2000 moduleGetFunction = nullptr;
    PFN_cuFuncGetAttribute_v2020 funcGetAttribute = nullptr;
    PFN_cuFuncSetAttribute_v9000 funcSetAttribute = nullptr;
    PFN_cuLaunchKernel_v4000 launchKernel = nullptr;
    PFN_cuGetErrorName_v6000 errorName = nullptr;
    PFN_cuGetErrorString_v6000 errorString = nullptr;
    Status loaded; // fails, naming the missing entry, where the driver lacks one
};

const CudaDriver& cudaDriver();

// A driver result as a Status naming what failed ("what failed: description (NAME)").
Status cuStatus(CUresult result, const char* what);

} // namespace warpscope::gpu

#define WS_CU_TRY(call)                                                                            \
    do {                                                                                           \
        if (const CUresult wsResult = (call); wsResult != CUDA_SUCCESS)                            \
            return ::warpscope::gpu::cuStatus(wsResult, #call);                                    \
    } while (0)
