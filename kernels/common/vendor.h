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
// A kernel parameter read in place (its address taken, e.g. a tensor map), never copied.
#define HF_GRID_CONSTANT __grid_constant__
// The kernel is launched in clusters of n blocks along x (the grid a multiple of n).
#define HF_CLUSTER_DIMS(n) __cluster_dims__(n, 1, 1)
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
// A load that skips the multiprocessor's L1, for data another block wrote in this launch
// (after that block's __threadfence and an atomic this block has seen).
HF_DEVICE float4 load_from_l2(const float4* p) { return __ldcg(p); }
// Four words to global memory in one 16-byte store (p 16-byte aligned). A struct copy may be
// split into 4-byte stores where the compiler cannot prove the alignment (seen on computed
// channels-last offsets).
HF_DEVICE void store_global16(void* p, unsigned a, unsigned b, unsigned c, unsigned d) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}
// Early start (programmatic dependent launch, sm_90 on; the host's rt::launch_kernel). A kernel
// that the host may start early calls wait_for_prior_grid() before it touches memory: it
// returns once the stream's previous kernel has finished and its writes are visible (at once
// for a kernel launched the ordinary way). A kernel calls allow_early_start() to let the next
// one's blocks be scheduled while its own still run; that next one still waits for it whole.
HF_DEVICE void wait_for_prior_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
HF_DEVICE void allow_early_start() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
// Flags between the blocks of kernels running at once (kernels/common/ready_counters.h): a
// counter read with acquire semantics at device scope; a short pause between polls; the
// generic proxy's writes made visible to this thread's later tensor-map copies (async proxy).
HF_DEVICE unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}
HF_DEVICE void pause() { __nanosleep(64); }
HF_DEVICE void fence_async_global() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
#endif
}
HF_DEVICE void trap() { __trap(); }
// a / b, at most 2 ulp off, for 2^-124 <= |b| < 2^128, without the IEEE division's slow
// path: that path is a subroutine call, and kernels held to 64 registers a thread (BN
// backward) spill the registers live across it. The fast division is within 2 ulp for
// |b| in [2^-126, 2^126] only (0 above), so both operands are scaled by 2^-2: exact, but for
// |a| < 2^-124, whose quotient is below 2^-104 for the callers' |b| >= 1e-6 anyway.
HF_DEVICE float divide(float a, float b) { return __fdividef(0.25f * a, 0.25f * b); }
// v, which the compiler can no longer assume it knows: what a loop derives from it is computed
// in the loop, not hoisted out of it and kept in registers across it.
HF_DEVICE int opaque(int v) {
  asm volatile("" : "+r"(v));
  return v;
}
}  // namespace hf
#elif defined(HIPFUSE_PLATFORM_AMD)
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#define HF_KERNEL extern "C" __global__
#define HF_DEVICE __device__ __forceinline__
#define HF_RESTRICT __restrict__
#define HF_GRID_CONSTANT
#define HF_CLUSTER_DIMS(n)
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
// Volatile: the compiler emits coherent (L1-bypassing) loads for it.
HF_DEVICE float4 load_from_l2(const float4* p) {
  const volatile float* v = reinterpret_cast<const volatile float*>(p);
  return make_float4(v[0], v[1], v[2], v[3]);
}
HF_DEVICE void store_global16(void* p, unsigned a, unsigned b, unsigned c, unsigned d) {
  *static_cast<uint4*>(p) = make_uint4(a, b, c, d);
}
// No early start here (rt::supports_early_start is false): kernels run in stream order.
HF_DEVICE void wait_for_prior_grid() {}
HF_DEVICE void allow_early_start() {}
HF_DEVICE unsigned load_acquire(const unsigned* p) {
  return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
HF_DEVICE void pause() { __builtin_amdgcn_s_sleep(1); }
HF_DEVICE void fence_async_global() {}  // no tensor-map copies
HF_DEVICE void trap() { __builtin_trap(); }
HF_DEVICE float divide(float a, float b) { return a / b; }  // no slow-path call here
HF_DEVICE int opaque(int v) {
  asm volatile("" : "+v"(v));
  return v;
}
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
//   cp_async16 / cp_async8 / cp_async_commit / cp_async_wait<N>: 16- and 8-byte global->shared
//     copies that do not block the issuing thread (cp.async on NVIDIA; plain load+store
//     elsewhere, so the kernels' barriers alone order them); `valid == false` writes zeros.
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
// 8 bytes (cp.async.cg takes only 16; .ca caches in L1 too).
HF_DEVICE void cp_async8(void* smem, const void* gmem, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(shared_address(smem)), "l"(gmem),
               "r"(valid ? 8 : 0)
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
HF_DEVICE void cp_async8(void* smem, const void* gmem, bool valid) {
  uint2 v = make_uint2(0u, 0u);
  if (valid) v = *static_cast<const uint2*>(gmem);
  *static_cast<uint2*>(smem) = v;
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
// ---- warpgroup matrix multiply (Hopper wgmma) ----------------------------------------------
// Owned by the implicit-GEMM convolution's warpgroup tiles. HF_HAS_WARPGROUP_MMA is 1 when
// the compile targets an architecture with it (NVIDIA sm_90a: the host compiles those tiles
// for the architecture-specific target); elsewhere the names exist but must not be used.
//   wgmma_desc_k128(addr): the descriptor of a K-major operand in shared memory whose rows
//     are 128 bytes, 16-byte chunks XOR-swizzled by row % 8 (the hardware's 128-byte
//     swizzle; 8-row groups 1024 bytes apart, the tile 1024-byte aligned). Adding 32 bytes
//     to addr moves 16 fp16/bf16 elements along K.
//   wgmma_desc_mn128(addr, lbo): the descriptor of an MN-major operand (16-bit types): rows
//     of 64 M (or N) values, 128 bytes each, one row per k, chunks XOR-swizzled by k % 8;
//     8-k groups 1024 bytes apart, the next 64 values of M `lbo` bytes on. Adding 2048 bytes
//     to addr moves 16 along K.
//   wgmma_m64k16<T, N, MnMajorA>(d, a, b): d (64 x N, fp32) += A (64 x 16, K-major, or
//     MN-major when MnMajorA) * B (16 x N, given as N rows
//     of K), both from shared memory, issued by the 4 warps of a warpgroup together. d holds
//     N / 2 floats per thread: d[4j + e] is row 16 * warp + lane / 4 (+ 8 for e >= 2), column
//     8j + 2 * (lane % 4) + e % 2, where warp is the warp's index in its warpgroup.
//   wgmma_fence / wgmma_commit / wgmma_wait<N>: order register accesses before the first
//     wgmma; close a group of wgmmas; wait until at most N groups are in flight.
//   fence_async_shared: makes this thread's shared-memory writes (cp.async included)
//     visible to the matrix units; before the barrier that precedes the wgmma.
//   fence_registers(d): stops the compiler moving accesses of d across this point (the
//     wgmma writes its registers asynchronously, unknown to the compiler).
//   For warp-specialised blocks (loader warps and multiplying warpgroups in one block):
//   mbarrier_init(bar, count) + fence_barrier_init(): a shared-memory barrier whose phase
//     completes after `count` arrivals; mbarrier_wait(bar, parity) spins until the phase of
//     that parity (0, 1, 0, ...) has completed; mbarrier_arrive(bar) is one arrival;
//     cp_async_arrive(bar) is one arrival made once this thread's earlier cp.async have
//     landed (count it in `count`); mbarrier_arrive_expect_tx(bar, bytes) is one arrival that
//     also makes the phase wait for `bytes` more of tensor-map copies (tma_load_2d) to land.
//   tma_load_2d(dst, map, x, y, bar): the tensor-map copy of the box at element (x, y) of the
//     2-D map `map` (in the kernel's parameters) into shared memory at dst, completing on bar
//     with the box's byte count; elements outside the tensor land as zeros. One thread issues
//     it. Keep x, the innermost coordinate, on a 16-byte boundary (a multiple of 8 16-bit
//     values, negative ones too): other starts are reported to trap on Hopper as an illegal
//     instruction, as a map that shifted x by one pixel did (docs/PERF_NOTES.md v38).
//     prefetch_tensormap(map) starts fetching the map itself.
//   tma_load_im2col_4d(dst, map, c, w, h, n, dw, dh, bar): the same through an im2col map of a
//     channels-last tensor: the map's run of convolution windows starting at the one whose
//     origin is pixel (w, h) of image n, each at filter offset (dw, dh), channels from c.
//   named_barrier_sync(id, threads): a barrier of `threads` threads (a multiple of 32), id 1-15.
//   For blocks launched in clusters (HF_CLUSTER_DIMS(n) on the kernel, n blocks along x):
//   cluster_rank() is this block's place in its cluster; cluster_sync() a barrier of every
//   running thread of the cluster (release, then acquire); mbarrier_arrive_cluster(bar, rank)
//   one arrival on the barrier at bar's offset in block `rank`'s shared memory;
//   tma_load_2d_multicast(dst, map, x, y, bar, mask) tma_load_2d's box written at dst's offset
//   in every block of the cluster whose bit is set in mask, completing on each one's barrier at
//   bar's offset (each receiver expects its bytes).
#if defined(HIPFUSE_PLATFORM_NVIDIA) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HF_HAS_WARPGROUP_MMA 1
namespace hf {
HF_DEVICE unsigned long long wgmma_desc_k128(unsigned smem_address) {
  return static_cast<unsigned long long>((smem_address & 0x3FFFFu) >> 4) |
         (1ull << 16) |   // leading-dimension byte offset (16 B; unused by swizzled K-major operands)
         (64ull << 32) |  // stride-dimension byte offset: 1024 B between 8-row groups
         (1ull << 62);    // 128-byte swizzle
}
HF_DEVICE unsigned long long wgmma_desc_mn128(unsigned smem_address, unsigned lbo_bytes) {
  return static_cast<unsigned long long>((smem_address & 0x3FFFFu) >> 4) |
         (static_cast<unsigned long long>((lbo_bytes & 0x3FFFFu) >> 4) << 16) |  // next 64 along M / N
         (64ull << 32) |  // stride-dimension byte offset: 1024 B between 8-k groups
         (1ull << 62);    // 128-byte swizzle
}
HF_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
HF_DEVICE void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> HF_DEVICE void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
HF_DEVICE void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
template <int N> HF_DEVICE void fence_registers(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
HF_DEVICE void mbarrier_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
HF_DEVICE void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
HF_DEVICE void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(shared_address(bar)), "r"(parity)
                 : "memory");
  } while (done == 0);
}
HF_DEVICE void mbarrier_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar)) : "memory");
}
HF_DEVICE void cp_async_arrive(unsigned long long* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(shared_address(bar)) : "memory");
}
HF_DEVICE void mbarrier_arrive_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
HF_DEVICE void tma_load_2d(void* dst, const void* map, int x, int y, unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(shared_address(bar))
      : "memory");
}
HF_DEVICE void tma_load_im2col_4d(void* dst, const void* map, int c, int w, int h, int n, int dw, int dh,
                                  unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6], {%7, %8};\n" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(shared_address(bar)),
      "h"(static_cast<unsigned short>(dw)), "h"(static_cast<unsigned short>(dh))
      : "memory");
}
HF_DEVICE void prefetch_tensormap(const void* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");
}
HF_DEVICE unsigned cluster_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}
HF_DEVICE void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
HF_DEVICE void mbarrier_arrive_cluster(unsigned long long* bar, unsigned rank) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(shared_address(bar)),
      "r"(rank)
      : "memory");
}
HF_DEVICE void tma_load_2d_multicast(void* dst, const void* map, int x, int y, unsigned long long* bar,
                                     unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, "
      "{%2, %3}], [%4], %5;\n" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(shared_address(bar)), "h"(mask)
      : "memory");
}
// Shared -> global by tensor map (rows past the map's edges are not written), committed as a
// bulk group; the source may be rewritten once the group's reads are done (tma_store_wait_reads).
HF_DEVICE void tma_store_2d(const void* map, const void* src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(shared_address(src)), "r"(x), "r"(y)
               : "memory");
}
HF_DEVICE void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
HF_DEVICE void tma_store_wait_reads() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
HF_DEVICE void tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
HF_DEVICE void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
#define HF_WG_F4(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define HF_WG_F8(d, i) HF_WG_F4(d, i), HF_WG_F4(d, i + 4)
#define HF_WG_ACC8(d) HF_WG_F8(d, 0)
#define HF_WG_ACC16(d) HF_WG_ACC8(d), HF_WG_F8(d, 8)
#define HF_WG_ACC24(d) HF_WG_ACC16(d), HF_WG_F8(d, 16)
#define HF_WG_ACC32(d) HF_WG_ACC24(d), HF_WG_F8(d, 24)
#define HF_WG_ACC40(d) HF_WG_ACC32(d), HF_WG_F8(d, 32)
#define HF_WG_ACC48(d) HF_WG_ACC40(d), HF_WG_F8(d, 40)
#define HF_WG_ACC56(d) HF_WG_ACC48(d), HF_WG_F8(d, 48)
#define HF_WG_ACC64(d) HF_WG_ACC56(d), HF_WG_F8(d, 56)
#define HF_WG_ACC72(d) HF_WG_ACC64(d), HF_WG_F8(d, 64)
#define HF_WG_ACC80(d) HF_WG_ACC72(d), HF_WG_F8(d, 72)
#define HF_WG_ACC88(d) HF_WG_ACC80(d), HF_WG_F8(d, 80)
#define HF_WG_ACC96(d) HF_WG_ACC88(d), HF_WG_F8(d, 88)
#define HF_WG_ACC104(d) HF_WG_ACC96(d), HF_WG_F8(d, 96)
#define HF_WG_ACC112(d) HF_WG_ACC104(d), HF_WG_F8(d, 104)
#define HF_WG_ACC120(d) HF_WG_ACC112(d), HF_WG_F8(d, 112)
#define HF_WG_ACC128(d) HF_WG_ACC120(d), HF_WG_F8(d, 120)
#define HF_WG_REGS8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define HF_WG_REGS16 HF_WG_REGS8 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define HF_WG_REGS24 HF_WG_REGS16 ", %16, %17, %18, %19, %20, %21, %22, %23"
#define HF_WG_REGS32 HF_WG_REGS24 ", %24, %25, %26, %27, %28, %29, %30, %31"
#define HF_WG_REGS40 HF_WG_REGS32 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define HF_WG_REGS48 HF_WG_REGS40 ", %40, %41, %42, %43, %44, %45, %46, %47"
#define HF_WG_REGS56 HF_WG_REGS48 ", %48, %49, %50, %51, %52, %53, %54, %55"
#define HF_WG_REGS64 HF_WG_REGS56 ", %56, %57, %58, %59, %60, %61, %62, %63"
#define HF_WG_REGS72 HF_WG_REGS64 ", %64, %65, %66, %67, %68, %69, %70, %71"
#define HF_WG_REGS80 HF_WG_REGS72 ", %72, %73, %74, %75, %76, %77, %78, %79"
#define HF_WG_REGS88 HF_WG_REGS80 ", %80, %81, %82, %83, %84, %85, %86, %87"
#define HF_WG_REGS96 HF_WG_REGS88 ", %88, %89, %90, %91, %92, %93, %94, %95"
#define HF_WG_REGS104 HF_WG_REGS96 ", %96, %97, %98, %99, %100, %101, %102, %103"
#define HF_WG_REGS112 HF_WG_REGS104 ", %104, %105, %106, %107, %108, %109, %110, %111"
#define HF_WG_REGS120 HF_WG_REGS112 ", %112, %113, %114, %115, %116, %117, %118, %119"
#define HF_WG_REGS128 HF_WG_REGS120 ", %120, %121, %122, %123, %124, %125, %126, %127"
// One wgmma of shape m64nNk16 (fp32 accumulators, D += A * B): N / 2 accumulator operands,
// then the two descriptors, the scale-d flag (1: accumulate) and A's transpose immediate
// (1: MN-major).
#define HF_WGMMA(SHAPE_TYPES, REGS, A, B, SCALE, TRANS_A, ...)                                      \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                              \
               "wgmma.mma_async.sync.aligned." SHAPE_TYPES " {" REGS "}, " A ", " B ", p, 1, 1, " TRANS_A ", 0;\n}\n" \
               : __VA_ARGS__                                                                   \
               : "memory")
