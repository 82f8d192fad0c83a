// Probe: which 4-D tiled TMA loads (fp16, 128-byte swizzle) Hopper accepts over an NCHW-like
// tensor (w, h, c, n): the innermost coordinate's alignment, and a box wider than the tensor.
// usage: tma_probe W BOX0 X0   -> "ran, mismatches=N", the CUDA error, or "barrier never completed".
// The expected layout is 128-byte lines (one channel each, 16-byte chunks XOR-swizzled by the
// line's index mod 8); for a box narrower than 64 pixels the mismatches show where lines land.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
__global__ void load(const __grid_constant__ CUtensorMap map, int x0, int bytes, unsigned short* out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) unsigned long long bar;
  unsigned char* dst = (unsigned char*)(((unsigned long long)smem + 1023) & ~1023ull);
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar), d = (unsigned)__cvta_generic_to_shared(dst);
  for (int i = threadIdx.x; i < 64 * 128 / 2; i += blockDim.x) ((unsigned short*)dst)[i] = 0xFFFF;
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"(bytes));
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 ::"r"(d), "l"(&map), "r"(x0), "r"(1), "r"(0), "r"(0), "r"(b) : "memory");
    unsigned done = 0;
    for (long it = 0; it < 20000000 && !done; ++it)
      asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared.b64 p, [%1], 0;\nselp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(b));
    if (!done) out[64 * 64] = 1;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 64 * 128 / 2; i += blockDim.x) out[i] = ((unsigned short*)dst)[i];
}
int main(int argc, char** argv) {
  int W = atoi(argv[1]), box0 = atoi(argv[2]), x0 = atoi(argv[3]), H = 4, C = 64;
  cuInit(0); CUdevice dev; cuDeviceGet(&dev, 0); CUcontext ctx; cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
  std::vector<unsigned short> x((size_t)W * H * C);
  for (int c = 0; c < C; ++c) for (int h = 0; h < H; ++h) for (int w = 0; w < W; ++w) x[(c * H + h) * W + w] = (unsigned short)(c * 256 + w + 1);
  CUdeviceptr dx, dout; cuMemAlloc(&dx, x.size() * 2); cuMemcpyHtoD(dx, x.data(), x.size() * 2); cuMemAlloc(&dout, 64 * 128 + 2); cuMemsetD8(dout, 0, 64 * 128 + 2);
  cuuint64_t dims[4] = {(cuuint64_t)W, (cuuint64_t)H, (cuuint64_t)C, 1}, strides[3] = {(cuuint64_t)W * 2, (cuuint64_t)W * H * 2, (cuuint64_t)W * H * C * 2};
  cuuint32_t box[4] = {(cuuint32_t)box0, 1, 64, 1}, es[4] = {1, 1, 1, 1};
  CUtensorMap map;
  CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, (void*)dx, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) { printf("W=%d box=%d x0=%d: encode refused (%d)\n", W, box0, x0, r); return 0; }
  load<<<1, 128, 64 * 128 + 2048>>>(map, x0, box0 * 64 * 2, (unsigned short*)dout);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("W=%d box=%d x0=%d: %s\n", W, box0, x0, cudaGetErrorString(e)); return 0; }
  std::vector<unsigned short> out(64 * 64 + 1);
  cuMemcpyDtoH(out.data(), dout, 64 * 128 + 2);
  if (out[64 * 64]) printf("W=%d box=%d x0=%d: barrier never completed\n", W, box0, x0);
  // Expected: line c (128 bytes) holds pixels x0.. of channel c, its 16-byte chunks XOR-swizzled by c % 8.
  int bad = 0, first = -1;
  for (int c = 0; c < 64; ++c) for (int i = 0; i < 64; ++i) {
    int chunk = (i / 8) ^ (c % 8), pos = c * 64 + chunk * 8 + i % 8, w = x0 + i;
    unsigned short want = i >= box0 ? 0xFFFF : (w < 0 || w >= W) ? 0 : (unsigned short)(c * 256 + w + 1);
    if (out[pos] != want) { if (first < 0) first = c * 64 + i; ++bad; }
  }
  printf("W=%d box=%d x0=%d: ran, mismatches=%d (first at channel %d pixel %d; line 0: %u %u %u .. line 1: %u %u)\n", W, box0, x0, bad,
         first < 0 ? -1 : first / 64, first < 0 ? -1 : first % 64, out[0], out[1], out[2], out[64], out[65]);
  return 0;
}
