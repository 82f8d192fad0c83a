// Operand re-layout for the implicit GEMM, launched by its invoker before the GEMM into
// invoker-owned scratch (hf_plan.h provides data_t and the geometries):
//   hf_igemm_pack_weights: WSourceGeom (the weights as given) -> WGeom (K x R x S x C/G,
//     (r, s, c) contiguous per output channel), when the weights' layout is not
//     (r, s, c)-contiguous (NCHW filters larger than 1x1). K*C/G*R*S elements.
//   hf_igemm_pack_input: XSourceGeom (x as given, NCHW-like) -> XGeom (packed NHWC), with
//     PackPrologue (the plan's pointwise ops before the conv) applied in fp32 and rounded
//     once to data_t, so that the GEMM reads x as cp.async vectors along C instead of
//     gathering every element R*S times. One read and one write of x, through a shared-
//     memory tile, with accesses of up to 16 bytes along the pixels when reading and along
//     C when writing.
#include "common/geometry.h"
#include "common/igemm_args.h"
#include "common/pointwise_chain.h"
#include "common/vendor.h"
#include "hf_igemm.h"
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

namespace {

using Src = hf_plan::XSourceGeom;
using Dst = hf_plan::XGeom;
using T = hf_plan::data_t;
constexpr hf::index_t kHW = Src::H * Src::W;
constexpr int kChannels = hfi::PackTileChannels;
constexpr int kPixels = hf::kPackTileElements / kChannels;
constexpr int kMaxLanes = hf::kLanes16<T>;

// Whether V consecutive pixels of a channel, starting at a multiple of V, are V consecutive
// elements of x (the plane is one run) that one access of V elements can read.
template <int V>
constexpr bool pixel_lanes_fit = Src::stride_w == 1 && (Src::H == 1 || Src::stride_h == Src::W) && kHW % V == 0 &&
                                 Src::stride_c % V == 0 && Src::stride_n % V == 0 && kPixels % V == 0;
// Whether V consecutive channels of a pixel are V consecutive elements of the packed output.
template <int V>
constexpr bool channel_lanes_fit = Dst::stride_c == 1 && Src::C % V == 0 && kChannels % V == 0;

// The widest of kMaxLanes, half that and 2 that fits, else 1.
constexpr int kPixelLanes = pixel_lanes_fit<kMaxLanes>       ? kMaxLanes
                            : pixel_lanes_fit<kMaxLanes / 2> ? kMaxLanes / 2
                            : pixel_lanes_fit<2>             ? 2
                                                             : 1;
constexpr int kChannelLanes = channel_lanes_fit<kMaxLanes>       ? kMaxLanes
                              : channel_lanes_fit<kMaxLanes / 2> ? kMaxLanes / 2
                              : channel_lanes_fit<2>             ? 2
                                                                 : 1;

HF_DEVICE hf::Coord pixel_coord(hf::index_t n, hf::index_t c, hf::index_t hw) {
  return hf::Coord{n, c, 0, hw / Src::W, hw % Src::W};
}

// One tile, reading x VP pixels at a time (coalesced along the pixels, NCHW's contiguous
// dimension) and writing VC channels at a time (along NHWC's), through shared memory.
// All of a thread's loads are issued before the first use.
template <int VP, int VC>
HF_DEVICE void pack_tile(const hf::IgemmPackArgs& args, float (&tile)[kChannels][kPixels + 1]) {
  const hf::index_t n = blockIdx.z;
  const hf::index_t hw0 = static_cast<hf::index_t>(blockIdx.x) * kPixels;
  const hf::index_t c0 = static_cast<hf::index_t>(blockIdx.y) * kChannels;
  constexpr int kReads = hf::kPackTileElements / (hf::kPackThreads * VP);
  constexpr int kPixelUnits = kPixels / VP;
  float in[kReads][VP];
#pragma unroll
  for (int i = 0; i < kReads; ++i) {
    const int u = static_cast<int>(threadIdx.x) + i * hf::kPackThreads;
    const hf::index_t c = c0 + u / kPixelUnits, hw = hw0 + (u % kPixelUnits) * VP;
    if (c < Src::C && hw < kHW) hf::load_lanes<T, VP>(args.src, Src::offset(pixel_coord(n, c, hw)), in[i]);
  }
#pragma unroll
  for (int i = 0; i < kReads; ++i) {
    const int u = static_cast<int>(threadIdx.x) + i * hf::kPackThreads;
    const int c_local = u / kPixelUnits, p_local = (u % kPixelUnits) * VP;
    const hf::index_t c = c0 + c_local, hw = hw0 + p_local;
    if (c < Src::C && hw < kHW) {
      const hf::index_t off = Src::offset(pixel_coord(n, c, hw));
#pragma unroll
      for (int j = 0; j < VP; ++j) {
        // Only what the prologue reads survives compilation (nothing for an activation).
        tile[c_local][p_local + j] = hf_plan::PackPrologue::apply(in[i][j], pixel_coord(n, c, hw + j), off + j, args.chain);
      }
    }
  }
  __syncthreads();
  constexpr int kWrites = hf::kPackTileElements / (hf::kPackThreads * VC);
  constexpr int kChannelUnits = kChannels / VC;
#pragma unroll
  for (int i = 0; i < kWrites; ++i) {
    const int u = static_cast<int>(threadIdx.x) + i * hf::kPackThreads;
    const int p_local = u / kChannelUnits, c_local = (u % kChannelUnits) * VC;
    const hf::index_t c = c0 + c_local, hw = hw0 + p_local;
    if (c < Src::C && hw < kHW) {
      float out[VC];
#pragma unroll
      for (int j = 0; j < VC; ++j) out[j] = tile[c_local + j][p_local];
      hf::store_lanes<T, VC>(args.dst, Dst::offset(pixel_coord(n, c, hw)), out);
    }
  }
}

}  // namespace

// Block kPackThreads, grid (ceil(H*W / kPixels), ceil(C / kChannels), N) (igemm_args.h). The pixel
// vectors need x aligned to their width, checked here; the scratch always is.
HF_KERNEL void __launch_bounds__(hf::kPackThreads) hf_igemm_pack_input(hf::IgemmPackArgs args) {
  __shared__ float tile[kChannels][kPixels + 1];
  constexpr unsigned kPixelBytes = kPixelLanes * sizeof(T);
  if (reinterpret_cast<unsigned long long>(args.src) % kPixelBytes == 0) {
    pack_tile<kPixelLanes, kChannelLanes>(args, tile);
  } else {
    pack_tile<1, kChannelLanes>(args, tile);
  }
}
