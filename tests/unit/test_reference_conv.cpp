// Forward convolution of the CPU reference: hand-computed cases and a naive loop-nest reference.
#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hipfuse/reference/conv.h"
#include "hipfuse/reference/fill.h"

using namespace hipfuse::ref;

namespace {

using Lengths = std::vector<std::int64_t>;

Tensor tensor(Lengths lengths, std::vector<double> data) { return Tensor{std::move(lengths), std::move(data)}; }

// The textbook 2-D definition, written independently of the library: 7 loops, bounds checks inside.
Tensor naive_conv2d(const Tensor& x, const Tensor& w, std::int64_t ph, std::int64_t pw, std::int64_t sh,
                    std::int64_t sw, std::int64_t dh, std::int64_t dw, std::int64_t groups) {
    const std::int64_t N = x.lengths[0], C = x.lengths[1], H = x.lengths[2], W = x.lengths[3];
    const std::int64_t K = w.lengths[0], CG = w.lengths[1], R = w.lengths[2], S = w.lengths[3];
    const std::int64_t OH = (H + 2 * ph - (dh * (R - 1) + 1)) / sh + 1;
    const std::int64_t OW = (W + 2 * pw - (dw * (S - 1) + 1)) / sw + 1;
    const std::int64_t KG = K / groups;
    Tensor y = make_tensor({N, K, OH, OW});
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t oh = 0; oh < OH; ++oh)
                for (std::int64_t ow = 0; ow < OW; ++ow) {
                    double sum = 0;
                    for (std::int64_t c = 0; c < CG; ++c)
                        for (std::int64_t r = 0; r < R; ++r)
                            for (std::int64_t s = 0; s < S; ++s) {
                                const std::int64_t ih = oh * sh - ph + r * dh, iw = ow * sw - pw + s * dw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                const std::int64_t ci = (k / KG) * CG + c;
                                sum += x[((n * C + ci) * H + ih) * W + iw] * w[((k * CG + c) * R + r) * S + s];
                            }
                    y[((n * K + k) * OH + oh) * OW + ow] = sum;
                }
    return y;
}

// The same for 3-D (9 loops).
Tensor naive_conv3d(const Tensor& x, const Tensor& w, const Lengths& p, const Lengths& st, const Lengths& dl,
                    std::int64_t groups) {
    const std::int64_t N = x.lengths[0], C = x.lengths[1], D = x.lengths[2], H = x.lengths[3], W = x.lengths[4];
    const std::int64_t K = w.lengths[0], CG = w.lengths[1], T = w.lengths[2], R = w.lengths[3], S = w.lengths[4];
    const std::int64_t OD = (D + 2 * p[0] - (dl[0] * (T - 1) + 1)) / st[0] + 1;
    const std::int64_t OH = (H + 2 * p[1] - (dl[1] * (R - 1) + 1)) / st[1] + 1;
    const std::int64_t OW = (W + 2 * p[2] - (dl[2] * (S - 1) + 1)) / st[2] + 1;
    Tensor y = make_tensor({N, K, OD, OH, OW});
    std::int64_t out = 0;
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t od = 0; od < OD; ++od)
                for (std::int64_t oh = 0; oh < OH; ++oh)
                    for (std::int64_t ow = 0; ow < OW; ++ow) {
                        double sum = 0;
                        for (std::int64_t c = 0; c < CG; ++c)
                            for (std::int64_t t = 0; t < T; ++t)
                                for (std::int64_t r = 0; r < R; ++r)
                                    for (std::int64_t s = 0; s < S; ++s) {
                                        const std::int64_t id = od * st[0] - p[0] + t * dl[0];
                                        const std::int64_t ih = oh * st[1] - p[1] + r * dl[1];
                                        const std::int64_t iw = ow * st[2] - p[2] + s * dl[2];
                                        if (id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                        const std::int64_t ci = (k / (K / groups)) * CG + c;
                                        sum += x[(((n * C + ci) * D + id) * H + ih) * W + iw] *
                                               w[(((k * CG + c) * T + t) * R + r) * S + s];
                                    }
                        y[out++] = sum;
                    }
    return y;
}

