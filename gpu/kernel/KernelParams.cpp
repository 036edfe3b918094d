// The live parameters of a user's kernel: `// @param float k = 1.0 [0, 10]`,
// `// @param int n = 8 [1, 64]` and `// @param bool on = true` lines.
#include "kernel/KernelShared.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
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
    // A whole number as C++ writes an int's decimal literal, with an optional sign: "8.0",
    // "1e3" and "0x10" are not taken.
    bool integer(long long& value)
    {
        skipSpace();
        const char* first = text.data() + pos;
        const char* last = text.data() + text.size();
        if (first != last && *first == '+' && ++first != last && *first == '-')
            return false;
        const auto [end, error] = std::from_chars(first, last, value);
        if (error != std::errc())
            return false;
        if (end != last &&
            (std::isalnum(static_cast<unsigned char>(*end)) || *end == '.' || *end == '_'))
            return false;
        pos = std::size_t(end - text.data());
        return true;
    }
};

constexpr std::string_view kFloatForm = "// @param float name = value [min, max]";
constexpr std::string_view kIntForm = "// @param int name = value [min, max]";
constexpr std::string_view kBoolForm = "// @param bool name = true";

std::string formatError(std::string_view what, std::string_view form = kFloatForm)
{
    return "@param " + std::string(what) + "; write it as: " + std::string(form);
}

std::string quoted(std::string_view name)
{
    return "'" + std::string(name) + "'";
}

// Why the text after a parameter's value (or range) is not the end of the line, or empty.
std::string trailingText(Reader& r, std::string_view name, std::string_view after)
{
    r.skipSpace();
    if (r.pos == r.text.size())
        return {};
    return "@param " + quoted(name) + " has unexpected text after its " + std::string(after) +
           ": '" + std::string(r.text.substr(r.pos)) + "'";
}

// Why [lo, hi] is not a range holding value, or empty.
template <typename T> std::string rangeProblem(std::string_view name, T value, T lo, T hi)
{
    if (!(lo < hi))
        return "@param " + quoted(name) + ": min must be below max";
    if (value < lo || value > hi)
        return "@param " + quoted(name) + ": the value must lie within [min, max]";
    return {};
}

// `= value [min, max]` of a float.
std::string parseFloat(Reader& r, std::string_view name, KernelParam& param)
{
    float value = 0.0f, lo = 0.0f, hi = 0.0f;
    if (!r.number(value))
        return formatError(quoted(name) + " needs a finite number as its value");
    if (!r.take('[') || !r.number(lo) || !r.take(',') || !r.number(hi) || !r.take(']'))
        return formatError(quoted(name) + " needs a range [min, max] of finite numbers");
    if (std::string error = trailingText(r, name, "range"); !error.empty())
        return error;
    if (std::string error = rangeProblem(name, value, lo, hi); !error.empty())
        return error;
    param = {std::string(name), value, lo, hi, 0, KernelParamType::Float};
    return {};
}

// `= value [min, max]` of an int: whole numbers, the range within int's.
std::string parseInt(Reader& r, std::string_view name, KernelParam& param)
{
    long long value = 0, lo = 0, hi = 0;
    if (!r.integer(value))
        return formatError(quoted(name) + " needs a whole number as its value", kIntForm);
    if (!r.take('[') || !r.integer(lo) || !r.take(',') || !r.integer(hi) || !r.take(']'))
        return formatError(quoted(name) + " needs a range [min, max] of whole numbers", kIntForm);
    if (std::string error = trailingText(r, name, "range"); !error.empty())
        return error;
    constexpr long long intMin = std::numeric_limits<int>::min();
    constexpr long long intMax = std::numeric_limits<int>::max();
    if (lo < intMin || hi > intMax)
        return "@param " + quoted(name) + ": min and max must lie within int's range [" +
               std::to_string(intMin) + ", " + std::to_string(intMax) + "]";
    if (std::string error = rangeProblem(name, value, lo, hi); !error.empty())
        return error;
    param = {std::string(name), double(value), double(lo), double(hi), 0, KernelParamType::Int};
    return {};
}

