#pragma once

#include "periodogram/SpectrumColumns.h"
#include "warpscope/gpu/Backend.h"

namespace warpscope::gpu {

math::SpectrumMapping spectrumMapping(const FrequencyGrid& grid, const SpectrumAxis& axis);

// A spectrum whose powers are in host memory: the CPU backend's, and the CUDA backend's when
// it computes without a device-resident result.
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

// The host-copy path of Backend::fillSpectrum: vertices made where the spectrum lives, then
// uploaded with glBufferSubData. A GL context must be current.
Status uploadSpectrum(const Spectrum& spectrum, const SpectrumAxis& axis,
                      const GlVertexBuffer& target);

// Checks the sizes of a decimation's inputs and outputs against its axis.
Status checkDecimation(const SpectrumAxis& axis, std::size_t vertexFloats);

} // namespace warpscope::gpu
