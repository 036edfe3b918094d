// The runner's socket: frames of a fixed header and a payload, a file descriptor riding with
// the header when there is one. Either side may be hostile or gone (the runner runs users'
// code), so every length is checked before it is trusted and nothing raises SIGPIPE.
#include "kernel/KernelRunner.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <type_traits>
#include <unistd.h>

namespace warpscope::gpu {
namespace {

constexpr std::uint32_t kMagic = 0x524b5357; // "WSKR"
constexpr std::uint32_t kRequest = 1, kReply = 2;
// A CUBIN or a library path is far below this; a larger frame is a broken peer.
constexpr std::uint64_t kMaxPayload = 256ull << 20;

struct Header
{
    std::uint32_t magic;
    std::uint32_t type;
    std::uint64_t size;
};

class Writer
{
public:
    template <typename T> void put(const T& value)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        m_bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
    }
    void putString(const std::string& text)
    {
        put(std::uint64_t(text.size()));
        m_bytes += text;
    }
    const std::string& bytes() const { return m_bytes; }

private:
    std::string m_bytes;
};

class Reader
{
public:
    explicit Reader(const std::string& bytes) : m_bytes(bytes) {}
    template <typename T> bool get(T& value)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        if (m_bytes.size() - m_at < sizeof value)
            return false;
        std::memcpy(&value, m_bytes.data() + m_at, sizeof value);
        m_at += sizeof value;
        return true;
    }
    bool getString(std::string& text)
    {
        std::uint64_t size = 0;
        if (!get(size) || size > m_bytes.size() - m_at)
            return false;
        text.assign(m_bytes, m_at, size);
        m_at += size;
        return true;
    }
    bool done() const { return m_at == m_bytes.size(); }

private:
    const std::string& m_bytes;
    std::size_t m_at = 0;
};

// At most kMaxPrintLines, each as the runner wrote it.
bool getPrintLines(Reader& in, std::vector<KernelPrintLine>& lines)
{
    std::uint64_t count = 0;
    if (!in.get(count) || count > kMaxPrintLines)
        return false;
    lines.resize(count);
    for (KernelPrintLine& line : lines)
        if (!in.get(line.block) || !in.get(line.thread) || !in.getString(line.text))
            return false;
    return true;
}

// A runner's findings: at most kMaxKernelFindings warnings or errors, each at a line or none.
bool getFindings(Reader& in, std::vector<KernelMessage>& findings)
{
    std::uint64_t count = 0;
    if (!in.get(count) || count > kMaxKernelFindings)
        return false;
    findings.resize(count);
    for (KernelMessage& m : findings) {
        std::int32_t severity = 0, line = 0;
        if (!in.get(severity) || !in.get(line) || !in.getString(m.text) || line < 0 ||
            (severity != std::int32_t(Severity::Warning) &&
             severity != std::int32_t(Severity::Error)))
            return false;
        m.severity = Severity(severity);
        m.line = line;
    }
    return true;
}

// At most kMaxKernelBuffers; their sizes are the runner's to check (runnerBuffersProblem).
bool getBuffers(Reader& in, std::vector<RunnerBuffer>& buffers)
{
    std::uint64_t count = 0;
    if (!in.get(count) || count > std::uint64_t(kMaxKernelBuffers))
        return false;
    buffers.resize(count);
    for (RunnerBuffer& b : buffers)
        if (!in.get(b))
            return false;
    return true;
}

// A recorded launch's figures: lines of known operations (at most kMaxMemoryLines), and per-warp
// arrays of one length, at most kMaxRecordedWarps.
constexpr std::uint64_t kMaxMemoryLines = 1u << 16;

void putMemory(Writer& w, const KernelMemoryReport& m)
{
    w.put(std::uint8_t(m.recorded));
    w.put(m.blocks);
    w.put(m.blocksInPart);
    w.put(std::uint64_t(std::min<std::size_t>(m.lines.size(), kMaxMemoryLines)));
    for (std::size_t i = 0; i < m.lines.size() && i < kMaxMemoryLines; ++i) {
        const MemoryLineStats& line = m.lines[i];
        w.put(std::int32_t(line.line));
        w.put(std::uint8_t(line.op));
        w.put(line.instructions);
        w.put(line.lanes);
        w.put(line.units);
        w.put(line.ideal);
        w.putString(line.cause);
    }
    w.put(m.warps.warpsPerBlock);
    w.put(std::uint64_t(m.warps.sectorsPerRequest.size()));
    for (const std::vector<float>* v : {&m.warps.sectorsPerRequest, &m.warps.idealSectorsPerRequest,
                                        &m.warps.conflictWays, &m.warps.activeLanes})
        for (float f : *v)
            w.put(f);
}

