// Plan-order chains of the CPU reference: forward chains, the backward pair, sampling, rounding.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hipfuse/reference/chain.h"
#include "hipfuse/reference/elementwise.h"
#include "hipfuse/reference/fill.h"
#include "hipfuse/reference/random.h"

using namespace hipfuse::ref;

namespace {

using Lengths = std::vector<std::int64_t>;
using Values = std::vector<double>;

Tensor param(Values v) {
    const auto n = static_cast<std::int64_t>(v.size());
    return Tensor{{1, n, 1, 1}, std::move(v)};
}

Tensor random_tensor(Lengths lengths, int lo, int hi, std::uint64_t seed) {
    Tensor t = make_tensor(std::move(lengths));
    fill_integers(t, lo, hi, seed);
    return t;
}

void check_values(const Tensor& t, const Values& expected) {
    REQUIRE(t.data.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CAPTURE(i);
        CHECK(t.data[i] == doctest::Approx(expected[i]).epsilon(1e-14));
    }
}

// conv (grouped, padded, strided) -> bias -> residual -> BN inference -> activation, K = 4.
std::vector<Op> forward_plan(const Lengths& x_lengths, BnMode bn_mode, ActivationMode act) {
    const ConvGeometry g{{1, 2}, {2, 1}, {1, 2}, 2};
    const Tensor w = random_tensor({4, x_lengths[1] / 2, 3, 3}, -2, 2, 11);
    const Lengths y_len = conv_output_lengths(x_lengths, w.lengths, g);
    const Lengths p_len = bn_param_lengths(y_len, bn_mode);
    Tensor scale = random_tensor(p_len, 1, 3, 12), bias = random_tensor(p_len, -2, 2, 13);
    Tensor mean = random_tensor(p_len, -3, 3, 14), var = random_tensor(p_len, 1, 4, 15);
    return {ConvOp{w, g, 1.0},
            BiasOp{param({1, -2, 3, -4})},
            ResidualAddOp{random_tensor(y_len, -3, 3, 16), 0.5},
            BnInferenceOp{bn_mode, scale, bias, mean, var, 1e-5},
            ActivationForwardOp{act, 0.5, 1.5, 2.0}};
}

}  // namespace

TEST_CASE("reference chain: conv + bias + activation equals the ops composed") {
    const Tensor x = random_tensor({2, 3, 6, 7}, -3, 3, 1);
    const Tensor w = random_tensor({4, 3, 3, 3}, -2, 2, 2);
    const ConvGeometry g{{1, 1}, {1, 1}, {1, 1}, 1};
    std::vector<Op> ops{ConvOp{w, g, 1.0}, BiasOp{param({1, 2, 3, 4})},
                        ActivationForwardOp{ActivationMode::leakyrelu, 0.1, 0, 1}};
    const Tensor y = run_chain(x, ops);
    const Tensor expected =
        activation_forward(bias_add(conv_forward(x, w, g), param({1, 2, 3, 4})), ActivationMode::leakyrelu, 0.1, 0, 1);
    CHECK(y.lengths == Lengths{2, 4, 6, 7});
    CHECK(y.data == expected.data);
    CHECK(chain_output_lengths(x.lengths, ops) == y.lengths);
}

TEST_CASE("reference chain: ops run in plan order") {
    // [activation, bias] is not [bias, activation]: relu(-3) + 1 = 1, relu(-3 + 1) = 0.
    const Tensor x{{1, 1, 1, 1}, {-3}};
    std::vector<Op> act_then_bias{ActivationForwardOp{ActivationMode::relu, 1, 0, 1}, BiasOp{param({1})}};
    std::vector<Op> bias_then_act{BiasOp{param({1})}, ActivationForwardOp{ActivationMode::relu, 1, 0, 1}};
    CHECK(run_chain(x, act_then_bias).data == Values{1});
    CHECK(run_chain(x, bias_then_act).data == Values{0});
}

