#pragma once

#include "BatchResult.h"
#include "warpscope/gpu/Status.h"

#include <string>
#include <vector>

namespace warpscope::batch {

// The results table, one row an object, in the order given. Columns: id, status (ok or
// failed), points, best_frequency, best_period, best_power, best_fap, then peakJ_period,
// peakJ_power and peakJ_fap for J = 1 to peaks (peak1 is the best), and warnings ("; "
// between them). A value that does not exist (a failed object's, a FAP for N < 4, a peak
// the periodogram does not have) is an empty cell in CSV and NaN, FITS's null for floating
// point columns, in FITS. Numbers are written with 17 significant digits, so reading a table
// back and writing it again gives the same bytes (resumed runs rely on it).
std::vector<std::string> resultColumns(int peaks);

// Writes atomically: the old file stays whole until the new one is complete.
gpu::Status writeResultsCsv(const std::string& path, const std::vector<BatchResult>& rows,
                            int peaks);
// Reads a table writeResultsCsv wrote with the same number of peaks; fails, saying why, on
// any other file (another header, a malformed row).
gpu::Status readResultsCsv(const std::string& path, int peaks, std::vector<BatchResult>& rows);

// The same table as a FITS binary table (extension RESULTS): ID and WARNINGS strings,
// STATUS, POINTS, the best peak's four columns, and PEAK_PERIOD, PEAK_POWER and PEAK_FAP as
// vectors of peaks values. Written atomically too.
gpu::Status writeResultsFits(const std::string& path, const std::vector<BatchResult>& rows,
                             int peaks);

} // namespace warpscope::batch
