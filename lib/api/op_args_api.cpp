// Operator arguments: one slot per op position, filled by the miopenSetOpArgs* setters.
// Device pointers are stored unchecked (Execute checks them), alpha/beta are ignored.
#include "api/boundary.h"
#include "api/objects.h"

#include <hipfuse/hipfuse.h>

using namespace hipfuse;
using namespace hipfuse::api;

namespace {

// The op behind `op`, checked to be of kind OpT (as the setter `setter` needs).
template <typename OpT>
const OpT& op_of_kind(miopenFusionOpDescriptor_t op, const char* role, const char* setter) {
  const OpObject& handle = checked_cast<OpObject>(op, role);
  const FusionOp& fused = handle.op();
  const OpT* typed = std::get_if<OpT>(&fused.op);
  if (typed == nullptr) {
    fail(Status::bad_parm, std::string(role) + " is op " + std::to_string(handle.index) + " of its plan, a " +
                               kind_name(fused.op) + " op; " + setter + " needs a " + kind_name(Op{OpT{}}) + " op");
  }
  return *typed;
}

template <typename ArgsT>
void store(miopenOperatorArgs_t args, miopenFusionOpDescriptor_t op, ArgsT value) {
  auto& slots = checked_cast<ArgsObject>(args, "args").args.slots;
  const auto index = static_cast<std::size_t>(static_cast<const OpObject*>(op)->index);
  if (slots.size() <= index) slots.resize(index + 1);
  slots[index] = std::move(value);
}

}  // namespace

extern "C" {

miopenStatus_t miopenCreateOperatorArgs(miopenOperatorArgs_t* args) {
  return guarded(__func__, [&] {
    auto& out = out_param(args, "args");  // before allocating: a null output must not leak
    out = new ArgsObject();
  });
}

miopenStatus_t miopenDestroyOperatorArgs(miopenOperatorArgs_t args) {
  return guarded(__func__, [&] {
    if (args != nullptr) destroy_object(checked_cast<ArgsObject>(args, "args"));
  });
}

miopenStatus_t miopenSetOpArgsConvForward(miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t convOp,
                                          const void*, const void*, const void* w) {
  return guarded(__func__, [&] {
    checked_cast<ArgsObject>(args, "args");
    op_of_kind<ConvForwardOp>(convOp, "convOp", __func__);
    store(args, convOp, ConvForwardArgs{w, 1.0});  // alpha ignored: MIOpen convention (fusion-api.md §3.6)
  });
}

miopenStatus_t miopenSetOpArgsActivForward(miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t activFwdOp,
                                           const void*, const void*, double activAlpha, double activBeta,
                                           double activGamma) {
  return guarded(__func__, [&] {
    checked_cast<ArgsObject>(args, "args");
    op_of_kind<ActivationForwardOp>(activFwdOp, "activFwdOp", __func__);
    store(args, activFwdOp, ActivationForwardArgs{activAlpha, activBeta, activGamma});
  });
}

miopenStatus_t miopenSetOpArgsActivBackward(miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t activBwdOp,
                                            const void*, const void*, const void* y, const void*, double activAlpha,
                                            double activBeta, double activGamma) {
  return guarded(__func__, [&] {
    checked_cast<ArgsObject>(args, "args");
    op_of_kind<ActivationBackwardOp>(activBwdOp, "activBwdOp", __func__);
    store(args, activBwdOp, ActivationBackwardArgs{y, activAlpha, activBeta, activGamma});
  });
}

miopenStatus_t miopenSetOpArgsBiasForward(miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t biasOp,
                                          const void*, const void*, const void* bias) {
  return guarded(__func__, [&] {
    checked_cast<ArgsObject>(args, "args");
    op_of_kind<BiasForwardOp>(biasOp, "biasOp", __func__);
    store(args, biasOp, BiasForwardArgs{bias});
  });
}

miopenStatus_t miopenSetOpArgsBatchNormInference(miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t bnOp,
                                                 const void*, const void*, const void* bnScale, const void* bnBias,
                                                 const void* estimatedMean, const void* estimatedVariance,
                                                 double epsilon) {
  return guarded(__func__, [&] {
    checked_cast<ArgsObject>(args, "args");
    op_of_kind<BatchNormInferenceOp>(bnOp, "bnOp", __func__);
    store(args, bnOp, BatchNormInferenceArgs{bnScale, bnBias, estimatedMean, estimatedVariance, epsilon});
  });
}

miopenStatus_t miopenSetOpArgsBatchNormForward(miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t bnOp,
                                               const void*, const void*, const void* bnScale, const void* bnBias,
                                               void* savedMean, void* savedInvVariance, void* runningMean,
                                               void* runningVariance, double expAvgFactor, double epsilon) {
  return guarded(__func__, [&] {
    checked_cast<ArgsObject>(args, "args");
    const auto& op = op_of_kind<BatchNormForwardTrainingOp>(bnOp, "bnOp", __func__);
    if (op.running_stats && (runningMean == nullptr || runningVariance == nullptr)) {
      fail(Status::bad_parm, "the op was created with runningMeanVariance, so runningMean and runningVariance "
                             "must not be null");
    }
    store(args, bnOp,
          BatchNormForwardTrainingArgs{bnScale, bnBias, savedMean, savedInvVariance, runningMean, runningVariance,
                                       expAvgFactor, epsilon});
  });
}

miopenStatus_t miopenSetOpArgsBatchNormBackward(miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t bnOp,
                                                const void*, const void*, const void* x, const void* bnScale,
                                                const void* bnBias, void* resultBnScaleDiff, void* resultBnBiasDiff,
                                                const void* savedMean, const void* savedInvVariance) {
  return guarded(__func__, [&] {
    checked_cast<ArgsObject>(args, "args");
    op_of_kind<BatchNormBackwardOp>(bnOp, "bnOp", __func__);
    store(args, bnOp,
          BatchNormBackwardArgs{x, bnScale, bnBias, resultBnScaleDiff, resultBnBiasDiff, savedMean, savedInvVariance});
  });
}

miopenStatus_t hipfuseSetOpArgsResidualAdd(miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t residualOp,
                                           double alpha, const void* z) {
  return guarded(__func__, [&] {
    checked_cast<ArgsObject>(args, "args");
    op_of_kind<ResidualAddOp>(residualOp, "residualOp", __func__);
    store(args, residualOp, ResidualAddArgs{z, alpha});
  });
}

}  // extern "C"
