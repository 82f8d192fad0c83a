// Deterministic random fills. Values are rounded to the storage dtype, so the host tensor and
// the device buffer made from it (to_storage) hold identical numbers.
#pragma once

#include <cstdint>

#include "hipfuse/reference/dtype.h"
#include "hipfuse/reference/tensor.h"

namespace hipfuse::ref {

// All three guarantee a tensor that is not all zeros: if every drawn value rounds to zero
// (tiny tensors, ranges hugging 0) element 0 is set to the range's nonzero end; a range that
// holds no nonzero value throws std::invalid_argument (use make_tensor for constants).

// Uniform in [lo, hi), then rounded to dtype.
void fill_uniform(Tensor& t, double lo, double hi, std::uint64_t seed, DType dtype);

// Approximately normal: Irwin-Hall sum of 12 uniforms minus 6 (bounded to +-6 sigma). It uses only
// additions, so values are bit-identical on every platform (Box-Muller would depend on libm).
void fill_normal(Tensor& t, double mean, double stddev, std::uint64_t seed, DType dtype);

// Uniform integers in [lo, hi] inclusive. Exact in every dtype while |lo|, |hi| <= 256 (bf16 has
// 8 significant bits); small-integer fills make fp32 convolutions exact (sums stay below 2^24).
void fill_integers(Tensor& t, int lo, int hi, std::uint64_t seed);

}  // namespace hipfuse::ref
