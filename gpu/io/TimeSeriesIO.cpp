#include "warpscope/gpu/TimeSeriesIO.h"

#include "io/TimeSeriesLoad.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>

namespace warpscope::gpu {
namespace {

using detail::plural;

// Lines between progress reports.
constexpr std::size_t kProgressLines = 1 << 16;
// Larger files are refused rather than read into memory.
constexpr std::uint64_t kMaxFileBytes = 4ULL << 30;
// The delimiter and decimal separator are chosen from this many lines at the top: enough
// to see past a header and a few odd rows.
constexpr std::size_t kSampleLines = 64;
// The column names fill the column menus, so a first line of more cells is refused.
constexpr std::size_t kMaxColumns = 1000;
// Cells quoted in messages and column names are shortened to about this many bytes.
constexpr std::size_t kQuotedBytes = 40;
constexpr std::size_t kNameBytes = 100;

// ASCII only: <cctype> follows the process locale, which Qt sets from the environment.
bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

char toLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isBlank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isBlank(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string_view unquote(std::string_view s)
{
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
        return trim(s.substr(1, s.size() - 2));
    return s;
}

// Calendar dates ----------------------------------------------------------------------

// MJD of 1970-01-01, the epoch of daysFromCivil.
constexpr double kMjdOfUnixEpoch = 40587.0;
// Decimal years are told from other numbers only by the column's name, and then only when
// the values are calendar years; JD is recognised by its values in this range too (from
// about the year 1311 to 2406), where no other time scale in use falls.
constexpr double kMinDecimalYear = 1000.0, kMaxDecimalYear = 3000.0;
constexpr double kMinJd = 2.2e6, kMaxJd = 2.6e6;

bool isLeapYear(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int daysInMonth(int y, int m)
{
    static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && isLeapYear(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
// days_from_civil), which ERFA, and so astropy, also use before 1582.
long long daysFromCivil(int y, int m, int d)
{
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const long long yoe = y - era * 400;
    const long long doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

enum class DateError
{
    None,
    Malformed,
    Month,
    Day,
    TimeOfDay
};

struct Date
{
    int year = 0, month = 0, day = 0;
    DateError error = DateError::None;
};

// The digits s[at, at + n) as a number, or -1 when they are not all digits.
int digits(std::string_view s, std::size_t at, std::size_t n)
{
    if (at + n > s.size())
        return -1;
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (!isDigit(s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

// Starts with the digits and dashes of YYYY-MM-DD.
bool startsAsIsoDate(std::string_view s)
{
    return s.size() >= 10 && digits(s, 0, 4) >= 0 && s[4] == '-' && digits(s, 5, 2) >= 0 &&
           s[7] == '-' && digits(s, 8, 2) >= 0;
}

bool looksLikeYyyyMmDd(std::string_view s)
{
    s = unquote(trim(s));
    return s.size() == 8 && digits(s, 0, 8) >= 0;
}

Date checkDate(int y, int m, int d)
{
    Date date{y, m, d};
    if (y < 1)
        date.error = DateError::Malformed;
    else if (m < 1 || m > 12)
        date.error = DateError::Month;
    else if (d < 1 || d > daysInMonth(y, m))
        date.error = DateError::Day;
    return date;
}

// YYYY-MM-DD, optionally followed by T (or a blank) and hh:mm, hh:mm:ss or hh:mm:ss.fff,
// and then Z or an offset from UTC (+01:00, -0500). Without a zone the time is UTC. Days
// are 86400 s long: a leap second (23:59:60) is refused rather than placed.
Date parseIsoDate(std::string_view s, double& mjd)
{
    s = unquote(trim(s));
    if (!startsAsIsoDate(s))
        return {0, 0, 0, DateError::Malformed};
    Date date = checkDate(digits(s, 0, 4), digits(s, 5, 2), digits(s, 8, 2));
    if (date.error != DateError::None)
        return date;
    double seconds = 0;
    std::size_t i = 10;
    if (i < s.size() && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
        const int hours = digits(s, i + 1, 2), minutes = digits(s, i + 4, 2);
        if (hours < 0 || minutes < 0 || s[i + 3] != ':')
            return {date.year, date.month, date.day, DateError::Malformed};
        i += 6;
        double secondsOfMinute = 0;
        if (i < s.size() && s[i] == ':') {
            std::size_t end = i + 1;
            while (end < s.size() && (isDigit(s[end]) || s[end] == '.'))
                ++end;
            const auto [stop, error] =
                std::from_chars(s.data() + i + 1, s.data() + end, secondsOfMinute);
            if (digits(s, i + 1, 2) < 0 || error != std::errc() || stop != s.data() + end)
                return {date.year, date.month, date.day, DateError::Malformed};
            i = end;
        }
        if (hours > 23 || minutes > 59 || !(secondsOfMinute < 60.0))
            return {date.year, date.month, date.day, DateError::TimeOfDay};
        seconds = hours * 3600.0 + minutes * 60.0 + secondsOfMinute;
        if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
            ++i;
        } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
            const int sign = s[i] == '+' ? 1 : -1;
            const int offsetHours = digits(s, i + 1, 2);
            std::size_t at = i + 3;
            if (at < s.size() && s[at] == ':')
                ++at;
            const int offsetMinutes = digits(s, at, 2);
            if (offsetHours < 0 || offsetMinutes < 0)
                return {date.year, date.month, date.day, DateError::Malformed};
            if (offsetHours > 23 || offsetMinutes > 59)
                return {date.year, date.month, date.day, DateError::TimeOfDay};
            seconds -= sign * (offsetHours * 3600.0 + offsetMinutes * 60.0);
            i = at + 2;
        }
    }
    if (i != s.size())
        return {date.year, date.month, date.day, DateError::Malformed};
    mjd = double(daysFromCivil(date.year, date.month, date.day)) + kMjdOfUnixEpoch +
          seconds / 86400.0;
    return date;
}

Date parseYyyyMmDd(std::string_view s, double& mjd)
{
    s = unquote(trim(s));
    if (!looksLikeYyyyMmDd(s))
        return {0, 0, 0, DateError::Malformed};
    const Date date = checkDate(digits(s, 0, 4), digits(s, 4, 2), digits(s, 6, 2));
    if (date.error == DateError::None)
        mjd = double(daysFromCivil(date.year, date.month, date.day)) + kMjdOfUnixEpoch;
    return date;
}

// A cell written as an ISO 8601 date, valid or not: what chooses the format, so that
// 2021-02-30 among good dates is a bad date rather than text.
bool looksLikeIsoDate(std::string_view s)
{
    double unused = 0;
    return parseIsoDate(s, unused).error != DateError::Malformed;
}

bool isDateFormat(TimeFormat f)
{
    return f == TimeFormat::IsoDate || f == TimeFormat::YyyyMmDd;
}

// The line's content without its comment and surrounding blanks.
std::string_view content(std::string_view line)
{
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
        line = line.substr(0, hash);
    return trim(line);
}

// Spreadsheets and editors outside Unix write CRLF, whose CR the line's trimming drops,
// and, on classic Mac OS, CR alone: the first line break decides which ends lines.
char lineBreak(std::string_view text)
{
    const std::size_t cr = text.find('\r');
    return cr != std::string_view::npos && cr + 1 < text.size() && text[cr + 1] != '\n' &&
                   cr < text.find('\n')
               ? '\r'
               : '\n';
}

std::string_view nextLine(std::string_view text, char lineBreak, std::size_t& pos)
{
    const std::size_t start = pos;
    std::size_t end = text.find(lineBreak, pos);
    if (end == std::string_view::npos)
        end = text.size();
    pos = end + 1;
    return text.substr(start, end - start);
}

// Windows-1252's characters for bytes 0x80 to 0x9F; the rest of its upper half is Latin-1.
constexpr char16_t kWindows1252[32] = {
    0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178};

// Text from the file made fit to show: valid UTF-8 is kept, other bytes are read as
// Windows-1252 (what older Windows tools write for "µJy" or "°"), control characters become
// '?', and anything past about maxBytes becomes "...".
std::string printable(std::string_view s, std::size_t maxBytes)
{
    std::string out;
    std::size_t i = 0;
    while (i < s.size() && out.size() < maxBytes) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t length = c < 0x80                ? 1
                             : c >= 0xC2 && c < 0xE0 ? 2
                             : c >= 0xE0 && c < 0xF0 ? 3
                             : c >= 0xF0 && c < 0xF5 ? 4
                                                     : 0;
        for (std::size_t k = 1; k < length; ++k)
            if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
                length = 0;
        if (length == 1) {
            out += c < 0x20 || c == 0x7F ? '?' : char(c);
        } else if (length > 1) {
            out.append(s.substr(i, length));
        } else {
            const char16_t u = c < 0xA0 ? kWindows1252[c - 0x80] : char16_t(c);
            if (u < 0x800) {
                out += char(0xC0 | (u >> 6));
            } else {
                out += char(0xE0 | (u >> 12));
                out += char(0x80 | ((u >> 6) & 0x3F));
            }
            out += char(0x80 | (u & 0x3F));
            length = 1;
        }
        i += length;
    }
    if (i < s.size())
        out += "...";
    return out;
}

enum class Delimiter
{
    Comma,
    Tab,
    Semicolon,
    Whitespace
};

struct Format
{
    Delimiter delimiter = Delimiter::Whitespace;
    bool decimalComma = false;
};

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

// Past a quoted cell starting at i ("" inside one is a quote), or i itself when none starts.
std::size_t skipQuoted(std::string_view line, std::size_t i)
{
    if (i >= line.size() || line[i] != '"')
        return i;
    for (std::size_t close = line.find('"', i + 1); close != std::string_view::npos;
         close = line.find('"', close + 2))
        if (close + 1 >= line.size() || line[close + 1] != '"')
            return close + 1;
    return line.size();
}

// At most `limit` cells; quoted cells may hold the delimiter. Empty cells at the end, from
// spreadsheets' trailing delimiters, are no column. Between blanks, a date followed by a
// time of day ("1958-03-29 12:00:00") is one cell, as ISO 8601 allows it to be written.
void split(std::string_view line, Delimiter d, std::vector<std::string_view>& fields,
           std::size_t limit = std::numeric_limits<std::size_t>::max())
{
    fields.clear();
    std::size_t i = 0;
    if (d == Delimiter::Whitespace) {
        while (fields.size() < limit) {
            while (i < line.size() && isBlank(line[i]))
                ++i;
            if (i == line.size())
                break;
            const std::size_t start = i;
            i = skipQuoted(line, i);
            while (i < line.size() && !isBlank(line[i]))
                ++i;
            if (i - start == 10 && startsAsIsoDate(line.substr(start, 10))) {
                std::size_t next = i;
                while (next < line.size() && isBlank(line[next]))
                    ++next;
                if (digits(line, next, 2) >= 0 && next + 2 < line.size() && line[next + 2] == ':') {
                    i = next;
                    while (i < line.size() && !isBlank(line[i]))
                        ++i;
                }
            }
            fields.push_back(line.substr(start, i - start));
        }
        return;
    }
    const char sep = d == Delimiter::Comma ? ',' : d == Delimiter::Tab ? '\t' : ';';
    while (fields.size() < limit) {
        std::size_t start = i;
        while (start < line.size() && line[start] != sep && isBlank(line[start]))
            ++start;
        const std::size_t end = line.find(sep, skipQuoted(line, start));
        fields.push_back(
            trim(line.substr(start, end == std::string_view::npos ? line.npos : end - start)));
        if (end == std::string_view::npos)
            break;
        i = end + 1;
    }
    while (!fields.empty() && fields.back().empty())
        fields.pop_back();
}

enum class Number
{
    Ok,
    NotANumber,
    OutOfRange,
    NotADate // a time cell in a column of dates
};

// std::from_chars is locale-independent. With decimalComma, "2459000,5" is read and a cell
// with a '.' is refused, for "1.234" there may be a thousands separator; without it, a cell
// with a ',' is refused. Fortran's "1.5D-03" is read either way.
Number parseNumber(std::string_view s, bool decimalComma, std::string& buffer, double& value)
{
    s = unquote(trim(s));
    if (!s.empty() && s.front() == '+') {
        s.remove_prefix(1);
        if (!s.empty() && (s.front() == '+' || s.front() == '-'))
            return Number::NotANumber;
    }
    if (s.empty())
        return Number::NotANumber;
    // One pass over the cell for what would need rewriting before std::from_chars.
    std::size_t comma = std::string_view::npos, exponent = std::string_view::npos;
    bool point = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == ',' && comma == std::string_view::npos)
            comma = i;
        else if (s[i] == ',')
            return Number::NotANumber;
        else if ((s[i] == 'D' || s[i] == 'd') && exponent == std::string_view::npos)
            exponent = i;
        point = point || s[i] == '.';
    }
    if (comma != std::string_view::npos) {
        if (!decimalComma || point || comma == 0 || comma + 1 == s.size() ||
            !isDigit(s[comma - 1]) || !isDigit(s[comma + 1]))
            return Number::NotANumber;
    } else if (decimalComma && point) {
        return Number::NotANumber;
    }
    if (exponent != std::string_view::npos &&
        (exponent == 0 || exponent + 1 == s.size() ||
         !(isDigit(s[exponent - 1]) || s[exponent - 1] == '.' || s[exponent - 1] == ',') ||
         !(isDigit(s[exponent + 1]) || s[exponent + 1] == '+' || s[exponent + 1] == '-')))
        return Number::NotANumber;
    if (comma != std::string_view::npos || exponent != std::string_view::npos) {
        buffer.assign(s);
        if (comma != std::string_view::npos)
            buffer[comma] = '.';
        if (exponent != std::string_view::npos)
            buffer[exponent] = 'e';
        s = buffer;
    }
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (end != s.data() + s.size())
        return Number::NotANumber;
    if (error == std::errc::result_out_of_range)
        return Number::OutOfRange;
    return error == std::errc() ? Number::Ok : Number::NotANumber;
}

// Why a cell that parseNumber refused is not a number, quoted for the person.
std::string notANumber(std::string_view cell, const Format& format)
{
    cell = unquote(cell);
    std::string why = "\"";
    why += printable(cell, kQuotedBytes);
    why += "\" is not a number";
    const bool comma = cell.find(',') != std::string_view::npos;
    const bool point = cell.find('.') != std::string_view::npos;
    if (comma && point)
        why += " (thousands separators are not read)";
    else if (comma && format.delimiter == Delimiter::Comma)
        why += " (decimal commas are read only between semicolons, tabs or blanks)";
    else if (comma && !format.decimalComma)
        why += " (the file's other numbers have decimal points)";
    else if (point && format.decimalComma)
        why += " (the file's other numbers have decimal commas)";
    return why;
}

// A cell that holds a value: a number, or a date that the time column may hold.
bool isValue(std::string_view cell, bool decimalComma, std::string& buffer)
{
    double unused = 0;
    return parseNumber(cell, decimalComma, buffer, unused) != Number::NotANumber ||
           looksLikeIsoDate(cell);
}

// Why a time cell is not a date, quoted for the person.
std::string notADate(std::string_view cell, TimeFormat format)
{
    cell = unquote(trim(cell));
    std::string why = "\"";
    why += printable(cell, kQuotedBytes);
    why += "\" is not a date";
    double unused = 0;
    const Date date =
        format == TimeFormat::IsoDate ? parseIsoDate(cell, unused) : parseYyyyMmDd(cell, unused);
    switch (date.error) {
    case DateError::Month:
        return why + " (months run from 01 to 12)";
    case DateError::Day:
        return why + " (" + std::to_string(date.year) + "-" + (date.month < 10 ? "0" : "") +
               std::to_string(date.month) + " has " +
               std::to_string(daysInMonth(date.year, date.month)) + " days)";
    case DateError::TimeOfDay:
        return why + " (the time of day or its offset from UTC is out of range)";
    case DateError::Malformed:
    case DateError::None:
        break;
    }
    return why + (format == TimeFormat::IsoDate
                      ? " (dates are read as 1958-03-29, 1958-03-29T12:00:00 or "
                        "1958-03-29T12:00:00Z)"
                      : " (dates are read as YYYYMMDD, 19580329)");
}

// How well a format reads the sample: lines it reads whole (at least two numbers and no
// other text), then numbers read in lines of at least two.
struct Score
{
    std::size_t wholeLines = 0;
    std::size_t numbers = 0;
    auto operator<=>(const Score&) const = default;
};

Format chooseFormat(const std::vector<std::string_view>& sample,
                    std::vector<std::string_view>& fields, std::string& buffer)
{
    // Earlier formats win ties: a file without commas in its numbers reads the same either
    // way and is reported with decimal points, and a tab beats the blanks around it.
    static constexpr Format kFormats[] = {
        {Delimiter::Comma, false},     {Delimiter::Tab, false},      {Delimiter::Tab, true},
        {Delimiter::Semicolon, false}, {Delimiter::Semicolon, true}, {Delimiter::Whitespace, false},
        {Delimiter::Whitespace, true}};
    Format best;
    Score bestScore;
    for (const Format& format : kFormats) {
        Score score;
        for (std::string_view line : sample) {
            split(line, format.delimiter, fields, kMaxColumns + 1);
            std::size_t filled = 0, numbers = 0;
            for (std::string_view f : fields) {
                filled += !f.empty();
                numbers += !f.empty() && isValue(f, format.decimalComma, buffer);
            }
            if (numbers >= 2) {
                score.numbers += numbers;
                score.wholeLines += numbers == filled;
            }
        }
        if (bestScore < score) {
            best = format;
            bestScore = score;
        }
    }
    if (bestScore == Score{}) {
        // No line holds two numbers: name the delimiter the first line seems to use, for
        // the message that follows.
        const std::string_view first = sample.front();
        best.delimiter = first.find(',') != std::string_view::npos    ? Delimiter::Comma
                         : first.find('\t') != std::string_view::npos ? Delimiter::Tab
                         : first.find(';') != std::string_view::npos  ? Delimiter::Semicolon
                                                                      : Delimiter::Whitespace;
    }
    return best;
}

// A column name as compared: lower case, without quotes or a trailing unit such as
// " (BJD)" or " [mag]".
std::string nameKey(std::string_view name)
{
    name = unquote(trim(name));
    if (!name.empty() && (name.back() == ')' || name.back() == ']')) {
        const char open = name.back() == ')' ? '(' : '[';
        if (const auto at = name.rfind(open); at != std::string_view::npos && at > 0)
            name = trim(name.substr(0, at));
    }
    std::string out(name);
    for (char& c : out)
        c = toLower(c);
    return out;
}

bool isErrorName(const std::string& n)
{
    for (const char* w : {"dy", "err", "error", "sigma", "e", "uncertainty"})
        if (n == w)
            return true;
    return (n.size() > 4 && (n.ends_with("_err") || n.ends_with("_error"))) ||
           (n.size() > 3 && n.ends_with("err")) || n.starts_with("e_") || n.starts_with("err_") ||
           n.starts_with("sigma_");
}

// An exact name first, then a name that one of `prefixes` begins followed by '_', '-' or a
// blank, as in "BJD_TDB", "HJD-2450000" or "flux_corr"; error columns are not candidates.
int findColumn(const std::vector<std::string>& keys, std::initializer_list<const char*> wanted,
               std::initializer_list<const char*> prefixes)
{
    for (const char* w : wanted)
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == w)
                return int(i);
    for (const char* p : prefixes) {
        const std::size_t n = std::strlen(p);
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i].size() > n && keys[i].starts_with(p) &&
                (keys[i][n] == '_' || keys[i][n] == '-' || keys[i][n] == ' ') &&
                !isErrorName(keys[i]))
                return int(i);
    }
    return -1;
}

// The unit written after a column name, "time [d]" -> "d", lower case; "" when none is.
std::string nameUnit(std::string_view name)
{
    name = unquote(trim(name));
    if (name.empty() || (name.back() != ')' && name.back() != ']'))
        return {};
    const auto at = name.rfind(name.back() == ')' ? '(' : '[');
    if (at == std::string_view::npos || at == 0)
        return {};
    std::string out(trim(name.substr(at + 1, name.size() - at - 2)));
    for (char& c : out)
        c = toLower(c);
    return out;
}

// `word` starts s and is not the start of a longer word: "bjd_tdb" and "bjd-2450000" are
// BJD, "jdate" is not JD.
bool startsWord(std::string_view s, std::string_view word)
{
    return s.starts_with(word) && (s.size() == word.size() || !(toLower(s[word.size()]) >= 'a' &&
                                                                toLower(s[word.size()]) <= 'z'));
}

// The time scale a name or unit says, as "BTJD", "mjd" or "BJD - 2450000"; Number when it
// says none.
TimeFormat scaleOfName(std::string_view n)
{
    static constexpr std::pair<const char*, TimeFormat> kScales[] = {
        {"btjd", TimeFormat::Btjd}, {"bkjd", TimeFormat::Bkjd}, {"bjd", TimeFormat::Bjd},
        {"hjd", TimeFormat::Hjd},   {"mjd", TimeFormat::Mjd},   {"jd", TimeFormat::Jd}};
    for (const auto& [word, format] : kScales)
        if (startsWord(n, word))
            return format;
    return TimeFormat::Number;
}

bool isYearName(std::string_view n)
{
    for (const char* w : {"year", "years", "yr", "decimal_year", "decimal year", "decimal_date",
                          "decimal date", "date"})
        if (n == w)
            return true;
    return false;
}

TimeUnit unitOfName(std::string_view unit)
{
    for (const char* w : {"d", "day", "days"})
        if (unit == w)
            return TimeUnit::Day;
    for (const char* w : {"yr", "year", "years", "a"})
        if (unit == w)
            return TimeUnit::Year;
    return TimeUnit::Unknown;
}

// The time column's format, from its name (a header's, "" without one) and the cells of the
// sampled rows. Dates are recognised by their shape; decimal years only by a name, since
// numbers from 1000 to 3000 are as often something else; JD by its values.
TimeFormat detectTimeFormat(std::string_view name, const std::vector<std::string_view>& cells,
                            bool decimalComma, std::string& buffer)
{
    std::size_t filled = 0, isoDates = 0, eightDigits = 0, validEightDigits = 0, numbers = 0;
    std::size_t years = 0, jds = 0;
    for (std::string_view cell : cells) {
        if (trim(cell).empty())
            continue;
        ++filled;
        double v = 0;
        isoDates += looksLikeIsoDate(cell);
        if (looksLikeYyyyMmDd(cell)) {
            ++eightDigits;
            validEightDigits += parseYyyyMmDd(cell, v).error == DateError::None;
        }
        if (parseNumber(cell, decimalComma, buffer, v) == Number::Ok) {
            ++numbers;
            years += v >= kMinDecimalYear && v <= kMaxDecimalYear;
            jds += v >= kMinJd && v <= kMaxJd;
        }
    }
    if (filled == 0)
        return TimeFormat::Number;
    if (2 * isoDates >= filled)
        return TimeFormat::IsoDate;
    const std::string key = nameKey(name), unit = nameUnit(name);
    for (const std::string& n : {key, unit})
        if (const TimeFormat scale = scaleOfName(n); scale != TimeFormat::Number)
            return scale;
    if (eightDigits == filled && 2 * validEightDigits > filled)
        return TimeFormat::YyyyMmDd;
    if ((isYearName(key) || unitOfName(unit) == TimeUnit::Year) && numbers > 0 && years == numbers)
        return TimeFormat::DecimalYear;
    if (numbers > 0 && jds == numbers && (unit.empty() || unitOfName(unit) == TimeUnit::Day))
        return TimeFormat::Jd;
    return TimeFormat::Number;
}

int findErrorColumn(const std::vector<std::string>& keys)
{
    if (int i = findColumn(keys, {"dy", "err", "error", "sigma", "e", "uncertainty"}, {}); i >= 0)
        return i;
    for (std::size_t i = 0; i < keys.size(); ++i)
        if (isErrorName(keys[i]))
            return int(i);
    return -1;
}

// Units written apart in a whitespace-separated header, "time [d] flux [mJy]", belong to
// the name before them.
void joinUnits(std::string_view line, std::vector<std::string_view>& fields)
{
    std::vector<std::string_view> joined;
    for (std::string_view f : fields) {
        if (!joined.empty() && (f.front() == '(' || f.front() == '[')) {
            const char* start = joined.back().data();
            joined.back() = line.substr(std::size_t(start - line.data()),
                                        std::size_t(f.data() + f.size() - start));
        } else {
            joined.push_back(f);
        }
    }
    fields.swap(joined);
}

const char* encodingProblem(std::string_view text)
{
    if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"))
        return "The file is UTF-16 or UTF-32 text; save it as UTF-8 or ASCII to load it";
    return nullptr;
}

// FITS files by name, or by the first card that every FITS file starts with: ".lc" is
// also used for text light curves, so such a file is FITS only when it starts as one.
bool isFitsFile(const std::string& path, std::ifstream& in)
{
    std::string name = std::filesystem::path(path).filename().string();
    for (char& c : name)
        c = toLower(c);
    for (const char* extension : {".fits", ".fit", ".fts", ".fits.gz", ".fit.gz", ".fts.gz"})
        if (name.ends_with(extension))
            return true;
    char start[9] = {};
    in.seekg(0);
    in.read(start, sizeof start);
    const bool fits = in.gcount() == sizeof start && std::string_view(start, 9) == "SIMPLE  =";
    in.clear();
    in.seekg(0, std::ios::end);
    return fits;
}

} // namespace

namespace detail {

std::string plural(std::size_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string skippedRows(const LoadReport& r)
{
    std::string s;
    auto add = [&s](std::string part) { s += (s.empty() ? "" : "; ") + part; };
    if (r.nonNumericRows)
        add(plural(r.nonNumericRows, "non-numeric row", "non-numeric rows") + " skipped");
    if (r.outOfRangeRows)
        add(plural(r.outOfRangeRows, "row", "rows") +
            " with a number beyond the range of a double skipped");
    if (r.nonFiniteRows)
        add(plural(r.nonFiniteRows, "row", "rows") + " with NaN or infinity skipped");
    if (r.nonPositiveErrors)
        add(plural(r.nonPositiveErrors, "row", "rows") + " with dy <= 0 skipped");
    if (r.invalidDates)
        add(plural(r.invalidDates, "row", "rows") + " with an invalid date skipped");
    if (r.flaggedRows)
        add(plural(r.flaggedRows, "row", "rows") + " with QUALITY flags skipped");
    if (!r.firstSkipped.empty())
        add("first skipped: " + r.firstSkipped);
    return s;
}

std::string timeLabel(TimeFormat format, TimeUnit unit)
{
    switch (format) {
    case TimeFormat::IsoDate:
        return "days (MJD from ISO 8601 dates)";
    case TimeFormat::YyyyMmDd:
        return "days (MJD from YYYYMMDD dates)";
    case TimeFormat::DecimalYear:
        return "years";
    case TimeFormat::Jd:
        return "days (JD)";
    case TimeFormat::Mjd:
        return "days (MJD)";
    case TimeFormat::Hjd:
        return "days (HJD)";
    case TimeFormat::Bjd:
        return "days (BJD)";
    case TimeFormat::Btjd:
        return "days (BTJD = BJD - 2457000)";
    case TimeFormat::Bkjd:
        return "days (BKJD = BJD - 2454833)";
    case TimeFormat::Auto:
    case TimeFormat::Number:
        break;
    }
    return unit == TimeUnit::Day ? "days" : unit == TimeUnit::Year ? "years" : "";
}

void orderByTime(TimeSeries& series, LoadReport& report)
{
    report.rows = series.t.size();
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
}

} // namespace detail

using detail::skippedRows;

const char* timeFormatName(TimeFormat format)
{
    switch (format) {
    case TimeFormat::Auto:
        return "automatic";
    case TimeFormat::Number:
        return "number";
    case TimeFormat::IsoDate:
        return "ISO 8601 date";
    case TimeFormat::YyyyMmDd:
        return "YYYYMMDD";
    case TimeFormat::DecimalYear:
        return "decimal year";
    case TimeFormat::Jd:
        return "JD";
    case TimeFormat::Mjd:
        return "MJD";
    case TimeFormat::Hjd:
        return "HJD";
    case TimeFormat::Bjd:
        return "BJD";
    case TimeFormat::Btjd:
        return "BTJD";
    case TimeFormat::Bkjd:
        break;
    }
    return "BKJD";
}

std::string LoadReport::summary() const
{
    std::string s = plural(rows, "row", "rows");
    if (decimalComma)
        s += "; numbers with decimal commas";
    // Dates are shown as the days they became, so the line says so.
    if (isDateFormat(timeFormat))
        s += "; t in " + timeLabel;
    if (const std::string skips = skippedRows(*this); !skips.empty())
        s += "; " + skips;
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
    if (const char* problem = encodingProblem(text))
        return Status::failure(problem);
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);
    const char lineEnd = lineBreak(text);
    std::vector<std::string_view> fields;
    std::string buffer;

