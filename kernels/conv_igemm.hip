// Implicit-GEMM forward convolution on the matrix units: fp16 / bf16 with fp32 accumulators
// (and fp32 data as tf32 when the plan allows it), the plan's pointwise ops fused into the
// epilogue. The GEMM view is in common/igemm.h; every shape is a compile-time constant.
//
// Block tile BM x BN (pixels x output channels), k-tile of KChunks 16-byte chunks per row
// (4: 64 bytes, 32 fp16 / 16 fp32; 8: 128 bytes, 64 fp16 / 32 fp32), WarpsM x WarpsN groups
// of 32 threads each computing a (BM/WarpsM) x (BN/WarpsN) warp tile with m16n8k16 (m16n8k8
// for tf32) matrix instructions fed by ldmatrix. Warpgroup tiles (hfi::Warpgroup, Hopper
// sm_90a, fp16/bf16, BK 64) instead have each warpgroup of 4 warps multiply BM / warpgroups
// rows by all BN columns with wgmma, reading both operands straight from the swizzled shared
// memory (the 8-chunk swizzle below is the hardware's 128-byte swizzle); the stages are then
// 1024-byte aligned, and one k-tile's wgmmas stay in flight while the next is waited for.
// Shared memory: Stages ring buffers, each [BM rows of A | BN rows of B] x KChunks * 16
// bytes, the chunks of a row XOR-swizzled (4 chunks: by (row / 2) % 4; 8 chunks: by row % 8)
// so that both the 16-byte stores of the loaders and the 8-row reads of ldmatrix are
// conflict-free.
// Loaders (hfi::AMode / BMode):
//   kAsync16: cp.async of 16-byte vectors (x NHWC-like with C/G % 8 == 0, w contiguous along
//             (r, s, c)): a multistage pipeline, Stages - 1 tiles in flight; with C/G % BK == 0
//             each k-tile is one filter tap and the copies' addresses are kept per row. NCHW inputs with
//             filters > 1x1 and non-(r, s, c) weights are re-laid out into this form first by
//             conv_igemm_pack.hip (the invoker launches it; hf_plan.h then describes the
//             re-laid-out tensors).
//   kGather : each 16-byte chunk gathered element by element into registers while the
//             previous tile is computed, stored to shared memory after it (NCHW 1x1 that
//             kAsyncPixels cannot take: lanes along the pixels, each value read once; odd C;
//             NHWC with a prologue, which is applied here).
//   tensor maps (hfi::TmaA / TmaB, warp-specialised tiles on sm_90): k-tiles of the weights,
//             and of a 1x1, stride-1, unpadded convolution's channels-last x, moved as whole
//             boxes by the copy engine (see kTmaA below); with hfi::TmaAIm2col, x's k-tiles of
//             any filter, stride and padding gathered by an im2col map, a box per filter tap.
//   kAsyncPixels (A only, fp16/bf16): NCHW-like x of a 1x1, stride-1, unpadded convolution,
//             whose GEMM column kk is channel kk's plane: cp.async vectors along the pixels
//             (hfi::APixelLanes = 8 or 4 values; H*W a multiple of them) into an MN-major A
//             tile, read by wgmma as a transposed A and by ldmatrix.trans for mma.sync.
// Epilogue: the accumulators are staged through shared memory as fp32 (the pipeline buffers
// are reused), then each thread takes OutVec consecutive outputs along the output's
// contiguous dimension (channels for NHWC, pixels for NCHW), applies alpha and the fused ops
// in fp32, rounds once and writes them with one vector store. With hfi::Stage16 (16-bit y,
// along either) each thread applies them to its own accumulators instead and stages the
// rounded 16-bit values, which then go out as whole vectors: half the shared-memory traffic.
// Grid: a block per output tile; persistent tiles loop over the tiles; stream-K (forced by the
// host only, hfi::StreamKBlocks) splits the k-tiles of all tiles evenly over the resident
// blocks (below).
#include "common/igemm.h"
#include "common/igemm_args.h"  // hf::kEpilogueChannelBytes, hf::kStoreBoxChannels
#include "common/ready_counters.h"

