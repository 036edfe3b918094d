#include "PrintedLines.h"

#include <QCoreApplication>
#include <QHash>
#include <algorithm>

namespace warpscope::ui {
namespace {

QString tr(const char* text, int n = -1)
{
    return QCoreApplication::translate("PrintedLines", text, nullptr, n);
}

// One printed line as a row can hold it: a printf's own line breaks shown as ↵ (each call is
// one row), other control characters (a kernel's bytes, not the person's) as spaces, and at
// most kMaxPrintedChars characters.
QString shownText(QString text)
{
    while (text.endsWith('\n') || text.endsWith('\r'))
        text.chop(1);
    text.replace('\n', QStringLiteral(" \u21b5 "));
    for (QChar& c : text)
        if (c.category() == QChar::Other_Control)
            c = ' ';
    if (text.size() > kMaxPrintedChars)
        text = text.left(kMaxPrintedChars) + QChar(0x2026);
    return text;
}

QString indices(const std::uint32_t (&v)[3])
{
    return QStringLiteral("(%1,%2,%3)").arg(v[0]).arg(v[1]).arg(v[2]);
}

// Rows of "blockIdx  threadIdx  text", the indices padded into columns no narrower than
// their headings (given, where the rows have a heading row).
QStringList columns(const std::vector<const gpu::KernelPrintLine*>& lines,
                    const QString& blockHeading = {}, const QString& threadHeading = {})
{
    qsizetype blockWidth = blockHeading.size(), threadWidth = threadHeading.size();
    for (const gpu::KernelPrintLine* line : lines) {
        blockWidth = std::max(blockWidth, indices(line->block).size());
        threadWidth = std::max(threadWidth, indices(line->thread).size());
    }
    const auto row = [&](const QString& block, const QString& thread, const QString& text) {
        return block.leftJustified(blockWidth) + "  " + thread.leftJustified(threadWidth) + "  " +
               text;
    };
    QStringList rows;
    if (!blockHeading.isEmpty())
        rows << row(blockHeading, threadHeading, tr("printed"));
    for (const gpu::KernelPrintLine* line : lines)
        rows << row(indices(line->block), indices(line->thread),
                    shownText(QString::fromStdString(line->text)));
    return rows;
}

// The lines of text, at most kMaxListedLines of them, and a row counting the rest.
void addTextLines(const QStringList& lines, std::vector<PrintedRow>& rows)
{
    for (qsizetype i = 0; i < std::min<qsizetype>(lines.size(), kMaxListedLines); ++i)
        rows.push_back({shownText(lines[i]), true});
    if (lines.size() > kMaxListedLines)
        rows.push_back({tr("... and %1 more line(s)").arg(lines.size() - kMaxListedLines)});
}

QStringList textLines(const std::string& text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size())).split('\n', Qt::SkipEmptyParts);
}

// The raw output, as a GPU run gives it or a simulator's run that ended before replying.
std::vector<PrintedRow> rawRows(const gpu::KernelRun& run)
{
    const QStringList lines = textLines(run.printed);
    QString header = tr("The kernel printed %n line(s)", int(lines.size()));
    if (run.printedCapped)
        header += tr(", then reached the limit of %1 MiB a run: the rest was dropped")
                      .arg(gpu::kMaxPrintedBytes >> 20);
    std::vector<PrintedRow> rows{{header}};
    addTextLines(lines, rows);
    return rows;
}

// The lines of the runner's output that no thread's printf accounts for: what code at the
// library's load or a write to standard error printed. Only where every thread's line was
// kept, so that the raw text holds nothing of theirs beyond the list.
QStringList outsideThreads(const gpu::KernelRun& run)
{
    if (run.printLinesDropped > 0 || run.printedCapped)
        return {};
    QHash<QString, int> fromThreads;
    for (const gpu::KernelPrintLine& line : run.printLines)
        for (const QString& part : textLines(line.text))
            ++fromThreads[part];
    QStringList rest;
    for (const QString& line : textLines(run.printed)) {
        int& left = fromThreads[line];
        if (left > 0)
            --left;
        else
            rest << line;
    }
    return rest;
}

} // namespace

std::vector<PrintedRow> printedRows(const gpu::KernelRun& run)
{
    if (run.printLines.empty() && run.printLinesDropped == 0)
        return run.printed.empty() ? std::vector<PrintedRow>{} : rawRows(run);
    const long long kept = (long long)run.printLines.size();
    const long long total = kept + run.printLinesDropped;
    std::vector<PrintedRow> rows{
        {run.printLinesDropped == 0
             ? tr("The kernel printed %n line(s), each with the block and thread that printed it",
                  int(total))
             : tr("The kernel printed %1 lines; the first %2 are kept, each with the block and "
                  "thread that printed it")
                   .arg(total)
                   .arg(kept)}};
    std::vector<const gpu::KernelPrintLine*> lines;
    for (const gpu::KernelPrintLine& line : run.printLines)
        lines.push_back(&line);
    for (const QString& row : columns(lines, tr("blockIdx"), tr("threadIdx")))
        rows.push_back({row, true});
    if (run.printLinesDropped > 0)
        rows.push_back({tr("... and %1 more line(s), not kept: a run keeps its first %2 (%3 MiB)")
                            .arg(run.printLinesDropped)
                            .arg(gpu::kMaxPrintLines)
                            .arg(gpu::kMaxPrintedBytes >> 20)});
    if (const QStringList rest = outsideThreads(run); !rest.isEmpty()) {
        rows.push_back({tr("Printed outside the kernel's threads (at the library's load, or to "
                           "standard error):")});
        addTextLines(rest, rows);
    }
    return rows;
}

QStringList threadPrintRows(const std::vector<gpu::KernelPrintLine>& lines, long long dropped,
                            std::uint32_t block, std::uint32_t thread,
                            const gpu::LaunchConfig& launch)
{
    // The teaching record keeps no z: threads and blocks that differ only in z share a word.
    std::vector<const gpu::KernelPrintLine*> mine;
    for (const gpu::KernelPrintLine& line : lines)
        if (line.block[1] * launch.grid.x + line.block[0] == block &&
            line.thread[1] * launch.block.x + line.thread[0] == thread)
            mine.push_back(&line);
    if (mine.empty() && dropped == 0)
        return {};
    const std::size_t shown = std::min<std::size_t>(mine.size(), kHoverPrintLines);
    QStringList rows{mine.empty() ? tr("printf: none of this thread's lines are among the "
                                       "run's first %1, the ones kept")
                                        .arg(gpu::kMaxPrintLines)
                                  : tr("printf of this thread:")};
    rows << columns({mine.begin(), mine.begin() + std::ptrdiff_t(shown)});
    if (mine.size() > shown)
        rows << tr("... and %1 more").arg(mine.size() - shown);
    if (dropped > 0 && !mine.empty())
        rows << tr("(the run's lines past its first %1 were not kept)").arg(gpu::kMaxPrintLines);
    return rows;
}

} // namespace warpscope::ui
