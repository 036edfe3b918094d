#include "CommandLine.h"

#include "warpscope/render/Colormap.h"
#include "warpscope/scene/KernelFile.h"
#include "warpscope/scene/SceneFile.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QRegularExpression>
#include <cmath>
#include <limits>

namespace warpscope::app {
namespace {

std::optional<double> parseNumber(const QString& text)
{
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (!ok)
        return std::nullopt;
    return v;
}

ParseResult fail(const QString& message)
{
    return {std::nullopt, 2,
            QStringLiteral("warpscope: ") + message + "\nTry 'warpscope --help'.\n"};
}

// The command line's names of the time formats: timeFormatName's, in lower case, with
// hyphens for blanks ("iso-8601-date", "decimal-year"), and "iso" for short.
QString timeFormatOption(gpu::TimeFormat format)
{
    return QString::fromUtf8(gpu::timeFormatName(format)).toLower().replace(' ', '-');
}

std::optional<gpu::TimeFormat> parseTimeFormat(const QString& text)
{
    const QString name = text.trimmed().toLower().replace(' ', '-');
    if (name == "auto" || name == "iso")
        return name == "iso" ? gpu::TimeFormat::IsoDate : gpu::TimeFormat::Auto;
    for (int f = int(gpu::TimeFormat::Auto); f <= int(gpu::TimeFormat::Bkjd); ++f)
        if (name == timeFormatOption(gpu::TimeFormat(f)))
            return gpu::TimeFormat(f);
    return std::nullopt;
}

// --detrend none, poly:N or median:W over base (the scene's), so the value not given keeps
// the scene's; a message when the text does not parse or the value is out of range.
std::optional<gpu::DetrendOptions> parseDetrend(const QString& text, gpu::DetrendOptions base,
                                                QString& problem)
{
    const QString name = text.section(':', 0, 0).trimmed().toLower();
    const QString value = text.section(':', 1);
    const bool hasValue = text.contains(':');
    bool ok = false;
    if (name == "none" && !hasValue) {
        base.method = gpu::DetrendMethod::None;
    } else if ((name == "poly" || name == "polynomial") && hasValue) {
        base.method = gpu::DetrendMethod::Polynomial;
        base.degree = value.trimmed().toInt(&ok);
        if (!ok) {
            problem = "--detrend poly:N needs a whole degree N, not '" + value + "'";
            return std::nullopt;
        }
    } else if (name == "median" && hasValue) {
        base.method = gpu::DetrendMethod::RunningMedian;
        base.window = value.trimmed().toDouble(&ok);
        if (!ok) {
            problem =
                "--detrend median:W needs a window W in the series' time unit, not '" + value + "'";
            return std::nullopt;
        }
    } else {
        problem = "--detrend must be none, poly:N (N = 0 to " +
                  QString::number(gpu::kMaxDetrendDegree) + ") or median:W, not '" + text + "'";
        return std::nullopt;
    }
    if (const gpu::Status s = gpu::validateDetrend(base); !s) {
        problem = "--detrend '" + text + "': " + QString::fromStdString(s.message());
        return std::nullopt;
    }
    return base;
}

QString timeFormatOptions()
{
    QStringList names{"auto"};
    for (int f = int(gpu::TimeFormat::Number); f <= int(gpu::TimeFormat::Bkjd); ++f)
        names << timeFormatOption(gpu::TimeFormat(f));
    return names.join(", ");
}

// An output file's folder must exist before any work starts, so that a typo costs nothing.
std::optional<QString> missingFolder(const QString& option, const QString& path)
{
    if (path.isEmpty())
        return option + " needs a file name";
    const QFileInfo file(path);
    if (file.isDir())
        return option + ": " + path + " is a folder, not a file";
    if (!QFileInfo(file.absolutePath()).isDir())
        return option + ": the folder " + file.absolutePath() + " does not exist";
    return std::nullopt;
}

// An input file must be one before any window opens: a missing file, a folder, a device or a
// pipe (which may never end, as /dev/zero) and an empty file are refused, named.
std::optional<QString> unreadableInput(const QString& option, const QString& path)
{
    if (path.isEmpty())
        return option + " needs a file name";
    const QFileInfo file(path);
    if (!file.exists())
        return option + ": " + path + ": no such file";
    if (file.isDir())
        return option + ": " + path + " is a folder, not a file";
    if (!file.isFile())
        return option + ": " + path + " is not a regular file (a device, a pipe or a socket)";
    if (!file.isReadable())
        return option + ": " + path + " cannot be read (permission denied)";
    if (file.size() == 0)
        return option + ": " + path + " is empty";
    return std::nullopt;
}

} // namespace

ParseResult parseCommandLine(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Warpscope: explore GPU kernels interactively. Computes the great-circle distance from\n"
        "every node of a latitude/longitude mesh to the nearest reference point, with CUDA\n"
        "writing straight into OpenGL, or on the CPU.");
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({"h", "help"}, "Show this help and exit.");
    const QCommandLineOption version({"v", "version"}, "Show the version and exit.");
    const QCommandLineOption backend(
        "backend", "Compute backend: auto (CUDA when the display runs on a CUDA GPU), cpu or cuda.",
        "auto|cpu|cuda", "auto");
    const QCommandLineOption noInterop(
        "no-interop",
        "With CUDA, copy results through host memory instead of writing into OpenGL directly.");
    const QCommandLineOption screenshot("screenshot",
                                        "Render the scene, save a PNG of the whole window to FILE "
                                        "and exit. Saved settings are not used.",
                                        "FILE");
    const QCommandLineOption size("size", "Window size in pixels (default 1400x900).", "WxH");
    const QCommandLineOption latMin("lat-min", "Southern edge of the mesh in degrees (default 29).",
                                    "DEG");
    const QCommandLineOption latMax("lat-max", "Northern edge of the mesh in degrees (default 31).",
                                    "DEG");
    const QCommandLineOption lonMin("lon-min", "Western edge of the mesh in degrees (default 99).",
                                    "DEG");
    const QCommandLineOption lonMax("lon-max", "Eastern edge of the mesh in degrees (default 101).",
                                    "DEG");
    const QCommandLineOption nx("nx", "Mesh nodes along longitude (default 1000).", "N");
    const QCommandLineOption ny("ny", "Mesh nodes along latitude (default 1000).", "N");
    const QCommandLineOption ref(
        "ref", "Reference point; repeat for several, up to 64 (default 30,101).", "LAT,LON");
    const QCommandLineOption precision(
        "precision", "Arithmetic precision: float32 or float64 (default float32).",
        "float32|float64");
    const QCommandLineOption units("units", "Distance unit: km, mi or nmi (default km).",
                                   "km|mi|nmi");
    const QCommandLineOption radius("radius", "Sphere radius in km (default 6371.0088).", "KM");
    const QCommandLineOption colormap(
        "colormap", "Colormap: viridis, magma, inferno, cividis or turbo.", "NAME");
    const QCommandLineOption reset("reset-settings",
                                   "Start from the default scene and forget saved settings.");
    const QCommandLineOption overlay("overlay",
                                     "Run the teaching kernel (one node per thread) and colour "
                                     "nodes by: distance, block, thread, warp or sm.",
                                     "MODE");
    const QCommandLineOption block("block", "Teaching kernel: threads per block (default 16,16,1).",
                                   "X,Y,Z");
    const QCommandLineOption grid(
        "grid", "Teaching kernel: blocks per grid (default: enough to cover the mesh).", "X,Y,Z");
    const QCommandLineOption gridStride("grid-stride",
                                        "Teaching kernel: loop over the mesh a grid at a time.");
    const QCommandLineOption lab("streams-lab",
                                 "Run the streams lab once the window is up (with --screenshot, "
                                 "the picture waits for it).");
    const QCommandLineOption labArrays("lab-arrays", "Streams lab: arrays K (default 10).", "K");
    const QCommandLineOption labLength(
        "lab-length", "Streams lab: float32 values per array L (default 10000000).", "L");
    const QCommandLineOption labStreams("lab-streams", "Streams lab: 1 or k streams (default k).",
                                        "1|k");
    const QCommandLineOption labPageable("lab-pageable",
                                         "Streams lab: use pageable instead of pinned memory.");
    const QCommandLineOption labOrdered(
        "lab-ordered", "Streams lab, k streams: copies in order, on a stream for the copies in, "
                       "one for the kernels and one for the copies out.");
    const QCommandLineOption exportTrace(
        "export-trace", "Write the timeline as Chrome trace JSON once the frame (and lab) is done.",
        "FILE");
    const QCommandLineOption cupti("cupti", "Time kernels and copies in the timeline with CUPTI's "
                                            "activity records instead of CUDA events.");
    const QCommandLineOption kernel("kernel", "Open on the Kernel workspace (a user's kernel, "
                                              "compiled live, drawn beside its source).");
    const QCommandLineOption kernelSource(
        "kernel-source",
        "Open this kernel (a .cu file saved by the Kernel workspace, or any "
        "source) on the Kernel workspace.",
        "FILE");
    const QCommandLineOption trustKernel(
        "trust-kernel",
        "Compile and run the kernel a --scene file holds without asking first (a kernel is a "
        "program: trust its author). Without it, the window asks, and --screenshot refuses a "
        "scene that opens on its kernel.");
    const QCommandLineOption periodogram("periodogram",
                                         "Open on the periodogram workspace (synthetic series).");
    const QCommandLineOption series("series",
                                    "A time series (CSV, TSV or whitespace: t, y, optional dy) "
                                    "for the periodogram workspace.",
                                    "FILE");
    const QCommandLineOption frequencies(
        "frequencies",
        "The periodogram's grid: FMIN,FMAX,M (M frequencies, cycles per unit time), evenly "
        "spaced, or with ,log logarithmically.",
        "FMIN,FMAX,M[,log]");
    const QCommandLineOption method(
        "method", "How CUDA computes the periodogram: auto, direct or matrix.", "METHOD", "auto");
    const QCommandLineOption normalization(
        "normalization",
        "The periodogram's normalisation: standard, model, log or psd (default standard).", "NAME");
    const QCommandLineOption fixedMean(
        "fixed-mean", "Fit the periodogram's sinusoids without an offset of their own (the "
                      "classical Lomb-Scargle; the default floats the mean).");
    const QCommandLineOption noDy("no-dy", "Ignore the series' uncertainties (dy): every point "
                                           "weighs the same.");
    const QCommandLineOption timeFormat(
        "time-format",
        "How --series writes its times (default auto, detected): auto, number, iso-8601-date "
        "(or iso), yyyymmdd, decimal-year, jd, mjd, hjd, bjd, btjd or bkjd.",
        "NAME");
    const QCommandLineOption detrend(
        "detrend",
        "Take a trend out of the series before its periodogram, computed on the residuals: "
        "none, poly:N (a weighted least-squares polynomial of degree N, 0 to 5) or median:W "
        "(a running median over W units of time).",
        "none|poly:N|median:W");
    const QCommandLineOption mask("mask",
                                  "Leave the points with T0 <= t <= T1 out of the detrending "
                                  "and the periodogram; repeat for several ranges.",
                                  "T0:T1");
    const QCommandLineOption nterms(
        "nterms",
        "Harmonics in the periodogram's model, 1 to 6 (astropy's nterms; default 1, the "
        "sinusoid): more terms follow eclipses and other non-sinusoidal light curves.",
        "K");
    const QCommandLineOption prewhiten(
        "prewhiten",
        "Prewhiten N times: fit the highest peak's sinusoid (frequency, amplitude, phase), take "
        "it out and recompute, then fit all N together. The exports are of the residuals and "
        "list the sinusoids; a window opens with them in its prewhitening list.",
        "N");
    const QCommandLineOption exportFrequencies(
        "export-frequencies",
        "Write the prewhitened sinusoids as CSV (frequency, period, amplitude, phase and their "
        "errors); without --screenshot, no window opens.",
        "FILE");
    const QCommandLineOption exportPeriodogram(
        "export-periodogram",
        "Write the periodogram as CSV (frequency, period, power; the header names the time "
        "unit). Without --screenshot, no window opens: the app computes, writes and exits.",
        "FILE");
    const QCommandLineOption exportPeaks(
        "export-peaks",
        "Write the periodogram's highest peaks as JSON (frequency, period, power, false-alarm "
        "probability, and the time unit); without --screenshot, no window opens.",
        "FILE");
    const QCommandLineOption sweep("sweep",
                                   "Run the teaching kernel's block-size sweep on the mesh; with "
                                   "--screenshot, save the sweep's window when it ends.");
    const QCommandLineOption device("device",
                                    "The CUDA device the field computes on (default: "
                                    "the one the display runs on).",
                                    "N");
    const QCommandLineOption sceneFile(
        "scene",
        "Open a scene file (File > Save Scene...): the mesh, colormap, launch, streams lab, "
        "periodogram and workspace it holds replace saved settings. The other options given "
        "with it, before or after, override its values.",
        "FILE");
    parser.addOptions({sceneFile,
                       trustKernel,
                       kernel,
                       kernelSource,
                       periodogram,
                       series,
                       frequencies,
                       method,
                       normalization,
                       fixedMean,
                       noDy,
                       timeFormat,
                       detrend,
                       mask,
                       nterms,
                       prewhiten,
                       exportPeriodogram,
                       exportPeaks,
                       exportFrequencies,
                       sweep,
                       device,
                       cupti});
    parser.addOptions({help,      version,    backend,     noInterop,  screenshot, size,
                       latMin,    latMax,     lonMin,      lonMax,     nx,         ny,
                       ref,       precision,  units,       radius,     colormap,   reset,
                       overlay,   block,      grid,        gridStride, lab,        labArrays,
                       labLength, labStreams, labPageable, labOrdered, exportTrace});
    parser.addPositionalArgument("", "", "");

