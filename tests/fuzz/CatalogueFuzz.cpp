// libFuzzer target for FITS tables of many objects: any bytes either fail to open with a
// message, or open both ways (read whole, and indexed with each object's rows read by its
// load) into the same objects, whose every load gives the same series or the same failure.
// The two ways share cfitsio but not the code that reads the rows into objects.
// The objects' ids follow the batch's rules for ids (BatchIdChecks.h).
#include "BatchIdChecks.h"
#include "warpscope/gpu/Catalogue.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

// cfitsio sizes some buffers from header values and checks that the allocation succeeded;
// a size beyond any memory must fail there as it does outside the fuzzer, not stop the run.
extern "C" const char* __asan_default_options()
{
    return "allocator_may_return_null=1";
}

namespace {

bool sane(const warpscope::gpu::TimeSeries& s)
{
    return !s.t.empty() && s.y.size() == s.t.size() &&
           (s.dy.empty() || s.dy.size() == s.t.size()) && std::is_sorted(s.t.begin(), s.t.end()) &&
           std::all_of(s.t.begin(), s.t.end(), [](double v) { return std::isfinite(v); }) &&
           std::all_of(s.y.begin(), s.y.end(), [](double v) { return std::isfinite(v); }) &&
           std::all_of(s.dy.begin(), s.dy.end(),
                       [](double v) { return std::isfinite(v) && v > 0; });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace warpscope::gpu;
    // The catalogue reads files: the bytes go to one of this process's own, removed when
    // the run ends.
    struct Scratch
    {
        std::string path = "/tmp/warpscope-catalogue-fuzz-" + std::to_string(::getpid()) + ".fits";
        ~Scratch() { std::remove(path.c_str()); }
    };
    static const Scratch scratch;
    const std::string& path = scratch.path;
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file)
        std::abort();
    if (size > 0 && std::fwrite(data, 1, size, file) != size)
        std::abort();
    std::fclose(file);

    Catalogue whole, indexed;
    const Status a = Catalogue::openTable(path, TableColumns{}, TimeFormat::Auto, whole);
    const Status b = Catalogue::indexTable(path, TableColumns{}, TimeFormat::Auto, indexed);
    if ((!a && a.message().empty()) || (!b && b.message().empty()))
        std::abort();
    if (!a || !b)
        return 0;
    if (whole.size() != indexed.size() || whole.size() == 0)
        std::abort();
    std::set<std::string> ids;
    for (std::size_t i = 0; i < std::min<std::size_t>(whole.size(), 64); ++i) {
        if (whole.id(i) != indexed.id(i) || !ids.insert(whole.id(i)).second)
            std::abort(); // a catalogue's ids are distinct
        TimeSeries sa, sb;
        LoadReport ra, rb;
        const Status la = whole.load(i, sa, ra), lb = indexed.load(i, sb, rb);
        if (la.ok() != lb.ok() || la.message() != lb.message())
            std::abort();
        if (la.ok() && (!sane(sa) || sa.t != sb.t || sa.y != sb.y || sa.dy != sb.dy ||
                        ra.summary() != rb.summary()))
            std::abort();
    }
    warpscope::fuzz::checkIds(ids);
    return 0;
}
