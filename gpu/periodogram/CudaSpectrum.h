#pragma once

#include "periodogram/SpectrumKernels.cuh"
#include "runtime/CudaEvent.h"
#include "runtime/CudaStream.h"
#include "warpscope/gpu/Spectrum.h"

#include <cuda_runtime.h>
#include <memory>

namespace warpscope::gpu {

// The stream on which a context's spectra copy and free their memory, shared by all of them
// and alive as long as one is.
class SpectrumStream
{
public:
    static Status create(int device, std::shared_ptr<SpectrumStream>& out);
    ~SpectrumStream();
    SpectrumStream(const SpectrumStream&) = delete;
    SpectrumStream& operator=(const SpectrumStream&) = delete;
    cudaStream_t get() const { return m_stream; }

private:
    SpectrumStream() = default;
    int m_device = 0;
    CudaStream m_stream;
};

// A periodogram in device memory. It copies on the shared spectrum stream and frees its
// memory stream-ordered, after the last work that read it, so dropping it never waits for
// the GPU.
class CudaSpectrum final : public Spectrum
{
public:
    // Room for grid.count powers on device, allocated in order on computeStream (where the
    // powers will be written), so nothing waits for the allocation.
    static Status create(int device, const FrequencyGrid& grid,
                         std::shared_ptr<const SpectrumStream> stream, cudaStream_t computeStream,
                         std::shared_ptr<CudaSpectrum>& out);
    ~CudaSpectrum() override;
    CudaSpectrum(const CudaSpectrum&) = delete;
    CudaSpectrum& operator=(const CudaSpectrum&) = delete;

    int device() const { return m_device; }
    double* power() const { return m_power; }
    // Takes the device's peak search's result.
    void setSummary(const SpectrumSummary& summary);
    void setComputeMs(double ms) { m_ms = ms; }
    void setMethod(std::string method) { m_method = std::move(method); }
    // Notes that work queued on stream reads the powers, so they outlive it.
    Status markUse(cudaStream_t stream) const;

    Status read(std::span<double> power) const override;
    Status decimate(const SpectrumAxis& axis, std::span<float> vertices) const override;

private:
    CudaSpectrum() = default;

    int m_device = 0;
    double* m_power = nullptr;
    std::shared_ptr<const SpectrumStream> m_stream;
    CudaEvent m_lastUse;
};

} // namespace warpscope::gpu
