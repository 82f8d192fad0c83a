// Family 1: a direct convolution with a fused pointwise prologue (on the input as it is
// loaded, before the zero padding) and epilogue (on the output), in plan order:
// kernels/conv_direct.hip. Any filter, stride, padding, dilation and group count, 2-D and
// 3-D, any strides; fp32 / fp16 / bf16 with fp32 accumulation (true fp32, no TF32).
#pragma once

#include "solvers/solver.h"

namespace hipfuse {

class ConvDirectSolver final : public Solver {
 public:
  const char* name() const override { return "ConvDirectFused"; }
  Applicability applies(const FusionPlan& plan, const Target& target) const override;
  std::vector<rt::KernelRequest> kernels(const FusionPlan& plan, const Target& target) const override;
  std::unique_ptr<Invoker> build(const FusionPlan& plan, const Target& target,
                                 std::vector<rt::CompileReport>& reports) const override;
};

}  // namespace hipfuse