TEST_CASE("reference chain: one-shot conv-bias-activation form, alpha1 * conv + alpha2 * z + bias") {
    // 1x1 conv with w = 2 on x = [1, -4]: conv = [2, -8]; alpha1 = 0.5 -> [1, -4]; z = [10, 10],
    // alpha2 = 0.25 -> [3.5, -1.5]; bias 1 -> [4.5, -0.5]; relu -> [4.5, 0].
    const Tensor x{{1, 1, 1, 2}, {1, -4}};
    std::vector<Op> ops{ConvOp{Tensor{{1, 1, 1, 1}, {2}}, {}, 0.5}, ResidualAddOp{Tensor{{1, 1, 1, 2}, {10, 10}}, 0.25},
                        BiasOp{param({1})}, ActivationForwardOp{ActivationMode::relu, 1, 0, 1}};
    CHECK(run_chain(x, ops).data == Values{4.5, 0});
}

TEST_CASE("reference chain: BN inference + activation") {
    const Tensor x{{2, 2, 1, 2}, {4, 0, 18, 2, 2, 6, 10, 26}};
    // Same numbers as the bn inference test: BN gives [3,-1, 0,-2, 1,5, -1,1]; then RELU.
    std::vector<Op> ops{BnInferenceOp{BnMode::spatial, param({2, 0.5}), param({1, -1}), param({2, 10}),
                                      param({3, 15}), 1.0},
                        ActivationForwardOp{ActivationMode::relu, 1, 0, 1}};
    check_values(run_chain(x, ops), {3, 0, 0, 0, 1, 5, 0, 1});
}

TEST_CASE("reference chain: BN forward training + activation writes its outputs into the op") {
    const Tensor x{{2, 1, 1, 2}, {1, 3, 5, 7}};
    std::vector<Op> ops{BnForwardTrainingOp{BnMode::spatial, param({3}), param({1}), 4.0, 0.25,
                                            RunningStats{param({2}), param({1})}, {}, {}},
                        ActivationForwardOp{ActivationMode::relu, 1, 0, 1}};
    // BN: y = x - 3 = [-2, 0, 2, 4]; RELU -> [0, 0, 2, 4].
    check_values(run_chain(x, ops), {0, 0, 2, 4});
    const auto& bn = std::get<BnForwardTrainingOp>(ops[0]);
    check_values(bn.saved_mean, {4});
    check_values(bn.saved_inv_var, {1.0 / 3.0});
    check_values(bn.running->mean, {2.5});
    check_values(bn.running->var, {0.75 + 5.0 / 3.0});

    // Without running statistics nothing is created or updated.
    std::vector<Op> no_running{BnForwardTrainingOp{BnMode::spatial, param({3}), param({1}), 4.0, 0.25, std::nullopt, {}, {}}};
    check_values(run_chain(x, no_running), {-2, 0, 2, 4});
    CHECK_FALSE(std::get<BnForwardTrainingOp>(no_running[0]).running.has_value());
}