namespace igemm {

constexpr int kVec = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte chunk
constexpr int kChunks = hfi::KChunks;                    // chunks per shared-memory row
constexpr int BK = kChunks * kVec;                       // GEMM K per k-tile
constexpr int BM = hfi::BM, BN = hfi::BN;
constexpr int kWarpsM = hfi::WarpsM, kWarpsN = hfi::WarpsN;
constexpr int kThreads = 32 * kWarpsM * kWarpsN;  // the threads that multiply (and store y)
// Warp specialisation (hfi::WarpSpecialized: warpgroup tiles whose loaders are cp.async or
// tensor-map copies): loader threads past the multiplying ones fill the stages, each completing
// on a "full" mbarrier; the warpgroups that multiply wait on it, issue their wgmmas and free the
// stage on its "empty" mbarrier. No block-wide barrier per k-tile, and the loads' address
// arithmetic and issue run in warps of their own. The host turns it on for the heuristic's
// wgmma tiles where it measured faster, and with <tile>/ws: with cp.async alone it was not
// faster than the plain loop on the H200 (docs/PERF_NOTES.md v11), with tensor maps 1-20% (v12).
constexpr bool kWarpSpecialized = hfi::WarpSpecialized;
// Tensor-map copies (hfi::TmaA / TmaB, warp-specialised tiles only; sm_90): one loader thread
// moves an operand's whole k-tile with one instruction, the 128-byte swizzle applied by the
// copy engine and the edges (rows past M or N, k past GEMM K) filled with zeros, so the loader
// warps issue nothing per 16-byte chunk. A: a 1x1, stride-1, unpadded convolution's x as a
// pixels x channels matrix; B: weights linear in kk, as K rows of GEMM K. With both, the
// loaders are one warp (one thread of it issues).
constexpr bool kTmaA = hfi::TmaA, kTmaB = hfi::TmaB;
constexpr bool kTmaAIm2col = hfi::TmaAIm2col;  // A's map gathers convolution windows, a box per filter tap
constexpr bool kAllTma = kTmaA && kTmaB;
constexpr int kLoadThreads = kWarpSpecialized ? (kAllTma ? 32 : 128) : kThreads;  // the threads that run the loaders
constexpr int kBlockThreads = kThreads + (kWarpSpecialized ? kLoadThreads : 0);
constexpr int kStages = hfi::Stages;
constexpr int WTM = BM / kWarpsM, WTN = BN / kWarpsN;
constexpr bool kWarpgroupMma = hfi::Warpgroup;
constexpr int kWarpgroups = kThreads / 128;
constexpr int kWgRows = kWarpgroupMma ? BM / kWarpgroups : WTM;  // rows of A per warpgroup
// Accumulators acc[MI][NI][4]: with mma.sync, the warp tile's MI x NI m16n8 pieces; with
// wgmma, MI m64 x BN products per warpgroup, each NI = BN / 8 pieces of 4 per thread.
constexpr int MI = kWarpgroupMma ? kWgRows / 64 : WTM / 16;
constexpr int NI = kWarpgroupMma ? BN / 8 : WTN / 8;
constexpr int KT = (kKG + BK - 1) / BK;
constexpr int kRowBytes = kChunks * 16;
constexpr int kStageBytes = (BM + BN) * kRowBytes;
constexpr int kPipeBytes = kStageBytes * kStages;
constexpr bool kTf32 = hfi::Tf32;
// The transposed GEMM (hfi::Transposed: persistent warp-specialised wgmma tiles whose operands
// go by tensor maps, x's as a pixels x channels matrix or by im2col windows, 16-bit staging):
// the weights are wgmma's A (BM output channels, K-major rows of the weights) and x's pixels
// its B (BN pixels, K-major rows of x or of its windows), so that the pixel width steps by 16
// along wgmma's n and can be fitted to the multiprocessors, where pixels along M come in 64-row
// steps. The accumulators are then channels x pixels, each value staged where the store reads
// it (the tensor-map store's boxes, or either vector staging).
constexpr bool kTransposed = hfi::Transposed;
constexpr int kTilePixels = kTransposed ? BN : BM;    // an output tile's pixels
constexpr int kTileChannels = kTransposed ? BM : BN;  // ... and output channels

static_assert(HF_WARP_SIZE % 32 == 0, "the mma groups are 32 threads");
static_assert(MI >= 1 && NI >= 2 && NI % 2 == 0 && WTM % 16 == 0 && WTN % 16 == 0, "warp tile");
static_assert((BM * kChunks) % kLoadThreads == 0 && kLoadThreads % kChunks == 0, "A loader slots");
// B's chunks need not divide among the threads: with 3 warpgroups (384 threads) a 128-row B
// tile is 1024 chunks, so the last of a thread's ceil(1024 / 384) = 3 slots exists for only
// some threads (b_slot_used).
constexpr int kBChunks = BN * kChunks;
constexpr int kBSlots = (kBChunks + kLoadThreads - 1) / kLoadThreads;
HF_DEVICE bool b_slot_used(int tid, int slot) {
  return kBChunks % kLoadThreads == 0 || tid + slot * kLoadThreads < kBChunks;
}
// (Warp-specialised wgmma tiles free a stage on its mbarrier once its multiplies are done: two will do.)
static_assert(kStages >= (kWarpgroupMma && !kWarpSpecialized ? 3 : 2) || KT == 1,
              "at least double buffering (one stage: K fits one k-tile)");
static_assert(kChunks == 4 || kChunks == 8, "k-tile rows of 64 or 128 bytes");
static_assert(kTf32 == (sizeof(T) == 4), "fp32 data runs on the matrix units only as tf32");
static_assert(!kWarpgroupMma || HF_HAS_WARPGROUP_MMA, "warpgroup tiles need an architecture with wgmma (sm_90a)");
static_assert(!kWarpgroupMma || (kChunks == 8 && !kTf32 && kWarpsN == 1 && kThreads % 128 == 0 &&
                                 kWgRows % 64 == 0 && BN % 16 == 0 && BN >= 64 && BN <= 256),
              "warpgroup tiles: fp16/bf16, BK 64, warps stacked along M, 64-row slices, N 64-256 in steps of 16");
// k-tiles in flight ahead of the one computed: mma.sync frees a stage at the next barrier;
// with wgmma the previous k-tile's multiplies may still be reading theirs, so one fewer.
constexpr int kLookahead = kWarpgroupMma ? kStages - 2 : kStages - 1;
// (Warp-specialised tiles have no lookahead: their loaders run ahead on the mbarriers.)
static_assert(kLookahead >= 1 || kStages == 1 || kWarpSpecialized, "stages for the lookahead");

// Epilogue staging: [BM][BN + 8] floats when the output is contiguous along channels,
// [BN][BM + 4] when it is contiguous along pixels (both pads make the fragment writes
// conflict-free for multiples of 32); with 16-bit staging [BM][BN + 8] or [BN][BM + 8] values
// of T (along the pixels, the 4 column pairs of a fragment write land 8 banks apart: BM / 2 + 4
// words a row; along channels BN / 2 + 4 words a row, an odd multiple of 4 for any BN a
// multiple of 16, so that a fragment's 8 rows start on 8 different 4-bank groups).
constexpr bool kAlongK = hfi::OutAlongK;
constexpr int kOutVec = hfi::OutVec;
constexpr bool kStage16 = hfi::Stage16;
constexpr int kStageLd = kAlongK ? kTileChannels + 8 : kStage16 ? kTilePixels + 8 : kTilePixels + 4;
static_assert(!kStage16 || (sizeof(T) == 2 && (kAlongK ? kOutVec >= 2 : kNg % 2 == 0)),
              "16-bit staging: 16-bit y; along channels in vectors of 2 or more, along the pixels an even Ng");
// The tensor-map store (hfi::TmaStore): the staging is BN / 64 boxes of BM rows of 64 channels
// (128 bytes), chunk c of row r at chunk c ^ (r % 8), as the map's 128-byte swizzle reads them
// (no pad: a warp's fragment writes, 8 rows at one chunk, still land on 8 different chunks).
// Once the tile is staged, one thread hands each box to the copy engine and the warpgroups go
// on to their next tile; that thread waits for the copies' reads before the staging is
// written again.
constexpr bool kTmaStore = hfi::TmaStore;
constexpr int kBoxChannels = hf::kStoreBoxChannels;
constexpr int kEpiBytes =
    kTmaStore ? BM * BN * 2 : (kAlongK ? kTilePixels : kTileChannels) * kStageLd * (kStage16 ? 2 : 4);
// The host sizes the dynamic shared memory as max(kPipeBytes, kEpiBytes), or as their sum for
// persistent blocks, whose staging must not overlap the next tile's loads (Config::shared_bytes).
constexpr bool kPersistent = hfi::Persistent;
constexpr int kEpiOffset = kPersistent ? kPipeBytes : 0;
static_assert(!kTmaStore || (kStage16 && kAlongK && kOutVec == 8 && kPersistent && kWarpSpecialized &&
                             kTileChannels % kBoxChannels == 0 && kTilePixels <= 256 && kG == 1 &&
                             kEpiOffset % 1024 == 0 &&
                             kBoxChannels * 2 == kRowBytes),
              "tensor-map store: persistent warp-specialised tiles, 16-bit channels-last y, 1 KB aligned boxes");
// With 16-bit staging each thread's accumulator pieces span 2 * NI channels (16 on a 64-column
// tile), whose parameters (BN inference: 4 loads and an rsqrt each, plus the bias) every thread
// would prepare again. Instead BN threads prepare one channel each at the start of the tile
// (of a block's first tile, and again only where its tiles' channels change: prepare_tile_channels),
// into hf::kEpilogueChannelBytes a channel past the pipeline and the staging (the host adds
// them for every 16-bit staged tile): they land while the tile is multiplied, and the
// epilogue's barrier before the staging orders them before their reads. (Longer states, of
// chains with several per-channel steps, keep the per-thread preparation.)
constexpr int kChannelOffset = kPersistent ? kPipeBytes + kEpiBytes : (kPipeBytes > kEpiBytes ? kPipeBytes : kEpiBytes);
constexpr int kChannelBytes = kStage16 ? kTileChannels * hf::kEpilogueChannelBytes : 0;
constexpr bool kChannelsShared =
    kStage16 && Epilogue::per_channel && sizeof(EpilogueChannel) <= hf::kEpilogueChannelBytes;
static_assert(BM % 32 == 0 && (BN % 32 == 0 || (kWarpgroupMma && BN % 16 == 0)),
              "staging pads assume multiples of 32 (of 16 for the channel widths of warpgroup tiles)");
static_assert((kAlongK ? kTileChannels : kTilePixels) % kOutVec == 0, "output vectors tile the block");

HF_DEVICE int swizzle(int row, int chunk) {
  if constexpr (kChunks == 8) {
    return row * kRowBytes + ((chunk ^ (row & 7)) << 4);
  } else {
    return row * kRowBytes + ((chunk ^ ((row >> 1) & 3)) << 4);
  }
}

enum LoaderMode : int { kAsync16 = 0, kGather = 1, kAsyncPixels = 2 };

// A's shared-memory layout. K-major (kAsync16, kGather): BM rows of BK values, swizzle().
// MN-major (kAsyncPixels): per 64 rows of A (pixels) a block of BK 128-byte lines, one per
// kk, holding those 64 pixels, chunks XOR-swizzled by kk % 8: wgmma's 128-byte MN-major
// swizzle, and conflict-free for ldmatrix.trans (8 consecutive kk) and for the loader's
// 16-byte stores (8 consecutive chunks of one kk). Same size: BM * BK values.
constexpr bool kMnMajorA = hfi::AMode == kAsyncPixels;
constexpr int kMnBlockBytes = BK * 128;  // one 64-pixel block of the MN-major A
HF_DEVICE int a_mn_offset(int m, int kk) {
  return (m >> 6) * kMnBlockBytes + kk * 128 + ((((m >> 3) & 7) ^ (kk & 7)) << 4);
}
static_assert(!kMnMajorA || (sizeof(T) == 2 && BM % 64 == 0 && kLoadThreads % (BM / kVec) == 0),
              "MN-major A: 16-bit values, 64-pixel blocks, every thread on one pixel chunk");

// ---- A: input pixels x (r, s, c) ----------------------------------------------------------
template <int Mode>
struct ALoader;

template <>
struct ALoader<kAsync16> {
  static constexpr int kSlots = BM * kChunks / kLoadThreads;
  static constexpr int kRowStep = kLoadThreads / kChunks;
  // One filter tap per k-tile (C/G a multiple of BK), at most 32 taps: each slot keeps the
  // offset of its receptive field's origin and a bit per tap that lies inside the image, so
  // that a copy costs an add and a bit test (the general path decodes kk and bounds-checks
  // every copy: most of a k-tile's instructions, docs/PERF_NOTES.md v11).
  static constexpr bool kTapPerTile = kCg % BK == 0 && kR * kS <= 32;
  RowStart rows[kTapPerTile ? 1 : kSlots];
  I origin[kTapPerTile ? kSlots : 1];          // offset of tap (0, 0), channel chunk * kVec
  unsigned taps_in[kTapPerTile ? kSlots : 1];  // bit r * S + s set when that tap is inside the image
  int row0, chunk;

  HF_DEVICE void init(I m0, int group, int tid) {
    chunk = tid % kChunks;
    row0 = tid / kChunks;
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      const RowStart row = row_start(m0 + row0 + i * kRowStep, group);
      if constexpr (kTapPerTile) {
        unsigned in = 0;
#pragma unroll
        for (int r = 0; r < kR; ++r)
#pragma unroll
          for (int s = 0; s < kS; ++s) in |= inside(row.h0 + r * kDilH, row.w0 + s * kDilW) ? 1u << (r * kS + s) : 0u;
        taps_in[i] = in;  // 0 for rows past M (far outside the image)
        origin[i] = in == 0 ? 0
                            : row.base + static_cast<I>(row.h0) * kXsH + static_cast<I>(row.w0) * kXsW +
                                  static_cast<I>(chunk * kVec) * kXsC;
      } else {
        rows[i] = row;
      }
    }
  }
  HF_DEVICE void fetch(const T* HF_RESTRICT x, int kt, char* stage, const hf::ChainArgs&) {
    if constexpr (kTapPerTile) {
      constexpr int kTilesPerTap = kCg / BK;
      const int rs = kt / kTilesPerTap;
      const int r = rs / kS, s = rs - r * kS;
      const I tap = static_cast<I>(r * kDilH) * kXsH + static_cast<I>(s * kDilW) * kXsW +
                    static_cast<I>((kt - rs * kTilesPerTap) * BK) * kXsC;
#pragma unroll
      for (int i = 0; i < kSlots; ++i) {
        // (A copy of no bytes reads nothing: its address need not be valid.)
        hf::cp_async16(stage + swizzle(row0 + i * kRowStep, chunk), x + (origin[i] + tap), (taps_in[i] >> rs) & 1u);
      }
      return;
    }
    const int kk = kt * BK + chunk * kVec;
    const bool k_ok = kk < kKG;
    const Tap tap = decode_kk(k_ok ? kk : 0);
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      const int h = rows[i].h0 + tap.r * kDilH, w = rows[i].w0 + tap.s * kDilW;
      const bool ok = k_ok && inside(h, w);
      const T* src = x + rows[i].base + static_cast<I>(h) * kXsH + static_cast<I>(w) * kXsW +
                     static_cast<I>(tap.c) * kXsC;
      hf::cp_async16(stage + swizzle(row0 + i * kRowStep, chunk), ok ? src : x, ok);
    }
  }
  HF_DEVICE void deposit(char*) const {}
};

