#include "problem.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include <hipfuse/reference/batchnorm.h>

namespace hipfuse::driver {

const char* role_name(Role r) {
  switch (r) {
    case Role::input: return "input";
    case Role::output: return "output";
    case Role::weights: return "weights";
    case Role::bias: return "bias";
    case Role::residual: return "residual";
    case Role::bn_scale: return "scale";
    case Role::bn_bias: return "bn_bias";
    case Role::bn_mean: return "mean";
    case Role::bn_variance: return "variance";
    case Role::running_mean: return "running_mean";
    case Role::running_variance: return "running_variance";
    case Role::saved_mean: return "saved_mean";
    case Role::saved_inv_variance: return "saved_inv_variance";
    case Role::bn_x: return "x";
    case Role::activation_y: return "y";
    case Role::scale_diff: return "scale_diff";
    case Role::bias_diff: return "bias_diff";
  }
  return "?";
}

int64_t TensorInfo::elements() const { return ref::element_count(lengths); }
int64_t TensorInfo::storage_elements() const { return ref::storage_elements(lengths, strides); }
std::size_t TensorInfo::storage_bytes() const {
  return static_cast<std::size_t>(storage_elements()) * ref::size_of(dtype);
}

int Problem::find(Role role, int op) const {
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].role == role && tensors[i].op == op) return static_cast<int>(i);
  return -1;
}

std::size_t Problem::total_bytes() const {
  std::size_t sum = 0;
  for (const TensorInfo& t : tensors) sum += t.storage_bytes();
  return sum;
}

ref::DType to_ref(DType t) {
  switch (t) {
    case DType::f32: return ref::DType::f32;
    case DType::f16: return ref::DType::f16;
    case DType::bf16: return ref::DType::bf16;
  }
  throw std::invalid_argument("unknown dtype");
}

ref::Layout to_ref(Layout l) { return l == Layout::nhwc ? ref::Layout::nhwc : ref::Layout::nchw; }

bool is_backward_plan(const Case& c) {
  return std::any_of(c.ops.begin(), c.ops.end(),
                     [](const OpSpec& op) { return std::holds_alternative<BnBackwardSpec>(op); });
}

std::string shape_string(const std::vector<int64_t>& lengths) { return fmt::format("{}", fmt::join(lengths, "x")); }

int64_t bn_reduction_length(const std::vector<int64_t>& lengths, int bn_mode) {
  const int64_t n = lengths.empty() ? 1 : lengths[0];
  return bn_mode == kBnSpatial ? n * ref::spatial_size(lengths) : n;
}

namespace {

TensorInfo data_tensor(std::string name, Role role, Access access, int op, std::vector<int64_t> lengths,
                       const Case& c) {
  TensorInfo t;
  t.name = std::move(name);
  t.role = role;
  t.access = access;
  t.op = op;
  t.dtype = to_ref(c.dtype);
  t.layout = to_ref(c.layout);
  t.strides = ref::packed_strides(lengths, t.layout);
  t.lengths = std::move(lengths);
  return t;
}

// Parameters (bias, BN) are packed 1xCx1x1 / 1xCxHxW vectors: NCHW strides.
TensorInfo param_tensor(int op, Role role, Access access, std::vector<int64_t> lengths, ref::DType dtype) {
  TensorInfo t;
  t.name = fmt::format("op{}.{}", op, role_name(role));
  t.role = role;
  t.access = access;
  t.op = op;
  t.dtype = dtype;
  t.layout = ref::Layout::nchw;
  t.strides = ref::packed_strides(lengths, ref::Layout::nchw);
  t.lengths = std::move(lengths);
  return t;
}

std::string op_tensor_name(int op, Role role) { return fmt::format("op{}.{}", op, role_name(role)); }

}  // namespace

