// BN backward training, optionally fused with the activation backward that follows it in
// the plan ([BN backward, activation backward]; data flow dy -> activation backward -> BN
// backward -> dx). Per element, with the saved statistics:
//   xhat = (x - mean) * inv_std,  z = scale * xhat + bias  (the activation's input)
//   dz   = activation_backward(dy, z, y)                   (dy itself without activation)
// per column: dbias = sum dz, dscale = sum xhat * dz, and
//   dx = (scale * inv_std / M) * (M * dz - dbias - xhat * dscale)
// (spatial and per-activation alike: per-activation's A = scale*dbias and B = scale*dscale).
// Phases, vector units and walking orders as in bn_forward_training.hip; dscale/dbias are
// the handoff to the apply phase (or, with Tiling::apply_merges, each apply block merges
// its columns' partials in fp64 and the blocks of partial 0 write dscale/dbias).
//
// hf_plan.h provides: data_t, param_t, XGeom (dy, x, y), YGeom (dx), Tiling,
// kHasActivation, kActivation.
#include "common/activation.h"
#include "common/column_tiling.h"
#include "common/kernel_args.h"
#include "common/memory.h"
#include "common/statistics.h"
#include "common/vendor.h"
#include "hf_plan.h"

namespace {

using namespace hf_plan;
using hf::index_t;
using Tiles = hf::ColumnTiling<XGeom, Tiling>;
using Place = Tiles::Place;
using XOffsets = Tiles::ColumnOffsets<XGeom>;
using YOffsets = Tiles::ColumnOffsets<YGeom>;

constexpr int kPartialFields = 2;  // sum dz, sum xhat * dz
constexpr int kLanes = hf::kLanes16<data_t>;
constexpr bool kVector = Tiles::vectorizable<kLanes, XGeom, YGeom>;
constexpr int kVectorLanes = kVector ? kLanes : 1;
// At most 64 registers a thread, so that 1024 threads fit on a multiprocessor: the host
// sizes the grid for that many (bn_tiling.cpp, kThreadsPerMultiprocessor).
constexpr int kMinBlocksPerMultiprocessor = Tiles::threads <= 1024 ? 1024 / Tiles::threads : 1;
constexpr bool kReadsY = kHasActivation && hf::activation_backward_reads_y<kActivation>;
// Units in flight per thread: the walk's default (8 scalars, 4 vectors) when a unit is two
// tensors' rows (x, dy); with y as well, 4 scalars and 8 / V vectors (fp32 2, 16-bit 1), since
// the default spilled under the 64-register cap (fp16 TANH: 904 bytes of spill stores).
template <int V>
constexpr int kBatch = V == 1 ? (kReadsY ? 4 : 8) : (kReadsY ? 8 / V : 4);

// The block's shared memory, declared once for every phase and vector width.
struct Shared {
  hf::GradientSums<float> sums[Tiles::threads];
  hf::GradientSums<double> merged[Tiles::threads];
};

// A column's parameters and saved statistics.
struct ColumnParams {
  float scale, bias, mean, inv_std;
};

struct Element {
  float xhat, dz;
};

HF_DEVICE ColumnParams column_params(const hf::BnBackwardArgs& args, index_t column) {
  const index_t i = Tiles::parameter_index(column);
  return {hf::load_float<param_t>(args.scale, i), hf::load_float<param_t>(args.bias, i),
          hf::load_float<param_t>(args.saved_mean, i), hf::load_float<param_t>(args.saved_inv_variance, i)};
}

// The inputs of a unit of V rows, loaded apart from the arithmetic so that loads can be batched.
template <int V>
struct Loaded {
  hf::Values<V> x, dy, y;
};

template <int V>
HF_DEVICE Loaded<V> load_unit(const hf::BnBackwardArgs& args, index_t offset) {
  Loaded<V> in;
  in.x = hf::load_values<data_t, V>(args.x, offset);
  in.dy = hf::load_values<data_t, V>(args.dy, offset);
  if constexpr (kReadsY) {
    in.y = hf::load_values<data_t, V>(args.y, offset);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) in.y.v[j] = 0.0f;
  }
  return in;
}

HF_DEVICE Element element(const hf::BnBackwardArgs& args, const ColumnParams& c, float x, float dy, float y) {
  const float xhat = (x - c.mean) * c.inv_std;
  float dz = dy;
  if constexpr (kHasActivation) {
    dz = hf::activation_backward<kActivation>(dz, fmaf(c.scale, xhat, c.bias), y, args.act_alpha, args.act_beta,
                                               args.act_gamma);
  }
  return {xhat, dz};
}

template <int V>
HF_DEVICE hf::GradientSums<float> thread_sums(const hf::BnBackwardArgs& args, const Place& p) {
  hf::GradientRun run;
  if (!p.valid) return run.sums();
  const ColumnParams c = column_params(args, p.column);
  const XOffsets x(p.column);
  Tiles::for_each_row<V, false, kBatch<V>>(
      p, [&](index_t row) { return load_unit<V>(args, x(row)); },
      [&](index_t, const Loaded<V>& in) {
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const Element e = element(args, c, in.x.v[j], in.dy.v[j], in.y.v[j]);
          run.add(e.xhat, e.dz);
        }
      },
      [&](int units) { run.end_batch<V>(units); });
  return run.sums();
}