template <>
struct ALoader<kGather> {
  // Lanes run along m (consecutive pixels): coalesced for NCHW; one (r, s) per chunk when
  // C/G % kVec == 0. The prologue, when the plan has one, is applied here.
  static constexpr int kSlots = BM * kChunks / kLoadThreads;
  static constexpr bool kChunkShareTap = kCg % kVec == 0;
  // Slot i is row (tid + i * kLoadThreads) % BM, chunk (tid + i * kLoadThreads) / BM: the rows
  // repeat every kRows slots, so only kRows receptive fields are kept.
  static constexpr int kRows = BM > kLoadThreads ? BM / kLoadThreads : 1;
  static_assert(hfi::AMode != kGather || BM % kLoadThreads == 0 || kLoadThreads % BM == 0, "gather rows");
  RowStart rows[kRows];
  Vec<T, kVec> regs[kSlots];
  int tid_, group_;

  HF_DEVICE static int row_of(int tid, int i) { return (tid + (i % kRows) * kLoadThreads) % BM; }
  HF_DEVICE static int chunk_of(int tid, int i) { return (tid + i * kLoadThreads) / BM; }

  HF_DEVICE void init(I m0, int group, int tid) {
    tid_ = tid;
    group_ = group;
#pragma unroll
    for (int j = 0; j < kRows; ++j) rows[j] = row_start(m0 + row_of(tid, j), group);
  }
  HF_DEVICE T element(const T* HF_RESTRICT x, const RowStart& row, int kk, const hf::ChainArgs& chain) const {
    const bool k_ok = kk < kKG;
    const Tap tap = decode_kk(k_ok ? kk : 0);
    const int h = row.h0 + tap.r * kDilH, w = row.w0 + tap.s * kDilW;
    const bool ok = k_ok && inside(h, w);
    const I off = row.base + static_cast<I>(h) * kXsH + static_cast<I>(w) * kXsW + static_cast<I>(tap.c) * kXsC;
    if constexpr (kHasPrologue) {
      return hf::from_float<T>(a_value(x, ok, off, row.n, group_ * kCg + tap.c, h, w, chain));
    } else {
      return ok ? x[off] : hf::from_float<T>(0.0f);
    }
  }
  HF_DEVICE void fetch(const T* HF_RESTRICT x, int kt, char*, const hf::ChainArgs& chain) {
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      const int kk0 = kt * BK + chunk_of(tid_, i) * kVec;
      if constexpr (kChunkShareTap) {
        // One tap for the whole chunk: one bounds check, kVec loads kXsC apart.
        const bool k_ok = kk0 < kKG;
        const Tap tap = decode_kk(k_ok ? kk0 : 0);
        const int h = rows[i % kRows].h0 + tap.r * kDilH, w = rows[i % kRows].w0 + tap.s * kDilW;
        const bool ok = k_ok && inside(h, w);
        const I off = rows[i % kRows].base + static_cast<I>(h) * kXsH + static_cast<I>(w) * kXsW +
                      static_cast<I>(tap.c) * kXsC;
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          if constexpr (kHasPrologue) {
            regs[i].v[e] = hf::from_float<T>(
                a_value(x, ok, off + e * kXsC, rows[i % kRows].n, group_ * kCg + tap.c + e, h, w, chain));
          } else {
            regs[i].v[e] = ok ? x[off + e * kXsC] : hf::from_float<T>(0.0f);
          }
        }
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) regs[i].v[e] = element(x, rows[i % kRows], kk0 + e, chain);
      }
    }
  }
  HF_DEVICE void deposit(char* stage) const {
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      *reinterpret_cast<Vec<T, kVec>*>(stage + swizzle(row_of(tid_, i), chunk_of(tid_, i))) = regs[i];
    }
  }
};

template <>
struct ALoader<kAsyncPixels> {
  // Thread tid copies pixel chunk tid % kPixelChunks (kVec pixels) of the k-tile's channels
  // tid / kPixelChunks + i * kChannelStep: consecutive threads read consecutive pixels of one
  // plane. A chunk is kParts copies of kLanes pixels; P*Q % kLanes == 0 keeps each copy in
  // one image (with 4 lanes the second half may start the next image).
  // (A full specialisation is compiled for every plan: the values must stay valid where
  // another loader is used and APixelLanes is 0.)
  static constexpr int kLanes = kMnMajorA ? hfi::APixelLanes : kVec;
  static constexpr int kParts = kVec / kLanes;
  static constexpr int kPixelChunks = BM / kVec;
  static constexpr int kSlots = BM * kChunks / kLoadThreads;
  static constexpr int kChannelStep = kLoadThreads / kPixelChunks > 0 ? kLoadThreads / kPixelChunks : 1;
  static_assert(!kMnMajorA || kLanes == 8 || kLanes == 4, "pixel copies of 16 or 8 bytes");
  static_assert(!kMnMajorA || kPQ % kLanes == 0, "a copy stays in one image");
  I base[kParts];  // offset of the copy's first pixel in the group's first channel plane
  bool in_m[kParts];
  int pixel_chunk, channel0;

  HF_DEVICE void init(I m0, int group, int tid) {
    pixel_chunk = tid % kPixelChunks;
    channel0 = tid / kPixelChunks;
#pragma unroll
    for (int part = 0; part < kParts; ++part) {
      const I m = m0 + pixel_chunk * kVec + part * kLanes;
      in_m[part] = m < kM;
      const Pixel px = decode_m(in_m[part] ? m : 0);  // 1x1, stride 1, no padding: (h, w) = (p, q)
      base[part] = static_cast<I>(px.n) * kXsN + static_cast<I>(group * kCg) * kXsC + static_cast<I>(px.p) * kXsH +
                   static_cast<I>(px.q) * kXsW;
    }
  }
  HF_DEVICE void fetch(const T* HF_RESTRICT x, int kt, char* stage, const hf::ChainArgs&) {
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      const int kk_local = channel0 + i * kChannelStep;
      const int kk = kt * BK + kk_local;
      char* dst = stage + a_mn_offset(pixel_chunk * kVec, kk_local);
#pragma unroll
      for (int part = 0; part < kParts; ++part) {
        const bool ok = kk < kKG && in_m[part];
        const T* src = x + base[part] + static_cast<I>(ok ? kk : 0) * kXsC;
        if constexpr (kLanes == 8) {
          hf::cp_async16(dst, ok ? src : x, ok);
        } else {
          hf::cp_async8(dst + part * 8, ok ? src : x, ok);
        }
      }
    }
  }
  HF_DEVICE void deposit(char*) const {}
};

// ---- B: output channels x (r, s, c) -------------------------------------------------------
HF_DEVICE I weight_offset(int n_in_group, int group, const Tap& tap) {
  return static_cast<I>(group * kNg + n_in_group) * kWsK + static_cast<I>(tap.c) * kWsC +
         static_cast<I>(tap.r) * kWsR + static_cast<I>(tap.s) * kWsS;
}

template <int Mode>
struct BLoader;

template <>
struct BLoader<kAsync16> {
  static constexpr int kSlots = kBSlots;
  static constexpr int kRowStep = kLoadThreads / kChunks;
  // Weights whose offset is linear in kk (K x R x S x C/G, packed or as given): each slot
  // keeps its row's offset and a k-tile adds kt * BK (the general path decodes kk).
  static constexpr bool kLinearK =
      (kCg == 1 || kWsC == 1) && (kS == 1 || kWsS == kCg) && (kR == 1 || kWsR == static_cast<I>(kS) * kCg);
  I row_offset[kLinearK ? kSlots : 1];
  unsigned rows_in;  // kLinearK: bit i set when slot i's row is below N
  int row0, chunk, n0, group;

  HF_DEVICE void init(int n_block, int g, int tid) {
    chunk = tid % kChunks;
    row0 = tid / kChunks;
    n0 = n_block;
    group = g;
    if constexpr (kLinearK) {
      rows_in = 0;
#pragma unroll
      for (int i = 0; i < kSlots; ++i) {
        const int n = n0 + row0 + i * kRowStep;
        rows_in |= n < kNg ? 1u << i : 0u;
        row_offset[i] = static_cast<I>(group * kNg + (n < kNg ? n : 0)) * kWsK + chunk * kVec;
      }
    }
  }
  HF_DEVICE void fetch(const T* HF_RESTRICT w, int kt, char* stage, const hf::ChainArgs&) {
    if constexpr (kLinearK) {
      const int kk0 = kt * BK;
      const bool k_ok = kKG % BK == 0 || kk0 + chunk * kVec < kKG;
#pragma unroll
      for (int i = 0; i < kSlots; ++i) {
        if (!b_slot_used(row0 * kChunks + chunk, i)) break;
        hf::cp_async16(stage + BM * kRowBytes + swizzle(row0 + i * kRowStep, chunk), w + (row_offset[i] + kk0),
                       k_ok && ((rows_in >> i) & 1u));
      }
      return;
    }
    const int kk = kt * BK + chunk * kVec;
    const bool k_ok = kk < kKG;
    const Tap tap = decode_kk(k_ok ? kk : 0);
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      if (!b_slot_used(row0 * kChunks + chunk, i)) break;
      const int n = n0 + row0 + i * kRowStep;
      const bool ok = k_ok && n < kNg;
      hf::cp_async16(stage + BM * kRowBytes + swizzle(row0 + i * kRowStep, chunk),
                     ok ? w + weight_offset(n, group, tap) : w, ok);
    }
  }
  HF_DEVICE void deposit(char*) const {}
};

