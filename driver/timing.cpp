#include "timing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
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

// Host functions that hold the stream before each timed run (time_on_stream's gap_us). A gate
// returns once the host has opened it and gap_us have passed since the stream reached it.
class Gates {
 public:
  Gates(hipStream_t stream, double gap_us) : stream_(stream), gap_us_(gap_us) {}
  ~Gates() {  // never leave the stream held (a HIP error while queuing), nor free a gate in use
    for (auto& g : gates_) g->open.store(true, std::memory_order_release);
    if (!gates_.empty()) (void)hipStreamSynchronize(stream_);
  }
  Gates(const Gates&) = delete;
  Gates& operator=(const Gates&) = delete;

  // Queues a closed gate on the stream.
  void close() {
    gates_.push_back(std::make_unique<Gate>(gap_us_));
    hip_check(hipStreamAddCallback(stream_, &Gate::hold, gates_.back().get(), 0), "hipStreamAddCallback");
  }
  // Opens the gate queued last: what was queued after it is the run it holds back.
  void open_last() { gates_.back()->open.store(true, std::memory_order_release); }

 private:
  struct Gate {
    explicit Gate(double us) : gap(us) {}
    std::chrono::duration<double, std::micro> gap;
    std::atomic<bool> open{false};
    static void hold(hipStream_t, hipError_t, void* self) {
      const Gate& g = *static_cast<const Gate*>(self);
      const auto until = std::chrono::steady_clock::now() + g.gap;
      while (!g.open.load(std::memory_order_acquire) || std::chrono::steady_clock::now() < until) {
      }
    }
  };
  hipStream_t stream_;
  double gap_us_;
  std::vector<std::unique_ptr<Gate>> gates_;
};

}  // namespace

std::vector<double> time_on_stream(hipStream_t stream, int warmup, int iters, double gap_us,
                                   const std::function<void(int)>& body) {
  for (int i = 0; i < warmup; ++i) body(i);
  hip_check(hipStreamSynchronize(stream), "hipStreamSynchronize (warm-up)");
  if (iters <= 0) return {};
  Events ev(2 * static_cast<std::size_t>(iters));
  {
    Gates gates(stream, gap_us);
    for (int i = 0; i < iters; ++i) {
      if (gap_us > 0) gates.close();
      hip_check(hipEventRecord(ev.events[2 * i], stream), "hipEventRecord");
      body(i);
      hip_check(hipEventRecord(ev.events[2 * i + 1], stream), "hipEventRecord");
      if (gap_us > 0) gates.open_last();
    }
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