TEST_CASE("reference chain: [BN backward, activation backward] runs activation backward first") {
    // Spatial, x = [1, 2, 4], saved mean 2, inv var 0.5 -> xhat = [-0.5, 0, 1]; scale 3, bias -1
    // -> z = 3 xhat - 1 = [-2.5, -1, 2]; forward RELU output y = [0, 0, 2].
    // dy = [7, 9, 4] -> dz = dy * [z > 0] = [0, 0, 4].
    // BN backward: dbias = 4, dscale = 1 * 4 = 4, dx = (3 * 0.5 / 3)(3 dz - 4 - 4 xhat)
    //   = 0.5 [0 - 4 + 2, 0 - 4 - 0, 12 - 4 - 4] = [-1, -2, 2].
    const Tensor x{{3, 1, 1, 1}, {1, 2, 4}};
    const Tensor dy{{3, 1, 1, 1}, {7, 9, 4}};
    BnBackwardOp bn{BnMode::spatial, x, param({3}), param({-1}), param({2}), param({0.5}), {}, {}};
    std::vector<Op> ops{bn, ActivationBackwardOp{ActivationMode::relu, 1, 0, 1, Tensor{{3, 1, 1, 1}, {0, 0, 2}}}};
    check_values(run_chain(dy, ops), {-1, -2, 2});
    check_values(std::get<BnBackwardOp>(ops[0]).dscale, {4});
    check_values(std::get<BnBackwardOp>(ops[0]).dbias, {4});

    // ELU uses both z (sign) and y: dz = dy * (z > 0 ? 1 : y + alpha).
    const double alpha = 0.5;
    const Tensor z = bn_normalize(x, BnMode::spatial, param({3}), param({-1}), param({2}), param({0.5}));
    const Tensor y = activation_forward(z, ActivationMode::elu, alpha, 0, 1);
    std::vector<Op> elu_ops{bn, ActivationBackwardOp{ActivationMode::elu, alpha, 0, 1, y}};
    const Tensor dz = activation_backward(dy, z, y, ActivationMode::elu, alpha, 0, 1);
    Tensor dscale, dbias;
    const Tensor expected = bn_backward(dz, x, BnMode::spatial, param({3}), param({2}), param({0.5}), dscale, dbias);
    CHECK(run_chain(dy, elu_ops).data == expected.data);
    CHECK(std::get<BnBackwardOp>(elu_ops[0]).dscale.data == dscale.data);
}

TEST_CASE("reference chain: BN backward alone is plain BN backward") {
    Tensor x = random_tensor({2, 3, 2, 2}, -4, 4, 1), dy = random_tensor({2, 3, 2, 2}, -4, 4, 2);
    const Tensor scale = random_tensor({1, 3, 2, 2}, 1, 3, 3), mean = random_tensor({1, 3, 2, 2}, -1, 1, 4);
    const Tensor inv = random_tensor({1, 3, 2, 2}, 1, 2, 5);
    std::vector<Op> ops{BnBackwardOp{BnMode::per_activation, x, scale, scale, mean, inv, {}, {}}};
    Tensor dscale, dbias;
    CHECK(run_chain(dy, ops).data == bn_backward(dy, x, BnMode::per_activation, scale, mean, inv, dscale, dbias).data);
    CHECK(std::get<BnBackwardOp>(ops[0]).dbias.data == dbias.data);
}

TEST_CASE("reference chain: activation backward anywhere else is rejected") {
    const Tensor t{{1, 1, 1, 1}, {1}};
    const ActivationBackwardOp act{ActivationMode::relu, 1, 0, 1, t};
    const BnBackwardOp bn{BnMode::spatial, t, param({1}), param({0}), param({0}), param({1}), {}, {}};
    std::vector<std::vector<Op>> bad{{act},
                                     {act, bn},
                                     {BiasOp{param({1})}, act},
                                     {bn, ActivationForwardOp{}, act},
                                     {bn, act, act}};
    for (auto& ops : bad) {
        CHECK_THROWS_WITH_AS(run_chain(t, ops), doctest::Contains("must directly follow a BnBackwardOp"),
                             std::invalid_argument);
    }
}

TEST_CASE("reference chain: sampled outputs equal the full chain at the sampled points") {
    for (const BnMode bn_mode : {BnMode::spatial, BnMode::per_activation}) {
        for (const ActivationMode act : {ActivationMode::elu, ActivationMode::power, ActivationMode::clippedrelu}) {
            CAPTURE(name(bn_mode));
            CAPTURE(name(act));
            const Tensor x = random_tensor({3, 4, 9, 10}, -3, 3, 21);
            std::vector<Op> ops = forward_plan(x.lengths, bn_mode, act);
            const Tensor full = run_chain(x, ops);
            const auto indices = sample_indices(200, full.numel(), 5);
            const std::vector<double> sampled = run_chain_sampled(x, ops, indices);
            REQUIRE(sampled.size() == indices.size());
            // Integer data makes the conv exact in any summation order: identical results.
            for (std::size_t i = 0; i < indices.size(); ++i) REQUIRE(sampled[i] == full[indices[i]]);
        }
    }
}

