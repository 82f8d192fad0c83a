// Storage element types of the reference: rounding to, and raw bytes of, fp32/fp16/bf16.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hipfuse::ref {

enum class DType { f32, f16, bf16 };

const char* name(DType t);

// Bytes per element.
std::size_t size_of(DType t);

// Machine epsilon: the gap between 1 and the next representable value (2^-23, 2^-10, 2^-7).
double epsilon(DType t);

// Rounds v to the nearest value representable in t, ties to even, straight from double
// (one rounding, never via float for fp16/bf16). Subnormals are kept, values past the largest
// finite number round to +-inf exactly as IEEE round-to-nearest does; NaN stays NaN.
double round_to(DType t, double v);

// Raw element bytes. encode rounds first (round_to); NaN is written as the canonical quiet NaN.
// fp16 is IEEE binary16; bf16 is the upper 16 bits of the fp32 pattern.
void encode(DType t, double v, void* dst);
double decode(DType t, const void* src);

// Poison: a signalling-NaN pattern that no arithmetic produces (a GPU quietens every NaN it
// computes), written into outputs before a kernel runs so that unwritten elements can be counted.
//   fp32 0x7FBADBAD, fp16 0x7DBA, bf16 0x7FBA (exponent all ones, quiet bit clear, payload "BAD").
// Compare bit patterns, not values: converting a signalling NaN to double may quieten it.
std::uint32_t poison_bits(DType t);
void write_poison(DType t, void* dst, std::int64_t count);
bool is_poison(DType t, const void* element);
std::int64_t count_poison(DType t, const void* data, std::int64_t count);

}  // namespace hipfuse::ref
