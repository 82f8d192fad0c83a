#include "host_data.h"

#include <cmath>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include <hipfuse/reference/activation.h>
#include <hipfuse/reference/batchnorm.h>
#include <hipfuse/reference/fill.h>
#include <hipfuse/reference/random.h>

namespace hipfuse::driver {

std::uint64_t tensor_seed(std::uint64_t init_seed, std::size_t index) {
  ref::SplitMix64 g(init_seed ^ (0xD1B54A32D192ED03ull * (index + 1)));
  return g.next();
}

namespace {

void fill_from_init(ref::Tensor& t, const InitSpec& init, std::uint64_t seed, ref::DType dtype) {
  if (init.distribution == "normal") {
    ref::fill_normal(t, init.mean, init.stddev, seed, dtype);
  } else if (init.distribution == "integer") {
    const double lo = std::ceil(init.min), hi = std::floor(init.max);
    if (!(lo <= hi)) throw std::invalid_argument(fmt::format("init: no integer in [{}, {}]", init.min, init.max));
    ref::fill_integers(t, static_cast<int>(lo), static_cast<int>(hi), seed);
    ref::round_all(t, dtype);
  } else {
    ref::fill_uniform(t, init.min, init.max, seed, dtype);
  }
}

ref::BnMode bn_mode(int mode) { return mode == kBnSpatial ? ref::BnMode::spatial : ref::BnMode::per_activation; }

const ref::Tensor& value(const Problem& p, const HostData& h, Role role, int op) {
  const int i = p.find(role, op);
  if (i < 0) throw std::logic_error(fmt::format("no {} tensor for op {}", role_name(role), op));
  return h.values[static_cast<std::size_t>(i)];
}

}  // namespace

HostData make_host_data(const Case& c, const Problem& p) {
  HostData h;
  h.values.resize(p.tensors.size());
  // First pass: everything drawn at random.
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const TensorInfo& info = p.tensors[i];
    ref::Tensor& t = h.values[i];
    t.lengths = info.lengths;
    if (info.access == Access::write) continue;
    if (info.role == Role::saved_mean || info.role == Role::saved_inv_variance || info.role == Role::activation_y)
      continue;  // derived below
    t = ref::make_tensor(info.lengths, 0.0);
    const std::uint64_t seed = tensor_seed(c.init.seed, i);
    if (info.role == Role::bn_variance || info.role == Role::running_variance)
      ref::fill_uniform(t, kVarianceMin, kVarianceMax, seed, info.dtype);
    else
      fill_from_init(t, c.init, seed, info.dtype);
  }
  // Second pass: what a BN backward plan needs consistent with its x.
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const int op = static_cast<int>(i);
    const auto* bwd = std::get_if<BnBackwardSpec>(&c.ops[i]);
    if (!bwd) continue;
    const ref::Tensor& x = value(p, h, Role::bn_x, op);
    const ref::Tensor& scale = value(p, h, Role::bn_scale, op);
    const ref::Tensor& bias = value(p, h, Role::bn_bias, op);
    const int im = p.find(Role::saved_mean, op), iv = p.find(Role::saved_inv_variance, op);
    ref::Tensor& mean = h.values[static_cast<std::size_t>(im)];
    ref::Tensor& inv_std = h.values[static_cast<std::size_t>(iv)];
    mean = ref::make_tensor(p.tensors[static_cast<std::size_t>(im)].lengths);
    inv_std = ref::make_tensor(p.tensors[static_cast<std::size_t>(iv)].lengths);
    (void)ref::bn_forward_training(x, bn_mode(bwd->mode), scale, bias, kBackwardEpsilon, 0.0, nullptr, mean, inv_std);
    ref::round_all(mean, p.tensors[static_cast<std::size_t>(im)].dtype);
    ref::round_all(inv_std, p.tensors[static_cast<std::size_t>(iv)].dtype);
    if (i + 1 < c.ops.size()) {
      const auto* act = std::get_if<ActivationSpec>(&c.ops[i + 1]);
      const int iy = p.find(Role::activation_y, op + 1);
      if (act && act->backward && iy >= 0) {
        const ref::Tensor z = ref::bn_normalize(x, bn_mode(bwd->mode), scale, bias, mean, inv_std);
        ref::Tensor y = ref::activation_forward(z, static_cast<ref::ActivationMode>(act->mode), act->alpha,
                                                act->beta, act->gamma);
        ref::round_all(y, p.tensors[static_cast<std::size_t>(iy)].dtype);
        h.values[static_cast<std::size_t>(iy)] = std::move(y);
      }
    }
  }
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const TensorInfo& info = p.tensors[i];
    if (info.access != Access::write && h.values[i].data.empty())
      throw std::invalid_argument(fmt::format("{}: no data (an activation backward must follow a BN backward)", info.name));
  }
  return h;
}

