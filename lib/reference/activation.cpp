#include "hipfuse/reference/activation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace hipfuse::ref {

const char* name(ActivationMode mode) {
    switch (mode) {
    case ActivationMode::pasthru: return "PASTHRU";
    case ActivationMode::logistic: return "LOGISTIC";
    case ActivationMode::tanh: return "TANH";
    case ActivationMode::relu: return "RELU";
    case ActivationMode::softrelu: return "SOFTRELU";
    case ActivationMode::abs: return "ABS";
    case ActivationMode::power: return "POWER";
    case ActivationMode::clippedrelu: return "CLIPPEDRELU";
    case ActivationMode::leakyrelu: return "LEAKYRELU";
    case ActivationMode::elu: return "ELU";
    }
    return "?";
}

namespace {

[[noreturn]] void bad_mode(ActivationMode mode) {
    throw std::invalid_argument("activation: unknown mode " + std::to_string(static_cast<int>(mode)));
}

}  // namespace

double activation_forward(double x, ActivationMode mode, double alpha, double beta, double gamma) {
    switch (mode) {
    case ActivationMode::pasthru: return x;
    case ActivationMode::logistic: return 1.0 / (1.0 + std::exp(-x));
    case ActivationMode::tanh: return beta * std::tanh(alpha * x);
    case ActivationMode::relu: return std::isnan(x) ? x : (x > 0.0 ? x : 0.0);  // kernel: x*[x>0], NaN stays NaN
    case ActivationMode::softrelu:
        // log(1 + e^x) without overflow: x + log(1 + e^-x) for x > 0 (the kernels' form); log1p for accuracy.
        return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    case ActivationMode::abs: return std::fabs(x);
    case ActivationMode::power: {
        const double v = alpha + beta * x;
        return v <= activation_epsilon ? 0.0 : std::pow(v, gamma);
    }
    case ActivationMode::clippedrelu: return std::min(alpha, std::max(0.0, x));
    case ActivationMode::leakyrelu: return x > 0.0 ? x : alpha * x;
    case ActivationMode::elu: return x > 0.0 ? x : alpha * std::expm1(x);
    }
    bad_mode(mode);
}

double activation_backward(double dy, double x, double y, ActivationMode mode, double alpha, double beta,
                           double gamma) {
    switch (mode) {
    case ActivationMode::pasthru: return dy;
    case ActivationMode::logistic: return dy * y * (1.0 - y);
    case ActivationMode::tanh:
        // d/dx beta*tanh(alpha*x) = alpha*beta*(1 - tanh^2) = alpha*(beta - y^2/beta).
        return std::fabs(beta) <= activation_epsilon ? 0.0 : dy * alpha * (beta - y * y / beta);
    case ActivationMode::relu: return x > 0.0 ? dy : 0.0;
    case ActivationMode::softrelu: {
        const double e = std::exp(std::min(x, 50.0));
        return dy * e / (e + 1.0);
    }
    case ActivationMode::abs: return dy * (x > 0.0 ? 1.0 : -1.0);
    case ActivationMode::power: {
        // d/dx v^gamma = gamma * beta * v^(gamma-1) = (beta*gamma) * y / v.
        const double v = alpha + beta * x;
        return v <= activation_epsilon ? 0.0 : dy * (beta * gamma) * y / v;
    }
    case ActivationMode::clippedrelu: return (x > 0.0 && x <= alpha) ? dy : 0.0;
    case ActivationMode::leakyrelu: return dy * (x > 0.0 ? 1.0 : alpha);
    case ActivationMode::elu: return dy * (x > 0.0 ? 1.0 : y + alpha);
    }
    bad_mode(mode);
}

bool activation_backward_other_side(double dy, double x, double y, ActivationMode mode, double alpha, double beta,
                                    double gamma, double margin, double* other) {
    double jumps[2];
    int count = 0;
    switch (mode) {
    case ActivationMode::relu:
    case ActivationMode::abs: jumps[count++] = 0.0; break;
    case ActivationMode::leakyrelu:
        if (alpha != 1.0) jumps[count++] = 0.0;
        break;
    case ActivationMode::elu: jumps[count++] = 0.0; break;  // 1 vs y + alpha; y ~ 0 there
    case ActivationMode::clippedrelu:
        jumps[count++] = 0.0;
        jumps[count++] = alpha;
        break;
    default: break;
    }
    for (int j = 0; j < count; ++j) {
        if (std::fabs(x - jumps[j]) > margin) continue;
        // The branch tests are `x > jump` (and `x <= alpha`): step just across to the other side.
        const double across = x > jumps[j] ? jumps[j] : std::nextafter(jumps[j], HUGE_VAL);
        *other = activation_backward(dy, across, y, mode, alpha, beta, gamma);
        return *other != activation_backward(dy, x, y, mode, alpha, beta, gamma);
    }
    return false;
}

Tensor activation_forward(const Tensor& x, ActivationMode mode, double alpha, double beta, double gamma) {
    Tensor y = x;
    for (double& v : y.data) v = activation_forward(v, mode, alpha, beta, gamma);
    return y;
}

Tensor activation_backward(const Tensor& dy, const Tensor& x, const Tensor& y, ActivationMode mode, double alpha,
                           double beta, double gamma) {
    if (dy.lengths != x.lengths || dy.lengths != y.lengths) {
        throw std::invalid_argument("activation_backward: dy, x and y lengths differ");
    }
    Tensor dx = dy;
    for (std::int64_t i = 0; i < dx.numel(); ++i) dx[i] = activation_backward(dy[i], x[i], y[i], mode, alpha, beta, gamma);
    return dx;
}

}  // namespace hipfuse::ref
