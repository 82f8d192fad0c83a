// Typed loads and stores through the untyped pointers of the argument structs, converting
// to and from the fp32 all arithmetic runs in; and 16-byte vector accesses.
#pragma once

#include "common/vendor.h"

namespace hf {

template <class T>
HF_DEVICE float load_float(const void* base, index_t i) {
  return to_float(static_cast<const T*>(base)[i]);
}

template <class T>
HF_DEVICE void store_float(void* base, index_t i, float v) {
  static_cast<T*>(base)[i] = from_float<T>(v);
}

// Elements of T in one 16-byte access.
template <class T>
constexpr int kLanes16 = static_cast<int>(16 / sizeof(T));

struct alignas(16) Bytes16 {
  unsigned int word[4];
};

// Lanes i .. i+kLanes16<T>-1 of a 16-byte aligned run, as floats.
template <class T>
HF_DEVICE void load16(const void* base, index_t i, float (&out)[kLanes16<T>]) {
  alignas(16) T lanes[kLanes16<T>];
  *reinterpret_cast<Bytes16*>(lanes) = *reinterpret_cast<const Bytes16*>(static_cast<const T*>(base) + i);
#pragma unroll
  for (int j = 0; j < kLanes16<T>; ++j) out[j] = to_float(lanes[j]);
}

template <class T>
HF_DEVICE void store16(void* base, index_t i, const float (&in)[kLanes16<T>]) {
  alignas(16) T lanes[kLanes16<T>];
#pragma unroll
  for (int j = 0; j < kLanes16<T>; ++j) lanes[j] = from_float<T>(in[j]);
  *reinterpret_cast<Bytes16*>(static_cast<T*>(base) + i) = *reinterpret_cast<const Bytes16*>(lanes);
}

}  // namespace hf
