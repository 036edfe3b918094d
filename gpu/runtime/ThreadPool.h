#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace warpscope::gpu {

// A fixed set of worker threads that run one parallel loop at a time. Kept alive between
// frames so a slider drag does not create threads.
class ThreadPool
{
public:
    explicit ThreadPool(unsigned threadCount = std::thread::hardware_concurrency());
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    unsigned size() const { return unsigned(m_workers.size()) + 1; }

    // Calls body(begin, end, worker) over [0, count) split into contiguous chunks, one per
    // thread (the caller included), and returns when all are done. worker < size().
    void parallelFor(std::size_t count,
                     const std::function<void(std::size_t, std::size_t, unsigned)>& body);

private:
    void workerLoop(unsigned index);
    void runChunk(unsigned index);

    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(std::size_t, std::size_t, unsigned)>* m_body = nullptr;
    std::size_t m_count = 0;
    unsigned m_generation = 0;
    unsigned m_pending = 0;
    bool m_stop = false;
};

} // namespace warpscope::gpu
