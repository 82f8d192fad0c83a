// Batch normalisation of the CPU reference: inference, forward training, backward.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hipfuse/reference/batchnorm.h"
#include "hipfuse/reference/fill.h"

using namespace hipfuse::ref;

namespace {

using Lengths = std::vector<std::int64_t>;
using Values = std::vector<double>;

Tensor param(Values v) {
    const auto n = static_cast<std::int64_t>(v.size());
    return Tensor{{1, n, 1, 1}, std::move(v)};
}

void check_values(const Tensor& t, const Values& expected) {
    REQUIRE(t.data.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CAPTURE(i);
        CHECK(t.data[i] == doctest::Approx(expected[i]).epsilon(1e-14));
    }
}

// sum(dz * y) of the training forward: its gradient with respect to x is bn_backward(dz).
double loss(const Tensor& x, BnMode mode, const Tensor& scale, const Tensor& bias, const Tensor& dz, double eps) {
    Tensor mean, inv;
    const Tensor y = bn_forward_training(x, mode, scale, bias, eps, 0.0, nullptr, mean, inv);
    double l = 0;
    for (std::int64_t i = 0; i < y.numel(); ++i) l += dz[i] * y[i];
    return l;
}

}  // namespace

TEST_CASE("reference bn: mode values and parameter lengths") {
    CHECK(static_cast<int>(BnMode::per_activation) == 0);
    CHECK(static_cast<int>(BnMode::spatial) == 1);
    CHECK(bn_param_lengths({2, 3, 4, 5}, BnMode::spatial) == Lengths{1, 3, 1, 1});
    CHECK(bn_param_lengths({2, 3, 4, 5}, BnMode::per_activation) == Lengths{1, 3, 4, 5});
    CHECK(bn_param_lengths({2, 3, 4, 5, 6}, BnMode::spatial) == Lengths{1, 3, 1, 1, 1});
}

TEST_CASE("reference bn: inference, spatial") {
    // x {N=2, C=2, 1, 2}; scale [2, 0.5], bias [1, -1], mean [2, 10], var [3, 15], eps 1:
    // sqrt(var + eps) = [2, 4]. Channel 0: y = 2 (x - 2) / 2 + 1 = x - 1. Channel 1: y = (x - 10) / 8 - 1.
    const Tensor x{{2, 2, 1, 2}, {4, 0, 18, 2, 2, 6, 10, 26}};
    const Tensor y = bn_inference(x, BnMode::spatial, param({2, 0.5}), param({1, -1}), param({2, 10}),
                                  param({3, 15}), 1.0);
    CHECK(y.lengths == x.lengths);
    check_values(y, {3, -1, 0, -2, 1, 5, -1, 1});
}

TEST_CASE("reference bn: inference, per-activation") {
    // x {N=2, C=1, 1, 2}: parameters per position s. scale [1, 2], bias [0, 1], mean [1, -1],
    // var [0, 3], eps 1: sqrt = [1, 2]. s0: y = x - 1; s1: y = 2 (x + 1) / 2 + 1 = x + 2.
    const Tensor x{{2, 1, 1, 2}, {3, 1, -1, -5}};
    const Tensor p1{{1, 1, 1, 2}, {1, 2}}, p2{{1, 1, 1, 2}, {0, 1}}, p3{{1, 1, 1, 2}, {1, -1}}, p4{{1, 1, 1, 2}, {0, 3}};
    check_values(bn_inference(x, BnMode::per_activation, p1, p2, p3, p4, 1.0), {2, 3, -2, -3});
    CHECK_THROWS_AS(bn_inference(x, BnMode::per_activation, param({1}), p2, p3, p4, 1.0), std::invalid_argument);
}

TEST_CASE("reference bn: forward training, spatial, with running statistics") {
    // x {N=2, C=2, 1, 2}. Channel 0 values 1, 3, 5, 7: M = 4, mean 4, biased var (9+1+1+9)/4 = 5,
    // eps 4 -> inv_std 1/3; scale 3, bias 1 -> y = x - 3. Channel 1 is constant 5: var 0,
    // inv_std 1/2, y = bias = -1.
    const Tensor x{{2, 2, 1, 2}, {1, 3, 5, 5, 5, 7, 5, 5}};
    RunningStats running{param({2, 0}), param({1, 2})};
    Tensor saved_mean, saved_inv;
    const Tensor y = bn_forward_training(x, BnMode::spatial, param({3, 2}), param({1, -1}), 4.0, 0.25, &running,
                                         saved_mean, saved_inv);
    check_values(y, {-2, 0, -1, -1, 2, 4, -1, -1});
    check_values(saved_mean, {4, 5});
    check_values(saved_inv, {1.0 / 3.0, 0.5});
    CHECK(saved_mean.lengths == Lengths{1, 2, 1, 1});
    // f = 0.25: mean 0.75*2 + 0.25*4 = 2.5, 0.75*0 + 0.25*5 = 1.25;
    // var (unbiased, M/(M-1) = 4/3): 0.75*1 + 0.25*5*4/3 = 2.41666..., 0.75*2 + 0 = 1.5.
    check_values(running.mean, {2.5, 1.25});
    check_values(running.var, {0.75 + 5.0 / 3.0, 1.5});
}

