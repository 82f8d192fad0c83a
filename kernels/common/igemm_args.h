// Argument structs of the implicit-GEMM helper kernels (the conv kernels themselves take
// hf::ConvArgs, kernel_args.h). Plain data: the host invoker packs the same definitions.
#pragma once

#include "common/kernel_args.h"

namespace hf {

// kernels/conv_igemm_pack.hip, both entries: `src` re-laid out into invoker-owned scratch
// `dst` so that the GEMM loads its operands as 16-byte vectors.
//   hf_igemm_pack_weights: K x C/G x R x S -> K x R x S x C/G (chain unused);
//   hf_igemm_pack_input:   x -> packed NHWC with the plan's prologue applied (chain: the
//                          plan's ChainArgs, the prologue's slots), and with
//                          hfi::PackWeightSlices > 0 the weights too (weights_src -> weights_dst).
struct IgemmPackArgs {
  const void* src;
  void* dst;
  ChainArgs chain;
  const void* weights_src;
  void* weights_dst;
  // hfi::StreamInput only: the ready counters (common/ready_counters.h) this launch counts its
  // finished blocks in, for the GEMM running beside it.
  unsigned int* ready;
};

// The ready counters' slots past the N images' (common/ready_counters.h): the weights', the GEMM's.
constexpr int kReadyCounterSlots = 2;

// hf_igemm_pack_input: kPackThreads threads a block. Its shared tile holds kPackTileElements
// values, up to 64 channels by kPackTileElements / that many pixels; its register blocks make a
// tile of 8 x 32 blocks (the host's choice either way: hfi::PackTileChannels and PackTilePixels
// in hf_igemm.h). Grid (ceil(H*W / pixels), ceil(C / channels), N); with the filter width
// folded into the channels, one thread a column (all channels of a pixel) of the folded x, on a
// 1-D grid.
constexpr int kPackThreads = 256;
constexpr int kPackTileElements = 4096;

// hf_conv_igemm with 16-bit staging: shared-memory bytes a tile output channel for its
// epilogue parameters (kernels/conv_igemm.hip, kChannelOffset), past the pipeline and staging.
constexpr int kEpilogueChannelBytes = 16;
// The implicit GEMM's tensor-map store of y (igemm::Config::tma_store): boxes of this many
// channels (128 bytes of 16-bit values, the widest row the 128-byte swizzle takes) by BM pixels.
constexpr int kStoreBoxChannels = 64;

}  // namespace hf
