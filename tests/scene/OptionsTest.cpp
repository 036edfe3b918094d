// The options' declarations: both programs' --help, the scene file and the override of a
// scene come from one record per option, and agree.
#include "warpscope/scene/Options.h"

#include "warpscope/scene/SceneFile.h"

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <cmath>
#include <gtest/gtest.h>

using namespace warpscope;
using scene::Option;
using scene::Program;

namespace {

QString text(std::string_view s)
{
    return QString::fromLatin1(s.data(), qsizetype(s.size()));
}

// Names, sorted and joined, for comparing and for reading in a failure.
std::string sorted(const QSet<QString>& names)
{
    QStringList list(names.begin(), names.end());
    list.sort();
    return list.join(' ').toStdString();
}

std::string declaredNames(Program program)
{
    QSet<QString> names;
    for (const Option& option : scene::declaredOptions())
        if (option.acceptedBy(program))
            names << text(option.name);
    return sorted(names);
}

// The options --help lists: its lines that start with "  --name" or "  -a, --name".
std::string helpNames(Program program)
{
    QSet<QString> names;
    const QRegularExpression line("^  (?:-\\w, )?--([a-z][a-z-]*)");
    for (const QString& l : scene::helpText(program).split('\n'))
        if (const auto m = line.match(l); m.hasMatch())
            names << m.captured(1);
    return sorted(names);
}

QStringList valuesOf(const Option& option, std::string_view value)
{
    return option.valueName.empty() ? QStringList() : QStringList{text(value)};
}

// A scene file with one key (section.key) set to value.
QByteArray sceneWith(std::string_view sceneKey, double value)
{
    const QString key = text(sceneKey);
    const QString section = key.section('.', 0, 0), name = key.section('.', 1);
    const QJsonObject root{{"format", scene::kSceneFormat},
                           {"version", scene::kSceneVersion},
                           {section, QJsonObject{{name, value}}}};
    return QJsonDocument(root).toJson();
}

} // namespace

TEST(Options, EachProgramsHelpListsExactlyItsDeclaredOptions)
{
    for (const Program program : {Program::App, Program::Batch}) {
        EXPECT_EQ(helpNames(program), declaredNames(program)) << int(program);
        // And its parser takes each of them.
        QCommandLineParser parser;
        scene::addOptions(parser, program);
        QStringList arguments{"program"};
        for (const Option& option : scene::declaredOptions())
            if (option.acceptedBy(program))
                arguments << "--" + text(option.name) << valuesOf(option, "1");
        EXPECT_TRUE(parser.parse(arguments)) << qPrintable(parser.errorText());
    }
    EXPECT_TRUE(scene::findOption("lat-min", Program::App));
    EXPECT_FALSE(scene::findOption("lat-min", Program::Batch));
    EXPECT_TRUE(scene::findOption("per-gpu", Program::Batch));
    EXPECT_FALSE(scene::findOption("per-gpu", Program::App));
}

TEST(Options, HelpIsGroupedWithExamplesAndFitsEightyColumns)
{
    for (const Program program : {Program::App, Program::Batch}) {
        const QString help = scene::helpText(program);
        for (const QString& line : help.split('\n'))
            EXPECT_LE(line.size(), 80) << qPrintable(line);
        const qsizetype examples = help.indexOf("\nExamples:\n");
        ASSERT_GT(examples, 0);
        // Every group with options has examples of its own, after all the options.
        for (const char* group : {"Periodogram", "Output and screenshot", "General"}) {
            const qsizetype options = help.indexOf(QStringLiteral("\n%1 options:\n").arg(group));
            EXPECT_GT(options, 0) << group;
            EXPECT_LT(options, examples) << group;
            EXPECT_GT(help.indexOf(QStringLiteral("\n  %1:\n").arg(group), examples), examples)
                << group;
        }
    }
    EXPECT_TRUE(scene::helpText(Program::App).startsWith("Usage: warpscope [options]\n"));
    EXPECT_TRUE(
        scene::helpText(Program::Batch).startsWith("Usage: warpscope-batch [options] input\n"));
    EXPECT_TRUE(scene::helpText(Program::App).contains("\n    warpscope --streams-lab"));
    EXPECT_FALSE(scene::helpText(Program::Batch).contains("\n  Streams lab:"));
}

TEST(Options, EachSceneOptionRoundTripsThroughTheSceneFile)
{
    for (const Option& option : scene::declaredOptions()) {
        if (!option.apply)
            continue;
        SCOPED_TRACE(text(option.name).toStdString());
        EXPECT_FALSE(option.sceneKey.empty());
        scene::Scene s;
        ASSERT_EQ(option.apply(option, valuesOf(option, option.example), s), QString());
        EXPECT_NE(s, scene::Scene{}) << "the option changes nothing";
        const scene::SceneRead read = scene::parseScene(scene::sceneToJson(s), "s.json");
        ASSERT_TRUE(read.scene) << qPrintable(read.error);
        EXPECT_EQ(*read.scene, s);
    }
}

TEST(Options, DeclaredDefaultsAreTheScenesDefaults)
{
    for (const Option& option : scene::declaredOptions()) {
        if (!option.apply || option.defaultValue.empty())
            continue;
        SCOPED_TRACE(text(option.name).toStdString());
        scene::Scene s;
        ASSERT_EQ(option.apply(option, valuesOf(option, option.defaultValue), s), QString());
        EXPECT_EQ(s, scene::Scene{});
    }
}

