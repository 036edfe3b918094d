#pragma once

#include "warpscope/gpu/Status.h"

#include <optional>
#include <string>
#include <vector>

namespace warpscope::scene {

// One peak of an object's periodogram: its period (1 / frequency, in the series' time unit),
// power and false-alarm probability (none where it is not defined, N < 4).
struct BatchPeak
{
    double frequency = 0.0;
    double period = 0.0;
    double power = 0.0;
    std::optional<double> fap;
    bool operator==(const BatchPeak&) const = default;
};

// What warpscope-batch found for one object: a row of its results table (the app shows
// them too). failed: the
// object has no periodogram (unreadable, too few points, zero variance, ...), and warnings
// says why; otherwise peaks holds its highest reportable peaks, best first, and warnings
// anything the person should know (rows skipped for NaN values, no reportable peak, ...).
struct BatchResult
{
    std::string id;
    long long points = 0;
    bool failed = false;
    std::vector<BatchPeak> peaks;
    std::vector<std::string> warnings;
    bool operator==(const BatchResult&) const = default;
};

// The results table, one row an object, in the order given. Columns: id, status (ok or
// failed), points, best_frequency, best_period, best_power, best_fap, then peakJ_period,
// peakJ_power and peakJ_fap for J = 1 to peaks (peak1 is the best), and warnings ("; "
// between them). A value that does not exist (a failed object's, a FAP for N < 4, a peak
// the periodogram does not have) is an empty cell. Numbers are written with 17 significant
// digits, so reading a table back and writing it again gives the same bytes (resumed runs
// rely on it). The id and warnings cells are spreadsheetSafe (BatchIds.h): an id such as
// "=cmd|..." or "-2" is written '=cmd|... and '-2, quoted, and read back as itself.
std::vector<std::string> resultColumns(int peaks);
// The warnings cell: the warnings with "; " between them.
std::string warningsText(const BatchResult& row);

// One row of the table, its line break included, appended to text.
void appendResultsCsvRow(std::string& text, const BatchResult& row, int peaks);
// The row a line of a table of peaks peaks holds (without its line break), or why none.
gpu::Status parseResultsCsvRow(const std::string& line, int peaks, BatchResult& row);

// Writes atomically: the old file stays whole until the new one is complete.
gpu::Status writeResultsCsv(const std::string& path, const std::vector<BatchResult>& rows,
                            int peaks);
// Reads a table writeResultsCsv wrote with the same number of peaks (peaks 0: as many as its
// header has); fails, saying why, on any other file (another header, a malformed row).
gpu::Status readResultsCsv(const std::string& path, int peaks, std::vector<BatchResult>& rows);

} // namespace warpscope::scene
