#include "warpscope/scene/BatchResults.h"

#include "warpscope/scene/BatchIds.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <system_error>
#include <thread>

namespace warpscope::scene {
namespace {

constexpr const char* kWarningSeparator = "; ";
constexpr int kBestColumns = 7; // id, status, points, best_frequency/period/power/fap

// The shortest text that reads back as the same double (printf's %.17g is exact too, but
// longer, and five times slower over a survey's hundred thousand rows).
std::string number(double value)
{
    char text[40];
    const auto [end, error] = std::to_chars(text, text + sizeof text, value);
    return error == std::errc() ? std::string(text, end) : std::string("nan");
}

std::string optionalNumber(const std::optional<double>& value)
{
    return value ? number(*value) : std::string();
}

// A text cell: spreadsheet-safe (a text a spreadsheet would run as a formula gains a
// leading quote, and is quoted as OWASP advises), then RFC 4180: a cell with a comma or quote
// is quoted, quotes doubled. Line breaks become blanks, so that every row is one line (the
// reader reads lines).
std::string csvCell(const std::string& cell)
{
    const std::string text = spreadsheetSafe(cell);
    if (text.find_first_of(",\"\r\n") == std::string::npos && text == cell)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c == '\r' || c == '\n' ? ' ' : c);
    return quoted + "\"";
}

// Splits one CSV record; false when a quote is not closed.
bool splitCsv(const std::string& line, std::vector<std::string>& cells)
{
    cells.assign(1, std::string());
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cells.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cells.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            cells.emplace_back();
        } else {
            cells.back() += c;
        }
    }
    return !quoted;
}

bool parseDouble(const std::string& text, double& value)
{
    if (text.empty())
        return false;
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    // ERANGE on underflow is no error: a false-alarm probability of a strong signal is often
    // subnormal (1e-310), and strtod reads it exactly. Overflow comes back infinite.
    return end == text.c_str() + text.size() && std::isfinite(value);
}

bool parseOptional(const std::string& text, std::optional<double>& value)
{
    value.reset();
    if (text.empty())
        return true;
    double v = 0.0;
    if (!parseDouble(text, v))
        return false;
    value = v;
    return true;
}

gpu::Status replaceFile(const std::string& temporary, const std::string& path)
{
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        std::filesystem::remove(temporary, error);
        return gpu::Status::failure("Cannot write " + path + ": " + error.message());
    }
    return gpu::Status::success();
}

} // namespace

std::string warningsText(const BatchResult& row)
{
    std::string text;
    for (const std::string& w : row.warnings)
        text += (text.empty() ? "" : kWarningSeparator) + w;
    return text;
}

std::vector<std::string> resultColumns(int peaks)
{
    std::vector<std::string> columns{"id",          "status",     "points",  "best_frequency",
                                     "best_period", "best_power", "best_fap"};
    for (int j = 1; j <= peaks; ++j)
        for (const char* what : {"period", "power", "fap"})
            columns.push_back("peak" + std::to_string(j) + "_" + what);
    columns.push_back("warnings");
    return columns;
}

void appendResultsCsvRow(std::string& text, const BatchResult& r, int peaks)
{
    const auto add = [&text](const std::string& cell) {
        text += ',';
        text += cell;
    };
    text += csvCell(r.id);
    add(r.failed ? "failed" : "ok");
    add(std::to_string(r.points));
    if (r.peaks.empty()) {
        text += ",,,,";
    } else {
        const BatchPeak& best = r.peaks.front();
        add(number(best.frequency));
        add(number(best.period));
        add(number(best.power));
        add(optionalNumber(best.fap));
    }
    for (int j = 0; j < peaks; ++j) {
        if (std::size_t(j) < r.peaks.size()) {
            const BatchPeak& p = r.peaks[std::size_t(j)];
            add(number(p.period));
            add(number(p.power));
            add(optionalNumber(p.fap));
        } else {
            text += ",,,";
        }
    }
    add(csvCell(warningsText(r)));
    text += '\n';
}

