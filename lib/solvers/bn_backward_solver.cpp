#include "solvers/bn_backward_solver.h"

#include "common/kernel_args.h"
#include "solvers/bn_tiling.h"
#include "solvers/invoker_support.h"
#include "solvers/plan_parts.h"

namespace hipfuse {

namespace {

constexpr int kPartialFields = 2;  // sum dz, sum xhat * dz (bn_backward.hip)

const ActivationBackwardOp* activation_of(const FusionPlan& plan) {
  return plan.op_count() == 2 ? std::get_if<ActivationBackwardOp>(&plan.ops()[1]->op) : nullptr;
}

BnTiling tiling_for(const FusionPlan& plan, const Target& target) {
  return choose_bn_tiling(plan.input(), std::get<BatchNormBackwardOp>(plan.ops().front()->op).mode, target, BnKernel::backward);
}

rt::KernelRequest request_for(const FusionPlan& plan, const BnTiling& tiling) {
  const ActivationBackwardOp* act = activation_of(plan);
  PlanHeader h(plan);
  h.include("common/activation.h");
  h.include("common/geometry.h");
  h.alias("data_t", cpp_type(plan.input().type));
  h.alias("param_t", "float");  // BN parameters and statistics are fp32 for every data type
  h.alias("XGeom", geometry_type(plan.input()));  // dy; x and y are laid out like it
  h.alias("YGeom", geometry_type(plan.output()));
  emit_tiling(h, tiling);
  h.bool_constant("kHasActivation", act != nullptr);
  h.line("constexpr hf::ActMode kActivation = " + act_mode(act ? act->mode : ActivationMode::passthru) + ";");
  return {"bn_backward.hip", "hf_bn_backward", {h.file()}, {}};
}

class BnBackwardInvoker final : public Invoker {
 public:
  BnBackwardInvoker(std::shared_ptr<const rt::Kernel> kernel, const BnTiling& tiling,
                    std::unique_ptr<DeviceScratch> scratch, bool has_activation)
      : kernel_(std::move(kernel)), tiling_(tiling), scratch_(std::move(scratch)), has_activation_(has_activation) {}

  hipError_t launch(hipStream_t stream, const void* input, void* output, const OperatorArgs& args) const override {
    hf::BnBackwardArgs a{};
    if (!pack(args, a)) return hipErrorInvalidValue;
    a.dy = input;
    a.dx = output;
    a.partials = scratch_ ? scratch_->data() : nullptr;
    a.vector_ok = aligned16(a.dy) && aligned16(a.dx) && aligned16(a.x) && aligned16(a.y);
    return launch_bn_phases(*kernel_, tiling_, stream, a);
  }
  int kernel_launches() const override { return tiling_.launches(); }

 private:
  bool pack(const OperatorArgs& args, hf::BnBackwardArgs& a) const {
    const auto* bn = args.slots.empty() ? nullptr : std::get_if<BatchNormBackwardArgs>(&args.slots[0]);
    if (bn == nullptr) return false;
    a.x = bn->x;
    a.scale = bn->scale;
    a.bias = bn->bias;
    a.scale_diff = bn->scale_diff;
    a.bias_diff = bn->bias_diff;
    a.saved_mean = bn->saved_mean;
    a.saved_inv_variance = bn->saved_inv_variance;
    if (!has_activation_) return true;
    const auto* act = args.slots.size() < 2 ? nullptr : std::get_if<ActivationBackwardArgs>(&args.slots[1]);
    if (act == nullptr) return false;
    a.y = act->y;
    a.act_alpha = static_cast<float>(act->alpha);
    a.act_beta = static_cast<float>(act->beta);
    a.act_gamma = static_cast<float>(act->gamma);
    return true;
  }

  std::shared_ptr<const rt::Kernel> kernel_;
  BnTiling tiling_;
  std::unique_ptr<DeviceScratch> scratch_;
  bool has_activation_;
};

}  // namespace

Applicability BnBackwardSolver::applies(const FusionPlan& plan, const Target&) const {
  if (plan.op_count() == 0 || !is_a<BatchNormBackwardOp>(*plan.ops().front())) {
    return Applicability::no("the plan does not start with BN backward");
  }
  if (auto why = unsupported_data_type(plan)) return Applicability::no(*why);
  if (plan.op_count() > 2 || (plan.op_count() == 2 && activation_of(plan) == nullptr)) {
    // The first op past the pattern: the third when the second is an activation backward.
    const bool act_second = is_a<ActivationBackwardOp>(*plan.ops()[1]);
    const FusionOp& extra = *plan.ops()[act_second ? 2 : 1];
    return Applicability::no("BN backward fuses only as [BN backward] or [BN backward, activation backward]; " +
                             name_op(extra) + " cannot be part of it");
  }
  return Applicability::yes();
}

std::vector<rt::KernelRequest> BnBackwardSolver::kernels(const FusionPlan& plan, const Target& target) const {
  return {request_for(plan, tiling_for(plan, target))};
}

std::unique_ptr<Invoker> BnBackwardSolver::build(const FusionPlan& plan, const Target& target,
                                                 std::vector<rt::CompileReport>& reports) const {
  const BnTiling tiling = tiling_for(plan, target);
  auto kernel = load_kernel(request_for(plan, tiling), target, reports);
  std::unique_ptr<DeviceScratch> scratch;
  if (tiling.partials > 1) scratch = std::make_unique<DeviceScratch>(target.device, tiling.scratch_bytes(kPartialFields));
  return std::make_unique<BnBackwardInvoker>(std::move(kernel), tiling, std::move(scratch), activation_of(plan) != nullptr);
}

}  // namespace hipfuse
