#pragma once
// A small fork-join loop for read-only work over a graph: the driver's
// per-pattern searches, the FX writer's two halves. C++20 standard library only.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fusebox {

/// Calls fn(i) for every i in [0, count), on up to `threads` threads (the
/// calling one included; 0 means one per hardware thread). Items are handed out
/// one at a time in index order, so uneven items balance. fn must be safe to
/// run concurrently for different i; results belong in per-item slots the
/// caller merges afterwards, which keeps the outcome independent of timing.
/// The first exception an item throws is rethrown here after every thread
/// has stopped; items not yet started are then skipped.
template<typename Fn>
void parallelFor(size_t count, unsigned threads, Fn &&fn)
{
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    const size_t workers = std::min<size_t>(threads, count);
    if (workers <= 1) {
        for (size_t i = 0; i < count; ++i)
            fn(i);
        return;
    }
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex errorMutex;
    auto work = [&] {
        for (size_t i = next++; i < count && !failed; i = next++) {
            try {
                fn(i);
            } catch (...) {
                std::lock_guard lock(errorMutex);
                if (!error)
                    error = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (size_t t = 1; t < workers; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

} // namespace fusebox
