// miopenConvolutionBiasActivationForward: y = act(alpha1 * conv(x, w) + alpha2 * z + bias)
// through the plan machinery (conv -> residual add -> bias -> activation), compiled once
// per handle and problem, then executed like any plan.
#include "api/boundary.h"
#include "api/execute.h"
#include "api/objects.h"

using namespace hipfuse;
using namespace hipfuse::api;

namespace {

// alpha1/alpha2 point to floats, as in MIOpen; null means 1.
double scale_or_one(const void* alpha) { return alpha == nullptr ? 1.0 : static_cast<double>(*static_cast<const float*>(alpha)); }

void need(const void* pointer, const char* name) {
  if (pointer == nullptr) fail(Status::bad_parm, std::string(name) + " is null");
}

}  // namespace

extern "C" miopenStatus_t miopenConvolutionBiasActivationForward(
    miopenHandle_t handle, const void* alpha1, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t wDesc, const void* w, const miopenConvolutionDescriptor_t convDesc,
    miopenConvFwdAlgorithm_t /*algo: no effect*/, void* /*workspace: none needed*/, size_t /*workspaceSizeInBytes*/,
    const void* alpha2, const miopenTensorDescriptor_t zDesc, const void* z, const miopenTensorDescriptor_t biasDesc,
    const void* bias, const miopenActivationDescriptor_t activationDesc, const miopenTensorDescriptor_t yDesc,
    void* y) {
  return guarded(__func__, [&] {
    auto& h = checked_cast<HandleObject>(handle, "handle");
    const TensorDesc& xd = checked_cast<TensorObject>(xDesc, "xDesc").desc;
    const TensorDesc& wd = checked_cast<TensorObject>(wDesc, "wDesc").desc;
    const ConvDesc& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc").desc;
    const TensorDesc& zd = checked_cast<TensorObject>(zDesc, "zDesc").desc;
    const TensorDesc& bd = checked_cast<TensorObject>(biasDesc, "biasDesc").desc;
    const ActivationObject& act = checked_cast<ActivationObject>(activationDesc, "activationDesc");
    const TensorDesc& yd = checked_cast<TensorObject>(yDesc, "yDesc").desc;
    need(x, "x"), need(w, "w"), need(z, "z"), need(bias, "bias"), need(y, "y");

    auto plan = std::make_unique<FusionPlan>(FusionDirection::vertical, xd);
    plan->add(ConvForwardOp{conv, wd});
    plan->add(ResidualAddOp{zd});
    plan->add(BiasForwardOp{bd});
    plan->add(ActivationForwardOp{act.mode});
    if (yd != plan->output()) {
      fail(Status::bad_parm, "yDesc " + yd.to_string() + " must equal zDesc and the convolution output " +
                                 plan->output().to_string());
    }

    auto& cached = h.one_shot_plans[plan->key()];
    if (!cached) {
      try {
        plan->compile(h.target);
      } catch (...) {
        h.one_shot_plans.erase(plan->key());
        throw;
      }
      cached = std::move(plan);
    }

    OperatorArgs args;
    args.slots = {ConvForwardArgs{w, scale_or_one(alpha1)}, ResidualAddArgs{z, scale_or_one(alpha2)},
                  BiasForwardArgs{bias}, ActivationForwardArgs{act.alpha, act.beta, act.gamma}};
    execute(h, *cached, h.device, xd, x, yd, y, args);
  });
}