// Integer data keeps every sum exact, so results must match bit for bit.
void check_against_naive2d(Lengths x_len, Lengths w_len, std::int64_t ph, std::int64_t pw, std::int64_t sh,
                           std::int64_t sw, std::int64_t dh, std::int64_t dw, std::int64_t groups) {
    Tensor x = make_tensor(std::move(x_len)), w = make_tensor(std::move(w_len));
    fill_integers(x, -5, 5, 1);
    fill_integers(w, -3, 3, 2);
    const ConvGeometry g{{ph, pw}, {sh, sw}, {dh, dw}, groups};
    const Tensor y = conv_forward(x, w, g);
    const Tensor expected = naive_conv2d(x, w, ph, pw, sh, sw, dh, dw, groups);
    REQUIRE(y.lengths == expected.lengths);
    CHECK(y.data == expected.data);
    for (std::int64_t i = 0; i < y.numel(); i += 13) {
        REQUIRE(conv_forward_at(x, w, g, multi_index(y.lengths, i)) == y[i]);
    }
}

}  // namespace

TEST_CASE("reference conv: hand-computed 2x2 filter, no padding") {
    // x = [1 2 3; 4 5 6; 7 8 9], w = [1 0; 0 1]: y[p,q] = x[p,q] + x[p+1,q+1].
    const Tensor x = tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    const Tensor w = tensor({1, 1, 2, 2}, {1, 0, 0, 1});
    const Tensor y = conv_forward(x, w, {});
    CHECK(y.lengths == Lengths{1, 1, 2, 2});
    CHECK(y.data == std::vector<double>{1 + 5, 2 + 6, 4 + 8, 5 + 9});
}

TEST_CASE("reference conv: hand-computed padded 3x3 box filter, two output channels") {
    // Box sums of x = 1..9 with zero padding 1: corner (0,0) = 1+2+4+5 = 12, edge (0,1) = 1+2+3+4+5+6
    // = 21, centre = 45. Channel 1 uses w = 2 * box, so it is twice channel 0.
    const Tensor x = tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    Tensor w = make_tensor({2, 1, 3, 3}, 1.0);
    for (std::int64_t i = 9; i < 18; ++i) w[i] = 2.0;
    const Tensor y = conv_forward(x, w, {{1, 1}, {1, 1}, {1, 1}, 1});
    CHECK(y.lengths == Lengths{1, 2, 3, 3});
    const std::vector<double> box{12, 21, 16, 27, 45, 33, 24, 39, 28};
    for (std::int64_t i = 0; i < 9; ++i) {
        CHECK(y[i] == box[static_cast<std::size_t>(i)]);
        CHECK(y[9 + i] == 2 * box[static_cast<std::size_t>(i)]);
    }
}

TEST_CASE("reference conv: hand-computed stride 2 and dilation 2") {
    // 1-D view: x = 0..6 (W = 7), w = [1, 10, 100].
    const Tensor x = tensor({1, 1, 1, 7}, {0, 1, 2, 3, 4, 5, 6});
    const Tensor w = tensor({1, 1, 1, 3}, {1, 10, 100});
    // stride 2: windows start at 0, 2, 4 -> x0 + 10 x1 + 100 x2 = 210, 432, 654.
    CHECK(conv_forward(x, w, {{0, 0}, {1, 2}, {1, 1}, 1}).data == std::vector<double>{210, 432, 654});
    // dilation 2: taps at q, q+2, q+4 for q = 0..2 -> 0+20+400 = 420, 531, 642.
    CHECK(conv_forward(x, w, {{0, 0}, {1, 1}, {1, 2}, 1}).data == std::vector<double>{420, 531, 642});
    // pad 1, stride 3: out = floor((7 + 2 - 3) / 3) + 1 = 3; windows start at -1, 2, 5:
    // 0*1 + 0*10 + 1*100 = 100; 2 + 30 + 400 = 432; 5 + 60 + 0 (padding) = 65.
    CHECK(conv_forward(x, w, {{0, 1}, {1, 3}, {1, 1}, 1}).data == std::vector<double>{100, 432, 65});
}

