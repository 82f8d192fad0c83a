#include "metrics.h"

#include <algorithm>
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

double conv_read_fraction(const ConvSpec& conv, const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  const std::size_t dims = in.size() < 3 ? 0 : in.size() - 2;
  if (out.size() != in.size() || conv.filter.size() != dims || conv.stride.size() != dims || conv.pad.size() != dims ||
      conv.dilation.size() != dims) {
    return 1;
  }
  double fraction = 1;
  for (std::size_t d = 0; d < dims; ++d) {
    const int64_t extent = in[d + 2];
    if (extent <= 0) return 1;
    std::vector<bool> read(static_cast<std::size_t>(extent), false);
    for (int64_t o = 0; o < out[d + 2]; ++o) {
      for (int f = 0; f < conv.filter[d]; ++f) {
        const int64_t i = o * conv.stride[d] - conv.pad[d] + static_cast<int64_t>(f) * conv.dilation[d];
        if (i >= 0 && i < extent) read[static_cast<std::size_t>(i)] = true;
      }
    }
    const auto count = std::count(read.begin(), read.end(), true);
    fraction *= static_cast<double>(count) / static_cast<double>(extent);
  }
  return fraction;
}

Work plan_work(const Case& c, const Problem& p) {
  Work w;
  // A convolution first in the plan reads only the input pixels its windows cover.
  const auto* first_conv = c.ops.empty() ? nullptr : std::get_if<ConvSpec>(&c.ops.front());
  const double input_read =
      first_conv != nullptr && p.shapes.size() > 1 ? conv_read_fraction(*first_conv, p.shapes[0], p.shapes[1]) : 1.0;
  for (const TensorInfo& t : p.tensors) {
    double bytes = static_cast<double>(t.elements()) * static_cast<double>(ref::size_of(t.dtype));
    if (t.op == -1 && t.access == Access::read) bytes *= input_read;  // the plan's input
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
