// The rules every case passes before any GPU work. docs/spec-format.md ("Validation rules")
// lists the same rules under the same numbers: keep the two in step.
//
//  R1 input: 4 or 5 lengths (N, C, [D,] H, W), each in [1, 2^31-1].
//  R2 at least one enabled op.
//  R3 plan shape:
//     a. activation_backward comes directly after bn_backward (MIOpen declares the backward
//        plan as [bn_backward, activation_backward]);
//     b. a plan with backward ops holds no forward ops (its input is dy);
//     c. at most one BN training op (bn_forward_training, bn_backward), and none beside a conv.
//  R4 conv: k >= 1, groups >= 1; filter, stride, pad, dilation give one value per spatial dim;
//     filter, stride, dilation >= 1, pad >= 0; groups divides k and the channels reaching the
//     conv; every output length >= 1.
//  R5 every tensor the plan makes (each op's output and parameter tensor, the latter shaped from
//     the tensor reaching the op by parameter_shape()) has lengths in [1, 2^31-1]: MIOpen
//     descriptors take int lengths.
//  R6 BN: epsilon > 0; exp_avg_factor in [0, 1].
//  R7 init: uniform needs min < max; integer needs whole numbers min <= max; normal needs stddev > 0.
//  R8 timing: warmup >= 0, iters >= 1. verify: samples >= 1; tolerance > 0 when given.
// Names (dtype, layout, kinds, modes, distribution) and value types are checked while reading.

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "spec_validate.h"

namespace hipfuse::driver::detail {

namespace {

constexpr int64_t kMaxLength = std::numeric_limits<int32_t>::max();

struct Context {
  const Case& c;
  const std::vector<size_t>& op_index;
  const Site& site;

  std::string op(size_t i, std::string_view key) const { return fmt::format("op.{}.{}", op_index[i], key); }
};

std::string_view spatial_name(size_t d, size_t spatial) {
  constexpr std::string_view names[] = {"D", "H", "W"};
  return names[3 - spatial + d];
}

bool is_activation_backward(const OpSpec& op) {
  const auto* a = std::get_if<ActivationSpec>(&op);
  return a && a->backward;
}
bool is_backward(const OpSpec& op) {
  return std::holds_alternative<BnBackwardSpec>(op) || is_activation_backward(op);
}
bool is_bn_training(const OpSpec& op) {
  return std::holds_alternative<BnForwardTrainingSpec>(op) || std::holds_alternative<BnBackwardSpec>(op);
}

void check_input(const Context& x) {  // R1
  const std::vector<int64_t>& in = x.c.input;
  if (in.size() != 4 && in.size() != 5)
    x.site.fail("input", fmt::format("expected 4 or 5 lengths (N, C, [D,] H, W), got {}", in.size()));
  for (int64_t v : in)
    if (v < 1 || v > kMaxLength)
      x.site.fail("input", fmt::format("every length must be in [1, {}], got {}", kMaxLength, v));
}

void check_plan_shape(const Context& x) {  // R2, R3
  const std::vector<OpSpec>& ops = x.c.ops;
  if (ops.empty()) x.site.fail("op", "every op is disabled: a plan needs at least one op");
  for (size_t i = 0; i < ops.size(); ++i)
    if (is_activation_backward(ops[i]) && (i == 0 || !std::holds_alternative<BnBackwardSpec>(ops[i - 1])))
      x.site.fail(x.op(i, "kind"),
                  "activation_backward must come directly after bn_backward: the backward plan is "
                  "[bn_backward, activation_backward]");
  const bool backward = std::any_of(ops.begin(), ops.end(), is_backward);
  const bool has_conv = std::any_of(ops.begin(), ops.end(), [](const OpSpec& op) {
    return std::holds_alternative<ConvSpec>(op);
  });
  std::vector<size_t> training;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (backward && !is_backward(ops[i]))
      x.site.fail(x.op(i, "kind"), "a backward plan (bn_backward, activation_backward) cannot hold forward ops");
    if (is_bn_training(ops[i])) training.push_back(i);
  }
  if (training.size() > 1)
    x.site.fail(x.op(training[1], "kind"),
                "a plan holds at most one BN training op (bn_forward_training, bn_backward)");
  if (!training.empty() && has_conv)
    x.site.fail(x.op(training[0], "kind"), "a BN training op cannot share a plan with a conv");
}

void check_dims(const Context& x, size_t i, std::string_view key, const std::vector<int>& values, size_t spatial,
                int min) {
  if (values.size() != spatial)
    x.site.fail(x.op(i, key), fmt::format("{} values for {} spatial dims", values.size(), spatial));
  for (int v : values)
    if (v < min) x.site.fail(x.op(i, key), fmt::format("{} must be >= {}, got {}", key, min, v));
}

void check_conv(const Context& x, size_t i, const ConvSpec& conv, const std::vector<int64_t>& in) {  // R4
  const size_t spatial = in.size() - 2;
  if (conv.k < 1) x.site.fail(x.op(i, "k"), fmt::format("k must be >= 1, got {}", conv.k));
  if (conv.groups < 1) x.site.fail(x.op(i, "groups"), fmt::format("groups must be >= 1, got {}", conv.groups));
  check_dims(x, i, "filter", conv.filter, spatial, 1);
  check_dims(x, i, "stride", conv.stride, spatial, 1);
  check_dims(x, i, "pad", conv.pad, spatial, 0);
  check_dims(x, i, "dilation", conv.dilation, spatial, 1);
  if (in[1] % conv.groups != 0)
    x.site.fail(x.op(i, "groups"),
                fmt::format("groups {} does not divide the {} channels reaching this conv", conv.groups, in[1]));
  if (conv.k % conv.groups != 0)
    x.site.fail(x.op(i, "groups"), fmt::format("groups {} does not divide k {}", conv.groups, conv.k));
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t span = int64_t{conv.dilation[d]} * (conv.filter[d] - 1) + 1;
    if (conv_output_size(in[d + 2], conv.filter[d], conv.stride[d], conv.pad[d], conv.dilation[d]) < 1)
      x.site.fail(x.op(i, "filter"),
                  fmt::format("empty output along {}: the input length {} plus padding 2*{} is shorter than "
                              "the dilated filter {}",
                              spatial_name(d, spatial), in[d + 2], conv.pad[d], span));
  }
}