    if (!parser.parse(arguments))
        return fail(parser.errorText());
    if (parser.isSet(help)) // parsed before QApplication exists, so Qt cannot name the program
        return {std::nullopt, 0,
                parser.helpText().replace("<executable_name>", QStringLiteral("warpscope"))};
    if (parser.isSet(version))
        return {std::nullopt, 0, QStringLiteral("warpscope " WARPSCOPE_VERSION "\n")};
    if (!parser.positionalArguments().isEmpty())
        return fail("unexpected argument '" + parser.positionalArguments().front() + "'");

    AppOptions o;
    o.launch.block = {16, 16, 1};
    if (parser.isSet(sceneFile)) {
        const QString path = parser.value(sceneFile);
        if (path.isEmpty())
            return fail("--scene needs a file name");
        o.scenePath = path;
        const scene::SceneRead read = scene::loadScene(path);
        if (!read.scene)
            return fail(read.error);
        const scene::FieldScene& field = read.scene->field;
        if (!render::loadColormap(field.colormap.toStdString()))
            return fail(path + ": field.colormap: unknown colormap '" + field.colormap + "'");
        o.scene = read.scene;
        o.sceneWarnings = read.warnings;
        o.sceneGiven = true;
        o.params = field.params;
        o.teaching = field.lesson.teaching;
        o.launch = field.lesson.launch;
        o.gridGiven = !field.lesson.gridFitted;
        o.gridStride = field.lesson.gridStride;
        o.overlay = int(field.lesson.overlay);
        o.lab = read.scene->lab.config();
    }
    const auto kind = gpu::parseBackendKind(parser.value(backend).toStdString());
    if (!kind)
        return fail("--backend must be auto, cpu or cuda, not '" + parser.value(backend) + "'");
    o.backend = *kind;
    o.forceHostCopy = parser.isSet(noInterop);
    o.screenshot = parser.value(screenshot);
    o.resetSettings = parser.isSet(reset);
    if (parser.isSet(screenshot) && o.screenshot.isEmpty())
        return fail("--screenshot needs a file name");
    if (parser.isSet(size)) {
        const auto m = QRegularExpression("^(\\d{2,5})x(\\d{2,5})$").match(parser.value(size));
        if (!m.hasMatch())
            return fail("--size must look like 1600x1000, not '" + parser.value(size) + "'");
        o.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
        if (o.size.width() < 320 || o.size.height() < 240 || o.size.width() > 16384 ||
            o.size.height() > 16384)
            return fail("--size must be between 320x240 and 16384x16384");
    }

