// warpscope-batch: the periodogram workspace's analysis over a whole catalogue, on every
// device of the machine or, under mpirun, of every machine.
#include "BatchRun.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/scene/BatchSource.h"
#include "warpscope/scene/SceneFile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <unistd.h>

using namespace warpscope;

namespace {

std::atomic<bool> g_stop{false};

// Ctrl+C (or mpirun passing it on): finish the objects under way, save, merge, leave. A
// second one ends the process at once; the parts saved so far are resumed by the next run.
extern "C" void onStop(int signal)
{
    g_stop.store(true);
    std::signal(signal, SIG_DFL);
}

int badOption(const QString& message)
{
    std::fprintf(stderr, "warpscope-batch: %s\nRun warpscope-batch --help for the options.\n",
                 qPrintable(message));
    return 2;
}

std::optional<double> number(const QString& text)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    return ok && std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

// Why files cannot be created in folder (named for option), or nothing when they can: a file
// is made there and removed, so that a read-only place is found before any work, not after.
QString unwritableFolder(const QString& option, const QString& folder)
{
    if (!QFileInfo(folder).isDir())
        return option + ": the folder " + folder + " does not exist";
    std::string probe = (folder + "/.warpscope-batch-XXXXXX").toStdString();
    const int descriptor = ::mkstemp(probe.data());
    if (descriptor < 0)
        return option + ": cannot write in the folder " + folder + ": " +
               QString::fromLocal8Bit(std::strerror(errno));
    ::close(descriptor);
    ::unlink(probe.c_str());
    return {};
}

// Why the file path (named for option) could not be written, or nothing: its folder takes
// files, and the path is not a folder or another kind of file.
QString unwritableFile(const QString& option, const QString& path)
{
    const QFileInfo file(path);
    if (file.exists() && !file.isFile())
        return option + ": " + path + " exists and is not a file";
    return unwritableFolder(option, file.absolutePath());
}

// Makes --periodograms' folder, and its parents, as mkdir -p would; why it cannot hold the
// periodograms, or nothing.
QString makePeriodogramFolder(const QString& folder)
{
    std::error_code error;
    std::filesystem::create_directories(folder.toStdString(), error);
    if (!QFileInfo(folder).isDir())
        return "--periodograms: cannot make the folder " + folder + ": " +
               QString::fromStdString(error ? error.message() : "a file of that name is there");
    return unwritableFolder("--periodograms", folder);
}

struct Parsed
{
    std::string input;
    bool table = false;
    gpu::TableColumns columns;
    gpu::TimeFormat timeFormat = gpu::TimeFormat::Auto;
    batch::RunOptions run;
};

// Reads the options into parsed; an error message for a bad one.
QString parseOptions(const QStringList& arguments, Parsed& parsed, bool& exitNow)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Computes the Lomb-Scargle periodogram of every object of a catalogue, as the "
        "periodogram workspace would, and writes a results table in CSV and FITS: each "
        "object's id, points, best period with its power and false-alarm probability, its "
        "highest peaks and any warnings. A second run with the same output resumes.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        "input", "A folder or a quoted glob of light-curve files (CSV, TSV, FITS), or one CSV "
                 "or FITS table of many objects with an id column.");
    const QCommandLineOption output({"o", "output"}, "The results table (CSV).", "FILE.csv");
    const QCommandLineOption fits("fits",
                                  "The results as a FITS table (default: the output "
                                  "with .fits).",
                                  "FILE");
    const QCommandLineOption idColumn("id-column", "A table's object id column (default id).",
                                      "NAME", "id");
    const QCommandLineOption timeColumn("time-column", "A table's time column.", "NAME");
    const QCommandLineOption valueColumn("value-column", "A table's value column.", "NAME");
    const QCommandLineOption errorColumn("error-column", "A table's dy column, or - for none.",
                                         "NAME");
    const QCommandLineOption periodograms(
        "periodograms",
        "Write each object's periodogram (frequency, period, power) as CSV "
        "into this folder, as ID.periodogram.csv.",
        "FOLDER");
    const QCommandLineOption scene("scene",
                                   "Take the periodogram settings from a scene file "
                                   "saved by warpscope; the options below override "
                                   "them.",
                                   "FILE");
    const QCommandLineOption frequencies(
        "frequencies",
        "The grid: FMIN,FMAX,M frequencies in cycles per unit time, evenly "
        "spaced (add ,log for logarithmic). Default: the automatic grid.",
        "FMIN,FMAX,M");
    const QCommandLineOption normalization("normalization", "standard, model, log or psd.", "NAME");
    const QCommandLineOption fixedMean("fixed-mean", "No offset of the model's own.");
    const QCommandLineOption noDy("no-dy", "Every point weighs the same.");
    const QCommandLineOption precision("precision", "float64 (default) or float32.", "NAME");
    const QCommandLineOption method("method", "auto, direct or matrix (CUDA).", "NAME");
    const QCommandLineOption detrend("detrend", "none, poly:N or median:W.", "SPEC");
    const QCommandLineOption mask("mask", "Leave T0 <= t <= T1 out (repeatable).", "T0:T1");
    const QCommandLineOption peaks("peaks", "Peaks kept per object, 1 to 20 (default 3).", "K",
                                   "3");
    const QCommandLineOption backend("backend", "auto (every GPU, else the CPU), cpu or cuda.",
                                     "KIND", "auto");
    const QCommandLineOption threads("threads",
                                     "CPU threads for the objects' host work (default: every core, "
                                     "shared by the MPI ranks on one machine).",
                                     "N", "0");
    const QCommandLineOption perGpu("per-gpu",
                                    "Objects computed at once on each GPU, each on "
                                    "its own stream (default 3).",
                                    "K", "3");
    const QCommandLineOption limit("limit", "Compute at most N objects this run.", "N");
    const QCommandLineOption checkpoint("checkpoint",
                                        "Save the rows done every S seconds "
                                        "(default 30).",
                                        "S", "30");
    const QCommandLineOption quiet("quiet", "No progress line.");
    const QCommandLineOption trace("trace",
                                   "Write the run's timeline (every GPU stream's kernels and "
                                   "copies, the host threads' work) as Chrome trace JSON, for "
                                   "Perfetto; under MPI each rank writes FILE.rankR.json.",
                                   "FILE.json");
    parser.addOptions(
        {output, fits, periodograms, idColumn, timeColumn, valueColumn, errorColumn, scene});
    parser.addOptions(
        {frequencies, normalization, fixedMean, noDy, precision, method, detrend, mask, peaks});
    parser.addOptions({backend, threads, perGpu, limit, checkpoint, quiet, trace});
    if (!parser.parse(arguments))
        return parser.errorText();
    if (parser.isSet("help") || parser.isSet("version")) {
        exitNow = true;
        if (parser.isSet("help"))
            std::printf("%s", qPrintable(parser.helpText()));
        else
            std::printf("warpscope-batch %s (%s)\n", WARPSCOPE_VERSION, batch::mpiDescription());
        return {};
    }
    if (parser.positionalArguments().size() != 1)
        return "Give one input: a folder, a glob or a table";
    parsed.input = parser.positionalArguments().front().toStdString();
    parsed.table = QFileInfo(parser.positionalArguments().front()).isFile();
    if (!parser.isSet(output))
        return "--output FILE.csv is needed";
    const QString csv = parser.value(output);
    if (!csv.endsWith(".csv", Qt::CaseInsensitive))
        return "--output must name a .csv file, not '" + csv + "'";
    // The table, its parts and its source record go in the table's folder, the FITS table
    // where it is named, the periodograms in theirs: each must take files before any work.
    if (const QString problem = unwritableFile("--output", csv); !problem.isEmpty())
        return problem;
    const QString fitsFile = parser.isSet(fits) ? parser.value(fits) : csv.chopped(4) + ".fits";
    if (const QString problem = unwritableFile("--fits", fitsFile); !problem.isEmpty())
        return problem;
    parsed.run.csvPath = csv.toStdString();
    parsed.run.fitsPath = fitsFile.toStdString();
    if (parser.isSet(trace)) {
        const QString path = parser.value(trace);
        if (!path.endsWith(".json", Qt::CaseInsensitive))
            return "--trace must name a .json file, not '" + path + "'";
        if (const QString problem = unwritableFolder("--trace", QFileInfo(path).absolutePath());
            !problem.isEmpty())
            return problem;
        // The timeline replaces its file: never the run's source record or its scene.
        const QString traceFile = QFileInfo(path).absoluteFilePath();
        for (const QString& kept :
             {QString::fromStdString(scene::batchSourcePath(csv.toStdString())),
              parser.isSet(scene) ? parser.value(scene) : QString()})
            if (!kept.isEmpty() && QFileInfo(kept).absoluteFilePath() == traceFile)
                return "--trace " + path + " would replace " + kept +
                       "; name another file for the timeline";
        parsed.run.tracePath = path.toStdString();
    }
    parsed.columns.id = parser.value(idColumn).toStdString();
    parsed.columns.t = parser.value(timeColumn).toStdString();
    parsed.columns.y = parser.value(valueColumn).toStdString();
    parsed.columns.dy = parser.value(errorColumn).toStdString();

    scene::PeriodogramScene& c = parsed.run.settings.scene;
    if (parser.isSet(scene)) {
        const scene::SceneRead read = scene::loadScene(parser.value(scene));
        if (!read.scene)
            return read.error;
        for (const QString& w : read.warnings)
            std::fprintf(stderr, "warpscope-batch: warning: %s\n", qPrintable(w));
        c = read.scene->periodogram;
    }
    if (parser.isSet(frequencies)) {
        const QStringList parts = parser.value(frequencies).split(',');
        const std::optional<double> low = parts.size() >= 3 ? number(parts[0]) : std::nullopt;
        const std::optional<double> high = parts.size() >= 3 ? number(parts[1]) : std::nullopt;
        const double fmin = low.value_or(0.0), fmax = high.value_or(0.0);
        bool ok = false;
        const long long count = parts.size() >= 3 ? parts[2].trimmed().toLongLong(&ok) : 0;
        const bool logarithmic = parts.size() == 4 && parts[3].trimmed() == "log";
        if (!low || !high || !ok || parts.size() > 4 || (parts.size() == 4 && !logarithmic) ||
            !gpu::validateFrequencyRange(fmin, fmax, count, logarithmic).empty())
            return "--frequencies needs FMIN,FMAX,M[,log] with 0 < FMIN < FMAX and 1 <= M <= " +
                   QString::number(gpu::kMaxFrequencies) + ", not '" + parser.value(frequencies) +
                   "'";
        c.fmin = fmin;
        c.fmax = fmax;
        c.count = count;
        c.gridMode = logarithmic ? scene::GridMode::Logarithmic : scene::GridMode::Linear;
        c.unit = scene::FrequencyUnit::Ordinary;
    }
    if (parser.isSet(normalization)) {
        const auto n = gpu::parseNormalization(parser.value(normalization).toStdString());
        if (!n)
            return "--normalization must be standard, model, log or psd";
        c.normalization = *n;
    }
    if (parser.isSet(fixedMean))
        c.fitMean = false;
    if (parser.isSet(noDy))
        c.useErrors = false;
    if (parser.isSet(precision)) {
        const QString p = parser.value(precision);
        if (p != "float64" && p != "float32")
            return "--precision must be float64 or float32, not '" + p + "'";
        c.precision = p == "float32" ? gpu::Precision::Float32 : gpu::Precision::Float64;
    }
    if (parser.isSet(method)) {
        const QString m = parser.value(method);
        if (m == "auto")
            c.method = gpu::PeriodogramMethod::Auto;
        else if (m == "direct")
            c.method = gpu::PeriodogramMethod::Direct;
        else if (m == "matrix")
            c.method = gpu::PeriodogramMethod::Matrix;
        else
            return "--method must be auto, direct or matrix, not '" + m + "'";
    }
    if (parser.isSet(detrend)) {
        const QString d = parser.value(detrend);
        const QString name = d.section(':', 0, 0).trimmed().toLower();
        const auto value = number(d.section(':', 1));
        if (name == "none" && !d.contains(':'))
            c.detrend.method = gpu::DetrendMethod::None;
        else if ((name == "poly" || name == "polynomial") && value && *value == int(*value)) {
            c.detrend.method = gpu::DetrendMethod::Polynomial;
            c.detrend.degree = int(*value);
        } else if (name == "median" && value) {
            c.detrend.method = gpu::DetrendMethod::RunningMedian;
            c.detrend.window = *value;
        } else {
            return "--detrend must be none, poly:N or median:W, not '" + d + "'";
        }
    }
    if (parser.isSet(mask)) {
        c.masks.clear();
        for (const QString& m : parser.values(mask)) {
            const auto t0 = number(m.section(':', 0, 0));
            const auto t1 = number(m.section(':', 1));
            if (m.count(':') != 1 || !t0 || !t1)
                return "--mask needs T0:T1, not '" + m + "'";
            c.masks.push_back({*t0, *t1});
        }
    }
    if (const gpu::Status s = scene::validate(c); !s)
        return QString::fromStdString(s.message());

    bool ok = false;
    parsed.run.settings.peaks = parser.value(peaks).toInt(&ok);
    if (!ok || parsed.run.settings.peaks < 1 || parsed.run.settings.peaks > gpu::kSpectrumMaxPeaks)
        return "--peaks must be 1 to 20, not '" + parser.value(peaks) + "'";
    const auto kind = gpu::parseBackendKind(parser.value(backend).toStdString());
    if (!kind)
        return "--backend must be auto, cpu or cuda, not '" + parser.value(backend) + "'";
    parsed.run.backend = *kind;
    const int threadCount = parser.value(threads).toInt(&ok);
    if (!ok || threadCount < 0 || threadCount > 4096)
        return "--threads must be 0 (every core) to 4096, not '" + parser.value(threads) + "'";
    parsed.run.cpuThreads = unsigned(threadCount);
    parsed.run.contextsPerGpu = parser.value(perGpu).toInt(&ok);
    if (!ok || parsed.run.contextsPerGpu < 1 || parsed.run.contextsPerGpu > 64)
        return "--per-gpu must be 1 to 64, not '" + parser.value(perGpu) + "'";
    if (parser.isSet(limit)) {
        parsed.run.limit = parser.value(limit).toLongLong(&ok);
        if (!ok || parsed.run.limit < 0)
            return "--limit must be a count of objects, not '" + parser.value(limit) + "'";
    }
    const auto seconds = number(parser.value(checkpoint));
    if (!seconds || *seconds <= 0)
        return "--checkpoint must be a number of seconds above 0";
    parsed.run.checkpointSeconds = *seconds;
    parsed.run.progress = !parser.isSet(quiet);
    // Last, once every other option is good: the periodograms' folder is made, with its
    // parents, as a bad option must leave nothing behind.
    if (parser.isSet(periodograms)) {
        if (const QString problem = makePeriodogramFolder(parser.value(periodograms));
            !problem.isEmpty())
            return problem;
        parsed.run.settings.periodogramFolder = parser.value(periodograms).toStdString();
    }
    return {};
}

} // namespace

