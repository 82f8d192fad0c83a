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
  // Lane + delta's fields (a shuffle; every lane of the group must call it).
  HF_DEVICE Moments shuffled_down(int delta) const {
    return {shfl_down(n, delta), shfl_down(mean, delta), shfl_down(m2, delta)};
  }
};

// `a` merged over each group of 32 lanes by shuffles (Acc::shuffled_down); lane 0 of each
// group holds its group's result. Every lane of the group must call it. Groups of 32 lanes,
// not the warp: on a 64-lane wavefront the lanes whose results are kept read only lanes of
// their own group.
template <class Acc>
HF_DEVICE Acc merged_over_32_lanes(Acc a) {
#pragma unroll
  for (int step = 16; step > 0; step /= 2) a.merge(a.shuffled_down(step));
  return a;
}

// A thread adds up tens of thousands of values per sum on the largest tensors (2^30 rows
// a column: ~16,000 a thread). One fp32 accumulator that long loses ~sqrt(n) ulps, 1e-5
// relative at that size (measured), so the threads' accumulators add runs of about
// kFoldEvery values in fp32, then fold each run into fp64 totals: fp32 work per element,
// fp64 accuracy per run. The check for the end of a run comes once per batch of units
// (ColumnTiling::for_each_row's end_batch), not per unit: per scalar unit it cost ~14% of
// the 7x7-plane walk (docs/PERF_NOTES.md v7).
constexpr int kFoldEvery = 256;

// Counts a thread's values; says when a batch of units took the count past a multiple of
// kFoldEvery (a run then holds at most kFoldEvery + one batch of values).
struct RunCount {
  int n = 0;  // a partial has at most 2^24 rows (bn_tiling.cpp); 32 bits keep the count cheap
  HF_DEVICE bool add(int values) {
    const int before = n;
    n += values;
    return before / kFoldEvery != n / kFoldEvery;
  }
  template <int V>
  HF_DEVICE bool add_units(int units) {
    return add(V * units);
  }
};

// Two fp32 sums of a thread's current run and their fp64 totals over the folded runs; the
// run ends (fold) when a batch of units takes the count past a multiple of kFoldEvery.
struct FoldedPair {
  float run1 = 0.0f, run2 = 0.0f;
  double total1 = 0.0, total2 = 0.0;
  RunCount count;

  // After each batch of `units` units of V values.
  template <int V>
  HF_DEVICE void end_batch(int units) {
    if (count.add_units<V>(units)) fold();
  }
  // After a batch of `values` values (the plane-group walk: a thread's units split between
  // two channels at a fixed point). Folds = false where no thread can take more than about
  // kFoldEvery values (known at compile time): one run, folded at the end, and no fp64
  // totals live in the loop.
  template <bool Folds = true>
  HF_DEVICE void end_batch_values(int values) {
    if constexpr (Folds) {
      if (count.add(values)) fold();
    } else {
      count.n += values;
    }
  }
  HF_DEVICE void fold() {
    total1 += run1;
    total2 += run2;
    run1 = run2 = 0.0f;
  }
};

// A thread's running sums of x - shift (sums.run1) and of its square (sums.run2); shift: one
// value of the same column, so that the sums stay small relative to the spread (cheaper per
// element than Welford's division).
struct ShiftedSums {
  float shift;
  FoldedPair sums;

  HF_DEVICE explicit ShiftedSums(float column_shift) : shift(column_shift) {}

  // V values of one unit of rows.
  HF_DEVICE void add_one(float x) {
    const float v = x - shift;
    sums.run1 += v;
    sums.run2 = fmaf(v, v, sums.run2);
  }
  template <int V>
  HF_DEVICE void add(const float (&x)[V]) {
#pragma unroll
    for (int j = 0; j < V; ++j) add_one(x[j]);
  }
  template <int V>
  HF_DEVICE void end_batch(int units) {
    sums.end_batch<V>(units);
  }
  HF_DEVICE Moments<float> moments() {
    const int n = sums.count.n;
    if (n == 0) return {0.0f, 0.0f, 0.0f};
    sums.fold();
    const double mean_shifted = sums.total1 / static_cast<double>(n);
    const double m2 = sums.total2 - sums.total1 * mean_shifted;
    return {static_cast<float>(n), static_cast<float>(shift + mean_shifted), m2 > 0.0 ? static_cast<float>(m2) : 0.0f};
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

// A thread's GradientSums over its rows: sum of dz (run1) and of xhat * dz (run2).
struct GradientRun : FoldedPair {
  HF_DEVICE void add(float xhat, float dz) {
    run1 += dz;
    run2 = fmaf(xhat, dz, run2);
  }
  HF_DEVICE GradientSums<float> sums() {
    fold();
    return {static_cast<float>(total1), static_cast<float>(total2)};
  }
};

}  // namespace hf