std::vector<ref::Op> reference_ops(const Case& c, const Problem& p, const HostData& h) {
  std::vector<ref::Op> ops;
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const int op = static_cast<int>(i);
    auto get = [&](Role r) { return value(p, h, r, op); };
    std::visit(
        [&](const auto& spec) {
          using T = std::decay_t<decltype(spec)>;
          if constexpr (std::is_same_v<T, ConvSpec>) {
            ref::ConvOp o;
            o.weights = get(Role::weights);
            o.geometry.pad.assign(spec.pad.begin(), spec.pad.end());
            o.geometry.stride.assign(spec.stride.begin(), spec.stride.end());
            o.geometry.dilation.assign(spec.dilation.begin(), spec.dilation.end());
            o.geometry.groups = spec.groups;
            ops.emplace_back(std::move(o));
          } else if constexpr (std::is_same_v<T, BiasSpec>) {
            ops.emplace_back(ref::BiasOp{get(Role::bias)});
          } else if constexpr (std::is_same_v<T, ResidualAddSpec>) {
            ops.emplace_back(ref::ResidualAddOp{get(Role::residual), spec.alpha});
          } else if constexpr (std::is_same_v<T, BnInferenceSpec>) {
            ref::BnInferenceOp o;
            o.mode = bn_mode(spec.mode);
            o.scale = get(Role::bn_scale);
            o.bias = get(Role::bn_bias);
            o.mean = get(Role::bn_mean);
            o.var = get(Role::bn_variance);
            o.epsilon = spec.epsilon;
            ops.emplace_back(std::move(o));
          } else if constexpr (std::is_same_v<T, BnForwardTrainingSpec>) {
            ref::BnForwardTrainingOp o;
            o.mode = bn_mode(spec.mode);
            o.scale = get(Role::bn_scale);
            o.bias = get(Role::bn_bias);
            o.epsilon = spec.epsilon;
            o.exp_avg_factor = spec.exp_avg_factor;
            if (spec.running_stats) o.running = ref::RunningStats{get(Role::running_mean), get(Role::running_variance)};
            const auto& lengths = p.tensors[static_cast<std::size_t>(p.find(Role::saved_mean, op))].lengths;
            o.saved_mean = ref::make_tensor(lengths);
            o.saved_inv_var = ref::make_tensor(lengths);
            ops.emplace_back(std::move(o));
          } else if constexpr (std::is_same_v<T, BnBackwardSpec>) {
            ref::BnBackwardOp o;
            o.mode = bn_mode(spec.mode);
            o.x = get(Role::bn_x);
            o.scale = get(Role::bn_scale);
            o.bias = get(Role::bn_bias);
            o.saved_mean = get(Role::saved_mean);
            o.saved_inv_var = get(Role::saved_inv_variance);
            o.dscale = ref::make_tensor(o.scale.lengths);
            o.dbias = ref::make_tensor(o.scale.lengths);
            ops.emplace_back(std::move(o));
          } else if constexpr (std::is_same_v<T, ActivationSpec>) {
            const auto mode = static_cast<ref::ActivationMode>(spec.mode);
            if (spec.backward)
              ops.emplace_back(ref::ActivationBackwardOp{mode, spec.alpha, spec.beta, spec.gamma, get(Role::activation_y)});
            else
              ops.emplace_back(ref::ActivationForwardOp{mode, spec.alpha, spec.beta, spec.gamma});
          }
        },
        c.ops[i]);
  }
  return ops;
}

std::vector<std::uint8_t> to_bytes(const ref::Tensor& t, const TensorInfo& info) {
  std::vector<std::uint8_t> bytes(info.storage_bytes());
  ref::to_storage(t, info.dtype, info.strides, bytes.data());
  return bytes;
}

ref::Tensor from_bytes(const std::vector<std::uint8_t>& bytes, const TensorInfo& info) {
  if (bytes.size() != info.storage_bytes()) throw std::logic_error("from_bytes: size mismatch");
  return ref::from_storage(bytes.data(), info.dtype, info.lengths, info.strides);
}

double element_at(const std::vector<std::uint8_t>& bytes, const TensorInfo& info, int64_t linear) {
  const std::vector<int64_t> index = ref::multi_index(info.lengths, linear);
  int64_t offset = 0;
  for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * info.strides[d];
  return ref::decode(info.dtype, bytes.data() + static_cast<std::size_t>(offset) * ref::size_of(info.dtype));
}

int64_t count_unwritten(const std::vector<std::uint8_t>& bytes, const TensorInfo& info) {
  // Packed tensors (all of the driver's) address every element of their storage.
  if (info.storage_elements() == info.elements())
    return ref::count_poison(info.dtype, bytes.data(), info.elements());
  int64_t n = 0;
  for (int64_t i = 0; i < info.elements(); ++i) {
    const std::vector<int64_t> index = ref::multi_index(info.lengths, i);
    int64_t offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * info.strides[d];
    n += ref::is_poison(info.dtype, bytes.data() + static_cast<std::size_t>(offset) * ref::size_of(info.dtype));
  }
  return n;
}

}  // namespace hipfuse::driver
