#include "warpscope/scene/Options.h"

#include "OptionValues.h"
#include "SceneNames.h"

#include <QCommandLineParser>
#include <algorithm>
#include <array>

namespace warpscope::scene {
namespace {

using options::setChoice;
using options::text;
using T = OptionType;
using G = OptionGroup;
using Values = const QStringList&;

// Every option, grouped as --help lists them. A new control is one record here, or in
// SceneKeys.cpp when no command line sets it.
constexpr std::array kOptions{
    // The distance field.
    Option{.name = "lat-min",
           .type = T::Number,
           .valueName = "DEG",
           .help = "Southern edge of the mesh in degrees",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.latMin",
           .at = [](Scene& s) -> double& { return s.field.params.latMin; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setNumber(o, v.back(), s.field.params.latMin); },
           .range = OptionRange{-90, 90},
           .defaultValue = "29",
           .example = "-12.5"},
    Option{.name = "lat-max",
           .type = T::Number,
           .valueName = "DEG",
           .help = "Northern edge of the mesh in degrees",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.latMax",
           .at = [](Scene& s) -> double& { return s.field.params.latMax; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setNumber(o, v.back(), s.field.params.latMax); },
           .range = OptionRange{-90, 90},
           .defaultValue = "31",
           .example = "45"},
    Option{.name = "lon-min",
           .type = T::Number,
           .valueName = "DEG",
           .help = "Western edge of the mesh in degrees",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.lonMin",
           .at = [](Scene& s) -> double& { return s.field.params.lonMin; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setNumber(o, v.back(), s.field.params.lonMin); },
           .range = OptionRange{-180, 360},
           .defaultValue = "99",
           .example = "-10"},
    Option{.name = "lon-max",
           .type = T::Number,
           .valueName = "DEG",
           .help = "Eastern edge of the mesh in degrees",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.lonMax",
           .at = [](Scene& s) -> double& { return s.field.params.lonMax; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setNumber(o, v.back(), s.field.params.lonMax); },
           .range = OptionRange{-180, 360},
           .defaultValue = "101",
           .example = "120"},
    Option{.name = "nx",
           .type = T::Whole,
           .valueName = "N",
           .help = "Mesh nodes along longitude",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.nx",
           .at = [](Scene& s) -> int& { return s.field.params.nx; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setWhole(o, v.back(), s.field.params.nx); },
           .range = OptionRange{gpu::kMinMeshAxis, gpu::kMaxMeshAxis},
           .defaultValue = "1000",
           .example = "640"},
    Option{.name = "ny",
           .type = T::Whole,
           .valueName = "N",
           .help = "Mesh nodes along latitude",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.ny",
           .at = [](Scene& s) -> int& { return s.field.params.ny; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setWhole(o, v.back(), s.field.params.ny); },
           .range = OptionRange{gpu::kMinMeshAxis, gpu::kMaxMeshAxis},
           .defaultValue = "1000",
           .example = "480"},
    Option{.name = "ref",
           .type = T::Text,
           .valueName = "LAT,LON",
           .help = "Reference point; repeat for several, up to 64",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.references",
           .at = [](Scene& s) -> std::vector<gpu::GeoPoint>& { return s.field.params.references; },
           .apply = [](const Option&, Values v,
                       Scene& s) { return options::setReferences(v, s.field.params.references); },
           .defaultValue = "30,101",
           .example = "40,116"},
    Option{.name = "precision",
           .type = T::Text,
           .valueName = "float32|float64",
           .help = "The field's arithmetic precision",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.precision",
           .at = [](Scene& s) -> gpu::Precision& { return s.field.params.precision; },
           .apply =
               [](const Option& o, Values v, Scene& s) {
                   return setChoice(o, v.back(), kPrecisions, s.field.params.precision);
               },
           .defaultValue = "float32",
           .example = "float64"},
    Option{.name = "units",
           .type = T::Text,
           .valueName = "km|mi|nmi",
           .help = "Distance unit",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.unit",
           .at = [](Scene& s) -> gpu::DistanceUnit& { return s.field.params.unit; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return setChoice(o, v.back(), kUnits, s.field.params.unit); },
           .defaultValue = "km",
           .example = "nmi"},
    Option{
        .name = "radius",
        .type = T::Number,
        .valueName = "KM",
        .help = "Sphere radius in km",
        .group = G::Field,
        .programs = kApp,
        .sceneKey = "field.radiusKm",
        .at = [](Scene& s) -> double& { return s.field.params.radiusKm; },
        .apply = [](const Option& o, Values v,
                    Scene& s) { return options::setNumber(o, v.back(), s.field.params.radiusKm); },
        .range = OptionRange{gpu::kMinRadiusKm, gpu::kMaxRadiusKm},
        .defaultValue = "6371.0088",
        .example = "3389.5"},
    Option{.name = "colormap",
           .type = T::Text,
           .valueName = "NAME",
           .help = "Colormap: viridis, magma, inferno, cividis or turbo",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.colormap",
           .at = [](Scene& s) -> QString& { return s.field.colormap; },
           .apply =
               [](const Option&, Values v, Scene& s) {
                   s.field.colormap = v.back();
                   return QString();
               },
           .defaultValue = "viridis",
           .example = "magma"},
    Option{
        .name = "overlay",
        .type = T::Text,
        .valueName = "MODE",
        .help = "Run the teaching kernel (one node per thread) and colour nodes by: "
                "distance, block, thread, warp or sm; a user kernel (--kernel-source) also by its "
                "warps' memory behaviour, recorded by the simulator: sectors, conflicts or lanes",
        .group = G::Field,
        .programs = kApp,
        .sceneKey = "field.lesson.overlay",
        .at = [](Scene& s) -> LessonOverlay& { return s.field.lesson.overlay; },
        .apply = [](const Option& o, Values v,
                    Scene& s) { return setChoice(o, v.back(), kOverlays, s.field.lesson.overlay); },
        .example = "warp"},
    Option{.name = "block",
           .type = T::Text,
           .valueName = "X,Y,Z",
           .help = "Teaching kernel: threads per block (default 16,16,1)",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.lesson.block",
           .at = [](Scene& s) -> gpu::Dim3& { return s.field.lesson.launch.block; },
           .apply =
               [](const Option& o, Values v, Scene& s) {
                   return options::setDims(o, v.back(), s.field.lesson.launch.block);
               },
           .example = "32,8,1"},
    Option{.name = "grid",
           .type = T::Text,
           .valueName = "X,Y,Z",
           .help = "Teaching kernel: blocks per grid (default: enough to cover the mesh)",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.lesson.{grid,gridFitted}",
           .apply =
               [](const Option& o, Values v, Scene& s) {
                   s.field.lesson.gridFitted = false;
                   return options::setDims(o, v.back(), s.field.lesson.launch.grid);
               },
           .example = "63,63,1"},
    Option{.name = "grid-stride",
           .help = "Teaching kernel: loop over the mesh a grid at a time",
           .group = G::Field,
           .programs = kApp,
           .sceneKey = "field.lesson.gridStride",
           .at = [](Scene& s) -> bool& { return s.field.lesson.gridStride; },
           .apply =
               [](const Option&, Values, Scene& s) {
                   s.field.lesson.gridStride = true;
                   return QString();
               }},
    Option{.name = "sweep",
           .help = "Run the teaching kernel's block-size sweep on the mesh; "
                   "with --screenshot, save the sweep's window when it ends",
           .group = G::Field,
           .programs = kApp},

    // The periodogram.
    Option{.name = "periodogram",
           .help = "Open on the periodogram workspace (synthetic series)",
           .group = G::Periodogram,
           .programs = kApp},
    Option{.name = "series",
           .type = T::Text,
           .valueName = "FILE",
           .help = "A time series (CSV, TSV or whitespace: t, y, optional dy) for the "
                   "periodogram workspace",
           .group = G::Periodogram,
           .programs = kApp},
    Option{.name = "time-format",
           .type = T::Text,
           .valueName = "NAME",
           .help = "How --series writes its times (auto: detected): auto, number, "
                   "iso-8601-date (or iso), yyyymmdd, decimal-year, jd, mjd, hjd, bjd, btjd "
                   "or bkjd",
           .group = G::Periodogram,
           .programs = kApp,
           .defaultValue = "auto"},
    Option{.name = "frequencies",
           .type = T::Text,
           .valueName = "FMIN,FMAX,M[,log]",
           .help = "The grid: M frequencies from FMIN to FMAX in cycles per unit time, evenly "
                   "spaced, or with ,log logarithmically (default: the automatic grid)",
           .group = G::Periodogram,
           .sceneKey = "periodogram.{fmin,fmax,count,gridMode,unit}",
           .apply = [](const Option&, Values v,
                       Scene& s) { return options::setFrequencies(v.back(), s.periodogram); },
           .example = "0.01,5,20000,log"},
    Option{.name = "method",
           .type = T::Text,
           .valueName = "auto|direct|matrix",
           .help = "How CUDA computes the periodogram",
           .group = G::Periodogram,
           .sceneKey = "periodogram.method",
           .at = [](Scene& s) -> gpu::PeriodogramMethod& { return s.periodogram.method; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return setChoice(o, v.back(), kMethods, s.periodogram.method); },
           .defaultValue = "auto",
           .example = "matrix"},
    Option{.name = "normalization",
           .type = T::Text,
           .valueName = "NAME",
           .help = "The periodogram's normalisation: standard, model, log or psd",
           .group = G::Periodogram,
           .sceneKey = "periodogram.normalization",
           .at = [](Scene& s) -> gpu::Normalization& { return s.periodogram.normalization; },
           .apply =
               [](const Option& o, Values v, Scene& s) {
                   return setChoice(o, v.back(), kNormalizations, s.periodogram.normalization);
               },
           .defaultValue = "standard",
           .example = "psd"},
    Option{.name = "fixed-mean",
           .help = "Fit the sinusoids without an offset of their own (the classical "
                   "Lomb-Scargle; the default floats the mean)",
           .group = G::Periodogram,
           .sceneKey = "periodogram.fitMean",
           .at = [](Scene& s) -> bool& { return s.periodogram.fitMean; },
           .apply =
               [](const Option&, Values, Scene& s) {
                   s.periodogram.fitMean = false;
                   return QString();
               }},
    Option{.name = "no-dy",
           .help = "Ignore the uncertainties (dy): every point weighs the same",
           .group = G::Periodogram,
           .sceneKey = "periodogram.weights",
           .at = [](Scene& s) -> bool& { return s.periodogram.useErrors; },
           .apply =
               [](const Option&, Values, Scene& s) {
                   s.periodogram.useErrors = false;
                   return QString();
               }},
    Option{.name = "precision",
           .type = T::Text,
           .valueName = "float64|float32",
           .help = "The periodogram's arithmetic precision",
           .group = G::Periodogram,
           .programs = kBatch,
           .sceneKey = "periodogram.precision",
           .at = [](Scene& s) -> gpu::Precision& { return s.periodogram.precision; },
           .apply =
               [](const Option& o, Values v, Scene& s) {
                   return setChoice(o, v.back(), kPrecisions, s.periodogram.precision);
               },
           .defaultValue = "float64",
           .example = "float32"},
    Option{.name = "detrend",
           .type = T::Text,
           .valueName = "none|poly:N|median:W",
           .help = "Take a trend out of the series before its periodogram, computed on the "
                   "residuals: none, poly:N (a weighted least-squares polynomial of degree N, "
                   "0 to 5) or median:W (a running median over W units of time)",
           .group = G::Periodogram,
           .sceneKey = "periodogram.{detrend,detrendDegree,detrendWindow}",
           .apply = [](const Option&, Values v,
                       Scene& s) { return options::setDetrend(v.back(), s.periodogram.detrend); },
           .defaultValue = "none",
           .example = "poly:2"},
    Option{.name = "mask",
           .type = T::Text,
           .valueName = "T0:T1",
           .help = "Leave the points with T0 <= t <= T1 out of the detrending and the "
                   "periodogram; repeat for several ranges",
           .group = G::Periodogram,
           .sceneKey = "periodogram.masks",
           .at = [](Scene& s) -> std::vector<gpu::TimeRange>& { return s.periodogram.masks; },
           .apply = [](const Option&, Values v,
                       Scene& s) { return options::setMasks(v, s.periodogram.masks); },
           .example = "58010:58012.5"},
    Option{.name = "nterms",
           .type = T::Whole,
           .valueName = "K",
           .help = "Harmonics in the periodogram's model (astropy's nterms; 1 is the "
                   "sinusoid): more terms follow eclipses and other non-sinusoidal light curves",
           .group = G::Periodogram,
           .programs = kApp,
           .sceneKey = "periodogram.nterms",
           .at = [](Scene& s) -> int& { return s.periodogram.nterms; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setTerms(o, v.back(), s.periodogram.nterms); },
           .range = OptionRange{1, gpu::kMaxPeriodogramTerms},
           .defaultValue = "1",
           .example = "3"},
    Option{.name = "search",
           .type = T::Text,
           .valueName = "ls|bls|pdm|ce",
           .help = "The period search: ls (Lomb-Scargle, for sinusoids), bls (box least "
                   "squares, for transits), pdm (phase dispersion) or ce (conditional entropy), "
                   "both for eclipses and other shapes",
           .group = G::Periodogram,
           .programs = kApp,
           .sceneKey = "periodogram.search",
           .at = [](Scene& s) -> std::string& { return s.periodogram.search; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setSearch(o, v.back(), s.periodogram); },
           .defaultValue = "ls",
           .example = "bls"},
    Option{.name = "bls-durations",
           .type = T::Text,
           .valueName = "auto|D1,D2,...",
           .help = "Box least squares: the transit durations to try, in the data's unit of time "
                   "(auto: ten from three cadences to a tenth of the span, at most half a day)",
           .group = G::Periodogram,
           .programs = kApp,
           .sceneKey = "periodogram.blsDurations",
           .at = [](Scene& s) -> std::string& { return s.periodogram.blsDurations; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setBlsDurations(o, v.back(), s.periodogram); },
           .defaultValue = "auto",
           .example = "0.05,0.1,0.15"},
    Option{.name = "bls-objective",
           .type = T::Text,
           .valueName = "likelihood|snr",
           .help = "Box least squares: the best box is the one of highest log-likelihood or of "
                   "highest depth signal-to-noise",
           .group = G::Periodogram,
           .programs = kApp,
           .sceneKey = "periodogram.blsObjective",
           .at = [](Scene& s) -> std::string& { return s.periodogram.blsObjective; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setBlsObjective(o, v.back(), s.periodogram); },
           .defaultValue = "likelihood",
           .example = "snr"},
    Option{.name = "pdm-bins",
           .type = T::Whole,
           .valueName = "N",
           .help = "Phase dispersion: the phase bins of each cover",
           .group = G::Periodogram,
           .programs = kApp,
           .sceneKey = "periodogram.pdmBins",
           .at = [](Scene& s) -> int& { return s.periodogram.pdmBins; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setTerms(o, v.back(), s.periodogram.pdmBins); },
           .range = OptionRange{2, 1000},
           .defaultValue = "10",
           .example = "20"},
    Option{
        .name = "pdm-covers",
        .type = T::Whole,
        .valueName = "N",
        .help = "Phase dispersion: the covers, each shifted by a bin over their number "
                "(Stellingwerf's 10 x 2 scheme: --pdm-bins 10 --pdm-covers 2)",
        .group = G::Periodogram,
        .programs = kApp,
        .sceneKey = "periodogram.pdmCovers",
        .at = [](Scene& s) -> int& { return s.periodogram.pdmCovers; },
        .apply = [](const Option& o, Values v,
                    Scene& s) { return options::setTerms(o, v.back(), s.periodogram.pdmCovers); },
        .range = OptionRange{1, 100},
        .defaultValue = "2",
        .example = "3"},
    Option{.name = "ce-bins",
           .type = T::Whole,
           .valueName = "N",
           .help = "Conditional entropy: the phase bins",
           .group = G::Periodogram,
           .programs = kApp,
           .sceneKey = "periodogram.ceBins",
           .at = [](Scene& s) -> int& { return s.periodogram.ceBins; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setTerms(o, v.back(), s.periodogram.ceBins); },
           .range = OptionRange{2, 1000},
           .defaultValue = "10",
           .example = "20"},
    Option{.name = "ce-magnitude-bins",
           .type = T::Whole,
           .valueName = "N",
           .help = "Conditional entropy: the bins of the values, scaled to [0, 1]",
           .group = G::Periodogram,
           .programs = kApp,
           .sceneKey = "periodogram.ceMagnitudeBins",
           .at = [](Scene& s) -> int& { return s.periodogram.ceMagnitudeBins; },
           .apply =
               [](const Option& o, Values v, Scene& s) {
                   return options::setTerms(o, v.back(), s.periodogram.ceMagnitudeBins);
               },
           .range = OptionRange{2, 1000},
           .defaultValue = "5",
           .example = "8"},
    Option{.name = "prewhiten",
           .type = T::Whole,
           .valueName = "N",
           .help = "Prewhiten N times: fit the highest peak's sinusoid (frequency, amplitude, "
                   "phase), take it out and recompute, then fit all N together. The exports "
                   "are of the residuals and list the sinusoids; a window opens with them in "
                   "its prewhitening list",
           .group = G::Periodogram,
           .programs = kApp,
           .range = OptionRange{1, double(kMaxPrewhitened)}},
    Option{.name = "peaks",
           .type = T::Whole,
           .valueName = "K",
           .help = "Peaks kept per object",
           .group = G::Periodogram,
           .programs = kBatch,
           .range = OptionRange{1, gpu::kSpectrumMaxPeaks},
           .defaultValue = "3"},

    // The Kernel workspace.
    Option{.name = "kernel",
           .help = "Open on the Kernel workspace (a user's kernel, compiled live, drawn beside "
                   "its source)",
           .group = G::Kernel,
           .programs = kApp},
    Option{.name = "kernel-source",
           .type = T::Text,
           .valueName = "FILE",
           .help = "Open this kernel (a .cu file saved by the Kernel workspace, or any source) "
                   "on the Kernel workspace",
           .group = G::Kernel,
           .programs = kApp},
    Option{.name = "trust-kernel",
           .help = "Compile and run the kernel a --scene file holds without asking first (a "
                   "kernel is a program: trust its author). Without it, the window asks, and "
                   "--screenshot refuses a scene that opens on its kernel",
           .group = G::Kernel,
           .programs = kApp},

    // The streams lab.
    Option{.name = "streams-lab",
           .help = "Run the streams lab once the window is up (with --screenshot, the picture "
                   "waits for it)",
           .group = G::StreamsLab,
           .programs = kApp},
    Option{.name = "lab-arrays",
           .type = T::Whole,
           .valueName = "K",
           .help = "Arrays",
           .group = G::StreamsLab,
           .programs = kApp,
           .sceneKey = "lab.arrays",
           .at = [](Scene& s) -> int& { return s.lab.arrays; },
           .apply =
               [](const Option& o, Values v, Scene& s) {
                   bool ok = false;
                   const int arrays = v.back().trimmed().toInt(&ok);
                   if (!ok)
                       return options::flag(o) + " needs a whole number, not '" + v.back() + "'";
                   s.lab.arrays = arrays;
                   return QString();
               },
           .range = OptionRange{1, gpu::kStreamsLabMaxArrays},
           .defaultValue = "10",
           .example = "4"},
    Option{.name = "lab-length",
           .type = T::Whole,
           .valueName = "L",
           .help = "float32 values per array",
           .group = G::StreamsLab,
           .programs = kApp,
           .sceneKey = "lab.length",
           .at = [](Scene& s) -> long long& { return s.lab.length; },
           .apply = [](const Option& o, Values v,
                       Scene& s) { return options::setLabLength(o, v.back(), s.lab.length); },
           .range = OptionRange{1, double(gpu::kStreamsLabMaxLength)},
           .defaultValue = "10000000",
           .example = "1e6"},
    Option{.name = "lab-streams",
           .type = T::Text,
           .valueName = "1|k",
           .help = "One stream, or k streams",
           .group = G::StreamsLab,
           .programs = kApp,
           .sceneKey = "lab.multiStream",
           .at = [](Scene& s) -> bool& { return s.lab.multiStream; },
           .apply =
               [](const Option& o, Values v, Scene& s) {
                   return setChoice(o, v.back().toLower(), std::array{"1", "k"}, s.lab.multiStream);
               },
           .defaultValue = "k",
           .example = "1"},
    Option{.name = "lab-pageable",
           .help = "Use pageable instead of pinned memory",
           .group = G::StreamsLab,
           .programs = kApp,
           .sceneKey = "lab.pinned",
           .at = [](Scene& s) -> bool& { return s.lab.pinned; },
           .apply =
               [](const Option&, Values, Scene& s) {
                   s.lab.pinned = false;
                   return QString();
               }},
    Option{.name = "lab-ordered",
           .help = "With k streams, copies in order: a stream for the copies in, one for the "
                   "kernels and one for the copies out",
           .group = G::StreamsLab,
           .programs = kApp,
           .sceneKey = "lab.orderCopies",
           .at = [](Scene& s) -> bool& { return s.lab.orderCopies; },
           .apply =
               [](const Option&, Values, Scene& s) {
                   if (!s.lab.multiStream)
                       return QStringLiteral("--lab-ordered orders the copies of k streams; with "
                                             "--lab-streams 1 everything is in order already");
                   s.lab.orderCopies = true;
                   return QString();
               }},

    // warpscope-batch's input and run.
    Option{.name = "id-column",
           .type = T::Text,
           .valueName = "NAME",
           .help = "A table's object id column",
           .group = G::Batch,
           .programs = kBatch,
           .defaultValue = "id"},
    Option{.name = "time-column",
           .type = T::Text,
           .valueName = "NAME",
           .help = "A table's time column",
           .group = G::Batch,
           .programs = kBatch},
    Option{.name = "value-column",
           .type = T::Text,
           .valueName = "NAME",
           .help = "A table's value column",
           .group = G::Batch,
           .programs = kBatch},
    Option{.name = "error-column",
           .type = T::Text,
           .valueName = "NAME",
           .help = "A table's dy column, or - for none",
           .group = G::Batch,
           .programs = kBatch},
    Option{.name = "per-gpu",
           .type = T::Whole,
           .valueName = "K",
           .help = "Objects computed at once on each GPU, each on its own stream",
           .group = G::Batch,
           .programs = kBatch,
           .range = OptionRange{1, 64},
           .defaultValue = "3"},
    Option{.name = "threads",
           .type = T::Whole,
           .valueName = "N",
           .help = "CPU threads for the objects' host work (0: every core, shared by the MPI "
                   "ranks on one machine)",
           .group = G::Batch,
           .programs = kBatch,
           .range = OptionRange{0, 4096},
           .defaultValue = "0"},
    Option{.name = "limit",
           .type = T::Whole,
           .valueName = "N",
           .help = "Compute at most N objects this run",
           .group = G::Batch,
           .programs = kBatch},
    Option{.name = "checkpoint",
           .type = T::Number,
           .valueName = "S",
           .help = "Save the rows done every S seconds",
           .group = G::Batch,
           .programs = kBatch,
           .defaultValue = "30"},
    Option{.name = "quiet", .help = "No progress line", .group = G::Batch, .programs = kBatch},

    // What is written, and the picture.
    Option{.name = "output",
           .alias = "o",
           .type = T::Text,
           .valueName = "FILE.csv",
           .help = "The results table (CSV)",
           .group = G::Output,
           .programs = kBatch},
    Option{.name = "fits",
           .type = T::Text,
           .valueName = "FILE",
           .help = "The results as a FITS table (default: the output with .fits)",
           .group = G::Output,
           .programs = kBatch},
    Option{.name = "periodograms",
           .type = T::Text,
           .valueName = "FOLDER",
           .help = "Write each object's periodogram (frequency, period, power) as CSV into "
                   "this folder, as ID.periodogram.csv",
           .group = G::Output,
           .programs = kBatch},
    Option{.name = "trace",
           .type = T::Text,
           .valueName = "FILE.json",
           .help = "Write the run's timeline (every GPU stream's kernels and copies, the host "
                   "threads' work) as Chrome trace JSON, for Perfetto; under MPI each rank "
                   "writes FILE.rankR.json",
           .group = G::Output,
           .programs = kBatch},
    Option{.name = "screenshot",
           .type = T::Text,
           .valueName = "FILE",
           .help = "Render the scene, save a PNG of the whole window to FILE and exit. Saved "
                   "settings are not used",
           .group = G::Output,
           .programs = kApp},
    Option{.name = "size",
           .type = T::Text,
           .valueName = "WxH",
           .help = "Window size in pixels, from 320x240 to 16384x16384 (default: up to "
                   "1400x900, within the screen)",
           .group = G::Output,
           .programs = kApp},
    Option{.name = "export-periodogram",
           .type = T::Text,
           .valueName = "FILE",
           .help = "Write the periodogram as CSV (frequency, period, power; the header names "
                   "the time unit). Without --screenshot, no window opens: the app computes, "
                   "writes and exits",
           .group = G::Output,
           .programs = kApp},
    Option{.name = "export-peaks",
           .type = T::Text,
           .valueName = "FILE",
           .help = "Write the periodogram's highest peaks as JSON (frequency, period, power, "
                   "false-alarm probability, and the time unit); without --screenshot, no "
                   "window opens",
           .group = G::Output,
           .programs = kApp},
    Option{.name = "export-frequencies",
           .type = T::Text,
           .valueName = "FILE",
           .help = "Write the prewhitened sinusoids as CSV (frequency, period, amplitude, phase "
                   "and their errors); without --screenshot, no window opens",
           .group = G::Output,
           .programs = kApp},
    Option{.name = "export-trace",
           .type = T::Text,
           .valueName = "FILE",
           .help = "Write the timeline as Chrome trace JSON once the frame (and lab) is done",
           .group = G::Output,
           .programs = kApp},
    Option{.name = "export-field",
           .type = T::Text,
           .valueName = "FILE.npy",
           .help = "Write the field shown (the distance field, the teaching kernel's, or the "
                   "kernel's output with --kernel, --kernel-source or a kernel scene) as a "
                   "NumPy .npy file of float32, shape (ny, nx), row 0 at the minimum latitude, "
                   "NaN kept, and exit; no window opens",
           .group = G::Output,
           .programs = kApp},

    // Both programs, and the app's devices and settings.
    Option{.name = "scene",
           .type = T::Text,
           .valueName = "FILE",
           .help = "A scene file (File > Save Scene...). warpscope opens it, its settings "
                   "replacing saved ones; warpscope-batch takes its periodogram settings. The "
                   "other options given with it, before or after, override its values",
           .group = G::General},
    Option{.name = "backend",
           .type = T::Text,
           .valueName = "auto|cpu|cuda",
           .help = "Compute backend. auto: CUDA where it can run (warpscope: the GPU the "
                   "display runs on; warpscope-batch: every GPU), else the CPU",
           .group = G::General,
           .defaultValue = "auto"},
    Option{.name = "device",
           .type = T::Whole,
           .valueName = "N",
           .help = "The CUDA device the field computes on (default: the one the display runs "
                   "on)",
           .group = G::General,
           .programs = kApp},
    Option{.name = "no-interop",
           .help = "With CUDA, copy results through host memory instead of writing into "
                   "OpenGL directly",
           .group = G::General,
           .programs = kApp},
    Option{.name = "cupti",
           .help = "Time kernels and copies in the timeline with CUPTI's activity records "
                   "instead of CUDA events",
           .group = G::General,
           .programs = kApp},
    Option{.name = "reset-settings",
           .help = "Start from the default scene and forget saved settings",
           .group = G::General,
           .programs = kApp},
    Option{.name = "help", .alias = "h", .help = "Show this help and exit", .group = G::General},
    Option{
        .name = "version", .alias = "v", .help = "Show the version and exit", .group = G::General},
};

} // namespace

std::span<const Option> declaredOptions()
{
    return kOptions;
}

const Option* findOption(std::string_view name, Program program)
{
    for (const Option& option : kOptions)
        if (option.name == name && option.acceptedBy(program))
            return &option;
    return nullptr;
}

void addOptions(QCommandLineParser& parser, Program program)
{
    for (const Option& option : kOptions) {
        if (!option.acceptedBy(program))
            continue;
        QStringList names{text(option.name)};
        if (!option.alias.empty())
            names.prepend(text(option.alias));
        // The parser's own help is never shown, so its description stays empty.
        parser.addOption(option.valueName.empty()
                             ? QCommandLineOption(names)
                             : QCommandLineOption(names, QString(), text(option.valueName),
                                                  text(option.defaultValue)));
    }
}

GivenOptions::GivenOptions(const QCommandLineParser& parser, Program program,
                           bool (*which)(const Option& option))
{
    for (const Option& option : kOptions)
        if (option.apply && option.acceptedBy(program) && which(option) &&
            parser.isSet(text(option.name)))
            m_given.emplace_back(&option, parser.values(text(option.name)));
}

bool GivenOptions::has(std::string_view name) const
{
    return std::any_of(m_given.begin(), m_given.end(),
                       [name](const auto& given) { return given.first->name == name; });
}

QString GivenOptions::applyTo(Scene& scene) const
{
    for (const auto& [option, values] : m_given)
        if (QString problem = option->apply(*option, values, scene); !problem.isEmpty())
            return problem;
    return {};
}

QString applySceneOptions(const QCommandLineParser& parser, Program program, Scene& scene)
{
    return GivenOptions(parser, program, [](const Option&) { return true; }).applyTo(scene);
}

bool anyOptionSet(const QCommandLineParser& parser, Program program,
                  bool (*which)(const Option& option))
{
    for (const Option& option : kOptions)
        if (option.acceptedBy(program) && which(option) && parser.isSet(text(option.name)))
            return true;
    return false;
}

} // namespace warpscope::scene
