// Typed loads and stores through the untyped pointers of the argument structs, converting
// to and from the fp32 all arithmetic runs in; and vector accesses of up to 16 bytes.
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

// Bytes (4, 8 or 16) moved as one access.
template <int Bytes>
struct alignas(Bytes) Words {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "one 4-, 8- or 16-byte access");
  unsigned int word[Bytes / 4];
};

// The V lanes of T packed in `w`, as floats.
template <class T, int V>
HF_DEVICE void unpack_lanes(const Words<V * static_cast<int>(sizeof(T))>& w, float (&out)[V]) {
  alignas(16) T lanes[V];
  *reinterpret_cast<Words<V * static_cast<int>(sizeof(T))>*>(lanes) = w;
#pragma unroll
  for (int j = 0; j < V; ++j) out[j] = to_float(lanes[j]);
}

// Lanes i .. i+V-1 of a run of T aligned to V elements, as floats: one access of V elements
// (V = 1: a plain load).
template <class T, int V>
HF_DEVICE void load_lanes(const void* base, index_t i, float (&out)[V]) {
  if constexpr (V == 1) {
    out[0] = load_float<T>(base, i);
  } else {
    constexpr int kBytes = V * static_cast<int>(sizeof(T));
    unpack_lanes<T, V>(*reinterpret_cast<const Words<kBytes>*>(static_cast<const T*>(base) + i), out);
  }
}

// One 16-byte store of `w` at p (16-byte aligned), never split (store_global16).
HF_DEVICE void store_words16(void* p, const Words<16>& w) { store_global16(p, w.word[0], w.word[1], w.word[2], w.word[3]); }

template <class T, int V>
HF_DEVICE void store_lanes(void* base, index_t i, const float (&in)[V]) {
  if constexpr (V == 1) {
    store_float<T>(base, i, in[0]);
  } else {
    constexpr int kBytes = V * static_cast<int>(sizeof(T));
    alignas(16) T lanes[V];
#pragma unroll
    for (int j = 0; j < V; ++j) lanes[j] = from_float<T>(in[j]);
    T* to = static_cast<T*>(base) + i;
    if constexpr (kBytes == 16) {
      // The struct copy was split into 4-byte stores on some computed offsets (PTX of the NCHW
      // 7x7 BN forward training: fp16 on several, fp32 on one of its 13 stores).
      store_words16(to, *reinterpret_cast<const Words<16>*>(lanes));
    } else {
      *reinterpret_cast<Words<kBytes>*>(to) = *reinterpret_cast<const Words<kBytes>*>(lanes);
    }
  }
}

// Lanes i .. i+kLanes16<T>-1 of a 16-byte aligned run, as floats.
template <class T>
HF_DEVICE void load16(const void* base, index_t i, float (&out)[kLanes16<T>]) {
  load_lanes<T, kLanes16<T>>(base, i, out);
}

template <class T>
HF_DEVICE void store16(void* base, index_t i, const float (&in)[kLanes16<T>]) {
  store_lanes<T, kLanes16<T>>(base, i, in);
}

}  // namespace hf
