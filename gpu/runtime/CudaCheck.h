#pragma once

#include "warpscope/gpu/Status.h"

#include <cuda_runtime.h>
#include <string>

namespace warpscope::gpu {

inline Status cudaStatus(cudaError_t error, const char* what)
{
    if (error == cudaSuccess)
        return Status::success();
    return Status::failure(std::string(what) + " failed: " + cudaGetErrorString(error) + " (" +
                           cudaGetErrorName(error) + ")");
}

} // namespace warpscope::gpu

// Returns a Status from the enclosing function when a CUDA call fails.
#define WS_CUDA_TRY(call)                                                                          \
    do {                                                                                           \
        if (const cudaError_t wsError = (call); wsError != cudaSuccess)                            \
            return ::warpscope::gpu::cudaStatus(wsError, #call);                                   \
    } while (0)
