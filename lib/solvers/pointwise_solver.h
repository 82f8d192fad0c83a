// Family 2: pointwise chains without a convolution (bias / BN inference / activation /
// residual add in any order, up to hf::kMaxChainSteps ops): kernels/pointwise.hip.
#pragma once

#include "solvers/solver.h"

namespace hipfuse {

class PointwiseSolver final : public Solver {
 public:
  const char* name() const override { return "PointwiseChain"; }
  Applicability applies(const FusionPlan& plan, const Target& target) const override;
  std::vector<rt::KernelRequest> kernels(const FusionPlan& plan, const Target& target) const override;
  std::unique_ptr<Invoker> build(const FusionPlan& plan, const Target& target,
                                 std::vector<rt::CompileReport>& reports) const override;
};

}  // namespace hipfuse
