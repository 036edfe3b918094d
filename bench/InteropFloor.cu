// warpscope-interop-floor: what a frame that computes with CUDA and draws with OpenGL costs at
// least on this GPU, whatever the way the buffer is shared. Headless (EGL on the CUDA device).
//
//   warpscope-interop-floor [--size N] [--frames F]
//
// One buffer of N x N float32 values (4096: 64 MiB) is shared two ways in one run:
//  (a) no map at all: device memory from CUDA's virtual memory API (cuMemCreate, exportable
//      as a POSIX file descriptor), imported into OpenGL with GL_EXT_memory_object_fd;
//  (b) the classic way: a GL buffer registered with cudaGraphicsGLRegisterBuffer, mapped and
//      unmapped every frame (what warpscope's interop frame does).
// A kernel writes every value (a function of index and frame), and a draw into a 1600 x 1000
// framebuffer reads every value through a buffer texture, as the field's draw does. The
// program first checks, for both ways, that OpenGL reads exactly what CUDA wrote (counting
// differing values), then times, each as the median of F frames, wall clock:
//   kernel + stream sync alone; draw alone (to glFinish); kernel then draw (a);
//   and the classic frame: map, kernel, unmap, draw (b); then (b) with one timing event
//   recorded on the stream before the map, after it, before the unmap or after it, as the
//   timeline's spans record them.
// "kernel + switch + draw" is (a)'s frame; "switch" is what it costs beyond its two parts:
// the GPU moving from CUDA work to GL work within one frame.
#include "Help.h"
#include "warpscope/render/GlWriteScope.h"
#include "warpscope/render/HeadlessGl.h"

#include <EGL/egl.h>
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
#include <functional>
#include <string>
#include <vector>

using namespace warpscope;

namespace {

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "warpscope-interop-floor: %s: %s\n", #call,                       \
                         cudaGetErrorString(e_));                                                  \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

#define CHECK_CU(call)                                                                             \
    do {                                                                                           \
        const CUresult r_ = (call);                                                                \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char* text_ = "unknown";                                                         \
            cuGetErrorString(r_, &text_);                                                          \
            std::fprintf(stderr, "warpscope-interop-floor: %s: %s\n", #call, text_);               \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

void fail(const std::string& what)
{
    std::fprintf(stderr, "warpscope-interop-floor: %s\n", what.c_str());
    std::exit(1);
}

// The value at i in frame: exact in float32 (integers below 2^24 times a power of two), so the
// host can check every one.
__host__ __device__ inline float valueAt(unsigned i, int frame)
{
    return float((i * 2654435761u + unsigned(frame) * 40503u) & 0xffffu) * 0.25f;
}

__global__ void fillKernel(float* __restrict__ out, unsigned count, int frame)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        out[i] = valueAt(i, frame);
}

void fill(float* out, unsigned count, int frame, cudaStream_t stream, int sms)
{
    fillKernel<<<4 * sms, 256, 0, stream>>>(out, count, frame);
    CHECK_CUDA(cudaGetLastError());
}

// The draw: every fragment of the framebuffer reads its node of the N x N grid from the
// buffer texture and maps it to a grey level.
const char* kVertex = R"(#version 330 core
const vec2 corners[4] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(1, 1));
out vec2 uv;
void main() { uv = corners[gl_VertexID] * 0.5 + 0.5; gl_Position = vec4(corners[gl_VertexID], 0, 1); }
)";
const char* kFragment = R"(#version 330 core
uniform samplerBuffer values;
uniform int side;
in vec2 uv;
out vec4 colour;
void main() {
    ivec2 node = min(ivec2(uv * float(side)), ivec2(side - 1));
    float v = texelFetch(values, node.y * side + node.x).r / 16384.0;
    colour = vec4(v, v, v, 1);
}
)";

GLuint compile(GLenum type, const char* source)
{
    const GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = {};
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        fail(std::string("shader: ") + log);
    }
    return shader;
}

struct Drawer
{
    GLuint program = 0, vao = 0, texture = 0;
    int side = 0;

