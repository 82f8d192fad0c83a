// fp32/fp16/bf16 rounding, raw encodings and poison patterns of the CPU reference.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "hipfuse/reference/dtype.h"

using namespace hipfuse::ref;

namespace {

std::uint16_t bits16(DType t, double v) {
    std::uint16_t b = 0;
    encode(t, v, &b);
    return b;
}

double from16(DType t, std::uint16_t b) { return decode(t, &b); }

std::uint32_t bits32(double v) {
    std::uint32_t b = 0;
    encode(DType::f32, v, &b);
    return b;
}

const double inf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("reference dtype: sizes and epsilons") {
    CHECK(size_of(DType::f32) == 4);
    CHECK(size_of(DType::f16) == 2);
    CHECK(size_of(DType::bf16) == 2);
    CHECK(epsilon(DType::f32) == std::ldexp(1.0, -23));
    CHECK(epsilon(DType::f16) == std::ldexp(1.0, -10));
    CHECK(epsilon(DType::bf16) == std::ldexp(1.0, -7));
}

TEST_CASE("reference dtype: fp16 bit patterns") {
    CHECK(bits16(DType::f16, 1.0) == 0x3C00);
    CHECK(bits16(DType::f16, -2.0) == 0xC000);
    CHECK(bits16(DType::f16, 65504.0) == 0x7BFF);                   // largest finite
    CHECK(bits16(DType::f16, std::ldexp(1.0, -14)) == 0x0400);      // smallest normal
    CHECK(bits16(DType::f16, 1023 * std::ldexp(1.0, -24)) == 0x03FF);  // largest subnormal
    CHECK(bits16(DType::f16, std::ldexp(1.0, -24)) == 0x0001);      // smallest subnormal
    CHECK(bits16(DType::f16, 1.0 / 3.0) == 0x3555);                 // 0.333251953125
    CHECK(bits16(DType::f16, 0.1) == 0x2E66);                       // 0.0999755859375
    CHECK(bits16(DType::f16, inf) == 0x7C00);
    CHECK(bits16(DType::f16, -inf) == 0xFC00);
    CHECK(bits16(DType::f16, -0.0) == 0x8000);
    CHECK(bits16(DType::f16, std::nan("")) == 0x7E00);
    CHECK(from16(DType::f16, 0x3C00) == 1.0);
    CHECK(from16(DType::f16, 0x7BFF) == 65504.0);
    CHECK(from16(DType::f16, 0x0001) == std::ldexp(1.0, -24));
    CHECK(from16(DType::f16, 0x3555) == 0.333251953125);
    CHECK(from16(DType::f16, 0x7C00) == inf);
    CHECK(from16(DType::f16, 0xFC00) == -inf);
    CHECK(std::isnan(from16(DType::f16, 0x7E00)));
    CHECK(std::signbit(from16(DType::f16, 0x8000)));
}

TEST_CASE("reference dtype: fp16 rounding, overflow and subnormals") {
    // Overflow: 65520 is the midpoint between 65504 (mantissa 0x3FF, odd) and 65536; the tie goes
    // to the even side, 65536, which is past the range: inf.
    CHECK(round_to(DType::f16, 65519.0) == 65504.0);
    CHECK(round_to(DType::f16, 65520.0) == inf);
    CHECK(round_to(DType::f16, -70000.0) == -inf);
    CHECK(round_to(DType::f16, 1e6) == inf);
    // Ties to even at 1: ulp is 2^-10. 1 + 2^-11 -> 1 (even); 1 + 3*2^-11 -> 1 + 2^-9 (even).
    CHECK(round_to(DType::f16, 1.0 + std::ldexp(1.0, -11)) == 1.0);
    CHECK(round_to(DType::f16, 1.0 + 3 * std::ldexp(1.0, -11)) == 1.0 + std::ldexp(1.0, -9));
    CHECK(round_to(DType::f16, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)) == 1.0 + std::ldexp(1.0, -10));
    // Subnormals: quantum 2^-24. 2^-25 is the tie between 0 and 2^-24: even is 0.
    CHECK(round_to(DType::f16, std::ldexp(1.0, -25)) == 0.0);
    CHECK(round_to(DType::f16, 3 * std::ldexp(1.0, -26)) == std::ldexp(1.0, -24));  // 0.75 quantum
    CHECK(round_to(DType::f16, 3 * std::ldexp(1.0, -25)) == std::ldexp(1.0, -23));  // 1.5 quantum -> 2
    CHECK(round_to(DType::f16, 5 * std::ldexp(1.0, -25)) == std::ldexp(1.0, -23));  // 2.5 quantum -> 2
    CHECK(std::isnan(round_to(DType::f16, std::nan(""))));
    // Every fp16 pattern decodes to a value that rounds to itself and encodes back to itself.
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
        const auto h = static_cast<std::uint16_t>(b);
        const double v = from16(DType::f16, h);
        if (std::isnan(v)) continue;
        REQUIRE(round_to(DType::f16, v) == v);
        REQUIRE(bits16(DType::f16, v) == h);
    }
}

