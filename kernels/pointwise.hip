// Pointwise chains without a convolution: y = Chain(x), element by element, for any order
// of bias / BN inference / activation / residual add. Bandwidth-bound: a grid-stride loop
// over the output in its memory order, with 16-byte accesses when input and output share
// a packed layout, kUnroll vectors per thread at a time (their loads all issued before the
// first is used, so that enough bytes are in flight). Per-channel parameters are loaded and
// folded once per channel a vector touches (Chain::prepare), not once per element.
//
// hf_plan.h provides: data_t (x and y), XGeom, YGeom, Chain, kBlockSize, kMinBlocks.
#include "common/kernel_args.h"
#include "common/memory.h"
#include "common/pointwise_chain.h"
#include "common/vendor.h"
#include "hf_plan.h"

namespace {

using namespace hf_plan;
using hf::index_t;

constexpr int kLanes = hf::kLanes16<data_t>;
constexpr int kUnroll = 4;  // 64 bytes of loads in flight per thread
constexpr bool kSamePacked = XGeom::packed && YGeom::packed && hf::same_addressing<XGeom, YGeom>;
// Vectors along the stride-1 dimension: the lanes of a vector differ in one coordinate only.
constexpr bool kVectorizable = kSamePacked && YGeom::inner_dim >= 0 && YGeom::inner_length % kLanes == 0;
// Otherwise (NCHW with a 7x7 or 14x14 plane, say) vectors of the flat memory order.
constexpr bool kFlatVectorizable = kSamePacked && !kVectorizable && YGeom::elements >= kLanes;

// 32-bit index math when every offset fits (the usual case): the divisions by the
// compile-time strides and lengths become a multiply-high and a shift.
using pidx = hf::conditional<(YGeom::elements < (index_t{1} << 31)), unsigned, index_t>::type;

HF_DEVICE pidx first_index() { return static_cast<pidx>(blockIdx.x) * blockDim.x + threadIdx.x; }
HF_DEVICE pidx grid_stride() { return static_cast<pidx>(gridDim.x) * blockDim.x; }

HF_DEVICE void run_scalar(const hf::PointwiseArgs& args) {
  for (pidx i = first_index(); i < static_cast<pidx>(YGeom::elements); i += grid_stride()) {
    // Walk y in memory order when it is packed (coalesced stores), else logically.
    const hf::Coord at = YGeom::packed ? YGeom::coord_of_packed_offset(i) : YGeom::coord_of_logical(i);
    const index_t y_offset = YGeom::packed ? static_cast<index_t>(i) : YGeom::offset(at);
    const index_t x_offset = hf::same_addressing<XGeom, YGeom> ? y_offset : XGeom::offset(at);
    const float v = Chain::apply(hf::load_float<data_t>(args.x, x_offset), at, y_offset, args.chain);
    hf::store_float<data_t>(args.y, y_offset, v);
  }
}

// Grid-stride over the `count` 16-byte vectors of x and y, kUnroll per thread at a time:
// loads first, then transform(base, lanes) and the store of each.
template <class Transform>
HF_DEVICE void for_each_vector(const hf::PointwiseArgs& args, pidx count, const Transform& transform) {
  const pidx stride = grid_stride();
  for (pidx v0 = first_index(); v0 < count; v0 += kUnroll * stride) {
    float v[kUnroll][kLanes];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const pidx vi = v0 + u * stride;
      if (vi < count) hf::load16<data_t>(args.x, vi * kLanes, v[u]);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const pidx vi = v0 + u * stride;
      if (vi < count) {
        transform(vi * kLanes, v[u]);
        hf::store16<data_t>(args.y, vi * kLanes, v[u]);
      }
    }
  }
}

