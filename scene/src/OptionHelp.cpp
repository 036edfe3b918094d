// --help of both programs, from the options' declarations.
#include "warpscope/scene/Options.h"

#include <array>

namespace warpscope::scene {
namespace {

constexpr int kColumns = 80;
constexpr int kHelpColumn = 30; // where an option's description starts

// A command that shows what a group's options do, under that group's examples.
struct Example
{
    OptionGroup group;
    unsigned programs;
    std::string_view command;
    std::string_view what;
};

constexpr std::array kGroupTitles{"Field", "Periodogram",           "Kernel", "Streams lab",
                                  "Batch", "Output and screenshot", "General"};

constexpr std::array kExamples{
    Example{OptionGroup::Field, kApp,
            "warpscope --ref 30,101 --ref 29.5,100 --units nmi --precision float64",
            "Two reference points, distances in nautical miles, in double precision."},
    Example{OptionGroup::Field, kApp, "warpscope --overlay warp --block 32,8,1 --grid-stride",
            "The teaching kernel's warps, with 32x8 blocks looping over the mesh."},
    Example{OptionGroup::Periodogram, kApp,
            "warpscope --series lc.csv --detrend poly:2 --mask 58000:58030",
            "A light curve's periodogram once a quadratic trend and a month are taken out."},
    Example{OptionGroup::Periodogram, kBatch,
            "warpscope-batch lc/ -o results.csv --frequencies 0.01,5,100000,log --detrend "
            "median:30",
            "Every light curve of a folder on one logarithmic grid, after a running median."},
    Example{OptionGroup::Kernel, kApp, "warpscope --kernel-source my.cu",
            "Open a kernel of your own beside the picture it draws."},
    Example{OptionGroup::Kernel, kApp, "warpscope --scene s.json --trust-kernel --screenshot k.png",
            "Run the kernel a scene file holds, unattended, and save the window."},
    Example{OptionGroup::StreamsLab, kApp, "warpscope --streams-lab --lab-streams k --lab-ordered",
            "Overlap copies and kernels on k streams, the copies in order."},
    Example{OptionGroup::StreamsLab, kApp,
            "warpscope --streams-lab --screenshot lab.png --export-trace lab.json",
            "Run the lab, save the window and its timeline, and exit."},
    Example{OptionGroup::Batch, kBatch,
            "warpscope-batch survey.fits -o results.csv --id-column OBJID --time-column TIME "
            "--value-column FLUX",
            "One FITS table of many objects, by its columns' names."},
    Example{OptionGroup::Batch, kBatch, "mpirun -n 4 warpscope-batch 'lc/*.csv' -o results.csv",
            "Four ranks share the objects; a second run with the same output resumes."},
    Example{OptionGroup::Output, kApp,
            "warpscope --series co2.csv --export-periodogram pg.csv --export-peaks peaks.json",
            "Compute and write the periodogram and its peaks without a window."},
    Example{OptionGroup::Output, kApp, "warpscope --screenshot shot.png --size 1600x1000 --nx 4096",
            "Render the field, save the window as a PNG and exit."},
    Example{OptionGroup::Output, kApp, "warpscope --nx 512 --ny 256 --export-field field.npy",
            "Write the field as float32 NumPy data, shape (ny, nx), without a window."},
    Example{OptionGroup::Output, kBatch,
            "warpscope-batch lc/ -o results.csv --periodograms pg/ --trace run.json",
            "Each object's periodogram beside the table, and the run's timeline."},
    Example{OptionGroup::General, kApp, "warpscope --scene saved.json --nx 2048",
            "Open a saved scene, with a finer mesh than it holds."},
    Example{OptionGroup::General, kBatch, "warpscope-batch lc/ -o results.csv --scene saved.json",
            "The periodogram settings of a scene saved by warpscope."},
};

QString text(std::string_view s)
{
    return QString::fromLatin1(s.data(), qsizetype(s.size()));
}

// words as lines of at most kColumns, the first starting after what is already on it (first
// columns used), the others indented by indent; each line but the last ends in lineEnd (a
// shell's " \" for a command).
QString wrap(const QString& words, int used, int indent, const QString& lineEnd = {})
{
    QString out;
    int column = used;
    bool lineStart = true;
    for (const QString& word : words.split(' ', Qt::SkipEmptyParts)) {
        if (!lineStart && column + 1 + word.size() + lineEnd.size() > kColumns) {
            out += lineEnd + '\n' + QString(indent, ' ');
            column = indent;
        } else if (!lineStart) {
            out += ' ';
            ++column;
        }
        out += word;
        column += int(word.size());
        lineStart = false;
    }
    return out + '\n';
}

QString number(double v)
{
    return QString::number(v, 'g', 17);
}

// The description with the declared range and default: "Mesh nodes (2 to 16384; default
// 1000).".
QString describe(const Option& option)
{
    QStringList notes;
    if (option.range)
        notes << number(option.range->min) + " to " + number(option.range->max);
    if (!option.defaultValue.empty())
        notes << "default " + text(option.defaultValue);
    return text(option.help) + (notes.isEmpty() ? "" : " (" + notes.join("; ") + ")") + ".";
}

QString optionLine(const Option& option)
{
    QString names = "  ";
    if (!option.alias.empty())
        names += "-" + text(option.alias) + ", ";
    names += "--" + text(option.name);
    if (!option.valueName.empty())
        names += " " + text(option.valueName);
    if (names.size() > kHelpColumn - 2)
        names += '\n' + QString(kHelpColumn, ' ');
    else
        names = names.leftJustified(kHelpColumn);
    return names + wrap(describe(option), kHelpColumn, kHelpColumn);
}

QString header(Program program)
{
    if (program == Program::App)
        return "Usage: warpscope [options]\n" +
               wrap("Warpscope: explore GPU kernels interactively. Computes the great-circle "
                    "distance from every node of a latitude/longitude mesh to the nearest "
                    "reference point, with CUDA writing straight into OpenGL, or on the CPU; "
                    "Lomb-Scargle periodograms of time series; kernels of your own.",
                    0, 0);
    return "Usage: warpscope-batch [options] input\n" +
           wrap("Computes the Lomb-Scargle periodogram of every object of a catalogue, as the "
                "periodogram workspace would, and writes a results table in CSV and FITS: each "
                "object's id, points, best period with its power and false-alarm probability, "
                "its highest peaks and any warnings. A second run with the same output "
                "resumes.",
                0, 0) +
           "\nArguments:\n" + QString("  input").leftJustified(kHelpColumn) +
           wrap("A folder or a quoted glob of light-curve files (CSV, TSV, FITS), or one CSV "
                "or FITS table of many objects with an id column.",
                kHelpColumn, kHelpColumn);
}

} // namespace

QString helpText(Program program)
{
    QString help = header(program);
    const auto groups = std::size(kGroupTitles);
    for (std::size_t g = 0; g < groups; ++g) {
        QString lines;
        for (const Option& option : declaredOptions())
            if (option.acceptedBy(program) && option.group == OptionGroup(g))
                lines += optionLine(option);
        if (!lines.isEmpty())
            help += QStringLiteral("\n%1 options:\n").arg(kGroupTitles[g]) + lines;
    }
    help += "\nExamples:\n";
    for (std::size_t g = 0; g < groups; ++g) {
        QString lines;
        for (const Example& example : kExamples)
            if ((example.programs & unsigned(program)) && example.group == OptionGroup(g))
                lines += "    " + wrap(text(example.command), 4, 8, " \\") + "      " +
                         wrap(text(example.what), 6, 6);
        if (!lines.isEmpty())
            help += QStringLiteral("  %1:\n").arg(kGroupTitles[g]) + lines;
    }
    return help;
}

} // namespace warpscope::scene