template <>
struct BLoader<kGather> {
  static constexpr int kSlots = kBSlots;
  static constexpr bool kChunkShareTap = kCg % kVec == 0;
  Vec<T, kVec> regs[kSlots];
  int tid_, n0, group;

  HF_DEVICE static int row_of(int tid, int i) { return (tid + i * kLoadThreads) % BN; }
  HF_DEVICE static int chunk_of(int tid, int i) { return (tid + i * kLoadThreads) / BN; }

  HF_DEVICE void init(int n_block, int g, int tid) {
    tid_ = tid;
    n0 = n_block;
    group = g;
  }
  HF_DEVICE void fetch(const T* HF_RESTRICT w, int kt, char*, const hf::ChainArgs&) {
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      if (!b_slot_used(tid_, i)) break;
      const int n = n0 + row_of(tid_, i);
      const int kk0 = kt * BK + chunk_of(tid_, i) * kVec;
      if constexpr (kChunkShareTap) {
        const bool ok = kk0 < kKG && n < kNg;
        const T* src = w + weight_offset(ok ? n : 0, group, decode_kk(ok ? kk0 : 0));
#pragma unroll
        for (int e = 0; e < kVec; ++e) regs[i].v[e] = ok ? src[e * kWsC] : hf::from_float<T>(0.0f);
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const bool ok = kk0 + e < kKG && n < kNg;
          regs[i].v[e] = ok ? w[weight_offset(n, group, decode_kk(kk0 + e))] : hf::from_float<T>(0.0f);
        }
      }
    }
  }
  HF_DEVICE void deposit(char* stage) const {
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
      if (!b_slot_used(tid_, i)) break;
      *reinterpret_cast<Vec<T, kVec>*>(stage + BM * kRowBytes + swizzle(row_of(tid_, i), chunk_of(tid_, i))) =
          regs[i];
    }
  }
};

// ---- the matrix-unit step: one k-tile of the warp tile -----------------------------------
template <typename E>  // a template, so that only the taken branch is instantiated
HF_DEVICE void mma_step(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if constexpr (sizeof(E) == 4) {
    const unsigned at[4] = {hf::to_tf32(__uint_as_float(a[0])), hf::to_tf32(__uint_as_float(a[1])),
                            hf::to_tf32(__uint_as_float(a[2])), hf::to_tf32(__uint_as_float(a[3]))};
    const unsigned bt[2] = {hf::to_tf32(__uint_as_float(b[0])), hf::to_tf32(__uint_as_float(b[1]))};
    hf::mma_1688_tf32(d, at, bt);
  } else {
    hf::mma_16816<E>(d, a, b);
  }
}

// One mma K step's fragments of the warp tile: A (MI 16x16 pieces) and B (NI 16x8 pieces).
struct Fragments {
  unsigned a[MI][4];
  unsigned b[NI][2];
};

HF_DEVICE void load_fragments(Fragments& f, const char* sa, const char* sb, int ks, int warp_m, int warp_n,
                              int lane) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
    if constexpr (kMnMajorA) {
      // Matrix j = lane / 8 of the 16x16 piece: rows +8 for odd j, kk +8 for j >= 2; each of
      // its 8 lines is one kk's 8 pixels, transposed on the way.
      const int j = lane >> 3;
      const int row = warp_m * WTM + mi * 16 + ((j & 1) << 3);
      hf::ldsm_x4_trans(f.a[mi], sa + a_mn_offset(row, ks * 16 + ((j >> 1) << 3) + (lane & 7)));
    } else {
      const int row = warp_m * WTM + mi * 16 + (lane & 15);
      hf::ldsm_x4(f.a[mi], sa + swizzle(row, ks * 2 + (lane >> 4)));
    }
  }
#pragma unroll
  for (int nj = 0; nj < NI / 2; ++nj) {
    const int row = warp_n * WTN + nj * 16 + ((lane >> 4) << 3) + (lane & 7);
    unsigned t[4];
    hf::ldsm_x4(t, sb + swizzle(row, ks * 2 + ((lane >> 3) & 1)));
    f.b[2 * nj][0] = t[0];
    f.b[2 * nj][1] = t[1];
    f.b[2 * nj + 1][0] = t[2];
    f.b[2 * nj + 1][1] = t[3];
  }
}

HF_DEVICE void mma_fragments(float (&acc)[MI][NI][4], const Fragments& f) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) mma_step<T>(acc[mi][ni], f.a[mi], f.b[ni]);
  }
}

// One mma K step = two 16-byte chunks. With 8 chunks per row (4 k-steps) the fragments are
// double-buffered: step ks + 1's ldmatrix are issued before step ks's mma, so the shared
// memory reads overlap the matrix instructions in the order the PTX gives them. The 4-chunk
// tiles keep the single buffer (the biggest of them sit at 240 registers), and so do tiles
// whose A loader keeps more than 8 receptive fields per thread (256x64 with 4 warps: 16,
// which with two buffers reaches 255 registers and spills).
constexpr bool kDoubleFragments = kChunks == 8 && BM * kChunks / kThreads <= 8;

HF_DEVICE void compute_tile(float (&acc)[MI][NI][4], const char* stage, int warp_m, int warp_n, int lane) {
  const char* sa = stage;
  const char* sb = stage + BM * kRowBytes;
  constexpr int kSteps = kChunks / 2;
  if constexpr (kDoubleFragments) {
    Fragments f[2];
    load_fragments(f[0], sa, sb, 0, warp_m, warp_n, lane);
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      if (ks + 1 < kSteps) load_fragments(f[(ks + 1) & 1], sa, sb, ks + 1, warp_m, warp_n, lane);
      mma_fragments(acc, f[ks & 1]);
    }
  } else {
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      Fragments f;
      load_fragments(f, sa, sb, ks, warp_m, warp_n, lane);
      mma_fragments(acc, f);
    }
  }
}

// The warpgroup variant: one k-tile as BK / 16 steps of MI wgmmas, issued as one group
// (complete after hf::wgmma_wait). A template, so that only warpgroup tiles instantiate it.
template <int kMI, int kNI>
HF_DEVICE void compute_tile_wgmma(float (&acc)[kMI][kNI][4], const char* stage, int warp) {
  const unsigned a0 = hf::shared_address(stage) + static_cast<unsigned>((warp / 4) * kWgRows * kRowBytes);
  const unsigned b0 = hf::shared_address(stage) + static_cast<unsigned>(BM * kRowBytes);
  hf::wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < kChunks / 2; ++ks) {
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) {
      // A's 64 rows mi: K-major, 64 rows of 128 bytes on, 32 bytes per 16 kk; MN-major, the
      // next 64-pixel block (the same bytes: BK * 128 = 64 * kRowBytes), 16 lines per 16 kk.
      const unsigned a = a0 + static_cast<unsigned>(mi * 64 * kRowBytes + ks * (kMnMajorA ? 16 * 128 : 32));
      hf::wgmma_m64k16<T, kNI * 8, kMnMajorA>(reinterpret_cast<float(&)[kNI * 4]>(acc[mi]),
                                              kMnMajorA ? hf::wgmma_desc_mn128(a, kMnBlockBytes) : hf::wgmma_desc_k128(a),
                                              hf::wgmma_desc_k128(b0 + static_cast<unsigned>(ks * 32)));
    }
  }
  hf::wgmma_commit();
}

HF_DEVICE void zero_accumulators(float (&acc)[MI][NI][4]) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;
}

// The accumulators as the compiler must see them around asynchronous wgmmas.
HF_DEVICE void fence_accumulators(float (&acc)[MI][NI][4]) {
  if constexpr (kWarpgroupMma) hf::fence_registers(reinterpret_cast<float(&)[MI * NI * 4]>(acc));
}

// The first row and column of accumulator piece (mi, ni) of a warp (add lane / 4 and
// 2 * (lane % 4) for the thread's own).
HF_DEVICE int acc_row(int warp, int mi) {
  if constexpr (kWarpgroupMma) return (warp / 4) * kWgRows + mi * 64 + (warp % 4) * 16;
  return (warp / kWarpsN) * WTM + mi * 16;
}
HF_DEVICE int acc_col(int warp, int ni) {
  if constexpr (kWarpgroupMma) return ni * 8;
  return (warp % kWarpsN) * WTN + ni * 8;
}

// 1-D grid: tile = (pixel tile) * NT + (channel tile), so consecutive blocks share x's pixels.
// An output tile is kTilePixels x kTileChannels: BM x BN, or BN x BM when transposed.
constexpr int NT = (kNg + kTileChannels - 1) / kTileChannels;
constexpr I kTiles = (kM + kTilePixels - 1) / kTilePixels * NT;
// The first pixel (GEMM row of the convolution) and output channel (in the group) of tile `tile`.
HF_DEVICE I tile_m0(I tile) { return tile / NT * kTilePixels; }
HF_DEVICE int tile_n0(I tile) { return static_cast<int>(tile % NT) * kTileChannels; }

