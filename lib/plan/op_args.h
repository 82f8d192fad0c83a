// Run-time arguments of each op (miopenOperatorArgs_t): device pointers and scalars, set
// by miopenSetOpArgs* into the slot of the op's position. Re-bindable at any time without
// recompiling. Scalars are kept in double as given; kernels convert at launch.
#pragma once

#include <variant>
#include <vector>

namespace hipfuse {

// alpha scales the convolution result. miopenSetOpArgsConvForward ignores its alpha pointer
// (MIOpen convention, see fusion-api.md §3.6) and leaves 1; only the one-shot
// miopenConvolutionBiasActivationForward sets it (its alpha1). Kernels must honour it.
struct ConvForwardArgs { const void* weights = nullptr; double alpha = 1; };
struct BiasForwardArgs { const void* bias = nullptr; };
struct ActivationForwardArgs { double alpha = 0, beta = 0, gamma = 0; };
struct ActivationBackwardArgs { const void* y = nullptr; double alpha = 0, beta = 0, gamma = 0; };
struct BatchNormInferenceArgs {
  const void* scale = nullptr; const void* bias = nullptr;
  const void* mean = nullptr; const void* variance = nullptr;
  double epsilon = 0;
};
struct BatchNormForwardTrainingArgs {
  const void* scale = nullptr; const void* bias = nullptr;
  void* saved_mean = nullptr; void* saved_inv_variance = nullptr;
  void* running_mean = nullptr; void* running_variance = nullptr;
  double exp_avg_factor = 0, epsilon = 0;
};
struct BatchNormBackwardArgs {
  const void* x = nullptr; const void* scale = nullptr; const void* bias = nullptr;
  void* scale_diff = nullptr; void* bias_diff = nullptr;
  const void* saved_mean = nullptr; const void* saved_inv_variance = nullptr;
};
struct ResidualAddArgs { const void* z = nullptr; double alpha = 1; };

// std::monostate: the slot was never set. Alternative i (i ≥ 1) belongs to Op alternative i-1.
using OpArgs = std::variant<std::monostate, ConvForwardArgs, BiasForwardArgs, ActivationForwardArgs,
                            ActivationBackwardArgs, BatchNormInferenceArgs, BatchNormForwardTrainingArgs,
                            BatchNormBackwardArgs, ResidualAddArgs>;

struct OperatorArgs {
  std::vector<OpArgs> slots;  // indexed by op position in its plan
};

}  // namespace hipfuse
