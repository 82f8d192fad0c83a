// Family 4: BN backward training, alone or as MIOpen declares the fused pair
// [BN backward, activation backward] (computed dy -> activation backward -> BN backward),
// spatial and per-activation: kernels/bn_backward.hip. Writes dx, dScale and dBias.
#pragma once

#include "solvers/solver.h"

namespace hipfuse {

class BnBackwardSolver final : public Solver {
 public:
  const char* name() const override { return "BnBackwardFused"; }
  Applicability applies(const FusionPlan& plan, const Target& target) const override;
  std::vector<rt::KernelRequest> kernels(const FusionPlan& plan, const Target& target) const override;
  std::unique_ptr<Invoker> build(const FusionPlan& plan, const Target& target,
                                 std::vector<rt::CompileReport>& reports) const override;
};

}  // namespace hipfuse