HF_DEVICE void write_gradients(const hf::BnBackwardArgs& args, index_t column, double dbias, double dscale) {
  const index_t i = Tiles::parameter_index(column);
  hf::store_float<param_t>(args.bias_diff, i, static_cast<float>(dbias));
  hf::store_float<param_t>(args.scale_diff, i, static_cast<float>(dscale));
}

// dx over this thread's rows of the block's partial, last rows first.
template <int V>
HF_DEVICE void input_gradient(const hf::BnBackwardArgs& args, const Place& p, float dbias, float dscale) {
  if (!p.valid) return;
  // dx = scale * inv_std * (dz - mean(dz) - xhat * mean(xhat * dz)): the formula above / M.
  constexpr float inv_m = 1.0f / static_cast<float>(Tiles::rows);
  const ColumnParams c = column_params(args, p.column);
  const float k = c.scale * c.inv_std;
  const float mean_dz = dbias * inv_m, mean_xhat_dz = dscale * inv_m;
  const XOffsets x(p.column);
  const YOffsets dx(p.column);
  Tiles::for_each_row<V, true, kBatch<V>>(
      p, [&](index_t row) { return load_unit<V>(args, x(row)); },
      [&](index_t row, const Loaded<V>& in) {
        hf::Values<V> out;
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const Element e = element(args, c, in.x.v[j], in.dy.v[j], in.y.v[j]);
          out.v[j] = k * (e.dz - mean_dz - e.xhat * mean_xhat_dz);
        }
        hf::store_values<data_t, V>(args.dx, dx(row), out);
      });
}

template <int V>
HF_DEVICE void reduce_phase(const hf::BnBackwardArgs& args, Shared& shared) {
  const Place p = Tiles::place();
  const hf::GradientSums<float> s = Tiles::reduce_rows(p, thread_sums<V>(args, p), shared.sums);
  if constexpr (Tiling::partials == 1) {
    if (p.valid && p.row_lane == 0) write_gradients(args, p.column, s.dz, s.xhat_dz);
    input_gradient<V>(args, p, s.dz, s.xhat_dz);
  } else if (p.valid && p.row_lane == 0) {
    float* out = args.partials + (p.column * Tiling::partials + p.partial) * kPartialFields;
    out[0] = s.dz;
    out[1] = s.xhat_dz;
  }
}

// The sums of the block's columns, merged from the partials in fp64.
HF_DEVICE hf::GradientSums<double> merged_sums(const hf::BnBackwardArgs& args, const Place& p, Shared& shared) {
  return Tiles::merge_partials<kPartialFields>(
      p, args.partials, hf::GradientSums<double>{0.0, 0.0},
      [](const float* in) { return hf::GradientSums<double>{in[0], in[1]}; }, shared.merged);
}

// Blocks of tile_columns columns.
HF_DEVICE void finalize_phase(const hf::BnBackwardArgs& args, Shared& shared) {
  const Place p = Tiles::place();
  const hf::GradientSums<double> s = merged_sums(args, p, shared);
  if (p.valid && p.row_lane == 0) write_gradients(args, p.column, s.dz, s.xhat_dz);
}

template <int V>
HF_DEVICE void apply_phase(const hf::BnBackwardArgs& args, Shared& shared) {
  const Place p = Tiles::place(true);
  if constexpr (Tiling::apply_merges) {
    const hf::GradientSums<double> s = merged_sums(args, p, shared);
    if (p.valid && p.row_lane == 0 && p.partial == 0) write_gradients(args, p.column, s.dz, s.xhat_dz);
    // The same float values dbias and dscale hold.
    input_gradient<V>(args, p, static_cast<float>(s.dz), static_cast<float>(s.xhat_dz));
  } else {
    if (!p.valid) return;
    const index_t i = Tiles::parameter_index(p.column);
    input_gradient<V>(args, p, hf::load_float<param_t>(args.bias_diff, i),
                      hf::load_float<param_t>(args.scale_diff, i));
  }
}

// The phases this tiling launches, and nothing else (compile time: each is built for the
// vector and the scalar walk).
template <int V>
HF_DEVICE void run(const hf::BnBackwardArgs& args, Shared& shared) {
  if (Tiling::partials == 1 || args.phase == hf::kBnReduce) {
    reduce_phase<V>(args, shared);
  } else if constexpr (Tiling::partials > 1) {
    apply_phase<V>(args, shared);
  }
}

}  // namespace

HF_KERNEL void __launch_bounds__(Tiles::threads, kMinBlocksPerMultiprocessor) hf_bn_backward(hf::BnBackwardArgs args) {
  // The finalize and apply phases start early (launch_bn_phases): they wait for the phase before.
  hf::wait_for_prior_grid();
  hf::allow_early_start();
  __shared__ Shared shared;
  if constexpr (Tiling::partials > 1 && !Tiling::apply_merges) {
    if (args.phase == hf::kBnFinalize) {
      finalize_phase(args, shared);
      return;
    }
  }
  if (kVector && args.vector_ok) {
    run<kVectorLanes>(args, shared);
  } else {
    run<1>(args, shared);
  }
}