// ---- stream-K: output tiles shared by several blocks -------------------------------------
// With hfi::StreamKBlocks = G > 0 the grid is G blocks (the resident count) and block b owns
// the k-tiles [U * b / G, U * (b + 1) / G) of the U = kTiles * KT of the whole GEMM, tile after
// tile: whole output tiles, and at either end of its range a share of a tile whose other
// k-tiles other blocks hold. So no multiprocessor idles through a last, partly filled wave
// (3x3 256->256 14x14 with 128x256 tiles: 98 tiles for 132 SMs). Each share of a shared tile
// stores its accumulators in a slot of its own (two per block: its first and its last share)
// and counts itself on the tile's counter; the share that counts last adds up every share's
// slot in k order (so the sum does not depend on which share finished last), runs the
// epilogue and zeroes the counter for the next launch. No block waits for another: the scheme
// cannot deadlock, whatever order the blocks run in.
constexpr long long kStreamKBlocks = hfi::StreamKBlocks;
constexpr bool kStreamK = kStreamKBlocks > 0;
constexpr long long kUnits = static_cast<long long>(kTiles) * KT;
static_assert(!kStreamK || (kStages > 1 && !kPersistent && kStreamKBlocks <= kUnits),
              "stream-K: a pipelined, non-persistent tile, every block with at least one k-tile");

// (0 without stream-K, where nothing calls it: no division by zero in those instantiations.)
HF_DEVICE long long share_begin(long long block) { return kStreamK ? kUnits * block / kStreamKBlocks : 0; }

// The block whose range holds k-tile `unit` (ranges are never empty: G <= U).
HF_DEVICE long long block_of_unit(long long unit) {
  long long b = unit * kStreamKBlocks / kUnits;  // at most the answer
  while (b + 1 < kStreamKBlocks && share_begin(b + 1) <= unit) ++b;
  return b;
}

// This block's share of `tile` is done (acc): returns whether it was the tile's last share to
// finish, acc then holding the sum of all shares. Every thread of the block calls it, with the
// pipeline's shared memory idle (its first word carries the verdict: no static shared memory,
// which would push 48 KB tiles past the default limit).
HF_DEVICE bool stream_k_fixup(const hf::ConvArgs& args, float (&acc)[MI][NI][4], I tile, int tid, char* smem) {
  constexpr int kPieces = MI * NI;  // one float4 each, stored thread-interleaved (coalesced)
  const long long first_unit = static_cast<long long>(tile) * KT;
  // A block's first share starts inside its tile; its last share starts the tile.
  const auto slot = [&](long long block) {
    const long long index = 2 * block + (share_begin(block) > first_unit ? 0 : 1);
    return reinterpret_cast<float4*>(args.partials) + index * (kPieces * kThreads) + tid;
  };
  float4* mine = slot(blockIdx.x);
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
      mine[(mi * NI + ni) * kThreads] = make_float4(acc[mi][ni][0], acc[mi][ni][1], acc[mi][ni][2], acc[mi][ni][3]);
  __threadfence();
  __syncthreads();
  const long long first = block_of_unit(first_unit), last = block_of_unit(first_unit + KT - 1);
  int* verdict = reinterpret_cast<int*>(smem);
  if (tid == 0) {
    const unsigned shares = static_cast<unsigned>(last - first + 1);
    const bool last_share = atomicAdd(args.tile_counters + tile, 1u) + 1u == shares;
    if (last_share) args.tile_counters[tile] = 0u;
    *verdict = last_share;
  }
  __syncthreads();
  const bool is_last = *verdict != 0;
  __syncthreads();  // read by all before the epilogue's staging may overwrite it
  if (!is_last) return false;
  __threadfence();
  zero_accumulators(acc);
  for (long long b = first; b <= last; ++b) {
    const float4* in = slot(b);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        const float4 v = hf::load_from_l2(in + (mi * NI + ni) * kThreads);
        acc[mi][ni][0] += v.x;
        acc[mi][ni][1] += v.y;
        acc[mi][ni][2] += v.z;
        acc[mi][ni][3] += v.w;
      }
    }
  }
  return true;
}

// A barrier of the threads that multiply: all of the block's, or the multiplying warpgroups
// of a warp-specialised block (whose loader warps may have exited).
HF_DEVICE void sync_math_threads() {
  if constexpr (kWarpSpecialized) {
    hf::named_barrier_sync(1, kThreads);
  } else {
    __syncthreads();
  }
}

// The epilogue with 16-bit staging (hfi::Stage16): alpha and the fused ops applied to the
// thread's own accumulators (each piece: two adjacent channels, prepared once, on two rows),
// the results rounded into [BM][BN + 8] values of T along channels (the pad keeps the 4-byte
// pair writes conflict-free: rows 8 apart shift by 4 banks) or [BN][BM + 8] along the pixels,
// then OutVec of them a vector store: half the shared-memory traffic of fp32 staging.
// The tile's channels' parameters, for kChannelsShared (see kChannelOffset): thread c of the
// threads that multiply prepares channel n0 + c, at the start of the tile. A block that walks
// several tiles (persistent, stream-K) keeps them while its tiles' channels stay the same
// (`prepared_n0`, the same in every thread): with the grid a multiple of the N tiles, once a
// block. (The previous tile's epilogue has read them before its barrier, so rewriting is safe.)
HF_DEVICE void prepare_tile_channels(const hf::ConvArgs& args, char* smem, int n0, int tid, int& prepared_n0) {
  if constexpr (kChannelsShared) {
    static_assert(kThreads >= kTileChannels, "a thread per channel of the tile");
    if (n0 == prepared_n0) return;
    prepared_n0 = n0;
    if (tid < kTileChannels && n0 + tid < kNg) {
      EpilogueChannel* channels = reinterpret_cast<EpilogueChannel*>(smem + kChannelOffset);
      channels[tid] = epilogue_channel(static_cast<int>(blockIdx.y) * kNg + n0 + tid, args.alpha, args.chain);
    }
  }
}

// The byte offset of (pixel, channel) of the tile in the tensor-map store's staging (kTmaStore):
// a box's rows are k-tile rows, swizzled alike.
HF_DEVICE int box_offset(int pixel, int channel) {
  const int box = channel / kBoxChannels, byte = (channel % kBoxChannels) * 2;
  return box * kTilePixels * kRowBytes + swizzle(pixel, byte >> 4) + (byte & 15);
}

HF_DEVICE void store_tile_16bit(const hf::ConvArgs& args, char* smem, const float (&acc)[MI][NI][4], I m0, int n0) {
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int group = static_cast<int>(blockIdx.y);
  const float alpha = args.alpha;
  T* stage = reinterpret_cast<T*>(smem + kEpiOffset);
  const int g = lane >> 2, t = lane & 3;
  if constexpr (kTransposed) {
    // Accumulator rows are output channels (g and g + 8 of each warp's 16), columns pixels (2t
    // and 2t + 1 of each 8): each channel prepared once, each value staged where the store
    // reads it. (A warp's 16-bit writes of one step, 8 channels x 4 pixels, are conflict-free in
    // each staging: the tensor-map store's 4 pixel rows land on 4 chunks; kStageLd's rows are
    // 4 words past a multiple of 8 long.)
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int h8 = 0; h8 < 2; ++h8) {
        const int channel = acc_row(warp, mi) + g + 8 * h8;
        if (n0 + channel >= kNg) continue;
        const int k = group * kNg + n0 + channel;
        EpilogueChannel ch;
        if constexpr (kChannelsShared) {
          ch = reinterpret_cast<const EpilogueChannel*>(smem + kChannelOffset)[channel];
        } else {
          ch = epilogue_channel(k, args.alpha, args.chain);
        }
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int pixel = acc_col(warp, ni) + 2 * t + e;
            const I m = m0 + pixel;
            if (m >= kM) continue;
            const Pixel px = decode_m(m);  // unused, and so not computed, by per-channel chains
            const T v = hf::from_float<T>(epilogue_value(acc[mi][ni][2 * h8 + e], alpha, ch, px.n, k, px.p, px.q,
                                                         y_offset(px.n, k, px.p, px.q), args.chain));
            if constexpr (kTmaStore) {
              *reinterpret_cast<T*>(reinterpret_cast<char*>(stage) + box_offset(pixel, channel)) = v;
            } else if constexpr (kAlongK) {
              stage[pixel * kStageLd + channel] = v;
            } else {
              stage[channel * kStageLd + pixel] = v;
            }
          }
        }
      }
    }
  } else {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      const int col = acc_col(warp, ni) + 2 * t;
      if (n0 + col >= kNg) continue;  // Ng even (OutVec >= 2 along channels): both channels in or out
      const int k = group * kNg + n0 + col;
      EpilogueChannel ch0, ch1;
      if constexpr (kChannelsShared) {
        const EpilogueChannel* channels = reinterpret_cast<const EpilogueChannel*>(smem + kChannelOffset);
        ch0 = channels[col];
        ch1 = channels[col + 1];
      } else {
        ch0 = epilogue_channel(k, args.alpha, args.chain);
        ch1 = epilogue_channel(k + 1, args.alpha, args.chain);
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
        for (int h8 = 0; h8 < 2; ++h8) {  // the piece's rows g and g + 8
          const int row = acc_row(warp, mi) + g + 8 * h8;
          const I m = m0 + row;
          if (m >= kM) continue;
          const Pixel px = decode_m(m);  // unused, and so not computed, by per-channel chains
          const I off = y_offset(px.n, k, px.p, px.q);
          Vec<T, 2> pair;
          pair.v[0] = hf::from_float<T>(
              epilogue_value(acc[mi][ni][2 * h8], alpha, ch0, px.n, k, px.p, px.q, off, args.chain));
          pair.v[1] = hf::from_float<T>(
              epilogue_value(acc[mi][ni][2 * h8 + 1], alpha, ch1, px.n, k + 1, px.p, px.q, off + kYsK, args.chain));
          if constexpr (kTmaStore) {
            *reinterpret_cast<Vec<T, 2>*>(reinterpret_cast<char*>(stage) + box_offset(row, col)) = pair;
          } else if constexpr (kAlongK) {
            *reinterpret_cast<Vec<T, 2>*>(stage + row * kStageLd + col) = pair;
          } else {
            stage[col * kStageLd + row] = pair.v[0];
            stage[(col + 1) * kStageLd + row] = pair.v[1];
          }
        }
      }
    }
  }
  if constexpr (kTmaStore) hf::fence_async_shared();  // each thread's staging writes -> the copy engine
  sync_math_threads();
  if constexpr (kTmaStore) {
    if (tid == 0) {
#pragma unroll
      for (int b = 0; b < kTileChannels / kBoxChannels; ++b) {
        if (n0 + b * kBoxChannels < kNg) {
          hf::tma_store_2d(&args.y_map, reinterpret_cast<const char*>(stage) + b * kTilePixels * kRowBytes,
                           n0 + b * kBoxChannels, static_cast<int>(m0));
        }
      }
      hf::tma_store_commit();
    }
    return;
  }
  T* HF_RESTRICT y = static_cast<T*>(args.y);
  if constexpr (kAlongK) {
    constexpr int kPerRow = kTileChannels / kOutVec;
    for (int it = tid; it < kTilePixels * kPerRow; it += kThreads) {
      const int row = it / kPerRow, cv = it % kPerRow;
      const I m = m0 + row;
      const int n = n0 + cv * kOutVec;
      if (m >= kM || n >= kNg) continue;
      const Pixel px = decode_m(m);
      *reinterpret_cast<Vec<T, kOutVec>*>(y + y_offset(px.n, group * kNg + n, px.p, px.q)) =
          *reinterpret_cast<const Vec<T, kOutVec>*>(stage + row * kStageLd + cv * kOutVec);
    }
  } else {
    constexpr int kPerCol = kTilePixels / kOutVec;
    for (int it = tid; it < kTileChannels * kPerCol; it += kThreads) {
      const int col = it / kPerCol, mv = it % kPerCol;
      const I m = m0 + mv * kOutVec;
      const int n = n0 + col;
      if (m >= kM || n >= kNg) continue;  // P*Q % OutVec == 0: a vector stays in one image
      const Pixel px = decode_m(m);
      *reinterpret_cast<Vec<T, kOutVec>*>(y + y_offset(px.n, group * kNg + n, px.p, px.q)) =
          *reinterpret_cast<const Vec<T, kOutVec>*>(stage + col * kStageLd + mv * kOutVec);
    }
  }
}