gpu::Status parseResultsCsvRow(const std::string& line, int peaks, BatchResult& r)
{
    const auto bad = [](const std::string& why) { return gpu::Status::failure(why); };
    std::vector<std::string> cells;
    const std::size_t columns = kBestColumns + 3 * std::size_t(std::max(peaks, 0)) + 1;
    if (!splitCsv(line, cells) || cells.size() != columns)
        return bad("expected " + std::to_string(columns) + " cells");
    r = {};
    // An empty id is a row of its own: the rows of a table whose id cell is empty,
    // refused by the run (its warning says so), never merged with another object.
    r.id = fromSpreadsheetSafe(cells[0]);
    if (cells[1] != "ok" && cells[1] != "failed")
        return bad("the status is neither ok nor failed");
    r.failed = cells[1] == "failed";
    double points = 0.0;
    if (!parseDouble(cells[2], points) || points < 0 || points != std::floor(points))
        return bad("the number of points is not a whole number");
    r.points = (long long)points;
    for (int j = 0; j < peaks; ++j) {
        const std::size_t c = kBestColumns + 3 * std::size_t(j);
        if (cells[c].empty() && cells[c + 1].empty())
            break;
        BatchPeak p;
        if (!parseDouble(cells[c], p.period) || !parseDouble(cells[c + 1], p.power) ||
            !parseOptional(cells[c + 2], p.fap) || p.period == 0.0)
            return bad("peak " + std::to_string(j + 1) + " is not a period, power and FAP");
        p.frequency = 1.0 / p.period;
        r.peaks.push_back(p);
    }
    // The best frequency is kept as written, not recomputed from the period.
    if (!r.peaks.empty() && !parseDouble(cells[3], r.peaks.front().frequency))
        return bad("the best frequency is not a number");
    std::string warnings = fromSpreadsheetSafe(cells.back());
    for (std::size_t at; !warnings.empty();) {
        at = warnings.find(kWarningSeparator);
        r.warnings.push_back(warnings.substr(0, at));
        warnings = at == std::string::npos ? "" : warnings.substr(at + 2);
    }
    return gpu::Status::success();
}

gpu::Status writeResultsCsv(const std::string& path, const std::vector<BatchResult>& rows,
                            int peaks)
{
    const std::string temporary = path + ".writing";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out)
            return gpu::Status::failure("Cannot write " + path + ": " + std::strerror(errno));
        const std::vector<std::string> columns = resultColumns(peaks);
        for (std::size_t c = 0; c < columns.size(); ++c)
            out << (c ? "," : "") << columns[c];
        out << '\n';
        // The rows are formatted in parts on threads of their own (a survey's hundred
        // thousand rows took 0.17 s on one), then written in order.
        const auto format = [&](std::size_t first, std::size_t last) {
            std::string text;
            for (std::size_t i = first; i < last; ++i)
                appendResultsCsvRow(text, rows[i], peaks);
            return text;
        };
        constexpr std::size_t kPartRows = 8192;
        const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
        const std::size_t parts = std::clamp<std::size_t>(rows.size() / kPartRows, 1, threads);
        std::vector<std::future<std::string>> texts;
        for (std::size_t p = 0; p < parts; ++p) {
            const std::size_t first = rows.size() * p / parts;
            const std::size_t last = rows.size() * (p + 1) / parts;
            try {
                texts.push_back(std::async(std::launch::async, format, first, last));
            } catch (const std::system_error&) { // no thread to be had: formatted here
                texts.push_back(std::async(std::launch::deferred, format, first, last));
            }
        }
        for (auto& text : texts)
            out << text.get();
        out.flush();
        if (!out)
            return gpu::Status::failure("Cannot write " + path + ": the disk may be full");
    }
    return replaceFile(temporary, path);
}

gpu::Status readResultsCsv(const std::string& path, int peaks, std::vector<BatchResult>& rows)
{
    rows.clear();
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return gpu::Status::failure("Cannot read " + path + ": " + std::strerror(errno));
    std::string line;
    std::vector<std::string> cells;
    const bool hasHeader = bool(std::getline(in, line)) && splitCsv(line, cells);
    if (peaks == 0 && hasHeader && cells.size() >= std::size_t(kBestColumns + 4))
        peaks = int(cells.size() - kBestColumns - 1) / 3;
    const std::vector<std::string> columns = resultColumns(peaks);
    if (!hasHeader || cells != columns)
        return gpu::Status::failure(path + " is not a results table" +
                                    (peaks > 0
                                         ? " with " + std::to_string(peaks) +
                                               " peaks (--peaks must match the table being resumed)"
                                         : std::string()));
    long long lineNumber = 1;
    while (std::getline(in, line)) {
        ++lineNumber;
        BatchResult r;
        if (const gpu::Status s = parseResultsCsvRow(line, peaks, r); !s)
            return gpu::Status::failure(path + ", line " + std::to_string(lineNumber) + ": " +
                                        s.message());
        rows.push_back(std::move(r));
    }
    return gpu::Status::success();
}

} // namespace warpscope::scene
