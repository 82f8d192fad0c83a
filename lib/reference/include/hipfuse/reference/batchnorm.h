// Batch normalisation: inference, forward training, backward (fusion-api.md sections 3.3-3.5).
#pragma once

#include "hipfuse/reference/tensor.h"

namespace hipfuse::ref {

// Integer values equal miopenBatchNormMode_t.
enum class BnMode { per_activation = 0, spatial = 1 };

const char* name(BnMode mode);

// Lengths of the scale/bias/mean/variance tensors for an x of `x_lengths`:
// spatial {1, C, 1, ...}, per-activation {1, C, spatial...} (miopenDeriveBNTensorDescriptor).
// Parameters passed in are accepted in any shape with that many elements.
std::vector<std::int64_t> bn_param_lengths(const std::vector<std::int64_t>& x_lengths, BnMode mode);

// y = scale * (x - mean) / sqrt(var + eps) + bias, parameters per channel (spatial) or per
// (c, spatial position) (per-activation).
Tensor bn_inference(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                    const Tensor& var, double epsilon);

// One element of bn_inference (the sampled chain evaluates single points with the same expression).
double bn_inference_value(double x, double scale, double bias, double mean, double var, double epsilon);

// scale * (x - mean) * inv_std + bias with given statistics: the training forward's output, and the
// BN output z that the fused [BN backward, activation backward] recomputes from saved statistics.
Tensor bn_normalize(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                    const Tensor& inv_std);

struct RunningStats {
    Tensor mean;
    Tensor var;
};

// Batch statistics over M = N * spatial (spatial) or M = N (per-activation) elements:
// mean, biased variance (two passes in double), inv_std = 1 / sqrt(var + eps);
// y = scale * (x - mean) * inv_std + bias. saved_mean / saved_inv_var are overwritten.
// When `running` is not null: mean <- (1 - f) * mean + f * batch mean and
// var <- (1 - f) * var + f * batch var * M / (M - 1) (no correction when M == 1), f = exp_avg_factor.
Tensor bn_forward_training(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& bias, double epsilon,
                           double exp_avg_factor, RunningStats* running, Tensor& saved_mean, Tensor& saved_inv_var);

// dx for dz = dL/dy of the training forward, using the saved batch statistics:
// xhat = (x - mean) * inv_var; dbias = sum dz; dscale = sum xhat * dz;
// dx = (scale * inv_var / M) * (M * dz - dbias - xhat * dscale).
// The per-activation formula of section 3.5, (inv_var / M) * (M*scale*dz - A - xhat*B) with
// A = sum scale*dz and B = sum scale*dz*xhat, is the same expression (scale is constant over the
// sum there), so one implementation serves both modes. dscale / dbias are overwritten.
Tensor bn_backward(const Tensor& dz, const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& saved_mean,
                   const Tensor& saved_inv_var, Tensor& dscale, Tensor& dbias);

// The change of bn_backward's dx[i] when dz[i] alone changes by delta: its own term and its
// share of the two sums (the other elements of its group move by O(delta / M), ignored here).
double bn_backward_dx_change(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& saved_mean,
                             const Tensor& saved_inv_var, std::int64_t i, double delta);

}  // namespace hipfuse::ref