// The epilogue of the tile at (m0, n0), run by the threads that multiply, the pipeline's
// shared memory idle (persistent blocks: the staging past it).
HF_DEVICE void store_tile(const hf::ConvArgs& args, char* smem, const float (&acc)[MI][NI][4], I m0, int n0) {
  if constexpr (kStage16) {
    store_tile_16bit(args, smem, acc, m0, n0);
    return;
  }
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int group = static_cast<int>(blockIdx.y);
  T* HF_RESTRICT y = static_cast<T*>(args.y);

  // Epilogue 1: accumulators -> shared memory (fp32).
  float* stage = reinterpret_cast<float*>(smem + kEpiOffset);
  {
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        const int row = acc_row(warp, mi) + g;
        const int col = acc_col(warp, ni) + 2 * t;
        if constexpr (kAlongK) {
          *reinterpret_cast<float2*>(stage + row * kStageLd + col) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
          *reinterpret_cast<float2*>(stage + (row + 8) * kStageLd + col) =
              make_float2(acc[mi][ni][2], acc[mi][ni][3]);
        } else {
          stage[col * kStageLd + row] = acc[mi][ni][0];
          stage[(col + 1) * kStageLd + row] = acc[mi][ni][1];
          stage[col * kStageLd + row + 8] = acc[mi][ni][2];
          stage[(col + 1) * kStageLd + row + 8] = acc[mi][ni][3];
        }
      }
    }
  }
  sync_math_threads();

  // Epilogue 2: OutVec outputs per item along the output's contiguous dimension.
  const float alpha = args.alpha;
  if constexpr (kAlongK) {
    constexpr int kPerRow = BN / kOutVec;
    // When the threads are a multiple of kPerRow, every item of a thread has the same
    // channels: their parameters are prepared once, before the loop.
    constexpr bool kFixedChannels = kThreads % kPerRow == 0 && Epilogue::per_channel;
    if constexpr (kFixedChannels) {
      const int cv = tid % kPerRow;
      const int n = n0 + cv * kOutVec;
      if (n >= kNg) return;  // Ng % OutVec == 0: a vector is all in or all out; no barrier follows
      const int k = group * kNg + n;
      EpilogueChannel ch[kOutVec];
#pragma unroll
      for (int e = 0; e < kOutVec; ++e) ch[e] = epilogue_channel(k + e, args.alpha, args.chain);
      for (int row = tid / kPerRow; row < BM; row += kThreads / kPerRow) {
        const I m = m0 + row;
        if (m >= kM) break;
        const Pixel px = decode_m(m);
        const I off = y_offset(px.n, k, px.p, px.q);
        const float* src = stage + row * kStageLd + cv * kOutVec;
        Vec<T, kOutVec> out;
#pragma unroll
        for (int e = 0; e < kOutVec; ++e) {
          out.v[e] = hf::from_float<T>(
              epilogue_value(src[e], alpha, ch[e], px.n, k + e, px.p, px.q, off + e * kYsK, args.chain));
        }
        *reinterpret_cast<Vec<T, kOutVec>*>(y + off) = out;
      }
    } else {
      for (int it = tid; it < BM * kPerRow; it += kThreads) {
        const int row = it / kPerRow, cv = it % kPerRow;
        const I m = m0 + row;
        const int n = n0 + cv * kOutVec;
        if (m >= kM || n >= kNg) continue;  // Ng % OutVec == 0: a vector is all in or all out
        const Pixel px = decode_m(m);
        const int k = group * kNg + n;
        const I off = y_offset(px.n, k, px.p, px.q);
        const float* src = stage + row * kStageLd + cv * kOutVec;
        Vec<T, kOutVec> out;
#pragma unroll
        for (int e = 0; e < kOutVec; ++e) {
          out.v[e] = hf::from_float<T>(
              epilogue_value(src[e], alpha, px.n, k + e, px.p, px.q, off + e * kYsK, args.chain));
        }
        *reinterpret_cast<Vec<T, kOutVec>*>(y + off) = out;
      }
    }
  } else {
    constexpr int kPerCol = BM / kOutVec;
    for (int it = tid; it < BN * kPerCol; it += kThreads) {
      const int col = it / kPerCol, mv = it % kPerCol;
      const I m = m0 + mv * kOutVec;
      const int n = n0 + col;
      if (m >= kM || n >= kNg) continue;  // P*Q % OutVec == 0: a vector stays in one image
      Pixel px = decode_m(m);
      const int k = group * kNg + n;
      const I off = y_offset(px.n, k, px.p, px.q);
      const float* src = stage + col * kStageLd + mv * kOutVec;
      const EpilogueChannel ch = epilogue_channel(k, args.alpha, args.chain);  // one channel per vector
      Vec<T, kOutVec> out;
#pragma unroll
      for (int e = 0; e < kOutVec; ++e) {
        out.v[e] = hf::from_float<T>(epilogue_value(src[e], alpha, ch, px.n, k, px.p, px.q, off + e, args.chain));
        next_pixel(px);
      }
      *reinterpret_cast<Vec<T, kOutVec>*>(y + off) = out;
    }
  }
}

// Points the loaders at `tile` and puts the first kLookahead of its k-tiles [k_begin, k_end)
// in flight (one commit group each; with one stage the whole K, deposited, one group).
template <class A, class B>
HF_DEVICE void start_tile(A& a_load, B& b_load, I tile, int group, int tid, const T* HF_RESTRICT x,
                          const T* HF_RESTRICT w, char* smem, const hf::ChainArgs& chain, int k_begin = 0,
                          int k_end = KT) {
  a_load.init(tile_m0(tile), group, tid);
  b_load.init(tile_n0(tile), group, tid);
  if constexpr (kStages == 1) {
    a_load.fetch(x, 0, smem, chain);
    b_load.fetch(w, 0, smem, chain);
    a_load.deposit(smem);
    b_load.deposit(smem);
    hf::cp_async_commit();
  } else {
#pragma unroll
    for (int s = 0; s < kLookahead; ++s) {
      if (k_begin + s < k_end) {
        a_load.fetch(x, k_begin + s, smem + s * kStageBytes, chain);
        b_load.fetch(w, k_begin + s, smem + s * kStageBytes, chain);
        a_load.deposit(smem + s * kStageBytes);
        b_load.deposit(smem + s * kStageBytes);
      }
      hf::cp_async_commit();
    }
  }
}

