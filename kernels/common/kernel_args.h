// The argument structs the kernels take by value (one per kernel). Plain data only (no hf::
// device types), so the host packer (lib/solvers) and the device code share this one
// definition of the ABI. Pointers are untyped: the plan header (hf_plan.h) says what they hold.
#pragma once

namespace hf {

// At most this many pointwise ops fuse into one kernel (prologue and epilogue together).
constexpr int kMaxChainSteps = 8;

// The run-time arguments of one pointwise op of a chain. Which fields mean what depends on
// the op kind (kernels/common/pointwise_chain.h):
//   bias:          ptr[0] = bias (K values)
//   BN inference:  ptr[0..3] = scale, bias, mean, variance; scalar[0] = epsilon
//   activation:    scalar[0..2] = alpha, beta, gamma
//   residual add:  ptr[0] = z; scalar[0] = alpha
struct StepArgs {
  const void* ptr[4];
  float scalar[3];
};

struct ChainArgs {
  StepArgs step[kMaxChainSteps];
};

// kernels/pointwise.hip
struct PointwiseArgs {
  const void* x;
  void* y;
  int vector_ok;  // every pointer is 16-byte aligned: the 16-byte path may run
  ChainArgs chain;
};

// A tensor map for the Hopper tensor-memory-accelerator copies: opaque, 128 bytes, 128-byte
// aligned, written on the host (rt::encode_tensor_map_2d) and read by the copy instruction
// from the kernel's parameter space.
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};

// kernels/conv_direct.hip, conv_igemm.hip, conv_igemm_simt.hip
struct ConvArgs {
  const void* x;
  const void* w;
  void* y;
  float alpha;  // scales the convolution before the epilogue (ConvForwardArgs::alpha, 1 in plans)
  ChainArgs chain;
  // Stream-K implicit GEMM (conv_igemm.hip, hfi::StreamKBlocks > 0) only: invoker scratch for
  // the partial accumulators of output tiles shared by several blocks, and one counter per
  // output tile (zero between launches).
  float* partials;
  unsigned int* tile_counters;
  // Warp-specialised implicit GEMM with tensor-map copies (hfi::TmaA / TmaB) only: x as a
  // pixels x channels matrix, the weights as a K x (R*S*C/G) matrix, both boxed into 128-byte
  // swizzled k-tile rows.
  TensorMap a_map, b_map;
  // With hfi::TmaStore: y as a pixels x channels matrix, boxed into BM rows of 64 channels
  // (128-byte swizzled), stored from the epilogue's staging.
  TensorMap y_map;
  // Implicit GEMM behind a streamed re-layout (hfi::StreamInput) only: the re-layout's ready
  // counters (common/ready_counters.h), waited on per tile instead of waiting for its launch.
  unsigned int* input_ready;
};

// The phases of the BN training kernels (one kernel, launched once per phase).
enum BnPhase : int {
  kBnReduce = 0,    // per-column partial reductions (with one partial: the whole job, fused)
  kBnFinalize = 1,  // merges the partials in fp64 into the op's outputs
  kBnApply = 2,     // the element-wise pass that reads those outputs back (or, with
                    // Tiling::apply_merges, merges the partials itself: no finalize launch)
};

// kernels/bn_forward_training.hip
struct BnForwardArgs {
  const void* x;
  void* y;
  const void* scale;
  const void* bias;
  void* saved_mean;
  void* saved_inv_variance;
  void* running_mean;
  void* running_variance;
  float* partials;  // scratch owned by the invoker (null with one partial)
  // Tiling::exchange: a counter per column tile, then the ticket and retirement counters;
  // zero between launches (the last block re-zeroes them). Null otherwise.
  unsigned* counters;
  float epsilon;
  float exp_avg_factor;
  int phase;
  int vector_ok;    // x and y are 16-byte aligned (the kernel may use vector accesses)
  ChainArgs chain;  // the pointwise ops after the BN
};

// kernels/bn_backward.hip
struct BnBackwardArgs {
  const void* dy;
  void* dx;
  const void* x;
  const void* scale;
  const void* bias;
  void* scale_diff;
  void* bias_diff;
  const void* saved_mean;
  const void* saved_inv_variance;
  const void* y;  // the forward activation's output (activation backward only)
  float* partials;
  float act_alpha, act_beta, act_gamma;
  int phase;
  int vector_ok;  // dy, dx, x and y are 16-byte aligned (the kernel may use vector accesses)
};

}  // namespace hf
