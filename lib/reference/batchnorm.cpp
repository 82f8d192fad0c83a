#include "hipfuse/reference/batchnorm.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace hipfuse::ref {
namespace {

// Element (n, c, s) of x uses parameter c (spatial) or c * S + s (per-activation); the loops below
// walk x in order and compute that index as p(c, s).
struct BnShape {
    std::int64_t n = 0, c = 0, s = 0;
    BnMode mode = BnMode::spatial;

    std::int64_t params() const { return mode == BnMode::spatial ? c : c * s; }
    std::int64_t reduction() const { return mode == BnMode::spatial ? n * s : n; }  // M
    std::int64_t param(std::int64_t ci, std::int64_t si) const { return mode == BnMode::spatial ? ci : ci * s + si; }

    // f(element index, parameter index) over all of x in order.
    template <class F>
    void for_each(F f) const {
        std::int64_t i = 0;
        for (std::int64_t ni = 0; ni < n; ++ni)
            for (std::int64_t ci = 0; ci < c; ++ci)
                for (std::int64_t si = 0; si < s; ++si) f(i++, param(ci, si));
    }
};

BnShape shape_of(const Tensor& x, BnMode mode, const char* op) {
    if (x.rank() < 3 || x.rank() > 5) {
        throw std::invalid_argument(std::string(op) + ": x must have 3 to 5 dims {N, C, spatial...}");
    }
    if (mode != BnMode::spatial && mode != BnMode::per_activation) {
        throw std::invalid_argument(std::string(op) + ": unknown BN mode");
    }
    if (x.numel() != element_count(x.lengths)) throw std::invalid_argument(std::string(op) + ": x data size");
    return BnShape{x.lengths[0], x.lengths[1], spatial_size(x.lengths), mode};
}

void check_param(const BnShape& shape, const Tensor& t, const char* op, const char* what) {
    if (t.numel() != shape.params()) {
        throw std::invalid_argument(std::string(op) + ": " + what + " has " + std::to_string(t.numel()) +
                                    " values, expected " + std::to_string(shape.params()));
    }
}

}  // namespace

const char* name(BnMode mode) { return mode == BnMode::spatial ? "spatial" : "per_activation"; }

std::vector<std::int64_t> bn_param_lengths(const std::vector<std::int64_t>& x_lengths, BnMode mode) {
    if (x_lengths.size() < 2) throw std::invalid_argument("bn_param_lengths: x needs {N, C, ...} lengths");
    std::vector<std::int64_t> p = x_lengths;
    p[0] = 1;
    if (mode == BnMode::spatial) {
        for (std::size_t d = 2; d < p.size(); ++d) p[d] = 1;
    }
    return p;
}

Tensor bn_inference(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                    const Tensor& var, double epsilon) {
    const BnShape shape = shape_of(x, mode, "bn_inference");
    check_param(shape, scale, "bn_inference", "scale");
    check_param(shape, bias, "bn_inference", "bias");
    check_param(shape, mean, "bn_inference", "mean");
    check_param(shape, var, "bn_inference", "variance");
    Tensor y = x;
    shape.for_each([&](std::int64_t i, std::int64_t p) {
        y[i] = bn_inference_value(x[i], scale[p], bias[p], mean[p], var[p], epsilon);
    });
    return y;
}

double bn_inference_value(double x, double scale, double bias, double mean, double var, double epsilon) {
    return scale * (x - mean) / std::sqrt(var + epsilon) + bias;
}

Tensor bn_normalize(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                    const Tensor& inv_std) {
    const BnShape shape = shape_of(x, mode, "bn_normalize");
    check_param(shape, scale, "bn_normalize", "scale");
    check_param(shape, bias, "bn_normalize", "bias");
    check_param(shape, mean, "bn_normalize", "mean");
    check_param(shape, inv_std, "bn_normalize", "inverse std");
    Tensor y = x;
    shape.for_each([&](std::int64_t i, std::int64_t p) { y[i] = scale[p] * (x[i] - mean[p]) * inv_std[p] + bias[p]; });
    return y;
}

