#include "warpscope/render/GlWriteScope.h"

#include "GlCudaRegistry.h"
#include "GlUpload.h"
#include "warpscope/gpu/GraphicsBuffer.h"

#include <algorithm>
#include <utility>

namespace warpscope::render {

std::vector<int> glCudaDevices()
{
    return cudaDevicesOfGl();
}

GlInterop::GlInterop(gpu::Context& context, bool allowInterop) : m_context(context)
{
    if (allowInterop && context.isCuda()) {
        const std::vector<int> devices = cudaDevicesOfGl();
        m_interop =
            std::find(devices.begin(), devices.end(), context.device().ordinal) != devices.end();
    }
}

GlInterop::~GlInterop()
{
    while (!m_registrations.empty())
        forget(m_registrations.back().buffer);
    while (!m_staged.empty())
        forget(m_staged.back());
}

void GlInterop::forget(unsigned int buffer)
{
    const auto registration =
        std::find_if(m_registrations.begin(), m_registrations.end(),
                     [&](const Registration& r) { return r.buffer == buffer; });
    if (registration != m_registrations.end()) {
        unregisterGlBuffer(m_context.device().ordinal, registration->resource);
        m_registrations.erase(registration);
    }
    if (const auto staged = std::find(m_staged.begin(), m_staged.end(), buffer);
        staged != m_staged.end()) {
        gpu::releaseStaging(m_context, buffer);
        m_staged.erase(staged);
    }
}

gpu::Status GlInterop::resource(unsigned int buffer, std::size_t bytes, void*& resource)
{
    const auto it = std::find_if(m_registrations.begin(), m_registrations.end(),
                                 [&](const Registration& r) { return r.buffer == buffer; });
    if (it != m_registrations.end() && it->bytes == bytes) {
        resource = it->resource;
        return gpu::Status::success();
    }
    if (it != m_registrations.end()) // the same buffer name with new storage
        forget(buffer);
    if (gpu::Status s = registerGlBuffer(m_context.device().ordinal, buffer, resource); !s)
        return s;
    m_registrations.push_back({buffer, bytes, resource});
    return gpu::Status::success();
}

GlWriteScope::GlWriteScope(GlInterop& interop, unsigned int buffer, std::size_t bytes)
    : m_interop(interop), m_buffer(buffer), m_bytes(bytes)
{
    gpu::Context& context = interop.context();
    if (!interop.interop()) {
        m_status = bytes > glBufferBytes(buffer)
                       ? gpu::Status::failure("The OpenGL buffer is smaller than its contents")
                       : gpu::stagingBuffer(context, buffer, bytes, m_view);
        if (m_status && std::find(interop.m_staged.begin(), interop.m_staged.end(), buffer) ==
                            interop.m_staged.end())
            interop.m_staged.push_back(buffer);
        m_open = m_status.ok();
        return;
    }
    void* resource = nullptr;
    m_status = interop.resource(buffer, bytes, resource);
    if (m_status)
        m_status = gpu::mapGraphicsBuffer(context, resource, m_view);
    if (!m_status)
        return;
    m_resource = resource;
    m_open = true;
    if (m_view.size < bytes)
        m_status = gpu::Status::failure("The mapped OpenGL buffer is smaller than its contents");
    m_view.size = bytes;
}

GlWriteScope::~GlWriteScope()
{
    if (m_open)
        close(false);
}

gpu::Status GlWriteScope::commit()
{
    if (!m_open)
        return m_status ? gpu::Status::failure("The OpenGL buffer was already handed over")
                        : m_status;
    const gpu::Status closed = close(m_status.ok());
    return m_status ? closed : m_status;
}

gpu::Status GlWriteScope::close(bool upload)
{
    m_open = false;
    gpu::Context& context = m_interop.context();
    if (m_resource) // unmapped on every path, so OpenGL can use the buffer again
        return gpu::unmapGraphicsBuffer(context, std::exchange(m_resource, nullptr));
    if (!upload)
        return gpu::Status::success();
    std::span<const std::byte> host;
    if (gpu::Status s = gpu::readStaging(context, m_buffer, m_bytes, host); !s)
        return s;
    const gpu::ScopedHostSpan span(context.timeline(), context.hostLane(), "glBufferSubData",
                                   gpu::SpanKind::Interop);
    return uploadBytesToGlBuffer(m_buffer, host.data(), host.size());
}

} // namespace warpscope::render
