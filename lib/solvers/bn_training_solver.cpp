#include "solvers/bn_training_solver.h"

#include "common/env.h"
#include "common/kernel_args.h"
#include "solvers/bn_tiling.h"
#include "solvers/chain_binding.h"
#include "solvers/chain_codegen.h"
#include "solvers/invoker_support.h"
#include "solvers/plan_parts.h"

namespace hipfuse {

namespace {

constexpr int kPartialFields = 3;  // n, mean, m2 (bn_forward_training.hip)

const BatchNormForwardTrainingOp& bn_op(const FusionPlan& plan) {
  return std::get<BatchNormForwardTrainingOp>(plan.ops().front()->op);
}

std::vector<const FusionOp*> epilogue_ops(const FusionPlan& plan) {
  std::vector<const FusionOp*> ops;
  for (std::size_t i = 1; i < plan.ops().size(); ++i) ops.push_back(plan.ops()[i].get());
  return ops;
}

// HIPFUSE_BN_PERSISTENT (development): "0" never takes persistent blocks, "1" wherever a column
// fits one; anything else, or unset, leaves the heuristic's choice.
BnPersistence persistence_from_environment() {
  const auto value = env::get("HIPFUSE_BN_PERSISTENT");
  if (value == "0") return BnPersistence::never;
  if (value == "1") return BnPersistence::wherever_fits;
  return BnPersistence::heuristic;
}

BnTiling tiling_for(const FusionPlan& plan, const Target& target) {
  return choose_bn_tiling(plan.input(), bn_op(plan).mode, target, BnKernel::forward_training,
                          persistence_from_environment());
}

rt::KernelRequest request_for(const FusionPlan& plan, const BnTiling& tiling) {
  PlanHeader h(plan);
  h.include("common/pointwise_chain.h");
  h.alias("data_t", cpp_type(plan.input().type));
  h.alias("param_t", "float");  // BN parameters and statistics are fp32 for every data type
  h.alias("XGeom", geometry_type(plan.input()));
  h.alias("YGeom", geometry_type(plan.output()));
  emit_tiling(h, tiling);
  h.bool_constant("kRunningStats", bn_op(plan).running_stats);
  emit_chain(h, "Epilogue", epilogue_ops(plan), 0, "YGeom");
  return {"bn_forward_training.hip", "hf_bn_forward_training", {h.file()}, {}};
}

class BnTrainingInvoker final : public Invoker {
 public:
  BnTrainingInvoker(std::shared_ptr<const rt::Kernel> kernel, const BnTiling& tiling,
                    std::unique_ptr<DeviceScratch> scratch, std::unique_ptr<DeviceScratch> counters,
                    ChainBinding binding)
      : kernel_(std::move(kernel)),
        tiling_(tiling),
        scratch_(std::move(scratch)),
        counters_(std::move(counters)),
        binding_(std::move(binding)) {}

  hipError_t launch(hipStream_t stream, const void* input, void* output, const OperatorArgs& args) const override {
    const auto* bn = args.slots.empty() ? nullptr : std::get_if<BatchNormForwardTrainingArgs>(&args.slots[0]);
    if (bn == nullptr) return hipErrorInvalidValue;
    hf::BnForwardArgs a{};
    a.x = input;
    a.y = output;
    a.scale = bn->scale;
    a.bias = bn->bias;
    a.saved_mean = bn->saved_mean;
    a.saved_inv_variance = bn->saved_inv_variance;
    a.running_mean = bn->running_mean;
    a.running_variance = bn->running_variance;
    a.partials = scratch_ ? scratch_->data() : nullptr;
    a.counters = counters_ ? counters_->counters() : nullptr;
    a.epsilon = static_cast<float>(bn->epsilon);
    a.exp_avg_factor = static_cast<float>(bn->exp_avg_factor);
    a.vector_ok = aligned16(input) && aligned16(output);
    if (!binding_.pack(args, a.chain)) return hipErrorInvalidValue;
    return launch_bn_phases(*kernel_, tiling_, stream, a);
  }
  int kernel_launches() const override { return tiling_.launches(); }

 private:
  std::shared_ptr<const rt::Kernel> kernel_;
  BnTiling tiling_;
  std::unique_ptr<DeviceScratch> scratch_;
  std::unique_ptr<DeviceScratch> counters_;  // the exchange's (BnTiling::counter_bytes)
  ChainBinding binding_;
};

}  // namespace

Applicability BnTrainingSolver::applies(const FusionPlan& plan, const Target&) const {
  if (plan.op_count() == 0 || !is_a<BatchNormForwardTrainingOp>(*plan.ops().front())) {
    return Applicability::no("the plan does not start with BN forward training");
  }
  if (auto why = unsupported_data_type(plan)) return Applicability::no(*why);
  if (auto why = unfusable_chain(epilogue_ops(plan))) return Applicability::no(*why);
  return Applicability::yes();
}

std::vector<rt::KernelRequest> BnTrainingSolver::kernels(const FusionPlan& plan, const Target& target) const {
  return {request_for(plan, tiling_for(plan, target))};
}

std::unique_ptr<Invoker> BnTrainingSolver::build(const FusionPlan& plan, const Target& target,
                                                 std::vector<rt::CompileReport>& reports) const {
  const BnTiling tiling = tiling_for(plan, target);
  auto kernel = load_kernel(request_for(plan, tiling), target, reports);
  allow_dynamic_shared(*kernel, tiling.shared_bytes());
  std::unique_ptr<DeviceScratch> scratch;
  if (tiling.partials > 1) scratch = std::make_unique<DeviceScratch>(target.device, tiling.scratch_bytes(kPartialFields));
  std::unique_ptr<DeviceScratch> counters;
  if (tiling.exchange) counters = zeroed_counters(target.device, tiling.counter_bytes(), "BN exchange counters");
  ChainBinding binding;
  binding.bind(epilogue_ops(plan), 0);
  return std::make_unique<BnTrainingInvoker>(std::move(kernel), tiling, std::move(scratch), std::move(counters),
                                             std::move(binding));
}

}  // namespace hipfuse
