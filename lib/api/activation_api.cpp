// Activation descriptors (used by miopenConvolutionBiasActivationForward).
#include "api/boundary.h"
#include "api/convert.h"
#include "api/objects.h"

using namespace hipfuse;
using namespace hipfuse::api;

extern "C" {

miopenStatus_t miopenCreateActivationDescriptor(miopenActivationDescriptor_t* activDesc) {
  return guarded(__func__, [&] {
    auto& out = out_param(activDesc, "activDesc");  // before allocating: a null output must not leak
    out = new ActivationObject();
  });
}

miopenStatus_t miopenSetActivationDescriptor(const miopenActivationDescriptor_t activDesc, miopenActivationMode_t mode,
                                             double activAlpha, double activBeta, double activGamma) {
  return guarded(__func__, [&] {
    auto& a = checked_cast<ActivationObject>(activDesc, "activDesc");
    a.mode = to_activation_mode(mode);
    a.alpha = activAlpha, a.beta = activBeta, a.gamma = activGamma;
  });
}

miopenStatus_t miopenGetActivationDescriptor(const miopenActivationDescriptor_t activDesc,
                                             miopenActivationMode_t* mode, double* activAlpha, double* activBeta,
                                             double* activGamma) {
  return guarded(__func__, [&] {
    const auto& a = checked_cast<ActivationObject>(activDesc, "activDesc");
    auto& m = out_param(mode, "mode");
    auto& alpha = out_param(activAlpha, "activAlpha");
    auto& beta = out_param(activBeta, "activBeta");
    auto& gamma = out_param(activGamma, "activGamma");
    m = static_cast<miopenActivationMode_t>(a.mode);
    alpha = a.alpha, beta = a.beta, gamma = a.gamma;
  });
}

miopenStatus_t miopenDestroyActivationDescriptor(miopenActivationDescriptor_t activDesc) {
  return guarded(__func__, [&] {
    if (activDesc != nullptr) destroy_object(checked_cast<ActivationObject>(activDesc, "activDesc"));
  });
}

}  // extern "C"