    void init(int n)
    {
        side = n;
        program = glCreateProgram();
        glAttachShader(program, compile(GL_VERTEX_SHADER, kVertex));
        glAttachShader(program, compile(GL_FRAGMENT_SHADER, kFragment));
        glLinkProgram(program);
        GLint ok = 0;
        glGetProgramiv(program, GL_LINK_STATUS, &ok);
        if (!ok)
            fail("the draw's program did not link");
        glGenVertexArrays(1, &vao);
        glGenTextures(1, &texture);
    }
    void draw(GLuint buffer, render::HeadlessGl& gl)
    {
        gl.bindFramebuffer();
        glViewport(0, 0, gl.width(), gl.height());
        glUseProgram(program);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_BUFFER, texture);
        glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, buffer);
        glUniform1i(glGetUniformLocation(program, "values"), 0);
        glUniform1i(glGetUniformLocation(program, "side"), side);
        glBindVertexArray(vao);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
};

// Values of buffer (read by OpenGL) that differ from frame's.
long long differing(GLuint buffer, unsigned count, int frame)
{
    std::vector<float> read(count);
    glBindBuffer(GL_COPY_READ_BUFFER, buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(count) * 4, read.data());
    long long bad = 0;
    for (unsigned i = 0; i < count; ++i) {
        const float expected = valueAt(i, frame);
        bad += std::memcmp(&read[i], &expected, sizeof expected) != 0; // bit for bit
    }
    return bad;
}

struct Stats
{
    double median = 0, min = 0;
};

Stats timeFrames(int frames, const std::function<void(int)>& frame)
{
    for (int k = 0; k < 10; ++k) // warm-up
        frame(k);
    std::vector<double> t;
    for (int k = 0; k < frames; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        frame(k);
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count());
    }
    std::sort(t.begin(), t.end());
    return {t[t.size() / 2], t.front()};
}

} // namespace

