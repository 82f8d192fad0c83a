// Pointwise chains without a convolution: y = Chain(x), element by element, for any order
// of bias / BN inference / activation / residual add. Bandwidth-bound: a grid-stride loop
// over the output in its memory order, with 16-byte accesses when input and output share
// a packed layout whose stride-1 dimension is a multiple of the vector width.
//
// hf_plan.h provides: data_t (x and y), XGeom, YGeom, Chain, kBlockSize.
#include "common/kernel_args.h"
#include "common/memory.h"
#include "common/pointwise_chain.h"
#include "common/vendor.h"
#include "hf_plan.h"

namespace {

using namespace hf_plan;
using hf::index_t;

constexpr int kLanes = hf::kLanes16<data_t>;
constexpr bool kSamePacked = XGeom::packed && YGeom::packed && hf::same_addressing<XGeom, YGeom>;
// Vectors along the stride-1 dimension: the lanes of a vector differ in one coordinate only.
constexpr bool kVectorizable = kSamePacked && YGeom::inner_dim >= 0 && YGeom::inner_length % kLanes == 0;
// Otherwise (NCHW with a 7x7 or 14x14 plane, say) vectors of the flat memory order, each lane's
// coordinates recomputed: the chain reads only the ones it needs (usually just the channel),
// and the compiler drops the rest.
constexpr bool kFlatVectorizable = kSamePacked && !kVectorizable && YGeom::elements >= kLanes;

HF_DEVICE index_t first_index() { return static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
HF_DEVICE index_t grid_stride() { return static_cast<index_t>(gridDim.x) * blockDim.x; }

HF_DEVICE void run_scalar(const hf::PointwiseArgs& args) {
  for (index_t i = first_index(); i < YGeom::elements; i += grid_stride()) {
    // Walk y in memory order when it is packed (coalesced stores), else logically.
    const hf::Coord at = YGeom::packed ? YGeom::coord_of_packed_offset(i) : YGeom::coord_of_logical(i);
    const index_t y_offset = YGeom::packed ? i : YGeom::offset(at);
    const index_t x_offset = hf::same_addressing<XGeom, YGeom> ? y_offset : XGeom::offset(at);
    const float v = Chain::apply(hf::load_float<data_t>(args.x, x_offset), at, y_offset, args.chain);
    hf::store_float<data_t>(args.y, y_offset, v);
  }
}

HF_DEVICE void run_vector(const hf::PointwiseArgs& args) {
  constexpr index_t vectors = YGeom::elements / kLanes;
  for (index_t vi = first_index(); vi < vectors; vi += grid_stride()) {
    const index_t base = vi * kLanes;
    const hf::Coord first = YGeom::coord_of_packed_offset(base);  // lanes differ along inner_dim only
    float v[kLanes];
    hf::load16<data_t>(args.x, base, v);
#pragma unroll
    for (int j = 0; j < kLanes; ++j) v[j] = Chain::apply(v[j], YGeom::along_inner(first, j), base + j, args.chain);
    hf::store16<data_t>(args.y, base, v);
  }
}

HF_DEVICE void run_flat_vector(const hf::PointwiseArgs& args) {
  constexpr index_t vectors = YGeom::elements / kLanes;
  for (index_t vi = first_index(); vi < vectors; vi += grid_stride()) {
    const index_t base = vi * kLanes;
    float v[kLanes];
    hf::load16<data_t>(args.x, base, v);
#pragma unroll
    for (int j = 0; j < kLanes; ++j)
      v[j] = Chain::apply(v[j], YGeom::coord_of_packed_offset(base + j), base + j, args.chain);
    hf::store16<data_t>(args.y, base, v);
  }
  // The last elements % kLanes elements, one per thread.
  for (index_t i = vectors * kLanes + first_index(); i < YGeom::elements; i += grid_stride()) {
    const hf::Coord at = YGeom::coord_of_packed_offset(i);
    hf::store_float<data_t>(args.y, i, Chain::apply(hf::load_float<data_t>(args.x, i), at, i, args.chain));
  }
}

}  // namespace

HF_KERNEL void __launch_bounds__(kBlockSize) hf_pointwise(hf::PointwiseArgs args) {
  if constexpr (kVectorizable) {
    if (args.vector_ok) {
      run_vector(args);
      return;
    }
  } else if constexpr (kFlatVectorizable) {
    if (args.vector_ok) {
      run_flat_vector(args);
      return;
    }
  }
  run_scalar(args);
}
