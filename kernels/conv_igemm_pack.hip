// Operand re-layout for the implicit GEMM, launched by its invoker before the GEMM into
// invoker-owned scratch (hf_plan.h provides data_t and the geometries):
//   hf_igemm_pack_weights: WSourceGeom (the weights as given) -> WGeom (K x R x S x C/G,
//     (r, s, c) contiguous per output channel), when the weights' layout is not
//     (r, s, c)-contiguous (NCHW filters larger than 1x1), or with the filter width folded
//     into the channels (hfi::FoldS, K x R x 1 x C'). One value a thread. Where x is re-laid
//     out too, hf_igemm_pack_input's first blocks do it instead (hfi::PackWeightSlices).
//   hf_igemm_pack_input: XSourceGeom (x as given, NCHW-like) -> XGeom (packed NHWC, or with
//     the filter's width windows folded into the channels: fold_width below), with
//     PackPrologue (the plan's pointwise ops before the conv) applied in fp32 and rounded
//     once to data_t, so that the GEMM reads x as cp.async vectors along C instead of
//     gathering every element R*S times (and for NCHW 1x1 layers with small planes and more
//     input than output channels, whose A would otherwise be gathered). One read and one
//     write of x, with accesses of up to 16 bytes along the pixels when reading and along C
//     when writing: each thread transposing a block in registers where 8- or 16-byte
//     accesses tile the planes (hfi::PackBlockLanes > 0), else through a shared-memory tile
//     (also read as whole-plane runs for small planes).
#include "common/geometry.h"
#include "common/igemm_args.h"
#include "common/pointwise_chain.h"
#include "common/ready_counters.h"
#include "common/vendor.h"
#include "hf_igemm.h"
#include "hf_plan.h"

// One value of the weights' re-layout: element i of WGeom, from WSourceGeom at `src`.
HF_DEVICE void pack_weight(const void* src, void* dst, hf::index_t i) {
  using Dst = hf_plan::WGeom;
  using Src = hf_plan::WSourceGeom;
  using T = hf_plan::data_t;
  hf::Coord at = Dst::coord_of_packed_offset(i);
  if constexpr (hfi::FoldS > 0) {
    // Folded (K x C' x R x 1): channel j is tap s = j / C of channel c = j % C, zero past S*C.
    const hf::index_t s = at.c / Src::C;
    if (s >= hfi::FoldS) {
      static_cast<T*>(dst)[i] = hf::from_float<T>(0.0f);
      return;
    }
    at.c %= Src::C;
    at.w = s;
  }
  static_cast<T*>(dst)[i] = static_cast<const T*>(src)[Src::offset(at)];
}

HF_KERNEL void __launch_bounds__(256) hf_igemm_pack_weights(hf::IgemmPackArgs args) {
  hf::allow_early_start();  // the convolution's blocks may take the multiprocessors this launch frees
  const hf::index_t i = static_cast<hf::index_t>(blockIdx.x) * 256 + threadIdx.x;
  if (i < hf_plan::WGeom::elements) pack_weight(args.src, args.dst, i);
}

