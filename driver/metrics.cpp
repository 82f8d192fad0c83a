#include "metrics.h"

#include <type_traits>

#include <hipfuse/reference/tensor.h>

namespace hipfuse::driver {

double conv_flops(const ConvSpec& conv, const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  if (in.size() < 3 || out.size() != in.size() || conv.groups < 1) return 0;
  double taps = 1;
  for (int f : conv.filter) taps *= f;
  const double out_elements = static_cast<double>(ref::element_count(out));  // N * K * out_spatial
  return 2.0 * out_elements * static_cast<double>(in[1] / conv.groups) * taps;
}

Work plan_work(const Case& c, const Problem& p) {
  Work w;
  for (const TensorInfo& t : p.tensors) {
    const double bytes = static_cast<double>(t.elements()) * static_cast<double>(ref::size_of(t.dtype));
    w.bytes += t.access == Access::read_write ? 2 * bytes : bytes;
  }
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const auto& in = p.shapes[i];
    const auto& out = p.shapes[i + 1];
    const double n_out = static_cast<double>(ref::element_count(out));
    std::visit(
        [&](const auto& spec) {
          using T = std::decay_t<decltype(spec)>;
          const PointwiseFlops& f = kPointwiseFlops;
          if constexpr (std::is_same_v<T, ConvSpec>) w.flops += conv_flops(spec, in, out);
          if constexpr (std::is_same_v<T, BiasSpec>) w.flops += f.bias * n_out;
          if constexpr (std::is_same_v<T, ResidualAddSpec>) w.flops += f.residual_add * n_out;
          if constexpr (std::is_same_v<T, BnInferenceSpec>) w.flops += f.bn_inference * n_out;
          if constexpr (std::is_same_v<T, BnForwardTrainingSpec>) w.flops += f.bn_forward_training * n_out;
          if constexpr (std::is_same_v<T, BnBackwardSpec>) w.flops += f.bn_backward * n_out;
          if constexpr (std::is_same_v<T, ActivationSpec>)
            w.flops += (spec.backward ? f.activation_backward : f.activation) * n_out;
        },
        c.ops[i]);
  }
  return w;
}

double gb_per_s(double bytes, double microseconds) { return microseconds > 0 ? bytes / (microseconds * 1e3) : 0; }
double tflop_per_s(double flops, double microseconds) {
  return microseconds > 0 ? flops / (microseconds * 1e6) : 0;
}

}  // namespace hipfuse::driver
