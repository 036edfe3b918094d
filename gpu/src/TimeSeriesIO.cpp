#include "warpscope/gpu/TimeSeriesIO.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>

namespace warpscope::gpu {
namespace {

// Lines between progress reports.
constexpr std::size_t kProgressLines = 1 << 16;
// Larger files are refused rather than read into memory.
constexpr std::uint64_t kMaxFileBytes = 4ULL << 30;

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// The line's content without its comment and surrounding blanks.
std::string_view content(std::string_view line)
{
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
        line = line.substr(0, hash);
    return trim(line);
}

enum class Delimiter
{
    Comma,
    Tab,
    Semicolon,
    Whitespace
};

Delimiter detect(std::string_view line)
{
    if (line.find(',') != std::string_view::npos)
        return Delimiter::Comma;
    if (line.find('\t') != std::string_view::npos)
        return Delimiter::Tab;
    if (line.find(';') != std::string_view::npos)
        return Delimiter::Semicolon;
    return Delimiter::Whitespace;
}

const char* delimiterName(Delimiter d)
{
    switch (d) {
    case Delimiter::Comma:
        return "comma";
    case Delimiter::Tab:
        return "tab";
    case Delimiter::Semicolon:
        return "semicolon";
    case Delimiter::Whitespace:
        break;
    }
    return "whitespace";
}

void split(std::string_view line, Delimiter d, std::vector<std::string_view>& fields)
{
    fields.clear();
    if (d == Delimiter::Whitespace) {
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
                ++i;
            const std::size_t start = i;
            while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
                ++i;
            if (i > start)
                fields.push_back(line.substr(start, i - start));
        }
        return;
    }
    const char sep = d == Delimiter::Comma ? ',' : d == Delimiter::Tab ? '\t' : ';';
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = line.find(sep, start);
        fields.push_back(
            trim(line.substr(start, end == std::string_view::npos ? line.npos : end - start)));
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
}

bool parseNumber(std::string_view s, double& value)
{
    s = trim(s);
    if (!s.empty() && s.front() == '+')
        s.remove_prefix(1);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
        s = trim(s.substr(1, s.size() - 2));
    if (s.empty())
        return false;
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
    return error == std::errc() && end == s.data() + s.size();
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (out.size() >= 2 && out.front() == '"' && out.back() == '"')
        out = out.substr(1, out.size() - 2);
    return out;
}

int findColumn(const std::vector<std::string>& names, std::initializer_list<const char*> wanted)
{
    for (const char* w : wanted)
        for (std::size_t i = 0; i < names.size(); ++i)
            if (lower(names[i]) == w)
                return int(i);
    return -1;
}

int findErrorColumn(const std::vector<std::string>& names)
{
    if (int i = findColumn(names, {"dy", "err", "error", "sigma", "e", "uncertainty"}); i >= 0)
        return i;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string n = lower(names[i]);
        if (n.size() > 4 && (n.ends_with("_err") || n.ends_with("_error")))
            return int(i);
    }
    return -1;
}

