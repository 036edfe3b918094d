// warpscope-batch: the periodogram workspace's analysis over a whole catalogue, on every
// device of the machine or, under mpirun, of every machine.
#include "BatchRun.h"
#include "warpscope/scene/BatchSource.h"
#include "warpscope/scene/Options.h"
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

constexpr scene::Program kBatch = scene::Program::Batch;
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

// The results table, its FITS twin and the timeline: each must take files before any work.
QString readOutputs(const QCommandLineParser& parser, Parsed& parsed)
{
    if (!parser.isSet("output"))
        return "--output FILE.csv is needed";
    const QString csv = parser.value("output");
    if (!csv.endsWith(".csv", Qt::CaseInsensitive))
        return "--output must name a .csv file, not '" + csv + "'";
    // The table, its parts and its source record go in the table's folder, the FITS table
    // where it is named, the periodograms in theirs.
    if (const QString problem = unwritableFile("--output", csv); !problem.isEmpty())
        return problem;
    const QString fitsFile = parser.isSet("fits") ? parser.value("fits") : csv.chopped(4) + ".fits";
    if (const QString problem = unwritableFile("--fits", fitsFile); !problem.isEmpty())
        return problem;
    parsed.run.csvPath = csv.toStdString();
    parsed.run.fitsPath = fitsFile.toStdString();
    if (!parser.isSet("trace"))
        return {};
    const QString path = parser.value("trace");
    if (!path.endsWith(".json", Qt::CaseInsensitive))
        return "--trace must name a .json file, not '" + path + "'";
    if (const QString problem = unwritableFolder("--trace", QFileInfo(path).absolutePath());
        !problem.isEmpty())
        return problem;
    // The timeline replaces its file: never the run's source record or its scene.
    const QString traceFile = QFileInfo(path).absoluteFilePath();
    for (const QString& kept : {QString::fromStdString(scene::batchSourcePath(csv.toStdString())),
                                parser.isSet("scene") ? parser.value("scene") : QString()})
        if (!kept.isEmpty() && QFileInfo(kept).absoluteFilePath() == traceFile)
            return "--trace " + path + " would replace " + kept +
                   "; name another file for the timeline";
    parsed.run.tracePath = path.toStdString();
    return {};
}

// The periodogram's settings: the --scene file's, overridden by the options given, as the
// app reads them.
QString readSettings(const QCommandLineParser& parser, Parsed& parsed)
{
    scene::Scene settings;
    if (parser.isSet("scene")) {
        const scene::SceneRead read = scene::loadScene(parser.value("scene"));
        if (!read.scene)
            return read.error;
        for (const QString& w : read.warnings)
            std::fprintf(stderr, "warpscope-batch: warning: %s\n", qPrintable(w));
        settings = *read.scene;
    }
    if (const QString problem = scene::applySceneOptions(parser, kBatch, settings);
        !problem.isEmpty())
        return problem;
    if (const gpu::Status s = scene::validate(settings.periodogram); !s)
        return QString::fromStdString(s.message());
    parsed.run.settings.scene = settings.periodogram;
    return {};
}

// A whole option's value within its declared range, or a message in name's words.
std::optional<long long> wholeInRange(const QCommandLineParser& parser, const char* name)
{
    const scene::OptionRange range = *scene::findOption(name, kBatch)->range;
    bool ok = false;
    const long long value = parser.value(name).toLongLong(&ok);
    if (!ok || value < range.min || value > range.max)
        return std::nullopt;
    return value;
}

// How the run goes: its devices, threads, limit, checkpoints and progress.
QString readRun(const QCommandLineParser& parser, Parsed& parsed)
{
    parsed.columns.id = parser.value("id-column").toStdString();
    parsed.columns.t = parser.value("time-column").toStdString();
    parsed.columns.y = parser.value("value-column").toStdString();
    parsed.columns.dy = parser.value("error-column").toStdString();
    const auto peaks = wholeInRange(parser, "peaks");
    if (!peaks)
        return "--peaks must be 1 to 20, not '" + parser.value("peaks") + "'";
    parsed.run.settings.peaks = int(*peaks);
    const auto kind = gpu::parseBackendKind(parser.value("backend").toStdString());
    if (!kind)
        return "--backend must be auto, cpu or cuda, not '" + parser.value("backend") + "'";
    parsed.run.backend = *kind;
    const auto threads = wholeInRange(parser, "threads");
    if (!threads)
        return "--threads must be 0 (every core) to 4096, not '" + parser.value("threads") + "'";
    parsed.run.cpuThreads = unsigned(*threads);
    const auto perGpu = wholeInRange(parser, "per-gpu");
    if (!perGpu)
        return "--per-gpu must be 1 to 64, not '" + parser.value("per-gpu") + "'";
    parsed.run.contextsPerGpu = int(*perGpu);
    if (parser.isSet("limit")) {
        bool ok = false;
        parsed.run.limit = parser.value("limit").toLongLong(&ok);
        if (!ok || parsed.run.limit < 0)
            return "--limit must be a count of objects, not '" + parser.value("limit") + "'";
    }
    const auto seconds = number(parser.value("checkpoint"));
    if (!seconds || *seconds <= 0)
        return "--checkpoint must be a number of seconds above 0";
    parsed.run.checkpointSeconds = *seconds;
    parsed.run.progress = !parser.isSet("quiet");
    return {};
}

// Reads the options into parsed; an error message for a bad one.
QString parseOptions(const QStringList& arguments, Parsed& parsed, bool& exitNow)
{
    QCommandLineParser parser;
    scene::addOptions(parser, kBatch);
    parser.addPositionalArgument("input", {});
    if (!parser.parse(arguments))
        return parser.errorText();
    if (parser.isSet("help") || parser.isSet("version")) {
        exitNow = true;
        if (parser.isSet("help"))
            std::printf("%s", qPrintable(scene::helpText(kBatch)));
        else
            std::printf("warpscope-batch %s (%s)\n", WARPSCOPE_VERSION, batch::mpiDescription());
        return {};
    }
    if (parser.positionalArguments().size() != 1)
        return "Give one input: a folder, a glob or a table";
    parsed.input = parser.positionalArguments().front().toStdString();
    parsed.table = QFileInfo(parser.positionalArguments().front()).isFile();
    for (const auto read : {readOutputs, readSettings, readRun})
        if (const QString problem = read(parser, parsed); !problem.isEmpty())
            return problem;
    // Last, once every other option is good: the periodograms' folder is made, with its
    // parents, as a bad option must leave nothing behind.
    if (parser.isSet("periodograms")) {
        if (const QString problem = makePeriodogramFolder(parser.value("periodograms"));
            !problem.isEmpty())
            return problem;
        parsed.run.settings.periodogramFolder = parser.value("periodograms").toStdString();
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