TEST_CASE("reference dtype: bf16 bit patterns and ties to even") {
    CHECK(bits16(DType::bf16, 1.0) == 0x3F80);
    CHECK(bits16(DType::bf16, -2.0) == 0xC000);
    CHECK(bits16(DType::bf16, inf) == 0x7F80);
    CHECK(bits16(DType::bf16, std::nan("")) == 0x7FC0);
    CHECK(from16(DType::bf16, 0x3F80) == 1.0);
    CHECK(from16(DType::bf16, 0xFF80) == -inf);
    CHECK(std::isnan(from16(DType::bf16, 0x7FC0)));
    // ulp at 1 is 2^-7: 1 + 2^-8 is a tie -> 1 (0x3F80, even); 1 + 3*2^-8 -> 1 + 2^-6 (0x3F82).
    CHECK(bits16(DType::bf16, 1.0 + std::ldexp(1.0, -8)) == 0x3F80);
    CHECK(bits16(DType::bf16, 1.0 + 3 * std::ldexp(1.0, -8)) == 0x3F82);
    // One rounding straight from double: 1 + 2^-8 + 2^-40 is just above the tie, so it rounds up
    // (0x3F81). Going through float first would lose the 2^-40 and round the tie down to 1.
    CHECK(bits16(DType::bf16, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)) == 0x3F81);
    // Largest finite (2 - 2^-7) * 2^127 = 0x7F7F; FLT_MAX is past the midpoint to 2^128: inf.
    const double bf16_max = std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
    CHECK(bits16(DType::bf16, bf16_max) == 0x7F7F);
    CHECK(round_to(DType::bf16, static_cast<double>(std::numeric_limits<float>::max())) == inf);
    // Subnormals as in fp32: quantum 2^-133.
    CHECK(bits16(DType::bf16, std::ldexp(1.0, -133)) == 0x0001);
    CHECK(round_to(DType::bf16, std::ldexp(1.0, -134)) == 0.0);  // tie -> even (0)
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
        const auto h = static_cast<std::uint16_t>(b);
        const double v = from16(DType::bf16, h);
        if (std::isnan(v)) continue;
        REQUIRE(round_to(DType::bf16, v) == v);
        REQUIRE(bits16(DType::bf16, v) == h);
    }
}

TEST_CASE("reference dtype: fp32") {
    CHECK(bits32(1.0) == 0x3F800000u);
    CHECK(round_to(DType::f32, 1.0 + std::ldexp(1.0, -24)) == 1.0);  // tie -> even
    CHECK(round_to(DType::f32, 1.0 + 3 * std::ldexp(1.0, -24)) == 1.0 + std::ldexp(1.0, -22));
    CHECK(round_to(DType::f32, 1e39) == inf);
    CHECK(round_to(DType::f32, std::ldexp(1.0, -149)) == std::ldexp(1.0, -149));  // smallest subnormal
    std::uint32_t b = 0x40490FDBu;  // float(pi)
    CHECK(decode(DType::f32, &b) == static_cast<double>(3.14159265358979f));
}

TEST_CASE("reference dtype: poison patterns are signalling NaNs and are counted") {
    for (const DType t : {DType::f32, DType::f16, DType::bf16}) {
        CAPTURE(name(t));
        std::vector<unsigned char> buf(8 * size_of(t));
        write_poison(t, buf.data(), 8);
        CHECK(count_poison(t, buf.data(), 8) == 8);
        CHECK(is_poison(t, buf.data()));
        encode(t, 1.5, buf.data() + 2 * size_of(t));
        encode(t, std::nan(""), buf.data() + 5 * size_of(t));  // a computed NaN is not poison
        CHECK(count_poison(t, buf.data(), 8) == 6);
        CHECK_FALSE(is_poison(t, buf.data() + 5 * size_of(t)));
    }
    CHECK(poison_bits(DType::f32) == 0x7FBADBADu);
    CHECK(poison_bits(DType::f16) == 0x7DBAu);
    CHECK(poison_bits(DType::bf16) == 0x7FBAu);
    // NaN with the quiet bit clear: fp32 bit 22, fp16 bit 9, bf16 bit 6.
    CHECK((0x7FBADBADu & 0x7F800000u) == 0x7F800000u);
    CHECK((0x7FBADBADu & 0x00400000u) == 0u);
    CHECK((0x7DBAu & 0x7C00u) == 0x7C00u);
    CHECK((0x7DBAu & 0x0200u) == 0u);
    CHECK((0x7FBAu & 0x7F80u) == 0x7F80u);
    CHECK((0x7FBAu & 0x0040u) == 0u);
    std::uint16_t h = 0x7DBA;
    CHECK(std::isnan(decode(DType::f16, &h)));
}