namespace {

using Src = hf_plan::XSourceGeom;
using Dst = hf_plan::XGeom;
using T = hf_plan::data_t;
constexpr hf::index_t kHW = Src::H * Src::W;
constexpr int kChannels = hfi::PackTileChannels;
constexpr int kPixels = hfi::PackTilePixels;
constexpr int kMaxLanes = hf::kLanes16<T>;

// The register transpose (PackBlockLanes > 0): each thread moves a block of kMaxLanes
// channels x PackBlockLanes pixels, one load a channel along the pixels and one store a pixel
// along the channels: no shared memory, no barrier, and all of a thread's loads in flight at
// once. A warp holds 8 x 4 blocks (channels x pixels), so that a store instruction writes 4
// pixels' 128-byte lines whole and a load reads 8 runs of 4 * PackBlockLanes values (32 or 64
// bytes: whole sectors); a thread block is 8 warps along the pixels, the host's tile of 8 x 32
// blocks.
// (The shared-memory tile before it: H200, fp16 NCHW 3x3 128->128 56x56 s2, ~44 us of 78.)
constexpr int kBlockPixels = hfi::PackBlockLanes;
static_assert(kBlockPixels == 0 || (kChannels == 8 * kMaxLanes && kPixels == 32 * kBlockPixels),
              "the host's tile is 8 x 32 register blocks");
static_assert(hfi::FoldS > 0 || kBlockPixels > 0 || kChannels * kPixels == hf::kPackTileElements,
              "the shared tile holds 4096 values");

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

// Whether a tile's channels are one run of x that 16-byte accesses tile: whole planes (one
// pixel tile covers H*W), stored one after another, the run's start and length multiples of
// the access. For small planes that no access width divides (7x7: 49 values), which the
// pixel walk reads one value at a time with a quarter of its lanes idle.
constexpr bool kPlaneRuns = kHW <= kPixels && kPixelLanes < kMaxLanes && Src::stride_w == 1 &&
                            (Src::H == 1 || Src::stride_h == Src::W) && Src::stride_c == kHW &&
                            (kChannels * kHW) % kMaxLanes == 0 && (Src::C * kHW) % kMaxLanes == 0 &&
                            Src::stride_n % kMaxLanes == 0;

// hfi::PackWeightSlices > 0: the weights' re-layout rides along in hf_igemm_pack_input's launch
// (one launch fewer an execution): the grid's first PackWeightSlices z slices (the folded
// x's 1-D grid: its first PackWeightSlices blocks) re-lay them out; x's blocks come after.
constexpr unsigned kWeightSlices = hfi::PackWeightSlices;
HF_DEVICE hf::index_t image() { return blockIdx.z - kWeightSlices; }

HF_DEVICE hf::Coord pixel_coord(hf::index_t n, hf::index_t c, hf::index_t hw) {
  return hf::Coord{n, c, 0, hw / Src::W, hw % Src::W};
}

// The tile's value at (c_local, hw_local), x's value v at offset `off`, with the prologue.
HF_DEVICE void put(const hf::IgemmPackArgs& args, float (&tile)[kChannels][kPixels + 1], int c_local, int hw_local,
                   float v, hf::index_t c, hf::index_t hw, hf::index_t off) {
  // Only what the prologue reads survives compilation (nothing for an activation).
  tile[c_local][hw_local] = hf_plan::PackPrologue::apply(v, pixel_coord(image(), c, hw), off, args.chain);
}

// Reads one tile of x VP pixels at a time (coalesced along the pixels, NCHW's contiguous
// dimension). All of a thread's loads are issued before the first use.
template <int VP>
HF_DEVICE void read_pixels(const hf::IgemmPackArgs& args, float (&tile)[kChannels][kPixels + 1]) {
  const hf::index_t n = image();
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

// Copies a tile of whole planes (kPlaneRuns), one run of x, into shared memory as it is
// (16-byte accesses on both sides); write_tile then reads value (c, hw) at c * H*W + hw.
// (Scattering each value to a [channel][pixel] tile made the shared-memory pipe the limit:
// H200, 1x1 2048->512 7x7, 20 us with L1/TEX 92% busy and DRAM 14%.)
HF_DEVICE void copy_plane_run(const hf::IgemmPackArgs& args, T* run_copy, hf::index_t start) {
  constexpr int V = kMaxLanes;
  constexpr int kCopies = (kChannels * kHW + hf::kPackThreads * V - 1) / (hf::kPackThreads * V);
  const hf::index_t c0 = static_cast<hf::index_t>(blockIdx.y) * kChannels;
  const hf::index_t channels = Src::C - c0 < kChannels ? Src::C - c0 : kChannels;
  const int run = static_cast<int>(channels * kHW);  // a multiple of V (kPlaneRuns)
  const T* src = static_cast<const T*>(args.src) + start;
  hf::Words<16> words[kCopies];
#pragma unroll
  for (int i = 0; i < kCopies; ++i) {
    const int u = static_cast<int>(threadIdx.x) + i * hf::kPackThreads;
    if (u * V < run) words[i] = *reinterpret_cast<const hf::Words<16>*>(src + u * V);
  }
#pragma unroll
  for (int i = 0; i < kCopies; ++i) {
    const int u = static_cast<int>(threadIdx.x) + i * hf::kPackThreads;
    if (u * V < run) *reinterpret_cast<hf::Words<16>*>(run_copy + u * V) = words[i];
  }
}

// Writes the tile VC channels at a time (along NHWC's contiguous dimension); value(c_local,
// hw_local, c, hw) gives each value.
template <int VC, class Value>
HF_DEVICE void write_tile(const hf::IgemmPackArgs& args, const Value& value) {
  const hf::index_t n = image();
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
      alignas(16) T out[VC];
#pragma unroll
      for (int j = 0; j < VC; ++j) out[j] = hf::from_float<T>(value(c_local + j, p_local, c + j, hw));
      T* to = static_cast<T*>(args.dst) + Dst::offset(pixel_coord(n, c, hw));
      if constexpr (VC * sizeof(T) == 16) {
        hf::store_words16(to, *reinterpret_cast<const hf::Words<16>*>(out));  // one store, not split
      } else {
#pragma unroll
        for (int j = 0; j < VC; ++j) to[j] = out[j];
      }
    }
  }
}

