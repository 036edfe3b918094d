#pragma once

#include "warpscope/gpu/Status.h"
#include "warpscope/scene/BatchResults.h"

#include <string>
#include <vector>

namespace warpscope::batch {

using scene::BatchPeak;
using scene::BatchResult;
using scene::readResultsCsv;
using scene::resultColumns;
using scene::writeResultsCsv;

// The same table as a FITS binary table (extension RESULTS): ID and WARNINGS strings,
// STATUS, POINTS, the best peak's four columns, and PEAK_PERIOD, PEAK_POWER and PEAK_FAP as
// vectors of peaks values. Written atomically too.
gpu::Status writeResultsFits(const std::string& path, const std::vector<BatchResult>& rows,
                             int peaks);

} // namespace warpscope::batch