    std::vector<std::string_view> sample;
    std::size_t firstLineNumber = 0;
    for (std::size_t pos = 0, number = 1; pos < text.size() && sample.size() < kSampleLines;
         ++number) {
        const std::string_view line = content(nextLine(text, lineEnd, pos));
        if (line.empty())
            continue;
        if (sample.empty())
            firstLineNumber = number;
        sample.push_back(line);
    }
    if (sample.empty())
        return Status::failure("The file holds no data");
    const Format format = chooseFormat(sample, fields, buffer);
    report.delimiter = delimiterName(format.delimiter);
    report.decimalComma = format.decimalComma;

    // The first line is a header when it holds two or more cells and no number or date; a
    // title line of one cell is skipped as a non-numeric row.
    split(sample.front(), format.delimiter, fields);
    if (fields.size() > kMaxColumns)
        return Status::failure("The first line has " + std::to_string(fields.size()) +
                               " cells; at most " + std::to_string(kMaxColumns) +
                               " columns are read");
    bool header =
        fields.size() >= 2 && std::none_of(fields.begin(), fields.end(), [&](std::string_view f) {
            return isValue(f, format.decimalComma, buffer);
        });
    std::vector<std::string_view> names;
    if (header) {
        names = fields;
        if (format.delimiter == Delimiter::Whitespace)
            joinUnits(sample.front(), names);
    }
    // The columns menus offer the widest row's cells; a dy by position needs most rows to
    // have it, so that one long line does not empty the others.
    std::size_t widest = 0, withDy = 0;
    for (std::size_t i = header ? 1 : 0; i < sample.size(); ++i) {
        split(sample[i], format.delimiter, fields, kMaxColumns);
        widest = std::max(widest, fields.size());
        withDy += choice.dy >= 0 && fields.size() > std::size_t(choice.dy);
    }
    if (header && sample.size() == 1)
        return Status::failure("The file has a header but no data rows");
    if (header && format.delimiter == Delimiter::Comma && widest > names.size() &&
        std::all_of(sample.begin() + 1, sample.end(), [&](std::string_view line) {
            split(line, format.delimiter, fields, kMaxColumns);
            return fields.size() > names.size();
        }))
        return Status::failure(
            "The header names " + plural(names.size(), "column", "columns") +
            " but every row has more cells: if the numbers use decimal commas, they cannot be "
            "told from the commas between cells. Save the file with semicolons or tabs between "
            "cells, or with decimal points; or name every column in the header");
    // A whitespace-separated first line whose words do not match the rows' cells one to one
    // names nothing: it is a title, counted as a non-numeric row.
    if (header && format.delimiter == Delimiter::Whitespace && names.size() != widest) {
        header = false;
        names.clear();
    }
    for (std::size_t i = 0; i < std::max(names.size(), widest); ++i)
        report.columns.push_back(i < names.size() ? printable(unquote(names[i]), kNameBytes)
                                                  : "column " + std::to_string(i + 1));

