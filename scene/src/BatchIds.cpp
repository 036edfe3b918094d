#include "warpscope/scene/BatchIds.h"

#include <string_view>

namespace warpscope::scene {
namespace {

constexpr std::string_view kPeriodogramSuffix = ".periodogram.csv";
constexpr char kHexDigits[] = "0123456789ABCDEF";

bool keptInFileName(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || (c == '.' && !first);
}

int hexValue(char c)
{
    for (int v = 0; v < 16; ++v)
        if (kHexDigits[v] == c)
            return v;
    return -1;
}

} // namespace

std::string spreadsheetSafe(const std::string& text)
{
    if (text.empty())
        return text;
    switch (text.front()) {
    case '=':
    case '+':
    case '-':
    case '@':
    case '\t':
    case '\r':
    case '\'':
        return "'" + text;
    default:
        return text;
    }
}

std::string fromSpreadsheetSafe(const std::string& cell)
{
    return !cell.empty() && cell.front() == '\'' ? cell.substr(1) : cell;
}

std::string periodogramFileName(const std::string& id)
{
    if (id.empty())
        return {};
    std::string name;
    for (std::size_t i = 0; i < id.size(); ++i) {
        const char c = id[i];
        if (keptInFileName(c, i == 0)) {
            name += c;
        } else {
            const auto byte = static_cast<unsigned char>(c);
            name += '%';
            name += kHexDigits[byte >> 4];
            name += kHexDigits[byte & 15];
        }
    }
    return name + std::string(kPeriodogramSuffix);
}

std::optional<std::string> periodogramFileId(const std::string& name)
{
    if (name.size() <= kPeriodogramSuffix.size() ||
        std::string_view(name).substr(name.size() - kPeriodogramSuffix.size()) !=
            kPeriodogramSuffix)
        return std::nullopt;
    const std::string_view encoded =
        std::string_view(name).substr(0, name.size() - kPeriodogramSuffix.size());
    std::string id;
    for (std::size_t i = 0; i < encoded.size(); ++i) {
        const char c = encoded[i];
        if (c != '%') {
            // A byte the name would have escaped: no id gives this name.
            if (!keptInFileName(c, i == 0))
                return std::nullopt;
            id += c;
            continue;
        }
        const bool whole = i + 2 < encoded.size();
        const int high = whole ? hexValue(encoded[i + 1]) : -1;
        const int low = whole ? hexValue(encoded[i + 2]) : -1;
        if (high < 0 || low < 0)
            return std::nullopt;
        const char byte = static_cast<char>(high * 16 + low);
        // An escaped byte the name would have kept: no id gives this name either.
        if (keptInFileName(byte, i == 0))
            return std::nullopt;
        id += byte;
        i += 2;
    }
    return id;
}

} // namespace warpscope::scene
