#include "runtime/CuptiTracer.h"

#include <cstdlib>
#include <cuda.h>
#include <cupti_activity.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace warpscope::gpu {
namespace {

// The CUPTI functions used, looked up in the library at run time.
struct Api
{
    decltype(&cuptiActivityEnable) enable = nullptr;
    decltype(&cuptiActivityDisable) disable = nullptr;
    decltype(&cuptiActivityRegisterCallbacks) registerCallbacks = nullptr;
    decltype(&cuptiActivityFlushAll) flushAll = nullptr;
    decltype(&cuptiActivityGetNextRecord) nextRecord = nullptr;
    decltype(&cuptiGetTimestamp) timestamp = nullptr;
    decltype(&cuptiGetStreamIdEx) streamId = nullptr;
    decltype(&cuptiGetResultString) resultString = nullptr;
};

constexpr std::size_t kBufferBytes = 1 << 20;

// "void ns::(anonymous namespace)::kernel<double, true>(Args, double*)" -> "kernel<double, true>".
std::string kernelName(const char* mangled)
{
    int status = 0;
    char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string name = status == 0 && demangled ? demangled : mangled;
    std::free(demangled);
    int depth = 0;
    for (std::size_t i = 0; i < name.size(); ++i) { // cut the parameters
        if (name[i] == '<')
            ++depth;
        else if (name[i] == '>')
            --depth;
        else if (name[i] == '(' && depth == 0 && name.compare(i, 11, "(anonymous ") != 0) {
            name.resize(i);
            break;
        }
    }
    std::size_t scope = std::string::npos;
    depth = 0;
    for (std::size_t i = 0; i < name.size(); ++i) { // the last scope outside template arguments
        if (name[i] == '<')
            ++depth;
        else if (name[i] == '>')
            --depth;
        else if (depth == 0 && name.compare(i, 2, "::") == 0)
            scope = i + 2;
    }
    if (scope != std::string::npos)
        name = name.substr(scope);
    if (name.rfind("void ", 0) == 0)
        name = name.substr(5);
    return name;
}

struct State
{
    std::mutex mutex;
    Api api;
    void* library = nullptr;
    std::string loadProblem;
    int users = 0;
    struct Route
    {
        std::weak_ptr<Timeline> timeline;
        int lane = 0;
        double offsetUs = 0.0; // timeline time minus CUPTI time
    };
    std::map<std::uint32_t, Route> routes;     // by CUPTI stream id
    std::map<cudaStream_t, std::uint32_t> ids; // our streams' CUPTI ids
};

// Never destroyed: CUPTI may deliver a last buffer while the process exits.
State& tracerState()
{
    static State* s = new State;
    return *s;
}

std::string resultText(const Api& api, CUptiResult result)
{
    const char* text = nullptr;
    if (api.resultString)
        api.resultString(result, &text);
    return text ? text : "CUPTI error " + std::to_string(int(result));
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords)
{
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

// Turns a buffer's records into spans on the lanes their streams are routed to.
void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize)
{
    State& s = tracerState();
    std::vector<std::pair<std::shared_ptr<Timeline>, Span>> spans;
    {
        std::lock_guard lock(s.mutex);
        CUpti_Activity* record = nullptr;
        while (s.api.nextRecord && s.api.nextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
            Span span;
            std::uint32_t stream = 0;
            std::uint64_t start = 0, end = 0;
            if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
                const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
                stream = k->streamId;
                start = k->start;
                end = k->end;
                span.kind = SpanKind::Kernel;
                span.name = kernelName(k->name);
                span.detail = "grid (" + std::to_string(k->gridX) + ", " +
                              std::to_string(k->gridY) + ", " + std::to_string(k->gridZ) +
                              "), block (" + std::to_string(k->blockX) + ", " +
                              std::to_string(k->blockY) + ", " + std::to_string(k->blockZ) + ")";
            } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
                const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
                if (m->copyKind != CUPTI_ACTIVITY_MEMCPY_KIND_HTOD &&
                    m->copyKind != CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
                    continue;
                const bool in = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
                stream = m->streamId;
                start = m->start;
                end = m->end;
                span.kind = in ? SpanKind::CopyHostToDevice : SpanKind::CopyDeviceToHost;
                span.name = in ? "copy in" : "copy out";
                span.bytes = m->bytes;
            } else {
                continue;
            }
            const auto route = s.routes.find(stream);
            if (route == s.routes.end() || start == 0)
                continue;
            std::shared_ptr<Timeline> timeline = route->second.timeline.lock();
            if (!timeline)
                continue;
            span.lane = route->second.lane;
            span.startUs = double(start) * 1e-3 + route->second.offsetUs;
            span.endUs = double(end) * 1e-3 + route->second.offsetUs;
            spans.emplace_back(std::move(timeline), std::move(span));
        }
    }
    for (auto& [timeline, span] : spans)
        timeline->add(std::move(span));
    std::free(buffer);
}

} // namespace

