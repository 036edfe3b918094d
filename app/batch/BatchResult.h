#pragma once

#include <optional>
#include <string>
#include <vector>

namespace warpscope::batch {

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

// What the batch program found for one object: a row of the results table. failed: the
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

} // namespace warpscope::batch
