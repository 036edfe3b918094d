#pragma once

#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Distance.h"
#include "warpscope/gpu/LaunchLesson.h"
#include "warpscope/gpu/Spectrum.h"
#include "warpscope/render/FieldRenderer.h"
#include "warpscope/render/GlWriteScope.h"
#include "warpscope/render/HeadlessGl.h"
#include "warpscope/render/SpectrumRenderer.h"

#include <chrono>
#include <memory>
#include <optional>
#include <thread>

// What the render tests write GL buffers with: a compute context and its link to the
// current GL context, as the app's views hold them.
namespace warpscope::render::test {

struct Drawer
{
    std::unique_ptr<gpu::Context> context;
    std::unique_ptr<GlInterop> interop; // declared second: released first
};

inline Drawer cpuDrawer()
{
    Drawer drawer;
    gpu::Context::open({gpu::DeviceKind::Cpu, 0}, drawer.context, 2);
    drawer.interop = std::make_unique<GlInterop>(*drawer.context);
    return drawer;
}

// The CUDA device OpenGL runs on, through interop or staged; no context where there is none.
inline Drawer cudaDrawer(bool allowInterop)
{
    Drawer drawer;
    const std::vector<int> devices = glCudaDevices();
    if (devices.empty() ||
        !gpu::Context::open({gpu::DeviceKind::Cuda, devices.front()}, drawer.context))
        return {};
    drawer.interop = std::make_unique<GlInterop>(*drawer.context, allowInterop);
    return drawer;
}

inline gpu::Status fillField(Drawer& drawer, const gpu::DistanceParams& p,
                             const FieldSurface& surface)
{
    GlWriteScope write(*drawer.interop, surface.buffer, surface.bytes());
    gpu::Status s = write.status();
    if (s)
        s = gpu::launchDistance(*drawer.context, p, write.view<float>());
    return s ? write.commit() : s;
}

inline gpu::Status fillLesson(Drawer& drawer, const gpu::DistanceParams& p,
                              const gpu::LessonLaunch& lesson, const FieldSurface& surface,
                              const OwnerSurface& owners)
{
    GlWriteScope field(*drawer.interop, surface.buffer, surface.bytes());
    GlWriteScope words(*drawer.interop, owners.buffer, owners.bytes());
    gpu::Status s = field.status();
    if (s)
        s = words.status();
    if (s)
        s = gpu::launchLesson(*drawer.context, p, lesson, field.view<float>(),
                              words.view<std::uint32_t>());
    if (s)
        s = words.commit();
    return s ? field.commit() : s;
}

inline gpu::Status fillLine(Drawer& drawer, const gpu::Spectrum& spectrum,
                            const gpu::SpectrumAxis& axis, unsigned int buffer)
{
    const std::size_t bytes = std::size_t(axis.columns) * gpu::kSpectrumFloatsPerColumn * 4;
    GlWriteScope write(*drawer.interop, buffer, bytes);
    gpu::Status s = write.status();
    if (s)
        s = gpu::writeSpectrumLine(*drawer.context, spectrum, axis, write.view<float>());
    return s ? write.commit() : s;
}

// The last field's figures, once the device has them (at most a few seconds).
inline std::optional<gpu::FieldResult> awaitResult(gpu::Context& context)
{
    for (int tries = 0; tries < 5000; ++tries) {
        if (auto result = gpu::fieldResult(context))
            return result;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return std::nullopt;
}

} // namespace warpscope::render::test
