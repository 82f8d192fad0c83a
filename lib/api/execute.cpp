#include "api/execute.h"

#include "api/boundary.h"
#include "api/hip_check.h"
#include "runtime/platform.h"

using namespace hipfuse;
using namespace hipfuse::api;

namespace {

template <class... Fs> struct overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> overloaded(Fs...) -> overloaded<Fs...>;

// The name of an OpArgs alternative, for messages.
const char* args_kind(const OpArgs& slot) {
  static constexpr const char* names[] = {"no",
                                          "ConvForward",
                                          "BiasForward",
                                          "ActivationForward",
                                          "ActivationBackward",
                                          "BatchNormInference",
                                          "BatchNormForward",
                                          "BatchNormBackward",
                                          "ResidualAdd"};
  static_assert(sizeof(names) / sizeof(names[0]) == std::variant_size_v<OpArgs>);
  return names[slot.index()];
}

// The device pointers an op needs, named as in the setter, each non-null.
void check_pointers(const FusionOp& op, const OpArgs& slot) {
  const auto need = [&](const void* pointer, const char* name) {
    if (pointer == nullptr) {
      fail(Status::bad_parm, "op " + std::to_string(op.index) + " (" + kind_name(op.op) + "): " + name +
                                 " is null; set it with the op's miopenSetOpArgs* call");
    }
  };
  std::visit(overloaded{
                 [](const std::monostate&) {},
                 [&](const ConvForwardArgs& a) { need(a.weights, "w"); },
                 [&](const BiasForwardArgs& a) { need(a.bias, "bias"); },
                 [](const ActivationForwardArgs&) {},
                 [&](const ActivationBackwardArgs& a) { need(a.y, "y"); },
                 [&](const BatchNormInferenceArgs& a) {
                   need(a.scale, "bnScale"), need(a.bias, "bnBias");
                   need(a.mean, "estimatedMean"), need(a.variance, "estimatedVariance");
                 },
                 [&](const BatchNormForwardTrainingArgs& a) {
                   need(a.scale, "bnScale"), need(a.bias, "bnBias");
                   need(a.saved_mean, "savedMean"), need(a.saved_inv_variance, "savedInvVariance");
                   if (std::get<BatchNormForwardTrainingOp>(op.op).running_stats) {
                     need(a.running_mean, "runningMean"), need(a.running_variance, "runningVariance");
                   }
                 },
                 [&](const BatchNormBackwardArgs& a) {
                   need(a.x, "x"), need(a.scale, "bnScale"), need(a.bias, "bnBias");
                   need(a.scale_diff, "resultBnScaleDiff"), need(a.bias_diff, "resultBnBiasDiff");
                   need(a.saved_mean, "savedMean"), need(a.saved_inv_variance, "savedInvVariance");
                 },
                 [&](const ResidualAddArgs& a) { need(a.z, "z"); },
             },
             slot);
}

}  // namespace

namespace hipfuse::api {

void check_args(const FusionPlan& plan, const OperatorArgs& args) {
  for (const auto& op : plan.ops()) {
    const auto i = static_cast<std::size_t>(op->index);
    const OpArgs* slot = i < args.slots.size() ? &args.slots[i] : nullptr;
    if (slot == nullptr || std::holds_alternative<std::monostate>(*slot)) {
      fail(Status::bad_parm, "op " + std::to_string(op->index) + " (" + kind_name(op->op) +
                                 ") has no arguments: call its miopenSetOpArgs* function before executing");
    }
    // OpArgs alternative i+1 belongs to Op alternative i.
    if (slot->index() != op->op.index() + 1) {
      fail(Status::bad_parm, "op " + std::to_string(op->index) + " is a " + kind_name(op->op) +
                                 " op but its arguments slot holds " + args_kind(*slot) +
                                 " arguments (set for another plan?)");
    }
    check_pointers(*op, *slot);
  }
}

void execute(HandleObject& handle, const FusionPlan& plan, int compiled_device, const TensorDesc& input_desc,
             const void* input, const TensorDesc& output_desc, void* output, const OperatorArgs& args) {
  if (!plan.compiled()) {
    fail(Status::bad_parm, "the fusion plan is not compiled: miopenCompileFusionPlan has not succeeded since the "
                           "plan was created or last changed");
  }
  if (compiled_device != handle.device) {
    fail(Status::bad_parm, "the plan was compiled for device " + std::to_string(compiled_device) +
                               " but the handle is on device " + std::to_string(handle.device));
  }
  if (input_desc != plan.input()) {
    fail(Status::bad_parm, "inputDesc " + input_desc.to_string() + " differs from the plan's input " +
                               plan.input().to_string());
  }
  if (output_desc != plan.output()) {
    fail(Status::bad_parm, "outputDesc " + output_desc.to_string() + " differs from the plan's output " +
                               plan.output().to_string());
  }
  if (input == nullptr) fail(Status::bad_parm, "input is null");
  if (output == nullptr) fail(Status::bad_parm, "output is null");
  check_args(plan, args);

  rt::activate_device(handle.device);
  if (!handle.profiling) {
    check_hip(plan.invoker().launch(handle.stream, input, output, args), "launching the fused kernel");
    return;
  }
  check_hip(hipEventRecord(handle.start, handle.stream), "recording the start event");
  check_hip(plan.invoker().launch(handle.stream, input, output, args), "launching the fused kernel");
  check_hip(hipEventRecord(handle.stop, handle.stream), "recording the stop event");
  check_hip(hipEventSynchronize(handle.stop), "waiting for the fused kernel");
  float ms = 0;
  check_hip(hipEventElapsedTime(&ms, handle.start, handle.stop), "reading the kernel time");
  handle.kernel_ms = ms;
}

}  // namespace hipfuse::api

extern "C" miopenStatus_t miopenExecuteFusionPlan(const miopenHandle_t handle,
                                                  const miopenFusionPlanDescriptor_t fusePlanDesc,
                                                  const miopenTensorDescriptor_t inputDesc, const void* input,
                                                  const miopenTensorDescriptor_t outputDesc, void* output,
                                                  miopenOperatorArgs_t args) {
  return guarded(__func__, [&] {
    auto& h = checked_cast<HandleObject>(handle, "handle");
    const auto& plan = checked_cast<PlanObject>(fusePlanDesc, "fusePlanDesc");
    const auto& in = checked_cast<TensorObject>(inputDesc, "inputDesc").desc;
    const auto& out = checked_cast<TensorObject>(outputDesc, "outputDesc").desc;
    const auto& a = checked_cast<ArgsObject>(args, "args").args;
    execute(h, *plan.plan, plan.compiled_device, in, input, out, output, a);
  });
}
