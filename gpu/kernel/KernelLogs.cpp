// Reading what the compilers said: their messages at the user's lines, and ptxas' report of
// a kernel's resources.
#include "kernel/KernelShared.h"

#include <regex>

namespace warpscope::gpu {
namespace {

std::vector<std::string_view> splitLines(std::string_view log)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < log.size()) {
        std::size_t end = log.find('\n', start);
        if (end == std::string_view::npos)
            end = log.size();
        std::string_view line = log.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

KernelMessage makeMessage(const std::string& file, int line, int column, const std::string& kind,
                          const std::string& text)
{
    KernelMessage message;
    message.severity =
        kind.find("warning") != std::string::npos ? Severity::Warning : Severity::Error;
    if (file == kUserSourceName) {
        message.line = line;
        message.column = column;
        message.text = text;
    } else {
        // The wrapper's own code (braces are checked before compiling): most often an
        // unclosed parenthesis in the user's code.
        message.text = text + " (after your code: check that parentheses are balanced)";
    }
    return message;
}

// A compiler's line quotes the user's source, which may be a million characters long: only its
// start is matched, as libstdc++'s regular expressions recurse once a character.
constexpr std::size_t kMaxMessageLine = 4096;

long long numberBefore(const std::string& text, const std::string& unit)
{
    const std::regex pattern("(\\d+) " + unit);
    std::smatch match;
    return std::regex_search(text, match, pattern) ? std::stoll(match[1]) : 0;
}

} // namespace

std::vector<KernelMessage> nvrtcMessages(std::string_view log)
{
    static const std::regex pattern(
        R"(^(.+?)\((\d+)\): (catastrophic error|error|warning)[^:]*: (.*)$)");
    std::vector<KernelMessage> messages;
    for (std::string_view line : splitLines(log)) {
        std::smatch match;
        const std::string text(line.substr(0, kMaxMessageLine));
        if (std::regex_match(text, match, pattern))
            messages.push_back(makeMessage(match[1], std::stoi(match[2]), 0, match[3], match[4]));
    }
    return messages;
}

std::vector<KernelMessage> gccMessages(std::string_view log)
{
    static const std::regex pattern(R"(^(.+?):(\d+):(\d+): (fatal error|error|warning): (.*)$)");
    std::vector<KernelMessage> messages;
    for (std::string_view line : splitLines(log)) {
        std::smatch match;
        const std::string text(line.substr(0, kMaxMessageLine));
        if (std::regex_match(text, match, pattern))
            messages.push_back(makeMessage(match[1], std::stoi(match[2]), std::stoi(match[3]),
                                           match[4], match[5]));
    }
    return messages;
}

KernelUsage ptxasUsage(std::string_view log, std::string_view entry)
{
    // ptxas reports each function as:
    //   ptxas info    : Function properties for NAME
    //   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    //   ptxas info    : Used 21 registers, used 0 barriers, 1024 bytes smem, 360 bytes cmem[0]
    KernelUsage usage;
    const std::string header = "Function properties for " + std::string(entry);
    bool inEntry = false;
    for (std::string_view view : splitLines(log)) {
        const std::string line(view);
        if (line.find("Function properties for ") != std::string::npos) {
            inEntry = line.size() >= header.size() &&
                      line.compare(line.size() - header.size(), header.size(), header) == 0;
            continue;
        }
        if (!inEntry)
            continue;
        if (line.find("stack frame") != std::string::npos) {
            usage.stackBytes = numberBefore(line, "bytes stack frame");
            usage.spillsKnown = true;
            usage.spillStoreBytes = numberBefore(line, "bytes spill stores");
            usage.spillLoadBytes = numberBefore(line, "bytes spill loads");
        } else if (line.find("Used ") != std::string::npos) {
            usage.known = true;
            usage.registers = int(numberBefore(line, "registers"));
            usage.barriers = int(numberBefore(line, "barriers"));
            usage.sharedBytes = numberBefore(line, "bytes smem");
            usage.constantBytes = numberBefore(line, "bytes cmem\\[0\\]");
            inEntry = false;
        }
    }
    return usage;
}

std::optional<KernelMessage> unbalancedBrace(std::string_view code)
{
    const std::string stripped = codeWithoutComments(code);
    std::vector<int> open; // the lines of the braces not yet closed
    int line = 1;
    for (const char c : stripped) {
        if (c == '\n')
            ++line;
        else if (c == '{')
            open.push_back(line);
        else if (c == '}') {
            if (open.empty())
                return KernelMessage{Severity::Error, line, 0, "This '}' closes no '{'"};
            open.pop_back();
        }
    }
    if (!open.empty())
        return KernelMessage{Severity::Error, open.back(), 0, "This '{' is never closed"};
    return std::nullopt;
}

std::string codeWithoutComments(std::string_view code)
{
    std::string out(code);
    enum
    {
        Code,
        Line,
        Block,
        String,
        Char
    } state = Code;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char c = out[i];
        const char next = i + 1 < out.size() ? out[i + 1] : '\0';
        switch (state) {
        case Code:
            if (c == '/' && next == '/')
                state = Line;
            else if (c == '/' && next == '*')
                state = Block;
            else if (c == '"')
                state = String;
            else if (c == '\'')
                state = Char;
            else
                continue;
            out[i] = ' ';
            if (state == Line || state == Block)
                out[++i] = ' ';
            continue;
        case Line:
            if (c == '\n')
                state = Code;
            else
                out[i] = ' ';
            continue;
        case Block:
            if (c == '*' && next == '/') {
                out[i] = out[i + 1] = ' ';
                ++i;
                state = Code;
            } else if (c != '\n') {
                out[i] = ' ';
            }
            continue;
        case String:
        case Char:
            if (c == '\\' && next != '\n' && next != '\0') {
                out[i] = out[i + 1] = ' ';
                ++i;
            } else if ((state == String && c == '"') || (state == Char && c == '\'') || c == '\n') {
                if (c != '\n')
                    out[i] = ' ';
                state = Code;
            } else {
                out[i] = ' ';
            }
            continue;
        }
    }
    return out;
}

} // namespace warpscope::gpu