// `= true` or `= false`, and no range: a check box.
std::string parseBool(Reader& r, std::string_view name, KernelParam& param)
{
    const std::string_view value = r.word();
    if (value != "true" && value != "false")
        return formatError(quoted(name) + " needs true or false as its value", kBoolForm);
    r.skipSpace();
    if (r.pos < r.text.size() && r.text[r.pos] == '[')
        return "@param " + quoted(name) + " is a bool, which takes no range [min, max]";
    if (std::string error = trailingText(r, name, "value"); !error.empty())
        return error;
    param = {std::string(name), value == "true" ? 1.0 : 0.0, 0.0, 1.0, 0, KernelParamType::Bool};
    return {};
}

// Why a name is not a parameter's or buffer's name (see parseOne), or empty.
std::string nameProblem(std::string_view what, std::string_view name)
{
    if (name.empty())
        return std::string(what) + " needs a name";
    if (std::isdigit(static_cast<unsigned char>(name.front())))
        return std::string(what) + " name '" + std::string(name) + "' must not start with a digit";
    if (name.size() > kMaxNameLength)
        return std::string(what) + " name is longer than " + std::to_string(kMaxNameLength) +
               " characters";
    if (kReserved.count(name) || name.starts_with("ws_") || name.starts_with("__"))
        return std::string(what) + " name '" + std::string(name) + "' is reserved";
    return {};
}

// Parses the text after "@param" on one line, or says what is wrong with it.
std::string parseOne(std::string_view text, KernelParam& param)
{
    Reader r{text};
    const std::string_view type = r.word();
    if (type.empty())
        return formatError("needs a type (float, int or bool)");
    if (type != "float" && type != "int" && type != "bool")
        return "@param type '" + std::string(type) +
               "' is not supported: parameters are float, int or bool";
    const std::string_view form = type == "int"    ? kIntForm
                                  : type == "bool" ? kBoolForm
                                                   : kFloatForm;
    const std::string_view name = r.word();
    if (name.empty())
        return formatError("needs a name", form);
    if (std::string problem = nameProblem("@param", name); !problem.empty())
        return problem;
    if (!r.take('='))
        return formatError(quoted(name) + " needs '= value'", form);
    if (type == "int")
        return parseInt(r, name, param);
    if (type == "bool")
        return parseBool(r, name, param);
    return parseFloat(r, name, param);
}

std::string duplicateName(const KernelParamParse& parsed, const std::string& name)
{
    for (const KernelParam& other : parsed.params)
        if (other.name == name)
            return "'" + name + "' is declared twice (first at line " + std::to_string(other.line) +
                   ")";
    for (const KernelBuffer& other : parsed.buffers)
        if (other.name == name)
            return "'" + name + "' is declared twice (first at line " + std::to_string(other.line) +
                   ")";
    return {};
}

constexpr std::string_view kBufferForm = "// @buffer float name[size], the size a whole number "
                                         "or nodes, nx, ny, blocks or threads, times a number";

