// Family 3: BN forward training followed by any pointwise chain (NA forward training:
// [BN forward training, activation]), spatial and per-activation:
// kernels/bn_forward_training.hip. Writes saved mean / inverse std always and the running
// statistics only when the op was created with them.
#pragma once

#include "solvers/solver.h"

namespace hipfuse {

class BnTrainingSolver final : public Solver {
 public:
  const char* name() const override { return "BnForwardTrainingFused"; }
  Applicability applies(const FusionPlan& plan, const Target& target) const override;
  std::vector<rt::KernelRequest> kernels(const FusionPlan& plan, const Target& target) const override;
  std::unique_ptr<Invoker> build(const FusionPlan& plan, const Target& target,
                                 std::vector<rt::CompileReport>& reports) const override;
};

}  // namespace hipfuse
