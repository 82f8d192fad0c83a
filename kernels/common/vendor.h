// The device-side vendor header: the only kernel file with platform #ifs.
// Kernels use hf:: names for numeric types, conversions and warp primitives; the
// warp size comes from the host (HF_WARP_SIZE, read off the device), never a literal.
#pragma once

#ifndef HF_WARP_SIZE
#error "HF_WARP_SIZE must be defined by the host compiler options"
#endif

#if defined(HIPFUSE_PLATFORM_NVIDIA)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define HF_KERNEL extern "C" __global__
#define HF_DEVICE __device__ __forceinline__
#define HF_RESTRICT __restrict__
namespace hf {
using half = __half;
using bfloat16 = __nv_bfloat16;
HF_DEVICE float to_float(half v) { return __half2float(v); }
HF_DEVICE float to_float(bfloat16 v) { return __bfloat162float(v); }
template <typename T> HF_DEVICE T from_float(float v);
template <> HF_DEVICE float from_float<float>(float v) { return v; }
template <> HF_DEVICE half from_float<half>(float v) { return __float2half_rn(v); }
template <> HF_DEVICE bfloat16 from_float<bfloat16>(float v) { return __float2bfloat16_rn(v); }
HF_DEVICE float shfl_down(float v, int delta) { return __shfl_down_sync(0xffffffffu, v, delta); }
HF_DEVICE float shfl_xor(float v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
HF_DEVICE double shfl_down(double v, int delta) { return __shfl_down_sync(0xffffffffu, v, delta); }
HF_DEVICE double shfl_xor(double v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
}  // namespace hf
#elif defined(HIPFUSE_PLATFORM_AMD)
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#define HF_KERNEL extern "C" __global__
#define HF_DEVICE __device__ __forceinline__
#define HF_RESTRICT __restrict__
namespace hf {
using half = __half;
using bfloat16 = __hip_bfloat16;
HF_DEVICE float to_float(half v) { return __half2float(v); }
HF_DEVICE float to_float(bfloat16 v) { return __bfloat162float(v); }
template <typename T> HF_DEVICE T from_float(float v);
template <> HF_DEVICE float from_float<float>(float v) { return v; }
template <> HF_DEVICE half from_float<half>(float v) { return __float2half(v); }
template <> HF_DEVICE bfloat16 from_float<bfloat16>(float v) { return __float2bfloat16(v); }
HF_DEVICE float shfl_down(float v, int delta) { return __shfl_down(v, delta); }
HF_DEVICE float shfl_xor(float v, int mask) { return __shfl_xor(v, mask); }
HF_DEVICE double shfl_down(double v, int delta) { return __shfl_down(v, delta); }
HF_DEVICE double shfl_xor(double v, int mask) { return __shfl_xor(v, mask); }
}  // namespace hf
#else
#error "hipfuse kernels need HIPFUSE_PLATFORM_NVIDIA or HIPFUSE_PLATFORM_AMD"
#endif

namespace hf {
using index_t = long long;  // 64-bit indexing: tensors may exceed 2^31 elements
constexpr int kWarpSize = HF_WARP_SIZE;
HF_DEVICE float to_float(float v) { return v; }
}  // namespace hf

// ---- matrix units and async copies -------------------------------------------------------
// Owned by the implicit-GEMM convolution (kernels/conv_igemm*.hip). Portable wrappers:
//   cp_async16 / cp_async_commit / cp_async_wait<N>: 16-byte global->shared copies that do
//     not block the issuing thread (cp.async on NVIDIA; plain load+store elsewhere, so the
//     kernels' barriers alone order them); `valid == false` writes 16 zero bytes instead.
//   ldsm_x4 / ldsm_x4_trans: ldmatrix.x4 semantics. Each thread of a group of 32 ("mma
//     group", lane = threadIdx.x % 32) passes the shared-memory address of one 16-byte row:
//     lanes 8j..8j+7 address the 8 rows of 8x8 matrix j; r[j] receives the lane's piece of
//     matrix j (row lane/4, columns 2*(lane%4)..+1; transposed for _trans).
//   mma_16816<T>: D += A(16x16, row) * B(16x8, col), T = half or bfloat16, fp32 accumulators,
//     PTX mma.m16n8k16 fragment layouts. mma_1688_tf32: the same for m16n8k8 with tf32
//     operands (to_tf32 rounds an fp32 value to tf32, to nearest).
// HF_HAS_MATRIX_UNITS says whether these run on matrix units (1) or are emulated with
// shuffles and FMAs (0): correct everywhere, fast only where it is 1.
#if defined(HIPFUSE_PLATFORM_NVIDIA)
#define HF_HAS_MATRIX_UNITS 1
namespace hf {
HF_DEVICE unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
HF_DEVICE void cp_async16(void* smem, const void* gmem, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(smem)), "l"(gmem),
               "r"(valid ? 16 : 0)
               : "memory");
}
HF_DEVICE void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> HF_DEVICE void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
HF_DEVICE void ldsm_x4(unsigned (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(smem_row)));
}
HF_DEVICE void ldsm_x4_trans(unsigned (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(smem_row)));
}
template <typename T> HF_DEVICE void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]);
template <> HF_DEVICE void mma_16816<half>(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <> HF_DEVICE void mma_16816<bfloat16>(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
HF_DEVICE void mma_1688_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
HF_DEVICE unsigned to_tf32(float v) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
  return r;
}
}  // namespace hf
#elif defined(HIPFUSE_PLATFORM_AMD)
// No rocWMMA under hipRTC: the same fragment layouts, emulated. Untested (no AMD toolchain
// on this project's machines); written to compile for gfx9 with wave32 or wave64 (groups of
// 32 lanes shuffle within themselves, width 32).
#define HF_HAS_MATRIX_UNITS 0
namespace hf {
HF_DEVICE void cp_async16(void* smem, const void* gmem, bool valid) {
  uint4 v = make_uint4(0u, 0u, 0u, 0u);
  if (valid) v = *static_cast<const uint4*>(gmem);
  *static_cast<uint4*>(smem) = v;
}
HF_DEVICE void cp_async_commit() {}
template <int N> HF_DEVICE void cp_async_wait() {}
namespace mx_detail {
HF_DEVICE const char* shuffle_pointer(const void* p, int src_lane) {
  const unsigned long long bits = reinterpret_cast<unsigned long long>(p);
  const unsigned lo = __shfl(static_cast<unsigned>(bits), src_lane, 32);
  const unsigned hi = __shfl(static_cast<unsigned>(bits >> 32), src_lane, 32);
  return reinterpret_cast<const char*>((static_cast<unsigned long long>(hi) << 32) | lo);
}
HF_DEVICE float lo_to_float(unsigned bits, half) { return __half2float(__ushort_as_half(static_cast<unsigned short>(bits & 0xffffu))); }
HF_DEVICE float hi_to_float(unsigned bits, half) { return __half2float(__ushort_as_half(static_cast<unsigned short>(bits >> 16))); }
HF_DEVICE float lo_to_float(unsigned bits, bfloat16) { return __uint_as_float(bits << 16); }
HF_DEVICE float hi_to_float(unsigned bits, bfloat16) { return __uint_as_float(bits & 0xffff0000u); }
}  // namespace mx_detail
HF_DEVICE void ldsm_x4(unsigned (&r)[4], const void* smem_row) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  for (int j = 0; j < 4; ++j) {
    const char* row = mx_detail::shuffle_pointer(smem_row, 8 * j + (lane >> 2));
    r[j] = *reinterpret_cast<const unsigned*>(row + 4 * (lane & 3));
  }
}
HF_DEVICE void ldsm_x4_trans(unsigned (&r)[4], const void* smem_row) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  for (int j = 0; j < 4; ++j) {
    const char* row0 = mx_detail::shuffle_pointer(smem_row, 8 * j + 2 * (lane & 3));
    const char* row1 = mx_detail::shuffle_pointer(smem_row, 8 * j + 2 * (lane & 3) + 1);
    const unsigned lo = *reinterpret_cast<const unsigned short*>(row0 + 2 * (lane >> 2));
    const unsigned hi = *reinterpret_cast<const unsigned short*>(row1 + 2 * (lane >> 2));
    r[j] = lo | (hi << 16);
  }
}
template <typename T> HF_DEVICE void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int g = lane >> 2, t = lane & 3;
  for (int q = 0; q < 4; ++q) {
    const unsigned a_lo = __shfl(a[0], 4 * g + q, 32), a_lo8 = __shfl(a[1], 4 * g + q, 32);
    const unsigned a_hi = __shfl(a[2], 4 * g + q, 32), a_hi8 = __shfl(a[3], 4 * g + q, 32);
    for (int j = 0; j < 2; ++j) {
      const unsigned b_lo = __shfl(b[0], 4 * (2 * t + j) + q, 32);
      const unsigned b_hi = __shfl(b[1], 4 * (2 * t + j) + q, 32);
      const float b0 = mx_detail::lo_to_float(b_lo, T{}), b1 = mx_detail::hi_to_float(b_lo, T{});
      const float b2 = mx_detail::lo_to_float(b_hi, T{}), b3 = mx_detail::hi_to_float(b_hi, T{});
      d[j] += mx_detail::lo_to_float(a_lo, T{}) * b0 + mx_detail::hi_to_float(a_lo, T{}) * b1 +
              mx_detail::lo_to_float(a_hi, T{}) * b2 + mx_detail::hi_to_float(a_hi, T{}) * b3;
      d[2 + j] += mx_detail::lo_to_float(a_lo8, T{}) * b0 + mx_detail::hi_to_float(a_lo8, T{}) * b1 +
                  mx_detail::lo_to_float(a_hi8, T{}) * b2 + mx_detail::hi_to_float(a_hi8, T{}) * b3;
    }
  }
}
HF_DEVICE void mma_1688_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int g = lane >> 2, t = lane & 3;
  for (int q = 0; q < 4; ++q) {
    const float a0 = __uint_as_float(__shfl(a[0], 4 * g + q, 32)), a1 = __uint_as_float(__shfl(a[1], 4 * g + q, 32));
    const float a2 = __uint_as_float(__shfl(a[2], 4 * g + q, 32)), a3 = __uint_as_float(__shfl(a[3], 4 * g + q, 32));
    for (int j = 0; j < 2; ++j) {
      const float b0 = __uint_as_float(__shfl(b[0], 4 * (2 * t + j) + q, 32));
      const float b1 = __uint_as_float(__shfl(b[1], 4 * (2 * t + j) + q, 32));
      d[j] += a0 * b0 + a2 * b1;
      d[2 + j] += a1 * b0 + a3 * b1;
    }
  }
}
HF_DEVICE unsigned to_tf32(float v) { return (__float_as_uint(v) + 0x1000u) & 0xffffe000u; }
}  // namespace hf
#endif
// ---- end of matrix units and async copies -------------------------------------------------