// Just beyond each edge of a declared range, the option is refused by the override (its own
// parsing or the scene's validation, as both programs check it) and by the scene file.
TEST(Options, DeclaredRangesAreEnforcedByTheOptionAndTheSceneFileAlike)
{
    int checked = 0;
    for (const Option& option : scene::declaredOptions()) {
        if (!option.apply || !option.range)
            continue;
        const bool whole = option.type == scene::OptionType::Whole;
        for (const double bad :
             {whole ? option.range->min - 1 : std::nextafter(option.range->min, -INFINITY),
              whole ? option.range->max + 1 : std::nextafter(option.range->max, INFINITY)}) {
            const QString value = QString::number(bad, 'g', 17);
            SCOPED_TRACE((text(option.name) + " " + value).toStdString());
            scene::Scene s;
            const QString problem = option.apply(option, {value}, s);
            EXPECT_TRUE(!problem.isEmpty() || !scene::validate(s));
            const scene::SceneRead read = scene::parseScene(sceneWith(option.sceneKey, bad), "s");
            EXPECT_FALSE(read.scene);
            EXPECT_TRUE(read.error.startsWith("s: " + text(option.sceneKey).section('.', 0, 0)))
                << qPrintable(read.error);
            ++checked;
        }
    }
    EXPECT_GE(checked, 2 * 9);
}

// The periodogram's options are one record for both programs: an option added to one of
// them fails here until the other takes it too or the difference is named below.
TEST(Options, BothProgramsTakeThePeriodogramsOptions)
{
    // The synthetic series' harmonics are the app's; each program has a precision of its own
    // (the field's in the app, the periodogram's in the batch); the batch computes
    // Lomb-Scargle alone, so the period search and its methods' keys are the app's.
    const QSet<QString> oneProgram{"nterms",        "precision",     "search",
                                   "bls-durations", "bls-objective", "pdm-bins",
                                   "pdm-covers",    "ce-bins",       "ce-magnitude-bins"};
    for (const Option& option : scene::declaredOptions()) {
        if (!option.sceneKey.starts_with("periodogram.") || oneProgram.contains(text(option.name)))
            continue;
        SCOPED_TRACE(text(option.name).toStdString());
        EXPECT_EQ(scene::findOption(option.name, Program::App),
                  scene::findOption(option.name, Program::Batch));
    }
    EXPECT_NE(scene::findOption("precision", Program::App),
              scene::findOption("precision", Program::Batch));
}

// warpscope took --detrend poly:2.0 as no whole degree while warpscope-batch took it as 2, and
// the batch cast a degree beyond int's range to int. Both now read it the one way.
TEST(Options, DetrendIsReadOneWay)
{
    const Option& detrend = *scene::findOption("detrend", Program::Batch);
    ASSERT_EQ(&detrend, scene::findOption("detrend", Program::App));
    const auto apply = [&detrend](const QString& value, gpu::DetrendOptions& d) {
        scene::Scene s;
        s.periodogram.detrend = d;
        const QString problem = detrend.apply(detrend, {value}, s);
        d = s.periodogram.detrend;
        return problem;
    };
    gpu::DetrendOptions d{gpu::DetrendMethod::None, 1, 42.0};
    EXPECT_EQ(apply("poly:3", d), QString());
    EXPECT_EQ(d, (gpu::DetrendOptions{gpu::DetrendMethod::Polynomial, 3, 42.0}));
    EXPECT_EQ(apply("median:7.5", d), QString());
    EXPECT_EQ(d, (gpu::DetrendOptions{gpu::DetrendMethod::RunningMedian, 3, 7.5}));
    EXPECT_EQ(apply("none", d), QString());
    EXPECT_EQ(d, (gpu::DetrendOptions{gpu::DetrendMethod::None, 3, 7.5}));
    EXPECT_EQ(apply("poly:2.0", d), "--detrend poly:N needs a whole degree N, not '2.0'");
    EXPECT_EQ(apply("poly:99999999999", d),
              "--detrend poly:N needs a whole degree N, not '99999999999'");
    EXPECT_TRUE(apply("poly:6", d).contains("degree must be 0 to 5, not 6"));
    EXPECT_TRUE(apply("median:inf", d).startsWith("--detrend 'median:inf': "));
    EXPECT_EQ(apply("spline:3", d),
              "--detrend must be none, poly:N (N = 0 to 5) or median:W, not 'spline:3'");
    EXPECT_EQ(d, (gpu::DetrendOptions{gpu::DetrendMethod::None, 3, 7.5})) << "refused: unchanged";
}

TEST(Options, FrequenciesNameTheUsageAndTheGridsProblem)
{
    const Option& frequencies = *scene::findOption("frequencies", Program::Batch);
    scene::Scene s;
    const QString problem = frequencies.apply(frequencies, {"2,1,10"}, s);
    EXPECT_TRUE(problem.startsWith("--frequencies needs FMIN,FMAX,M[,log] with 0 < FMIN < FMAX"));
    EXPECT_TRUE(problem.endsWith("not '2,1,10': The maximum frequency must be above the minimum"))
        << qPrintable(problem);
    EXPECT_EQ(frequencies.apply(frequencies, {"0.5,2,100,linear"}, s), QString());
    EXPECT_EQ(s.periodogram.gridMode, scene::GridMode::Linear);
    EXPECT_EQ(s.periodogram.count, 100);
}