    int tCol = choice.t, yCol = choice.y, dyCol = -1;
    // Recognised names choose the columns; a header of other names leaves the positions to
    // choose, as without a header.
    bool named = false;
    if (!names.empty() && choice.byName) {
        std::vector<std::string> keys;
        for (std::string_view n : names)
            keys.push_back(nameKey(n));
        // "decimal date" before "year": NOAA's monthly CO2 has both, and the first is the time.
        if (int i = findColumn(keys,
                               {"t", "time", "mjd", "jd", "bjd", "btjd", "bkjd", "hjd", "date",
                                "datetime", "decimal_date", "decimal date", "decimal_year",
                                "decimal year", "year", "x"},
                               {"time", "mjd", "jd", "bjd", "btjd", "bkjd", "hjd", "date"});
            i >= 0) {
            tCol = i;
            named = true;
        }
        if (int i = findColumn(keys, {"y", "flux", "mag", "magnitude", "value", "rv", "signal"},
                               {"flux", "mag", "rv"});
            i >= 0) {
            yCol = i;
            named = true;
        }
        dyCol = findErrorColumn(keys);
        named = named || dyCol >= 0;
    }
    const std::size_t columnCount = report.columns.size();
    const std::size_t dataLines = sample.size() - (header ? 1 : 0);
    if (!named && choice.dy >= 0 && 2 * withDy > dataLines && choice.dy != tCol &&
        choice.dy != yCol)
        dyCol = choice.dy;
    if (tCol < 0 || yCol < 0 || tCol == yCol || std::size_t(tCol) >= columnCount ||
        std::size_t(yCol) >= columnCount)
        return Status::failure("The file has " + plural(columnCount, "column", "columns") +
                               "; columns " + std::to_string(tCol + 1) + " (t) and " +
                               std::to_string(yCol + 1) + " (y) cannot be used");
    report.tColumn = tCol;
    report.yColumn = yCol;
    report.dyColumn = dyCol;