HF_DEVICE void run_vector(const hf::PointwiseArgs& args) {
  constexpr pidx vectors = YGeom::elements / kLanes;
  if constexpr (YGeom::inner_dim == 1 && Chain::per_channel) {
    // Lanes along the channels (NHWC): when the grid stride is a whole number of channel
    // rows (the host picks such grids), a thread's lanes keep their channels: prepare once.
    if ((static_cast<index_t>(grid_stride()) * kLanes) % YGeom::C == 0) {
      const pidx c0 = (first_index() * kLanes) % static_cast<pidx>(YGeom::C);
      typename Chain::Channel ch[kLanes];
#pragma unroll
      for (int j = 0; j < kLanes; ++j) ch[j] = Chain::prepare(c0 + j, args.chain);
      for_each_vector(args, vectors, [&](pidx base, float(&v)[kLanes]) {
        const hf::Coord first = YGeom::coord_of_packed_offset(base);
#pragma unroll
        for (int j = 0; j < kLanes; ++j)
          v[j] = Chain::apply(v[j], ch[j], YGeom::along_inner(first, j), base + j, args.chain);
      });
      return;
    }
  }
  for_each_vector(args, vectors, [&](pidx base, float(&v)[kLanes]) {
    const hf::Coord first = YGeom::coord_of_packed_offset(base);  // lanes differ along inner_dim only
    if constexpr (YGeom::inner_dim == 1) {  // one channel per lane
#pragma unroll
      for (int j = 0; j < kLanes; ++j) v[j] = Chain::apply(v[j], YGeom::along_inner(first, j), base + j, args.chain);
    } else {  // one channel per vector
      const typename Chain::Channel ch = Chain::prepare(first.c, args.chain);
#pragma unroll
      for (int j = 0; j < kLanes; ++j)
        v[j] = Chain::apply(v[j], ch, YGeom::along_inner(first, j), base + j, args.chain);
    }
  });
}

HF_DEVICE void run_flat_vector(const hf::PointwiseArgs& args) {
  constexpr pidx vectors = YGeom::elements / kLanes;
  // Runs of one channel in memory order are stride_c elements long (packed): with runs of at
  // least kLanes, a vector's lanes span at most two channels.
  constexpr index_t kRun = YGeom::C == 1 ? YGeom::elements : YGeom::stride_c;
  for_each_vector(args, vectors, [&](pidx base, float(&v)[kLanes]) {
    if constexpr (kRun >= kLanes) {
      const pidx run = base / static_cast<pidx>(kRun);                  // (n, c) run of lane 0
      const pidx in_first = static_cast<pidx>(kRun) - (base - run * static_cast<pidx>(kRun));  // its lanes
      const pidx c0 = run % static_cast<pidx>(YGeom::C);
      const typename Chain::Channel ch0 = Chain::prepare(c0, args.chain);
      constexpr bool kOneChannel = kRun % kLanes == 0 || YGeom::C == 1;  // vectors never straddle
      const typename Chain::Channel ch1 =
          kOneChannel ? ch0 : Chain::prepare(c0 + 1 == static_cast<pidx>(YGeom::C) ? 0 : c0 + 1, args.chain);
#pragma unroll
      for (int j = 0; j < kLanes; ++j) {
        v[j] = Chain::apply(v[j], static_cast<pidx>(j) < in_first ? ch0 : ch1, YGeom::coord_of_packed_offset(base + j),
                            base + j, args.chain);
      }
    } else {  // short runs (channels fastest, C not a multiple of the lanes): per lane
#pragma unroll
      for (int j = 0; j < kLanes; ++j)
        v[j] = Chain::apply(v[j], YGeom::coord_of_packed_offset(base + j), base + j, args.chain);
    }
  });
  // The last elements % kLanes elements, one per thread.
  for (pidx i = vectors * kLanes + first_index(); i < static_cast<pidx>(YGeom::elements); i += grid_stride()) {
    const hf::Coord at = YGeom::coord_of_packed_offset(i);
    hf::store_float<data_t>(args.y, i, Chain::apply(hf::load_float<data_t>(args.x, i), at, i, args.chain));
  }
}

}  // namespace

HF_KERNEL void __launch_bounds__(kBlockSize, kMinBlocks) hf_pointwise(hf::PointwiseArgs args) {
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