bool getMemory(Reader& in, KernelMemoryReport& m)
{
    std::uint8_t recorded = 0;
    std::uint64_t count = 0;
    if (!in.get(recorded) || !in.get(m.blocks) || !in.get(m.blocksInPart) || !in.get(count) ||
        count > kMaxMemoryLines)
        return false;
    m.recorded = recorded != 0;
    m.lines.resize(count);
    for (MemoryLineStats& line : m.lines) {
        std::int32_t at = 0;
        std::uint8_t op = 0;
        if (!in.get(at) || !in.get(op) || !in.get(line.instructions) || !in.get(line.lanes) ||
            !in.get(line.units) || !in.get(line.ideal) || !in.getString(line.cause) || at < 0 ||
            op >= std::uint8_t(MemoryOp::Count))
            return false;
        line.line = at;
        line.op = MemoryOp(op);
    }
    std::uint64_t warps = 0;
    if (!in.get(m.warps.warpsPerBlock) || !in.get(warps) || warps > kMaxRecordedWarps)
        return false;
    for (std::vector<float>* v : {&m.warps.sectorsPerRequest, &m.warps.idealSectorsPerRequest,
                                  &m.warps.conflictWays, &m.warps.activeLanes}) {
        v->resize(warps);
        for (float& f : *v)
            if (!in.get(f))
                return false;
    }
    return true;
}

bool writeAll(int socket, const char* data, std::size_t size)
{
    while (size > 0) {
        const ssize_t sent = ::send(socket, data, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent <= 0)
            return false;
        data += sent;
        size -= std::size_t(sent);
    }
    return true;
}

bool sendFrame(int socket, std::uint32_t type, const std::string& payload, int fd)
{
    const Header header{kMagic, type, payload.size()};
    iovec part{const_cast<Header*>(&header), sizeof header};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (fd >= 0) {
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&message);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    ssize_t sent;
    do
        sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent < 0)
        return false;
    // The header is 16 bytes: a stream socket sends it whole or not at all in practice, but a
    // short send is still finished by hand.
    if (std::size_t(sent) < sizeof header &&
        !writeAll(socket, reinterpret_cast<const char*>(&header) + sent, sizeof header - sent))
        return false;
    return writeAll(socket, payload.data(), payload.size());
}

