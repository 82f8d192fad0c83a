// Fusion plans and their ops: create, inspect, compile (also offline, for an architecture).
#include "api/boundary.h"
#include "api/convert.h"
#include "api/objects.h"
#include "runtime/platform.h"

#include <hipfuse/hipfuse.h>

#include <memory>
#include <mutex>

using namespace hipfuse;
using namespace hipfuse::api;

namespace {

// Validates and appends `op`; returns the new op's handle. The plan is unchanged on failure.
miopenFusionOpDescriptor_t add_op(PlanObject& plan, Op op) {
  auto handle = std::make_unique<OpObject>();
  plan.ops.reserve(plan.ops.size() + 1);
  plan.plan->add(std::move(op));
  handle->plan = &plan;
  handle->index = plan.plan->op_count() - 1;
  plan.ops.push_back(handle.get());
  return handle.release();
}

PlanObject& plan_of(miopenFusionPlanDescriptor_t plan) { return checked_cast<PlanObject>(plan, "fusePlanDesc"); }

const TensorDesc& tensor_of(miopenTensorDescriptor_t desc, const char* role) {
  return checked_cast<TensorObject>(desc, role).desc;
}

// The target of an offline compile or check: `arch` without a device. BadParm for a null
// or unknown architecture.
Target offline_target(const char* arch) {
  if (arch == nullptr) fail(Status::bad_parm, "arch is null");
  if (!rt::is_known_arch(arch)) {
    fail(Status::bad_parm, std::string("unknown architecture '") + arch + "' for the " + rt::platform_name() +
                               " platform (e.g. " +
                               (std::string(rt::platform_name()) == "nvidia" ? "sm_90" : "gfx90a") + ")");
  }
  Target target;
  target.device = -1;
  target.arch = arch;
  target.warp_size = rt::warp_size_for_arch(arch);
  return target;
}

}  // namespace

extern "C" {

miopenStatus_t miopenCreateFusionPlan(miopenFusionPlanDescriptor_t* fusePlanDesc,
                                      const miopenFusionDirection_t fuseDirection,
                                      const miopenTensorDescriptor_t inputDesc) {
  return guarded(__func__, [&] {
    auto& out = out_param(fusePlanDesc, "fusePlanDesc");
    const TensorDesc& input = tensor_of(inputDesc, "inputDesc");
    auto plan = std::make_unique<PlanObject>();
    plan->plan = std::make_unique<FusionPlan>(to_direction(fuseDirection), input);
    out = plan.release();
  });
}

miopenStatus_t miopenDestroyFusionPlan(miopenFusionPlanDescriptor_t fusePlanDesc) {
  return guarded(__func__, [&] {
    if (fusePlanDesc != nullptr) destroy_object(plan_of(fusePlanDesc));
  });
}

miopenStatus_t miopenCompileFusionPlan(miopenHandle_t handle, miopenFusionPlanDescriptor_t fusePlanDesc) {
  return guarded(__func__, [&] {
    auto& h = checked_cast<HandleObject>(handle, "handle");
    auto& plan = plan_of(fusePlanDesc);
    plan.compiled_device = -1;
    plan.plan->compile(h.target);  // solvers load kernels on h.target.device
    plan.compiled_device = h.device;
  });
}

miopenStatus_t miopenFusionPlanGetOp(miopenFusionPlanDescriptor_t fusePlanDesc, const int op_idx,
                                     miopenFusionOpDescriptor_t* op) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(op, "op");
    if (op_idx < 0 || op_idx >= plan.plan->op_count()) {
      fail(Status::bad_parm, "op_idx " + std::to_string(op_idx) + " is out of range: the plan has " +
                                 std::to_string(plan.plan->op_count()) + " op(s)");
    }
    out = plan.ops[static_cast<std::size_t>(op_idx)];
  });
}

miopenStatus_t miopenFusionPlanGetWorkSpaceSize(miopenHandle_t handle, miopenFusionPlanDescriptor_t fusePlanDesc,
                                                size_t* workSpaceSize, miopenConvFwdAlgorithm_t) {
  return guarded(__func__, [&] {
    checked_cast<HandleObject>(handle, "handle");
    plan_of(fusePlanDesc);
    out_param(workSpaceSize, "workSpaceSize") = 0;  // fused kernels use no workspace
  });
}

miopenStatus_t miopenFusionPlanConvolutionGetAlgo(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                  const int requestAlgoCount, int* returnedAlgoCount,
                                                  miopenConvFwdAlgorithm_t* returnedAlgos) {
  return guarded(__func__, [&] {
    plan_of(fusePlanDesc);
    auto& count = out_param(returnedAlgoCount, "returnedAlgoCount");
    if (requestAlgoCount < 0) {
      fail(Status::bad_parm, "requestAlgoCount is " + std::to_string(requestAlgoCount) + " (must be >= 0)");
    }
    if (requestAlgoCount > 0) out_param(returnedAlgos, "returnedAlgos");
    // MIOpen's fixed answer, whatever the plan holds; hipfuse's choice does not depend on it.
    const miopenConvFwdAlgorithm_t algos[] = {miopenConvolutionFwdAlgoDirect, miopenConvolutionFwdAlgoWinograd};
    const int n = std::min(requestAlgoCount, 2);
    for (int i = 0; i < n; ++i) returnedAlgos[i] = algos[i];
    count = n;
  });
}