TEST_CASE("reference chain: sampling with rounded intermediates and without a conv") {
    const Tensor x = random_tensor({2, 4, 7, 8}, -3, 3, 31);
    std::vector<Op> ops = forward_plan(x.lengths, BnMode::spatial, ActivationMode::tanh);
    const ChainOptions f16{DType::f16};
    const Tensor full = run_chain(x, ops, f16);
    const auto indices = sample_indices(100, full.numel(), 6);
    const auto sampled = run_chain_sampled(x, ops, indices, f16);
    for (std::size_t i = 0; i < indices.size(); ++i) REQUIRE(sampled[i] == full[indices[i]]);

    std::vector<Op> no_conv{BnInferenceOp{BnMode::spatial, param({2, 1, 1, 1}), param({0, 1, 0, 1}),
                                          param({1, 0, 0, 0}), param({1, 1, 3, 1}), 0.0},
                            ActivationForwardOp{ActivationMode::softrelu, 1, 0, 1}};
    const Tensor full2 = run_chain(x, no_conv);
    const auto idx2 = sample_indices(50, full2.numel(), 7);
    const auto sampled2 = run_chain_sampled(x, no_conv, idx2);
    for (std::size_t i = 0; i < idx2.size(); ++i) REQUIRE(sampled2[i] == full2[idx2[i]]);
}

TEST_CASE("reference chain: sampling rejects whole-tensor ops and bad indices") {
    const Tensor x{{2, 1, 1, 2}, {1, 3, 5, 7}};
    std::vector<Op> training{BnForwardTrainingOp{BnMode::spatial, param({1}), param({0}), 1e-5, 0.1, std::nullopt, {}, {}}};
    CHECK_THROWS_WITH_AS(run_chain_sampled(x, training, {0}), doctest::Contains("sampling is not possible"),
                         std::invalid_argument);
    std::vector<Op> backward{BnBackwardOp{BnMode::spatial, x, param({1}), param({0}), param({0}), param({1}), {}, {}}};
    CHECK_THROWS_AS(run_chain_sampled(x, backward, {0}), std::invalid_argument);
    std::vector<Op> bias{BiasOp{param({1})}};
    CHECK_THROWS_AS(run_chain_sampled(x, bias, {4}), std::out_of_range);
    CHECK(run_chain_sampled(x, bias, {3}) == Values{8});
}

TEST_CASE("reference chain: rounded intermediates model unfused kernels") {
    // 1/3 + 1/3 in fp16: each op's result is rounded: bias 1/3 on x = 0 gives fp16(1/3) =
    // 0.333251953125, the second bias adds 1/3 and rounds again: fp16(0.666585286...) = 0.66650390625.
    const Tensor x{{1, 1, 1, 1}, {0}};
    std::vector<Op> ops{BiasOp{param({1.0 / 3.0})}, BiasOp{param({1.0 / 3.0})}};
    CHECK(run_chain(x, ops).data[0] == doctest::Approx(2.0 / 3.0).epsilon(1e-15));
    CHECK(run_chain(x, ops, ChainOptions{DType::f16}).data[0] == 0.66650390625);
    // Every element of a rounded chain is representable in the dtype.
    const Tensor xr = random_tensor({2, 4, 7, 8}, -3, 3, 41);
    std::vector<Op> plan = forward_plan(xr.lengths, BnMode::per_activation, ActivationMode::logistic);
    for (const double v : run_chain(xr, plan, ChainOptions{DType::bf16}).data) REQUIRE(round_to(DType::bf16, v) == v);
}