// One tile through the pixel walk: read VP pixels at a time, then write; each access width
// gets its own copy of the whole tile's code (see the kernel).
template <int VP>
HF_DEVICE void pack_pixels(const hf::IgemmPackArgs& args, float (&tile)[kChannels][kPixels + 1]) {
  read_pixels<VP>(args, tile);
  __syncthreads();
  write_tile<kChannelLanes>(args, [&](int c_local, int hw_local, hf::index_t, hf::index_t) {
    return tile[c_local][hw_local];
  });
}

// The raw bits of T values (the low 16 for 16-bit T), and back: the transpose moves bits;
// the prologue needs values.
HF_DEVICE unsigned int bits_at(const unsigned int* words, int i) {
  if constexpr (sizeof(T) == 2) return (words[i / 2] >> (16 * (i % 2))) & 0xffffu;
  return words[i];
}
HF_DEVICE float value_of(unsigned int bits) {
  if constexpr (sizeof(T) == 2) {
    const unsigned short low = static_cast<unsigned short>(bits);
    return hf::to_float(*reinterpret_cast<const T*>(&low));
  } else {
    return hf::to_float(*reinterpret_cast<const T*>(&bits));
  }
}
HF_DEVICE unsigned int bits_of(float f) {
  const T v = hf::from_float<T>(f);
  if constexpr (sizeof(T) == 2) return *reinterpret_cast<const unsigned short*>(&v);
  return *reinterpret_cast<const unsigned int*>(&v);
}

// One thread's block (see kBlockPixels: VP pixels) at channel c and pixel hw of image n, both
// within x. Vector: x aligned to the block's pixel accesses, VC loads of VP values, all in
// flight before the first store; else one value at a time, a pixel's VC loads before its
// store (so that its values need no more registers than the vector's words). The block is
// kept as 32-bit words and each output vector built from them (PRMT for 16-bit values): as
// an array of T, the compiler split the 16-byte stores into 4-byte ones.
template <int VP, bool Vector>
HF_DEVICE void transpose_block(const hf::IgemmPackArgs& args, hf::index_t n, hf::index_t c, hf::index_t hw) {
  constexpr int VC = kMaxLanes;
  constexpr int kPixelBytes = VP * static_cast<int>(sizeof(T));
  const T* src = static_cast<const T*>(args.src);
  hf::Words<kPixelBytes> block[VC];  // channel i's VP values
  if constexpr (Vector) {
#pragma unroll
    for (int i = 0; i < VC; ++i) {
      block[i] = *reinterpret_cast<const hf::Words<kPixelBytes>*>(src + Src::offset(pixel_coord(n, c + i, hw)));
    }
  }
  using Prologue = hf_plan::PackPrologue;
  typename Prologue::Channel channel[Prologue::length > 0 ? VC : 1];
  if constexpr (Prologue::length > 0) {
#pragma unroll
    for (int i = 0; i < VC; ++i) channel[i] = Prologue::prepare(c + i, args.chain);
  }
#pragma unroll
  for (int j = 0; j < VP; ++j) {
    unsigned int lane_bits[VC];
#pragma unroll
    for (int i = 0; i < VC; ++i) {
      const hf::Coord at = pixel_coord(n, c + i, hw + j);
      unsigned int b;
      if constexpr (Vector) {
        b = bits_at(block[i].word, j);
      } else {
        if constexpr (sizeof(T) == 2) {
          b = *reinterpret_cast<const unsigned short*>(src + Src::offset(at));
        } else {
          b = *reinterpret_cast<const unsigned int*>(src + Src::offset(at));
        }
      }
      if constexpr (Prologue::length > 0) b = bits_of(Prologue::apply(value_of(b), channel[i], at, Src::offset(at), args.chain));
      lane_bits[i] = b;
    }
    hf::Words<16> out;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if constexpr (sizeof(T) == 2) {
        out.word[k] = lane_bits[2 * k] | (lane_bits[2 * k + 1] << 16);
      } else {
        out.word[k] = lane_bits[k];
      }
    }
    hf::store_words16(static_cast<T*>(args.dst) + Dst::offset(pixel_coord(n, c, hw + j)), out);
  }
}