// `float name[nodes * 2]` after "@buffer".
std::string parseBuffer(std::string_view text, KernelBuffer& buffer)
{
    Reader r{text};
    const std::string_view type = r.word();
    static const std::pair<std::string_view, KernelBufferType> kTypes[] = {
        {"float", KernelBufferType::Float},
        {"double", KernelBufferType::Double},
        {"int", KernelBufferType::Int},
        {"unsigned", KernelBufferType::Unsigned}};
    const auto* found = std::find_if(std::begin(kTypes), std::end(kTypes),
                                     [&](const auto& t) { return t.first == type; });
    if (found == std::end(kTypes))
        return "@buffer type '" + std::string(type) +
               "' is not supported: buffers hold float, double, int or unsigned; write it as: " +
               std::string(kBufferForm);
    buffer.type = found->second;
    const std::string_view name = r.word();
    if (std::string problem = nameProblem("@buffer", name); !problem.empty())
        return problem;
    buffer.name = std::string(name);
    if (!r.take('['))
        return "@buffer " + quoted(name) +
               " needs a size in brackets; write it as: " + std::string(kBufferForm);
    static const std::pair<std::string_view, KernelBufferUnit> kUnits[] = {
        {"nodes", KernelBufferUnit::Nodes},
        {"nx", KernelBufferUnit::Nx},
        {"ny", KernelBufferUnit::Ny},
        {"blocks", KernelBufferUnit::Blocks},
        {"threads", KernelBufferUnit::Threads}};
    // A count, a number, or either times the other.
    buffer.unit = KernelBufferUnit::One;
    buffer.factor = 1;
    for (int term = 0; term < 2; ++term) {
        if (term == 1 && !r.take('*'))
            break;
        long long number = 0;
        const std::size_t before = r.pos;
        const std::string_view word = r.word();
        const auto* unit = std::find_if(std::begin(kUnits), std::end(kUnits),
                                        [&](const auto& u) { return u.first == word; });
        if (unit != std::end(kUnits) && buffer.unit == KernelBufferUnit::One) {
            buffer.unit = unit->second;
            continue;
        }
        r.pos = before;
        if (!r.integer(number) || number < 1 || number > (long long)kMaxKernelBufferBytes)
            return "@buffer " + quoted(name) + "'s size must be a whole number from 1 to " +
                   std::to_string(kMaxKernelBufferBytes) +
                   " or one of nodes, nx, ny, blocks, threads, times a number";
        buffer.factor *= number;
    }
    if (!r.take(']'))
        return "@buffer " + quoted(name) +
               " needs ']' after its size; write it as: " + std::string(kBufferForm);
    r.skipSpace();
    if (r.pos != r.text.size())
        return "@buffer " + quoted(name) + " has unexpected text after its size: '" +
               std::string(r.text.substr(r.pos)) + "'";
    return {};
}

} // namespace

std::size_t kernelBufferElementBytes(KernelBufferType type)
{
    return type == KernelBufferType::Double ? 8 : 4;
}

std::uint64_t kernelBufferCount(const KernelBuffer& buffer, const DistanceParams& mesh,
                                const LaunchConfig& launch)
{
    const auto blocks = [&] {
        return std::uint64_t(launch.grid.x) * launch.grid.y * launch.grid.z;
    };
    std::uint64_t base = 1;
    switch (buffer.unit) {
    case KernelBufferUnit::One:
        break;
    case KernelBufferUnit::Nodes:
        base = std::uint64_t(std::max(mesh.nx, 0)) * std::uint64_t(std::max(mesh.ny, 0));
        break;
    case KernelBufferUnit::Nx:
        base = std::uint64_t(std::max(mesh.nx, 0));
        break;
    case KernelBufferUnit::Ny:
        base = std::uint64_t(std::max(mesh.ny, 0));
        break;
    case KernelBufferUnit::Blocks:
        base = blocks();
        break;
    case KernelBufferUnit::Threads:
        base = blocks() * launch.block.x * launch.block.y * launch.block.z;
        break;
    }
    const std::uint64_t limit = kMaxKernelBufferBytes / kernelBufferElementBytes(buffer.type);
    if (buffer.factor < 1 || base > limit || base * std::uint64_t(buffer.factor) > limit)
        return 0;
    return base * std::uint64_t(buffer.factor);
}

double kernelParamValue(const KernelParam& param, double value)
{
    if (std::isnan(value))
        return param.value;
    const double within = std::clamp(value, param.min, param.max);
    switch (param.type) {
    case KernelParamType::Bool:
        return value != 0.0 ? 1.0 : 0.0;
    case KernelParamType::Int:
        return std::round(within);
    case KernelParamType::Float:
        break;
    }
    return double(float(within));
}

