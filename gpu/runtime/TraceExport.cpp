#include "warpscope/gpu/TraceExport.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

namespace warpscope::gpu {
namespace {

void appendJsonString(std::string& out, const std::string& text)
{
    out += '"';
    for (const char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

void appendCsvField(std::string& out, const std::string& text)
{
    if (text.find_first_of(",\"\n\r") == std::string::npos) {
        out += text;
        return;
    }
    out += '"';
    for (const char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", value);
    return text;
}

} // namespace

std::string chromeTraceJson(const TimelineSnapshot& snapshot)
{
    double base = std::numeric_limits<double>::infinity();
    for (const Span& s : snapshot.spans)
        base = std::min(base, s.startUs);
    if (snapshot.spans.empty())
        base = 0.0;

    std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    auto separate = [&] {
        if (!first)
            out += ",\n";
        first = false;
    };
    separate();
    out += R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"Warpscope"}})";
    for (std::size_t lane = 0; lane < snapshot.lanes.size(); ++lane) {
        separate();
        out += R"({"name":"thread_name","ph":"M","pid":1,"tid":)" + std::to_string(lane) +
               R"(,"args":{"name":)";
        appendJsonString(out, snapshot.lanes[lane]);
        out += "}}";
        separate();
        out += R"({"name":"thread_sort_index","ph":"M","pid":1,"tid":)" + std::to_string(lane) +
               R"(,"args":{"sort_index":)" + std::to_string(lane) + "}}";
    }
    for (const Span& s : snapshot.spans) {
        separate();
        out += "{\"name\":";
        appendJsonString(out, s.name);
        out += ",\"cat\":";
        appendJsonString(out, spanKindName(s.kind));
        out += ",\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(s.lane) +
               ",\"ts\":" + number(s.startUs - base) + ",\"dur\":" + number(s.durationUs()) +
               ",\"args\":{\"frame\":" + std::to_string(s.frame);
        if (s.bytes > 0)
            out += ",\"bytes\":" + std::to_string(s.bytes);
        if (!s.detail.empty()) {
            out += ",\"detail\":";
            appendJsonString(out, s.detail);
        }
        out += "}}";
    }
    out += "\n]}\n";
    return out;
}

std::string timelineCsv(const TimelineSnapshot& snapshot)
{
    std::string out = "lane,kind,name,start_us,end_us,duration_us,bytes,detail,frame\n";
    for (const Span& s : snapshot.spans) {
        const std::string lane = s.lane >= 0 && std::size_t(s.lane) < snapshot.lanes.size()
                                     ? snapshot.lanes[s.lane]
                                     : std::to_string(s.lane);
        appendCsvField(out, lane);
        out += ',';
        out += spanKindName(s.kind);
        out += ',';
        appendCsvField(out, s.name);
        out += ',' + number(s.startUs) + ',' + number(s.endUs) + ',' + number(s.durationUs()) +
               ',' + std::to_string(s.bytes) + ',';
        appendCsvField(out, s.detail);
        out += ',' + std::to_string(s.frame) + '\n';
    }
    return out;
}

Status writeTextFile(const std::string& path, const std::string& text)
{
    if (path.empty())
        return Status::failure("No file name was given");
    // Write beside the target, then rename, so a failed write never leaves half a file.
    const std::string partial = path + ".partial";
    std::FILE* file = std::fopen(partial.c_str(), "wb");
    if (!file)
        return Status::failure("Cannot write " + path + ": " + std::strerror(errno));
    const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    const int writeErrno = errno;
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed) {
        std::remove(partial.c_str());
        return Status::failure("Cannot write " + path + ": " + std::strerror(writeErrno));
    }
    if (std::rename(partial.c_str(), path.c_str()) != 0) {
        const int renameErrno = errno;
        std::remove(partial.c_str());
        return Status::failure("Cannot write " + path + ": " + std::strerror(renameErrno));
    }
    return Status::success();
}

} // namespace warpscope::gpu
