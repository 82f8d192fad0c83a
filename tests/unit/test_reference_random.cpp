// Deterministic fills and index sampling of the CPU reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

#include "hipfuse/reference/fill.h"
#include "hipfuse/reference/random.h"

using namespace hipfuse::ref;

TEST_CASE("reference random: splitmix64 reference values") {
    // First outputs for seed 0 from the published splitmix64 (Vigna's splitmix64.c).
    SplitMix64 rng(0);
    CHECK(rng.next() == 0xE220A8397B1DCDAFull);
    CHECK(rng.next() == 0x6E789E6AA1B965F4ull);
    CHECK(rng.next() == 0x06C45D188009454Full);
}

TEST_CASE("reference random: uniform fills are deterministic, in range and exact in the dtype") {
    for (const DType dt : {DType::f32, DType::f16, DType::bf16}) {
        Tensor a = make_tensor({4, 3, 5, 7}), b = a, c = a;
        fill_uniform(a, -2.0, 3.0, 42, dt);
        fill_uniform(b, -2.0, 3.0, 42, dt);
        fill_uniform(c, -2.0, 3.0, 43, dt);
        CHECK(a.data == b.data);
        CHECK(a.data != c.data);
        for (const double v : a.data) {
            REQUIRE(v >= -2.0);
            REQUIRE(v <= 3.0);
            REQUIRE(round_to(dt, v) == v);
        }
        const auto [lo, hi] = std::minmax_element(a.data.begin(), a.data.end());
        CHECK(*lo < -1.9);
        CHECK(*hi > 2.9);
    }
}

TEST_CASE("reference random: normal fill has the requested moments") {
    Tensor t = make_tensor({1, 1, 200, 500});
    fill_normal(t, 1.5, 2.0, 5, DType::f32);
    double sum = 0, sq = 0;
    for (const double v : t.data) sum += v;
    const double mean = sum / static_cast<double>(t.numel());
    for (const double v : t.data) sq += (v - mean) * (v - mean);
    CHECK(mean == doctest::Approx(1.5).epsilon(0.01));
    CHECK(std::sqrt(sq / static_cast<double>(t.numel())) == doctest::Approx(2.0).epsilon(0.01));
    for (const double v : t.data) REQUIRE(std::fabs(v - 1.5) <= 12.0 + 1e-6);  // Irwin-Hall: +-6 sigma
}

TEST_CASE("reference random: integer fill covers [lo, hi] inclusive") {
    Tensor t = make_tensor({1, 1, 50, 50});
    fill_integers(t, -3, 4, 9);
    std::set<double> seen(t.data.begin(), t.data.end());
    CHECK(seen == std::set<double>{-3, -2, -1, 0, 1, 2, 3, 4});
}

TEST_CASE("reference random: fills are never all zeros") {
    for (std::uint64_t seed = 0; seed < 64; ++seed) {
        Tensor t = make_tensor({1, 1, 1, 1});
        fill_integers(t, 0, 1, seed);
        REQUIRE(t.data[0] == 1.0);
        Tensor u = make_tensor({1, 1, 1, 2});
        fill_uniform(u, 0.0, std::ldexp(1.0, -24), seed, DType::f16);  // half the draws round to 0
        REQUIRE(std::any_of(u.data.begin(), u.data.end(), [](double v) { return v != 0.0; }));
    }
    Tensor t = make_tensor({2, 2, 2, 2});
    CHECK_THROWS_AS(fill_integers(t, 0, 0, 1), std::invalid_argument);
    CHECK_THROWS_AS(fill_uniform(t, 0.0, 0.0, 1, DType::f32), std::invalid_argument);
    CHECK_THROWS_AS(fill_uniform(t, 1.0, 0.0, 1, DType::f32), std::invalid_argument);
    // Nothing in [0, 2^-26) survives rounding to fp16 (quantum 2^-24).
    CHECK_THROWS_AS(fill_uniform(t, 0.0, std::ldexp(1.0, -26), 1, DType::f16), std::invalid_argument);
}

TEST_CASE("reference random: sample_indices") {
    const auto a = sample_indices(100, 1000000, 3);
    CHECK(a.size() == 100);
    CHECK(std::is_sorted(a.begin(), a.end()));
    CHECK(std::adjacent_find(a.begin(), a.end()) == a.end());  // unique
    CHECK(a.front() == 0);
    CHECK(a.back() == 999999);
    CHECK(a == sample_indices(100, 1000000, 3));
    CHECK(a != sample_indices(100, 1000000, 4));
    CHECK(sample_indices(10, 5, 1) == std::vector<std::int64_t>{0, 1, 2, 3, 4});
    CHECK(sample_indices(0, 5, 1).empty());
    CHECK(sample_indices(1, 5, 1).size() == 1);
    const auto all_but_one = sample_indices(9, 10, 2);  // Floyd's algorithm at full density
    CHECK(all_but_one.size() == 9);
    CHECK(std::adjacent_find(all_but_one.begin(), all_but_one.end()) == all_but_one.end());
    CHECK_THROWS_AS(sample_indices(-1, 5, 1), std::invalid_argument);
}
