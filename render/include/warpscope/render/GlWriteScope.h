#pragma once

#include "warpscope/gpu/BufferView.h"
#include "warpscope/gpu/Context.h"
#include "warpscope/gpu/Status.h"

#include <cstddef>
#include <string>
#include <vector>

// The one way results reach OpenGL. A compute context's slices write into a GL buffer
// through a GlWriteScope: mapped for the GPU when OpenGL runs on it (interop, no copy
// through the host), otherwise staged on the compute device and uploaded with
// glBufferSubData when the scope commits.
namespace warpscope::render {

// The CUDA devices the current OpenGL context runs on (none without CUDA).
std::vector<int> glCudaDevices();

// Joins the current OpenGL context to one compute context: whether results go through
// interop or are staged, and the GL buffers' registrations with CUDA, kept from frame to
// frame. Made, used and destroyed with the GL context current, after the compute context
// and before it goes.
class GlInterop
{
public:
    // allowInterop: false stages even where interop would work (for comparison).
    explicit GlInterop(gpu::Context& context, bool allowInterop = true);
    ~GlInterop();
    GlInterop(const GlInterop&) = delete;
    GlInterop& operator=(const GlInterop&) = delete;

    gpu::Context& context() { return m_context; }
    bool interop() const { return m_interop; }
    // Forgets a GL buffer that is about to be deleted or reallocated.
    void forget(unsigned int buffer);

private:
    friend class GlWriteScope;
    struct Registration
    {
        unsigned int buffer = 0;
        std::size_t bytes = 0;
        void* resource = nullptr;
    };
    // The buffer's registration with CUDA, made on first use and again when its size changed.
    gpu::Status resource(unsigned int buffer, std::size_t bytes, void*& resource);

    gpu::Context& m_context;
    bool m_interop = false;
    std::vector<Registration> m_registrations;
    std::vector<unsigned int> m_staged; // buffers with staging memory in the context
};

// Opens the first `bytes` of a GL buffer for writing by the compute context's slices, as a
// view of that context's memory. commit() hands the results to OpenGL; a scope closed
// without commit (the write failed) unmaps the buffer all the same, and staged results are
// dropped, so the buffer keeps its last contents and OpenGL can use it.
class GlWriteScope
{
public:
    GlWriteScope(GlInterop& interop, unsigned int buffer, std::size_t bytes);
    ~GlWriteScope();
    GlWriteScope(const GlWriteScope&) = delete;
    GlWriteScope& operator=(const GlWriteScope&) = delete;

    // Whether the buffer could be opened (mapped, or staging memory made), and why not.
    const gpu::Status& status() const { return m_status; }
    template <typename T> gpu::BufferView<T> view() const
    {
        return {reinterpret_cast<T*>(m_view.data), m_view.size / sizeof(T), m_view.space};
    }
    // Unmaps the buffer (interop) or uploads the staged results. Returns the first failure,
    // the opening's included.
    gpu::Status commit();

private:
    gpu::Status close(bool upload);

    GlInterop& m_interop;
    unsigned int m_buffer;
    std::size_t m_bytes;
    void* m_resource = nullptr; // mapped, until closed
    bool m_open = false;
    gpu::Status m_status;
    gpu::BufferView<std::byte> m_view;
};

} // namespace warpscope::render
