// Tensor shapes through a plan. Only conv changes the shape; every other op keeps it.

#include "case.h"

namespace hipfuse::driver {

int64_t spatial_dims(const Case& c) { return static_cast<int64_t>(c.input.size()) - 2; }

int64_t conv_output_size(int64_t in, int filter, int stride, int pad, int dilation) {
  if (stride < 1 || dilation < 1) return 0;  // not a geometry; callers validate first
  const int64_t span = int64_t{dilation} * (filter - 1) + 1;
  const int64_t room = in + 2 * int64_t{pad} - span;
  if (room < 0) return 0;  // the filter does not fit even once
  return room / stride + 1;
}

std::vector<int64_t> output_shape(const std::vector<int64_t>& in, const OpSpec& op) {
  const auto* conv = std::get_if<ConvSpec>(&op);
  if (!conv) return in;
  std::vector<int64_t> out{in.at(0), conv->k};
  for (size_t d = 0; d + 2 < in.size(); ++d)
    out.push_back(conv_output_size(in[d + 2], conv->filter.at(d), conv->stride.at(d), conv->pad.at(d),
                                   conv->dilation.at(d)));
  return out;
}

std::vector<int64_t> parameter_shape(const std::vector<int64_t>& in, const OpSpec& op) {
  const auto per_channel = [&] {
    std::vector<int64_t> shape(in.size(), 1);
    shape.at(1) = in.at(1);
    return shape;
  };
  const auto bn = [&](int mode) {
    if (mode == kBnSpatial) return per_channel();
    std::vector<int64_t> shape = in;
    shape.at(0) = 1;
    return shape;
  };
  if (const auto* conv = std::get_if<ConvSpec>(&op)) {
    std::vector<int64_t> shape{conv->k, in.at(1) / conv->groups};
    shape.insert(shape.end(), conv->filter.begin(), conv->filter.end());
    return shape;
  }
  if (std::holds_alternative<BiasSpec>(op)) return per_channel();
  if (std::holds_alternative<ResidualAddSpec>(op)) return in;
  if (const auto* p = std::get_if<BnInferenceSpec>(&op)) return bn(p->mode);
  if (const auto* p = std::get_if<BnForwardTrainingSpec>(&op)) return bn(p->mode);
  if (const auto* p = std::get_if<BnBackwardSpec>(&op)) return bn(p->mode);
  return {};  // activations have no parameter tensor
}

std::vector<std::vector<int64_t>> tensor_shapes(const Case& c) {
  std::vector<std::vector<int64_t>> shapes{c.input};
  for (const OpSpec& op : c.ops) shapes.push_back(output_shape(shapes.back(), op));
  return shapes;
}

}  // namespace hipfuse::driver
