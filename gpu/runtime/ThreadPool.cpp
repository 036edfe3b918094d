#include "runtime/ThreadPool.h"

#include <algorithm>

namespace warpscope::gpu {

ThreadPool::ThreadPool(unsigned threadCount)
{
    const unsigned total = std::max(1u, threadCount);
    for (unsigned i = 1; i < total; ++i)
        m_workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread& t : m_workers)
        t.join();
}

void ThreadPool::runChunk(unsigned index)
{
    const std::size_t n = size();
    const std::size_t begin = m_count * index / n;
    const std::size_t end = m_count * (index + 1) / n;
    if (begin < end)
        (*m_body)(begin, end, index);
}

void ThreadPool::parallelFor(std::size_t count,
                             const std::function<void(std::size_t, std::size_t, unsigned)>& body)
{
    {
        std::lock_guard lock(m_mutex);
        m_body = &body;
        m_count = count;
        m_pending = unsigned(m_workers.size());
        ++m_generation;
    }
    m_wake.notify_all();
    runChunk(0);
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [this] { return m_pending == 0; });
    m_body = nullptr;
}

void ThreadPool::workerLoop(unsigned index)
{
    unsigned seen = 0;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop)
                return;
            seen = m_generation;
        }
        runChunk(index);
        {
            std::lock_guard lock(m_mutex);
            --m_pending;
        }
        m_done.notify_one();
    }
}

} // namespace warpscope::gpu
