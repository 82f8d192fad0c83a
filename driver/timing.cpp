#include "timing.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "gpu.h"

namespace hipfuse::driver {

TimingStats summarize(std::vector<double> us) {
  TimingStats s;
  if (us.empty()) return s;
  std::sort(us.begin(), us.end());
  const std::size_t n = us.size();
  s.samples = static_cast<int>(n);
  s.min_us = us.front();
  s.max_us = us.back();
  s.median_us = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
  s.mean_us = std::accumulate(us.begin(), us.end(), 0.0) / static_cast<double>(n);
  return s;
}

namespace {

struct Events {
  std::vector<hipEvent_t> events;
  explicit Events(std::size_t count) {
    events.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      hipEvent_t e = nullptr;
      hip_check(hipEventCreate(&e), "hipEventCreate");
      events.push_back(e);
    }
  }
  ~Events() {
    for (hipEvent_t e : events) (void)hipEventDestroy(e);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

}  // namespace

std::vector<double> time_on_stream(hipStream_t stream, int warmup, int iters, const std::function<void(int)>& body) {
  for (int i = 0; i < warmup; ++i) body(i);
  hip_check(hipStreamSynchronize(stream), "hipStreamSynchronize (warm-up)");
  if (iters <= 0) return {};
  Events ev(2 * static_cast<std::size_t>(iters));
  for (int i = 0; i < iters; ++i) {
    hip_check(hipEventRecord(ev.events[2 * i], stream), "hipEventRecord");
    body(i);
    hip_check(hipEventRecord(ev.events[2 * i + 1], stream), "hipEventRecord");
  }
  hip_check(hipStreamSynchronize(stream), "hipStreamSynchronize (timed runs)");
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(iters));
  for (int i = 0; i < iters; ++i) {
    float ms = 0;
    hip_check(hipEventElapsedTime(&ms, ev.events[2 * i], ev.events[2 * i + 1]), "hipEventElapsedTime");
    us.push_back(static_cast<double>(ms) * 1e3);
  }
  return us;
}

double host_us_per_call(hipStream_t stream, int calls, int batches, const std::function<void(int)>& body) {
  if (calls <= 0 || batches <= 0) return 0.0;
  std::vector<double> per_call;
  for (int b = 0; b < batches; ++b) {
    hip_check(hipStreamSynchronize(stream), "hipStreamSynchronize (host timing)");
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) body(i);
    const std::chrono::duration<double, std::micro> spent = std::chrono::steady_clock::now() - start;
    per_call.push_back(spent.count() / calls);
  }
  hip_check(hipStreamSynchronize(stream), "hipStreamSynchronize (host timing)");
  return summarize(per_call).median_us;
}

}  // namespace hipfuse::driver