int main(int argc, char** argv)
{
    const char* const usage = "usage: warpscope-interop-floor [--size N] [--frames F]\n";
    if (warpscope::bench::asksForHelp(argc, argv))
        return warpscope::bench::printUsage(usage, true);
    int n = 4096, frames = 200;
    for (int i = 1; i < argc; ++i) {
        const bool hasValue = i + 1 < argc;
        if (hasValue && std::strcmp(argv[i], "--size") == 0)
            n = std::atoi(argv[++i]);
        else if (hasValue && std::strcmp(argv[i], "--frames") == 0)
            frames = std::atoi(argv[++i]);
        else
            return warpscope::bench::printUsage(usage, false);
    }
    if (n < 16 || n > 8192 || frames < 1) {
        std::fprintf(stderr, "warpscope-interop-floor: size 16..8192, frames >= 1\n");
        return 2;
    }
    std::string error;
    auto gl = render::HeadlessGl::create(1600, 1000, error);
    if (!gl)
        fail("no headless OpenGL: " + error);
    const std::vector<int> devices = render::glCudaDevices();
    if (devices.empty())
        fail("OpenGL (" + gl->renderer() + ") does not run on a CUDA device");
    const int ordinal = devices.front();
    CHECK_CUDA(cudaSetDevice(ordinal));
    CHECK_CUDA(cudaFree(nullptr)); // the primary context, current for the driver API too
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, ordinal));
    cudaStream_t stream = nullptr;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const unsigned count = unsigned(n) * unsigned(n);
    const std::size_t bytes = std::size_t(count) * sizeof(float);
    std::printf("Device: %s, OpenGL: %s\nBuffer: %d x %d float32 (%.0f MiB); draw 1600 x 1000 "
                "through a buffer texture; medians of %d frames, wall clock\n\n",
                prop.name, gl->renderer().c_str(), n, n, bytes / 1048576.0, frames);

    // (a) CUDA's virtual memory API, exported as a file descriptor, imported by OpenGL.
    auto glCreateMemoryObjects = reinterpret_cast<PFNGLCREATEMEMORYOBJECTSEXTPROC>(
        eglGetProcAddress("glCreateMemoryObjectsEXT"));
    auto glImportMemoryFd =
        reinterpret_cast<PFNGLIMPORTMEMORYFDEXTPROC>(eglGetProcAddress("glImportMemoryFdEXT"));
    auto glBufferStorageMem =
        reinterpret_cast<PFNGLBUFFERSTORAGEMEMEXTPROC>(eglGetProcAddress("glBufferStorageMemEXT"));
    const char* extensions = nullptr;
    bool hasFd = false;
    GLint extensionCount = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &extensionCount);
    for (GLint i = 0; i < extensionCount; ++i) {
        extensions = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, GLuint(i)));
        hasFd = hasFd || std::strcmp(extensions, "GL_EXT_memory_object_fd") == 0;
    }
    if (!hasFd || !glCreateMemoryObjects || !glImportMemoryFd || !glBufferStorageMem)
        fail("this OpenGL has no GL_EXT_memory_object_fd");
    CUmemAllocationProp allocation{};
    allocation.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    allocation.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    allocation.location.id = ordinal;
    allocation.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t granularity = 0;
    CHECK_CU(
        cuMemGetAllocationGranularity(&granularity, &allocation, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const std::size_t size = (bytes + granularity - 1) / granularity * granularity;
    CUmemGenericAllocationHandle handle = 0;
    CHECK_CU(cuMemCreate(&handle, size, &allocation, 0));
    CUdeviceptr address = 0;
    CHECK_CU(cuMemAddressReserve(&address, size, granularity, 0, 0));
    CHECK_CU(cuMemMap(address, size, 0, handle, 0));
    CUmemAccessDesc access{};
    access.location = allocation.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_CU(cuMemSetAccess(address, size, &access, 1));
    int fd = -1;
    CHECK_CU(
        cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    GLuint memory = 0, shared = 0;
    glCreateMemoryObjects(1, &memory);
    glImportMemoryFd(memory, size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd); // GL owns fd now
    glGenBuffers(1, &shared);
    glBindBuffer(GL_ARRAY_BUFFER, shared);
    glBufferStorageMem(GL_ARRAY_BUFFER, GLsizeiptr(bytes), memory, 0);
    if (const GLenum e = glGetError(); e != GL_NO_ERROR)
        fail("importing CUDA's memory into OpenGL failed (GL error " + std::to_string(e) + ")");
    auto* vmm = reinterpret_cast<float*>(address);

    Drawer drawer;
    drawer.init(n);
    fill(vmm, count, 7, stream, prop.multiProcessorCount);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    const long long badShared = differing(shared, count, 7);

    // (b) The classic way: a GL buffer registered with CUDA, mapped and unmapped each frame.
    GLuint classic = 0;
    glGenBuffers(1, &classic);
    glBindBuffer(GL_ARRAY_BUFFER, classic);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_DRAW);
    cudaGraphicsResource_t resource = nullptr;
    CHECK_CUDA(
        cudaGraphicsGLRegisterBuffer(&resource, classic, cudaGraphicsRegisterFlagsWriteDiscard));
    // A timing event recorded on the stream at one place in the classic frame, as the
    // timeline's spans record them: before the map, between the map and the kernel, between
    // the kernel and the unmap, or after the unmap.
    enum EventAt
    {
        NoEvent,
        BeforeMap,
        AfterMap,
        BeforeUnmap,
        AfterUnmap,
        EventPlaces
    };
    cudaEvent_t marker = nullptr;
    CHECK_CUDA(cudaEventCreate(&marker));
    const auto classicFrame = [&](int frame, bool draw, EventAt at = NoEvent) {
        const auto mark = [&](EventAt here) {
            if (at == here)
                CHECK_CUDA(cudaEventRecord(marker, stream));
        };
        mark(BeforeMap);
        CHECK_CUDA(cudaGraphicsMapResources(1, &resource, stream));
        mark(AfterMap);
        void* pointer = nullptr;
        std::size_t mapped = 0;
        CHECK_CUDA(cudaGraphicsResourceGetMappedPointer(&pointer, &mapped, resource));
        fill(static_cast<float*>(pointer), count, frame, stream, prop.multiProcessorCount);
        mark(BeforeUnmap);
        CHECK_CUDA(cudaGraphicsUnmapResources(1, &resource, stream));
        mark(AfterUnmap);
        if (draw)
            drawer.draw(classic, *gl);
        glFinish();
    };
    classicFrame(9, false);
    const long long badClassic = differing(classic, count, 9);
    std::printf("  OpenGL reads what CUDA wrote: %lld of %u values differ (imported VMM memory), "
                "%lld (registered GL buffer)\n\n",
                badShared, count, badClassic);
    if (badShared != 0 || badClassic != 0)
        fail("OpenGL did not read what CUDA wrote");

    const int sms = prop.multiProcessorCount;
    // Rounds, so that drift touches each measurement alike; medians of the rounds' medians.
    std::vector<double> kernel, draw, both, classicBoth;
    std::vector<double> marked[EventPlaces];
    for (int round = 0; round < 3; ++round) {
        kernel.push_back(timeFrames(frames, [&](int k) {
                             fill(vmm, count, k, stream, sms);
                             CHECK_CUDA(cudaStreamSynchronize(stream));
                         }).median);
        draw.push_back(timeFrames(frames, [&](int) {
                           drawer.draw(shared, *gl);
                           glFinish();
                       }).median);
        both.push_back(timeFrames(frames, [&](int k) {
                           fill(vmm, count, k, stream, sms);
                           CHECK_CUDA(cudaStreamSynchronize(stream));
                           drawer.draw(shared, *gl);
                           glFinish();
                       }).median);
        classicBoth.push_back(timeFrames(frames, [&](int k) { classicFrame(k, true); }).median);
        for (int at = BeforeMap; at < EventPlaces; ++at)
            marked[at].push_back(
                timeFrames(frames, [&](int k) { classicFrame(k, true, EventAt(at)); }).median);
    }
    const auto mid = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const double k = mid(kernel), d = mid(draw), kd = mid(both), c = mid(classicBoth);
    std::printf("  %-52s %8.3f ms\n", "kernel + stream sync alone (VMM buffer)", k);
    std::printf("  %-52s %8.3f ms\n", "draw alone, to glFinish (VMM buffer)", d);
    std::printf("  %-52s %8.3f ms\n", "kernel then draw, no map (kernel + switch + draw)", kd);
    std::printf("  %-52s %8.3f ms\n", "  of which the switch (frame - kernel - draw)", kd - k - d);
    std::printf("  %-52s %8.3f ms\n", "classic frame: map, kernel, unmap, draw", c);
    std::printf("  %-52s %8.2fx %s\n", "classic frame / (kernel + switch + draw)", c / kd,
                c <= 1.15 * kd ? "(within 15 %)" : "(MORE than 15 % above)");
    const char* const places[EventPlaces] = {"", "before the map", "after the map",
                                             "before the unmap", "after the unmap"};
    for (int at = BeforeMap; at < EventPlaces; ++at) {
        const double m = mid(marked[at]);
        std::printf("  %-52s %8.3f ms (%+.3f)\n",
                    (std::string("classic frame, an event recorded ") + places[at]).c_str(), m,
                    m - c);
    }
    // Whether OpenGL still sees CUDA's writes once it has drawn from the buffer: imported
    // memory has no map to say that CUDA wrote, and GL_EXT_semaphore, which would, needs a
    // semaphore CUDA cannot export. Reported, not required: the timings above stand either way.
    fill(vmm, count, 11, stream, sms);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    const long long stale = differing(shared, count, 11);
    std::printf("  after the timed frames, OpenGL reads what CUDA wrote: %lld of %u values "
                "differ%s\n",
                stale, count,
                stale ? " (GL has no map or semaphore here to learn of CUDA's write)" : "");

    CHECK_CUDA(cudaEventDestroy(marker));
    CHECK_CUDA(cudaGraphicsUnregisterResource(resource));
    glDeleteBuffers(1, &classic);
    glDeleteBuffers(1, &shared);
    auto glDeleteMemoryObjects = reinterpret_cast<PFNGLDELETEMEMORYOBJECTSEXTPROC>(
        eglGetProcAddress("glDeleteMemoryObjectsEXT"));
    if (glDeleteMemoryObjects)
        glDeleteMemoryObjects(1, &memory);
    CHECK_CU(cuMemUnmap(address, size));
    CHECK_CU(cuMemAddressFree(address, size));
    CHECK_CU(cuMemRelease(handle));
    CHECK_CUDA(cudaStreamDestroy(stream));
    return 0;
}
