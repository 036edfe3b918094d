// The live parameters of a user's kernel: `// @param float k = 1.0 [0, 10]` lines.
#include "warpscope/gpu/UserKernel.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

namespace warpscope::gpu {
namespace {

const std::set<std::string_view> kReserved = {
    "alignas",   "alignof",  "asm",      "auto",      "bool",      "break",    "case",
    "catch",     "char",     "class",    "const",     "constexpr", "continue", "default",
    "delete",    "do",       "double",   "else",      "enum",      "explicit", "extern",
    "false",     "float",    "for",      "friend",    "goto",      "if",       "inline",
    "int",       "long",     "mutable",  "namespace", "new",       "operator", "private",
    "protected", "public",   "register", "return",    "short",     "signed",   "sizeof",
    "static",    "struct",   "switch",   "template",  "this",      "throw",    "true",
    "try",       "typedef",  "typename", "union",     "unsigned",  "using",    "virtual",
    "void",      "volatile", "while",    "nullptr",   "noexcept",  "decltype", "static_assert"};

constexpr std::size_t kMaxNameLength = 64;

// A cursor over one declaration, after "@param".
struct Reader
{
    std::string_view text;
    std::size_t pos = 0;

    void skipSpace()
    {
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
            ++pos;
    }
    bool take(char c)
    {
        skipSpace();
        if (pos < text.size() && text[pos] == c) {
            ++pos;
            return true;
        }
        return false;
    }
    std::string_view word()
    {
        skipSpace();
        const std::size_t start = pos;
        while (pos < text.size() &&
               (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
            ++pos;
        return text.substr(start, pos - start);
    }
    bool number(float& value)
    {
        skipSpace();
        const char* first = text.data() + pos;
        const char* last = text.data() + text.size();
        if (first != last && *first == '+')
            ++first;
        double parsed = 0.0;
        const auto [end, error] = std::from_chars(first, last, parsed);
        if (error != std::errc() || !std::isfinite(parsed) || std::fabs(parsed) > 3.0e38)
            return false;
        // A trailing 'f' as in C++ literals is accepted.
        pos = std::size_t(end - text.data());
        if (pos < text.size() && (text[pos] == 'f' || text[pos] == 'F'))
            ++pos;
        value = float(parsed);
        return true;
    }
};

std::string formatError(std::string_view what)
{
    return "@param " + std::string(what) + "; write it as: // @param float name = value [min, max]";
}

// Parses the text after "@param" on one line, or says what is wrong with it.
std::string parseOne(std::string_view text, KernelParam& param)
{
    Reader r{text};
    const std::string_view type = r.word();
    if (type.empty())
        return formatError("needs a type");
    if (type != "float")
        return "@param type '" + std::string(type) + "' is not supported: parameters are float";
    const std::string_view name = r.word();
    if (name.empty())
        return formatError("needs a name");
    if (std::isdigit(static_cast<unsigned char>(name.front())))
        return "@param name '" + std::string(name) + "' must not start with a digit";
    if (name.size() > kMaxNameLength)
        return "@param name is longer than " + std::to_string(kMaxNameLength) + " characters";
    if (kReserved.count(name) || name.starts_with("ws_") || name.starts_with("__"))
        return "@param name '" + std::string(name) + "' is reserved";
    if (!r.take('='))
        return formatError("'" + std::string(name) + "' needs '= value'");
    float value = 0.0f, lo = 0.0f, hi = 0.0f;
    if (!r.number(value))
        return formatError("'" + std::string(name) + "' needs a finite number as its value");
    if (!r.take('[') || !r.number(lo) || !r.take(',') || !r.number(hi) || !r.take(']'))
        return formatError("'" + std::string(name) +
                           "' needs a range [min, max] of finite numbers");
    r.skipSpace();
    if (r.pos != text.size())
        return "@param '" + std::string(name) + "' has unexpected text after its range: '" +
               std::string(text.substr(r.pos)) + "'";
    if (!(lo < hi))
        return "@param '" + std::string(name) + "': min must be below max";
    if (value < lo || value > hi)
        return "@param '" + std::string(name) + "': the value must lie within [min, max]";
    param = {std::string(name), value, lo, hi, 0};
    return {};
}

} // namespace

KernelParamParse parseKernelParams(std::string_view code)
{
    KernelParamParse result;
    int line = 0;
    std::size_t start = 0;
    while (start <= code.size()) {
        ++line;
        std::size_t end = code.find('\n', start);
        if (end == std::string_view::npos)
            end = code.size();
        const std::string_view text = code.substr(start, end - start);
        start = end + 1;
        const std::size_t comment = text.find("//");
        if (comment == std::string_view::npos)
            continue;
        const std::size_t at = text.find("@param", comment);
        if (at == std::string_view::npos)
            continue;
        std::string_view rest = text.substr(at + 6);
        if (!rest.empty() && rest.back() == '\r')
            rest.remove_suffix(1);
        KernelParam param;
        std::string error = parseOne(rest, param);
        if (error.empty()) {
            for (const KernelParam& other : result.params)
                if (other.name == param.name)
                    error = "@param '" + param.name + "' is declared twice (first at line " +
                            std::to_string(other.line) + ")";
        }
        if (error.empty() && result.params.size() == std::size_t(kMaxKernelParams))
            error = "At most " + std::to_string(kMaxKernelParams) + " @param declarations";
        if (!error.empty()) {
            result.errors.push_back({Severity::Error, line, int(comment) + 1, std::move(error)});
            continue;
        }
        param.line = line;
        result.params.push_back(std::move(param));
    }
    return result;
}

} // namespace warpscope::gpu