    gpu::DistanceParams& p = o.params;
    const std::pair<const QCommandLineOption*, double*> doubles[] = {{&latMin, &p.latMin},
                                                                     {&latMax, &p.latMax},
                                                                     {&lonMin, &p.lonMin},
                                                                     {&lonMax, &p.lonMax},
                                                                     {&radius, &p.radiusKm}};
    for (const auto& [option, target] : doubles) {
        if (!parser.isSet(*option))
            continue;
        const auto v = parseNumber(parser.value(*option));
        if (!v)
            return fail("--" + option->names().front() + " needs a number, not '" +
                        parser.value(*option) + "'");
        *target = *v;
        o.sceneGiven = true;
    }
    const std::pair<const QCommandLineOption*, int*> ints[] = {{&nx, &p.nx}, {&ny, &p.ny}};
    for (const auto& [option, target] : ints) {
        if (!parser.isSet(*option))
            continue;
        bool ok = false;
        const long long v = parser.value(*option).trimmed().toLongLong(&ok);
        if (!ok)
            return fail("--" + option->names().front() + " needs a whole number, not '" +
                        parser.value(*option) + "'");
        // Within int, the scene's validation below names the value as it was typed.
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
            return fail("--" + option->names().front() + " must be between " +
                        QString::number(gpu::kMinMeshAxis) + " and " +
                        QString::number(gpu::kMaxMeshAxis) + ", not " + parser.value(*option));
        *target = int(v);
        o.sceneGiven = true;
    }
    if (parser.isSet(ref)) {
        p.references.clear();
        for (const QString& value : parser.values(ref)) {
            const QStringList parts = value.split(',');
            const auto lat = parts.size() == 2 ? parseNumber(parts[0]) : std::nullopt;
            const auto lon = parts.size() == 2 ? parseNumber(parts[1]) : std::nullopt;
            if (!lat || !lon)
                return fail("--ref needs LAT,LON such as 30,101, not '" + value + "'");
            p.references.push_back({*lat, *lon});
        }
        o.sceneGiven = true;
    }
    if (parser.isSet(precision)) {
        const QString v = parser.value(precision);
        if (v != "float32" && v != "float64")
            return fail("--precision must be float32 or float64, not '" + v + "'");
        p.precision = v == "float64" ? gpu::Precision::Float64 : gpu::Precision::Float32;
        o.sceneGiven = true;
    }
    if (parser.isSet(units)) {
        const QString v = parser.value(units);
        if (v == "km")
            p.unit = gpu::DistanceUnit::Kilometres;
        else if (v == "mi")
            p.unit = gpu::DistanceUnit::Miles;
        else if (v == "nmi")
            p.unit = gpu::DistanceUnit::NauticalMiles;
        else
            return fail("--units must be km, mi or nmi, not '" + v + "'");
        o.sceneGiven = true;
    }
    if (parser.isSet(colormap)) {
        o.colormap = parser.value(colormap);
        if (!render::loadColormap(o.colormap.toStdString()))
            return fail("unknown colormap '" + o.colormap + "'");
    }
    const auto parseDims = [&](const QCommandLineOption& option, gpu::Dim3& dims) {
        const QStringList parts = parser.value(option).split(',');
        bool ok = parts.size() == 3;
        long long v[3] = {1, 1, 1};
        for (int k = 0; ok && k < 3; ++k)
            v[k] = parts[k].trimmed().toLongLong(&ok);
        if (ok)
            dims = {v[0], v[1], v[2]};
        return ok;
    };
    if (parser.isSet(block) && !parseDims(block, o.launch.block))
        return fail("--block needs X,Y,Z such as 16,16,1, not '" + parser.value(block) + "'");
    if (parser.isSet(grid) && !parseDims(grid, o.launch.grid))
        return fail("--grid needs X,Y,Z such as 63,63,1, not '" + parser.value(grid) + "'");
    o.gridGiven = o.gridGiven || parser.isSet(grid);
    o.gridStride = o.gridStride || parser.isSet(gridStride);
    if (parser.isSet(overlay)) {
        const QStringList modes = {"distance", "block", "thread", "warp", "sm"};
        o.overlay = int(modes.indexOf(parser.value(overlay)));
        if (o.overlay < 0)
            return fail("--overlay must be distance, block, thread, warp or sm, not '" +
                        parser.value(overlay) + "'");
    }
    o.streamsLab = parser.isSet(lab) || parser.isSet(labArrays) || parser.isSet(labLength) ||
                   parser.isSet(labStreams) || parser.isSet(labPageable) ||
                   parser.isSet(labOrdered);
    if (parser.isSet(labArrays)) {
        bool ok = false;
        o.lab.arrays = parser.value(labArrays).trimmed().toInt(&ok);
        if (!ok)
            return fail("--lab-arrays needs a whole number, not '" + parser.value(labArrays) + "'");
    }
    if (parser.isSet(labLength)) {
        const auto v = parseNumber(parser.value(labLength));
        if (!v || *v != std::floor(*v) || std::abs(*v) > 1e18)
            return fail("--lab-length needs a whole number, not '" + parser.value(labLength) + "'");
        o.lab.length = static_cast<long long>(*v);
    }
    if (parser.isSet(labStreams)) {
        const QString v = parser.value(labStreams).toLower();
        if (v != "1" && v != "k")
            return fail("--lab-streams must be 1 or k, not '" + parser.value(labStreams) + "'");
        o.lab.multiStream = v == "k";
    }
    if (parser.isSet(labPageable))
        o.lab.pinned = false;
    if (parser.isSet(labOrdered)) {
        if (!o.lab.multiStream)
            return fail("--lab-ordered orders the copies of k streams; with --lab-streams 1 "
                        "everything is in order already");
        o.lab.orderCopies = true;
    }
    if (const auto problems = gpu::validateStreamsLab(o.lab); !problems.empty())
        return fail(QString::fromStdString(problems.front()));
    o.sweep = parser.isSet(sweep);
    if (parser.isSet(device)) {
        bool ok = false;
        o.device = parser.value(device).toInt(&ok);
        if (!ok || o.device < 0)
            return fail("--device needs a device number such as 0, not '" + parser.value(device) +
                        "'");
    }
    o.series = parser.value(series);
    o.kernelSource = parser.value(kernelSource);
    o.kernel = parser.isSet(kernel) || parser.isSet(kernelSource);
    o.periodogram =
        parser.isSet(periodogram) || parser.isSet(series) || parser.isSet(frequencies) ||
        parser.isSet(method) || parser.isSet(normalization) || parser.isSet(fixedMean) ||
        parser.isSet(noDy) || parser.isSet(timeFormat) || parser.isSet(detrend) ||
        parser.isSet(mask) || parser.isSet(exportPeriodogram) || parser.isSet(exportPeaks) ||
        parser.isSet(nterms) || parser.isSet(prewhiten) || parser.isSet(exportFrequencies) ||
        (o.scene && o.scene->workspace == scene::Workspace::Periodogram);
    if (parser.isSet(frequencies)) {
        const QStringList parts = parser.value(frequencies).split(',');
        bool ok[3] = {false, false, false};
        const bool spacingOk =
            parts.size() == 3 || (parts.size() == 4 && (parts[3] == "log" || parts[3] == "linear"));
        if (spacingOk) {
            const double fmin = parts[0].toDouble(&ok[0]), fmax = parts[1].toDouble(&ok[1]);
            const long long count = parts[2].toLongLong(&ok[2]);
            const bool logarithmic = parts.size() == 4 && parts[3] == "log";
            if (ok[0] && ok[1] && ok[2]) {
                // The panel's own check, so a grid it would refuse is refused here, at once.
                QStringList problems;
                for (const gpu::PeriodogramProblem& problem :
                     gpu::validateFrequencyRange(fmin, fmax, count, logarithmic))
                    problems << QString::fromStdString(problem.message);
                if (!problems.isEmpty())
                    return fail("--frequencies '" + parser.value(frequencies) +
                                "': " + problems.join("; "));
                o.frequencies = std::make_tuple(fmin, fmax, count, logarithmic);
            }
        }
        if (!o.frequencies)
            return fail("--frequencies needs FMIN,FMAX,M[,log] with 0 < FMIN < FMAX and 1 <= M "
                        "<= " +
                        QString::number(gpu::kMaxFrequencies) + ", not '" +
                        parser.value(frequencies) + "'");
    }
    if (parser.isSet(method)) {
        const QString m = parser.value(method);
        if (m == "auto")
            o.method = gpu::PeriodogramMethod::Auto;
        else if (m == "direct")
            o.method = gpu::PeriodogramMethod::Direct;
        else if (m == "matrix")
            o.method = gpu::PeriodogramMethod::Matrix;
        else
            return fail("--method must be auto, direct or matrix, not '" + m + "'");
    }