TEST_CASE("reference chain: shape errors are reported") {
    const Tensor x{{1, 2, 3, 3}, Values(18, 1.0)};
    std::vector<Op> bad_bias{BiasOp{param({1, 2, 3})}};
    CHECK_THROWS_AS(run_chain(x, bad_bias), std::invalid_argument);
    std::vector<Op> bad_z{ResidualAddOp{Tensor{{1, 2, 3, 2}, Values(12, 1.0)}, 1.0}};
    CHECK_THROWS_AS(run_chain(x, bad_z), std::invalid_argument);
    CHECK_THROWS_AS(chain_output_lengths(x.lengths, bad_z), std::invalid_argument);
    std::vector<Op> bad_conv{ConvOp{make_tensor({2, 3, 3, 3}), {}, 1.0}};
    CHECK_THROWS_AS(run_chain(x, bad_conv), std::invalid_argument);
}

TEST_CASE("reference chain: the backward pair reports elements on a jump of the derivative") {
    // z = scale (x - mean) inv_var + bias = x - 2: element 0 sits on RELU's jump (z = 0), the
    // others are far from it. Its second value is dx with dz[0] taken on the other side (dy[0]).
    const Tensor x{{4, 1, 1, 1}, {2, 1, 4, 5}};
    const Tensor dy{{4, 1, 1, 1}, {7, 9, 4, -3}};
    const BnBackwardOp bn{BnMode::spatial, x, param({2}), param({0}), param({2}), param({0.5}), {}, {}};
    std::vector<Op> ops{bn, ActivationBackwardOp{ActivationMode::relu, 1, 0, 1, Tensor{{4, 1, 1, 1}, {0, 0, 2, 3}}}};
    std::vector<Alternate> alternates;
    ChainOptions options;
    options.alternates = &alternates;
    const Tensor dx = run_chain(dy, ops, options);
    REQUIRE(alternates.size() == 1);
    CHECK(alternates[0].index == 0);

    const Tensor dz_other{{4, 1, 1, 1}, {7, 0, 4, -3}};  // z = [0, -1, 2, 3], element 0 counted as z > 0
    Tensor dscale, dbias;
    const Tensor dx_other = bn_backward(dz_other, x, BnMode::spatial, param({2}), param({2}), param({0.5}), dscale, dbias);
    CHECK(alternates[0].value == doctest::Approx(dx_other[0]).epsilon(1e-14));
    CHECK(alternates[0].value != doctest::Approx(dx[0]));

    // Without the option nothing is reported and the result is the same.
    CHECK(run_chain(dy, ops).data == dx.data);
}

TEST_CASE("reference activation: the other side of a derivative jump") {
    double other = 0.0;
    CHECK(activation_backward_other_side(5.0, 0.0, 0.0, ActivationMode::relu, 1, 0, 1, 1e-6, &other));
    CHECK(other == 5.0);
    CHECK(activation_backward_other_side(5.0, 1e-7, 1e-7, ActivationMode::relu, 1, 0, 1, 1e-6, &other));
    CHECK(other == 0.0);
    CHECK_FALSE(activation_backward_other_side(5.0, 1e-3, 1e-3, ActivationMode::relu, 1, 0, 1, 1e-6, &other));
    CHECK(activation_backward_other_side(5.0, 6.0, 6.0, ActivationMode::clippedrelu, 6, 0, 1, 1e-6, &other));
    CHECK(other == 0.0);
    CHECK(activation_backward_other_side(2.0, -1e-9, 0.0, ActivationMode::leakyrelu, 0.1, 0, 1, 1e-6, &other));
    CHECK(other == 2.0);
    CHECK_FALSE(activation_backward_other_side(2.0, 0.0, 0.0, ActivationMode::leakyrelu, 1.0, 0, 1, 1e-6, &other));
    CHECK_FALSE(activation_backward_other_side(2.0, 0.0, 0.5, ActivationMode::logistic, 1, 0, 1, 1e-6, &other));
}
