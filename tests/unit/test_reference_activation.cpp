// The ten activations of the CPU reference, forward and backward, with hand-computed values.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "hipfuse/reference/activation.h"

using namespace hipfuse::ref;

namespace {

using M = ActivationMode;

double fwd(M m, double x, double a = 1.0, double b = 0.0, double g = 1.0) { return activation_forward(x, m, a, b, g); }

// Backward with y recomputed from x, as the chain does.
double bwd(M m, double dy, double x, double a = 1.0, double b = 0.0, double g = 1.0) {
    return activation_backward(dy, x, fwd(m, x, a, b, g), m, a, b, g);
}

doctest::Approx near(double v) { return doctest::Approx(v).epsilon(1e-14); }

}  // namespace

TEST_CASE("reference activation: mode values equal miopenActivationMode_t") {
    CHECK(static_cast<int>(M::pasthru) == 0);
    CHECK(static_cast<int>(M::logistic) == 1);
    CHECK(static_cast<int>(M::tanh) == 2);
    CHECK(static_cast<int>(M::relu) == 3);
    CHECK(static_cast<int>(M::softrelu) == 4);
    CHECK(static_cast<int>(M::abs) == 5);
    CHECK(static_cast<int>(M::power) == 6);
    CHECK(static_cast<int>(M::clippedrelu) == 7);
    CHECK(static_cast<int>(M::leakyrelu) == 8);
    CHECK(static_cast<int>(M::elu) == 9);
    CHECK(std::string(name(M::clippedrelu)) == "CLIPPEDRELU");
}

TEST_CASE("reference activation: PASTHRU") {
    CHECK(fwd(M::pasthru, -1.5) == -1.5);
    CHECK(bwd(M::pasthru, 2.5, -1.5) == 2.5);
}

TEST_CASE("reference activation: LOGISTIC") {
    CHECK(fwd(M::logistic, 0.0) == 0.5);
    CHECK(fwd(M::logistic, std::log(3.0)) == near(0.75));  // 1 / (1 + 1/3)
    CHECK(fwd(M::logistic, -std::log(3.0)) == near(0.25));
    // dy * y * (1 - y) = 2 * 0.75 * 0.25
    CHECK(bwd(M::logistic, 2.0, std::log(3.0)) == near(0.375));
}

TEST_CASE("reference activation: TANH uses alpha and beta") {
    // alpha = 2, beta = 3, x = ln(2) / 2: tanh(ln 2) = (2 - 1/2) / (2 + 1/2) = 0.6, y = 3 * 0.6 = 1.8.
    const double x = std::log(2.0) / 2.0;
    CHECK(fwd(M::tanh, x, 2.0, 3.0) == near(1.8));
    // dy * alpha * (beta - y^2 / beta) = 2 * 2 * (3 - 3.24 / 3) = 7.68
    // (= dy * alpha * beta * (1 - tanh^2) = 2 * 6 * 0.64).
    CHECK(bwd(M::tanh, 2.0, x, 2.0, 3.0) == near(7.68));
    // beta = 0: forward 0, backward 0 rather than y^2 / 0; |beta| <= 1e-6 counts as 0.
    CHECK(fwd(M::tanh, x, 2.0, 0.0) == 0.0);
    CHECK(bwd(M::tanh, 2.0, x, 2.0, 0.0) == 0.0);
    CHECK(bwd(M::tanh, 2.0, x, 2.0, 1e-7) == 0.0);
    CHECK(bwd(M::tanh, 2.0, x, 2.0, -1e-6) == 0.0);
    CHECK(bwd(M::tanh, 2.0, 0.0, 1.0, 1e-5) == near(2.0 * 1e-5));  // above the threshold: alpha*beta*dy
}