    if (parser.isSet(normalization)) {
        o.normalization = gpu::parseNormalization(parser.value(normalization).toStdString());
        if (!o.normalization)
            return fail("--normalization must be standard, model, log or psd, not '" +
                        parser.value(normalization) + "'");
    }
    o.fixedMean = parser.isSet(fixedMean);
    o.noDy = parser.isSet(noDy);
    if (parser.isSet(timeFormat)) {
        const auto format = parseTimeFormat(parser.value(timeFormat));
        if (!format)
            return fail("--time-format must be one of " + timeFormatOptions() + ", not '" +
                        parser.value(timeFormat) + "'");
        if (!parser.isSet(series))
            return fail("--time-format needs --series: the synthetic series has no time column");
        o.timeFormat = *format;
    }
    if (parser.isSet(detrend)) {
        QString problem;
        o.detrend =
            parseDetrend(parser.value(detrend),
                         o.scene ? o.scene->periodogram.detrend : gpu::DetrendOptions{}, problem);
        if (!o.detrend)
            return fail(problem);
    }
    if (parser.isSet(mask)) {
        std::vector<gpu::TimeRange> ranges;
        for (const QString& value : parser.values(mask)) {
            // Times may be negative, so the separator is the one ':' between two numbers.
            const QStringList parts = value.split(':');
            const auto t0 = parts.size() == 2 ? parseNumber(parts[0]) : std::nullopt;
            const auto t1 = parts.size() == 2 ? parseNumber(parts[1]) : std::nullopt;
            if (!t0 || !t1)
                return fail("--mask needs T0:T1, two times such as 58010:58012.5, not '" + value +
                            "'");
            ranges.push_back({*t0, *t1});
        }
        if (const gpu::Status s = gpu::validateMasks(ranges); !s)
            return fail("--mask: " + QString::fromStdString(s.message()));
        o.masks = std::move(ranges);
    }
    if (parser.isSet(nterms)) {
        bool ok = false;
        const int k = parser.value(nterms).toInt(&ok);
        if (!ok || k < 1 || k > gpu::kMaxPeriodogramTerms)
            return fail("--nterms must be a whole number from 1 to " +
                        QString::number(gpu::kMaxPeriodogramTerms) + ", not '" +
                        parser.value(nterms) + "'");
        o.nterms = k;
    }
    if (parser.isSet(prewhiten)) {
        bool ok = false;
        o.prewhiten = parser.value(prewhiten).toInt(&ok);
        if (!ok || o.prewhiten < 1 || std::size_t(o.prewhiten) > scene::kMaxPrewhitened)
            return fail("--prewhiten must be a whole number from 1 to " +
                        QString::number(scene::kMaxPrewhitened) + ", not '" +
                        parser.value(prewhiten) + "'");
    }
    const std::pair<const QCommandLineOption*, QString*> exports[] = {
        {&exportPeriodogram, &o.exportPeriodogram},
        {&exportPeaks, &o.exportPeaks},
        {&exportFrequencies, &o.exportFrequencies}};
    for (const auto& [option, target] : exports) {
        if (!parser.isSet(*option))
            continue;
        *target = parser.value(*option);
        if (const auto problem = missingFolder("--" + option->names().front(), *target))
            return fail(*problem);
    }
    if (o.exportsPeriodogram() && parser.isSet(sweep))
        return fail("--export-periodogram, --export-peaks and --export-frequencies cannot be "
                    "combined with --sweep");

