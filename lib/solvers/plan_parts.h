// What the solvers' applicability checks share: the op kinds a plan is made of, where its
// convolution sits, the data types the kernels take. Pure functions of the plan, no GPU.
#pragma once

#include "plan/fusion_plan.h"
#include "solvers/solver.h"

#include <optional>
#include <string>
#include <vector>

namespace hipfuse {

// Ops that transform each value on its own (bias, BN inference, activation forward,
// residual add): what a chain (kernels/common/pointwise_chain.h) fuses.
bool is_pointwise_forward(const Op& op);

template <class T>
bool is_a(const FusionOp& op) {
  return std::holds_alternative<T>(op.op);
}

// A plan as [prologue ops] [convolution] [epilogue ops]; without a convolution everything
// is in `prologue` and conv is null.
struct PlanParts {
  std::vector<const FusionOp*> prologue;
  const FusionOp* conv = nullptr;
  std::vector<const FusionOp*> epilogue;
};
PlanParts split_at_convolution(const FusionPlan& plan);

// Why the plan's data type cannot run (only fp32, fp16 and bf16 can); nullopt when it can.
std::optional<std::string> unsupported_data_type(const FusionPlan& plan);

// Why `ops` cannot be one fused chain (an op that is not pointwise, or more than
// hf::kMaxChainSteps of them); nullopt when they can.
std::optional<std::string> unfusable_chain(const std::vector<const FusionOp*>& ops);

// "op 2 (activ_bwd(relu))": how reasons name an op.
std::string name_op(const FusionOp& op);

}  // namespace hipfuse
