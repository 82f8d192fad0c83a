// Direct convolution with a fused prologue and epilogue:
//   y = Epilogue( conv( pad( Prologue(x) ), w ) )
// The prologue runs on each input value as it is loaded; the zero padding is applied after
// it (pre-activation ResNet: BN + activation before the conv). Any filter, stride, padding,
// dilation and group count, 1-3 spatial dimensions, any strides; fp32 accumulation.
//
// Work split: a thread computes one output pixel for kTileK output channels of one group,
// so each loaded input value feeds kTileK FMAs. A block is kBlockPixels consecutive pixels
// of one k-tile; the block stages the k-tile's weights for kChannelChunk input channels in
// shared memory as fp32, laid out [c][tap][k] so a thread reads its kTileK weights for one
// (c, tap) contiguously (broadcast across the block).
//
// hf_plan.h provides: data_t (x, w, y), offset_t, XGeom, YGeom, WGeom (K, C/groups, filter),
// kGroups, kStride*/kPad*/kDilation* (D, H, W), kTileK, kChannelChunk, kBlockPixels,
// Prologue, Epilogue.
#include "common/kernel_args.h"
#include "common/memory.h"
#include "common/pointwise_chain.h"
#include "common/vendor.h"
#include "hf_plan.h"

namespace {

using namespace hf_plan;
using hf::index_t;

constexpr index_t kCg = XGeom::C / kGroups;  // input channels per group
constexpr index_t kKg = YGeom::C / kGroups;  // output channels per group
constexpr int kTaps = static_cast<int>(WGeom::D * WGeom::H * WGeom::W);
constexpr index_t kKTiles = (kKg + kTileK - 1) / kTileK;
constexpr index_t kPixels = YGeom::N * YGeom::spatial;
constexpr int kWeightTile = kChannelChunk * kTaps * kTileK;

static_assert(kKg * kGroups == YGeom::C && kCg * kGroups == XGeom::C, "channels must divide into groups");
static_assert(WGeom::N == YGeom::C && WGeom::C == kCg, "weights must be K x C/groups x filter");

// Stages weights [k0, k0 + kTileK) x [c0, c0 + kChannelChunk) of group g as fp32, zero past
// the group's channels.
HF_DEVICE void stage_weights(const void* w, index_t g, index_t k0, index_t c0, float* tile) {
  for (int i = threadIdx.x; i < kWeightTile; i += kBlockPixels) {
    const int tap = i % kTaps;
    const int c = (i / kTaps) % kChannelChunk;
    const int k = i / (kTaps * kChannelChunk);
    float v = 0.0f;
    if (k0 + k < kKg && c0 + c < kCg) {
      hf::Coord at{g * kKg + k0 + k, c0 + c, 0, 0, 0};
      at.w = tap % WGeom::W;
      at.h = (tap / WGeom::W) % WGeom::H;
      at.d = tap / (WGeom::W * WGeom::H);
      v = hf::load_float<data_t>(w, WGeom::offset(at));
    }
    tile[(c * kTaps + tap) * kTileK + k] = v;
  }
}

// Adds the staged channels' contribution to output pixel `out` (its n, d, h, w).
HF_DEVICE void accumulate(const void* x, const hf::Coord& out, index_t g, index_t c0, const float* tile,
                          const hf::ChainArgs& chain, float (&acc)[kTileK]) {
  const offset_t d0 = static_cast<offset_t>(out.d * kStrideD - kPadD);
  const offset_t h0 = static_cast<offset_t>(out.h * kStrideH - kPadH);
  const offset_t w0 = static_cast<offset_t>(out.w * kStrideW - kPadW);
  const int channels =
      kCg % kChannelChunk == 0 || c0 + kChannelChunk <= kCg ? kChannelChunk : static_cast<int>(kCg - c0);
  for (int ci = 0; ci < channels; ++ci) {
    const index_t c = g * kCg + c0 + ci;
    const offset_t plane = static_cast<offset_t>(out.n * XGeom::stride_n + c * XGeom::stride_c);
    const float* weights = tile + ci * kTaps * kTileK;
#pragma unroll
    for (int t = 0; t < static_cast<int>(WGeom::D); ++t) {
      const offset_t d = d0 + t * static_cast<offset_t>(kDilationD);
      if (d < 0 || d >= static_cast<offset_t>(XGeom::D)) continue;  // zero padding
#pragma unroll
      for (int r = 0; r < static_cast<int>(WGeom::H); ++r) {
        const offset_t h = h0 + r * static_cast<offset_t>(kDilationH);
        if (h < 0 || h >= static_cast<offset_t>(XGeom::H)) continue;
#pragma unroll
        for (int s = 0; s < static_cast<int>(WGeom::W); ++s) {
          const offset_t wi = w0 + s * static_cast<offset_t>(kDilationW);
          if (wi < 0 || wi >= static_cast<offset_t>(XGeom::W)) continue;
          const offset_t off = plane + d * static_cast<offset_t>(XGeom::stride_d) +
                               h * static_cast<offset_t>(XGeom::stride_h) + wi * static_cast<offset_t>(XGeom::stride_w);
          const float v = Prologue::apply(hf::load_float<data_t>(x, off), hf::Coord{out.n, c, d, h, wi}, off, chain);
          const float* wt = weights + ((t * WGeom::H + r) * WGeom::W + s) * kTileK;
#pragma unroll
          for (int j = 0; j < kTileK; ++j) acc[j] = fmaf(v, wt[j], acc[j]);
        }
      }
    }
  }
}

HF_DEVICE void store_outputs(const hf::ConvArgs& args, hf::Coord at, index_t g, index_t k0,
                             const float (&acc)[kTileK]) {
#pragma unroll
  for (int j = 0; j < kTileK; ++j) {
    if (kKg % kTileK != 0 && k0 + j >= kKg) break;
    at.c = g * kKg + k0 + j;
    const index_t off = YGeom::offset(at);
    hf::store_float<data_t>(args.y, off, Epilogue::apply(acc[j] * args.alpha, at, off, args.chain));
  }
}

}  // namespace

HF_KERNEL void __launch_bounds__(kBlockPixels) hf_conv_direct(hf::ConvArgs args) {
  __shared__ float tile[kWeightTile];
  const index_t g = blockIdx.y / kKTiles;
  const index_t k0 = (blockIdx.y % kKTiles) * kTileK;
  const index_t pixel = static_cast<index_t>(blockIdx.x) * kBlockPixels + threadIdx.x;
  const bool active = pixel < kPixels;

  hf::Coord out{pixel / YGeom::spatial, 0, 0, 0, 0};
  YGeom::set_spatial(out, pixel % YGeom::spatial);

  float acc[kTileK];
#pragma unroll
  for (int j = 0; j < kTileK; ++j) acc[j] = 0.0f;
  for (index_t c0 = 0; c0 < kCg; c0 += kChannelChunk) {
    __syncthreads();  // the previous chunk is consumed
    stage_weights(args.w, g, k0, c0, tile);
    __syncthreads();
    if (active) accumulate(args.x, out, g, c0, tile, args.chain, acc);
  }
  if (active) store_outputs(args, out, g, k0, acc);
}
