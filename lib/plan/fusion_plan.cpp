#include "plan/fusion_plan.h"

#include "common/env.h"
#include "plan/driver_command.h"

#include "common/error.h"
#include "common/log.h"
#include "solvers/solver.h"

#include <chrono>

namespace hipfuse {

namespace {

// "1xCx1x1" (or with more ones) for the given rank: the shape of a per-channel vector.
std::string per_channel_shape(int dims, std::int64_t c) {
  std::string s = "1x" + std::to_string(c);
  for (int d = 2; d < dims; ++d) s += "x1";
  return s;
}

// Bias: one value per channel of the tensor it is added to, of the data type (MIOpen's
// kernels read K contiguous values of the data type; int8 data takes fp32 or int32 bias).
void check_bias(const TensorDesc& bias, const TensorDesc& in) {
  const std::int64_t c = in.lengths[1];
  bool shape_ok = bias.dims() >= 2 && bias.lengths[1] == c;
  for (int d = 0; shape_ok && d < bias.dims(); ++d) shape_ok = d == 1 || bias.lengths[static_cast<std::size_t>(d)] == 1;
  if (!shape_ok) {
    fail(Status::bad_parm, "bias descriptor must be " + per_channel_shape(in.dims(), c) + " (one value per channel of " +
                               in.to_string() + "), got " + bias.to_string());
  }
  if (c != 1 && bias.strides[1] != 1) {
    fail(Status::bad_parm, "bias values must be contiguous (channel stride 1), got " + bias.to_string());
  }
  const bool int8_data = in.type == DataType::int8 && (bias.type == DataType::float32 || bias.type == DataType::int32);
  if (bias.type != in.type && !int8_data) {
    fail(Status::bad_parm, std::string("bias type must equal the data type ") + name_of(in.type) + ", got " +
                               name_of(bias.type));
  }
}

// BN parameters: batch_norm_params (plan/ops.h) describes what they must be.
void check_bn_params(const TensorDesc& params, BatchNormMode mode, const TensorDesc& in) {
  const TensorDesc want = batch_norm_params(in, mode);
  if (params.lengths != want.lengths || !params.is_channels_first_packed()) {
    fail(Status::bad_parm, std::string("batch-norm parameter descriptor for ") + name_of(mode) + " mode on " +
                               in.to_string() + " must be " + want.to_string() + ", got " + params.to_string() +
                               " (miopenDeriveBNTensorDescriptor makes it)");
  }
  if (params.type != want.type) {
    fail(Status::bad_parm, std::string("batch-norm parameters must be ") + name_of(want.type) + " for " +
                               name_of(in.type) + " data, got " + name_of(params.type));
  }
}

void check_mode(ActivationMode mode) {
  if (!is_valid(mode)) {
    fail(Status::bad_parm, "invalid activation mode " + std::to_string(static_cast<int>(mode)) +
                               " (valid: 0 PASTHRU .. 9 ELU)");
  }
}

void check_mode(BatchNormMode mode) {
  if (!is_valid(mode)) {
    fail(Status::bad_parm, "invalid batch-norm mode " + std::to_string(static_cast<int>(mode)) +
                               " (valid: 0 per-activation, 1 spatial)");
  }
}

// Validates `op` following a tensor `in` and returns its output tensor.
struct OutputOf {
  const TensorDesc& in;
  TensorDesc operator()(const ConvForwardOp& o) const { return o.conv.forward_output(in, o.weights); }
  TensorDesc operator()(const BiasForwardOp& o) const { return check_bias(o.bias, in), in; }
  TensorDesc operator()(const ActivationForwardOp& o) const { return check_mode(o.mode), in; }
  TensorDesc operator()(const ActivationBackwardOp& o) const { return check_mode(o.mode), in; }
  TensorDesc operator()(const BatchNormInferenceOp& o) const {
    check_mode(o.mode);
    check_bn_params(o.params, o.mode, in);
    return in;
  }
  TensorDesc operator()(const BatchNormForwardTrainingOp& o) const { return check_mode(o.mode), in; }
  TensorDesc operator()(const BatchNormBackwardOp& o) const { return check_mode(o.mode), in; }
  TensorDesc operator()(const ResidualAddOp& o) const {
    if (o.z != in) {
      fail(Status::bad_parm, "residual z descriptor must equal the tensor it is added to: expected " + in.to_string() +
                                 ", got " + o.z.to_string());
    }
    return in;
  }
};

// The part of the key for one op: its description plus every descriptor it carries.
std::string key_of(const Op& op) {
  std::string key = describe(op);
  if (auto* b = std::get_if<BiasForwardOp>(&op)) key += "[" + b->bias.to_string() + "]";
  if (auto* n = std::get_if<BatchNormInferenceOp>(&op)) key += "[" + n->params.to_string() + "]";
  if (auto* z = std::get_if<ResidualAddOp>(&op)) key += "[" + z->z.to_string() + "]";
  return key;
}

const Solver& choose_solver(const FusionPlan& plan, const Target& target) {
  if (plan.direction() == FusionDirection::horizontal) {
    fail(Status::not_implemented,
         "horizontal fusion is not implemented (MIOpen documents it as unimplemented too); "
         "create the plan with miopenVerticalFusion");
  }
  if (plan.op_count() == 0) fail(Status::unsupported_op, "the fusion plan has no ops: nothing to compile");
  std::string reasons;
  for (const Solver* solver : solver_registry()) {
    Applicability a = solver->applies(plan, target);
    if (a.applies) {
      log::print(log::Level::info, "plan [{}] for {}: solver {}", plan.key(), target.arch, solver->name());
      return *solver;
    }
    reasons += std::string("\n  ") + solver->name() + ": " + a.reason;
  }
  if (reasons.empty()) reasons = " (no fused solvers are registered)";
  fail(Status::unsupported_op, "no fused kernel supports this plan [" + plan.key() + "] on " +
                                   (target.arch.empty() ? std::string("this device") : target.arch) + ":" + reasons);
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

bool all_cached(const std::vector<rt::CompileReport>& reports) {
  if (reports.empty()) return false;
  for (const auto& r : reports) {
    if (r.from == rt::CompileReport::From::compiler) return false;
  }
  return true;
}

void check_plan_input(const TensorDesc& input) {
  if (input.dims() != 4 && input.dims() != 5) {
    fail(Status::bad_parm, "the plan input must be a 4-D (N,C,H,W) or 5-D (N,C,D,H,W) tensor, got " +
                               input.to_string());
  }
  if (input.strides.size() != input.lengths.size()) fail(Status::bad_parm, "the plan input has no strides");
  for (std::size_t d = 0; d < input.lengths.size(); ++d) {
    if (input.lengths[d] <= 0 || input.strides[d] <= 0) {
      fail(Status::bad_parm, "the plan input has a non-positive length or stride: " + input.to_string());
    }
  }
}

}  // namespace

FusionPlan::FusionPlan(FusionDirection direction, TensorDesc input) : direction_(direction), input_(std::move(input)) {
  if (direction != FusionDirection::vertical && direction != FusionDirection::horizontal) {
    fail(Status::bad_parm, "invalid fusion direction " + std::to_string(static_cast<int>(direction)) +
                               " (valid: 0 vertical, 1 horizontal)");
  }
  check_plan_input(input_);
}

FusionPlan::~FusionPlan() = default;

const TensorDesc& FusionPlan::output() const { return ops_.empty() ? input_ : ops_.back()->output; }

FusionOp& FusionPlan::add(Op op) {
  TensorDesc in = output();
  TensorDesc out = std::visit(OutputOf{in}, op);
  auto fused = std::make_unique<FusionOp>();
  fused->op = std::move(op);
  fused->input = std::move(in);
  fused->output = std::move(out);
  fused->index = op_count();
  fused->plan = this;
  ops_.push_back(std::move(fused));
  // The compiled kernel no longer describes the plan.
  invoker_.reset();
  compile_info_ = {};
  return *ops_.back();
}

std::string FusionPlan::key() const {
  std::string key = direction_ == FusionDirection::horizontal ? "horizontal " : "";
  key += input_.to_string();
  for (const auto& op : ops_) key += " | " + key_of(op->op);
  return key;
}

void FusionPlan::compile(const Target& target) {
  invoker_.reset();
  compile_info_ = {};
  const Solver& solver = choose_solver(*this, target);
  const auto start = std::chrono::steady_clock::now();
  std::vector<rt::CompileReport> reports;
  std::unique_ptr<Invoker> invoker = solver.build(*this, target, reports);
  if (!invoker) fail(Status::internal_error, std::string("solver ") + solver.name() + " built no invoker");
  CompileInfo info;
  info.solver = solver.name();
  info.kernel_launches = invoker->kernel_launches();
  info.milliseconds = ms_since(start);
  info.cache_hit = all_cached(reports);
  log::print(log::Level::info, "compiled [{}] with {}: {} kernel launch(es), {:.2f} ms{}", key(), info.solver,
             info.kernel_launches, info.milliseconds, info.cache_hit ? " (cache hit)" : "");
  compile_info_ = std::move(info);
  invoker_ = std::move(invoker);
  if (env::is_enabled("MIOPEN_ENABLE_LOGGING_CMD")) log::write(log::Level::info, driver_command(*this));
}

const char* FusionPlan::applicable_solver(const Target& target) const { return choose_solver(*this, target).name(); }

void FusionPlan::compile_offline(const Target& target) {
  invoker_.reset();
  compile_info_ = {};
  const Solver& solver = choose_solver(*this, target);
  const auto start = std::chrono::steady_clock::now();
  std::vector<rt::KernelRequest> requests = solver.kernels(*this, target);
  std::vector<rt::CompileReport> reports(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    rt::KernelCompiler::instance().binary(requests[i], target.arch, target.warp_size, &reports[i]);
  }
  CompileInfo info;
  info.solver = solver.name();
  info.kernel_launches = static_cast<int>(requests.size());
  info.milliseconds = ms_since(start);
  info.cache_hit = all_cached(reports);
  log::print(log::Level::info, "compiled [{}] for {} offline with {}: {} kernel(s), {:.2f} ms{}", key(), target.arch,
             info.solver, info.kernel_launches, info.milliseconds, info.cache_hit ? " (cache hit)" : "");
  compile_info_ = std::move(info);
}

}  // namespace hipfuse
