#pragma once

#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Status.h"

#include <cstddef>
#include <string>
#include <vector>

namespace warpscope::gpu {

// A slow trend taken out of a series before its periodogram, which is then computed on the
// residuals y - trend: a trend left in puts its power at the lowest frequencies and leaks it
// into every peak near them.
enum class DetrendMethod
{
    None,
    Polynomial,   // weighted least squares in t, degree 0 to kMaxDetrendDegree
    RunningMedian // the median of the values within +- window / 2 of each time
};

inline constexpr int kMaxDetrendDegree = 5;

struct DetrendOptions
{
    DetrendMethod method = DetrendMethod::None;
    int degree = 1;       // of the polynomial
    double window = 10.0; // of the running median, in the unit of t
    bool operator==(const DetrendOptions&) const = default;
};

const char* detrendMethodName(DetrendMethod method);

// The options' own problems (degree out of range, a window not finite or not above 0), one
// message; success when there are none. Both the degree and the window are checked whatever
// the method, so that options which pass stay valid when another method is chosen.
Status validateDetrend(const DetrendOptions& options);

// Fits the trend at every point of series and writes it to trend (one value a point, in the
// series' order) and the residuals (t and dy as given, y - trend) to residuals.
//   Polynomial: weighted least squares with weights dy^-2 (all 1 when dy is empty), as
//   numpy.polyfit(t, y, degree, w=1/dy). t is first centred on the middle of its range and
//   divided by its half-range, so that times such as JD 2.4e6 keep their precision, and y is
//   divided by its largest magnitude; the scaled Vandermonde system is solved by Householder
//   QR, never through the normal equations. Needs degree + 1 distinct times.
//   RunningMedian: at each time t_i, the median of the y of every point with
//   |t_j - t_i| <= window / 2 (edges included; points at equal times all count), the mean
//   of the two middle values when their number is even. At the ends of the series the
//   window holds only the points there are (no padding). dy is not used.
// None copies the series with a zero trend. Fails, saying why, on bad options, on an empty
// series, on NaN or infinite values, and where a residual would not be a finite double.
Status detrend(const TimeSeries& series, const DetrendOptions& options, std::vector<double>& trend,
               TimeSeries& residuals);

// A closed range of times [t0, t1] left out of the detrending and the periodogram.
struct TimeRange
{
    double t0 = 0.0;
    double t1 = 0.0;
    bool contains(double t) const { return t >= t0 && t <= t1; }
    bool operator==(const TimeRange&) const = default;
};

// More masks than this are refused: a person marks a handful, and a scene file with millions
// would make every recomputation scan them.
inline constexpr std::size_t kMaxMasks = 10'000;

// Each range must be finite with t0 <= t1, and there may be at most kMaxMasks. One message
// naming the first bad range; success when there is none.
Status validateMasks(const std::vector<TimeRange>& masks);

// The series without the points inside any mask (dy kept for the points kept, in order);
// masked, when given, receives how many points were left out. masks must pass
// validateMasks.
TimeSeries applyMasks(const TimeSeries& series, const std::vector<TimeRange>& masks,
                      std::size_t* masked = nullptr);

} // namespace warpscope::gpu
