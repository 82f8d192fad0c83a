// Private helper: run f(item) for item in [0, count) on all hardware threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace hipfuse::ref::detail {

// Items are handed out one at a time from an atomic counter (items differ in cost at tensor
// edges). The first exception thrown by f is rethrown on the calling thread after all joined.
template <class F>
void parallel_for(std::int64_t count, F f) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const auto threads = static_cast<unsigned>(std::min<std::int64_t>(hw, count));
    if (threads <= 1) {
        for (std::int64_t i = 0; i < count; ++i) f(i);
        return;
    }
    std::atomic<std::int64_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto worker = [&] {
        try {
            for (std::int64_t i = next++; i < count; i = next++) f(i);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(error_mutex);
            if (!error) error = std::current_exception();
            next = count;  // stop handing out work
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace hipfuse::ref::detail
