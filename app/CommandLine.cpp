#include "CommandLine.h"

#include "warpscope/render/Colormap.h"
#include "warpscope/scene/KernelFile.h"
#include "warpscope/scene/Options.h"
#include "warpscope/scene/SceneFile.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QRegularExpression>

namespace warpscope::app {
namespace {

using scene::Option;
using scene::OptionGroup;
constexpr scene::Program kApp = scene::Program::App;

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

// Starts o from the --scene file, when one is given.
QString readScene(const QCommandLineParser& parser, AppOptions& o)
{
    if (!parser.isSet("scene"))
        return {};
    const QString path = parser.value("scene");
    if (path.isEmpty())
        return "--scene needs a file name";
    o.scenePath = path;
    const scene::SceneRead read = scene::loadScene(path);
    if (!read.scene)
        return read.error;
    const scene::FieldScene& field = read.scene->field;
    if (!render::loadColormap(field.colormap.toStdString()))
        return path + ": field.colormap: unknown colormap '" + field.colormap + "'";
    o.scene = read.scene;
    o.sceneWarnings = read.warnings;
    o.sceneGiven = true;
    o.teaching = field.lesson.teaching;
    return {};
}

// The options of no workspace: the backend, the device, the window and its settings.
QString readGeneral(const QCommandLineParser& parser, AppOptions& o)
{
    const auto kind = gpu::parseBackendKind(parser.value("backend").toStdString());
    if (!kind)
        return "--backend must be auto, cpu or cuda, not '" + parser.value("backend") + "'";
    o.backend = *kind;
    o.forceHostCopy = parser.isSet("no-interop");
    o.screenshot = parser.value("screenshot");
    o.resetSettings = parser.isSet("reset-settings");
    if (parser.isSet("screenshot") && o.screenshot.isEmpty())
        return "--screenshot needs a file name";
    if (parser.isSet("size")) {
        const QString size = parser.value("size");
        const auto m = QRegularExpression("^(\\d{2,5})x(\\d{2,5})$").match(size);
        if (!m.hasMatch())
            return "--size must look like 1600x1000, not '" + size + "'";
        o.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
        if (o.size.width() < 320 || o.size.height() < 240 || o.size.width() > 16384 ||
            o.size.height() > 16384)
            return "--size must be between 320x240 and 16384x16384";
    }
    o.sweep = parser.isSet("sweep");
    if (parser.isSet("device")) {
        bool ok = false;
        o.device = parser.value("device").toInt(&ok);
        if (!ok || o.device < 0)
            return "--device needs a device number such as 0, not '" + parser.value("device") + "'";
    }
    o.cupti = parser.isSet("cupti");
    o.exportTrace = parser.value("export-trace");
    if (parser.isSet("export-trace") && o.exportTrace.isEmpty())
        return "--export-trace needs a file name";
    return {};
}

// The mesh's options: the field's keys but its colormap and its lesson, which the window
// sets on their own, over the saved settings.
bool isMeshOption(const Option& option)
{
    return option.sceneKey.starts_with("field.") && option.sceneKey != "field.colormap" &&
           !option.sceneKey.starts_with("field.lesson.");
}

bool isLessonOption(const Option& option)
{
    return option.sceneKey.starts_with("field.lesson.");
}

bool isLabOption(const Option& option)
{
    return option.sceneKey.starts_with("lab.") || option.name == "streams-lab";
}

bool isPeriodogramOption(const Option& option)
{
    return option.group == OptionGroup::Periodogram;
}

// The field, its lesson and the streams lab, from the scene the options were applied to.
QString takeFieldAndLab(const QCommandLineParser& parser, const scene::Scene& s, AppOptions& o)
{
    o.params = s.field.params;
    o.sceneGiven = o.sceneGiven || scene::anyOptionSet(parser, kApp, isMeshOption);
    if (parser.isSet("colormap")) {
        o.colormap = s.field.colormap;
        if (!render::loadColormap(o.colormap.toStdString()))
            return "unknown colormap '" + o.colormap + "'";
    }
    const scene::LessonScene& lesson = s.field.lesson;
    o.launch = lesson.launch;
    o.gridGiven = !lesson.gridFitted;
    o.gridStride = lesson.gridStride;
    o.overlay = int(lesson.overlay);
    o.teaching = o.teaching || scene::anyOptionSet(parser, kApp, isLessonOption);
    if (o.launch.block.x < 1 || o.launch.block.y < 1 || o.launch.block.z < 1)
        return "--block dimensions must be at least 1";
    o.launch.grid = scene::lessonGrid(lesson, o.params.nx, o.params.ny);
    // Every GPU from compute capability 3.0 on has the same block and grid limits, so a launch
    // beyond them is a bad option before any window opens. What depends on the device (the
    // kernel's registers, the shared memory) is checked once it is known.
    if (o.teaching) {
        gpu::DeviceInfo everyGpu = gpu::simulatedHopper();
        everyGpu.name = "any CUDA GPU";
        if (const auto errors = gpu::validateLaunch(o.launch, everyGpu); !errors.empty())
            return QString::fromStdString(errors.front().message);
    }
    o.streamsLab = scene::anyOptionSet(parser, kApp, isLabOption);
    o.lab = s.lab.config();
    if (const auto problems = gpu::validateStreamsLab(o.lab); !problems.empty())
        return QString::fromStdString(problems.front());
    return {};
}

template <typename T>
std::optional<T> given(const QCommandLineParser& parser, const char* name, const T& value)
{
    return parser.isSet(name) ? std::optional<T>(value) : std::nullopt;
}

// The periodogram's options, from the scene they were applied to, and its exports.
QString takePeriodogram(const QCommandLineParser& parser, const scene::Scene& s, AppOptions& o)
{
    o.periodogramGiven = scene::GivenOptions(parser, kApp, [](const Option& option) {
        return option.sceneKey.starts_with("periodogram.");
    });
    o.periodogramScene = s.periodogram;
    o.series = parser.value("series");
    if (parser.isSet("time-format")) {
        const auto format = parseTimeFormat(parser.value("time-format"));
        if (!format)
            return "--time-format must be one of " + timeFormatOptions() + ", not '" +
                   parser.value("time-format") + "'";
        if (!parser.isSet("series"))
            return "--time-format needs --series: the synthetic series has no time column";
        o.timeFormat = *format;
    }
    if (parser.isSet("prewhiten")) {
        const Option& prewhiten = *scene::findOption("prewhiten", kApp);
        bool ok = false;
        o.prewhiten = parser.value("prewhiten").toInt(&ok);
        if (!ok || o.prewhiten < prewhiten.range->min || o.prewhiten > prewhiten.range->max)
            return "--prewhiten must be a whole number from 1 to " +
                   QString::number(prewhiten.range->max) + ", not '" + parser.value("prewhiten") +
                   "'";
    }
    const std::pair<const char*, QString*> exports[] = {
        {"export-periodogram", &o.exportPeriodogram},
        {"export-peaks", &o.exportPeaks},
        {"export-frequencies", &o.exportFrequencies}};
    for (const auto& [name, target] : exports) {
        if (!parser.isSet(name))
            continue;
        *target = parser.value(name);
        if (const auto problem = missingFolder("--" + QString(name), *target))
            return *problem;
    }
    if (o.exportsPeriodogram() && o.sweep)
        return "--export-periodogram, --export-peaks and --export-frequencies cannot be "
               "combined with --sweep";
    o.periodogram = scene::anyOptionSet(parser, kApp, isPeriodogramOption) ||
                    o.exportsPeriodogram() ||
                    (o.scene && o.scene->workspace == scene::Workspace::Periodogram);
    return {};
}

// --export-field: a file whose folder exists, written instead of opening a window, so alone
// among what needs one.
QString readFieldExport(const QCommandLineParser& parser, AppOptions& o)
{
    if (!parser.isSet("export-field"))
        return {};
    o.exportField = parser.value("export-field");
    if (const auto problem = missingFolder("--export-field", o.exportField))
        return *problem;
    if (!o.screenshot.isEmpty() || !o.exportTrace.isEmpty() || o.streamsLab || o.sweep ||
        o.exportsPeriodogram() || o.prewhiten > 0)
        return "--export-field writes the field without a window: it cannot be combined with "
               "--screenshot, --export-trace, --streams-lab, --sweep, --prewhiten or the "
               "periodogram's exports";
    return {};
}

// The input files, last, so that a mistyped option is named before a missing file, and
// whether a scene's kernel may run.
QString readInputs(const QCommandLineParser& parser, AppOptions& o)
{
    if (parser.isSet("series"))
        if (const auto problem = unreadableInput("--series", o.series))
            return *problem;
    o.kernelSource = parser.value("kernel-source");
    o.kernel = parser.isSet("kernel") || parser.isSet("kernel-source");
    if (parser.isSet("kernel-source")) {
        if (o.kernelSource.isEmpty())
            return "--kernel-source needs a file name";
        const scene::KernelFileRead read = scene::loadKernelFile(o.kernelSource);
        if (!read.kernel)
            return "--kernel-source: " + read.error;
        o.kernelFile = read.kernel;
    }
    o.trustKernel = parser.isSet("trust-kernel");
    if (o.trustKernel && !o.scene)
        return "--trust-kernel runs the kernel of a --scene file, and no --scene is given";
    // A scene's kernel is a program from whoever wrote the file: a picture taken unattended
    // runs it only when told to.
    const bool batch = !o.screenshot.isEmpty() || !o.exportTrace.isEmpty() ||
                       o.exportsPeriodogram() || !o.exportField.isEmpty();
    if (batch && o.kernelShown() && o.scene && !scene::isExample(o.scene->kernel) &&
        !o.kernelFile && !o.trustKernel)
        return o.scenePath + " holds a kernel of its own, which would be compiled and run: " +
               "give --trust-kernel to run it, or --kernel-source FILE for another kernel";
    return {};
}

// The options given, over the scene's values (or the defaults), checked as a whole.
QString readOptions(const QCommandLineParser& parser, AppOptions& o)
{
    if (QString problem = readScene(parser, o); !problem.isEmpty())
        return problem;
    if (QString problem = readGeneral(parser, o); !problem.isEmpty())
        return problem;
    scene::Scene s = o.scene.value_or(scene::Scene{});
    if (QString problem = scene::applySceneOptions(parser, kApp, s); !problem.isEmpty())
        return problem;
    if (QString problem = takeFieldAndLab(parser, s, o); !problem.isEmpty())
        return problem;
    if (QString problem = takePeriodogram(parser, s, o); !problem.isEmpty())
        return problem;
    if (QString problem = readFieldExport(parser, o); !problem.isEmpty())
        return problem;
    if (const auto errors = gpu::validate(o.params); !errors.empty()) {
        QString message;
        for (const gpu::ParamError& e : errors)
            message += QString::fromStdString(e.message) + (&e == &errors.back() ? "" : "; ");
        return message;
    }
    return readInputs(parser, o);
}

} // namespace

ParseResult parseCommandLine(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    scene::addOptions(parser, kApp);
    parser.addPositionalArgument("", "", "");
    if (!parser.parse(arguments))
        return fail(parser.errorText());
    if (parser.isSet("help"))
        return {std::nullopt, 0, scene::helpText(kApp)};
    if (parser.isSet("version"))
        return {std::nullopt, 0, QStringLiteral("warpscope " WARPSCOPE_VERSION "\n")};
    if (!parser.positionalArguments().isEmpty())
        return fail("unexpected argument '" + parser.positionalArguments().front() + "'");
    AppOptions o;
    if (const QString problem = readOptions(parser, o); !problem.isEmpty())
        return fail(problem);
    return {o, 0, {}};
}

} // namespace warpscope::app
