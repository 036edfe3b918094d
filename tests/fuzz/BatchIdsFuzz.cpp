// libFuzzer target for the batch's ids: each line of the bytes, and the whole, is an id; every
// id's results-table cell and periodogram file name must follow BatchIdChecks.h's rules.
#include "BatchIdChecks.h"

#include <algorithm>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    std::set<std::string> ids{bytes};
    for (std::size_t start = 0; start <= size;) {
        const std::size_t end = std::min(bytes.find('\n', start), size);
        ids.insert(bytes.substr(start, end - start));
        start = end + 1;
    }
    warpscope::fuzz::checkIds(ids);
    return 0;
}
