#include "verify.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include <hipfuse/reference/chain.h>
#include <hipfuse/reference/random.h>

namespace hipfuse::driver {

std::string VerifyPlan::label(int64_t output_elements) const {
  switch (mode) {
    case Mode::full: return "cpu";
    case Mode::sample: return fmt::format("sample ({} of {})", std::min(samples, output_elements), output_elements);
    case Mode::off: return "off";
  }
  return "?";
}

namespace {
bool has_statistics(const Case& c) {
  return std::any_of(c.ops.begin(), c.ops.end(), [](const OpSpec& op) {
    return std::holds_alternative<BnForwardTrainingSpec>(op) || std::holds_alternative<BnBackwardSpec>(op);
  });
}
}  // namespace

VerifyPlan choose_verify(const Case& c, const Problem& p) {
  VerifyPlan v;
  if (c.verify.mode == "off") {
    v.mode = VerifyPlan::Mode::off;
  } else if (c.verify.mode == "sample") {
    const int64_t total = p.output().elements();
    if (has_statistics(c)) {
      v.note = "sample requested; BN training/backward outputs depend on whole-tensor statistics: checked in full";
    } else if (c.verify.samples >= total) {
      v.note = fmt::format("sample of {} covers all {} elements: checked in full", c.verify.samples, total);
    } else {
      v.mode = VerifyPlan::Mode::sample;
      v.samples = std::max<int64_t>(c.verify.samples, 1);
      v.seed = c.init.seed ^ 0x5A3F1E2D4C6B8A97ull;
    }
  }
  return v;
}

Reference compute_reference(const Case& c, const Problem& p, const HostData& h, const VerifyPlan& v) {
  Reference r;
  std::vector<ref::Op> ops = reference_ops(c, p, h);
  const ref::Tensor& input = h.values[0];
  if (v.mode == VerifyPlan::Mode::sample) {
    r.sampled = true;
    r.indices = ref::sample_indices(v.samples, p.output().elements(), v.seed);
    r.output = ref::run_chain_sampled(input, ops, r.indices);
  } else {
    ref::ChainOptions options;
    options.alternates = &r.alternates;
    ref::Tensor out = ref::run_chain(input, ops, options);
    if (out.lengths != p.output().lengths)
      throw std::logic_error(fmt::format("reference output {} differs from the expected {}", shape_string(out.lengths),
                                         shape_string(p.output().lengths)));
    r.output = std::move(out.data);
  }
  // Written tensors of the ops, in Problem order.
  for (std::size_t i = 2; i < p.tensors.size(); ++i) {
    const TensorInfo& info = p.tensors[i];
    if (!info.is_output()) continue;
    const ref::Op& op = ops[static_cast<std::size_t>(info.op)];
    const ref::Tensor* value = nullptr;
    if (const auto* f = std::get_if<ref::BnForwardTrainingOp>(&op)) {
      if (info.role == Role::saved_mean) value = &f->saved_mean;
      if (info.role == Role::saved_inv_variance) value = &f->saved_inv_var;
      if (info.role == Role::running_mean && f->running) value = &f->running->mean;
      if (info.role == Role::running_variance && f->running) value = &f->running->var;
    } else if (const auto* b = std::get_if<ref::BnBackwardOp>(&op)) {
      if (info.role == Role::scale_diff) value = &b->dscale;
      if (info.role == Role::bias_diff) value = &b->dbias;
    }
    if (!value) throw std::logic_error(fmt::format("no reference for {}", info.name));
    r.extra.emplace_back(static_cast<int>(i), *value);
  }
  return r;
}

ref::Tolerance tolerance_for(const Case& c, const Problem& p, int tensor) {
  const TensorInfo& info = p.tensors[static_cast<std::size_t>(tensor)];
  if (info.role == Role::output) {
    ref::Tolerance t = ref::default_tolerance(info.dtype, reduction_length(c));
    if (c.verify.tolerance) t.nrms = *c.verify.tolerance;
    return t;
  }
  // BN statistics and parameter gradients: sums over the op input's M elements.
  const int mode = std::visit(
      [](const auto& s) -> int {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, BnForwardTrainingSpec> || std::is_same_v<T, BnBackwardSpec>) return s.mode;
        return kBnSpatial;
      },
      c.ops[static_cast<std::size_t>(info.op)]);
  return ref::default_tolerance(info.dtype, bn_reduction_length(p.shapes[static_cast<std::size_t>(info.op)], mode));
}

namespace {

CheckResult make_check(const std::string& tensor, const ref::Verdict& v, const ref::Tolerance& tol, int64_t unwritten) {
  CheckResult c;
  c.tensor = tensor;
  c.nrms = v.nrms_error;
  c.max_abs = v.max_abs_error;
  c.tolerance = tol.nrms;
  c.checked = v.checked;
  c.unwritten = unwritten;
  c.message = v.message;
  c.verdict = unwritten > 0 ? "FAILED" : ref::name(v.kind);
  if (unwritten > 0) c.message = fmt::format("{} element(s) never written; {}", unwritten, v.message);
  return c;
}

}  // namespace

std::vector<CheckResult> check_outputs(const Case& c, const Problem& p, const Reference& r,
                                       const std::vector<std::vector<std::uint8_t>>& gpu) {
  std::vector<CheckResult> checks;
  {
    const TensorInfo& out = p.output();
    const std::vector<std::uint8_t>& bytes = gpu.at(1);
    const int64_t unwritten = count_unwritten(bytes, out);
    std::vector<double> values;
    if (r.sampled) {
      values.reserve(r.indices.size());
      for (int64_t i : r.indices) values.push_back(element_at(bytes, out, i));
    } else {
      values = from_bytes(bytes, out).data;
    }
    const ref::Tolerance tol = tolerance_for(c, p, 1);
    const ref::Verdict v =
        ref::compare(values.data(), r.output.data(), static_cast<int64_t>(values.size()), tol, r.alternates);
    checks.push_back(make_check(out.name, v, tol, unwritten));
  }
  for (const auto& [index, expected] : r.extra) {
    const TensorInfo& info = p.tensors[static_cast<std::size_t>(index)];
    const std::vector<std::uint8_t>& bytes = gpu.at(static_cast<std::size_t>(index));
    const int64_t unwritten = count_unwritten(bytes, info);
    const ref::Tensor got = from_bytes(bytes, info);
    const ref::Tolerance tol = tolerance_for(c, p, index);
    const ref::Verdict v = ref::compare(got.data.data(), expected.data.data(), got.numel(), tol);
    CheckResult check = make_check(info.name, v, tol, unwritten);
    // Only the plan output can make a case MISTRUSTED: a handful of per-channel statistics is
    // judged by its errors alone.
    if (check.verdict == "MISTRUSTED") check.verdict = "PASSED";
    checks.push_back(std::move(check));
  }
  return checks;
}

Status judge(const std::vector<CheckResult>& checks, std::string* reason) {
  std::string why;
  bool failed = false, mistrusted = false;
  for (const CheckResult& c : checks) {
    if (c.verdict == "FAILED") {
      failed = true;
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", c.tensor, c.message);
    } else if (c.verdict == "MISTRUSTED") {
      mistrusted = true;
    }
  }
  if (!failed && mistrusted) {
    for (const CheckResult& c : checks)
      if (c.verdict == "MISTRUSTED") why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", c.tensor, c.message);
  }
  if (reason) *reason = why;
  return failed ? Status::failed : mistrusted ? Status::mistrusted : Status::passed;
}

}  // namespace hipfuse::driver