    if (choice.timeFormat != TimeFormat::Auto) {
        report.timeFormat = choice.timeFormat;
    } else {
        std::vector<std::string_view> timeCells;
        for (std::size_t i = header ? 1 : 0; i < sample.size(); ++i) {
            split(sample[i], format.delimiter, fields, std::size_t(tCol) + 1);
            if (std::size_t(tCol) < fields.size())
                timeCells.push_back(fields[std::size_t(tCol)]);
        }
        report.timeFormat = detectTimeFormat(
            std::size_t(tCol) < names.size() ? names[std::size_t(tCol)] : std::string_view{},
            timeCells, format.decimalComma, buffer);
    }
    report.timeUnit = report.timeFormat == TimeFormat::DecimalYear ? TimeUnit::Year
                      : report.timeFormat != TimeFormat::Number    ? TimeUnit::Day
                      : std::size_t(tCol) < names.size()
                          ? unitOfName(nameUnit(names[std::size_t(tCol)]))
                          : TimeUnit::Unknown;
    report.timeLabel = detail::timeLabel(report.timeFormat, report.timeUnit);
    const bool dates = isDateFormat(report.timeFormat);

    const int chosen[3] = {tCol, yCol, dyCol};
    const std::size_t needed = std::size_t(std::max({tCol, yCol, dyCol})) + 1;
    std::size_t lineNumber = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::string_view line = content(nextLine(text, lineEnd, pos));
        if (++lineNumber % kProgressLines == 0 && progress &&
            !progress(double(std::min(pos, text.size())) / double(text.size())))
            return Status::failure("Loading was cancelled");
        if (line.empty() || (header && lineNumber == firstLineNumber))
            continue;
        split(line, format.delimiter, fields, needed);
        double values[3] = {0, 0, 1};
        Number worst = Number::Ok;
        std::size_t badColumn = 0; // the first cell refused, or the first out of range
        for (int k = 0; k < 3; ++k) {
            if (chosen[k] < 0)
                continue;
            const auto column = std::size_t(chosen[k]);
            Number n = Number::NotANumber;
            if (column < fields.size() && k == 0 && dates)
                n = (report.timeFormat == TimeFormat::IsoDate
                         ? parseIsoDate(fields[column], values[k])
                         : parseYyyyMmDd(fields[column], values[k]))
                                .error == DateError::None
                        ? Number::Ok
                        : Number::NotADate;
            else if (column < fields.size())
                n = parseNumber(fields[column], format.decimalComma, buffer, values[k]);
            if (n == Number::Ok || (n == Number::OutOfRange && worst == Number::OutOfRange))
                continue;
            worst = n;
            badColumn = column;
            if (n != Number::OutOfRange)
                break;
        }
        const auto [t, y, dy] = values;
        const bool finite = std::isfinite(t) && std::isfinite(y) && std::isfinite(dy);
        if (worst == Number::NotANumber) {
            ++report.nonNumericRows;
        } else if (worst == Number::NotADate) {
            ++report.invalidDates;
        } else if (worst == Number::OutOfRange) {
            ++report.outOfRangeRows;
        } else if (!finite) {
            ++report.nonFiniteRows;
        } else if (dyCol >= 0 && !(dy > 0.0)) {
            ++report.nonPositiveErrors;
        } else {
            series.t.push_back(t);
            series.y.push_back(y);
            if (dyCol >= 0)
                series.dy.push_back(dy);
            continue;
        }
        if (!report.firstSkipped.empty())
            continue;
        // Only the first skipped row's cause is written out, so large files stay fast.
        const std::string where = "line " + std::to_string(lineNumber);
        const std::string cell = where + ", column " + std::to_string(badColumn + 1);
        if (worst == Number::NotANumber && badColumn >= fields.size())
            report.firstSkipped = cell + " is missing";
        else if (worst == Number::NotANumber && unquote(fields[badColumn]).empty())
            report.firstSkipped = cell + " is empty";
        else if (worst == Number::NotANumber)
            report.firstSkipped = cell + ": " + notANumber(fields[badColumn], format);
        else if (worst == Number::NotADate)
            report.firstSkipped = cell + ": " + notADate(fields[badColumn], report.timeFormat);
        else if (worst == Number::OutOfRange)
            report.firstSkipped = cell + ": \"" +
                                  printable(unquote(fields[badColumn]), kQuotedBytes) +
                                  "\" is beyond the range of a double";
        else if (!finite)
            report.firstSkipped = where + " holds NaN or infinity";
        else
            report.firstSkipped =
                where + ", column " + std::to_string(dyCol + 1) + ": dy is not positive";
    }
    if (progress && !progress(1.0))
        return Status::failure("Loading was cancelled");
    report.rows = series.t.size();
    if (report.rows == 0) {
        std::string columnsUsed =
            "columns " + std::to_string(tCol + 1) + " (t) and " + std::to_string(yCol + 1) + " (y)";
        if (dyCol >= 0)
            columnsUsed += " with " + std::to_string(dyCol + 1) + " (dy)";
        return Status::failure("No row holds usable numbers in " + columnsUsed + ": " +
                               skippedRows(report));
    }
    detail::orderByTime(series, report);
    return Status::success();
}

Status loadTimeSeries(const std::string& path, const ColumnChoice& columns, TimeSeries& series,
                      LoadReport& report, const LoadProgress& progress)
{
    // A folder opens as a stream on Linux and only fails to read; devices and pipes have no
    // size to read up to.
    std::error_code error;
    const auto kind = std::filesystem::status(path, error).type();
    if (kind == std::filesystem::file_type::directory)
        return Status::failure(path + " is a folder, not a file");
    if (!error && kind != std::filesystem::file_type::regular)
        return Status::failure(path + " is not a regular file");
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return Status::failure("Cannot open " + path + ": " + std::strerror(errno));
    if (isFitsFile(path, in))
        return loadFitsLightCurve(path, columns, series, report, progress);
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
    if (const char* problem = encodingProblem(text))
        return Status::failure(path + ": " + problem);
    if (text.find('\0') != std::string::npos)
        return Status::failure(path + " is not a text file");
    return parseTimeSeries(text, columns, series, report, progress);
}

} // namespace warpscope::gpu
