// Family 2: implicit-GEMM convolution with the same fused prologue / epilogue chain as the
// direct family (kernels/common/pointwise_chain.h), for 2-D convolutions:
//   fp16 / bf16 on the matrix units (kernels/conv_igemm.hip: mma.sync m16n8k16, fp32
//   accumulators, cp.async multistage pipeline; on Hopper, for compute-bound layers, warpgroup
//   wgmma tiles compiled for sm_90a that read both operands from the swizzled shared memory),
//   fp32 in true fp32 on the CUDA cores (kernels/conv_igemm_simt.hip), or on the matrix units
//   as tf32 only when the convolution descriptor's allow_tf32 is set (opt-in).
// Tried before the direct solver; where it does not apply (3-D, transposed, narrow groups,
// matrix units unavailable) the reason says why and the direct kernel takes the plan.
// Tiles come from a fixed shape heuristic (conv_implicit_gemm_config.h), no autotuning.
#pragma once

#include "solvers/conv_implicit_gemm_config.h"
#include "solvers/solver.h"

#include <optional>
#include <string>

namespace hipfuse {

class ConvImplicitGemmSolver final : public Solver {
 public:
  const char* name() const override { return "ConvImplicitGemm"; }
  Applicability applies(const FusionPlan& plan, const Target& target) const override;
  std::vector<rt::KernelRequest> kernels(const FusionPlan& plan, const Target& target) const override;
  std::unique_ptr<Invoker> build(const FusionPlan& plan, const Target& target,
                                 std::vector<rt::CompileReport>& reports) const override;

  // The GEMM problem of a plan, or the reason it has none (for tests and the solver).
  static std::optional<igemm::Problem> problem_of(const FusionPlan& plan, std::string* why);
  // The problem the GEMM kernel runs under `config`: the plan's, or its folded form (igemm::WidthFold).
  static igemm::Problem gemm_problem_of(const FusionPlan& plan, const igemm::Config& config);
  // The configuration build() uses for `plan` on `target`; `force_tile` as in choose_config.
  static igemm::Config config_for(const FusionPlan& plan, const Target& target, const std::string& force_tile = {});
  // The kernel request for a plan with a given configuration (tests compile every tile).
  static rt::KernelRequest request_for(const FusionPlan& plan, const igemm::Config& config);
  // The re-layout kernels' requests: the weights (pack_weights) or x (pack_input).
  static rt::KernelRequest pack_request_for(const FusionPlan& plan, const igemm::Config& config, bool input);
  // build() with a given configuration (tests and benchmarks run every tile through it).
  static std::unique_ptr<Invoker> build_with(const FusionPlan& plan, const Target& target,
                                             const igemm::Config& config, std::vector<rt::CompileReport>& reports);
};

}  // namespace hipfuse
