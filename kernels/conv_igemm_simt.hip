// Implicit-GEMM forward convolution in true fp32 on the CUDA cores (no tf32): a register-
// blocked SGEMM over the GEMM view of common/igemm.h, with the plan's prologue / epilogue.
//
// Block tile BM x BN (pixels x output channels), k-tile BK (8 or 16: hfi::KChunks chunks of 4
// kk), (BM/8) x (BN/8) threads, each computing 8 x 8 outputs as 2 x 2 sub-blocks of 4 x 4
// (rows tm*4.. and BM/2 + tm*4.., columns tn*4.. and BN/2 + tn*4..), so its operands are four
// 16-byte shared-memory reads per k (64 FMAs). Shared memory: two buffers of A [BK][BM + 4]
// and B [BK][BN + 4], k-major; the next k-tile is loaded into registers while the current one
// is computed and stored after it (one barrier per k-tile: BK 16 halves the barriers and the
// loaders' address work per FMA). The +4 pad keeps the transposing stores conflict-free.
// Loaders (hfi::AMode / BMode): kVector reads 4 consecutive kk (channels) as one 16-byte
// load (x NHWC-like with C/G % 4 == 0; w contiguous along (r, s, c)); kGather reads element
// by element, lanes along m (coalesced for NCHW). Outputs are stored straight from the
// registers, 4 consecutive values per 16-byte store along the output's contiguous dimension
// (hfi::OutAlongK, hfi::OutVec) or one by one.
#include "common/igemm.h"

namespace igemm {

constexpr int kChunks = hfi::KChunks;  // 16-byte chunks (4 kk) per k-tile row
constexpr int BM = hfi::BM, BN = hfi::BN, BK = 4 * kChunks;
constexpr int kTn = BN / 8, kTm = BM / 8;
constexpr int kThreads = kTm * kTn;
constexpr int kLdA = BM + 4, kLdB = BN + 4;
constexpr int KT = (kKG + BK - 1) / BK;
constexpr bool kAlongK = hfi::OutAlongK;
constexpr int kOutVec = hfi::OutVec;
static_assert(sizeof(T) == 4, "the SIMT kernel is the fp32 path");
static_assert(BM % 32 == 0 && BN % 32 == 0, "tile");
static_assert(BK == 8 || BK == 16, "k-tiles of 8 or 16");
static_assert((BM * kChunks) % kThreads == 0 && (BN * kChunks) % kThreads == 0, "loader slots");
static_assert(kOutVec == 1 || kOutVec == 4, "output vectors are 4 wide");

enum LoaderMode : int { kVector = 0, kGather = 1 };

// A (x) or B (w) k-tile: Rows x BK values, as Rows x kChunks chunks of 4 consecutive kk.
template <bool IsA, int Mode>
struct SimtLoader {
  static constexpr int kRows = IsA ? BM : BN;
  static constexpr int kSlots = kRows * kChunks / kThreads;
  static constexpr bool kChunkShareTap = kCg % 4 == 0;
  float regs[kSlots][4];
  RowStart rows[IsA ? kSlots : 1];  // A only
  int tid_, group_, n0_;

  // kVector: kChunks lanes per row (the k-tile's contiguous bytes of one pixel / filter);
  // kGather: lanes along the rows.
  HF_DEVICE static int row_of(int tid, int i) {
    const int s = tid + i * kThreads;
    return Mode == kVector ? s / kChunks : s % kRows;
  }
  HF_DEVICE static int chunk_of(int tid, int i) {
    const int s = tid + i * kThreads;
    return Mode == kVector ? s % kChunks : s / kRows;
  }

  HF_DEVICE void init(I m0, int n0, int group, int tid) {
    tid_ = tid;
    group_ = group;
    n0_ = n0;
    if constexpr (IsA) {
#pragma unroll
      for (int i = 0; i < kSlots; ++i) rows[i] = row_start(m0 + row_of(tid, i), group);
    }
  }