miopenStatus_t miopenFusionPlanConvolutionSetAlgo(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                  miopenConvFwdAlgorithm_t algo) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    if (!is_valid_algorithm(algo)) {
      fail(Status::bad_parm, "invalid convolution algorithm " + std::to_string(raw_value(algo)));
    }
    plan.algo = algo;
  });
}

miopenStatus_t miopenCreateOpConvForward(miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* convOp,
                                         miopenConvolutionDescriptor_t convDesc,
                                         const miopenTensorDescriptor_t wDesc) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(convOp, "convOp");
    const ConvDesc& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc").desc;
    const TensorDesc& w = tensor_of(wDesc, "wDesc");
    out = add_op(plan, ConvForwardOp{conv, w});
  });
}

miopenStatus_t miopenCreateOpActivationForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                               miopenFusionOpDescriptor_t* activFwdOp, miopenActivationMode_t mode) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(activFwdOp, "activFwdOp");
    out = add_op(plan, ActivationForwardOp{to_activation_mode(mode)});
  });
}

miopenStatus_t miopenCreateOpActivationBackward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                miopenFusionOpDescriptor_t* activBwdOp, miopenActivationMode_t mode) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(activBwdOp, "activBwdOp");
    out = add_op(plan, ActivationBackwardOp{to_activation_mode(mode)});
  });
}

miopenStatus_t miopenCreateOpBiasForward(miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* biasOp,
                                         const miopenTensorDescriptor_t bDesc) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(biasOp, "biasOp");
    out = add_op(plan, BiasForwardOp{tensor_of(bDesc, "bDesc")});
  });
}

miopenStatus_t miopenCreateOpBatchNormInference(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                miopenFusionOpDescriptor_t* bnOp, const miopenBatchNormMode_t bn_mode,
                                                const miopenTensorDescriptor_t bnScaleBiasMeanVarDesc) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(bnOp, "bnOp");
    const TensorDesc& params = tensor_of(bnScaleBiasMeanVarDesc, "bnScaleBiasMeanVarDesc");
    out = add_op(plan, BatchNormInferenceOp{to_batch_norm_mode(bn_mode), params});
  });
}

miopenStatus_t miopenCreateOpBatchNormForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                              miopenFusionOpDescriptor_t* bnFwdOp, const miopenBatchNormMode_t bn_mode,
                                              bool runningMeanVariance) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(bnFwdOp, "bnFwdOp");
    out = add_op(plan, BatchNormForwardTrainingOp{to_batch_norm_mode(bn_mode), runningMeanVariance});
  });
}

miopenStatus_t miopenCreateOpBatchNormBackward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                               miopenFusionOpDescriptor_t* bnBwdOp,
                                               const miopenBatchNormMode_t bn_mode) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(bnBwdOp, "bnBwdOp");
    out = add_op(plan, BatchNormBackwardOp{to_batch_norm_mode(bn_mode)});
  });
}

miopenStatus_t hipfuseCreateOpResidualAdd(miopenFusionPlanDescriptor_t fusePlanDesc,
                                          miopenFusionOpDescriptor_t* residualOp, const miopenTensorDescriptor_t zDesc) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(residualOp, "residualOp");
    out = add_op(plan, ResidualAddOp{tensor_of(zDesc, "zDesc")});
  });
}

miopenStatus_t hipfuseCompileFusionPlanForArch(miopenFusionPlanDescriptor_t fusePlanDesc, const char* arch) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    const Target target = offline_target(arch);
    plan.compiled_device = -1;
    plan.plan->compile_offline(target);
  });
}

miopenStatus_t hipfuseCheckFusionPlanForArch(miopenFusionPlanDescriptor_t fusePlanDesc, const char* arch,
                                             const char** solver) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(solver, "solver");
    const Target target = offline_target(arch);
    out = plan.plan->applicable_solver(target);  // solver names are static strings
  });
}

miopenStatus_t hipfuseGetFusionPlanInfo(miopenFusionPlanDescriptor_t fusePlanDesc, hipfuseFusionPlanInfo* info) {
  return guarded(__func__, [&] {
    auto& plan = plan_of(fusePlanDesc);
    auto& out = out_param(info, "info");
    const FusionPlan& p = *plan.plan;
    hipfuseFusionPlanInfo result{};
    {
      // The key only changes when ops are added (which needs the caller's exclusive use):
      // a string handed out before stays valid while the plan is unchanged.
      std::lock_guard<std::mutex> lock(plan.info_mutex);
      if (plan.info_key_ops != p.op_count()) {
        plan.info_key = p.key();
        plan.info_key_ops = p.op_count();
      }
      result.key = plan.info_key.c_str();
    }
    result.compiled = p.compiled() ? 1 : 0;
    result.opCount = p.op_count();
    result.solver = p.compile_info().solver.c_str();
    result.kernelLaunches = p.compile_info().kernel_launches;
    result.compileMs = p.compile_info().milliseconds;
    result.cacheHit = p.compile_info().cache_hit ? 1 : 0;
    out = result;
  });
}

}  // extern "C"
