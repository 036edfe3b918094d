#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/StreamsLab.h"
#include "warpscope/gpu/Timeline.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpscope::gpu {

// How a backend's results reach an OpenGL buffer.
enum class DisplayPath
{
    Interop,  // the kernel writes into the mapped GL buffer; nothing crosses the host
    HostCopy, // results are computed into host memory, then uploaded with glBufferSubData
};

// An OpenGL buffer object, named by plain integers so this header needs no GL or CUDA types.
// It must hold layout.elementCount() float32 values.
struct GlBuffer
{
    unsigned int id = 0;
    FieldLayout layout;
};

// An OpenGL buffer for the teaching kernel's owner record: 2 * nodes 32-bit words.
struct GlOwnerBuffer
{
    unsigned int id = 0;
    std::size_t nodes = 0;
};

// An OpenGL buffer for a periodogram's line (gpu/Spectrum.h): room for `floats` float32
// values, kSpectrumFloatsPerColumn a pixel column.
struct GlVertexBuffer
{
    unsigned int id = 0;
    std::size_t floats = 0;
};

struct FieldStats
{
    double min = 0.0;
    double max = 0.0;
};

class Backend
{
public:
    virtual ~Backend() = default;

    virtual BackendKind kind() const = 0;
    virtual DisplayPath displayPath() const = 0;
    // Human-readable device, for example "NVIDIA H100 80GB HBM3" or "CPU, 16 threads".
    virtual std::string deviceName() const = 0;
    // The GPU's properties and launch limits; on the CPU, the simulated device's.
    virtual DeviceInfo deviceInfo() const = 0;
    // The device's memory now, for watching it over a long session; none on the CPU, whose
    // memory is the process's own, or where the driver cannot say.
    virtual std::optional<DeviceMemory> deviceMemory() const = 0;

    // Checks that a field with these parameters fits the backend's memory.
    virtual Status checkCapacity(const DistanceParams& params) const = 0;

    // Computes the field into host memory laid out as layoutFor(params), stats included.
    // Values are computed in params.precision.
    virtual Status computeDistance(const DistanceParams& params, std::span<float> out) = 0;
    virtual Status computeDistance(const DistanceParams& params, std::span<double> out) = 0;

    // Fills a GL buffer with the field as float32. A GL context must be current.
    virtual Status fillDistance(const DistanceParams& params, const GlBuffer& target) = 0;
    // Drops whatever the backend keeps for this GL buffer. A GL context must be current.
    virtual void forgetGlBuffer(unsigned int bufferId) = 0;

    // Duration of the last field computation, without blocking: std::nullopt while the
    // device has not finished it yet. CUDA times with events, the CPU with a steady clock.
    virtual std::optional<double> lastKernelMs() = 0;
    // The last field's minimum and maximum, without blocking (std::nullopt while pending).
    virtual std::optional<FieldStats> lastStats() = 0;

    // Runs the teaching kernel (LaunchLesson.h) with the user's launch, after checking it
    // against deviceInfo(). field is laid out as layoutFor(params); only the nodes a thread
    // reached are written, and the stats are not. owners holds 2 * nx * ny words. On the CPU
    // the kernel is simulated block by block with the same indices, and SM ids are
    // simulated: block index modulo the SM count.
    virtual Status runLesson(const DistanceParams& params, const LessonLaunch& lesson,
                             std::span<float> field, std::span<std::uint32_t> owners) = 0;

    // The teaching kernel's occupancy at a block size (LaunchConfig.h).
    using KernelOccupancy = gpu::KernelOccupancy;
    virtual KernelOccupancy lessonOccupancy(Precision precision, long long blockThreads) = 0;
    // The same for the periodogram's direct kernel on an evenly spaced grid.
    virtual KernelOccupancy periodogramOccupancy(Precision precision, long long blockThreads) = 0;
    // Median time of the teaching kernel over repeated launches (CUDA events; the simulator's
    // wall clock on the CPU), for the block-size sweep.
    virtual Status timeLesson(const DistanceParams& params, const LessonLaunch& lesson,
                              int repetitions, double& medianMs) = 0;

