#pragma once

#include <optional>
#include <string>
#include <vector>

namespace warpscope::gpu {

enum class DeviceKind
{
    Cpu,
    Cuda
};

// One device that can compute: the host's cores, or a CUDA device by its index.
struct Device
{
    DeviceKind kind = DeviceKind::Cpu;
    int ordinal = 0; // the CUDA device index; 0 for the CPU

    bool operator==(const Device&) const = default;
};

// What a person asks to compute on (--backend): Auto takes a CUDA device when there is one.
enum class BackendKind
{
    Auto,
    Cpu,
    Cuda
};

const char* backendKindName(BackendKind kind);
// Parses "auto", "cpu" or "cuda".
std::optional<BackendKind> parseBackendKind(const std::string& text);

// Every device this build and machine can compute on: the CPU first, then each CUDA device.
std::vector<Device> listDevices();

// "CPU", or "GPU 1" for CUDA device 1: short enough for a status bar.
std::string deviceLabel(Device device);

// The names of the CUDA devices, by index (empty without CUDA).
std::vector<std::string> cudaDeviceNames();

} // namespace warpscope::gpu