// Folded x (hfi::FoldS > 0, igemm::WidthFold): one thread a column (n, h, q) of x' (N x H x
// Q x C' channels-last), its C' / kMaxLanes 16-byte vectors. Channel j is x's value at channel
// j % C, column q * FoldStrideW - FoldPadW + (j / C) * FoldDilationW, the prologue applied; zero
// outside x and past S*C. With the column a thread's, each lane's tap and channel are
// constants: a value costs a load at a constant offset from the column's base and a compare
// per tap, in 32-bit arithmetic where both tensors fit. (A thread a vector, its lanes' taps
// and channels computed in 64-bit: H200, the fp16 stem, 53 us, issue-bound: v19.)
// Neighbouring columns' windows overlap, so x's values come mostly from L1. The block's
// columns are one run of x', which goes out through shared memory a 16-byte vector a thread,
// so that each store instruction writes whole sectors (a column's vectors stored by its
// thread would each fill half of one: v20).
constexpr hf::index_t kSourceSpan = (Src::N - 1) * Src::stride_n + (Src::C - 1) * Src::stride_c +
                                    (Src::D - 1) * Src::stride_d + (Src::H - 1) * Src::stride_h +
                                    (Src::W - 1) * Src::stride_w + 1;
constexpr bool kFoldFits32 = Dst::elements < (hf::index_t{1} << 31) && kSourceSpan < (hf::index_t{1} << 31);
// Signed, so that the compiler may fold each lane's constant into the load's address.
using FoldIndex = hf::conditional<kFoldFits32, int, hf::index_t>::type;
constexpr int kFoldVectors = static_cast<int>(Dst::C) / kMaxLanes;  // a column's
// Staged through shared memory when it fits: the block's columns at a pitch of one vector
// more than a column (C' is a power of two: an odd pitch, so the 16-byte writes of 8
// neighbouring threads hit distinct banks).
constexpr int kFoldPitch = kFoldVectors + 1;
constexpr bool kFoldStaged = kFoldVectors > 1 && kFoldVectors <= 8;

template <int FoldS>
HF_DEVICE void fold_width(const hf::IgemmPackArgs& args) {
  using I = FoldIndex;
  using Prologue = hf_plan::PackPrologue;
  constexpr I kColumns = static_cast<I>(Dst::N * Dst::H * Dst::W);
  const I first = static_cast<I>(blockIdx.x - kWeightSlices) * hf::kPackThreads;  // the block's first column
  const I column = first + static_cast<I>(threadIdx.x);
  const bool inside = column < kColumns;  // (no early return: the block stages together)
  const I q = column % static_cast<I>(Dst::W), h = (column / static_cast<I>(Dst::W)) % static_cast<I>(Dst::H);
  const I n = column / static_cast<I>(Dst::W * Dst::H);
  const I w0 = q * hfi::FoldStrideW - hfi::FoldPadW;  // tap 0's column of x
  const I base = n * static_cast<I>(Src::stride_n) + h * static_cast<I>(Src::stride_h) + w0 * static_cast<I>(Src::stride_w);
  const T* src = static_cast<const T*>(args.src);
  const T zero = hf::from_float<T>(0.0f);
  alignas(16) T out[kFoldVectors][kMaxLanes];
#pragma unroll
  for (int j = 0; j < kFoldVectors * kMaxLanes; ++j) {
    const int s = j / static_cast<int>(Src::C), c = j % static_cast<int>(Src::C);
    const I w = w0 + s * hfi::FoldDilationW;
    T& v = out[j / kMaxLanes][j % kMaxLanes];
    v = zero;
    if (inside && s < FoldS && w >= 0 && w < static_cast<I>(Src::W)) {
      const I off = base + static_cast<I>(c * Src::stride_c + s * hfi::FoldDilationW * Src::stride_w);
      if constexpr (Prologue::length == 0) {
        v = src[off];  // the bits as they are
      } else {
        const hf::Coord at{n, c, 0, h, w};
        v = hf::from_float<T>(Prologue::apply(hf::to_float(src[off]), at, off, args.chain));
      }
    }
  }
  const auto vector = [&](int k) -> const hf::Words<16>& { return *reinterpret_cast<const hf::Words<16>*>(out[k]); };
  T* dst = static_cast<T*>(args.dst);
  if constexpr (kFoldStaged) {
    __shared__ hf::Words<16> stage[hf::kPackThreads * kFoldPitch];
#pragma unroll
    for (int k = 0; k < kFoldVectors; ++k) stage[threadIdx.x * kFoldPitch + k] = vector(k);
    __syncthreads();
    // Vector i of the block's run: column first + i / kFoldVectors, its vector i % kFoldVectors.
    const hf::index_t run = static_cast<hf::index_t>(kColumns - first < hf::kPackThreads ? kColumns - first : hf::kPackThreads) * kFoldVectors;
#pragma unroll
    for (int r = 0; r < kFoldVectors; ++r) {
      const int i = r * hf::kPackThreads + static_cast<int>(threadIdx.x);
      if (i < run) {
        const hf::Words<16>& v = stage[(i / kFoldVectors) * kFoldPitch + i % kFoldVectors];
        hf::store_words16(dst + (static_cast<hf::index_t>(first) * kFoldVectors + i) * kMaxLanes, v);
      }
    }
  } else if (inside) {
#pragma unroll
    for (int k = 0; k < kFoldVectors; ++k) {
      hf::store_words16(dst + (static_cast<hf::index_t>(column) * kFoldVectors + k) * kMaxLanes, vector(k));
    }
  }
}