    // Runs the teaching kernel straight into GL buffers: the field (nodes no thread reaches
    // hold NaN; the stats slots the minimum and maximum of the nodes reached, also for
    // lastStats) and the owner record. CUDA writes both through interop; the CPU simulates
    // and uploads them. A GL context must be current.
    virtual Status fillLesson(const DistanceParams& params, const LessonLaunch& lesson,
                              const GlBuffer& field, const GlOwnerBuffer& owners) = 0;

    // Median kernel time over repeated launches into device memory, timed with CUDA events
    // (wall clock on the CPU). For benchmarks.
    virtual Status timeKernel(const DistanceParams& params, int repetitions, double& medianMs) = 0;

    // Computes the Lomb-Scargle periodogram of series at every frequency of options.grid into
    // power (grid.count values), with exact sums (no approximation) in options.precision.
    virtual Status computePeriodogram(const TimeSeries& series, const PeriodogramOptions& options,
                                      std::span<double> power) = 0;

    // Computes the periodogram like computePeriodogram but keeps it where it was computed:
    // in device memory on CUDA, with its peaks and range found there (only they come back).
    virtual Status computeSpectrum(const TimeSeries& series, const PeriodogramOptions& options,
                                   std::shared_ptr<const Spectrum>& spectrum) = 0;
    // Writes the line of spectrum for axis into target. With interop, and a spectrum in this
    // device's memory, CUDA decimates it straight into the mapped buffer; otherwise the
    // vertices are made where the spectrum lives and uploaded with glBufferSubData. A GL
    // context must be current.
    virtual Status fillSpectrum(const Spectrum& spectrum, const SpectrumAxis& axis,
                                const GlVertexBuffer& target) = 0;

    // Records every operation from now on as spans in timeline (null stops recording). GPU
    // spans are timed with CUDA events on the operation's stream and resolved later by
    // collectTimeline, so recording never waits for the device.
    // role names this backend's lanes ("field", "periodogram", ...), so several backends can
    // share one timeline.
    virtual void setTimeline(std::shared_ptr<Timeline> timeline, const std::string& role) = 0;
    // Moves the spans whose events have completed into the timeline, without blocking. Fails
    // when spans could not be recorded since the last call (for example, no CUDA events
    // could be created); the timeline then lacks those spans.
    virtual Status collectTimeline() = 0;

    // Runs the streams lab (StreamsLab.h) and checks its outputs; blocks until done. The
    // spans of the run go to the timeline. Fails, with nothing run, when the arrays do not
    // fit in host or device memory.
    virtual Status runStreamsLab(const StreamsLabConfig& config, StreamsLabResult& result) = 0;
};

// Uploads host values into a GL buffer with glBufferSubData (a GL context must be current).
// For fields a backend computed into host memory, on another thread.
Status uploadField(const GlBuffer& target, std::span<const float> values);

struct BackendSelection
{
    std::unique_ptr<Backend> backend; // null when the request cannot be met
    std::string reason;               // why this backend, or why none, for the status bar
};

struct BackendOptions
{
    // A GL context is current and results are meant for it: interop is checked against it.
    bool glContextCurrent = false;
    // Use the host-copy path even where interop would work (for comparison and debugging).
    bool forceHostCopy = false;
    // A CUDA device index; -1: the one the GL context runs on, or else the first. A device
    // the context does not run on computes through the host-copy path.
    int device = -1;
};

// Picks a backend at run time. With a current GL context, Auto uses CUDA only when that
// context runs on a CUDA device (interop); otherwise it picks the CPU backend and the reason
// says why. Asking for Cuda explicitly falls back to the host-copy path when GL is on
// another GPU, and fails (null backend, reason set) when there is no CUDA device.
BackendSelection createBackend(BackendKind requested, const BackendOptions& options = {});

// Whether this build contains the CUDA backend.
bool cudaCompiledIn();

} // namespace warpscope::gpu