  HF_DEVICE void fetch(const float* HF_RESTRICT src, int kt, const hf::ChainArgs& chain) {
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      const int kk0 = kt * BK + chunk_of(tid_, i) * 4;
      if constexpr (IsA) {
        const RowStart& row = rows[i];
        if constexpr (kChunkShareTap) {
          const bool k_ok = kk0 < kKG;
          const Tap tap = decode_kk(k_ok ? kk0 : 0);
          const int h = row.h0 + tap.r * kDilH, w = row.w0 + tap.s * kDilW;
          const bool ok = k_ok && inside(h, w);
          const I off = row.base + static_cast<I>(h) * kXsH + static_cast<I>(w) * kXsW + static_cast<I>(tap.c) * kXsC;
          if constexpr (Mode == kVector) {
            const float4 v = ok ? *reinterpret_cast<const float4*>(src + off) : make_float4(0.f, 0.f, 0.f, 0.f);
            regs[i][0] = v.x;
            regs[i][1] = v.y;
            regs[i][2] = v.z;
            regs[i][3] = v.w;
          } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) regs[i][e] = ok ? src[off + e * kXsC] : 0.0f;
          }
          if constexpr (kHasPrologue) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              regs[i][e] = ok ? Prologue::apply(regs[i][e], hf::Coord{row.n, group_ * kCg + tap.c + e, 0, h, w},
                                                static_cast<hf::index_t>(off + e * kXsC), chain)
                              : 0.0f;
            }
          }
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int kk = kk0 + e;
            const bool k_ok = kk < kKG;
            const Tap tap = decode_kk(k_ok ? kk : 0);
            const int h = row.h0 + tap.r * kDilH, w = row.w0 + tap.s * kDilW;
            const bool ok = k_ok && inside(h, w);
            const I off = row.base + static_cast<I>(h) * kXsH + static_cast<I>(w) * kXsW + static_cast<I>(tap.c) * kXsC;
            regs[i][e] = a_value(src, ok, off, row.n, group_ * kCg + tap.c, h, w, chain);
          }
        }
      } else {
        const int n = n0_ + row_of(tid_, i);
        const I base = static_cast<I>(group_ * kNg + n) * kWsK;
        if constexpr (kChunkShareTap) {
          const bool ok = kk0 < kKG && n < kNg;
          const Tap tap = decode_kk(ok ? kk0 : 0);
          const I off = base + static_cast<I>(tap.c) * kWsC + static_cast<I>(tap.r) * kWsR + static_cast<I>(tap.s) * kWsS;
          if constexpr (Mode == kVector) {
            const float4 v = ok ? *reinterpret_cast<const float4*>(src + off) : make_float4(0.f, 0.f, 0.f, 0.f);
            regs[i][0] = v.x;
            regs[i][1] = v.y;
            regs[i][2] = v.z;
            regs[i][3] = v.w;
          } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) regs[i][e] = ok ? src[off + e * kWsC] : 0.0f;
          }
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int kk = kk0 + e;
            const bool ok = kk < kKG && n < kNg;
            const Tap tap = decode_kk(ok ? kk : 0);
            const I off = base + static_cast<I>(tap.c) * kWsC + static_cast<I>(tap.r) * kWsR + static_cast<I>(tap.s) * kWsS;
            regs[i][e] = ok ? src[off] : 0.0f;
          }
        }
      }
    }
  }

  HF_DEVICE void deposit(float* tile) const {
    constexpr int ld = IsA ? kLdA : kLdB;
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      const int row = row_of(tid_, i), k0 = chunk_of(tid_, i) * 4;
#pragma unroll
      for (int e = 0; e < 4; ++e) tile[(k0 + e) * ld + row] = regs[i][e];
    }
  }
};

}  // namespace igemm

