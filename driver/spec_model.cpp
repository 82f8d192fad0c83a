// The case model's small behaviours: equality, op kind names, the error message format.

#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "case.h"

namespace hipfuse::driver {

namespace {

std::string format_error(const std::string& file, int line, const std::string& key, const std::string& message) {
  std::string out = file;
  if (line > 0) out += fmt::format(":{}", line);
  out += ": ";
  if (!key.empty()) out += key + ": ";
  return out + message;
}

}  // namespace

SpecError::SpecError(std::string file_, int line_, std::string key_, std::string message_)
    : std::runtime_error(format_error(file_, line_, key_, message_)),
      file(std::move(file_)),
      line(line_),
      key(std::move(key_)),
      message(std::move(message_)) {}

bool operator==(const ConvSpec& a, const ConvSpec& b) {
  return std::tie(a.k, a.filter, a.stride, a.pad, a.dilation, a.groups) ==
         std::tie(b.k, b.filter, b.stride, b.pad, b.dilation, b.groups);
}
bool operator==(const BiasSpec&, const BiasSpec&) { return true; }
bool operator==(const ResidualAddSpec& a, const ResidualAddSpec& b) { return a.alpha == b.alpha; }
bool operator==(const BnInferenceSpec& a, const BnInferenceSpec& b) {
  return std::tie(a.mode, a.epsilon) == std::tie(b.mode, b.epsilon);
}
bool operator==(const BnForwardTrainingSpec& a, const BnForwardTrainingSpec& b) {
  return std::tie(a.mode, a.epsilon, a.exp_avg_factor, a.running_stats) ==
         std::tie(b.mode, b.epsilon, b.exp_avg_factor, b.running_stats);
}
bool operator==(const BnBackwardSpec& a, const BnBackwardSpec& b) { return a.mode == b.mode; }
bool operator==(const ActivationSpec& a, const ActivationSpec& b) {
  return std::tie(a.mode, a.alpha, a.beta, a.gamma, a.backward) ==
         std::tie(b.mode, b.alpha, b.beta, b.gamma, b.backward);
}
bool operator==(const InitSpec& a, const InitSpec& b) {
  return std::tie(a.distribution, a.min, a.max, a.mean, a.stddev, a.seed) ==
         std::tie(b.distribution, b.min, b.max, b.mean, b.stddev, b.seed);
}
bool operator==(const TimingSpec& a, const TimingSpec& b) {
  return std::tie(a.warmup, a.iters) == std::tie(b.warmup, b.iters);
}
bool operator==(const VerifySpec& a, const VerifySpec& b) {
  return std::tie(a.mode, a.samples, a.tolerance) == std::tie(b.mode, b.samples, b.tolerance);
}
bool operator==(const Case& a, const Case& b) {
  return std::tie(a.name, a.input, a.dtype, a.layout, a.ops, a.init, a.timing, a.verify) ==
         std::tie(b.name, b.input, b.dtype, b.layout, b.ops, b.init, b.timing, b.verify);
}

std::string_view op_kind_name(const OpSpec& op) {
  return std::visit(
      [](const auto& o) -> std::string_view {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, ConvSpec>) return "conv";
        if constexpr (std::is_same_v<T, BiasSpec>) return "bias";
        if constexpr (std::is_same_v<T, ResidualAddSpec>) return "residual_add";
        if constexpr (std::is_same_v<T, BnInferenceSpec>) return "bn_inference";
        if constexpr (std::is_same_v<T, BnForwardTrainingSpec>) return "bn_forward_training";
        if constexpr (std::is_same_v<T, BnBackwardSpec>) return "bn_backward";
        if constexpr (std::is_same_v<T, ActivationSpec>) return o.backward ? "activation_backward" : "activation";
      },
      op);
}

}  // namespace hipfuse::driver
