// Accumulators for the BN training reductions. Each is a plain aggregate with merge(), so
// the same tree reduction (ColumnTiling::reduce_rows) and partial storage serve them all.
#pragma once

#include "common/vendor.h"

namespace hf {

// Count, mean and sum of squared deviations (Welford/Chan form). Merging two of them is
// exact in exact arithmetic and stable in floating point, unlike E[x^2] - mean^2.
template <class F>
struct Moments {
  F n, mean, m2;

  HF_DEVICE void merge(const Moments& o) {
    if (o.n == F(0)) return;
    if (n == F(0)) {
      *this = o;
      return;
    }
    const F total = n + o.n;
    const F delta = o.mean - mean;
    mean += delta * (o.n / total);
    m2 += o.m2 + delta * delta * (n * (o.n / total));
    n = total;
  }
};

// A thread's running sums of x - shift (shift: one value of the same column, so that the
// sums stay small relative to the spread; cheaper per element than Welford's division).
struct ShiftedSums {
  float shift, s1, s2;
  int n;  // a partial has at most 2^24 rows (bn_tiling.cpp); 32 bits keep the count cheap

  HF_DEVICE void add(float x) {
    const float v = x - shift;
    s1 += v;
    s2 = fmaf(v, v, s2);
    ++n;
  }
  HF_DEVICE Moments<float> moments() const {
    if (n == 0) return {0.0f, 0.0f, 0.0f};
    const float count = static_cast<float>(n);
    const float mean_shifted = s1 / count;
    const float m2 = s2 - s1 * mean_shifted;
    return {count, shift + mean_shifted, m2 > 0.0f ? m2 : 0.0f};
  }
};

// Plain sums (BN backward: sum of dz and of xhat * dz).
template <class F>
struct GradientSums {
  F dz, xhat_dz;

  HF_DEVICE void merge(const GradientSums& o) {
    dz += o.dz;
    xhat_dz += o.xhat_dz;
  }
};

}  // namespace hf
