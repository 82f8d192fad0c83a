// Operand re-layout for the implicit GEMM, launched by its invoker before the GEMM into
// invoker-owned scratch (hf_plan.h provides data_t and the geometries):
//   hf_igemm_pack_weights: WSourceGeom (the weights as given) -> WGeom (K x R x S x C/G,
//     (r, s, c) contiguous per output channel), when the weights' layout is not
//     (r, s, c)-contiguous (NCHW filters larger than 1x1). K*C/G*R*S elements.
//   hf_igemm_pack_input: XSourceGeom (x as given, NCHW-like) -> XGeom (packed NHWC), with
//     PackPrologue (the plan's pointwise ops before the conv) applied in fp32 and rounded
//     once to data_t, so that the GEMM reads x as cp.async vectors along C instead of
//     gathering every element R*S times (and for NCHW 1x1 layers with small planes and more
//     input than output channels, whose A would otherwise be gathered). One read and one
//     write of x, through a shared-memory tile, with accesses of up to 16 bytes along the
//     pixels (or along whole-plane runs) when reading and along C when writing.
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

// Whether a tile's channels are one run of x that kMaxLanes-wide accesses tile: whole planes
// (one pixel tile covers H*W), stored one after another, the run's start and length multiples
// of the access. For small planes that no access width divides (7x7: 49 values), which the
// pixel walk reads one value at a time with a quarter of its lanes idle.
constexpr bool kPlaneRuns = kHW <= kPixels && kPixelLanes < kMaxLanes && Src::stride_w == 1 &&
                            (Src::H == 1 || Src::stride_h == Src::W) && Src::stride_c == kHW &&
                            (kChannels * kHW) % kMaxLanes == 0 && (Src::C * kHW) % kMaxLanes == 0 &&
                            Src::stride_n % kMaxLanes == 0;

HF_DEVICE hf::Coord pixel_coord(hf::index_t n, hf::index_t c, hf::index_t hw) {
  return hf::Coord{n, c, 0, hw / Src::W, hw % Src::W};
}

// The tile's value at (c_local, hw_local), x's value v at offset `off`, with the prologue.
HF_DEVICE void put(const hf::IgemmPackArgs& args, float (&tile)[kChannels][kPixels + 1], int c_local, int hw_local,
                   float v, hf::index_t c, hf::index_t hw, hf::index_t off) {
  // Only what the prologue reads survives compilation (nothing for an activation).
  tile[c_local][hw_local] = hf_plan::PackPrologue::apply(v, pixel_coord(blockIdx.z, c, hw), off, args.chain);
}

// Reads one tile of x VP pixels at a time (coalesced along the pixels, NCHW's contiguous
// dimension). All of a thread's loads are issued before the first use.
template <int VP>
HF_DEVICE void read_pixels(const hf::IgemmPackArgs& args, float (&tile)[kChannels][kPixels + 1]) {
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
      for (int j = 0; j < VP; ++j) put(args, tile, c_local, p_local + j, in[i][j], c, hw + j, off + j);
    }
  }
}

// Reads a tile of whole planes (kPlaneRuns) as one run of kMaxLanes-wide accesses; each
// value lands at its (channel, pixel) in the tile.
HF_DEVICE void read_plane_runs(const hf::IgemmPackArgs& args, float (&tile)[kChannels][kPixels + 1]) {
  constexpr int V = kMaxLanes;
  constexpr int kReads = (kChannels * kHW + hf::kPackThreads * V - 1) / (hf::kPackThreads * V);
  const hf::index_t n = blockIdx.z;
  const hf::index_t c0 = static_cast<hf::index_t>(blockIdx.y) * kChannels;
  const hf::index_t channels = Src::C - c0 < kChannels ? Src::C - c0 : kChannels;
  const int run = static_cast<int>(channels * kHW);  // a multiple of V (kPlaneRuns)
  const hf::index_t start = Src::offset(pixel_coord(n, c0, 0));
  float in[kReads][V];
#pragma unroll
  for (int i = 0; i < kReads; ++i) {
    const int u = static_cast<int>(threadIdx.x) + i * hf::kPackThreads;
    if (u * V < run) hf::load_lanes<T, V>(args.src, start + u * V, in[i]);
  }
#pragma unroll
  for (int i = 0; i < kReads; ++i) {
    const int u = static_cast<int>(threadIdx.x) + i * hf::kPackThreads;
    if (u * V >= run) continue;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const int at = u * V + j;
      const int c_local = at / static_cast<int>(kHW), hw = at % static_cast<int>(kHW);
      put(args, tile, c_local, hw, in[i][j], c0 + c_local, hw, start + at);
    }
  }
}

// Writes the tile VC channels at a time (along NHWC's contiguous dimension).
template <int VC>
HF_DEVICE void write_tile(const hf::IgemmPackArgs& args, const float (&tile)[kChannels][kPixels + 1]) {
  const hf::index_t n = blockIdx.z;
  const hf::index_t hw0 = static_cast<hf::index_t>(blockIdx.x) * kPixels;
  const hf::index_t c0 = static_cast<hf::index_t>(blockIdx.y) * kChannels;
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
// vectors and plane runs need x aligned to their width, checked here; the scratch always is.
HF_KERNEL void __launch_bounds__(hf::kPackThreads) hf_igemm_pack_input(hf::IgemmPackArgs args) {
  __shared__ float tile[kChannels][kPixels + 1];
  constexpr unsigned kPixelBytes = kPixelLanes * sizeof(T);
  const unsigned long long src = reinterpret_cast<unsigned long long>(args.src);
  bool read = false;
  if constexpr (kPlaneRuns) {
    if (src % 16 == 0) {
      read_plane_runs(args, tile);
      read = true;
    }
  }
  if (!read) {
    if (src % kPixelBytes == 0) {
      read_pixels<kPixelLanes>(args, tile);
    } else {
      read_pixels<1>(args, tile);
    }
  }
  __syncthreads();
  write_tile<kChannelLanes>(args, tile);
}