// Waits until socket is readable or deadlineMs (steady clock; < 0: none) passes.
bool waitReadable(int socket, double deadlineMs, bool& timedOut)
{
    while (true) {
        int waitMs = -1;
        if (deadlineMs >= 0) {
            const double left = deadlineMs - steadyNowMs();
            if (left <= 0) {
                timedOut = true;
                return false;
            }
            waitMs = int(std::min(left + 1.0, 1e9));
        }
        pollfd p{socket, POLLIN, 0};
        const int ready = ::poll(&p, 1, waitMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return false;
        if (ready > 0)
            return true;
    }
}

bool readAll(int socket, char* data, std::size_t size, double deadlineMs, bool& timedOut)
{
    while (size > 0) {
        if (!waitReadable(socket, deadlineMs, timedOut))
            return false;
        const ssize_t got = ::recv(socket, data, size, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        data += got;
        size -= std::size_t(got);
    }
    return true;
}

bool receiveFrame(int socket, std::uint32_t type, double deadlineMs, std::string& payload, int& fd,
                  bool& timedOut)
{
    fd = -1;
    timedOut = false;
    if (!waitReadable(socket, deadlineMs, timedOut))
        return false;
    Header header{};
    iovec part{&header, sizeof header};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t got;
    do
        got = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
        return false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
            std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    auto fail = [&] {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
        return false;
    };
    if (std::size_t(got) < sizeof header && !readAll(socket, reinterpret_cast<char*>(&header) + got,
                                                     sizeof header - got, deadlineMs, timedOut))
        return fail();
    if (header.magic != kMagic || header.type != type || header.size > kMaxPayload)
        return fail();
    payload.resize(header.size);
    if (!readAll(socket, payload.data(), payload.size(), deadlineMs, timedOut))
        return fail();
    return true;
}

} // namespace

double steadyNowMs()
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

bool sendRequest(int socket, const RunnerRequest& r, int fd)
{
    Writer w;
    w.put(r.target);
    w.putString(r.program);
    w.putString(r.entry);
    w.put(r.mesh);
    w.put(r.refs);
    w.putString(r.params);
    w.put(r.grid);
    w.put(r.block);
    w.put(r.sharedBytes);
    w.put(r.pitch);
    w.put(r.nx);
    w.put(r.ny);
    w.put(r.smCount);
    w.put(r.elementCount);
    w.put(r.statsOffset);
    w.put(r.withOwners);
    w.put(r.threads);
    w.put(r.recordMemory);
    w.put(std::uint64_t(r.buffers.size()));
    for (const RunnerBuffer& b : r.buffers)
        w.put(b);
    w.put(r.output.kind);
    w.put(r.output.generation);
    w.put(r.output.bytes);
    w.put(r.output.ipcHandle);
    return sendFrame(socket, kRequest, w.bytes(), fd);
}

bool receiveRequest(int socket, RunnerRequest& r, int& fd)
{
    std::string payload;
    bool timedOut = false;
    if (!receiveFrame(socket, kRequest, -1.0, payload, fd, timedOut))
        return false;
    Reader in(payload);
    const bool ok = in.get(r.target) && in.getString(r.program) && in.getString(r.entry) &&
                    in.get(r.mesh) && in.get(r.refs) && in.getString(r.params) && in.get(r.grid) &&
                    in.get(r.block) && in.get(r.sharedBytes) && in.get(r.pitch) && in.get(r.nx) &&
                    in.get(r.ny) && in.get(r.smCount) && in.get(r.elementCount) &&
                    in.get(r.statsOffset) && in.get(r.withOwners) && in.get(r.threads) &&
                    in.get(r.recordMemory) && getBuffers(in, r.buffers) && in.get(r.output.kind) &&
                    in.get(r.output.generation) && in.get(r.output.bytes) &&
                    in.get(r.output.ipcHandle) && in.done();
    if (!ok && fd >= 0) {
        ::close(fd);
        fd = -1;
    }
    return ok;
}

bool sendReply(int socket, const RunnerReply& r)
{
    Writer w;
    w.put(std::uint8_t(r.ok));
    w.putString(r.message);
    w.put(std::uint8_t(r.runnerEnds));
    w.put(r.kernelMs);
    w.put(r.startMs);
    w.put(r.stopMs);
    w.put(r.outOfBounds);
    w.put(r.bufferOutOfBounds);
    w.put(r.lo);
    w.put(r.hi);
    w.put(r.nonFinite);
    w.put(std::uint64_t(r.printLines.size()));
    for (const KernelPrintLine& line : r.printLines) {
        w.put(line.block);
        w.put(line.thread);
        w.putString(line.text);
    }
    w.put(r.printLinesDropped);
    w.put(std::uint64_t(r.findings.size()));
    for (const KernelMessage& m : r.findings) {
        w.put(std::int32_t(m.severity));
        w.put(std::int32_t(m.line));
        w.putString(m.text);
    }
    putMemory(w, r.memory);
    return sendFrame(socket, kReply, w.bytes(), -1);
}

bool receiveReply(int socket, double deadlineMs, RunnerReply& r, bool& timedOut)
{
    std::string payload;
    int fd = -1;
    if (!receiveFrame(socket, kReply, deadlineMs, payload, fd, timedOut))
        return false;
    if (fd >= 0)
        ::close(fd); // a reply carries none
    Reader in(payload);
    std::uint8_t ok = 0, lost = 0;
    const bool read = in.get(ok) && in.getString(r.message) && in.get(lost) && in.get(r.kernelMs) &&
                      in.get(r.startMs) && in.get(r.stopMs) && in.get(r.outOfBounds) &&
                      in.get(r.bufferOutOfBounds) && in.get(r.lo) && in.get(r.hi) &&
                      in.get(r.nonFinite) && getPrintLines(in, r.printLines) &&
                      in.get(r.printLinesDropped) && getFindings(in, r.findings) &&
                      getMemory(in, r.memory) && in.done();
    r.ok = ok != 0;
    r.runnerEnds = lost != 0;
    return read;
}

} // namespace warpscope::gpu
