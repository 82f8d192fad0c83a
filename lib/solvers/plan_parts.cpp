#include "solvers/plan_parts.h"

#include "common/kernel_args.h"

namespace hipfuse {

namespace {

// Where a non-pointwise op may stand in a fused plan.
std::string placement_rule(const FusionOp& op) {
  if (is_a<ConvForwardOp>(op)) return "one convolution fuses with pointwise ops before and after it";
  if (is_a<BatchNormForwardTrainingOp>(op)) return "BN forward training fuses only as the first op";
  if (is_a<BatchNormBackwardOp>(op)) return "BN backward fuses only as the first op";
  return "activation backward fuses only as [BN backward, activation backward]";
}

}  // namespace

bool is_pointwise_forward(const Op& op) {
  return std::holds_alternative<BiasForwardOp>(op) || std::holds_alternative<BatchNormInferenceOp>(op) ||
         std::holds_alternative<ActivationForwardOp>(op) || std::holds_alternative<ResidualAddOp>(op);
}

PlanParts split_at_convolution(const FusionPlan& plan) {
  PlanParts parts;
  for (const auto& op : plan.ops()) {
    if (parts.conv == nullptr && is_a<ConvForwardOp>(*op)) {
      parts.conv = op.get();
    } else {
      (parts.conv == nullptr ? parts.prologue : parts.epilogue).push_back(op.get());
    }
  }
  return parts;
}

std::optional<std::string> unsupported_data_type(const FusionPlan& plan) {
  const DataType t = plan.input().type;
  if (t == DataType::float32 || t == DataType::half || t == DataType::bfloat16) return std::nullopt;
  return std::string("data type ") + name_of(t) + " is not supported (fused kernels take fp32, fp16 and bf16)";
}

std::optional<std::string> unfusable_chain(const std::vector<const FusionOp*>& ops) {
  for (const FusionOp* op : ops) {
    if (!is_pointwise_forward(op->op)) return name_op(*op) + " is not a pointwise op (" + placement_rule(*op) + ")";
  }
  if (ops.size() > static_cast<std::size_t>(hf::kMaxChainSteps)) {
    return std::to_string(ops.size()) + " pointwise ops; at most " + std::to_string(hf::kMaxChainSteps) +
           " fuse into one kernel";
  }
  return std::nullopt;
}

std::string name_op(const FusionOp& op) { return "op " + std::to_string(op.index) + " (" + describe(op.op) + ")"; }

}  // namespace hipfuse
