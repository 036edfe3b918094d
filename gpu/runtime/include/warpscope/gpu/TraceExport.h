#pragma once

#include "warpscope/gpu/Status.h"
#include "warpscope/gpu/Timeline.h"

#include <string>

namespace warpscope::gpu {

// Chrome trace-event JSON, as read by Perfetto and chrome://tracing: one complete ("X")
// event per span with microsecond timestamps relative to the earliest span, and a
// thread_name metadata event per lane.
std::string chromeTraceJson(const TimelineSnapshot& snapshot);

// One row per span: lane, kind, name, start_us, end_us, duration_us, bytes, detail, frame.
std::string timelineCsv(const TimelineSnapshot& snapshot);

// Writes text to a file, replacing it only once the whole text is written.
Status writeTextFile(const std::string& path, const std::string& text);

} // namespace warpscope::gpu
