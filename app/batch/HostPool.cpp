#include "HostPool.h"

#include <algorithm>

namespace warpscope::batch {

HostPool::HostPool(unsigned threads)
{
    const unsigned total =
        threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 1; i < total; ++i)
        m_threads.emplace_back([this] { threadLoop(); });
}

HostPool::~HostPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

void HostPool::run(Loop& loop)
{
    for (std::size_t i; (i = loop.next.fetch_add(1)) < loop.count;)
        (*loop.body)(i);
}

void HostPool::leave(Loop& loop)
{
    if (const auto at = std::find(m_loops.begin(), m_loops.end(), &loop); at != m_loops.end())
        m_loops.erase(at);
}

void HostPool::forEach(std::size_t count, const std::function<void(std::size_t)>& body)
{
    Loop loop;
    loop.body = &body;
    loop.count = count;
    if (count > 1 && !m_threads.empty()) {
        {
            std::lock_guard lock(m_mutex);
            m_loops.push_back(&loop);
        }
        m_wake.notify_all();
    }
    run(loop);
    std::unique_lock lock(m_mutex);
    leave(loop);
    // Every index is taken; the helpers still inside finish theirs.
    m_done.wait(lock, [&] { return loop.helpers == 0; });
}

void HostPool::threadLoop()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stop || !m_loops.empty(); });
        if (m_stop)
            return;
        Loop& loop = *m_loops.front();
        ++loop.helpers;
        lock.unlock();
        run(loop);
        lock.lock();
        leave(loop);
        if (--loop.helpers == 0)
            m_done.notify_all();
    }
}

} // namespace warpscope::batch
