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