HF_KERNEL void __launch_bounds__(igemm::kThreads, hfi::MinBlocks) hf_conv_igemm_simt(hf::ConvArgs args) {
  using namespace igemm;
  hf::wait_for_prior_grid();  // x and the weights may come from the re-layout launched just before
  __shared__ float4 a_words[2][BK * kLdA / 4];
  __shared__ float4 b_words[2][BK * kLdB / 4];

  const int tid = static_cast<int>(threadIdx.x);
  const int tn = tid % kTn, tm = tid / kTn;
  constexpr int NT = (kNg + BN - 1) / BN;
  const int group = static_cast<int>(blockIdx.y);
  const I m0 = static_cast<I>(blockIdx.x / NT) * BM;
  const int n0 = static_cast<int>(blockIdx.x % NT) * BN;

  const float* HF_RESTRICT x = static_cast<const float*>(args.x);
  const float* HF_RESTRICT w = static_cast<const float*>(args.w);
  float* HF_RESTRICT y = static_cast<float*>(args.y);

  SimtLoader<true, hfi::AMode> a_load;
  SimtLoader<false, hfi::BMode> b_load;
  a_load.init(m0, n0, group, tid);
  b_load.init(m0, n0, group, tid);

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  a_load.fetch(x, 0, args.chain);
  b_load.fetch(w, 0, args.chain);
  a_load.deposit(reinterpret_cast<float*>(a_words[0]));
  b_load.deposit(reinterpret_cast<float*>(b_words[0]));
  __syncthreads();

  for (int kt = 0; kt < KT; ++kt) {
    const int buf = kt & 1;
    if (kt + 1 < KT) {
      a_load.fetch(x, kt + 1, args.chain);
      b_load.fetch(w, kt + 1, args.chain);
    }
    const float* as = reinterpret_cast<const float*>(a_words[buf]);
    const float* bs = reinterpret_cast<const float*>(b_words[buf]);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4*>(as + kk * kLdA + tm * 4);
      const float4 a1 = *reinterpret_cast<const float4*>(as + kk * kLdA + BM / 2 + tm * 4);
      const float4 b0 = *reinterpret_cast<const float4*>(bs + kk * kLdB + tn * 4);
      const float4 b1 = *reinterpret_cast<const float4*>(bs + kk * kLdB + BN / 2 + tn * 4);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (kt + 1 < KT) {
      a_load.deposit(reinterpret_cast<float*>(a_words[buf ^ 1]));
      b_load.deposit(reinterpret_cast<float*>(b_words[buf ^ 1]));
    }
    __syncthreads();
  }

  // Epilogue straight from the registers: row i -> m, column j -> output channel. Loops run
  // over a thread's channels outermost, so that each channel's parameters are prepared once.
  const float alpha = args.alpha;
  auto row_of = [&](int i) { return (i < 4 ? 0 : BM / 2) + tm * 4 + (i & 3); };
  auto col_of = [&](int j) { return (j < 4 ? 0 : BN / 2) + tn * 4 + (j & 3); };
  if constexpr (kAlongK && kOutVec == 4) {
#pragma unroll
    for (int jh = 0; jh < 2; ++jh) {
      const int n = n0 + col_of(jh * 4);
      if (n >= kNg) continue;  // Ng % 4 == 0
      const int k = group * kNg + n;
      EpilogueChannel ch[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) ch[e] = epilogue_channel(k + e, args.alpha, args.chain);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const I m = m0 + row_of(i);
        if (m >= kM) continue;
        const Pixel px = decode_m(m);
        const I off = y_offset(px.n, k, px.p, px.q);
        float4 v;
        v.x = epilogue_value(acc[i][jh * 4 + 0], alpha, ch[0], px.n, k + 0, px.p, px.q, off + 0, args.chain);
        v.y = epilogue_value(acc[i][jh * 4 + 1], alpha, ch[1], px.n, k + 1, px.p, px.q, off + 1, args.chain);
        v.z = epilogue_value(acc[i][jh * 4 + 2], alpha, ch[2], px.n, k + 2, px.p, px.q, off + 2, args.chain);
        v.w = epilogue_value(acc[i][jh * 4 + 3], alpha, ch[3], px.n, k + 3, px.p, px.q, off + 3, args.chain);
        *reinterpret_cast<float4*>(y + off) = v;
      }
    }
  } else if constexpr (!kAlongK && kOutVec == 4) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int n = n0 + col_of(j);
      if (n >= kNg) continue;
      const int k = group * kNg + n;
      const EpilogueChannel ch = epilogue_channel(k, args.alpha, args.chain);
#pragma unroll
      for (int ih = 0; ih < 2; ++ih) {
        const I m = m0 + row_of(ih * 4);
        if (m >= kM) continue;  // P*Q % 4 == 0: the 4 pixels are in one image, all in or all out
        Pixel px = decode_m(m);
        const I off = y_offset(px.n, k, px.p, px.q);
        float r[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          r[e] = epilogue_value(acc[ih * 4 + e][j], alpha, ch, px.n, k, px.p, px.q, off + e, args.chain);
          next_pixel(px);
        }
        *reinterpret_cast<float4*>(y + off) = make_float4(r[0], r[1], r[2], r[3]);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int n = n0 + col_of(j);
      if (n >= kNg) continue;
      const int k = group * kNg + n;
      const EpilogueChannel ch = epilogue_channel(k, args.alpha, args.chain);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const I m = m0 + row_of(i);
        if (m >= kM) continue;
        const Pixel px = decode_m(m);
        const I off = y_offset(px.n, k, px.p, px.q);
        y[off] = epilogue_value(acc[i][j], alpha, ch, px.n, k, px.p, px.q, off, args.chain);
      }
    }
  }
}