// The register transpose's tile (pixel tile `tile_x`, channel tile `tile_y`) of image n: each
// thread its block of kMaxLanes channels x BlockPixels pixels.
template <int BlockPixels>
HF_DEVICE void transpose_tile(const hf::IgemmPackArgs& args, unsigned tile_x, unsigned tile_y, hf::index_t n) {
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const hf::index_t c = static_cast<hf::index_t>(tile_y) * kChannels + (lane / 4) * kMaxLanes;
  const hf::index_t hw = static_cast<hf::index_t>(tile_x) * kPixels + (warp * 4 + lane % 4) * BlockPixels;
  // C and H*W are multiples of the block's sides (the host's choice): whole blocks or none.
  if (c >= Src::C || hw >= kHW) return;
  if (reinterpret_cast<unsigned long long>(args.src) % (BlockPixels * sizeof(T)) == 0) {
    transpose_block<BlockPixels, true>(args, n, c, hw);
  } else {
    transpose_block<BlockPixels, false>(args, n, c, hw);
  }
}

// Block `block` of the `blocks` that re-lay out the weights alongside x (kWeightSlices): its
// threads' share of the values, grid-stride.
HF_DEVICE void pack_weights_share(const hf::IgemmPackArgs& args, hf::index_t block, hf::index_t blocks) {
  const hf::index_t threads = blocks * hf::kPackThreads;
  for (hf::index_t i = block * hf::kPackThreads + threadIdx.x; i < hf_plan::WGeom::elements; i += threads) {
    pack_weight(args.weights_src, args.weights_dst, i);
  }
}