int main(int argc, char** argv)
{
    const batch::Ranks ranks = batch::startRanks(argc, argv);
    int exitCode = 0;
    {
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName("warpscope-batch");
        QCoreApplication::setApplicationVersion(WARPSCOPE_VERSION);
        Parsed parsed;
        bool exitNow = false;
        if (const QString problem = parseOptions(app.arguments(), parsed, exitNow);
            !problem.isEmpty()) {
            exitCode = ranks.rank == 0 ? badOption(problem) : 2;
        } else if (!exitNow) {
            // The devices open (CUDA's start, each GPU's context) while the table is read.
            std::future<batch::RankDevices> opening =
                std::async(std::launch::async, batch::openRankDevices, std::cref(parsed.run),
                           std::cref(ranks));
            gpu::Catalogue catalogue;
            const auto reading = std::chrono::steady_clock::now();
            // A FITS table's id column alone is read now: each object's rows are read when
            // it is computed, so the first objects run while the others wait in the file.
            const bool fits = parsed.table && gpu::Catalogue::isFits(parsed.input);
            const gpu::Status opened =
                !parsed.table
                    ? gpu::Catalogue::openFiles(parsed.input, parsed.timeFormat, catalogue)
                : fits ? gpu::Catalogue::indexTable(parsed.input, parsed.columns, parsed.timeFormat,
                                                    catalogue)
                       : gpu::Catalogue::openTable(parsed.input, parsed.columns, parsed.timeFormat,
                                                   catalogue);
            if (opened && parsed.table && parsed.run.progress && ranks.rank == 0)
                std::fprintf(
                    stderr, "warpscope-batch: %s %s in %.2f s\n", fits ? "read the ids of" : "read",
                    parsed.input.c_str(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - reading)
                        .count());
            if (!opened) {
                if (ranks.rank == 0)
                    std::fprintf(stderr, "warpscope-batch: %s\n", opened.message().c_str());
                exitCode = 1;
            } else {
                // Where the objects came from, beside the results, for the app to open them.
                // The results do not depend on it: a failure is a warning, and rank 0's alone
                // (the ranks must not part ways before the run).
                if (ranks.rank == 0) {
                    scene::BatchSource source;
                    source.input = QFileInfo(QString::fromStdString(parsed.input))
                                       .absoluteFilePath()
                                       .toStdString();
                    source.table = parsed.table;
                    source.columns = parsed.columns;
                    source.timeFormat = parsed.timeFormat;
                    source.scene = parsed.run.settings.scene;
                    source.peaks = parsed.run.settings.peaks;
                    if (const gpu::Status s = scene::writeBatchSource(parsed.run.csvPath, source);
                        !s)
                        std::fprintf(stderr, "warpscope-batch: warning: %s\n", s.message().c_str());
                }
                std::signal(SIGINT, onStop);
                std::signal(SIGTERM, onStop);
                const auto waiting = std::chrono::steady_clock::now();
                batch::RankDevices devices = opening.get();
                if (parsed.run.progress && ranks.rank == 0)
                    std::fprintf(
                        stderr, "warpscope-batch: the devices were ready %.2f s after the input\n",
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - waiting)
                            .count());
                exitCode = batch::runBatch(catalogue, parsed.run, ranks, devices, g_stop);
            }
        }
    }
    batch::finishRanks(ranks);
    return exitCode;
}
