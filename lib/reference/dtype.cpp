#include "hipfuse/reference/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace hipfuse::ref {
namespace {

// Round-half-to-even to an integer, independent of the FPU rounding mode. |v| < 2^52.
double rne_integer(double v) {
    const double lo = std::floor(v);
    const double frac = v - lo;  // exact
    if (frac > 0.5) return lo + 1.0;
    if (frac < 0.5) return lo;
    return std::fmod(lo, 2.0) == 0.0 ? lo : lo + 1.0;
}

// Generic binary floating-point rounding: `mantissa_bits` stored fraction bits, normal
// exponents in [emin, emax]. Below 2^emin the quantum stays 2^(emin - mantissa_bits)
// (gradual underflow).
double round_binary(double v, int mantissa_bits, int emin, int emax) {
    if (!std::isfinite(v) || v == 0.0) return v;
    const double a = std::fabs(v);
    int ex = 0;
    std::frexp(a, &ex);  // a = m * 2^ex, m in [0.5, 1)
    const int e = ex - 1 < emin ? emin : ex - 1;
    const double quantum = std::ldexp(1.0, e - mantissa_bits);
    double r = rne_integer(a / quantum) * quantum;  // a / quantum is exact (power-of-two scale)
    const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -mantissa_bits), emax);
    if (r > max_finite) r = std::numeric_limits<double>::infinity();
    return std::copysign(r, v);
}

std::uint16_t f16_bits(double v) {
    const double r = round_to(DType::f16, v);
    const std::uint16_t sign = std::signbit(r) ? 0x8000u : 0u;
    if (std::isnan(r)) return 0x7E00u;
    const double a = std::fabs(r);
    if (std::isinf(a)) return static_cast<std::uint16_t>(sign | 0x7C00u);
    if (a < std::ldexp(1.0, -14)) {  // zero or subnormal: a = mantissa * 2^-24
        return static_cast<std::uint16_t>(sign | static_cast<unsigned>(std::ldexp(a, 24)));
    }
    int ex = 0;
    const double m = std::frexp(a, &ex);  // a = m * 2^ex, biased exponent = ex - 1 + 15
    const auto mantissa = static_cast<unsigned>(std::ldexp(m, 11)) - 1024u;
    return static_cast<std::uint16_t>(sign | (static_cast<unsigned>(ex + 14) << 10) | mantissa);
}

double f16_value(std::uint16_t h) {
    const unsigned exponent = (h >> 10) & 0x1Fu;
    const unsigned mantissa = h & 0x3FFu;
    double a = 0.0;
    if (exponent == 0) {
        a = std::ldexp(static_cast<double>(mantissa), -24);
    } else if (exponent == 31) {
        a = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    } else {
        a = std::ldexp(static_cast<double>(mantissa + 1024u), static_cast<int>(exponent) - 25);
    }
    return (h & 0x8000u) ? -a : a;
}

std::uint32_t f32_bits(float f) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float f32_value(std::uint32_t u) {
    float f = 0;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

}  // namespace

const char* name(DType t) {
    switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    }
    return "?";
}

std::size_t size_of(DType t) { return t == DType::f32 ? 4 : 2; }

double epsilon(DType t) {
    switch (t) {
    case DType::f32: return std::ldexp(1.0, -23);
    case DType::f16: return std::ldexp(1.0, -10);
    case DType::bf16: return std::ldexp(1.0, -7);
    }
    throw std::invalid_argument("epsilon: unknown dtype");
}

double round_to(DType t, double v) {
    switch (t) {
    case DType::f32: return static_cast<double>(static_cast<float>(v));  // IEEE conversion: RNE
    case DType::f16: return round_binary(v, 10, -14, 15);
    case DType::bf16: return round_binary(v, 7, -126, 127);
    }
    throw std::invalid_argument("round_to: unknown dtype");
}

void encode(DType t, double v, void* dst) {
    switch (t) {
    case DType::f32: {
        const float f = static_cast<float>(v);
        std::memcpy(dst, &f, 4);
        return;
    }
    case DType::f16: {
        const std::uint16_t h = f16_bits(v);
        std::memcpy(dst, &h, 2);
        return;
    }
    case DType::bf16: {
        // The bf16-rounded value is exact in fp32, so its upper half is the bf16 pattern.
        const double r = round_to(DType::bf16, v);
        const std::uint16_t b = std::isnan(r)
            ? std::uint16_t{0x7FC0}
            : static_cast<std::uint16_t>(f32_bits(static_cast<float>(r)) >> 16);
        std::memcpy(dst, &b, 2);
        return;
    }
    }
    throw std::invalid_argument("encode: unknown dtype");
}

double decode(DType t, const void* src) {
    switch (t) {
    case DType::f32: {
        float f = 0;
        std::memcpy(&f, src, 4);
        return static_cast<double>(f);
    }
    case DType::f16: {
        std::uint16_t h = 0;
        std::memcpy(&h, src, 2);
        return f16_value(h);
    }
    case DType::bf16: {
        std::uint16_t b = 0;
        std::memcpy(&b, src, 2);
        return static_cast<double>(f32_value(static_cast<std::uint32_t>(b) << 16));
    }
    }
    throw std::invalid_argument("decode: unknown dtype");
}

std::uint32_t poison_bits(DType t) {
    switch (t) {
    case DType::f32: return 0x7FBADBADu;
    case DType::f16: return 0x7DBAu;
    case DType::bf16: return 0x7FBAu;
    }
    throw std::invalid_argument("poison_bits: unknown dtype");
}

void write_poison(DType t, void* dst, std::int64_t count) {
    const std::uint32_t bits = poison_bits(t);
    const std::size_t size = size_of(t);
    auto* out = static_cast<unsigned char*>(dst);
    // Little-endian hosts only (x86-64, aarch64): the low `size` bytes of `bits` are the pattern.
    for (std::int64_t i = 0; i < count; ++i) std::memcpy(out + static_cast<std::size_t>(i) * size, &bits, size);
}

bool is_poison(DType t, const void* element) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, element, size_of(t));
    return bits == poison_bits(t);
}

std::int64_t count_poison(DType t, const void* data, std::int64_t count) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    const std::size_t size = size_of(t);
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < count; ++i) n += is_poison(t, bytes + static_cast<std::size_t>(i) * size) ? 1 : 0;
    return n;
}

}  // namespace hipfuse::ref