// One output tile: its k-tiles [k_begin, k_end) (started by start_tile), then the epilogue
// (stream-K: when the tile's other shares are done). Persistent blocks start `next_tile`
// (when < kTiles) between the two, so that its loads overlap this tile's stores (the
// epilogue's staging then lies past the pipeline buffers).
template <class A, class B>
HF_DEVICE void conv_tile(const hf::ConvArgs& args, char* smem, A& a_load, B& b_load, I tile, I next_tile,
                         int& prepared_n0, int k_begin = 0, int k_end = KT) {
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;

  const int group = static_cast<int>(blockIdx.y);
  const I m0 = tile_m0(tile);
  const int n0 = tile_n0(tile);

  const T* HF_RESTRICT x = static_cast<const T*>(args.x);
  const T* HF_RESTRICT w = static_cast<const T*>(args.w);

  prepare_tile_channels(args, smem, n0, tid, prepared_n0);
  float acc[MI][NI][4];
  zero_accumulators(acc);

  // One k-tile on the matrix units (wgmma: issued, still in flight on return).
  auto compute = [&](const char* stage) {
    if constexpr (kWarpgroupMma) {
      compute_tile_wgmma(acc, stage, warp);
    } else {
      compute_tile(acc, stage, warp_m, warp_n, lane);
    }
  };
  fence_accumulators(acc);
  if constexpr (kStages == 1) {
    // GEMM K fits one k-tile (the host gives such plans one stage): wait, compute.
    hf::cp_async_wait<0>();
    if constexpr (kWarpgroupMma) hf::fence_async_shared();
    __syncthreads();
    compute(smem);
  } else {
    // Main loop over the j-th k-tile (k_begin + j): wait for it, start k-tile j + kLookahead
    // into the buffer freed by j - 1 (mma.sync: every thread is past computing it: the
    // barrier) or j - 2 (wgmma: every warpgroup has waited for it), compute k-tile j;
    // gathered tiles are written to shared memory after the compute, hiding their load latency.
    const int nk = k_end - k_begin;
    for (int j = 0; j < nk; ++j) {
      hf::cp_async_wait<(kLookahead > 1 ? kLookahead - 1 : 0)>();
      if constexpr (kWarpgroupMma) hf::fence_async_shared();  // cp.async and deposits -> wgmma
      __syncthreads();
      const int next = j + kLookahead;
      char* next_stage = smem + (next % kStages) * kStageBytes;
      const char* stage = smem + (j % kStages) * kStageBytes;
      // wgmma first: the multiplies run while the loads are issued (their address arithmetic
      // is most of a k-tile's instructions); mma.sync computes synchronously, after them.
      if constexpr (kWarpgroupMma) compute(stage);
      if (next < nk) {
        a_load.fetch(x, k_begin + next, next_stage, args.chain);
        b_load.fetch(w, k_begin + next, next_stage, args.chain);
      }
      hf::cp_async_commit();
      if constexpr (!kWarpgroupMma) compute(stage);
      if (next < nk) {
        a_load.deposit(next_stage);
        b_load.deposit(next_stage);
      }
      if constexpr (kWarpgroupMma) {
        hf::wgmma_wait<1>();  // k-tile j - 1's multiplies are done: its stage is free at the next barrier
        fence_accumulators(acc);
      }
    }
  }
  if constexpr (kWarpgroupMma) {
    hf::wgmma_wait<0>();
    fence_accumulators(acc);
  }
  hf::cp_async_wait<0>();
  __syncthreads();
  if constexpr (kStreamK) {
    if ((k_begin > 0 || k_end < KT) && !stream_k_fixup(args, acc, tile, tid, smem)) return;
  }
  if constexpr (kPersistent) {
    if (next_tile < kTiles) start_tile(a_load, b_load, next_tile, group, tid, x, w, smem, args.chain);
  }

  store_tile(args, smem, acc, m0, n0);
}

// ---- warp specialisation -----------------------------------------------------------------
// The loader warpgroup (threads kThreads..) walks the k-tiles: it waits until stage s is
// empty (from its second round on), issues the k-tile's cp.async into it and counts each of
// its threads on the stage's full barrier once their copies have landed; the tensor-map
// copies' issuer (its first thread) arrives with their byte count, which they complete. The multiplying
// warpgroups wait for full, fence the copies for the matrix units, issue the k-tile's wgmmas
// and, once the previous k-tile's multiplies are done (wgmma_wait<1>), count one arrival per
// warp on that one's empty barrier. Round r = i / Stages of stage s waits on parity r % 2, i
// counting the block's k-tiles over all its tiles: persistent blocks walk several, the loaders
// running on into the next tile while the multiplying warps store this one (the last k-tile's
// stage is freed after its multiplies, the staging lies past the stages).
// The mbarriers lie past the pipeline and the staging (the host adds their 16 bytes a stage).
constexpr int kSharedEnd = kChannelOffset + kChannelBytes;
constexpr int kBarrierOffset = (kSharedEnd + 7) / 8 * 8;
// No setmaxnreg hand-over: under the cap of kBlockThreads x MinBlocks the multiplying code fits
// (no spills on any warp-specialised set, wg128x256 at 154 registers; ptxas, sm_90a), and the
// cp.async loaders' receptive fields would spill below ~120 registers a thread, which the host
// leaves them (resident_blocks).
static_assert(!kWarpSpecialized || (kWarpgroupMma && hfi::AMode != kGather && hfi::BMode == kAsync16 && !kStreamK &&
                                    (kStages >= 2 || KT == 1)),
              "warp specialisation: a warpgroup tile (pipelined, or one k-tile), asynchronous loaders");
static_assert(!(kTmaA || kTmaB) || (kWarpSpecialized && (kTmaB || !kTmaA) && BM <= 256 && BN <= 256),
              "tensor-map copies: warp-specialised tiles, B's whenever A's, boxes of at most 256 rows");
static_assert(!kTmaB || BLoader<kAsync16>::kLinearK, "B's tensor map: weights linear in kk");
static_assert(!kTmaA || kTmaAIm2col ||
                  (hfi::AMode == kAsync16 && kR == 1 && kS == 1 && kStrideH == 1 && kStrideW == 1 && kPadH == 0 &&
                   kPadW == 0 && kXsC == 1 && (kG == 1 || kCg % BK == 0)),
              "A's tensor map: a 1x1, stride-1, unpadded convolution on channels-last x, k-tiles inside a group");
static_assert(!kTmaAIm2col || (kTmaA && hfi::AMode == kAsync16 && kCg % BK == 0),
              "A's im2col map: channels-last x, each k-tile one filter tap of one group");
// The full barrier's arrivals: one per cp.async loader thread, and the tensor-map issuer's.
constexpr unsigned kFullArrivals = kAllTma ? 1u : static_cast<unsigned>(kLoadThreads) + (kTmaB ? 1u : 0u);
constexpr unsigned kTmaBytes = (kTmaA ? kTilePixels * kRowBytes : 0) + (kTmaB ? kTileChannels * kRowBytes : 0);
// Where a stage's k-tiles of x's pixels and of the weights lie: wgmma's A rows first, then B's.
constexpr int kPixelRowsOffset = kTransposed ? BM * kRowBytes : 0;
constexpr int kWeightRowsOffset = kTransposed ? 0 : BM * kRowBytes;

// ---- A multicast across a 2-block cluster (hfi::ClusterBlocks) ---------------------------
// The blocks of a cluster (ranks 0 and 1, consecutive in x) take tiles t and t + 1 of each
// step, t even: the same pixels (NT is even), the next channels. Rank r's issuer copies rows
// [r BM / 2, (r + 1) BM / 2) of the common A k-tile into both blocks' stage (A's map has
// boxes of BM / 2 rows; the halves of whole 8-row swizzle groups land as one BM-row box
// would), and its own B. So each full barrier still expects kTmaBytes, half of A coming from
// the other block, and a stage is free only once both blocks' multiplying warps have released
// it: each warp arrives on both blocks' empty barrier. The blocks meet at a cluster barrier
// once their barriers are initialised (before any copy or arrival can reach them) and again
// before exiting (no arrival may reach a block that has exited).
constexpr int kClusterBlocks = hfi::ClusterBlocks;
constexpr bool kMulticastA = kClusterBlocks > 1;
static_assert(!kMulticastA || (kClusterBlocks == 2 && kWarpSpecialized && kAllTma && !kTmaAIm2col && !hfi::StreamInput &&
                               NT % 2 == 0 && BM % 16 == 0),
              "A multicast: pairs of blocks on 2-D tensor maps, an even number of channel tiles");

// One arrival of this warp on stage `s`'s empty barrier: this block's, and with the A
// multicast the other block's too.
HF_DEVICE void release_stage(unsigned long long* empty, int s) {
  hf::mbarrier_arrive(empty + s);
  if constexpr (kMulticastA) hf::mbarrier_arrive_cluster(empty + s, hf::cluster_rank() ^ 1u);
}

// ---- behind a streamed re-layout (hfi::StreamInput) --------------------------------------
// The re-layout runs beside this kernel and counts its finished blocks per image
// (common/ready_counters.h); the tensor-map issuer, the block's only loader thread, waits for
// the weights once and for each tile's images before copying them, instead of the whole block
// waiting for the re-layout's launch to end. The waits end: every re-layout block has started
// before any GEMM block does (an early start begins once all of them have; an ordinary
// launch, once they have finished), so no waiting GEMM block keeps a writer off the device.
constexpr bool kStreamInput = hfi::StreamInput;
static_assert(!kStreamInput || (kWarpSpecialized && kAllTma), "a streamed re-layout feeds the tensor-map issuer only");
static_assert(!kTransposed || (kAllTma && kStage16 && kPersistent && !kStreamInput && hfi::ClusterBlocks == 1),
              "transposed GEMM: persistent tiles, x and the weights by tensor maps, 16-bit staging");
constexpr unsigned kPackBlocksPerImage = hfi::PackGridX * hfi::PackGridY;

HF_DEVICE void wait_for_weights(const hf::ConvArgs& args) {
  if constexpr (hfi::PackWeightSlices > 0) {
    hf::wait_ready(args.input_ready + kN, hfi::PackWeightSlices * kPackBlocksPerImage);
  }
}

