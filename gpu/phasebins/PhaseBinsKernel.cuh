#pragma once

#include <cuda_runtime.h>

// The kernels of phase dispersion and conditional entropy: one block per frequency (looping
// over the grid a grid of blocks at a time), its bins in shared memory.
namespace warpscope::gpu {

// A PDM request on the device: dt and y as DispersionPlan holds them.
struct DispersionArgs
{
    const double* dt = nullptr;
    const double* y = nullptr;
    int n = 0;
    double fmin = 0.0, df = 0.0;
    long long count = 0;
    bool logGrid = false;
    int bins = 0, covers = 0;
    double sigma2 = 0.0;
};

// A conditional-entropy request on the device: dt and the magnitude bins as EntropyPlan holds
// them.
struct EntropyArgs
{
    const double* dt = nullptr;
    const int* magnitudeBin = nullptr;
    int n = 0;
    double fmin = 0.0, df = 0.0;
    long long count = 0;
    bool logGrid = false;
    int phaseBins = 0, magnitudeBins = 0;
    double inverseN = 0.0;
};

// Write args.count values into out (device memory) on stream; return the launch's error.
cudaError_t launchPhaseDispersion(const DispersionArgs& args, double* out, cudaStream_t stream);
cudaError_t launchConditionalEntropy(const EntropyArgs& args, double* out, cudaStream_t stream);

} // namespace warpscope::gpu