TEST_CASE("reference activation: RELU") {
    CHECK(fwd(M::relu, -2.0) == 0.0);
    CHECK(fwd(M::relu, 0.0) == 0.0);
    CHECK(fwd(M::relu, 3.0) == 3.0);
    CHECK(std::isnan(fwd(M::relu, std::nan(""))));  // kernel: x * [x > 0] keeps NaN
    CHECK(bwd(M::relu, 5.0, 3.0) == 5.0);
    CHECK(bwd(M::relu, 5.0, -2.0) == 0.0);
    CHECK(bwd(M::relu, 5.0, 0.0) == 0.0);
}

TEST_CASE("reference activation: SOFTRELU") {
    CHECK(fwd(M::softrelu, 0.0) == near(std::log(2.0)));
    CHECK(fwd(M::softrelu, std::log(3.0)) == near(std::log(4.0)));        // log(1 + 3)
    CHECK(fwd(M::softrelu, -std::log(3.0)) == near(std::log(4.0 / 3.0)));  // log(1 + 1/3)
    CHECK(fwd(M::softrelu, 1000.0) == 1000.0);  // no overflow of e^x
    CHECK(fwd(M::softrelu, -1000.0) == 0.0);
    // e = exp(min(x, 50)); dy * e / (e + 1): x = ln 3 gives 2 * 3 / 4.
    CHECK(bwd(M::softrelu, 2.0, std::log(3.0)) == near(1.5));
    CHECK(bwd(M::softrelu, 2.0, 1000.0) == near(2.0));  // clamped at 50, no inf / inf
}

TEST_CASE("reference activation: ABS") {
    CHECK(fwd(M::abs, -2.5) == 2.5);
    CHECK(fwd(M::abs, 2.0) == 2.0);
    CHECK(bwd(M::abs, 3.0, -2.5) == -3.0);
    CHECK(bwd(M::abs, 3.0, 2.0) == 3.0);
    CHECK(bwd(M::abs, 3.0, 0.0) == -3.0);  // sign(0) is taken as -1, as in the kernels
}

TEST_CASE("reference activation: POWER with alpha, beta, gamma and the 1e-6 threshold") {
    // v = 1 + 2 * 0.5 = 2, y = 2^3 = 8.
    CHECK(fwd(M::power, 0.5, 1.0, 2.0, 3.0) == near(8.0));
    // dx = dy * (beta * gamma) * y / v = 0.5 * 6 * 8 / 2 = 12 (= dy * gamma * beta * v^2).
    // MIOpen would return 24 here: it drops dy.
    CHECK(bwd(M::power, 0.5, 0.5, 1.0, 2.0, 3.0) == near(12.0));
    // v <= 1e-6 gives 0 both ways.
    CHECK(fwd(M::power, -0.5, 1.0, 2.0, 3.0) == 0.0);  // v = 0
    CHECK(bwd(M::power, 0.5, -0.5, 1.0, 2.0, 3.0) == 0.0);
    CHECK(fwd(M::power, 7.0, 1e-6, 0.0, 1.0) == 0.0);   // v = 1e-6 exactly: at the threshold
    CHECK(fwd(M::power, 7.0, 5e-7, 0.0, 1.0) == 0.0);   // above DBL_EPSILON, still below the kernels' 1e-6
    CHECK(fwd(M::power, 7.0, 2e-6, 0.0, 1.0) == 2e-6);  // above: v^1
    CHECK(fwd(M::power, 2.0, 0.0, 1.0, 0.5) == near(std::sqrt(2.0)));
}

TEST_CASE("reference activation: CLIPPEDRELU bounds") {
    const double a = 6.0;
    CHECK(fwd(M::clippedrelu, -1.0, a) == 0.0);
    CHECK(fwd(M::clippedrelu, 3.0, a) == 3.0);
    CHECK(fwd(M::clippedrelu, 6.0, a) == 6.0);
    CHECK(fwd(M::clippedrelu, 7.0, a) == 6.0);
    // dy only for 0 < x <= alpha.
    CHECK(bwd(M::clippedrelu, 5.0, -1.0, a) == 0.0);
    CHECK(bwd(M::clippedrelu, 5.0, 0.0, a) == 0.0);
    CHECK(bwd(M::clippedrelu, 5.0, 3.0, a) == 5.0);
    CHECK(bwd(M::clippedrelu, 5.0, 6.0, a) == 5.0);
    CHECK(bwd(M::clippedrelu, 5.0, 7.0, a) == 0.0);
}

