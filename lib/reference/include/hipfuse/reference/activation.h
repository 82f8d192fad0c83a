// The ten MIOpen activations, forward and backward (fusion-api.md section 3.1 / 3.2), in double.
#pragma once

#include "hipfuse/reference/tensor.h"

namespace hipfuse::ref {

// Integer values equal miopenActivationMode_t.
enum class ActivationMode {
    pasthru = 0,
    logistic = 1,
    tanh = 2,
    relu = 3,
    softrelu = 4,
    abs = 5,
    power = 6,
    clippedrelu = 7,
    leakyrelu = 8,
    elu = 9,
};

const char* name(ActivationMode mode);

// The threshold the kernels use for POWER (v = alpha + beta*x <= eps gives 0) and for TANH backward
// (|beta| <= eps gives 0). MIOpen's host reference uses DBL_EPSILON for POWER forward instead;
// hipfuse's kernels and this reference both use 1e-6, so values of v in (2.2e-16, 1e-6] are 0 here.
constexpr double activation_epsilon = 1e-6;

// y = f(x). alpha/beta/gamma as in MIOpen's activAlpha/Beta/Gamma; unused ones are ignored.
double activation_forward(double x, ActivationMode mode, double alpha, double beta, double gamma);

// dx from dy, the activation input x and its output y. POWER is the correct derivative
// dy * (beta*gamma) * y / v, where MIOpen drops the dy factor.
double activation_backward(double dy, double x, double y, ActivationMode mode, double alpha, double beta,
                           double gamma);

// The derivative jumps at some inputs (RELU, LEAKYRELU, ABS, ELU at 0; CLIPPEDRELU at 0 and alpha).
// A kernel computes x in fp32, so when the exact x lies within `margin` of a jump either side is a
// correct answer. Returns whether it does, and then in *other the backward value on the side the
// exact x is not on. POWER's jump (v = eps, where the function is ~0) is not reported.
bool activation_backward_other_side(double dy, double x, double y, ActivationMode mode, double alpha, double beta,
                                    double gamma, double margin, double* other);

Tensor activation_forward(const Tensor& x, ActivationMode mode, double alpha, double beta, double gamma);

// dy, x and y share lengths.
Tensor activation_backward(const Tensor& dy, const Tensor& x, const Tensor& y, ActivationMode mode, double alpha,
                           double beta, double gamma);

}  // namespace hipfuse::ref
