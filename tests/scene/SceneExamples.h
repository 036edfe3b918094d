#pragma once

#include "warpscope/scene/Scene.h"

namespace warpscope::scene::examples {

// Every value differs from its default.
inline Scene unusualScene()
{
    Scene s;
    gpu::DistanceParams& p = s.field.params;
    p.latMin = -12.345678901234567;
    p.latMax = 45.5;
    p.lonMin = -170.25;
    p.lonMax = 120.125;
    p.nx = 321;
    p.ny = 123;
    p.references = {{1.5, 2.5}, {-3.0, 40.0}, {89.999, -179.5}};
    p.precision = gpu::Precision::Float64;
    p.unit = gpu::DistanceUnit::NauticalMiles;
    p.radiusKm = 3389.5;
    s.field.colormap = "magma";
    s.field.lesson = {true, {{32, 8, 1}, {7, 9, 1}, 0}, false, true, LessonOverlay::Warp};
    PeriodogramScene& g = s.periodogram;
    g.points = 1234;
    g.baseline = 55.5;
    g.noise = 0.125;
    g.period = 3.25;
    g.amplitude = 2.5;
    g.seed = 42;
    g.gridMode = GridMode::Logarithmic;
    g.samplesPerPeak = 7.5;
    g.nyquistFactor = 2.25;
    g.fmin = 0.01;
    g.fmax = 3.5;
    g.count = 30000;
    g.unit = FrequencyUnit::Angular;
    g.xAxis = FrequencyAxis::Period;
    g.logX = true;
    g.normalization = gpu::Normalization::Psd;
    g.fitMean = false;
    g.center = false;
    g.useErrors = false;
    g.precision = gpu::Precision::Float32;
    g.method = gpu::PeriodogramMethod::Matrix;
    g.peaks = 17;
    g.blockThreads = 256;
    g.gridBlocks = 12;
    g.gridStride = true;
    g.detrend = {gpu::DetrendMethod::RunningMedian, 4, 12.5};
    g.masks = {{58001.25, 58003.5}, {-1e9, -2.0}, {58010.0, 58010.0}};
    g.nterms = 4;
    g.search = "bls";
    g.blsDurations = "0.05,0.1";
    g.blsObjective = "snr";
    g.pdmBins = 20;
    g.pdmCovers = 3;
    g.ceBins = 12;
    g.ceMagnitudeBins = 8;
    g.prewhitened = {{0.731, 1.01, 0.122, 8e-5, 0.013, 0.002}, {1.173, 0.5, 0.0, 1e-4, 0.01, 0.0}};
    g.prewhitenEpoch = 2459050.0999238561;
    s.lab = {7, 123456, false, false, true, 99};
    s.kernel.shape = gpu::KernelShape::WholeKernel;
    s.kernel.source = "// @param float k = 1 [0, 2]\n__global__ void kernel(Out out, Mesh mesh, "
                      "Refs refs, Params p) {} // \"quoted\" \u00e9t\u00e9 \t\n";
    s.kernel.values = {{"k", 0.1f}, {"gain_2", -3.5e-7f}};
    s.kernel.flags = {"-use_fast_math", "-maxrregcount=32"};
    s.kernel.recordMemory = true;
    s.workspace = Workspace::Periodogram;
    return s;
}

// The Kernel workspace's scene, with a few other values changed.
inline Scene kernelScene()
{
    Scene s;
    s.workspace = Workspace::Kernel;
    s.field.lesson.teaching = true;
    s.field.lesson.overlay = LessonOverlay::Sm;
    s.periodogram.detrend = {gpu::DetrendMethod::Polynomial, 3, 10.0};
    s.periodogram.gridMode = GridMode::Linear;
    s.lab.multiStream = false;
    s.kernel.values = {{"gain", 2.0f}};
    return s;
}

} // namespace warpscope::scene::examples
