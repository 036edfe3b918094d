#pragma once

#include "runtime/CpuContext.h"
#include "warpscope/gpu/Backend.h"

#include <vector>

namespace warpscope::gpu {

// Runs the shared math on all host cores. It also serves as the reference the CUDA backend
// is tested against.
class CpuBackend final : public Backend
{
public:
    explicit CpuBackend(unsigned threads = 0); // 0: one per core

    BackendKind kind() const override { return BackendKind::Cpu; }
    DisplayPath displayPath() const override { return DisplayPath::HostCopy; }
    std::string deviceName() const override;
    DeviceInfo deviceInfo() const override { return simulatedHopper(); }
    std::optional<DeviceMemory> deviceMemory() const override { return std::nullopt; }
    Status checkCapacity(const DistanceParams& params) const override;
    Status computeDistance(const DistanceParams& params, std::span<float> out) override;
    Status computeDistance(const DistanceParams& params, std::span<double> out) override;
    Status fillDistance(const DistanceParams& params, const GlBuffer& target) override;
    void forgetGlBuffer(unsigned int) override {}
    std::optional<double> lastKernelMs() override { return m_lastMs; }
    std::optional<FieldStats> lastStats() override { return m_lastStats; }
    Status runLesson(const DistanceParams& params, const LessonLaunch& lesson,
                     std::span<float> field, std::span<std::uint32_t> owners) override;
    Status timeKernel(const DistanceParams& params, int repetitions, double& medianMs) override;
    Status computePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                              std::span<double> power) override;
    Status computeSpectrum(const TimeSeries& series, const PeriodogramOptions& options,
                           std::shared_ptr<const Spectrum>& spectrum) override;
    Status fillSpectrum(const Spectrum& spectrum, const SpectrumAxis& axis,
                        const GlVertexBuffer& target) override;
    KernelOccupancy lessonOccupancy(Precision precision, long long blockThreads) override;
    KernelOccupancy periodogramOccupancy(Precision precision, long long blockThreads) override;
    Status fillLesson(const DistanceParams& params, const LessonLaunch& lesson,
                      const GlBuffer& field, const GlOwnerBuffer& owners) override;
    Status timeLesson(const DistanceParams& params, const LessonLaunch& lesson, int repetitions,
                      double& medianMs) override;
    void setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role) override;
    Status collectTimeline() override { return Status::success(); }
    Status runStreamsLab(const StreamsLabConfig& config, StreamsLabResult& result) override
    {
        return gpu::runStreamsLab(*m_context, config, result);
    }

private:
    CpuBacking& cpu() const { return cpuBacking(*m_context); }
    int workerLane(unsigned w) const { return cpu().workerLane(w); }
    Timeline* timeline() const { return m_context->timeline(); }

    template <typename Out> Status compute(const DistanceParams& params, std::span<Out> out);
    template <typename T, typename Out> void run(const DistanceParams& params, Out* out);

    std::unique_ptr<Context> m_context;
    ThreadPool& m_pool;
    std::vector<float> m_staging;
    std::optional<double> m_lastMs;
    std::optional<FieldStats> m_lastStats;
};

} // namespace warpscope::gpu
