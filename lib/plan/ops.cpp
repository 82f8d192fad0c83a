#include "plan/ops.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace hipfuse {

namespace {
template <class... Fs> struct overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> overloaded(Fs...) -> overloaded<Fs...>;
}  // namespace

const char* name_of(ActivationMode mode) {
  switch (mode) {
    case ActivationMode::passthru: return "passthru";
    case ActivationMode::logistic: return "logistic";
    case ActivationMode::tanh: return "tanh";
    case ActivationMode::relu: return "relu";
    case ActivationMode::softrelu: return "softrelu";
    case ActivationMode::abs: return "abs";
    case ActivationMode::power: return "power";
    case ActivationMode::clippedrelu: return "clippedrelu";
    case ActivationMode::leakyrelu: return "leakyrelu";
    case ActivationMode::elu: return "elu";
  }
  return "invalid";
}

const char* name_of(BatchNormMode mode) {
  switch (mode) {
    case BatchNormMode::per_activation: return "per_activation";
    case BatchNormMode::spatial: return "spatial";
  }
  return "invalid";
}

bool is_valid(ActivationMode mode) {
  return static_cast<int>(mode) >= 0 && static_cast<int>(mode) < kActivationModeCount;
}

TensorDesc batch_norm_params(const TensorDesc& x, BatchNormMode mode) {
  std::vector<std::int64_t> lengths(x.lengths.size(), 1);
  lengths[1] = x.lengths[1];
  if (mode == BatchNormMode::per_activation) {
    for (std::size_t d = 2; d < lengths.size(); ++d) lengths[d] = x.lengths[d];
  }
  return TensorDesc::packed(DataType::float32, std::move(lengths), Layout::nchw);
}

bool is_valid(BatchNormMode mode) { return mode == BatchNormMode::per_activation || mode == BatchNormMode::spatial; }

std::string describe(const Op& op) {
  return std::visit(
      overloaded{
          [](const ConvForwardOp& o) { return "conv(" + o.conv.to_string() + ", w " + o.weights.to_string() + ")"; },
          [](const BiasForwardOp&) { return std::string("bias"); },
          [](const ActivationForwardOp& o) { return std::string("activ_fwd(") + name_of(o.mode) + ")"; },
          [](const ActivationBackwardOp& o) { return std::string("activ_bwd(") + name_of(o.mode) + ")"; },
          [](const BatchNormInferenceOp& o) { return std::string("bn_infer(") + name_of(o.mode) + ")"; },
          [](const BatchNormForwardTrainingOp& o) {
            return std::string("bn_fwd_train(") + name_of(o.mode) + (o.running_stats ? ", running" : "") + ")";
          },
          [](const BatchNormBackwardOp& o) { return std::string("bn_bwd(") + name_of(o.mode) + ")"; },
          [](const ResidualAddOp&) { return std::string("residual_add"); },
      },
      op);
}

const char* kind_name(const Op& op) {
  static constexpr const char* names[] = {"ConvForward",        "BiasForward",      "ActivationForward",
                                          "ActivationBackward", "BatchNormInference", "BatchNormForward",
                                          "BatchNormBackward",  "ResidualAdd"};
  static_assert(sizeof(names) / sizeof(names[0]) == std::variant_size_v<Op>);
  return names[op.index()];
}

}  // namespace hipfuse
