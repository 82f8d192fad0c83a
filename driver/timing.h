#pragma once
// Timing: GPU events around each execution, and the statistics of the samples.

#include <cstddef>
#include <functional>
#include <vector>

#include <hip/hip_runtime_api.h>

namespace hipfuse::driver {

struct TimingStats {
  int samples = 0;
  double min_us = 0, median_us = 0, max_us = 0, mean_us = 0;
};

// Min / median (mean of the two middle samples for an even count) / max / mean. Empty: all 0.
TimingStats summarize(std::vector<double> microseconds);

// Runs `body(i)` for i in [0, warmup) untimed, then for i in [0, iters) each between two events
// recorded on `stream`; returns each timed run's event time in microseconds. `body` must only
// enqueue work on `stream`. Throws std::runtime_error on a HIP error.
//
// gap_us == 0: the timed runs go back to back (each start event follows the previous run's end).
// gap_us > 0: before each timed run the stream idles at least gap_us at a host function that
// returns only once the run and its events are queued behind it, so the start event is followed
// at once by the run's work and the previous run's memory traffic has drained: the rule the
// benchmark's peers are timed by (a GPU spin before each call), for comparisons under one rule.
std::vector<double> time_on_stream(hipStream_t stream, int warmup, int iters, double gap_us,
                                   const std::function<void(int)>& body);

// The host cost of one call of `body` (which must only enqueue work on `stream`): the CPU wall
// time of `calls` back-to-back calls divided by `calls`, median of `batches` batches; the GPU
// work queues up behind and the stream is drained between batches. Throws on a HIP error.
double host_us_per_call(hipStream_t stream, int calls, int batches, const std::function<void(int)>& body);

}  // namespace hipfuse::driver