TEST_CASE("reference bn: forward training, per-activation") {
    // x {N=2, C=1, 1, 2}: M = N = 2 per position. s0: 1, 3 -> mean 2, var 1; s1: 10, 10 -> mean 10,
    // var 0. eps 3 -> inv_std [1/2, 1/sqrt(3)]. scale [2, 1], bias [0, 5]:
    // s0: y = 2 (x - 2) / 2 = -1, 1; s1: y = 5.
    const Tensor x{{2, 1, 1, 2}, {1, 10, 3, 10}};
    const Tensor scale{{1, 1, 1, 2}, {2, 1}}, bias{{1, 1, 1, 2}, {0, 5}};
    RunningStats running{Tensor{{1, 1, 1, 2}, {0, 0}}, Tensor{{1, 1, 1, 2}, {0, 0}}};
    Tensor saved_mean, saved_inv;
    const Tensor y = bn_forward_training(x, BnMode::per_activation, scale, bias, 3.0, 0.5, &running, saved_mean,
                                         saved_inv);
    check_values(y, {-1, 5, 1, 5});
    check_values(saved_mean, {2, 10});
    check_values(saved_inv, {0.5, 1.0 / std::sqrt(3.0)});
    CHECK(saved_mean.lengths == Lengths{1, 1, 1, 2});
    // f = 0.5: mean 0.5 * [2, 10]; var 0.5 * var * 2/1 = [1, 0].
    check_values(running.mean, {1, 5});
    check_values(running.var, {1, 0});
}

TEST_CASE("reference bn: forward training with M == 1 applies no correction") {
    // Per-activation with N = 1: M = 1, batch var 0; M/(M-1) would be 1/0 and 0 * inf = NaN.
    const Tensor x{{1, 1, 1, 2}, {3, 4}};
    const Tensor ones{{1, 1, 1, 2}, {1, 1}}, zeros{{1, 1, 1, 2}, {0, 0}};
    RunningStats running{Tensor{{1, 1, 1, 2}, {0, 0}}, Tensor{{1, 1, 1, 2}, {2, 2}}};
    Tensor saved_mean, saved_inv;
    const Tensor y = bn_forward_training(x, BnMode::per_activation, ones, zeros, 1.0, 0.5, &running, saved_mean,
                                         saved_inv);
    check_values(y, {0, 0});
    check_values(running.mean, {1.5, 2});
    check_values(running.var, {1, 1});  // 0.5 * 2 + 0.5 * 0
    // Spatial with N = H = W = 1 is M = 1 too.
    RunningStats r2{param({0}), param({4})};
    bn_forward_training(Tensor{{1, 1, 1, 1}, {7}}, BnMode::spatial, param({1}), param({0}), 1.0, 0.25, &r2,
                        saved_mean, saved_inv);
    check_values(r2.var, {3});
    check_values(r2.mean, {1.75});
}

TEST_CASE("reference bn: forward training without running statistics") {
    const Tensor x{{2, 1, 1, 2}, {1, 3, 5, 7}};
    Tensor saved_mean, saved_inv;
    const Tensor y = bn_forward_training(x, BnMode::spatial, param({3}), param({1}), 4.0, 0.25, nullptr, saved_mean,
                                         saved_inv);
    check_values(y, {-2, 0, 2, 4});
    check_values(saved_mean, {4});
    check_values(saved_inv, {1.0 / 3.0});
}

TEST_CASE("reference bn: two-pass variance survives a large mean") {
    // x = 1e8 + {-1, 1}: a one-pass sum of squares in double loses the variance entirely.
    const Tensor x{{2, 1, 1, 1}, {1e8 - 1, 1e8 + 1}};
    Tensor saved_mean, saved_inv;
    bn_forward_training(x, BnMode::spatial, param({1}), param({0}), 0.0, 0.0, nullptr, saved_mean, saved_inv);
    check_values(saved_inv, {1.0});
}

TEST_CASE("reference bn: backward, spatial, hand-computed") {
    // x = [1, 2, 4] (N=3), saved mean 2, inv var 0.5 -> xhat = [-0.5, 0, 1]; scale 3; dz = [2, -1, 4].
    // dbias = 5, dscale = -1 + 0 + 4 = 3; dx = (3 * 0.5 / 3) (3 dz - 5 - 3 xhat) = 0.5 [2.5, -8, 4].
    const Tensor x{{3, 1, 1, 1}, {1, 2, 4}};
    const Tensor dz{{3, 1, 1, 1}, {2, -1, 4}};
    Tensor dscale, dbias;
    const Tensor dx = bn_backward(dz, x, BnMode::spatial, param({3}), param({2}), param({0.5}), dscale, dbias);
    check_values(dx, {1.25, -4, 2});
    check_values(dscale, {3});
    check_values(dbias, {5});
}