Tensor bn_forward_training(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& bias, double epsilon,
                           double exp_avg_factor, RunningStats* running, Tensor& saved_mean, Tensor& saved_inv_var) {
    const BnShape shape = shape_of(x, mode, "bn_forward_training");
    check_param(shape, scale, "bn_forward_training", "scale");
    check_param(shape, bias, "bn_forward_training", "bias");
    if (running) {
        check_param(shape, running->mean, "bn_forward_training", "running mean");
        check_param(shape, running->var, "bn_forward_training", "running variance");
    }
    const std::int64_t m = shape.reduction();
    if (m < 1) throw std::invalid_argument("bn_forward_training: empty batch");
    const auto md = static_cast<double>(m);

    // Two passes: the mean first, then squared deviations from it (no cancellation).
    Tensor mean = make_tensor(bn_param_lengths(x.lengths, mode));
    Tensor var = mean;
    shape.for_each([&](std::int64_t i, std::int64_t p) { mean[p] += x[i]; });
    for (double& v : mean.data) v /= md;
    shape.for_each([&](std::int64_t i, std::int64_t p) {
        const double d = x[i] - mean[p];
        var[p] += d * d;
    });
    for (double& v : var.data) v /= md;

    Tensor inv_std = var;
    for (double& v : inv_std.data) v = 1.0 / std::sqrt(v + epsilon);
    Tensor y = bn_normalize(x, mode, scale, bias, mean, inv_std);

    if (running) {
        const double f = exp_avg_factor;
        const double correction = m > 1 ? md / (md - 1.0) : 1.0;  // unbiased running variance
        for (std::int64_t p = 0; p < shape.params(); ++p) {
            running->mean[p] = (1.0 - f) * running->mean[p] + f * mean[p];
            running->var[p] = (1.0 - f) * running->var[p] + f * var[p] * correction;
        }
    }
    saved_mean = std::move(mean);
    saved_inv_var = std::move(inv_std);
    return y;
}

Tensor bn_backward(const Tensor& dz, const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& saved_mean,
                   const Tensor& saved_inv_var, Tensor& dscale, Tensor& dbias) {
    const BnShape shape = shape_of(x, mode, "bn_backward");
    if (dz.lengths != x.lengths) throw std::invalid_argument("bn_backward: dy and x lengths differ");
    check_param(shape, scale, "bn_backward", "scale");
    check_param(shape, saved_mean, "bn_backward", "saved mean");
    check_param(shape, saved_inv_var, "bn_backward", "saved inverse variance");
    const auto md = static_cast<double>(shape.reduction());

    Tensor sum_dz = make_tensor(bn_param_lengths(x.lengths, mode));
    Tensor sum_xhat_dz = sum_dz;
    auto xhat = [&](std::int64_t i, std::int64_t p) { return (x[i] - saved_mean[p]) * saved_inv_var[p]; };
    shape.for_each([&](std::int64_t i, std::int64_t p) {
        sum_dz[p] += dz[i];
        sum_xhat_dz[p] += xhat(i, p) * dz[i];
    });
    Tensor dx = dz;
    shape.for_each([&](std::int64_t i, std::int64_t p) {
        dx[i] = scale[p] * saved_inv_var[p] / md * (md * dz[i] - sum_dz[p] - xhat(i, p) * sum_xhat_dz[p]);
    });
    dbias = std::move(sum_dz);
    dscale = std::move(sum_xhat_dz);
    return dx;
}

double bn_backward_dx_change(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& saved_mean,
                             const Tensor& saved_inv_var, std::int64_t i, double delta) {
    const BnShape shape = shape_of(x, mode, "bn_backward_dx_change");
    if (i < 0 || i >= x.numel()) throw std::out_of_range("bn_backward_dx_change: element index");
    const std::int64_t p = shape.param((i / shape.s) % shape.c, i % shape.s);
    const auto md = static_cast<double>(shape.reduction());
    const double xhat = (x[i] - saved_mean[p]) * saved_inv_var[p];
    return scale[p] * saved_inv_var[p] / md * (md - 1.0 - xhat * xhat) * delta;
}

}  // namespace hipfuse::ref