KernelParamLayout kernelParamLayout(const std::vector<KernelParam>& params,
                                    const std::vector<KernelBuffer>& buffers)
{
    KernelParamLayout layout;
    std::size_t end = 0, alignment = 1;
    for (const KernelParam& p : params) {
        const std::size_t size = kernelParamBytes(p.type);
        end = (end + size - 1) / size * size; // each member is aligned to its own size
        layout.offsets.push_back(end);
        end += size;
        alignment = std::max(alignment, size);
    }
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        end = (end + 7) / 8 * 8;
        layout.bufferOffsets.push_back(end);
        end += sizeof(KernelAbiBuffer);
        alignment = 8;
    }
    layout.size = std::max<std::size_t>(1, (end + alignment - 1) / alignment * alignment);
    return layout;
}

std::string kernelValuesProblem(const std::vector<KernelParam>& params,
                                const std::vector<double>& values)
{
    if (values.size() != params.size())
        return "The kernel takes " + std::to_string(params.size()) + " parameter value(s); " +
               std::to_string(values.size()) + " were given";
    for (std::size_t i = 0; i < params.size(); ++i) {
        const double v = values[i];
        const std::string what = "The value of @param '" + params[i].name + "'";
        switch (params[i].type) {
        case KernelParamType::Float:
            if (!std::isfinite(v))
                return what + " is not finite";
            if (std::fabs(v) > double(std::numeric_limits<float>::max()))
                return what + " is beyond float's range";
            break;
        case KernelParamType::Int:
            if (!(v == std::trunc(v) && v >= std::numeric_limits<int>::min() &&
                  v <= std::numeric_limits<int>::max()))
                return what + " is not a whole number within int's range";
            break;
        case KernelParamType::Bool:
            if (v != 0.0 && v != 1.0)
                return what + " must be 0 (false) or 1 (true)";
            break;
        }
    }
    return {};
}

std::string packKernelParams(const std::vector<KernelParam>& params,
                             const std::vector<double>& values,
                             const std::vector<KernelBuffer>& buffers)
{
    const KernelParamLayout layout = kernelParamLayout(params, buffers);
    std::string bytes(layout.size, '\0');
    for (std::size_t i = 0; i < params.size() && i < values.size(); ++i) {
        char* at = bytes.data() + layout.offsets[i];
        if (params[i].type == KernelParamType::Float) {
            const float v = float(values[i]);
            std::memcpy(at, &v, sizeof v);
        } else if (params[i].type == KernelParamType::Int) {
            const std::int32_t v = std::int32_t(values[i]);
            std::memcpy(at, &v, sizeof v);
        } else {
            *at = values[i] != 0.0 ? 1 : 0;
        }
    }
    return bytes;
}

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
        if (const std::size_t at = text.find("@buffer", comment); at != std::string_view::npos) {
            std::string_view rest = text.substr(at + 7);
            if (!rest.empty() && rest.back() == '\r')
                rest.remove_suffix(1);
            KernelBuffer buffer;
            std::string error = parseBuffer(rest, buffer);
            if (error.empty())
                error = duplicateName(result, buffer.name);
            if (error.empty() && result.buffers.size() == std::size_t(kMaxKernelBuffers))
                error = "At most " + std::to_string(kMaxKernelBuffers) + " @buffer declarations";
            if (!error.empty()) {
                result.errors.push_back(
                    {Severity::Error, line, int(comment) + 1, std::move(error)});
                continue;
            }
            buffer.line = line;
            result.buffers.push_back(std::move(buffer));
            continue;
        }
        const std::size_t at = text.find("@param", comment);
        if (at == std::string_view::npos)
            continue;
        std::string_view rest = text.substr(at + 6);
        if (!rest.empty() && rest.back() == '\r')
            rest.remove_suffix(1);
        KernelParam param;
        std::string error = parseOne(rest, param);
        if (error.empty())
            error = duplicateName(result, param.name);
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
