// The user's code as the simulator compiles it (cpuUserCode in KernelShared.h): shared memory
// declarations become the runner's shared memory (SharedMemoryCheck.h), and the cooperative
// groups header is left to the prelude. Every rewrite keeps the user's lines where they were,
// so that the compiler's messages and the checks' findings name them.
#include "kernel/KernelShared.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpscope::gpu {
namespace {

bool identifierChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Whether stripped holds the word at at, not as part of a longer identifier.
bool wordAt(std::string_view stripped, std::size_t at, std::string_view word)
{
    return stripped.substr(at, word.size()) == word &&
           (at == 0 || !identifierChar(stripped[at - 1])) &&
           (at + word.size() >= stripped.size() || !identifierChar(stripped[at + word.size()]));
}

std::size_t skipBlanks(std::string_view text, std::size_t at)
{
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
        ++at;
    return at;
}

std::string newlinesOf(std::string_view text)
{
    return std::string(std::size_t(std::count(text.begin(), text.end(), '\n')), '\n');
}

// `extern __shared__ T name[];` (declaration: after __shared__, before the semicolon) as a
// pointer into the runner thread's dynamic shared memory, on one line; nullopt when the
// declaration is not of that form (the compiler then says why).
std::optional<std::string> dynamicSharedPointer(std::string_view declaration)
{
    // Only the unsized form `name[]`, with nothing after it.
    const std::size_t open = declaration.rfind('[');
    if (open == std::string_view::npos)
        return std::nullopt;
    const std::size_t close = skipBlanks(declaration, open + 1);
    if (close >= declaration.size() || declaration[close] != ']' ||
        skipBlanks(declaration, close + 1) != declaration.size())
        return std::nullopt;
    std::size_t end = open;
    while (end > 0 && std::isspace(static_cast<unsigned char>(declaration[end - 1])))
        --end;
    std::size_t start = end;
    while (start > 0 && identifierChar(declaration[start - 1]))
        --start;
    if (start == end)
        return std::nullopt;
    // The type may span lines; its newlines are kept once, after the pointer.
    std::string type(declaration.substr(0, start));
    std::replace(type.begin(), type.end(), '\n', ' ');
    const std::string name(declaration.substr(start, end - start));
    return "static thread_local " + type + "* const " + name + " = reinterpret_cast<" + type +
           "*>(ws_dynamic_shared());";
}

// The declarators of a declaration's text, split at its top-level commas: [begin, end).
std::vector<std::pair<std::size_t, std::size_t>> declarators(std::string_view text)
{
    std::vector<std::pair<std::size_t, std::size_t>> parts;
    int depth = 0;
    std::size_t begin = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        depth += (c == '(' || c == '[' || c == '<') - (c == ')' || c == ']' || c == '>');
        if (c == ',' && depth == 0) {
            parts.emplace_back(begin, i);
            begin = i + 1;
        }
    }
    parts.emplace_back(begin, text.size());
    return parts;
}

// Where a declarator's name is in text[begin, end): the identifier before its array bounds,
// which must be all that follows it; nullopt otherwise.
std::optional<std::pair<std::size_t, std::size_t>>
declaratorName(std::string_view text, std::size_t begin, std::size_t end)
{
    std::size_t bounds = text.substr(begin, end - begin).find('[');
    bounds = bounds == std::string_view::npos ? end : begin + bounds;
    for (std::size_t i = bounds; i < end; i = skipBlanks(text, i)) {
        if (i >= end)
            break;
        if (text[i] != '[')
            return std::nullopt;
        i = text.find(']', i);
        if (i == std::string_view::npos || i >= end)
            return std::nullopt;
        ++i;
    }
    std::size_t nameEnd = bounds;
    while (nameEnd > begin && std::isspace(static_cast<unsigned char>(text[nameEnd - 1])))
        --nameEnd;
    std::size_t nameBegin = nameEnd;
    while (nameBegin > begin && identifierChar(text[nameBegin - 1]))
        --nameBegin;
    if (nameBegin == nameEnd || std::isdigit(static_cast<unsigned char>(text[nameBegin])))
        return std::nullopt;
    return std::make_pair(nameBegin, nameEnd);
}

