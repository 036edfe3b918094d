#pragma once

#include "warpscope/scene/Scene.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <span>
#include <string_view>

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

struct Option;
// Writes an option's values (one per time it was given; none for a switch) into a scene.
// Returns why they are refused, naming the option, or an empty string.
using ApplyOption = QString (*)(const Option& option, const QStringList& values, Scene& scene);

// One command-line option, declared once: both programs' parsers, their --help and the
// override of a scene come from this record.
struct Option
{
    std::string_view name;  // --name
    std::string_view alias; // -a, or empty
    OptionType type = OptionType::Switch;
    std::string_view valueName; // the value's placeholder in --help; empty for a switch
    std::string_view help;      // one sentence or a few, without the default
    OptionGroup group = OptionGroup::General;
    unsigned programs = kBothPrograms;
    // The scene file's key the option overrides ("field.latMin", or several in braces:
    // "periodogram.{fmin,fmax}"), and how; empty and null for an option no scene holds.
    std::string_view sceneKey = {};
    ApplyOption apply = nullptr;
    std::optional<OptionRange> range = {};
    std::string_view defaultValue = {}; // as typed on the command line; empty: none
    std::string_view example = {};      // a value other than the default, for tests and docs

    bool acceptedBy(Program program) const { return (programs & unsigned(program)) != 0; }
};

// Every option of both programs, in --help's order within each group.
std::span<const Option> declaredOptions();
// The option program accepts under name; null when it has none.
const Option* findOption(std::string_view name, Program program);

// Adds program's options to parser.
void addOptions(QCommandLineParser& parser, Program program);
// Applies the scene options of program that parser holds to scene, in declaration order;
// why one is refused (the first), or an empty string.
QString applySceneOptions(const QCommandLineParser& parser, Program program, Scene& scene);
// Whether parser holds one of program's options for which which() is true.
bool anyOptionSet(const QCommandLineParser& parser, Program program,
                  bool (*which)(const Option& option));

// program's --help: usage, options by group, then worked examples by group; 80 columns.
QString helpText(Program program);

} // namespace warpscope::scene
