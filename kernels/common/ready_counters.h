// Ready counters: how blocks tell other blocks running at the same time that data they wrote
// is complete. Two users:
// * a streamed re-layout (kernels/conv_igemm_pack.hip, hfi::StreamInput) tells the GEMM beside
//   it (kernels/conv_igemm.hip) which images of x it has finished, so that the GEMM multiplies
//   image n's tiles while later images are still being re-laid out. One array of unsigned
//   counters, zero between launches (the invoker zeroes it once; the GEMM's last block zeroes
//   it again when every block has passed its waits, so the next execution, or the next replay
//   of a captured graph, starts from zero):
//     [n]       blocks of image n finished, for n < N (the image's target: its block count);
//     [N]       blocks of the weights' re-layout finished;
//     [N + 1]   GEMM blocks past their last wait.
// * BN forward training's exchange of partial moments (kernels/bn_forward_training.hip,
//   Tiling::exchange), the same layout with column tiles for images: [c] partials of column tile
//   c published, [C] the next work ticket, [C + 1] blocks past their wait.
// A block counts itself once all its threads' stores are done: a block barrier, then one
// thread's device-scope fence and atomic add (the release); a reader acquires the counter
// before it loads what the count covers.
#pragma once

#include "common/igemm_args.h"  // hf::kReadyCounterSlots
#include "common/vendor.h"

namespace hf {

// Called by one thread after a block barrier that follows the block's stores.
HF_DEVICE void count_ready(unsigned* counter) {
  __threadfence();
  atomicAdd(counter, 1u);
}

// Polls until *counter reaches target. The callers make sure that waiting readers cannot keep
// the writers they wait for off the device (each user says how), so the wait ends; a counter
// that never gets there is a bug, trapped (a launch error) after some seconds rather than
// hanging the device.
HF_DEVICE void wait_ready(const unsigned* counter, unsigned target) {
  for (unsigned long long polls = 0; load_acquire(counter) < target; ++polls) {
    if (polls > (1ull << 26)) trap();
    pause();
  }
}

// The waiting side (the GEMM; the exchange), one thread after its block's last wait: the last
// of `blocks` to get here zeroes the array (`items` counters and kReadyCounterSlots).
HF_DEVICE void retire_ready(unsigned* counters, int items, unsigned blocks) {
  __threadfence();
  if (atomicAdd(counters + items + 1, 1u) + 1 != blocks) return;
  for (int i = 0; i < items + kReadyCounterSlots; ++i) counters[i] = 0;
  __threadfence();
}

}  // namespace hf
