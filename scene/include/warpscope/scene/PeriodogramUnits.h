#pragma once

#include "warpscope/gpu/Detrend.h"
#include "warpscope/gpu/FrequencyFit.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/PeriodogramSampling.h"
#include "warpscope/gpu/TimeSeriesIO.h"
#include "warpscope/scene/PeriodogramSession.h"
#include "warpscope/scene/methods/PeriodogramMethod.h"

#include <QString>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpscope::scene {

// The periodogram's words for the time unit of a loaded series: frequencies in cycles (or
// radians) per day or per year, periods in days or years. An unknown unit (plain numbers,
// the synthetic series) keeps "per unit time" and periods without a unit, since naming one
// would claim what the file does not say.
QString frequencyUnitText(gpu::TimeUnit unit, bool angular = false);
// "days", "years", or "" when the unit is unknown.
QString periodUnitText(gpu::TimeUnit unit);
// A period with its unit, "365.25 days", or the number alone when the unit is unknown.
QString periodText(double period, gpu::TimeUnit unit, int digits = 6);

// The trend taken out, for status lines: "a degree-2 polynomial", "a running median over
// 30 days" (the window with the unit where it is known), "no trend".
QString detrendText(const gpu::DetrendOptions& detrend,
                    gpu::TimeUnit unit = gpu::TimeUnit::Unknown);

// What regular sampling means for a grid from fmin to fmax, for the panel and the command
// line: the step, the true Nyquist frequency, and that the automatic grid stops there
// (stopped) or that a grid beyond it shows aliases there. Empty when the times are not
// regular, or the grid stays below the Nyquist frequency without having been stopped.
QString samplingNote(const std::optional<gpu::RegularSampling>& sampling, gpu::TimeUnit unit,
                     double gridFmax, bool stopped);

// The periodogram as CSV: one row per frequency with the ordinary frequency, the period and
// the power, the header naming the unit ("frequency (cycles per day),period (days),power";
// "frequency,period,power" when it is unknown), then the method's own columns (box least
// squares: depth, duration, ...) where it has them.
std::string periodogramCsv(const gpu::FrequencyGrid& grid, std::span<const double> power,
                           gpu::TimeUnit unit, std::span<const MethodColumn> columns = {});

// Each peak's false-alarm probability (Baluev 2008) against the grid's highest frequency, or
// none where it is not defined: data neither centred nor fitted with a floating mean, too
// few points, or a power beyond the approximation. series: as computed (dy cleared when the
// weights were not used).
std::vector<std::optional<double>> falseAlarmProbabilities(const std::vector<gpu::Peak>& peaks,
                                                           const gpu::FrequencyGrid& grid,
                                                           const gpu::TimeSeries& series,
                                                           const gpu::PeriodogramOptions& options);

// The peaks as JSON: the unit, the normalisation, the model's terms and, highest first, each
// peak's frequency, period, power and false-alarm probability (null where it is not
// defined), its refined frequency and period with their errors (where refined), and the
// method's own figures, then the prewhitened sinusoids with their errors and epoch.
std::string peaksJson(const ReportedPeaks& peaks, gpu::Normalization normalization,
                      gpu::TimeUnit unit, int nterms = 1,
                      const std::vector<gpu::FittedSinusoid>& prewhitened = {},
                      double prewhitenEpoch = 0.0);

} // namespace warpscope::scene