TEST_CASE("reference conv: hand-computed grouped and depthwise") {
    // x: 2 channels, each 1x2: c0 = [1, 2], c1 = [3, 4]. 1x1 filters.
    const Tensor x = tensor({1, 2, 1, 2}, {1, 2, 3, 4});
    // groups = 2, K = 2: k0 sees only c0 (w = 10), k1 only c1 (w = 100).
    const Tensor dw = tensor({2, 1, 1, 1}, {10, 100});
    CHECK(conv_forward(x, dw, {{}, {}, {}, 2}).data == std::vector<double>{10, 20, 300, 400});
    // groups = 1, K = 1: both channels summed: 1*10 + 3*100, 2*10 + 4*100.
    const Tensor full = tensor({1, 2, 1, 1}, {10, 100});
    CHECK(conv_forward(x, full, {}).data == std::vector<double>{310, 420});
    // groups = 2, K = 4 (channel multiplier 2): k0, k1 from c0; k2, k3 from c1.
    const Tensor mult = tensor({4, 1, 1, 1}, {1, -1, 2, -2});
    CHECK(conv_forward(x, mult, {{}, {}, {}, 2}).data == std::vector<double>{1, 2, -1, -2, 6, 8, -6, -8});
}

TEST_CASE("reference conv: against the naive 7-loop reference") {
    SUBCASE("plain 3x3 pad 1") { check_against_naive2d({2, 3, 9, 13}, {5, 3, 3, 3}, 1, 1, 1, 1, 1, 1, 1); }
    SUBCASE("grouped") { check_against_naive2d({2, 4, 8, 11}, {6, 2, 3, 3}, 1, 1, 1, 1, 1, 1, 2); }
    SUBCASE("depthwise") { check_against_naive2d({3, 5, 10, 9}, {5, 1, 3, 3}, 1, 1, 1, 1, 1, 1, 5); }
    SUBCASE("depthwise multiplier 2, stride 2") { check_against_naive2d({1, 3, 11, 12}, {6, 1, 5, 5}, 2, 2, 2, 2, 1, 1, 3); }
    SUBCASE("dilated") { check_against_naive2d({2, 3, 12, 17}, {4, 3, 3, 3}, 2, 2, 1, 1, 2, 2, 1); }
    SUBCASE("strided, asymmetric") { check_against_naive2d({2, 2, 15, 16}, {3, 2, 3, 5}, 1, 2, 2, 3, 1, 1, 1); }
    SUBCASE("padding larger than the filter reach") { check_against_naive2d({1, 2, 4, 5}, {2, 2, 3, 3}, 3, 4, 1, 1, 1, 1, 1); }
    SUBCASE("1x1 and 7x7 and 6x6 filters") {
        check_against_naive2d({2, 4, 7, 9}, {3, 4, 1, 1}, 0, 0, 1, 1, 1, 1, 1);
        check_against_naive2d({1, 3, 14, 21}, {2, 3, 7, 7}, 3, 3, 2, 2, 1, 1, 1);
        check_against_naive2d({1, 2, 9, 19}, {2, 2, 6, 6}, 1, 2, 1, 1, 1, 1, 1);
        check_against_naive2d({1, 2, 9, 19}, {2, 2, 2, 9}, 0, 4, 1, 1, 1, 2, 1);
    }
    SUBCASE("filter covers the whole input") { check_against_naive2d({2, 2, 5, 5}, {3, 2, 5, 5}, 0, 0, 1, 1, 1, 1, 1); }
}