TEST_CASE("reference activation: LEAKYRELU") {
    CHECK(fwd(M::leakyrelu, -2.0, 0.1) == near(-0.2));
    CHECK(fwd(M::leakyrelu, 3.0, 0.1) == 3.0);
    CHECK(bwd(M::leakyrelu, 5.0, -2.0, 0.1) == near(0.5));
    CHECK(bwd(M::leakyrelu, 5.0, 3.0, 0.1) == 5.0);
    CHECK(bwd(M::leakyrelu, 5.0, 0.0, 0.1) == near(0.5));
}

TEST_CASE("reference activation: ELU") {
    // alpha = 2: x = -ln 2 gives 2 * (1/2 - 1) = -1.
    CHECK(fwd(M::elu, 3.0, 2.0) == 3.0);
    CHECK(fwd(M::elu, -std::log(2.0), 2.0) == near(-1.0));
    // dy * (y + alpha) for x <= 0: 3 * (-1 + 2) = 3 (= dy * alpha * e^x).
    CHECK(bwd(M::elu, 3.0, -std::log(2.0), 2.0) == near(3.0));
    CHECK(bwd(M::elu, 3.0, 3.0, 2.0) == 3.0);
}

TEST_CASE("reference activation: backward is the derivative of forward (central differences)") {
    struct Case {
        M mode;
        double a, b, g;
    };
    const std::vector<Case> cases{{M::pasthru, 1, 0, 1},     {M::logistic, 1, 0, 1},    {M::tanh, 0.7, 1.3, 1},
                                  {M::relu, 1, 0, 1},        {M::softrelu, 1, 0, 1},    {M::abs, 1, 0, 1},
                                  {M::power, 2.0, 0.5, 2.5}, {M::clippedrelu, 1.2, 0, 1}, {M::leakyrelu, 0.3, 0, 1},
                                  {M::elu, 0.8, 0, 1}};
    // Points away from every kink (0, alpha of CLIPPEDRELU, v = 0 of POWER).
    for (const Case& c : cases) {
        CAPTURE(name(c.mode));
        for (const double x : {-2.3, -0.4, 0.35, 0.9, 2.7}) {
            const double h = 1e-6, dy = 1.7;
            const double numeric = dy * (fwd(c.mode, x + h, c.a, c.b, c.g) - fwd(c.mode, x - h, c.a, c.b, c.g)) / (2 * h);
            CHECK(bwd(c.mode, dy, x, c.a, c.b, c.g) == doctest::Approx(numeric).epsilon(1e-7).scale(1.0));
        }
    }
}

TEST_CASE("reference activation: tensor forms apply the scalar forms element by element") {
    const Tensor x{{1, 2, 1, 2}, {-1.0, 0.5, 2.0, -3.0}};
    const Tensor y = activation_forward(x, M::elu, 0.5, 0, 1);
    const Tensor dy{{1, 2, 1, 2}, {1.0, 2.0, 3.0, 4.0}};
    const Tensor dx = activation_backward(dy, x, y, M::elu, 0.5, 0, 1);
    CHECK(y.lengths == x.lengths);
    for (std::int64_t i = 0; i < 4; ++i) {
        CHECK(y[i] == fwd(M::elu, x[i], 0.5));
        CHECK(dx[i] == bwd(M::elu, dy[i], x[i], 0.5));
    }
    CHECK_THROWS_AS(activation_backward(dy, Tensor{{1, 4}, {1, 2, 3, 4}}, y, M::relu, 1, 0, 1), std::invalid_argument);
    CHECK_THROWS_AS(activation_forward(1.0, static_cast<M>(42), 1, 0, 1), std::invalid_argument);
}