CuptiTracer& CuptiTracer::instance()
{
    static CuptiTracer tracer;
    return tracer;
}

Status CuptiTracer::acquire()
{
    State& s = tracerState();
    std::lock_guard lock(s.mutex);
    if (!s.library && s.loadProblem.empty()) {
        for (const char* name :
             {"libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so.13",
              "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"})
            if ((s.library = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
                break;
        if (!s.library) {
            s.loadProblem = "CUPTI (libcupti.so.13) is not installed; timing with CUDA events";
        } else {
            auto find = [&](auto& fn, const char* symbol) {
                fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
                    dlsym(s.library, symbol));
                return fn != nullptr;
            };
            Api& a = s.api;
            if (!(find(a.enable, "cuptiActivityEnable") &&
                  find(a.disable, "cuptiActivityDisable") &&
                  find(a.registerCallbacks, "cuptiActivityRegisterCallbacks") &&
                  find(a.flushAll, "cuptiActivityFlushAll") &&
                  find(a.nextRecord, "cuptiActivityGetNextRecord") &&
                  find(a.timestamp, "cuptiGetTimestamp") &&
                  find(a.streamId, "cuptiGetStreamIdEx") &&
                  find(a.resultString, "cuptiGetResultString")))
                s.loadProblem = "This CUPTI lacks the activity API; timing with CUDA events";
        }
    }
    if (!s.loadProblem.empty())
        return Status::failure(s.loadProblem);
    if (s.users == 0) {
        if (CUptiResult r = s.api.registerCallbacks(bufferRequested, bufferCompleted);
            r != CUPTI_SUCCESS)
            return Status::failure("CUPTI is busy (" + resultText(s.api, r) +
                                   "), perhaps with a profiler; timing with CUDA events");
        for (CUpti_ActivityKind kind :
             {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY})
            if (CUptiResult r = s.api.enable(kind); r != CUPTI_SUCCESS) {
                s.api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
                return Status::failure("CUPTI activity records are not available (" +
                                       resultText(s.api, r) + "); timing with CUDA events");
            }
    }
    ++s.users;
    return Status::success();
}

void CuptiTracer::release()
{
    State& s = tracerState();
    {
        std::lock_guard lock(s.mutex);
        if (s.users == 0 || --s.users > 0)
            return;
    }
    flush();
    std::lock_guard lock(s.mutex);
    s.api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    s.api.disable(CUPTI_ACTIVITY_KIND_MEMCPY);
    s.routes.clear();
    s.ids.clear();
}

Status CuptiTracer::route(cudaStream_t stream, const std::shared_ptr<Timeline>& timeline, int lane)
{
    State& s = tracerState();
    // The stream's context, through the runtime, so the build needs no driver library.
    using StreamGetCtx = CUresult (*)(CUstream, CUcontext*);
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuStreamGetCtx", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        !fn) {
        cudaGetLastError();
        return Status::failure("The CUDA driver has no cuStreamGetCtx; timing with CUDA events");
    }
    CUcontext context = nullptr;
    if (reinterpret_cast<StreamGetCtx>(fn)(stream, &context) != CUDA_SUCCESS)
        return Status::failure("The stream's CUDA context is unknown; timing with CUDA events");
    std::lock_guard lock(s.mutex);
    if (s.users == 0)
        return Status::failure("CUPTI is not started");
    std::uint32_t id = 0;
    if (CUptiResult r = s.api.streamId(context, stream, 0, &id); r != CUPTI_SUCCESS)
        return Status::failure("CUPTI does not know the stream (" + resultText(s.api, r) + ")");
    std::uint64_t now = 0;
    s.api.timestamp(&now);
    s.routes[id] = {timeline, lane, timeline->nowUs() - double(now) * 1e-3};
    s.ids[stream] = id;
    return Status::success();
}

void CuptiTracer::unroute(cudaStream_t stream)
{
    State& s = tracerState();
    std::lock_guard lock(s.mutex);
    if (auto it = s.ids.find(stream); it != s.ids.end()) {
        s.routes.erase(it->second);
        s.ids.erase(it);
    }
}

void CuptiTracer::flush()
{
    State& s = tracerState();
    decltype(&cuptiActivityFlushAll) flushAll = nullptr;
    {
        std::lock_guard lock(s.mutex);
        if (s.users > 0)
            flushAll = s.api.flushAll;
    }
    if (flushAll)
        flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); // buffers come back through bufferCompleted
}

} // namespace warpscope::gpu
