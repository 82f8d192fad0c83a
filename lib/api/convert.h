// Public enum values to internal types, with the BadParm reasons for values outside the
// enums (MIOpen accepts any integer and fails later, or never).
//
// A C caller may pass any int for an enum parameter. Loading a value outside a C++ enum's
// range as that enum is undefined behaviour (and UBSan reports it), so enum parameters are
// only ever read through raw_value(), which copies their bytes into an int; the helpers
// below take them by reference for that reason.
#pragma once

#include "common/error.h"
#include "plan/convolution.h"
#include "plan/fusion_plan.h"
#include "plan/ops.h"
#include "plan/tensor.h"

#include <miopen/miopen.h>

#include <cstring>
#include <string>

namespace hipfuse::api {

template <typename Enum>
int raw_value(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int), "MIOpen's enums are int-sized");
  int raw = 0;
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

inline DataType to_data_type(const miopenDataType_t& type) {
  const auto value = static_cast<DataType>(raw_value(type));
  if (!is_valid(value)) {
    fail(Status::bad_parm, "invalid data type " + std::to_string(raw_value(type)) +
                               " (valid: miopenHalf, miopenFloat, miopenInt32, miopenInt8, miopenBFloat16, "
                               "miopenDouble, miopenFloat8, miopenBFloat8, miopenInt64)");
  }
  return value;
}

inline ActivationMode to_activation_mode(const miopenActivationMode_t& mode) {
  const auto value = static_cast<ActivationMode>(raw_value(mode));
  if (!is_valid(value)) {
    fail(Status::bad_parm, "invalid activation mode " + std::to_string(raw_value(mode)) +
                               " (valid: 0 miopenActivationPASTHRU .. 9 miopenActivationELU)");
  }
  return value;
}

inline BatchNormMode to_batch_norm_mode(const miopenBatchNormMode_t& mode) {
  const auto value = static_cast<BatchNormMode>(raw_value(mode));
  if (!is_valid(value)) {
    fail(Status::bad_parm, "invalid batch-norm mode " + std::to_string(raw_value(mode)) +
                               " (valid: 0 miopenBNPerActivation, 1 miopenBNSpatial)");
  }
  return value;
}

// miopenGroupConv and miopenDepthwise are deprecated spellings of miopenConvolution.
inline ConvMode to_conv_mode(const miopenConvolutionMode_t& mode) {
  switch (raw_value(mode)) {
    case miopenConvolution:
    case miopenGroupConv:
    case miopenDepthwise: return ConvMode::convolution;
    case miopenTranspose: return ConvMode::transpose;
    default: break;
  }
  fail(Status::bad_parm, "invalid convolution mode " + std::to_string(raw_value(mode)) +
                             " (valid: miopenConvolution, miopenTranspose, miopenGroupConv, miopenDepthwise)");
}

inline FusionDirection to_direction(const miopenFusionDirection_t& direction) {
  const int value = raw_value(direction);
  if (value != miopenVerticalFusion && value != miopenHorizontalFusion) {
    fail(Status::bad_parm, "invalid fusion direction " + std::to_string(value) +
                               " (valid: 0 miopenVerticalFusion, 1 miopenHorizontalFusion)");
  }
  return static_cast<FusionDirection>(value);
}

inline bool is_valid_algorithm(const miopenConvFwdAlgorithm_t& algo) {
  switch (raw_value(algo)) {
    case miopenConvolutionFwdAlgoGEMM:
    case miopenConvolutionFwdAlgoDirect:
    case miopenConvolutionFwdAlgoFFT:
    case miopenConvolutionFwdAlgoWinograd:
    case miopenConvolutionFwdAlgoImplicitGEMM: return true;
    default: return false;
  }
}

}  // namespace hipfuse::api
