// BN forward training + any pointwise epilogue (typically the activation):
//   y = Epilogue( scale * (x - mean) * inv_std + bias ),  batch statistics per column
// (column_tiling.h), written to saved_mean / saved_inv_variance, and to the running
// statistics when the op asked for them (unbiased variance M/(M-1), none when M == 1;
// exp_avg_factor weights the new statistic).
//
// One kernel, launched per phase (BnPhase):
//   partials == 1: kBnReduce does it all: a block owns whole columns, reduces them,
//                  writes the statistics and normalises (its second read mostly hits L2);
//   partials > 1:  kBnReduce writes each block's partial moments to the scratch,
//                  kBnFinalize merges them per column in fp64 into the op's outputs,
//                  kBnApply normalises, reading mean and inv_std back from those outputs.
// Threads accumulate shifted sums in fp32, blocks merge Welford/Chan moments in fp32 and
// partials merge in fp64.
//
// hf_plan.h provides: data_t, param_t, XGeom, YGeom, Tiling, kRunningStats, Epilogue.
#include "common/column_tiling.h"
#include "common/kernel_args.h"
#include "common/memory.h"
#include "common/pointwise_chain.h"
#include "common/statistics.h"
#include "common/vendor.h"
#include "hf_plan.h"

namespace {

using namespace hf_plan;
using hf::index_t;
using Tiles = hf::ColumnTiling<XGeom, Tiling>;
using Place = Tiles::Place;

constexpr int kPartialFields = 3;  // n, mean, m2

static_assert(Tiling::partials == 1 || Tiles::rows > 1, "several partials need several rows");

HF_DEVICE float load_x(const hf::BnForwardArgs& args, index_t column, index_t row) {
  return hf::load_float<data_t>(args.x, XGeom::offset(Tiles::coord(column, row)));
}

// This thread's moments over its rows of the block's partial.
HF_DEVICE hf::Moments<float> thread_moments(const hf::BnForwardArgs& args, const Place& p) {
  if (!p.valid) return {0.0f, 0.0f, 0.0f};
  hf::ShiftedSums sums{load_x(args, p.column, 0), 0.0f, 0.0f, 0};
  Tiles::for_each_row(
      p, [&](index_t row) { return load_x(args, p.column, row); }, [&](index_t, float x) { sums.add(x); });
  return sums.moments();
}

// Writes a column's statistics; returns inv_std.
HF_DEVICE float write_statistics(const hf::BnForwardArgs& args, index_t column, double mean, double m2) {
  constexpr double M = static_cast<double>(Tiles::rows);
  const double var = m2 / M;
  const double inv_std = 1.0 / sqrt(var + static_cast<double>(args.epsilon));
  const index_t i = Tiles::parameter_index(column);
  hf::store_float<param_t>(args.saved_mean, i, static_cast<float>(mean));
  hf::store_float<param_t>(args.saved_inv_variance, i, static_cast<float>(inv_std));
  if constexpr (kRunningStats) {
    const double f = args.exp_avg_factor;
    const double unbiased = Tiles::rows > 1 ? var * (M / (M - 1.0)) : var;
    const double rm = hf::load_float<param_t>(args.running_mean, i);
    const double rv = hf::load_float<param_t>(args.running_variance, i);
    hf::store_float<param_t>(args.running_mean, i, static_cast<float>((1.0 - f) * rm + f * mean));
    hf::store_float<param_t>(args.running_variance, i, static_cast<float>((1.0 - f) * rv + f * unbiased));
  }
  return static_cast<float>(inv_std);
}

// y over this thread's rows of the block's partial.
HF_DEVICE void normalize(const hf::BnForwardArgs& args, const Place& p, float mean, float inv_std) {
  if (!p.valid) return;
  const index_t i = Tiles::parameter_index(p.column);
  const float scale = hf::load_float<param_t>(args.scale, i) * inv_std;
  const float bias = hf::load_float<param_t>(args.bias, i);
  Tiles::for_each_row(
      p, [&](index_t row) { return load_x(args, p.column, row); },
      [&](index_t row, float x) {
        const hf::Coord at = Tiles::coord(p.column, row);
        const index_t y_offset = YGeom::offset(at);
        const float v = fmaf(x - mean, scale, bias);  // x - mean first: exact-ish when |mean| >> std
        hf::store_float<data_t>(args.y, y_offset, Epilogue::apply(v, at, y_offset, args.chain));
      });
}

HF_DEVICE void reduce_phase(const hf::BnForwardArgs& args) {
  __shared__ hf::Moments<float> shared[Tiles::threads];
  __shared__ float shared_inv_std[Tiling::tile_columns];
  const Place p = Tiles::place();
  const hf::Moments<float> m = Tiles::reduce_rows(p, thread_moments(args, p), shared);
  if constexpr (Tiling::partials == 1) {
    if (p.valid && p.row_lane == 0) shared_inv_std[p.column_lane] = write_statistics(args, p.column, m.mean, m.m2);
    __syncthreads();
    normalize(args, p, m.mean, shared_inv_std[p.column_lane]);
  } else if (p.valid && p.row_lane == 0) {
    float* out = args.partials + (p.column * Tiling::partials + blockIdx.y) * kPartialFields;
    out[0] = m.n;
    out[1] = m.mean;
    out[2] = m.m2;
  }
}

// One thread per column.
HF_DEVICE void finalize_phase(const hf::BnForwardArgs& args) {
  const index_t column = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (column >= Tiles::columns) return;
  hf::Moments<double> total{0.0, 0.0, 0.0};
  const float* in = args.partials + column * Tiling::partials * kPartialFields;
  for (int q = 0; q < Tiling::partials; ++q, in += kPartialFields) total.merge({in[0], in[1], in[2]});
  write_statistics(args, column, total.mean, total.m2);
}

HF_DEVICE void apply_phase(const hf::BnForwardArgs& args) {
  const Place p = Tiles::place();
  if (!p.valid) return;
  const index_t i = Tiles::parameter_index(p.column);
  normalize(args, p, hf::load_float<param_t>(args.saved_mean, i), hf::load_float<param_t>(args.saved_inv_variance, i));
}

}  // namespace

HF_KERNEL void __launch_bounds__(Tiles::threads) hf_bn_forward_training(hf::BnForwardArgs args) {
  switch (args.phase) {
    case hf::kBnReduce: reduce_phase(args); break;
    case hf::kBnFinalize: finalize_phase(args); break;
    default: apply_phase(args); break;
  }
}