// Wgmma<T, N>: the m64nNk16 wgmma of fp16 or bf16 operands, for N a multiple of 16 from 64 to
// 256 (the implicit GEMM's tile widths: hfi::BN); R = N / 2 accumulators a thread, the
// descriptors and flags are operands R to R + 3.
template <typename T, int N> struct Wgmma;
#define HF_WGMMA_TYPE(T, TYPES, N, R, A, B, S, TR)                                                    \
  template <> struct Wgmma<T, N> {                                                                  \
    template <int TransA> HF_DEVICE static void run(float (&d)[R], unsigned long long a, unsigned long long b) { \
      HF_WGMMA("m64n" #N "k16.f32." TYPES, HF_WG_REGS##R, A, B, S, TR, HF_WG_ACC##R(d)               \
               : "l"(a), "l"(b), "r"(1), "n"(TransA));                                              \
    }                                                                                               \
  };
#define HF_WGMMA_SHAPE(N, R, A, B, S, TR)                           \
  HF_WGMMA_TYPE(half, "f16.f16", N, R, A, B, S, TR)                 \
  HF_WGMMA_TYPE(bfloat16, "bf16.bf16", N, R, A, B, S, TR)
HF_WGMMA_SHAPE(64, 32, "%32", "%33", "%34", "%35")
HF_WGMMA_SHAPE(80, 40, "%40", "%41", "%42", "%43")
HF_WGMMA_SHAPE(96, 48, "%48", "%49", "%50", "%51")
HF_WGMMA_SHAPE(112, 56, "%56", "%57", "%58", "%59")
HF_WGMMA_SHAPE(128, 64, "%64", "%65", "%66", "%67")
HF_WGMMA_SHAPE(144, 72, "%72", "%73", "%74", "%75")
HF_WGMMA_SHAPE(160, 80, "%80", "%81", "%82", "%83")
HF_WGMMA_SHAPE(176, 88, "%88", "%89", "%90", "%91")
HF_WGMMA_SHAPE(192, 96, "%96", "%97", "%98", "%99")
HF_WGMMA_SHAPE(208, 104, "%104", "%105", "%106", "%107")
HF_WGMMA_SHAPE(224, 112, "%112", "%113", "%114", "%115")
HF_WGMMA_SHAPE(240, 120, "%120", "%121", "%122", "%123")
HF_WGMMA_SHAPE(256, 128, "%128", "%129", "%130", "%131")
#undef HF_WGMMA_SHAPE
#undef HF_WGMMA_TYPE
template <typename T, int N, bool MnMajorA = false>
HF_DEVICE void wgmma_m64k16(float (&d)[N / 2], unsigned long long a, unsigned long long b) {
  Wgmma<T, N>::template run<MnMajorA ? 1 : 0>(d, a, b);
}
}  // namespace hf
#else
#define HF_HAS_WARPGROUP_MMA 0
namespace hf {
HF_DEVICE unsigned long long wgmma_desc_k128(unsigned) { return 0; }
HF_DEVICE unsigned long long wgmma_desc_mn128(unsigned, unsigned) { return 0; }
HF_DEVICE void wgmma_fence() {}
HF_DEVICE void wgmma_commit() {}
template <int N> HF_DEVICE void wgmma_wait() {}
HF_DEVICE void fence_async_shared() {}
template <int N> HF_DEVICE void fence_registers(float (&)[N]) {}
HF_DEVICE void mbarrier_init(unsigned long long*, unsigned) {}
HF_DEVICE void fence_barrier_init() {}
HF_DEVICE void mbarrier_wait(unsigned long long*, unsigned) {}
HF_DEVICE void mbarrier_arrive(unsigned long long*) {}
HF_DEVICE void cp_async_arrive(unsigned long long*) {}
HF_DEVICE void mbarrier_arrive_expect_tx(unsigned long long*, unsigned) {}
HF_DEVICE void tma_load_2d(void*, const void*, int, int, unsigned long long*) {}
HF_DEVICE void tma_load_im2col_4d(void*, const void*, int, int, int, int, int, int, unsigned long long*) {}
HF_DEVICE void prefetch_tensormap(const void*) {}
HF_DEVICE unsigned cluster_rank() { return 0; }
HF_DEVICE void cluster_sync() {}
HF_DEVICE void mbarrier_arrive_cluster(unsigned long long*, unsigned) {}
HF_DEVICE void tma_load_2d_multicast(void*, const void*, int, int, unsigned long long*, unsigned short) {}
HF_DEVICE void tma_store_2d(const void*, const void*, int, int) {}
HF_DEVICE void tma_store_commit() {}
HF_DEVICE void tma_store_wait_reads() {}
HF_DEVICE void tma_store_wait_all() {}
HF_DEVICE void named_barrier_sync(int, int) {}
template <typename T, int N, bool MnMajorA = false>
HF_DEVICE void wgmma_m64k16(float (&)[N / 2], unsigned long long, unsigned long long) {
  static_assert(sizeof(T) == 0, "warpgroup MMA needs an architecture with it (sm_90a)");
}
}  // namespace hf
#endif
// ---- end of warpgroup matrix multiply -----------------------------------------------------

