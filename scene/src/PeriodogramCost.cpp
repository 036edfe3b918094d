#include "warpscope/scene/PeriodogramCost.h"

#include <algorithm>
#include <cstdio>

namespace warpscope::scene {
namespace {

constexpr double kCpuTermsPerThreadSecond = 1e9;
constexpr double kCudaFloat64TermsPerSecond = 1e10;
constexpr double kCudaFloat32TermsPerSecond = 2e11;

} // namespace

PeriodogramCost periodogramCost(std::size_t points, long long frequencies, int nterms, bool cuda,
                                gpu::Precision precision, unsigned cpuThreads)
{
    PeriodogramCost cost;
    cost.points = points;
    cost.frequencies = std::max(0LL, frequencies);
    cost.nterms = std::max(1, nterms);
    cost.terms = double(cost.points) * double(cost.frequencies) * double(cost.nterms);
    cost.rate = !cuda ? kCpuTermsPerThreadSecond * double(std::max(1u, cpuThreads))
                : precision == gpu::Precision::Float32 ? kCudaFloat32TermsPerSecond
                                                       : kCudaFloat64TermsPerSecond;
    cost.seconds = cost.terms / cost.rate;
    return cost;
}

bool isLong(const PeriodogramCost& cost)
{
    return cost.seconds > kLongPeriodogramSeconds;
}

std::string costText(const PeriodogramCost& cost)
{
    char text[200];
    std::snprintf(text, sizeof text,
                  "%zu points x %lld frequencies x %d term%s = %.3g terms: about %s at %.3g "
                  "terms/s",
                  cost.points, cost.frequencies, cost.nterms, cost.nterms == 1 ? "" : "s",
                  cost.terms, durationText(cost.seconds).c_str(), cost.rate);
    return text;
}

std::string durationText(double seconds)
{
    char text[40];
    // Capped at some 30 000 years: beyond, the text only has to say "long".
    const long long s = (long long)(std::clamp(seconds, 0.0, 1e12) + 0.5);
    if (s >= 3600)
        std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
    else
        std::snprintf(text, sizeof text, "%llds", s);
    return text;
}

} // namespace warpscope::scene