// The whole of one block's work, in the host's mode (FoldS: hfi::FoldS, BlockPixels:
// kBlockPixels). A template, so that the modes not taken are not compiled (the shared tile
// would not fit the register mode's).
template <int FoldS, int BlockPixels>
HF_DEVICE void pack_input(const hf::IgemmPackArgs& args) {
  if constexpr (FoldS > 0) {
    fold_width<FoldS>(args);
  } else if constexpr (BlockPixels > 0) {
    transpose_tile<BlockPixels>(args, blockIdx.x, blockIdx.y, image());
  } else {
    const unsigned long long src = reinterpret_cast<unsigned long long>(args.src);
    alignas(16) __shared__ float tile[kChannels][kPixels + 1];
    constexpr unsigned kPixelBytes = kPixelLanes * sizeof(T);
    if constexpr (kPlaneRuns) {
      if (src % 16 == 0) {
        // The run copied as it is (it fits: at most kPackTileElements values of T in the tile's
        // floats), the prologue applied on the way out.
        T* run_copy = reinterpret_cast<T*>(&tile[0][0]);
        const hf::index_t start = Src::offset(pixel_coord(image(), static_cast<hf::index_t>(blockIdx.y) * kChannels, 0));
        copy_plane_run(args, run_copy, start);
        __syncthreads();
        write_tile<kChannelLanes>(args, [&](int c_local, int hw_local, hf::index_t c, hf::index_t hw) {
          const int at = c_local * static_cast<int>(kHW) + hw_local;
          return hf_plan::PackPrologue::apply(hf::to_float(run_copy[at]), pixel_coord(image(), c, hw), start + at,
                                              args.chain);
        });
        return;
      }
      // x off 16-byte alignment: the pixel walk, one write loop after either read. (Written as
      // in the kernel timed with the runs, 12.1 us on 1x1 2048->512 7x7: the same source gives
      // the same machine code; the other structure below adds 4 registers.)
      if (src % kPixelBytes == 0) {
        read_pixels<kPixelLanes>(args, tile);
      } else {
        read_pixels<1>(args, tile);
      }
      __syncthreads();
      write_tile<kChannelLanes>(args, [&](int c_local, int hw_local, hf::index_t, hf::index_t) {
        return tile[c_local][hw_local];
      });
    } else {
      // A copy of the whole tile's code per access width: one shared write loop after the two
      // reads made the 56x56 planes' re-layout slower (H200, 3x3 128->128 s2 fp16 NCHW: 89.1 us
      // against 82.6, docs/PERF_NOTES.md v10).
      if (src % kPixelBytes == 0) {
        pack_pixels<kPixelLanes>(args, tile);
      } else {
        pack_pixels<1>(args, tile);
      }
    }
  }
}

}  // namespace

// hfi::StreamInput: the launch's blocks (PackGridX x PackGridY x (kWeightSlices + N), the
// weights' slices first, then image by image) walked in that order by a persistent grid that
// runs beside the GEMM (a block or two a multiprocessor), each counted in args.ready once done
// (common/ready_counters.h) so that the GEMM multiplies an image as soon as it is re-laid out.
// Register transposes only (the host's choice).
static_assert(!hfi::StreamInput || (hfi::FoldS == 0 && kBlockPixels > 0), "a streamed re-layout transposes in registers");
HF_DEVICE void pack_input_streamed(const hf::IgemmPackArgs& args) {
  if constexpr (hfi::StreamInput) {  // (compiled only where streamed)
    constexpr unsigned kPerImage = hfi::PackGridX * hfi::PackGridY;
    constexpr unsigned kBlocks = kPerImage * (kWeightSlices + static_cast<unsigned>(Src::N));
    for (unsigned v = blockIdx.x; v < kBlocks; v += gridDim.x) {
      const unsigned z = v / kPerImage;
      if (z < kWeightSlices) {
        pack_weights_share(args, v, kWeightSlices * kPerImage);
      } else {
        transpose_tile<kBlockPixels>(args, v % hfi::PackGridX, v / hfi::PackGridX % hfi::PackGridY, z - kWeightSlices);
      }
      __syncthreads();  // every thread's stores before the count
      if (threadIdx.x == 0) hf::count_ready(args.ready + (z < kWeightSlices ? Src::N : z - kWeightSlices));
    }
  }
}

// Block kPackThreads, grid (ceil(H*W / kPixels), ceil(C / kChannels), N), or 1-D over the folded
// x's columns (igemm_args.h), with the weights' slices first (kWeightSlices); hfi::StreamInput:
// a persistent 1-D grid (pack_input_streamed). The pixel vectors and plane runs need x aligned
// to their width, checked here; the scratch always is.
HF_KERNEL void __launch_bounds__(hf::kPackThreads) hf_igemm_pack_input(hf::IgemmPackArgs args) {
  hf::allow_early_start();  // the convolution's blocks may take the multiprocessors this launch frees
  if constexpr (hfi::StreamInput) {
    pack_input_streamed(args);
  } else {
    if constexpr (kWeightSlices > 0) {
      constexpr bool kFolded = hfi::FoldS > 0;
      if ((kFolded ? blockIdx.x : blockIdx.z) < kWeightSlices) {  // the weights, grid-stride over these blocks
        const hf::index_t block = kFolded ? blockIdx.x : (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
        pack_weights_share(args, block, static_cast<hf::index_t>(kWeightSlices) * (kFolded ? 1 : gridDim.x * gridDim.y));
        return;
      }
    }
    pack_input<hfi::FoldS, kBlockPixels>(args);
  }
}
