#include "plan/driver_command.h"

#include <fmt/format.h>

#include <type_traits>
#include <vector>

namespace hipfuse {
namespace {

template <typename T>
std::string list(const std::vector<T>& values) {
  return fmt::format("[{}]", fmt::join(values, ", "));
}

std::string op_table(const Op& op) {
  return std::visit(
      [](const auto& o) -> std::string {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, ConvForwardOp>) {
          const auto& w = o.weights.lengths;
          std::vector<std::int64_t> filter(w.begin() + 2, w.end());
          return fmt::format("kind = \"conv\"\nk = {}\nfilter = {}\nstride = {}\npad = {}\ndilation = {}\ngroups = {}\n",
                             w[0], list(filter), list(o.conv.strides), list(o.conv.pads), list(o.conv.dilations),
                             o.conv.groups);
        } else if constexpr (std::is_same_v<T, BiasForwardOp>) {
          return "kind = \"bias\"\n";
        } else if constexpr (std::is_same_v<T, ResidualAddOp>) {
          return "kind = \"residual_add\"\n";
        } else if constexpr (std::is_same_v<T, ActivationForwardOp>) {
          return fmt::format("kind = \"activation\"\nmode = \"{}\"\n", name_of(o.mode));
        } else if constexpr (std::is_same_v<T, ActivationBackwardOp>) {
          return fmt::format("kind = \"activation_backward\"\nmode = \"{}\"\n", name_of(o.mode));
        } else if constexpr (std::is_same_v<T, BatchNormInferenceOp>) {
          return fmt::format("kind = \"bn_inference\"\nmode = \"{}\"\n", name_of(o.mode));
        } else if constexpr (std::is_same_v<T, BatchNormForwardTrainingOp>) {
          return fmt::format("kind = \"bn_forward_training\"\nmode = \"{}\"\nrunning_stats = {}\n", name_of(o.mode),
                             o.running_stats ? "true" : "false");
        } else {
          static_assert(std::is_same_v<T, BatchNormBackwardOp>);
          return fmt::format("kind = \"bn_backward\"\nmode = \"{}\"\n", name_of(o.mode));
        }
      },
      op);
}

}  // namespace

std::string driver_command(const FusionPlan& plan) {
  const TensorDesc& x = plan.input();
  std::string spec = fmt::format("name = \"logged_plan\"\ndtype = \"{}\"\nlayout = \"{}\"\ninput = {}\n", name_of(x.type),
                                 x.is_channels_last() ? "nhwc" : "nchw", list(x.lengths));
  for (const auto& op : plan.ops()) spec += "\n[[op]]\n" + op_table(op->op);
  std::string note = x.is_packed() ? "" : "  # the plan's input strides are not packed; the command uses packed ones";
  return "fusiondriver run --spec-text '" + spec + "'" + note;
}

}  // namespace hipfuse