TEST_CASE("reference conv: 3-D and 1-D") {
    Tensor x = make_tensor({2, 4, 5, 6, 7}), w = make_tensor({4, 2, 3, 3, 2});
    fill_integers(x, -4, 4, 3);
    fill_integers(w, -2, 2, 4);
    const ConvGeometry g{{1, 0, 1}, {2, 1, 1}, {1, 2, 2}, 2};
    const Tensor y = conv_forward(x, w, g);
    const Tensor expected = naive_conv3d(x, w, {1, 0, 1}, {2, 1, 1}, {1, 2, 2}, 2);
    CHECK(y.lengths == expected.lengths);
    CHECK(y.data == expected.data);

    // 1-D {N, C, W} equals the 2-D conv with H = 1.
    Tensor x1 = make_tensor({2, 3, 20}), w1 = make_tensor({4, 3, 5});
    fill_integers(x1, -4, 4, 5);
    fill_integers(w1, -2, 2, 6);
    const Tensor y1 = conv_forward(x1, w1, {{2}, {3}, {1}, 1});
    const Tensor y2 = naive_conv2d(Tensor{{2, 3, 1, 20}, x1.data}, Tensor{{4, 3, 1, 5}, w1.data}, 0, 2, 1, 3, 1, 1, 1);
    CHECK(y1.lengths == Lengths{2, 4, 7});
    CHECK(y1.data == y2.data);
}

TEST_CASE("reference conv: output lengths and invalid geometry") {
    // out = floor((7 + 2*1 - (2*(3-1)+1)) / 2) + 1 = floor(4 / 2) + 1 = 3.
    CHECK(conv_output_lengths({1, 1, 7, 7}, {1, 1, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, 1}) == Lengths{1, 1, 3, 3});
    CHECK(conv_forward_flops({64, 64, 56, 56}, {64, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}) ==
          2.0 * 64 * 64 * 56 * 56 * 64 * 9);
    CHECK_THROWS_AS(conv_output_lengths({1, 1, 2, 2}, {1, 1, 3, 3}, {}), std::invalid_argument);  // out < 1
    CHECK_THROWS_AS(conv_output_lengths({1, 4, 5, 5}, {2, 3, 3, 3}, {}), std::invalid_argument);  // C mismatch
    CHECK_THROWS_AS(conv_output_lengths({1, 4, 5, 5}, {3, 2, 3, 3}, {{}, {}, {}, 2}), std::invalid_argument);  // K % G
    CHECK_THROWS_AS(conv_output_lengths({1, 4, 5, 5}, {2, 4, 3, 3}, {{1}, {}, {}, 1}), std::invalid_argument);  // pad rank
    CHECK_THROWS_AS(conv_output_lengths({1, 4, 5, 5}, {2, 4, 3, 3}, {{}, {0, 1}, {}, 1}), std::invalid_argument);  // stride 0
    CHECK_THROWS_AS(conv_output_lengths({1, 4, 5, 5}, {2, 4, 3}, {}), std::invalid_argument);  // rank mismatch
    CHECK_THROWS_AS(conv_output_lengths({4, 5}, {2, 4}, {}), std::invalid_argument);  // no spatial dim
}

TEST_CASE("reference conv: ResNet-50 conv2_x 3x3 at batch 64 [slow]" * doctest::skip()) {
    Tensor x = make_tensor({64, 64, 56, 56}), w = make_tensor({64, 64, 3, 3});
    fill_uniform(x, -1, 1, 1, DType::f32);
    fill_uniform(w, -1, 1, 2, DType::f32);
    const ConvGeometry g{{1, 1}, {1, 1}, {1, 1}, 1};
    // Wall time, and CPU time of all threads (less sensitive to other load on a shared machine).
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    const Tensor y = conv_forward(x, w, g);
    const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double gflop = conv_forward_flops(x.lengths, w.lengths, g) * 1e-9;
    MESSAGE("conv 64x64x56x56 * 64x64x3x3 (" << gflop << " GFLOP): " << seconds << " s wall, " << cpu
            << " s CPU on " << std::thread::hardware_concurrency() << " threads, " << gflop / seconds << " GFLOP/s");
    for (const std::int64_t i : {std::int64_t{0}, std::int64_t{123457}, y.numel() - 1}) {
        CHECK(y[i] == doctest::Approx(conv_forward_at(x, w, g, multi_index(y.lengths, i))).epsilon(1e-12));
    }
    CHECK(seconds < 30.0);  // a gross-regression guard only: the machine may be shared
}