TEST_CASE("reference bn: backward, per-activation, hand-computed") {
    // x {N=3, C=1, 1, 2}. Position 0 repeats the spatial case (scale 3, mean 2, inv var 0.5).
    // Position 1: x = [1, -1, 0], mean 0, inv var 1 -> xhat = x; scale 2; dz = [1, 0, 2].
    //   A = sum scale dz = 6, B = sum scale dz xhat = 2; dx = (1/3)(3*2*dz - 6 - 2 xhat)
    //   = (1/3)[-2, -4, 6]; dscale = sum xhat dz = 1, dbias = 3.
    const Tensor x{{3, 1, 1, 2}, {1, 1, 2, -1, 4, 0}};
    const Tensor dz{{3, 1, 1, 2}, {2, 1, -1, 0, 4, 2}};
    const Tensor scale{{1, 1, 1, 2}, {3, 2}}, mean{{1, 1, 1, 2}, {2, 0}}, inv{{1, 1, 1, 2}, {0.5, 1}};
    Tensor dscale, dbias;
    const Tensor dx = bn_backward(dz, x, BnMode::per_activation, scale, mean, inv, dscale, dbias);
    check_values(dx, {1.25, -2.0 / 3.0, -4, -4.0 / 3.0, 2, 2});
    check_values(dscale, {3, 1});
    check_values(dbias, {5, 3});
    CHECK(dscale.lengths == Lengths{1, 1, 1, 2});
}

TEST_CASE("reference bn: backward equals finite differences of the training forward") {
    for (const BnMode mode : {BnMode::spatial, BnMode::per_activation}) {
        CAPTURE(name(mode));
        Tensor x = make_tensor({3, 2, 2, 2}), dz = x;
        fill_uniform(x, -1, 2, 1, DType::f32);
        fill_uniform(dz, -1, 1, 2, DType::f32);
        Tensor scale = make_tensor(bn_param_lengths(x.lengths, mode)), bias = scale;
        fill_uniform(scale, 0.5, 1.5, 3, DType::f32);
        fill_uniform(bias, -1, 1, 4, DType::f32);
        const double eps = 1e-3;
        Tensor mean, inv, dscale, dbias;
        bn_forward_training(x, mode, scale, bias, eps, 0.0, nullptr, mean, inv);
        const Tensor dx = bn_backward(dz, x, mode, scale, mean, inv, dscale, dbias);

        const double h = 1e-6;
        auto numeric = [&](Tensor& t, std::int64_t i) {
            const double keep = t[i];
            t[i] = keep + h;
            const double up = loss(x, mode, scale, bias, dz, eps);
            t[i] = keep - h;
            const double down = loss(x, mode, scale, bias, dz, eps);
            t[i] = keep;
            return (up - down) / (2 * h);
        };
        for (std::int64_t i = 0; i < x.numel(); ++i) {
            CHECK(dx[i] == doctest::Approx(numeric(x, i)).epsilon(1e-6));
        }
        for (std::int64_t p = 0; p < scale.numel(); ++p) {
            CHECK(dscale[p] == doctest::Approx(numeric(scale, p)).epsilon(1e-6));
            CHECK(dbias[p] == doctest::Approx(numeric(bias, p)).epsilon(1e-6));
        }
    }
}

TEST_CASE("reference bn: 3-D and 5-D inputs") {
    Tensor x = make_tensor({2, 3, 2, 2, 3});
    fill_uniform(x, -1, 1, 5, DType::f32);
    Tensor mean, inv;
    const Tensor one = make_tensor(bn_param_lengths(x.lengths, BnMode::spatial), 1.0);
    const Tensor zero = make_tensor(one.lengths, 0.0);
    const Tensor y = bn_forward_training(x, BnMode::spatial, one, zero, 0.0, 0.0, nullptr, mean, inv);
    // Normalised output: every channel has mean 0 and biased variance 1.
    for (std::int64_t c = 0; c < 3; ++c) {
        double s = 0, sq = 0;
        for (std::int64_t n = 0; n < 2; ++n)
            for (std::int64_t i = 0; i < 12; ++i) {
                const double v = y[(n * 3 + c) * 12 + i];
                s += v;
                sq += v * v;
            }
        CHECK(s / 24 == doctest::Approx(0.0).epsilon(1e-12));
        CHECK(sq / 24 == doctest::Approx(1.0).epsilon(1e-12));
    }
    CHECK_THROWS_AS(bn_inference(Tensor{{2, 3}, {1, 2, 3, 4, 5, 6}}, BnMode::spatial, param({1, 1, 1}),
                                 param({0, 0, 0}), param({0, 0, 0}), param({1, 1, 1}), 0.0),
                    std::invalid_argument);
}