// The images the tile's rows lie in (a tile of BM pixels spans one image or a few).
HF_DEVICE void wait_for_images(const hf::ConvArgs& args, I tile) {
  const I m0 = tile_m0(tile), m_last = m0 + kTilePixels < kM ? m0 + kTilePixels - 1 : kM - 1;
  for (int n = decode_m(m0).n, last = decode_m(m_last).n; n <= last; ++n) {
    hf::wait_ready(args.input_ready + n, kPackBlocksPerImage);
  }
  hf::fence_async_global();  // the re-layout's stores (generic proxy) before the tensor-map copies
}

template <class A, class B>
HF_DEVICE void conv_tile_ws(const hf::ConvArgs& args, char* smem, A& a_load, B& b_load) {
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + kBarrierOffset);
  unsigned long long* empty = full + kStages;
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      hf::mbarrier_init(full + s, kFullArrivals);
      hf::mbarrier_init(empty + s, kClusterBlocks * kThreads / 32);
    }
    hf::fence_barrier_init();
  }
  if constexpr (kMulticastA) {
    hf::cluster_sync();
  } else {
    __syncthreads();
  }
  // This block's tiles: its own, or (persistent) every gridDim.x-th from it.
  const I first_tile = static_cast<I>(blockIdx.x);
  const I tile_step = kPersistent ? static_cast<I>(gridDim.x) : static_cast<I>(kTiles);

  if (tid >= kThreads) {  // the loaders
    const T* HF_RESTRICT x = static_cast<const T*>(args.x);
    const T* HF_RESTRICT w = static_cast<const T*>(args.w);
    const int group = static_cast<int>(blockIdx.y);
    const bool issuer = tid == kThreads;  // issues the tensor-map copies
    if constexpr (kAllTma) {
      if (!issuer) return;
    }
    if (issuer) {
      if constexpr (kTmaA) hf::prefetch_tensormap(&args.a_map);
      if constexpr (kTmaB) hf::prefetch_tensormap(&args.b_map);
    }
    if constexpr (kStreamInput) wait_for_weights(args);
    int i = 0;  // the block's k-tiles so far
    for (I tile = first_tile; tile < kTiles; tile += tile_step) {
      if constexpr (!kTmaA) a_load.init(tile_m0(tile), group, tid - kThreads);
      if constexpr (!kTmaB) b_load.init(tile_n0(tile), group, tid - kThreads);
      if constexpr (kStreamInput) wait_for_images(args, tile);
      // The boxes' origins: (channel, pixel) in x, (kk, output channel) in the weights. Rows of
      // the next group past this one's N are multiplied but never stored.
      const int a_channel = group * kCg, a_pixel = static_cast<int>(tile_m0(tile));
      const int b_row = group * kNg + tile_n0(tile);
      // im2col: the window of the tile's first output pixel (its origin, padding included).
      const Pixel first = decode_m(tile_m0(tile));
      const int a_w = first.q * kStrideW - kPadW, a_h = first.p * kStrideH - kPadH;
      for (int j = 0; j < KT; ++j, ++i) {
        const int s = i % kStages;
        if (i >= kStages) hf::mbarrier_wait(empty + s, static_cast<unsigned>((i / kStages - 1) & 1));
        char* stage = smem + s * kStageBytes;
        if constexpr (kTmaB) {
          if (issuer) {
            hf::mbarrier_arrive_expect_tx(full + s, kTmaBytes);
            if constexpr (kTmaAIm2col) {
              // k-tile j: filter tap j / (Cg / BK) in (r, s) order, channels (j % (Cg / BK)) * BK on.
              constexpr int kChannelTiles = kCg / BK > 0 ? kCg / BK : 1;
              const int tap = j / kChannelTiles, r = tap / kS, sx = tap % kS;
              hf::tma_load_im2col_4d(stage + kPixelRowsOffset, &args.a_map, a_channel + (j % kChannelTiles) * BK,
                                     a_w, a_h, first.n, sx * kDilW, r * kDilH, full + s);
            } else if constexpr (kMulticastA) {
              const int half = static_cast<int>(hf::cluster_rank()) * (BM / 2);
              hf::tma_load_2d_multicast(stage + half * kRowBytes, &args.a_map, a_channel + j * BK, a_pixel + half,
                                        full + s, 0x3);
            } else if constexpr (kTmaA) {
              hf::tma_load_2d(stage + kPixelRowsOffset, &args.a_map, a_channel + j * BK, a_pixel, full + s);
            }
            hf::tma_load_2d(stage + kWeightRowsOffset, &args.b_map, j * BK, b_row, full + s);
          }
        }
        if constexpr (!kTmaA) a_load.fetch(x, j, stage, args.chain);
        if constexpr (!kTmaB) b_load.fetch(w, j, stage, args.chain);
        if constexpr (!kAllTma) hf::cp_async_arrive(full + s);
      }
    }
    if constexpr (!kAllTma) hf::cp_async_wait<0>();  // no copies pending when the warp exits
    if constexpr (kStreamInput) hf::retire_ready(args.input_ready, kN, gridDim.x * gridDim.y);
    return;
  }

  int i = 0, prepared_n0 = -1;
  for (I tile = first_tile; tile < kTiles; tile += tile_step) {
    prepare_tile_channels(args, smem, tile_n0(tile), tid, prepared_n0);
    float acc[MI][NI][4];
    zero_accumulators(acc);
    fence_accumulators(acc);
    for (int j = 0; j < KT; ++j, ++i) {
      const int s = i % kStages;
      hf::mbarrier_wait(full + s, static_cast<unsigned>((i / kStages) & 1));
      if constexpr (!kAllTma) hf::fence_async_shared();  // the landed cp.async -> the matrix units
      compute_tile_wgmma(acc, smem + s * kStageBytes, warp);
      hf::wgmma_wait<1>();  // k-tile i - 1's multiplies are done: free its stage
      fence_accumulators(acc);
      if (j > 0 && lane == 0) release_stage(empty, (i - 1) % kStages);
    }
    hf::wgmma_wait<0>();
    fence_accumulators(acc);
    // Persistent: the tile's last stage is free for the loaders' next tile.
    if (kPersistent && lane == 0) release_stage(empty, (i - 1) % kStages);
    // Every warpgroup is past its last multiply (the staging may overwrite the stages) and, on
    // persistent blocks, past the previous tile's staging reads (the copy engine's: its issuer
    // waits for them first).
    if (kTmaStore && tid == 0) hf::tma_store_wait_reads();
    sync_math_threads();
    store_tile(args, smem, acc, tile_m0(tile), tile_n0(tile));
  }
  if (kTmaStore && tid == 0) hf::tma_store_wait_all();  // the block's last copies done before it exits
  if constexpr (kMulticastA) hf::cluster_sync();  // the other block's last arrivals on this one's barriers
}

}  // namespace igemm

HF_KERNEL void __launch_bounds__(igemm::kBlockThreads, hfi::MinBlocks) HF_IGEMM_CLUSTER_DIMS
    hf_conv_igemm(const HF_GRID_CONSTANT hf::ConvArgs args) {
  using namespace igemm;
  // x and the weights may come from the re-layout launched just before: wait for it whole, or
  // (streamed) image by image in the loader.
  if constexpr (!kStreamInput) hf::wait_for_prior_grid();
  extern __shared__ uint4 smem_words[];  // 16-byte aligned
  char* smem = reinterpret_cast<char*>(smem_words);
  // wgmma's swizzled operands: 1024-byte aligned stages (the host adds the 1 KB of slack).
  if constexpr (kWarpgroupMma) smem += (1024u - (hf::shared_address(smem) & 1023u)) & 1023u;
  const int tid = static_cast<int>(threadIdx.x);
  const int group = static_cast<int>(blockIdx.y);
  ALoader<hfi::AMode> a_load;
  BLoader<hfi::BMode> b_load;
  const T* x = static_cast<const T*>(args.x);
  const T* w = static_cast<const T*>(args.w);
  int prepared_n0 = -1;  // the channels whose epilogue parameters shared memory holds (none yet)
  if constexpr (kWarpSpecialized) {
    conv_tile_ws(args, smem, a_load, b_load);
  } else if constexpr (kStreamK) {
    // This block's k-tiles, one tile's share at a time.
    const long long end = share_begin(blockIdx.x + 1);
    for (long long u = share_begin(blockIdx.x); u < end;) {
      const I tile = static_cast<I>(u / KT);
      const int k_begin = static_cast<int>(u - static_cast<long long>(tile) * KT);
      const int k_end = static_cast<int>(k_begin + end - u < KT ? k_begin + end - u : KT);
      __syncthreads();  // the last share's epilogue staging overlaps the stages
      start_tile(a_load, b_load, tile, group, tid, x, w, smem, args.chain, k_begin, k_end);
      conv_tile(args, smem, a_load, b_load, tile, kTiles, prepared_n0, k_begin, k_end);
      u += k_end - k_begin;
    }
  } else {
    I tile = blockIdx.x;
    start_tile(a_load, b_load, tile, group, tid, x, w, smem, args.chain);
    if constexpr (kPersistent) {
      // gridDim.x blocks (about the resident count) walk the tiles; every block starts with one.
      // (The next tile's k-loop barriers order this tile's staging reads before its writes.)
      for (; tile < kTiles; tile += gridDim.x) {
        conv_tile(args, smem, a_load, b_load, tile, tile + gridDim.x, prepared_n0);
      }
    } else {
      conv_tile(args, smem, a_load, b_load, tile, kTiles, prepared_n0);
    }
  }
}
