#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace warpscope::batch {

// Host threads shared by every device's worker of a run, for the per-object work around the
// periodograms (loading, preparation, peaks, false-alarm probabilities). Several workers may
// run loops at once: each loop takes whichever threads are free, and its caller works on it
// too, so a loop finishes even when the other workers' loops hold every thread.
class HostPool
{
public:
    // threads in all, the callers' included: 0 for every core, 1 for the callers alone.
    explicit HostPool(unsigned threads);
    ~HostPool();
    HostPool(const HostPool&) = delete;
    HostPool& operator=(const HostPool&) = delete;

    // Calls body(i) once for every i in [0, count), in any order and on any of the threads,
    // and returns when every call has returned.
    void forEach(std::size_t count, const std::function<void(std::size_t)>& body);

private:
    struct Loop
    {
        const std::function<void(std::size_t)>* body = nullptr;
        std::size_t count = 0;
        std::atomic<std::size_t> next{0};
        unsigned helpers = 0; // pool threads inside run(), under m_mutex
    };
    static void run(Loop& loop);
    void leave(Loop& loop); // under m_mutex: the loop takes no new helpers
    void threadLoop();

    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::deque<Loop*> m_loops; // loops with indices left, oldest first
    bool m_stop = false;
};

} // namespace warpscope::batch
