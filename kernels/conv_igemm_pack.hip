// Operand re-layout for the implicit GEMM, launched by its invoker before the GEMM into
// invoker-owned scratch (hf_plan.h provides data_t and the geometries):
//   hf_igemm_pack_weights: WSourceGeom (the weights as given) -> WGeom (K x R x S x C/G,
//     (r, s, c) contiguous per output channel), when the weights' layout is not
//     (r, s, c)-contiguous (NCHW filters larger than 1x1). K*C/G*R*S elements.
//   hf_igemm_pack_input: XSourceGeom (x as given, NCHW-like) -> XGeom (packed NHWC), with
//     PackPrologue (the plan's pointwise ops before the conv) applied in fp32 and rounded
//     once to data_t, so that the GEMM reads x as cp.async vectors along C instead of
//     gathering every element R*S times. One read and one write of x, through a 32 x 32
//     shared-memory tile (coalesced along the pixels when reading, along C when writing).
#include "common/geometry.h"
#include "common/igemm_args.h"
#include "common/pointwise_chain.h"
#include "common/vendor.h"
#include "hf_plan.h"

HF_KERNEL void __launch_bounds__(256) hf_igemm_pack_weights(hf::IgemmPackArgs args) {
  using Dst = hf_plan::WGeom;
  using Src = hf_plan::WSourceGeom;
  using T = hf_plan::data_t;
  const hf::index_t i = static_cast<hf::index_t>(blockIdx.x) * 256 + threadIdx.x;
  if (i >= Dst::elements) return;
  const hf::Coord at = Dst::coord_of_packed_offset(i);
  static_cast<T*>(args.dst)[i] = static_cast<const T*>(args.src)[Src::offset(at)];
}

// Block (32, 8), grid (ceil(H*W / 32), ceil(C / 32), N): one 32-pixel x 32-channel tile.
HF_KERNEL void __launch_bounds__(256) hf_igemm_pack_input(hf::IgemmPackArgs args) {
  using Dst = hf_plan::XGeom;
  using Src = hf_plan::XSourceGeom;
  using T = hf_plan::data_t;
  constexpr hf::index_t kHW = Src::H * Src::W;
  __shared__ float tile[32][33];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const hf::index_t n = blockIdx.z;
  const hf::index_t hw0 = static_cast<hf::index_t>(blockIdx.x) * 32;
  const hf::index_t c0 = static_cast<hf::index_t>(blockIdx.y) * 32;
  const T* src = static_cast<const T*>(args.src);
  T* dst = static_cast<T*>(args.dst);
  // Read: lanes along the pixels (contiguous in NCHW).
  const hf::index_t hw = hw0 + tx;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const hf::index_t c = c0 + ty + 8 * j;
    if (hw < kHW && c < Src::C) {
      const hf::Coord at{n, c, 0, hw / Src::W, hw % Src::W};
      const hf::index_t off = Src::offset(at);
      tile[ty + 8 * j][tx] = hf_plan::PackPrologue::apply(hf::to_float(src[off]), at, off, args.chain);
    }
  }
  __syncthreads();
  // Write: lanes along the channels (contiguous in NHWC).
  const hf::index_t c = c0 + tx;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const hf::index_t p = hw0 + ty + 8 * j;
    if (p < kHW && c < Src::C) {
      const hf::Coord at{n, c, 0, p / Src::W, p % Src::W};
      dst[Dst::offset(at)] = hf::from_float<T>(tile[tx][ty + 8 * j]);
    }
  }
}
