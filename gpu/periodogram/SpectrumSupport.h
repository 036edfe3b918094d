#pragma once

#include "periodogram/SpectrumColumns.h"
#include "warpscope/gpu/Spectrum.h"

namespace warpscope::gpu {

math::SpectrumMapping spectrumMapping(const FrequencyGrid& grid, const SpectrumAxis& axis);

// A spectrum whose powers are in host memory: the CPU's, and a GPU's when it computes without
// a device-resident result.
class HostSpectrum final : public Spectrum
{
public:
    // Finds the peaks and the range of power (the host's reference for the device's search).
    HostSpectrum(std::vector<double> power, const FrequencyGrid& grid, double ms,
                 std::string method);

    Status read(std::span<double> power) const override;
    Status decimate(const SpectrumAxis& axis, std::span<float> vertices) const override;

private:
    std::vector<double> m_power;
};

// Checks the sizes of a decimation's inputs and outputs against its axis.
Status checkDecimation(const SpectrumAxis& axis, std::size_t vertexFloats);

} // namespace warpscope::gpu
