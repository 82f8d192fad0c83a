// The ten MIOpen activations (fusion-api.md 3.1/3.2), evaluated in fp32. The mode is a
// template constant (MIOpen bakes it into the kernel too); alpha/beta/gamma are run-time.
#pragma once

#include "common/vendor.h"

namespace hf {

// Values equal miopenActivationMode_t's.
enum class ActMode : int {
  passthru = 0, logistic = 1, tanh = 2, relu = 3, softrelu = 4,
  abs = 5, power = 6, clippedrelu = 7, leakyrelu = 8, elu = 9,
};

// Threshold of POWER (v <= eps gives 0) and of TANH backward (|beta| <= eps gives 0).
constexpr float kActivationEpsilon = 1e-6f;

template <ActMode M>
HF_DEVICE float activation_forward(float x, float alpha, float beta, float gamma) {
  if constexpr (M == ActMode::passthru) {
    return x;
  } else if constexpr (M == ActMode::logistic) {
    return 1.0f / (1.0f + expf(-x));
  } else if constexpr (M == ActMode::tanh) {
    return beta * tanhf(alpha * x);
  } else if constexpr (M == ActMode::relu) {
    return (x > 0.0f || x != x) ? x : 0.0f;  // NaN stays NaN, as MIOpen's x*[x>0]
  } else if constexpr (M == ActMode::softrelu) {
    // log(1 + e^x) without overflow for large x.
    return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
  } else if constexpr (M == ActMode::abs) {
    return fabsf(x);
  } else if constexpr (M == ActMode::power) {
    const float v = alpha + beta * x;
    return v <= kActivationEpsilon ? 0.0f : powf(v, gamma);
  } else if constexpr (M == ActMode::clippedrelu) {
    return fminf(alpha, fmaxf(0.0f, x));
  } else if constexpr (M == ActMode::leakyrelu) {
    return x > 0.0f ? x : alpha * x;
  } else {
    static_assert(M == ActMode::elu, "unknown activation mode");
    return x > 0.0f ? x : alpha * expm1f(x);
  }
}

// dx from the incoming gradient dy, the activation's input x and its output y. POWER is
// the true derivative dy * (beta*gamma) * y / v (MIOpen drops the dy factor).
// Divisions go through hf::divide (vendor.h): every divisor here is >= 1e-6 in magnitude.
template <ActMode M>
HF_DEVICE float activation_backward(float dy, float x, float y, float alpha, float beta, float gamma) {
  if constexpr (M == ActMode::passthru) {
    return dy;
  } else if constexpr (M == ActMode::logistic) {
    return dy * y * (1.0f - y);
  } else if constexpr (M == ActMode::tanh) {
    return fabsf(beta) <= kActivationEpsilon ? 0.0f : dy * alpha * (beta - divide(y * y, beta));
  } else if constexpr (M == ActMode::relu) {
    return x > 0.0f ? dy : 0.0f;
  } else if constexpr (M == ActMode::softrelu) {
    const float e = expf(fminf(x, 50.0f));
    return dy * divide(e, e + 1.0f);
  } else if constexpr (M == ActMode::abs) {
    return x > 0.0f ? dy : -dy;
  } else if constexpr (M == ActMode::power) {
    const float v = alpha + beta * x;
    return v <= kActivationEpsilon ? 0.0f : dy * (beta * gamma) * divide(y, v);
  } else if constexpr (M == ActMode::clippedrelu) {
    return (x > 0.0f && x <= alpha) ? dy : 0.0f;
  } else if constexpr (M == ActMode::leakyrelu) {
    return x > 0.0f ? dy : dy * alpha;
  } else {
    static_assert(M == ActMode::elu, "unknown activation mode");
    return x > 0.0f ? dy : dy * (y + alpha);
  }
}

// Whether the backward of mode M reads the forward output y (the others need only x).
template <ActMode M>
constexpr bool activation_backward_reads_y =
    M == ActMode::logistic || M == ActMode::tanh || M == ActMode::power || M == ActMode::elu;

}  // namespace hf
