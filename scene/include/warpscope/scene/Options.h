#pragma once

#include "warpscope/scene/Scene.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

class QCommandLineParser;

namespace warpscope::scene {

// The command-line programs, as bits of Option::programs.
enum class Program : unsigned
{
    App = 1,  // warpscope
    Batch = 2 // warpscope-batch
};
inline constexpr unsigned kApp = unsigned(Program::App);
inline constexpr unsigned kBatch = unsigned(Program::Batch);
inline constexpr unsigned kBothPrograms = kApp | kBatch;
// A scene key no command line sets.
inline constexpr unsigned kSceneOnly = 0;

// Where an option is listed in --help, in this order.
enum class OptionGroup
{
    Field,
    Periodogram,
    Kernel,
    StreamsLab,
    Batch,
    Output,
    General
};

enum class OptionType
{
    Switch, // no value
    Number,
    Whole,
    Text // a name, a file or a structured value such as FMIN,FMAX,M
};

// The closed range a Number or Whole option's value must lie in.
struct OptionRange
{
    double min = 0.0;
    double max = 0.0;
};

// Where a scene holds a scene key's value. The value's C++ type says how the scene file reads
// and writes it: a number, a whole number, true or false, text, one of an enumeration's names
// (SceneNames.h), or a structure of its own (a launch's [x, y, z], the reference points...).
template <typename T> using SceneAt = T& (*)(Scene&);
using SceneField = std::variant<
    std::monostate, SceneAt<double>, SceneAt<int>, SceneAt<long long>, SceneAt<std::uint32_t>,
    SceneAt<bool>, SceneAt<QString>, SceneAt<std::string>, SceneAt<gpu::Dim3>,
    SceneAt<std::vector<gpu::GeoPoint>>, SceneAt<std::vector<gpu::TimeRange>>,
    SceneAt<std::vector<KernelParamValue>>, SceneAt<std::vector<std::string>>,
    // The prewhitening: its sinusoids and their epoch, one object in the file.
    SceneAt<PeriodogramScene>, SceneAt<Workspace>, SceneAt<gpu::Precision>,
    SceneAt<gpu::DistanceUnit>, SceneAt<LessonOverlay>, SceneAt<GridMode>, SceneAt<FrequencyUnit>,
    SceneAt<FrequencyAxis>, SceneAt<gpu::Normalization>, SceneAt<gpu::PeriodogramMethod>,
    SceneAt<gpu::DetrendMethod>, SceneAt<gpu::KernelShape>>;

struct Option;
// Writes an option's values (one per time it was given; none for a switch) into a scene.
// Returns why they are refused, naming the option, or an empty string.
using ApplyOption = QString (*)(const Option& option, const QStringList& values, Scene& scene);

// One command-line option or scene key, declared once: both programs' parsers, their --help,
// the override of a scene and the scene file's read, write and ranges come from this record.
// A scene key no command line sets has no name and is accepted by no program.
struct Option
{
    std::string_view name;  // --name; empty for a scene key alone
    std::string_view alias; // -a, or empty
    OptionType type = OptionType::Switch;
    std::string_view valueName; // the value's placeholder in --help; empty for a switch
    std::string_view help;      // one sentence or a few, without the default
    OptionGroup group = OptionGroup::General;
    unsigned programs = kBothPrograms;
    // The scene file's key the option overrides ("field.latMin", or several in braces:
    // "periodogram.{fmin,fmax}"), and how; empty and null for an option no scene holds.
    std::string_view sceneKey = {};
    // Where a scene holds sceneKey's value, when sceneKey names one key; the scene file reads
    // and writes each key declared so, in declaration order.
    SceneField at = {};
    ApplyOption apply = nullptr;
    // The closed range a number's value must lie in; for text (SceneAt<std::string>), the
    // range of its length in bytes.
    std::optional<OptionRange> range = {};
    // As typed on the command line (for a scene key alone, as the scene file writes it without
    // quotes); empty: none.
    std::string_view defaultValue = {};
    std::string_view example = {}; // a value other than the default, for tests and docs

    bool acceptedBy(Program program) const { return (programs & unsigned(program)) != 0; }
};

// Every option of both programs, in --help's order within each group.
std::span<const Option> declaredOptions();
// The scene keys no option sets, in the scene file's order.
std::span<const Option> declaredSceneKeys();
// The option program accepts under name; null when it has none.
const Option* findOption(std::string_view name, Program program);

// Adds program's options to parser.
void addOptions(QCommandLineParser& parser, Program program);
// Applies the scene options of program that parser holds to scene, in declaration order;
// why one is refused (the first), or an empty string.
QString applySceneOptions(const QCommandLineParser& parser, Program program, Scene& scene);
// The scene options a command line gave, kept to apply to a scene known later (the window's,
// once its saved settings are read), as applySceneOptions would have.
class GivenOptions
{
public:
    GivenOptions() = default;
    // The options of program in parser for which which() is true.
    GivenOptions(const QCommandLineParser& parser, Program program,
                 bool (*which)(const Option& option));

    bool empty() const { return m_given.empty(); }
    bool has(std::string_view name) const;
    // Applies them to scene in declaration order; why one is refused, or an empty string.
    QString applyTo(Scene& scene) const;

private:
    std::vector<std::pair<const Option*, QStringList>> m_given;
};

// Whether parser holds one of program's options for which which() is true.
bool anyOptionSet(const QCommandLineParser& parser, Program program,
                  bool (*which)(const Option& option));

// program's --help: usage, options by group, then worked examples by group; 80 columns.
QString helpText(Program program);

} // namespace warpscope::scene