std::string plural(std::size_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

std::string LoadReport::summary() const
{
    std::string s = plural(rows, "row", "rows");
    if (nonNumericRows)
        s += "; " + plural(nonNumericRows, "non-numeric row", "non-numeric rows") + " skipped";
    if (nonFiniteRows)
        s += "; " + plural(nonFiniteRows, "row", "rows") + " with NaN or infinity skipped";
    if (nonPositiveErrors)
        s += "; " + plural(nonPositiveErrors, "row", "rows") + " with dy <= 0 skipped";
    if (sorted)
        s += "; sorted by time";
    if (duplicateTimes)
        s += "; " + plural(duplicateTimes, "duplicate time", "duplicate times") + " kept";
    return s;
}

Status parseTimeSeries(std::string_view text, const ColumnChoice& choice, TimeSeries& series,
                       LoadReport& report, const LoadProgress& progress)
{
    series = TimeSeries{};
    report = LoadReport{};
    std::vector<std::string_view> fields;
    Delimiter delimiter = Delimiter::Whitespace;
    bool headerChecked = false;
    int tCol = choice.t, yCol = choice.y, dyCol = -1;
    std::size_t widest = 0;
    std::size_t lineCount = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = content(text.substr(pos, end - pos));
        pos = end + 1;
        if (++lineCount % kProgressLines == 0 && progress &&
            !progress(double(pos) / double(text.size())))
            return Status::failure("Loading was cancelled");
        if (line.empty())
            continue;
        if (!headerChecked) {
            headerChecked = true;
            delimiter = detect(line);
            report.delimiter = delimiterName(delimiter);
            split(line, delimiter, fields);
            widest = fields.size();
            double unused = 0;
            const bool header = std::any_of(fields.begin(), fields.end(), [&](std::string_view f) {
                return !parseNumber(f, unused);
            });
            for (std::size_t i = 0; i < fields.size(); ++i)
                report.columns.push_back(header ? std::string(fields[i])
                                                : "column " + std::to_string(i + 1));
            // Recognised names choose the columns; a header of other names leaves the
            // positions to choose, as without a header.
            bool named = false;
            if (header && choice.byName) {
                if (int i = findColumn(report.columns,
                                       {"t", "time", "mjd", "jd", "bjd", "hjd", "date", "x"});
                    i >= 0) {
                    tCol = i;
                    named = true;
                }
                if (int i = findColumn(report.columns,
                                       {"y", "flux", "mag", "magnitude", "value", "rv", "signal"});
                    i >= 0) {
                    yCol = i;
                    named = true;
                }
                dyCol = findErrorColumn(report.columns);
                named = named || dyCol >= 0;
            }
            if (!named && choice.dy >= 0 && std::size_t(choice.dy) < fields.size() &&
                choice.dy != tCol && choice.dy != yCol)
                dyCol = choice.dy;
            if (tCol < 0 || yCol < 0 || tCol == yCol || std::size_t(tCol) >= fields.size() ||
                std::size_t(yCol) >= fields.size())
                return Status::failure("The file has " +
                                       plural(fields.size(), "column", "columns") + "; columns " +
                                       std::to_string(tCol + 1) + " (t) and " +
                                       std::to_string(yCol + 1) + " (y) cannot be used");
            report.tColumn = tCol;
            report.yColumn = yCol;
            report.dyColumn = dyCol;
            if (header)
                continue;
        }
        split(line, delimiter, fields);
        widest = std::max(widest, fields.size());
        double t = 0, y = 0, dy = 1;
        const int needed = std::max({tCol, yCol, dyCol});
        if (int(fields.size()) <= needed || !parseNumber(fields[std::size_t(tCol)], t) ||
            !parseNumber(fields[std::size_t(yCol)], y) ||
            (dyCol >= 0 && !parseNumber(fields[std::size_t(dyCol)], dy))) {
            ++report.nonNumericRows;
            continue;
        }
        if (!std::isfinite(t) || !std::isfinite(y) || !std::isfinite(dy)) {
            ++report.nonFiniteRows;
            continue;
        }
        if (dyCol >= 0 && !(dy > 0.0)) {
            ++report.nonPositiveErrors;
            continue;
        }
        series.t.push_back(t);
        series.y.push_back(y);
        if (dyCol >= 0)
            series.dy.push_back(dy);
    }
    if (progress && !progress(1.0))
        return Status::failure("Loading was cancelled");
    report.rows = series.t.size();
    if (report.rows == 0)
        return Status::failure(headerChecked ? "No row holds numbers in the chosen columns"
                                             : "The file holds no data");
    if (!std::is_sorted(series.t.begin(), series.t.end())) {
        std::vector<std::size_t> order(report.rows);
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return series.t[a] < series.t[b]; });
        auto permute = [&](std::vector<double>& v) {
            if (v.empty())
                return;
            std::vector<double> out(v.size());
            for (std::size_t i = 0; i < order.size(); ++i)
                out[i] = v[order[i]];
            v.swap(out);
        };
        permute(series.t);
        permute(series.y);
        permute(series.dy);
        report.sorted = true;
    }
    for (std::size_t i = 1; i < report.rows; ++i)
        report.duplicateTimes += series.t[i] == series.t[i - 1];
    return Status::success();
}

Status loadTimeSeries(const std::string& path, const ColumnChoice& columns, TimeSeries& series,
                      LoadReport& report, const LoadProgress& progress)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return Status::failure("Cannot open " + path + ": " + std::strerror(errno));
    const std::streamoff size = in.tellg();
    if (size < 0)
        return Status::failure("Cannot read " + path);
    if (std::uint64_t(size) > kMaxFileBytes)
        return Status::failure(path + " is larger than 4 GiB");
    std::string text;
    try {
        text.resize(std::size_t(size));
    } catch (const std::bad_alloc&) {
        return Status::failure("Out of memory reading " + path);
    }
    in.seekg(0);
    if (!in.read(text.data(), size))
        return Status::failure("Cannot read " + path);
    if (text.find('\0') != std::string::npos)
        return Status::failure(path + " is not a text file");
    return parseTimeSeries(text, columns, series, report, progress);
}

} // namespace warpscope::gpu
