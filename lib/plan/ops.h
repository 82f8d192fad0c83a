// The operators of a fusion plan, as typed values: what decides the kernel (kinds,
// modes, descriptors) is kept apart from the run-time arguments (pointers, scalars),
// which live in op_args.h.
#pragma once

#include "plan/convolution.h"
#include "plan/tensor.h"

#include <string>
#include <variant>

namespace hipfuse {

// Values equal miopenActivationMode_t's.
enum class ActivationMode : int {
  passthru = 0, logistic = 1, tanh = 2, relu = 3, softrelu = 4,
  abs = 5, power = 6, clippedrelu = 7, leakyrelu = 8, elu = 9,
};
constexpr int kActivationModeCount = 10;
const char* name_of(ActivationMode mode);

// Values equal miopenBatchNormMode_t's.
enum class BatchNormMode : int { per_activation = 0, spatial = 1 };
const char* name_of(BatchNormMode mode);

struct ConvForwardOp { ConvDesc conv; TensorDesc weights; };
struct BiasForwardOp { TensorDesc bias; };
struct ActivationForwardOp { ActivationMode mode; };
struct ActivationBackwardOp { ActivationMode mode; };
struct BatchNormInferenceOp { BatchNormMode mode; TensorDesc params; };
struct BatchNormForwardTrainingOp { BatchNormMode mode; bool running_stats; };
struct BatchNormBackwardOp { BatchNormMode mode; };
struct ResidualAddOp { TensorDesc z; };  // y = y + alpha * z (MIOpen's internal "tensor scale-add")

using Op = std::variant<ConvForwardOp, BiasForwardOp, ActivationForwardOp, ActivationBackwardOp,
                        BatchNormInferenceOp, BatchNormForwardTrainingOp, BatchNormBackwardOp, ResidualAddOp>;

// Short name for messages and keys: "conv", "bias", "activ_fwd(relu)", "bn_infer(spatial)", ...
std::string describe(const Op& op);
// The op kind as the C API names it: "ConvForward", "BiasForward", "ActivationForward", ...
const char* kind_name(const Op& op);

bool is_valid(ActivationMode mode);
bool is_valid(BatchNormMode mode);

// The descriptor of BN's scale, bias, mean and variance for input x: fp32 whatever x's type
// (MIOpen's convention, which apps rely on), 1xCx1x1 (spatial) or 1xCxHxW (per activation),
// packed channel-first. What miopenDeriveBNTensorDescriptor gives and BN ops require.
TensorDesc batch_norm_params(const TensorDesc& x, BatchNormMode mode);

// One op in a plan: its kind and parameters, and the tensors flowing in and out of it
// (op i's input is op i-1's output; the first op's input is the plan's).
struct FusionOp {
  Op op;
  TensorDesc input;
  TensorDesc output;
  int index = 0;
  const void* plan = nullptr;  // the owning plan, to reject an op used with another plan
};

}  // namespace hipfuse
