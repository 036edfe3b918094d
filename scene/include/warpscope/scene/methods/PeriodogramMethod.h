#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Periodogram.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/scene/PeriodogramRequest.h"
#include "warpscope/scene/PeriodogramScene.h"

#include <memory>
#include <optional>
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
    bool foldBox = false;        // whether the fold draws a box (a transit) instead
    std::vector<MethodParameter> parameters;
};

// A method's figures beside its statistic, one per frequency of the grid (box least squares:
// the best box's depth, duration, transit time...), for the peaks, the fold and the exports.
struct MethodColumn
{
    std::string name; // as exports head it: "depth"
    std::vector<double> values;
};

// A peak refined to the data's precision: the maximum of the method's continuous statistic
// near the grid's best sample, with its one-sigma uncertainty and how it was found.
struct RefinedPeak
{
    double frequency = 0.0;
    double error = 0.0;
    std::string how; // for people: "least-squares sinusoid"
};

class PeriodogramMethod
{
public:
    virtual ~PeriodogramMethod() = default;

    // Its key in scenes and on the command line ("ls"), and its name for people.
    virtual std::string key() const = 0;
    virtual std::string name() const = 0;
    // The traits for a request of this method.
    virtual PeriodogramMethodTraits traits(const PeriodogramScene& scene,
                                           const gpu::PeriodogramOptions& options) const = 0;
    // The grid of the scene's automatic mode for series, into request: by default
    // Lomb-Scargle's (astropy's autofrequency, stopped at a regular sampling's Nyquist
    // frequency).
    virtual void automaticGrid(const PeriodogramScene& scene, const gpu::TimeSeries& series,
                               PeriodogramRequest& request) const;
    // Refines a peak of the last computation (its figures in columns), or none where the
    // method cannot; series as computed.
    virtual std::optional<RefinedPeak> refine(const gpu::TimeSeries&, const PeriodogramScene&,
                                              const gpu::PeriodogramOptions&, const gpu::Peak&,
                                              const std::vector<MethodColumn>&) const
    {
        return std::nullopt;
    }
    // Computes the statistic of a validated request, kept where it was computed, and the
    // method's own figures (none for most).
    // By default the statistic is computed into host memory (computePower) and kept there,
    // named name(); a method whose device keeps it (Lomb-Scargle) overrides this.
    virtual gpu::Status computeSpectrum(gpu::Context& context, const gpu::TimeSeries& series,
                                        const PeriodogramScene& scene,
                                        const gpu::PeriodogramOptions& options,
                                        std::shared_ptr<const gpu::Spectrum>& spectrum,
                                        std::vector<MethodColumn>& columns) const;
    // Computes them into host memory (options.grid.count values); kernelMs: the device's time.
    virtual gpu::Status computePower(gpu::Context& context, const gpu::TimeSeries& series,
                                     const PeriodogramScene& scene,
                                     const gpu::PeriodogramOptions& options,
                                     std::span<double> power, double* kernelMs,
                                     std::vector<MethodColumn>& columns) const = 0;
};

// Adds a method to the registry (the built-in ones are there from the start), for as long as
// the program runs; false, adding nothing, when its name is taken.
bool registerPeriodogramMethod(std::shared_ptr<const PeriodogramMethod> method);
// The method registered under key, or null.
const PeriodogramMethod* findPeriodogramMethod(const std::string& key);
// The keys of the registered methods, in the registry's order.
std::vector<std::string> periodogramMethodKeys();
// The method a scene asks for (scene.search; the first registered where none is): the one
// lookup from a scene's values to its method.
const PeriodogramMethod& periodogramMethod(const PeriodogramScene& scene);
// The traits of Lomb-Scargle's request (the batch's and the false-alarm levels' one method).
PeriodogramMethodTraits periodogramTraits(const gpu::PeriodogramOptions& options);

} // namespace warpscope::scene
