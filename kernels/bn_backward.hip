// BN backward training, optionally fused with the activation backward that follows it in
// the plan ([BN backward, activation backward]; data flow dy -> activation backward -> BN
// backward -> dx). Per element, with the saved statistics:
//   xhat = (x - mean) * inv_std,  z = scale * xhat + bias  (the activation's input)
//   dz   = activation_backward(dy, z, y)                   (dy itself without activation)
// per column: dbias = sum dz, dscale = sum xhat * dz, and
//   dx = (scale * inv_std / M) * (M * dz - dbias - xhat * dscale)
// (spatial and per-activation alike: per-activation's A = scale*dbias and B = scale*dscale).
// Phases as in bn_forward_training.hip; dscale/dbias are the handoff to the apply phase.
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

constexpr int kPartialFields = 2;  // sum dz, sum xhat * dz

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

// The inputs of one element, loaded apart from the arithmetic so that loads can be batched.
struct Loaded {
  float x, dy, y;
};

HF_DEVICE Loaded load_element(const hf::BnBackwardArgs& args, index_t offset) {
  constexpr bool reads_y = kHasActivation && hf::activation_backward_reads_y<kActivation>;
  return {hf::load_float<data_t>(args.x, offset), hf::load_float<data_t>(args.dy, offset),
          reads_y ? hf::load_float<data_t>(args.y, offset) : 0.0f};
}

HF_DEVICE Element element(const hf::BnBackwardArgs& args, const ColumnParams& c, const Loaded& in) {
  const float xhat = (in.x - c.mean) * c.inv_std;
  float dz = in.dy;
  if constexpr (kHasActivation) {
    dz = hf::activation_backward<kActivation>(dz, fmaf(c.scale, xhat, c.bias), in.y, args.act_alpha, args.act_beta,
                                               args.act_gamma);
  }
  return {xhat, dz};
}

HF_DEVICE hf::GradientSums<float> thread_sums(const hf::BnBackwardArgs& args, const Place& p) {
  hf::GradientSums<float> sums{0.0f, 0.0f};
  if (!p.valid) return sums;
  const ColumnParams c = column_params(args, p.column);
  Tiles::for_each_row(
      p, [&](index_t row) { return load_element(args, XGeom::offset(Tiles::coord(p.column, row))); },
      [&](index_t, const Loaded& in) {
        const Element e = element(args, c, in);
        sums.dz += e.dz;
        sums.xhat_dz = fmaf(e.xhat, e.dz, sums.xhat_dz);
      });
  return sums;
}

HF_DEVICE void write_gradients(const hf::BnBackwardArgs& args, index_t column, double dbias, double dscale) {
  const index_t i = Tiles::parameter_index(column);
  hf::store_float<param_t>(args.bias_diff, i, static_cast<float>(dbias));
  hf::store_float<param_t>(args.scale_diff, i, static_cast<float>(dscale));
}

// dx over this thread's rows of the block's partial.
HF_DEVICE void input_gradient(const hf::BnBackwardArgs& args, const Place& p, float dbias, float dscale) {
  if (!p.valid) return;
  // dx = scale * inv_std * (dz - mean(dz) - xhat * mean(xhat * dz)): the formula above / M.
  constexpr float inv_m = 1.0f / static_cast<float>(Tiles::rows);
  const ColumnParams c = column_params(args, p.column);
  const float k = c.scale * c.inv_std;
  const float mean_dz = dbias * inv_m, mean_xhat_dz = dscale * inv_m;
  Tiles::for_each_row(
      p, [&](index_t row) { return load_element(args, XGeom::offset(Tiles::coord(p.column, row))); },
      [&](index_t row, const Loaded& in) {
        const Element e = element(args, c, in);
        const index_t dx_offset = YGeom::offset(Tiles::coord(p.column, row));
        hf::store_float<data_t>(args.dx, dx_offset, k * (e.dz - mean_dz - e.xhat * mean_xhat_dz));
      });
}

HF_DEVICE void reduce_phase(const hf::BnBackwardArgs& args) {
  __shared__ hf::GradientSums<float> shared[Tiles::threads];
  const Place p = Tiles::place();
  const hf::GradientSums<float> s = Tiles::reduce_rows(p, thread_sums(args, p), shared);
  if constexpr (Tiling::partials == 1) {
    if (p.valid && p.row_lane == 0) write_gradients(args, p.column, s.dz, s.xhat_dz);
    input_gradient(args, p, s.dz, s.xhat_dz);
  } else if (p.valid && p.row_lane == 0) {
    float* out = args.partials + (p.column * Tiling::partials + blockIdx.y) * kPartialFields;
    out[0] = s.dz;
    out[1] = s.xhat_dz;
  }
}

HF_DEVICE void finalize_phase(const hf::BnBackwardArgs& args) {
  const index_t column = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (column >= Tiles::columns) return;
  hf::GradientSums<double> total{0.0, 0.0};
  const float* in = args.partials + column * Tiling::partials * kPartialFields;
  for (int q = 0; q < Tiling::partials; ++q, in += kPartialFields) total.merge({in[0], in[1]});
  write_gradients(args, column, total.dz, total.xhat_dz);
}

HF_DEVICE void apply_phase(const hf::BnBackwardArgs& args) {
  const Place p = Tiles::place();
  if (!p.valid) return;
  const index_t i = Tiles::parameter_index(p.column);
  input_gradient(args, p, hf::load_float<param_t>(args.bias_diff, i), hf::load_float<param_t>(args.scale_diff, i));
}

}  // namespace

HF_KERNEL void __launch_bounds__(Tiles::threads) hf_bn_backward(hf::BnBackwardArgs args) {
  switch (args.phase) {
    case hf::kBnReduce: reduce_phase(args); break;
    case hf::kBnFinalize: finalize_phase(args); break;
    default: apply_phase(args); break;
  }
}
