#include "periodogram/CudaSpectrum.h"
#include "periodogram/SpectrumKernels.cuh"
#include "periodogram/SpectrumSupport.h"
#include "runtime/CudaCheck.h"

#include <algorithm>

namespace warpscope::gpu {
namespace {

// Device memory for the duration of one call, freed on its stream.
struct StreamBuffer
{
    void* pointer = nullptr;
    cudaStream_t stream = nullptr;
    ~StreamBuffer()
    {
        if (pointer)
            cudaFreeAsync(pointer, stream);
    }
};

} // namespace

Status SpectrumStream::create(int device, std::shared_ptr<SpectrumStream>& out)
{
    std::shared_ptr<SpectrumStream> s(new SpectrumStream);
    s->m_device = device;
    WS_CUDA_TRY(cudaSetDevice(device));
    WS_CUDA_TRY(s->m_stream.create());
    out = std::move(s);
    return Status::success();
}

SpectrumStream::~SpectrumStream()
{
    // The stream is destroyed on its device; that returns at once, and queued frees still run.
    cudaSetDevice(m_device);
}

Status CudaSpectrum::create(int device, const FrequencyGrid& grid,
                            std::shared_ptr<const SpectrumStream> stream,
                            cudaStream_t computeStream, std::shared_ptr<CudaSpectrum>& out)
{
    std::shared_ptr<CudaSpectrum> s(new CudaSpectrum);
    s->m_device = device;
    s->m_grid = grid;
    s->m_stream = std::move(stream);
    WS_CUDA_TRY(cudaSetDevice(device));
    WS_CUDA_TRY(s->m_lastUse.create(cudaEventDisableTiming));
    int pools = 0;
    cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device);
    if (!pools)
        return Status::failure("The periodogram needs stream-ordered memory (CUDA memory "
                               "pools), which this GPU or driver lacks");
    const std::size_t bytes = std::size_t(grid.count) * sizeof(double);
    if (const cudaError_t e =
            cudaMallocAsync(reinterpret_cast<void**>(&s->m_power), bytes, computeStream);
        e != cudaSuccess) {
        cudaGetLastError();
        return Status::failure("Could not allocate " + std::to_string(bytes >> 20) +
                               " MiB of GPU memory for the periodogram: " + cudaGetErrorString(e));
    }
    // The free waits for this at least, however the spectrum is used.
    if (Status marked = s->markUse(computeStream); !marked)
        return marked;
    out = std::move(s);
    return Status::success();
}

CudaSpectrum::~CudaSpectrum()
{
    cudaSetDevice(m_device);
    if (m_power) {
        cudaStreamWaitEvent(m_stream->get(), m_lastUse, 0);
        cudaFreeAsync(m_power, m_stream->get());
    }
}

Status CudaSpectrum::markUse(cudaStream_t stream) const
{
    WS_CUDA_TRY(cudaEventRecord(m_lastUse, stream));
    return Status::success();
}

void CudaSpectrum::setSummary(const SpectrumSummary& summary)
{
    m_min = summary.min;
    m_max = summary.max;
    m_nonFinite = summary.nonFinite;
    m_peaks.clear();
    for (int j = 0; j < summary.peaks; ++j)
        m_peaks.push_back({summary.index[j], m_grid.frequency(summary.index[j]), summary.power[j]});
}

Status CudaSpectrum::read(std::span<double> power) const
{
    if (power.size() < std::size_t(m_grid.count))
        return Status::failure("The output is smaller than the periodogram");
    WS_CUDA_TRY(cudaSetDevice(m_device));
    WS_CUDA_TRY(cudaMemcpyAsync(power.data(), m_power, std::size_t(m_grid.count) * sizeof(double),
                                cudaMemcpyDeviceToHost, m_stream->get()));
    WS_CUDA_TRY(cudaStreamSynchronize(m_stream->get()));
    return Status::success();
}

Status CudaSpectrum::decimate(const SpectrumAxis& axis, std::span<float> vertices) const
{
    if (Status s = checkDecimation(axis, vertices.size()); !s)
        return s;
    WS_CUDA_TRY(cudaSetDevice(m_device));
    const std::size_t bytes = std::size_t(axis.columns) * kSpectrumFloatsPerColumn * sizeof(float);
    const cudaStream_t stream = m_stream->get();
    StreamBuffer device{nullptr, stream};
    WS_CUDA_TRY(cudaMallocAsync(&device.pointer, bytes, stream));
    WS_CUDA_TRY(launchSpectrumColumns(m_power, spectrumMapping(m_grid, axis),
                                      static_cast<float*>(device.pointer), stream));
    WS_CUDA_TRY(
        cudaMemcpyAsync(vertices.data(), device.pointer, bytes, cudaMemcpyDeviceToHost, stream));
    WS_CUDA_TRY(cudaStreamSynchronize(stream));
    return Status::success();
}

} // namespace warpscope::gpu