    o.exportTrace = parser.value(exportTrace);
    o.cupti = parser.isSet(cupti);
    if (parser.isSet(exportTrace) && o.exportTrace.isEmpty())
        return fail("--export-trace needs a file name");
    o.teaching = o.teaching || parser.isSet(overlay) || parser.isSet(block) || parser.isSet(grid) ||
                 parser.isSet(gridStride);
    if (o.launch.block.x < 1 || o.launch.block.y < 1 || o.launch.block.z < 1)
        return fail("--block dimensions must be at least 1");
    if (!o.gridGiven) // cover the mesh
        o.launch.grid = {(std::max(p.nx, 1) + o.launch.block.x - 1) / o.launch.block.x,
                         (std::max(p.ny, 1) + o.launch.block.y - 1) / o.launch.block.y, 1};
    // Every GPU from compute capability 3.0 on has the same block and grid limits, so a launch
    // beyond them is a bad option before any window opens. What depends on the device (the
    // kernel's registers, the shared memory) is checked once it is known.
    if (o.teaching) {
        gpu::DeviceInfo everyGpu = gpu::simulatedHopper();
        everyGpu.name = "any CUDA GPU";
        if (const auto errors = gpu::validateLaunch(o.launch, everyGpu); !errors.empty())
            return fail(QString::fromStdString(errors.front().message));
    }
    if (const auto errors = gpu::validate(p); !errors.empty()) {
        QString message;
        for (const gpu::ParamError& e : errors)
            message += QString::fromStdString(e.message) + (&e == &errors.back() ? "" : "; ");
        return fail(message);
    }
    // The input files last, so that a mistyped option is named before a missing file.
    if (parser.isSet(series))
        if (const auto problem = unreadableInput("--series", o.series))
            return fail(*problem);
    if (parser.isSet(kernelSource)) {
        if (o.kernelSource.isEmpty())
            return fail("--kernel-source needs a file name");
        const scene::KernelFileRead read = scene::loadKernelFile(o.kernelSource);
        if (!read.kernel)
            return fail("--kernel-source: " + read.error);
        o.kernelFile = read.kernel;
    }
    o.trustKernel = parser.isSet(trustKernel);
    if (o.trustKernel && !o.scene)
        return fail("--trust-kernel runs the kernel of a --scene file, and no --scene is given");
    // A scene's kernel is a program from whoever wrote the file: a picture taken unattended
    // runs it only when told to.
    const bool batch =
        !o.screenshot.isEmpty() || !o.exportTrace.isEmpty() || o.exportsPeriodogram();
    const bool kernelShown =
        o.kernel || (!o.periodogram && o.scene && o.scene->workspace == scene::Workspace::Kernel);
    if (batch && kernelShown && o.scene && !scene::isExample(o.scene->kernel) && !o.kernelFile &&
        !o.trustKernel)
        return fail(o.scenePath + " holds a kernel of its own, which would be compiled and run: " +
                    "give --trust-kernel to run it, or --kernel-source FILE for another kernel");
    return {o, 0, {}};
}

} // namespace warpscope::app
