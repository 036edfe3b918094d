#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/scene/PeriodogramScene.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

// A periodogram method as a type: what it computes and what the window, the command line and
// the batch may do with its result, as a small record the session looks up instead of
// branching on the method's parameters. Adding a method is its folder under scene/src/methods
// and one line in the registry's list (PeriodogramMethods.cpp).
namespace warpscope::scene {

// One of a method's own parameters, with the scene key that holds it.
struct MethodParameter
{
    std::string name;     // for people: "Terms"
    std::string sceneKey; // the periodogram section's key: "nterms"
    int value = 0;        // as the request sets it
};

// What a method's statistic is and what may be done with it, for one request.
struct PeriodogramMethodTraits
{
    std::string statistic;       // its name, for axes and exports: "power"
    bool higherIsBetter = true;  // whether a signal is a maximum (a minimum otherwise)
    bool falseAlarm = false;     // whether Baluev's false-alarm probability applies
    bool batchable = false;      // whether many series on one grid run in one call
    bool matrixProducts = false; // whether it has the tensor cores' matrix-product form
    int foldHarmonics = 0;       // harmonics of the model the fold draws (0: none)
    std::vector<MethodParameter> parameters;
};

class PeriodogramMethod
{
public:
    virtual ~PeriodogramMethod() = default;

    // Its name in the registry, for people and for lookups.
    virtual std::string name() const = 0;
    // Whether the scene asks for this method (the registry's lookup asks each in turn).
    virtual bool describes(const PeriodogramScene& scene) const = 0;
    // The traits for a request of this method.
    virtual PeriodogramMethodTraits traits(const gpu::PeriodogramOptions& options) const = 0;
    // Computes the statistic of a validated request, kept where it was computed.
    virtual gpu::Status computeSpectrum(gpu::Context& context, const gpu::TimeSeries& series,
                                        const gpu::PeriodogramOptions& options,
                                        std::shared_ptr<const gpu::Spectrum>& spectrum) const = 0;
    // Computes it into host memory (options.grid.count values); kernelMs: the device's time.
    virtual gpu::Status computePower(gpu::Context& context, const gpu::TimeSeries& series,
                                     const gpu::PeriodogramOptions& options,
                                     std::span<double> power, double* kernelMs) const = 0;
};

// Adds a method to the registry (the built-in ones are there from the start), for as long as
// the program runs; false, adding nothing, when its name is taken.
bool registerPeriodogramMethod(std::shared_ptr<const PeriodogramMethod> method);
// The method registered under name, or null.
const PeriodogramMethod* findPeriodogramMethod(const std::string& name);
// The method a scene asks for: the one lookup from a scene's values to its method.
const PeriodogramMethod& periodogramMethod(const PeriodogramScene& scene);
// The traits of a request's method (the scene's values as the options carry them).
PeriodogramMethodTraits periodogramTraits(const gpu::PeriodogramOptions& options);

} // namespace warpscope::scene
