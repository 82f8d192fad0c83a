// A minimal kernel that proves the runtime path end to end (hipRTC, cache, module load,
// launch): y[i] = a * x[i] + b, with the warp size written to y's guard slot.
#include "common/vendor.h"

struct SmokeArgs {
  const float* x;
  float* y;
  float a, b;
  hf::index_t n;
};

HF_KERNEL void hf_smoke(SmokeArgs args) {
  hf::index_t i = static_cast<hf::index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < args.n) args.y[i] = args.a * args.x[i] + args.b;
  if (i == 0) args.y[args.n] = static_cast<float>(hf::kWarpSize);
}