Problem make_problem(const Case& c) {
  Problem p;
  p.shapes = tensor_shapes(c);
  for (const auto& s : p.shapes)
    for (int64_t len : s)
      if (len < 1) throw std::invalid_argument(fmt::format("tensor shape {} has an empty dimension", shape_string(s)));
  p.tensors.push_back(data_tensor("input", Role::input, Access::read, -1, p.shapes.front(), c));
  p.tensors.push_back(data_tensor("output", Role::output, Access::write, -1, p.shapes.back(), c));

  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const int op = static_cast<int>(i);
    const std::vector<int64_t>& in = p.shapes[i];
    const std::vector<int64_t>& out = p.shapes[i + 1];
    const ref::DType pdt = bn_param_dtype(c.dtype);
    std::visit(
        [&](const auto& spec) {
          using T = std::decay_t<decltype(spec)>;
          auto bn_params = [&](int mode) {
            return ref::bn_param_lengths(in, mode == kBnSpatial ? ref::BnMode::spatial : ref::BnMode::per_activation);
          };
          if constexpr (std::is_same_v<T, ConvSpec>) {
            if (spec.groups < 1 || in[1] % spec.groups != 0)
              throw std::invalid_argument(fmt::format("conv: {} channels do not split into {} groups", in[1], spec.groups));
            std::vector<int64_t> w{spec.k, in[1] / spec.groups};
            w.insert(w.end(), spec.filter.begin(), spec.filter.end());
            p.tensors.push_back(data_tensor(op_tensor_name(op, Role::weights), Role::weights, Access::read, op, w, c));
          } else if constexpr (std::is_same_v<T, BiasSpec>) {
            std::vector<int64_t> b(in.size(), 1);
            b[1] = in[1];
            p.tensors.push_back(param_tensor(op, Role::bias, Access::read, b, bias_dtype(c.dtype)));
          } else if constexpr (std::is_same_v<T, ResidualAddSpec>) {
            p.tensors.push_back(
                data_tensor(op_tensor_name(op, Role::residual), Role::residual, Access::read, op, out, c));
          } else if constexpr (std::is_same_v<T, BnInferenceSpec>) {
            for (Role r : {Role::bn_scale, Role::bn_bias, Role::bn_mean, Role::bn_variance})
              p.tensors.push_back(param_tensor(op, r, Access::read, bn_params(spec.mode), pdt));
          } else if constexpr (std::is_same_v<T, BnForwardTrainingSpec>) {
            for (Role r : {Role::bn_scale, Role::bn_bias})
              p.tensors.push_back(param_tensor(op, r, Access::read, bn_params(spec.mode), pdt));
            for (Role r : {Role::saved_mean, Role::saved_inv_variance})
              p.tensors.push_back(param_tensor(op, r, Access::write, bn_params(spec.mode), pdt));
            if (spec.running_stats)
              for (Role r : {Role::running_mean, Role::running_variance})
                p.tensors.push_back(param_tensor(op, r, Access::read_write, bn_params(spec.mode), pdt));
          } else if constexpr (std::is_same_v<T, BnBackwardSpec>) {
            p.tensors.push_back(data_tensor(op_tensor_name(op, Role::bn_x), Role::bn_x, Access::read, op, in, c));
            for (Role r : {Role::bn_scale, Role::bn_bias, Role::saved_mean, Role::saved_inv_variance})
              p.tensors.push_back(param_tensor(op, r, Access::read, bn_params(spec.mode), pdt));
            for (Role r : {Role::scale_diff, Role::bias_diff})
              p.tensors.push_back(param_tensor(op, r, Access::write, bn_params(spec.mode), pdt));
          } else if constexpr (std::is_same_v<T, ActivationSpec>) {
            if (spec.backward)
              p.tensors.push_back(data_tensor(op_tensor_name(op, Role::activation_y), Role::activation_y,
                                              Access::read, op, in, c));
          }
        },
        c.ops[i]);
  }
  return p;
}

int64_t reduction_length(const Case& c) {
  int64_t longest = 1;
  const auto shapes = tensor_shapes(c);
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const auto& in = shapes[i];
    std::visit(
        [&](const auto& spec) {
          using T = std::decay_t<decltype(spec)>;
          if constexpr (std::is_same_v<T, ConvSpec>) {
            int64_t taps = in.size() > 1 && spec.groups > 0 ? in[1] / spec.groups : 1;
            for (int f : spec.filter) taps *= f;
            longest = std::max(longest, taps);
          } else if constexpr (std::is_same_v<T, BnForwardTrainingSpec> || std::is_same_v<T, BnBackwardSpec>) {
            longest = std::max(longest, bn_reduction_length(in, spec.mode));
          }
        },
        c.ops[i]);
  }
  return longest;
}

}  // namespace hipfuse::driver
