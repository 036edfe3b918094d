#include "ls/LombScargleMethod.h"
#include "warpscope/scene/methods/PeriodogramMethod.h"

#include <mutex>

namespace warpscope::scene {
namespace {

struct Registry
{
    std::mutex mutex;
    // The built-in methods, one line each; the first is the one a scene names by default.
    std::vector<std::shared_ptr<const PeriodogramMethod>> methods{lombScargleMethod()};
};

Registry& registry()
{
    static Registry r;
    return r;
}

} // namespace

bool registerPeriodogramMethod(std::shared_ptr<const PeriodogramMethod> method)
{
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    for (const auto& m : r.methods)
        if (m->name() == method->name())
            return false;
    r.methods.push_back(std::move(method));
    return true;
}

const PeriodogramMethod* findPeriodogramMethod(const std::string& name)
{
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    for (const auto& m : r.methods)
        if (m->name() == name)
            return m.get();
    return nullptr;
}

const PeriodogramMethod& periodogramMethod(const PeriodogramScene& scene)
{
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    for (const auto& m : r.methods)
        if (m->describes(scene))
            return *m;
    return *r.methods.front();
}

PeriodogramMethodTraits periodogramTraits(const gpu::PeriodogramOptions& options)
{
    PeriodogramScene scene;
    scene.nterms = options.nterms;
    return periodogramMethod(scene).traits(options);
}

} // namespace warpscope::scene