// `[static] __shared__ T a[N], b;` in a function (statement: up to its semicolon, comments
// blanked) as references to the runner's shared memory, laid out by it and checked, on one
// line:
//   typedef T ws_shared_1_a[N], ws_shared_2_b; ws_shared_1_a& a = ws_static_shared<...>(1,
//   "a", line); ...
// nullopt for what is not of that form (an initializer, say): the compiler then sees a
// thread_local variable, as at namespace scope.
std::optional<std::string> staticSharedReferences(std::string_view statement, unsigned line,
                                                  unsigned& site)
{
    for (std::size_t i = 0; i < statement.size(); ++i)
        if (statement[i] == '=' || statement[i] == '{' || statement[i] == '}' ||
            (statement[i] == ':' && (i + 1 >= statement.size() || statement[i + 1] != ':') &&
             (i == 0 || statement[i - 1] != ':')))
            return std::nullopt;
    std::string text(statement);
    for (const std::string_view word : {"__shared__", "static"})
        for (std::size_t at = 0; (at = text.find(word, at)) != std::string::npos; at += word.size())
            if (wordAt(text, at, word))
                std::fill_n(text.begin() + std::ptrdiff_t(at), word.size(), ' ');
    std::string compact; // one line, blanks collapsed
    for (const char c : text)
        if (!std::isspace(static_cast<unsigned char>(c)))
            compact += c;
        else if (!compact.empty() && compact.back() != ' ')
            compact += ' ';
    text = compact;
    std::vector<std::pair<std::string, std::string>> names; // (name, type name)
    std::string typedefs = "typedef ";
    std::size_t copied = 0;
    for (const auto& [begin, end] : declarators(text)) {
        const auto name = declaratorName(text, begin, end);
        // The first declarator comes after the type.
        if (!name ||
            (names.empty() && std::none_of(text.begin(), text.begin() + std::ptrdiff_t(name->first),
                                           identifierChar)))
            return std::nullopt;
        const std::string variable = text.substr(name->first, name->second - name->first);
        const std::string type =
            "ws_shared_" + std::to_string(site + names.size() + 1) + "_" + variable;
        typedefs += text.substr(copied, name->first - copied) + type;
        copied = name->second;
        names.emplace_back(variable, type);
    }
    std::string out = typedefs + text.substr(copied) + ";";
    for (const auto& [variable, type] : names)
        out += " " + type + "& " + variable + " = ws_static_shared<" + type + ">(" +
               std::to_string(++site) + ", \"" + variable + "\", " + std::to_string(line) + ");";
    return out;
}

// Where a preprocessor directive that starts at at ends (its continuation lines included).
std::size_t directiveEnd(std::string_view stripped, std::size_t at)
{
    std::size_t end = stripped.find('\n', at);
    while (end != std::string_view::npos && end > 0 && stripped[end - 1] == '\\')
        end = stripped.find('\n', end + 1);
    return end == std::string_view::npos ? stripped.size() : end;
}

} // namespace

std::string cpuUserCode(const std::string& code, KernelShape shape)
{
    const std::string stripped = codeWithoutComments(code);
    std::string out;
    std::size_t copied = 0;
    std::size_t statement = 0; // where the statement at hand starts
    unsigned line = 1, site = 0;
    bool lineStart = true;
    // Each open brace: whether it is a function's body or inside one. A per-node body is
    // inside its function.
    std::vector<bool> inFunction{shape == KernelShape::PerNode};
    char previous = '\0'; // the last character that is not blank
    for (std::size_t at = 0; at < stripped.size(); ++at) {
        const char c = stripped[at];
        if (c == '\n') {
            ++line;
            lineStart = true;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c)))
            continue;
        if (c == '#' && lineStart) {
            // The simulator's prelude is the cooperative groups header: its include would not
            // be found.
            const std::size_t directive = skipBlanks(stripped, at + 1);
            const std::size_t end = directiveEnd(stripped, at);
            if (wordAt(stripped, directive, "include") &&
                code.compare(skipBlanks(stripped, directive + 7), 20, "<cooperative_groups.") ==
                    0) {
                out += code.substr(copied, at - copied);
                copied = end;
            }
            line += unsigned(std::count(stripped.begin() + std::ptrdiff_t(at),
                                        stripped.begin() + std::ptrdiff_t(end), '\n'));
            at = end;
            statement = end;
            lineStart = true;
            continue;
        }
        lineStart = false;
        if (c == '{')
            inFunction.push_back(previous == ')' || (!inFunction.empty() && inFunction.back()));
        else if (c == '}' && inFunction.size() > 1)
            inFunction.pop_back();
        previous = c;
        if (c == ';' || c == '{' || c == '}') {
            statement = at + 1;
            continue;
        }
        const bool external = wordAt(stripped, at, "extern") &&
                              wordAt(stripped, skipBlanks(stripped, at + 6), "__shared__");
        const bool local = !external && wordAt(stripped, at, "__shared__") && !inFunction.empty() &&
                           inFunction.back();
        if (!external && !local)
            continue;
        const std::size_t semicolon = stripped.find(';', at);
        if (semicolon == std::string::npos)
            break;
        std::optional<std::string> rewritten;
        std::size_t from = at;
        if (external) {
            const std::size_t type = skipBlanks(stripped, at + 6) + 10;
            rewritten =
                dynamicSharedPointer(std::string_view(stripped).substr(type, semicolon - type));
        } else {
            from = skipBlanks(stripped, statement);
            rewritten = staticSharedReferences(
                std::string_view(stripped).substr(from, semicolon - from), line, site);
        }
        if (!rewritten)
            continue;
        const std::string_view replaced = std::string_view(stripped).substr(from, semicolon - from);
        out += code.substr(copied, from - copied) + *rewritten + newlinesOf(replaced);
        line += unsigned(std::count(stripped.begin() + std::ptrdiff_t(at),
                                    stripped.begin() + std::ptrdiff_t(semicolon), '\n'));
        copied = semicolon + 1;
        at = semicolon;
        statement = semicolon + 1;
        previous = ';';
    }
    return out + code.substr(copied);
}

} // namespace warpscope::gpu