void check_bn(const Context& x, size_t i, double epsilon, double exp_avg_factor) {  // R6
  if (!(epsilon > 0)) x.site.fail(x.op(i, "epsilon"), fmt::format("epsilon must be > 0, got {}", epsilon));
  if (!(exp_avg_factor >= 0 && exp_avg_factor <= 1))
    x.site.fail(x.op(i, "exp_avg_factor"), fmt::format("exp_avg_factor must be in [0, 1], got {}", exp_avg_factor));
}

void check_op_values(const Context& x, size_t i, const std::vector<int64_t>& in) {
  const OpSpec& op = x.c.ops[i];
  if (const auto* conv = std::get_if<ConvSpec>(&op)) check_conv(x, i, *conv, in);
  if (const auto* bn = std::get_if<BnInferenceSpec>(&op)) check_bn(x, i, bn->epsilon, 0);
  if (const auto* bn = std::get_if<BnForwardTrainingSpec>(&op)) check_bn(x, i, bn->epsilon, bn->exp_avg_factor);
}

void check_lengths(const Context& x, size_t i, std::string_view what, const std::vector<int64_t>& shape) {  // R5
  for (int64_t v : shape)
    if (v < 1 || v > kMaxLength)
      x.site.fail(x.op(i, "kind"), fmt::format("{} would have the length {}; lengths must be in [1, {}]", what, v,
                                              kMaxLength));
}

void check_ops(const Context& x) {
  std::vector<int64_t> shape = x.c.input;
  for (size_t i = 0; i < x.c.ops.size(); ++i) {
    check_op_values(x, i, shape);
    check_lengths(x, i, "its parameter tensor", parameter_shape(shape, x.c.ops[i]));
    shape = output_shape(shape, x.c.ops[i]);
    check_lengths(x, i, "its output", shape);
  }
}

bool is_whole(double v) { return std::floor(v) == v && std::fabs(v) < 9007199254740992.0; }  // 2^53

void check_init(const Context& x) {  // R7
  const InitSpec& init = x.c.init;
  if (init.distribution == "uniform" && !(init.min < init.max))
    x.site.fail("init.min", fmt::format("uniform needs min < max, got min {} and max {}", init.min, init.max));
  if (init.distribution == "integer" && !(is_whole(init.min) && is_whole(init.max) && init.min <= init.max))
    x.site.fail("init.min",
                fmt::format("integer needs whole numbers min <= max, got min {} and max {}", init.min, init.max));
  if (init.distribution == "normal" && !(init.stddev > 0))
    x.site.fail("init.stddev", fmt::format("stddev must be > 0, got {}", init.stddev));
}

void check_run(const Context& x) {  // R8
  const Case& c = x.c;
  if (c.timing.warmup < 0) x.site.fail("timing.warmup", fmt::format("warmup must be >= 0, got {}", c.timing.warmup));
  if (c.timing.iters < 1) x.site.fail("timing.iters", fmt::format("iters must be >= 1, got {}", c.timing.iters));
  if (c.verify.samples < 1)
    x.site.fail("verify.samples", fmt::format("samples must be >= 1, got {}", c.verify.samples));
  if (c.verify.tolerance && !(*c.verify.tolerance > 0))
    x.site.fail("verify.tolerance", fmt::format("tolerance must be > 0, got {}", *c.verify.tolerance));
}

}  // namespace

void validate_case(const Case& c, const std::vector<size_t>& op_index, const Site& site) {
  const Context x{c, op_index, site};
  check_input(x);
  check_plan_shape(x);
  check_ops(x);
  check_init(x);
  check_run(x);
}

}  // namespace hipfuse::driver::detail
