#pragma once

#include "warpscope/gpu/Detrend.h"
#include "warpscope/gpu/Device.h"
#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/StreamsLab.h"
#include "warpscope/gpu/TimeSeriesIO.h"
#include "warpscope/scene/Options.h"
#include "warpscope/scene/Scene.h"

#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>
#include <tuple>

namespace warpscope::app {

struct AppOptions
{
    // A scene file (--scene), applied first; the options below start from its values, so
    // the ones given override it.
    std::optional<scene::Scene> scene;
    QStringList sceneWarnings; // its keys that were ignored
    gpu::DistanceParams params;
    bool sceneGiven = false; // some scene option was given; it overrides saved settings
    QString colormap;
    gpu::BackendKind backend = gpu::BackendKind::Auto;
    bool forceHostCopy = false;
    int device = -1; // --device
    QString screenshot;
    QSize size; // --size; without it, the window fits the screen it opens on
    bool resetSettings = false;
    // The teaching kernel, when any of its options is given.
    bool teaching = false;
    gpu::LaunchConfig launch;
    bool gridGiven = false; // else the grid is fitted to the mesh
    bool gridStride = false;
    int overlay = 0; // render::Overlay
    // The streams lab, run once the window is up when asked for.
    bool streamsLab = false;
    gpu::StreamsLabConfig lab;
    QString exportTrace;      // the timeline as Chrome trace JSON, written after the lab or frame
    bool cupti = false;       // time kernels and copies with CUPTI
    bool periodogram = false; // open on the periodogram workspace
    bool kernel = false;      // open on the Kernel workspace
    QString kernelSource;     // a .cu file to open there, read as kernelFile
    std::optional<gpu::KernelSource> kernelFile;
    QString scenePath;        // --scene's file, named where its kernel waits for Run
    bool trustKernel = false; // --trust-kernel: the scene's kernel runs without asking
    bool sweep = false;       // run the block-size sweep (--screenshot saves its plot)
    QString series;           // a time series file for it
    // The periodogram's scene options given (--frequencies, --search, --nterms...), to apply
    // over the scene's values: the --scene file's or the defaults' (periodogramScene) for the
    // command line's own computation, the window's saved ones for a window.
    scene::GivenOptions periodogramGiven;
    scene::PeriodogramScene periodogramScene;
    gpu::TimeFormat timeFormat = gpu::TimeFormat::Auto;
    int prewhiten = 0;         // --prewhiten N: find, fit and take out N sinusoids
    QString exportPeriodogram; // CSV: frequency, period, power
    QString exportPeaks;       // JSON: the highest peaks and the prewhitened sinusoids
    QString exportFrequencies; // CSV: the prewhitened sinusoids
    QString exportField;       // .npy: the field shown, written without a window

    bool exportsPeriodogram() const
    {
        return !exportPeriodogram.isEmpty() || !exportPeaks.isEmpty() ||
               !exportFrequencies.isEmpty();
    }
    // The Kernel workspace is shown, and with it the kernel's output rather than the field.
    bool kernelShown() const
    {
        return kernel || (!periodogram && scene && scene->workspace == scene::Workspace::Kernel);
    }
    // An export without a picture, trace or lab to wait for: computed without a window.
    bool headless() const
    {
        return exportsPeriodogram() && screenshot.isEmpty() && exportTrace.isEmpty() && !streamsLab;
    }
};

struct ParseResult
{
    std::optional<AppOptions> options; // empty: exit with exitCode after printing output
    int exitCode = 0;
    QString output; // for stdout (help, version) or stderr (errors)
};

// Parses the command line (arguments[0] is the program). Scene options start from the
// default scene, and the result is validated: bad values give exit code 2 and a message.
ParseResult parseCommandLine(const QStringList& arguments);

} // namespace warpscope::app
