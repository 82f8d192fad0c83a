#include "solvers/conv_implicit_gemm_config.h"

#include "common/igemm_args.h"  // the re-layout kernel's tile size, the store's box width

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace hipfuse::igemm {

namespace {

constexpr int kDefaultMultiprocessors = 132;  // H200
constexpr std::int64_t kMaxGroups = 65535;    // grid.y
constexpr std::int64_t kMaxGridX = (std::int64_t{1} << 31) - 1, kMaxGridZ = 65535;
constexpr int kSharedPerSm = 228 * 1024;       // H100 / H200 (sm_90)
constexpr int kSharedReservedPerBlock = 1024;
constexpr std::int64_t kMaxPackedInputBytes = std::int64_t{1} << 30;  // scratch for a re-laid-out x
// Cost of a gathered A row per kk, in units of one tile multiply-add (calibrated on the H200
// tile sweep of docs/PERF_NOTES.md, v2: 3x3 256->256 14x14 NCHW, 128x128 90.5 us vs 128x64 127.2 us).
constexpr double kGatherCost = 643.0;

struct Candidate {
  const char* name;
  Kernel kernel;
  int bm, bn, warps_m, warps_n, stages, min_blocks;
  double efficiency;  // relative throughput of the tile's inner loop (operand reuse per byte of shared memory)
  int k_chunks = 4;   // 16-byte chunks per k-tile row (matrix: 4 BK 32 fp16, 8 BK 64; simt: 2 BK 8, 4 BK 16)
  bool persistent = false;  // matrix kernel: min_blocks blocks per SM loop over the output tiles
  bool warpgroup = false;   // matrix kernel: wgmma (sm_90a), warps stacked along M in warpgroups of 4
  bool fit_blocks = false;  // persistent: min_blocks (the register cap) cut to the blocks shared memory fits
};

// Matrix-unit tiles: a 64x64 warp tile reads 32 FLOP per byte of shared memory (ldmatrix),
// enough to keep the tensor cores busy; 64x32 reads 21 (about 0.8 of the rate), 32x32 16.
constexpr Candidate kMatrixTiles[] = {
    {"128x128", Kernel::matrix, 128, 128, 2, 2, 4, 1, 1.0},
    {"256x64", Kernel::matrix, 256, 64, 4, 1, 4, 1, 1.0},
    {"128x64", Kernel::matrix, 128, 64, 2, 2, 4, 1, 0.8},
    {"64x64", Kernel::matrix, 64, 64, 2, 2, 4, 1, 0.6},
    {"128x32", Kernel::matrix, 128, 32, 4, 1, 4, 1, 0.6},
    // 8 warps of 64x32, at most 128 registers: twice the warps per block (latency hiding).
    {"128x128w8", Kernel::matrix, 128, 128, 2, 4, 4, 2, 0.8},
};
// BK = 64 (fp16/bf16; 32 for tf32) tiles: 128-byte k-tile rows, half the barriers per FLOP
// and twice the work per pipeline stage; stages chosen so that 2-3 blocks share a
// multiprocessor's 228 KB. Not yet in the automatic choice (kPromote below): forced by
// name (tests, the tile sweep) until the H200 sweep has measured them.
constexpr Candidate kK64Tiles[] = {
    // 4 warps of 64x64, 96 KB: 2 blocks per SM like 128x128, half the barriers.
    {"128x128k64", Kernel::matrix, 128, 128, 2, 2, 3, 2, 1.0, 8},
    // 8 warps of 64x32 at most 128 registers, 96 KB: 2 blocks = 16 warps per SM.
    {"128x128w8k64", Kernel::matrix, 128, 128, 2, 4, 3, 2, 0.8, 8},
    // 4 warps of 64x64, 120 KB: 1 block per SM (registers would allow 2).
    {"256x64k64", Kernel::matrix, 256, 64, 4, 1, 3, 1, 1.0, 8},
    // 4 warps of 64x32 at most 168 registers, 72 KB: 3 blocks = 12 warps per SM (4 for
    // GEMM K <= 64, where the stages shrink to 2: 48 KB).
    {"128x64k64", Kernel::matrix, 128, 64, 2, 2, 3, 3, 0.8, 8},
    // 8 warps of 32x32 at most 128 registers, 72 KB: 2-3 blocks = 16-24 warps per SM.
    {"128x64w8k64", Kernel::matrix, 128, 64, 4, 2, 3, 2, 0.6, 8},
    // Persistent 128x64k64 for short-K memory-bound layers: 3 blocks per SM walk the output
    // tiles and start the next tile's loads before the current tile's epilogue, so that loads
    // and stores overlap within a block (staging apart from the pipeline: 61 KB for K = 64).
    {"128x64k64p", Kernel::matrix, 128, 64, 2, 2, 3, 3, 0.8, 8, true},
};
// The tile of memory-bound plans (GEMM K <= 128, N >= 64; see choose_config). H200 tile sweep
// (docs/PERF_NOTES.md v5), fp16 1x1 64->256 56x56: with a cp.async A (NHWC) the persistent
// 128x64k64p, whose next tile's loads overlap the current tile's stores, 61.4 us against 70.6
// for 128x64; with a gathered A (NCHW) it loses (78.0 vs 76.4), so 128x64 stays there.
constexpr const char* kMemoryBoundTileAsync = "128x64k64p";
constexpr const char* kMemoryBoundTileGathered = "128x64";
// fp16/bf16 refinements from the H200 memory-bound sweep (docs/PERF_NOTES.md v9, fp16, us):
// with more than one k-tile (GEMM K 128: 1x1 128->512 28x28 NHWC) the persistent tile's
// overlap no longer pays, 128x64 46.8 against 128x64k64p's 52.2; with a gathered A (NCHW) and
// N >= 128 the persistent 2-warpgroup wgmma tile wins, 62.6 against 128x64's 82.8 (128->512)
// and 72.6 against 76.5 (1x1 64->256 56x56), but loses at N = 64 (64->64: 33.3 against 28.0).
constexpr const char* kMemoryBoundTileAsyncLongK = "128x64";
constexpr const char* kMemoryBoundTileGatheredWgmma = "wg128x128p";
// A copied along the pixels (NCHW 1x1) with one k-tile (GEMM K 64) and N >= 128: the same
// persistent wgmma tile. H200 sweep v22 (docs/PERF_NOTES.md, fp16 NCHW, us, 16-bit staged):
// 1x1 64->256 56x56 46.4 against 128x64k64p's 53.7 (warp-specialised: 58.2); at N = 64
// (64->64 56x56) 128x64k64p stays, 20.0 against 23.6.
constexpr const char* kMemoryBoundTilePixelsWgmma = "wg128x128p";
// A copied along the pixels (NCHW 1x1) below the wgmma intensity, GEMM K 128-512, N >= 128:
// that tile warp-specialised (the weights by tensor map). H200 sweep v24 (docs/PERF_NOTES.md,
// fp16 NCHW, batch 64, us, 16-bit staged), against the mma.sync tiles taken before: 1x1
// 256->128 56x56 48.7 against 61.5, 128->512 28x28 36.4 against 46.4, 512->128 28x28 27.8
// against 35.7 (plain wg128x128p 62.7, 41.5, 31.0); at N = 64 (256->64) 128x64 stays (38.8,
// wg128x128p/ws 43.0).
constexpr const char* kPixelsTileWarpSpecialized = "wg128x128p";
// Channels-last 1x1 layers below the wgmma intensity, up to GEMM K 512, whose x and weights
// tensor maps can read (1x1, stride 1, unpadded) and whose y takes 16-bit staging: the
// persistent warp-specialised 128x64 wgmma tile, its loader warp running on into the next
// tile while the warpgroup stores this one. H200 sweep v14 (docs/PERF_NOTES.md, fp16 NHWC,
// batch 64, us, all 16-bit staged): 1x1 64->256 56x56 43.7 against wg128x128p's 51.3 and
// 128x64k64p's 56.4; 256->64 56x56 38.7 / 42.7 (64x64k64p); 64->64 56x56 19.2 / 20.0;
// 256->128 56x56 48.1 / 60.8; 128->512 28x28 34.4 / 42.1; 512->128 28x28 27.0 / 30.0 (the
// fastest tile within 6% on each: 64x128 46.7, 128x128 25.5).
constexpr const char* kMemoryBoundTileWarpSpecialized = "wg128x64p";
constexpr std::int64_t kMemoryBoundWarpSpecializedMaxK = 512;
// ... and with N >= 512 and more than one k-tile, the persistent warp-specialised 128x128 tile
// on two stages: two blocks of 9 warps a multiprocessor (three stages leave room for one), each
// A tile serving 128 output channels. H100 A/B v39 (docs/PERF_NOTES.md, fp16/bf16 NHWC, batch
// 64, us, outputs sampled; every output of the CBNA fp16 case checked): 1x1 128->512 28x28 CBA
// 31.1 -> 28.75, CBNA 31.1 -> 28.8, bf16 CBA 31.15 -> 28.95;
// wg128x64p on two stages (three blocks) 30.2 / 32.1 / 30.35. At N = 128 it loses (512->128
// 28x28 28.45 -> 32.5, 256->128 56x56 58.05 -> 61.15), as at N = 256 with one k-tile (v14);
// N >= 512 with one k-tile (GEMM K 64) is not measured and keeps wg128x64p.
constexpr const char* kWideMemoryBoundTileWarpSpecialized = "wg128x128p";
constexpr std::int64_t kWideMemoryBoundMinN = 512;
constexpr int kWideMemoryBoundStages = 2;
// ... and with GEMM K of one k-tile (64), A multicast across 2-block clusters (Config::
// cluster_blocks) where the channel tiles pair up: the pair reads its common x tile once. H100
// A/B v51 (docs/PERF_NOTES.md, 1x1 64->256 56x56 NHWC, batch 64, 3 rounds, outputs sampled):
// fp16 CBA 0.922x, CBNA 0.938x, bf16 CBA 0.943x, CBNA 0.920x (58.7 -> 54.1 us). Not past one
// k-tile: 1x1 128->512 28x28 1.034x; nor on the compute-bound 1x1 layers, 1.045-1.125x
// (2048->512 7x7 18.5 -> 20.65 us), where the pair's shared stages hold both blocks to the
// slower one's pace and the k-loop does not wait on L2 (cuDNN's nvjet kernels use 2-block
// clusters there, with other tiles and schedules).
constexpr std::int64_t kMulticastMaxK = 64;
// The transposed GEMM's tile ("/tr" alone; Config::transposed): 2 warpgroups of 64 output
// channels by the fitted pixel width (one warpgroup where a group has at most 64 output
// channels: no multiplies wasted on 3x3 64->64), persistent, one block a multiprocessor with as
// many pipeline stages as its shared memory holds, up to kTransposedStages ("/st<N>" caps them),
// as cuDNN's kernels there fill 197-231 KB (docs/PERF_NOTES.md v51). The heuristic takes it
// (transposed_pays) where it measured faster. H100 A/B v52 (docs/PERF_NOTES.md, fp16 NHWC CBA,
// batch 64, us): 3x3 64->64 56x56 48.75 -> 44.3, 1x1 512->2048 7x7 20.5 -> 18.75, 1024->512
// 14x14 28.0 -> 26.6, 3x3 128->128 56x56 s2 and 28x28 0.96-0.97x, 1x1 1024->2048 14x14 s2
// 0.97x. Not where the heuristic's tile already fills the waves with wider operands (1x1
// 1024->256 14x14 1.01x, 256->1024 14x14 1.07x), on 3x3 512->512 7x7 (1.08x; 0.99x on four
// stages), nor on 2048->512 7x7 (1.0x), less than a wave of 128x128 outputs.
constexpr const char* kTransposedTile = "wg128x128p";
constexpr const char* kTransposedNarrowTile = "wg64x128p";
constexpr int kTransposedStages = 8;
constexpr int kTransposedMinChannels1x1 = 512;     // 1x1: C and K at least this
constexpr int kTransposedMaxChannelsWindow = 128;  // wider filters: C and K at most this
// With x by im2col map the heuristic's pick keeps four stages: the deep pipeline's copies cost
// (3x3 512->512 7x7 above; on the layers it takes, four stages are within 0.5% of seven).
constexpr int kTransposedIm2colStages = 4;
constexpr int kMaxStagesMode = 16;  // "/st<N>" takes N up to this (no tile has more stages)
// The staged tile stored by tensor map (Config::tma_store) on 1x1 layers of GEMM K 256-1024 and
// N >= 256 (persistent warp-specialised tiles): the warpgroups start the next tile's multiplies
// while the copy engine stores this one. H100 A/B v41 (docs/PERF_NOTES.md, fp16 NHWC, batch 64,
// CBA / CBNA, us): 1x1 256->1024 14x14 22.7 -> 19.9 / 23.1 -> 20.4, 512->1024 28x28 s2 33.0 ->
// 31.3 / 34.3 -> 31.7, 256->512 56x56 s2 39.8 -> 37.5 / 40.2 -> 38.0, 512->2048 7x7 21.7 -> 20.5
// / 22.0 -> 20.9, 512->256 28x28 36.0 -> 34.8 / 36.1 -> 35.0, 1024->512 14x14 28.7 -> 28.1 / 29.0
// -> 28.3, 1024->2048 14x14 s2 33.5 -> 32.7 / 33.9 -> 32.6. Slower or even elsewhere: GEMM K
// 128 (128->512 28x28 28.9 -> 30.2), whose tiles are two k-tiles long; K 2048 (2048->512 7x7
// 18.7 -> 18.9), where the store is a sliver of the tile; N 128 or less (512->128 28x28 28.2 ->
// 28.3); 3x3 layers (64->64 56x56 49.0 -> 51.1, 512->512 7x7 32.1 -> 32.6), whose im2col loads
// keep the copy engine busy.
constexpr std::int64_t kTensorStoreMinK = 256, kTensorStoreMaxK = 1024, kTensorStoreMinN = 256;
bool tensor_store_pays(const Problem& p) {
  return p.r * p.s == 1 && p.gemm_k() >= kTensorStoreMinK && p.gemm_k() <= kTensorStoreMaxK &&
         p.gemm_n() >= kTensorStoreMinN;
}
// Where A's k-tiles come by an im2col tensor map (x channels-last or re-laid out, a filter
// larger than 1x1 or a strided 1x1, C/G a multiple of BK): the warp-specialised wgmma tiles
// with that map, 16-bit staged where y allows. H200 sweep v15 (docs/PERF_NOTES.md, fp16, batch
// 64, us, NHWC), against the previous choice: 3x3 128->128 28x28 wg128x128p 32.4 (wg192x128
// with a cp.async A 41.0), 3x3 512->512 7x7 34.1 (wg128x128 44.9), 3x3 512->512 14x14 s2 33.2
// (44.6), 1x1 256->512 56x56 s2 43.6 (mma.sync 128x128 60.2), 3x3 256->256 14x14 wg192x128
// 30.9 (35.4), 3x3 64->64 56x56 wg128x64p 48.3 (128x64k64 56.7); NCHW, x re-laid out, alike
// (3x3 512->512 7x7 49.9 against 60.3). For N >= 128 the one of least estimate_waves, the
// persistent tile's work divided by kPersistentOverlap: its loader warp runs on into the next
// tile while the warpgroups store this one, which ranks the two as measured on all nine layers
// of the sweep (wg192x128 ahead where its 192-row tiles fill the SMs in whole waves: M = 12544
// with N = 256, 132 tiles).
constexpr const char* kIm2colTiles[] = {"wg192x128", "wg128x128p"};
constexpr const char* kIm2colNarrowTile = "wg128x64p";  // 64 <= N < 128
constexpr double kPersistentOverlap = 1.25;
constexpr const char* kMappedTiles[] = {"wg192x128", "wg128x128p", "wg64x128p"};
// Channel widths fitted to the waves: the heuristic's persistent 2-warpgroup wgmma tile
// (wg128x128p, A by a tensor map) takes the wider width, a multiple of 16 up to 256 (wgmma's n),
// of least estimated time over whole waves where that is at most kFittedWidthGain of the
// table's. H100 A/B v50 (docs/PERF_NOTES.md, fp16 NHWC, batch 64, us): 1x1 1024->2048 14x14 s2,
// 400 tiles of 128x128 (four rounds for four blocks, three for the others) against 250 of
// 128x208 (two rounds), 32.85 -> 29.35. Narrower widths do not pay, the tile's k-loop no faster
// for fewer channels: 128x112 on the 7x7 outputs (125 tiles for 132 SMs against 100) 1x1
// 2048->512 7x7 18.55 -> 18.8 (NCHW 27.9 -> 29.15), 3x3 512->512 7x7 32.0 -> 32.3. "/n<N>" forces
// any width N from 64 to 256 in steps of 16 on a wgmma tile.
constexpr int kFittedWidthStep = 16, kFittedWidthMin = 128, kForcedWidthMin = 64, kFittedWidthMax = 256;
constexpr double kFittedWidthGain = 0.9;
// The automatic choice's BK = 64 substitutes, {picked, substitute}, where the H200 sweep
// measured the substitute faster (fp16, us): 256x64 -> 128x64k64 on 3x3 64->64 56x56 (NHWC
// 62.5 -> 60.6, NCHW 98.9 -> 98.0); 128x64 -> 128x64k64 on 3x3 256->256 14x14 (NHWC 56.4 ->
// 55.8, NCHW 73.9 -> 69.1). 128x128 -> 128x128k64 was slower (60.0 -> 61.6): not promoted.
struct Promotion {
  const char* from;
  const char* to;
};
constexpr Promotion kPromote[] = {
    {"256x64", "128x64k64"},
    {"128x64", "128x64k64"},
};
// Warpgroup tiles (Hopper wgmma, fp16/bf16, BK 64): each warpgroup of 4 warps multiplies its
// BM / warpgroups rows by all BN columns straight from shared memory (no ldmatrix, no
// per-warp fragments), so operand reuse is that of the whole 64 x BN product; one k-tile's
// multiplies stay in flight behind the next one's wait, so a stage more than mma.sync's
// (stages - 2 k-tiles are loading while one is multiplied). One-block-per-SM tiles take
// 192 KB of stages, which no second block could use (4 k-tiles loading instead of 2 on
// wg128x128: no measurable change on the H200, docs/PERF_NOTES.md v6b). Efficiency (relative throughput, for
// estimate_waves): the H200 sweep (docs/PERF_NOTES.md v6) ranks 128x256 > 256x128 >
// 128x128 > 128x64 > 64x128 at equal waves.
constexpr Candidate kWarpgroupTiles[] = {
    // 2 warpgroups of 64x128 (64 accumulators a thread), 6 stages of 32 KB: 1 block per SM.
    {"wg128x128", Kernel::matrix, 128, 128, 8, 1, 6, 1, 2.0, 8, false, true},
    // 1 warpgroup of 2 x 64x64, 4 stages of 24 KB: 2 blocks per SM.
    {"wg128x64", Kernel::matrix, 128, 64, 4, 1, 4, 2, 1.8, 8, false, true},
    // 1 warpgroup of 64x128, 4 stages of 24 KB: 2 blocks per SM.
    {"wg64x128", Kernel::matrix, 64, 128, 4, 1, 4, 2, 1.7, 8, false, true},
    // 2 warpgroups of 64x256 (128 accumulators), 4 stages of 48 KB: 1 block per SM.
    {"wg128x256", Kernel::matrix, 128, 256, 8, 1, 4, 1, 2.2, 8, false, true},
    // 2 warpgroups of 2 x 64x128 (128 accumulators), 4 stages of 48 KB: 1 block per SM.
    {"wg256x128", Kernel::matrix, 256, 128, 8, 1, 4, 1, 2.1, 8, false, true},
    // 3 warpgroups of 64x128 (64 accumulators), 5 stages of 40 KB: 1 block of 12 warps per SM.
    // For the layers whose M = 12544 (14x14 at batch 64) leaves 128-row tiles partly empty
    // waves: 66 x 2 = 132 tiles of 192x128 for N = 256 (128x256: 98 blocks on 132 SMs). H200
    // sweep v8 (docs/PERF_NOTES.md): 3x3 256->256 14x14 fp16 NHWC 40.8 us against 44.2; ahead at
    // equal waves too (3x3 128->128 28x28: 45.3 against wg128x128's 49.6), behind with a
    // gathered A (NCHW 1x1 1024->256: 40.4 against wg128x256's 35.7).
    {"wg192x128", Kernel::matrix, 192, 128, 12, 1, 5, 1, 2.1, 8, false, true},
};
// Persistent candidates for the memory-bound 1x1 layers (GEMM K 64-512, ~2 TB/s against
// cuDNN's ~3), forced by name only (the tile sweep): no automatic choice iterates this table.
// Sizes: fp16 NHWC, the stages plus the staging past them (NCHW's staging is up to 8% smaller).
// wgmma: stages from 3 (one k-tile: 1), so that only GEMM K 64 fits wg128x256p's 132 KB of
// staging. min_blocks is for K = 64; longer K's stages leave fewer blocks, whose registers a
// gathered A (NCHW) then needs (fit_blocks; under K = 64's caps ptxas spills 48-136 bytes on
// 1x1 256->128 NCHW).
constexpr Candidate kPersistentTiles[] = {
    // 1 warpgroup of 64x128: 59 KB for K = 64 (3 blocks per SM), 107 KB with 3 stages (2).
    {"wg64x128p", Kernel::matrix, 64, 128, 4, 1, 3, 3, 1.7, 8, true, true, true},
    // 1 warpgroup of 2 x 64x64: 61 KB for K = 64 (3 blocks per SM), 109 KB with 3 stages (2).
    {"wg128x64p", Kernel::matrix, 128, 64, 4, 1, 3, 3, 1.8, 8, true, true, true},
    // 2 warpgroups of 64x128: 101 KB for K = 64 (2 blocks per SM), 197 KB with 4 stages (1).
    {"wg128x128p", Kernel::matrix, 128, 128, 8, 1, 4, 2, 2.0, 8, true, true, true},
    // 2 warpgroups of 64x256: 181 KB for K = 64 (1 block per SM); 3 stages would take 277 KB.
    {"wg128x256p", Kernel::matrix, 128, 256, 8, 1, 3, 1, 2.2, 8, true, true, true},
    // 3 warpgroups of 64x128: 145 KB for K = 64, 225 KB with 3 stages (1 block per SM; 16-bit
    // staging: 173 KB). For the layers whose 192-row tiles fill the waves (M = 12544: 66 x 2 tiles
    // for N = 256), with the loaders running on into the next tile.
    {"wg192x128p", Kernel::matrix, 192, 128, 12, 1, 3, 1, 2.1, 8, true, true, true},
    // 4 warps of 32x32: 34 KB for K = 64 (5 blocks per SM: 6 would fit, but NCHW's gathered A
    // spills 24 bytes under their 80 registers), 50 KB with 2 stages (4). A 128x64k64p with 4
    // blocks would not fit (60 KB a block for K = 64).
    {"64x64k64p", Kernel::matrix, 64, 64, 2, 2, 2, 5, 0.6, 8, true, false, true},
};
// wgmma pays where each row of A meets at least this many output channels: with 64, every A
// element (re-read from L2 R*S times by the implicit GEMM) feeds only 64 multiply-adds and
// the L2-to-shared-memory traffic, not the multiplies, bounds the time (H200 sweep v6, fp16
// 3x3 64->64 56x56 NHWC: 128x64k64 60.1 us, wg128x64 63.2).
constexpr std::int64_t kWarpgroupMinN = 128;
// ... and where the layer is not memory-bound: below this many FLOPs per byte of least
// traffic (the card's bf16 balance is ~186), 1x1 layers such as 256->128 56x56 (85) or
// 512->128 28x28 (102) are bound by memory on either instruction set, and the mma.sync
// tiles' 2-3 resident blocks per SM keep more loads in flight than a 1-block wgmma tile.
constexpr double kWarpgroupMinIntensity = 128.0;
// Stream-K (Config::stream_k_blocks) is never chosen automatically: on the H200 it made every
// layer it was meant for slower but one (docs/PERF_NOTES.md v7: 1x1 1024->256 14x14 25.2 ->
// 35.7 us, 3x3 256->256 14x14 43.0 -> 47.2; each share of a 128x256 tile writes 128 KB of fp32
// partials and refills the pipeline). Forced with "<tile>/sk" for measurements.
// SIMT tiles (8x8 outputs per thread): smaller blocks only for grids that would not fill the GPU.
// k_chunks: 16-byte chunks (4 fp32 kk) per k-tile row, BK 8.
constexpr Candidate kSimtTiles[] = {
    {"simt128x64", Kernel::simt, 128, 64, 0, 0, 2, 2, 1.0, 2},      // H200 sweep: 202.7 us
    {"simt128x128", Kernel::simt, 128, 128, 0, 0, 2, 2, 0.95, 2},   // 211.4 us (fp32 1x1 64->256)
    {"simt64x64", Kernel::simt, 64, 64, 0, 0, 2, 2, 0.7, 2},
};
// BK 16: half the barriers per FMA, twice the loader registers (simt128x64k16: 165 registers,
// 3 blocks a multiprocessor against BK 8's 127 and 4; simt128x128k16 spills at its 128-register
// cap). The heuristic takes simt128x64k16 in place of simt128x64 where GEMM K is at least
// kSimtK16MinK and the BK 8 grid is less than one wave of 4 blocks a multiprocessor. H100,
// fp32 CBA at batch 64, this rule against BK 8 everywhere, NCHW / NHWC, us (docs/PERF_NOTES.md
// v36): 3x3 256->256 14x14 459.1 -> 410.3 / 430.7 -> 401.5, 1x1 1024->256 14x14 191.3 -> 178.7
// / 197.3 -> 194.7, 1x1 2048->512 7x7 266.3 -> 255.1 / 258.7 -> 260.3 (rounds 263.0, 257.5);
// NCHW, one round: 3x3 256->256 28x28 s2 482.8 -> 459.4, 3x3 512->512 7x7 577.1 -> 586.0.
// Left at BK 8 (forced BK 16, against it): 3x3 128->128 56x56 s2 (784 tiles, two waves either
// way) 1.2-2.1% slower, the 1x1 layers of GEMM K 64 and 256 2-6% slower; 3x3 64->64 56x56
// (1568 tiles) 1.7-2.0% faster, not taken by this rule.
constexpr Candidate kSimtK16Tiles[] = {
    {"simt128x64k16", Kernel::simt, 128, 64, 0, 0, 2, 2, 1.0, 4},
    {"simt128x128k16", Kernel::simt, 128, 128, 0, 0, 2, 2, 0.95, 4},
};
constexpr std::int64_t kSimtK16MinK = 512;
constexpr int kSimt128x64ResidentBlocks = 4;  // 127 registers x 128 threads

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Largest power of two <= cap dividing v (v == 0 divides everything).
int pow2_divisor(std::int64_t v, int cap) {
  int d = 1;
  while (d < cap && v % (2 * d) == 0) d *= 2;
  return d;
}

// The stride of a dimension, or 0 when the dimension has length 1 (its stride never matters).
std::int64_t stride_if(std::int64_t length, std::int64_t stride) { return length == 1 ? 0 : stride; }

// Whether 16-byte vectors of `vec` elements along channels are aligned in a tensor with
// these strides (n, c, h, w) and lengths, channels split in groups of `channels`.
bool vectors_along_c(const std::array<std::int64_t, 4>& st, const std::array<std::int64_t, 4>& len,
                     std::int64_t channels, int vec) {
  if (stride_if(len[1], st[1]) > 1) return false;
  if (channels % vec != 0) return false;
  for (int d : {0, 2, 3}) {
    if (stride_if(len[static_cast<std::size_t>(d)], st[static_cast<std::size_t>(d)]) % vec != 0) return false;
  }
  return true;
}

bool uses_matrix_units(const Problem& p) { return p.elem != Elem::f32 || p.allow_tf32; }

// Whether each channel plane of x is one run of H*W consecutive values.
bool planes_are_runs(const Problem& p) {
  const auto& st = p.x_strides;
  return (p.w == 1 || st[3] == 1) && (p.h == 1 || st[2] == (p.w == 1 ? 1 : p.w));
}

// Whether accesses of `lanes` values along the pixels tile x's planes without crossing a
// channel or an image: H*W and the channel and image strides multiples of the width.
bool pixel_accesses_tile(const Problem& p, int lanes) {
  const std::int64_t plane = static_cast<std::int64_t>(p.h) * p.w;
  return plane % lanes == 0 && stride_if(p.c, p.x_strides[1]) % lanes == 0 && stride_if(p.n, p.x_strides[0]) % lanes == 0;
}

// Whether `p` is a 1x1, stride-1, unpadded convolution: the GEMM's rows are x's own pixels.
bool plain_1x1(const Problem& p) {
  return p.r == 1 && p.s == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 && p.pad_w == 0;
}

// Loader::pixels' copy width: 8 or 4 values along the pixels of x, whose planes must be one
// run each, or 0 where it cannot read x: a 16-bit 1x1, stride-1, unpadded convolution
// without a prologue, H*W and the plane and image strides multiples of the width (so that
// no copy crosses an image), each thread on one pixel chunk of the tile's rows.
int pixel_lanes(const Problem& p, const Candidate& c) {
  if (c.kernel != Kernel::matrix || p.elem == Elem::f32 || p.has_prologue) return 0;
  if (!plain_1x1(p)) return 0;
  const int threads = 32 * c.warps_m * c.warps_n;
  if (!planes_are_runs(p) || c.bm % 64 != 0 || threads % (c.bm / 8) != 0) return 0;
  for (int lanes : {8, 4}) {
    if (pixel_accesses_tile(p, lanes)) return lanes;
  }
  return 0;
}

// Whether the re-layout kernel reads x's tiles as whole-plane runs of `vec`-value accesses
// (its kPlaneRuns): packed planes that one pixel tile of a `channels`-channel tile covers,
// the runs' starts and lengths multiples of the access.
bool relayout_reads_plane_runs(const Problem& p, int channels, int vec) {
  const std::int64_t plane = static_cast<std::int64_t>(p.h) * p.w;
  return planes_are_runs(p) && p.x_strides[1] == plane && plane <= hf::kPackTileElements / channels &&
         (channels * plane) % vec == 0 && (p.c * plane) % vec == 0 && stride_if(p.n, p.x_strides[0]) % vec == 0;
}

// The re-layout's register-transpose width: the most values along the pixels (16 bytes' worth,
// or half that) that one access reads, for planes in runs that the width tiles within an image
// and a channel; 0 where no access of 8 bytes or more fits (the shared-memory tile then moves x).
int relayout_block_lanes(const Problem& p) {
  if (!planes_are_runs(p)) return 0;
  const int widest = static_cast<int>(16 / p.elem_bytes());
  for (int lanes : {widest, widest / 2}) {
    if (lanes * p.elem_bytes() < 8) break;
    if (pixel_accesses_tile(p, lanes)) return lanes;
  }
  return 0;
}

bool is_nvidia_arch(const std::string& arch) { return arch.rfind("sm_", 0) == 0; }

int sm_version(const std::string& arch) {
  if (!is_nvidia_arch(arch)) return 0;
  int v = 0;
  for (std::size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i) v = v * 10 + (arch[i] - '0');
  return v;
}

// The registers a thread of a wgmma tile needs: a m64nBN multiply holds BN / 2 accumulators a
// thread at once, beside its descriptors, addresses and barriers. Under less, ptxas cannot
// compile it (wg128x128p on NCHW 1x1 with 16-bit staging: 2 blocks of 384 threads, 80
// registers a thread, "insufficient registers" for a wgmma).
int warpgroup_registers(const Candidate& c) { return c.bn / 2 + 48; }

// A loader warpgroup of cp.async copies (a warp-specialised tile whose A comes by no tensor map)
// runs under the block's register cap too: at 80 registers a thread its pixel copies spill
// (NCHW 1x1 64->256 on wg128x64p/ws+s16, three blocks of 256 threads: 876 bytes of spill
// stores, ptxas sm_90a; with them 230 us against the heuristic tile's 52.8 on an H100,
// docs/PERF_NOTES.md v43), none at two blocks' 128 (98 used); receptive fields need about 120.
constexpr int kCopyLoaderRegisters = 120;

// The registers a thread of the tile needs (0: no floor beyond the register cap's).
int registers_needed(const Candidate& c, const Config& cfg) {
  const int multiply = c.warpgroup ? warpgroup_registers(c) : 0;
  return cfg.warp_specialized && !cfg.tma_a ? std::max(multiply, kCopyLoaderRegisters) : multiply;
}

// Blocks of a tile resident on one multiprocessor: its register cap, or fewer where shared
// memory allows fewer (228 KB per SM, 1 KB of it reserved per block), or where the registers a
// thread would get (65536 a multiprocessor, in steps of 8) fall short of registers_needed.
int resident_blocks(const Candidate& c, const Config& cfg) {
  const int by_smem = std::max(1, kSharedPerSm / (cfg.shared_bytes + kSharedReservedPerBlock));
  int blocks = std::min(c.min_blocks, by_smem);
  while (blocks > 1 && (65536 / (cfg.threads * blocks)) / 8 * 8 < registers_needed(c, cfg)) --blocks;
  return blocks;
}

// Config::one_even_wave for a matrix tile's grid: the resident count, or one block a
// multiprocessor at most.
bool one_even_wave(const Config& cfg, const Candidate& c, int sms) {
  const std::int64_t blocks = cfg.grid_x * cfg.grid_y, resident = resident_blocks(c, cfg);
  return blocks == std::int64_t{sms} * resident || (resident == 1 && blocks <= sms);
}

// K-tiles of the matrix kernel's GEMM (BK = k_chunks 16-byte chunks).
std::int64_t k_tiles(const Problem& p, const Candidate& c) {
  return ceil_div(p.gemm_k(), block_k(p, c.k_chunks));
}

constexpr int kLoaderThreads = 128;  // the loader warpgroup of a warp-specialised tile

// Turns warp specialisation on in `cfg`: the loader threads (a warpgroup; one warp when both
// operands come by tensor map), and an empty and a full mbarrier (8 bytes each) a stage past
// the pipeline and the staging. Tensor-map copies where the architecture has them and the
// operand is a plain matrix of 16-byte aligned rows (B first: A's only with B's).
// With `im2col`, A by an im2col map where a pixels x channels one does not apply.
void use_warp_specialization(Config& cfg, const Problem& p, bool tensor_maps, bool im2col) {
  cfg.warp_specialized = true;
  cfg.tma_b = tensor_maps && weights_row_stride(p, cfg) > 0;
  const bool matrix_a = cfg.tma_b && input_row_stride(p, cfg) > 0;
  cfg.tma_a_im2col = cfg.tma_b && !matrix_a && im2col && im2col_fits(p, cfg);
  cfg.tma_a = matrix_a || cfg.tma_a_im2col;
  cfg.threads += cfg.tma_a ? 32 : kLoaderThreads;
  cfg.shared_bytes += 16 * cfg.tile.stages + 8;
}

// The kernel modes make_config can add to a tile (the caller checks that each applies).
struct Modes {
  bool stage_16bit = false;       // Config::stage_16bit (stage_16bit_fits): half the epilogue's staging
  bool warp_specialized = false;  // Config::warp_specialized (warp_specialization_fits)
  bool tensor_maps = false;       // with warp_specialized: tensor-map copies where the operands allow
  bool im2col = false;            // with tensor_maps: A by an im2col map where a matrix map does not apply
  bool tensor_store = false;      // with tensor_maps: Config::tma_store where it fits (make_config checks)
  int max_stages = 0;             // matrix tiles: at most this many pipeline stages (0: the tile's)
  bool multicast_a = false;       // Config::cluster_blocks = 2 where it applies (multicast_fits)
  bool transposed = false;        // Config::transposed where it applies (make_config checks)
};

// Whether A's k-tiles can be multicast across 2-block clusters (Config::cluster_blocks): a
// warp-specialised wgmma tile (never stream-K) whose A and B both come by plain 2-D tensor maps
// (a half box of BM / 2 rows a block, whole 8-row swizzle groups), an even number of channel
// tiles (the pair t, t + 1 of a row of tiles; a persistent block's every step even).
bool multicast_fits(const Config& cfg, const Problem& p) {
  const std::int64_t channel_tiles = ceil_div(p.k / p.groups, cfg.tile.bn);
  return cfg.kernel == Kernel::matrix && cfg.tile.warpgroup && cfg.warp_specialized && cfg.tma_a &&
         !cfg.tma_a_im2col && cfg.tma_b && cfg.tile.bm % 16 == 0 && channel_tiles % 2 == 0;
}

// Values of the weights' re-layout per thread when it rides along in the input's launch: few
// enough that its blocks finish within x's first wave.
constexpr std::int64_t kWeightValuesPerThread = 8;

// The input re-layout's grid without the weights' slices.
std::array<std::int64_t, 3> relayout_input_grid(const Problem& p, const Config& c) {
  if (c.fold.active()) {  // a thread a column (n, h, q) of the folded x
    return {ceil_div(static_cast<std::int64_t>(p.n) * p.h * p.q, hf::kPackThreads), 1, 1};
  }
  return {ceil_div(static_cast<std::int64_t>(p.h) * p.w, c.pack_tile_pixels), ceil_div(p.c, c.pack_tile_channels), p.n};
}

// Config::pack_weight_slices: enough slices of the input's grid (blocks of the folded one's)
// for kWeightValuesPerThread values a thread, or 0 where the grid has no room for them.
int weight_slices(const Problem& p, const Config& c) {
  if (!c.pack_input || !c.pack_weights) return 0;
  const bool folded = c.fold.active();
  // The weights' values: a filter row of fold.channels values (the width folded in) per
  // output channel, else Cg * R * S.
  const std::int64_t per_output_channel = folded ? std::int64_t{c.fold.channels} * p.r
                                                 : std::int64_t{p.c / p.groups} * p.r * p.s;
  const std::int64_t values = p.k * per_output_channel;
  // A slice: a block of the folded 1-D grid, else a z slice of grid x * y blocks.
  const auto grid = relayout_input_grid(p, c);
  const std::int64_t slice_blocks = folded ? 1 : grid[0] * grid[1];
  const std::int64_t slices = ceil_div(values, slice_blocks * hf::kPackThreads * kWeightValuesPerThread);
  const bool fits = folded ? grid[0] + slices <= kMaxGridX : grid[2] + slices <= kMaxGridZ;
  return fits ? static_cast<int>(slices) : 0;
}

Config make_config(const Problem& p, const Candidate& c, int sms, const Modes& modes = {}) {
  Config cfg;
  cfg.kernel = c.kernel;
  cfg.tile = {c.bm, c.bn, c.warps_m, c.warps_n, c.stages, c.min_blocks, c.k_chunks, c.persistent, c.warpgroup};
  const bool matrix = c.kernel == Kernel::matrix;
  if (matrix) {
    // More stages than k-tiles + 1 only take shared memory (and resident blocks): with
    // Stages - 1 >= k-tiles every tile is in flight after the prologue. A single k-tile
    // needs a single stage (the kernel then loads, waits and computes).
    const std::int64_t ktiles = k_tiles(p, c);
    const std::int64_t useful = ktiles + (c.warpgroup ? 2 : 1);  // wgmma keeps one stage more in use
    cfg.tile.stages = ktiles <= 1 ? 1 : static_cast<int>(std::min<std::int64_t>(c.stages, useful));
    // Fewer stages (Modes::max_stages), down to double buffering: two for warp-specialised
    // tiles, whose loaders wait on each stage's mbarrier; three for the other wgmma tiles, whose
    // previous k-tile's multiplies may still read a stage while the next one loads.
    if (modes.max_stages > 0 && ktiles > 1) {
      const int fewest = c.warpgroup && !modes.warp_specialized ? 3 : 2;
      cfg.tile.stages = std::max(std::min(cfg.tile.stages, modes.max_stages), std::min(fewest, cfg.tile.stages));
    }
  }
  const int vec = matrix ? static_cast<int>(16 / p.elem_bytes()) : 4;
  const std::int64_t cg = p.c / p.groups, ng = p.k / p.groups;

  const std::array<std::int64_t, 4> xlen{p.n, p.c, p.h, p.w};
  const std::array<std::int64_t, 4> wlen{p.k, cg, p.r, p.s};
  const std::array<std::int64_t, 4> ylen{p.n, p.k, p.p, p.q};
  // The matrix kernel's cp.async path cannot transform values on the way: a prologue
  // goes through registers (the SIMT loaders always do), where it is evaluated R*S times
  // per x value and loses the 16-byte loads. So filters larger than 1x1 re-lay x out first,
  // the prologue applied once on the way, when x is not in vectors along C (NCHW) or the
  // matrix kernel has a prologue (specs/examples/preact.toml, fp16 NHWC BN+ReLU+conv 3x3:
  // fused 88.4 us against 23.0 unfused with the register path, docs/PERF_NOTES.md).
  const bool x_vec = vectors_along_c(p.x_strides, xlen, cg, vec);
  const std::int64_t x_bytes = static_cast<std::int64_t>(p.n) * p.c * p.h * p.w * static_cast<std::int64_t>(p.elem_bytes());
  const bool packable = cg % vec == 0 && x_bytes <= kMaxPackedInputBytes && p.n <= 65535 && ceil_div(p.c, 32) <= 65535;
  // Up to 64 channels a tile; fewer for narrow layers, with more pixels (8 or 16 channels
  // still move 4096 elements a block).
  const int pack_channels = p.c > 32 ? 64 : p.c > 16 ? 32 : p.c > 8 ? 16 : 8;
  const int lanes = x_vec ? 0 : pixel_lanes(p, c);  // NCHW 1x1: A copied along the pixels
  // Filters > 1x1; and NCHW 1x1 layers whose A no pixel copy can read, with planes small
  // enough for the re-layout to read whole-plane runs, and at least twice as many input as
  // output channels (x at least twice y, so that x's extra pass costs less than gathering it):
  // H200, fp16 1x1 2048->512 7x7, gathered 51.3 us, re-laid out 39.1 (docs/PERF_NOTES.md v10).
  const bool small_plane_1x1 = matrix && p.elem != Elem::f32 && !x_vec && !p.has_prologue && p.r * p.s == 1 &&
                               lanes == 0 && p.c >= 2 * p.k && relayout_reads_plane_runs(p, pack_channels, vec);
  cfg.pack_input = packable && (((!x_vec || (matrix && p.has_prologue)) && p.r * p.s > 1) || small_plane_1x1);
  if (cfg.pack_input) {
    // Register blocks of 16 bytes of channels x pixel_lanes pixels, 8 x 32 of them a block
    // (the kernel's warp of 8 x 4 blocks, eight warps along the pixels); else the shared-memory tile.
    cfg.pack_block_lanes = relayout_block_lanes(p);
    const int channel_lanes = static_cast<int>(16 / p.elem_bytes());
    cfg.pack_tile_channels = cfg.pack_block_lanes > 0 ? 8 * channel_lanes : pack_channels;
    cfg.pack_tile_pixels = cfg.pack_block_lanes > 0 ? 32 * cfg.pack_block_lanes : hf::kPackTileElements / pack_channels;
  }
  const bool a_vec = (x_vec && !(matrix && p.has_prologue)) || cfg.pack_input;
  cfg.a_loader = a_vec ? Loader::async16 : lanes > 0 ? Loader::pixels : Loader::gather;
  if (cfg.a_loader == Loader::pixels) cfg.a_pixel_lanes = lanes;
  const bool w_vec = vectors_along_c(p.w_strides, wlen, cg, vec);
  cfg.pack_weights = !w_vec && cg % vec == 0;
  cfg.b_loader = w_vec || cfg.pack_weights ? Loader::async16 : Loader::gather;

  // Output vectors: along channels when they are contiguous, else along pixels when those are.
  const auto& ys = p.y_strides;
  int vec_k = 0, vec_m = 0;
  if (stride_if(ylen[1], ys[1]) <= 1) {
    vec_k = std::min({pow2_divisor(ng, vec), pow2_divisor(stride_if(p.n, ys[0]), vec),
                      pow2_divisor(stride_if(p.p, ys[2]), vec), pow2_divisor(stride_if(p.q, ys[3]), vec)});
  }
  if (stride_if(p.q, ys[3]) <= 1 && (p.p == 1 || ys[2] == p.q)) {
    vec_m = std::min({pow2_divisor(static_cast<std::int64_t>(p.p) * p.q, vec), pow2_divisor(stride_if(p.n, ys[0]), vec),
                      pow2_divisor(stride_if(p.k, ys[1]), vec)});
  }
  if (!matrix) {  // the SIMT epilogue stores 4 or 1
    vec_k = vec_k == 4 ? 4 : (vec_k > 0 ? 1 : 0);
    vec_m = vec_m == 4 ? 4 : (vec_m > 0 ? 1 : 0);
  }
  if (vec_k >= vec_m && vec_k > 0) {
    cfg.out_along_k = true;
    cfg.out_vec = vec_k;
  } else if (vec_m > 0) {
    cfg.out_along_k = false;
    cfg.out_vec = vec_m;
  } else {
    cfg.out_along_k = true;
    cfg.out_vec = 1;
  }

  cfg.threads = matrix ? 32 * c.warps_m * c.warps_n : (c.bm / 8) * (c.bn / 8);
  // An output tile's output channels and pixels: bn x bm when the GEMM is transposed.
  const int tile_channels = modes.transposed ? c.bm : c.bn, tile_pixels = modes.transposed ? c.bn : c.bm;
  if (matrix) {
    // Persistent and warp-specialised: the loaders run on into the next tile's k-tiles while
    // the multiplying warps store this one, so a single k-tile gets a second stage.
    if (modes.warp_specialized && c.persistent) cfg.tile.stages = std::max(cfg.tile.stages, 2);
    const int pipe = cfg.tile.stages * (c.bm + c.bn) * 16 * c.k_chunks;
    cfg.stage_16bit = modes.stage_16bit;
    // The tensor-map store (Config::tma_store): the persistent warp-specialised wgmma tiles
    // with 16-bit staging, 16-byte vectors along channels and 64-channel boxes, y a matrix.
    const bool tensor_store = modes.tensor_store && modes.tensor_maps && modes.warp_specialized &&
                              modes.stage_16bit && c.persistent && c.warpgroup &&
                              tile_channels % hf::kStoreBoxChannels == 0 &&
                              cfg.out_along_k && cfg.out_vec == vec && output_row_stride(p) > 0;
    const int staged_bytes = modes.stage_16bit ? 2 : 4;
    // The kernel's staging (kStageLd), of a tile's pixels and channels: [pixels][channels + 8]
    // along channels; [channels][pixels + 4] fp32 or [channels][pixels + 8] 16-bit values along
    // the pixels; for the tensor-map store, channels / 64 boxes of a row of 64 values (128 bytes,
    // swizzled as the map's boxes are: no pad) a pixel.
    const int epi = tensor_store     ? c.bm * c.bn * staged_bytes
                    : cfg.out_along_k ? tile_pixels * (tile_channels + 8) * staged_bytes
                                      : tile_channels * (tile_pixels + (modes.stage_16bit ? 8 : 4)) *
                                            staged_bytes;
    cfg.shared_bytes = c.persistent ? pipe + epi : std::max(pipe, epi);
    // 16-bit staging: the tile's channels' epilogue parameters (prepared where a block's channels change), past both.
    if (modes.stage_16bit) cfg.shared_bytes += tile_channels * hf::kEpilogueChannelBytes;
    if (c.warpgroup) cfg.shared_bytes += 1024;  // slack to align the stages to 1024 bytes (wgmma swizzle)
    if (modes.warp_specialized) use_warp_specialization(cfg, p, modes.tensor_maps, modes.im2col);
    cfg.tma_store = tensor_store;
    if (c.fit_blocks) cfg.tile.min_blocks = resident_blocks(c, cfg);
  } else {
    cfg.shared_bytes = 0;  // static: 2 x 8 x (BM + 4 + BN + 4) floats
  }
  cfg.tiles = ceil_div(p.gemm_m(), tile_pixels) * ceil_div(ng, tile_channels);
  cfg.grid_x = cfg.tiles;
  // Persistent: the resident blocks (min_blocks per SM, or fewer where shared memory allows
  // fewer: 228 KB per SM, 1 KB of it reserved per block), shared among the groups. A block
  // that is not resident at the start would run its whole share after the others.
  if (matrix && c.persistent) {
    const std::int64_t resident = std::int64_t{sms} * resident_blocks(c, cfg);
    cfg.grid_x = std::min(cfg.grid_x, std::max<std::int64_t>(1, resident / p.groups));
  }
  if (modes.multicast_a && !modes.transposed && multicast_fits(cfg, p)) {
    cfg.cluster_blocks = 2;
    cfg.grid_x = std::max<std::int64_t>(2, cfg.grid_x / 2 * 2);  // whole clusters (tiles are even)
  }
  cfg.grid_y = p.groups;
  if (matrix) cfg.one_even_wave = one_even_wave(cfg, c, sms);
  cfg.pack_weight_slices = weight_slices(p, cfg);
  if (modes.transposed) {
    // Where it does not fit, the tile as it is: x (a matrix, or im2col windows) and the weights
    // must go by tensor maps, y through 16-bit staging.
    const bool fits = matrix && c.warpgroup && c.persistent && cfg.warp_specialized && cfg.tma_a && cfg.tma_b &&
                      cfg.stage_16bit;
    if (!fits) {
      Modes plain = modes;
      plain.transposed = false;
      return make_config(p, c, sms, plain);
    }
    cfg.transposed = true;
  }
  return cfg;
}

std::int64_t tile_count(const Problem& p, const Candidate& c) {
  return ceil_div(p.gemm_m(), c.bm) * ceil_div(p.gemm_n(), c.bn) * p.groups;
}

// The candidate of least cost among those offered, the first of near-equal ones (a later one
// must be 0.1% cheaper to replace it).
struct Cheapest {
  const Candidate* best = nullptr;
  double cost = 0;
  void offer(const Candidate* c, double c_cost) {
    if (best == nullptr || c_cost < cost * 0.999) {
      best = c;
      cost = c_cost;
    }
  }
};

// One tile's work, in arbitrary units: its multiply-adds over its efficiency, plus the
// register gathers of a gathered A on the matrix kernel, times GEMM K padded to whole
// k-tiles. (The SIMT kernel's FMAs dominate its gathers: sweep, fp32 NCHW 1x1, 128x64 223 us
// vs 128x128 237.)
double tile_work(const Problem& p, const Candidate& c, const Config& cfg) {
  const int bk = block_k(p, c.k_chunks);
  const double k = static_cast<double>(ceil_div(p.gemm_k(), bk) * bk);
  const bool gathered = c.kernel == Kernel::matrix && cfg.a_loader == Loader::gather;
  return k * (c.bm * c.bn / c.efficiency + (gathered ? kGatherCost * c.bm : 0.0));
}

// Whether A goes through registers with heavy work per value there: a prologue evaluated in
// the loader, or a per-element decode for C/G not a multiple of the vector.
bool heavy_register_gather(const Problem& p, const Candidate& c, const Config& cfg) {
  const int vec = c.kernel == Kernel::matrix ? static_cast<int>(16 / p.elem_bytes()) : 4;
  return cfg.a_loader == Loader::gather && (p.has_prologue || (p.c / p.groups) % vec != 0);
}

// Estimated time of a tile, in arbitrary units: the busiest multiprocessor's share of the
// tiles (tiles are spread evenly, blocks resident together share its throughput) times the
// tile's work. Padding in M, N and K counts as work.
double estimate(const Problem& p, const Candidate& c, int sms) {
  return static_cast<double>(ceil_div(tile_count(p, c), sms)) * tile_work(p, c, make_config(p, c, sms));
}

// Estimated time of a tile counted in whole waves: the waves of `resident` blocks per SM, each
// taking `resident` tiles' work on one multiprocessor. Big tiles lose where they leave SMs
// idle (3x3 512->512 7x7: 128x256 makes 50 blocks for 132 SMs).
double estimate_waves(const Problem& p, const Candidate& c, int sms) {
  const Config cfg = make_config(p, c, sms);
  const int resident = resident_blocks(c, cfg);
  const std::int64_t waves = ceil_div(tile_count(p, c), std::int64_t{sms} * resident);
  return static_cast<double>(waves * resident) * tile_work(p, c, cfg);
}

// Tile `c` with `bn` output channels, its throughput the table's moved by 0.2 a doubling of the
// width (as the table's wg128x64 1.8, wg128x128 2.0 and wg128x256 2.2).
Candidate with_width(const Candidate& c, int bn) {
  Candidate w = c;
  w.bn = bn;
  w.efficiency = c.efficiency + 0.2 * std::log2(static_cast<double>(bn) / c.bn);
  return w;
}

// The most pipeline stages, at most the tile's, whose shared memory a block of `c` under
// `modes` can have (228 KB a multiprocessor less 1 KB reserved); 0 where two do not fit.
int stages_that_fit(const Problem& p, const Candidate& c, int sms, Modes modes) {
  for (int stages = c.stages; stages >= 2; --stages) {
    modes.max_stages = stages;
    if (make_config(p, c, sms, modes).shared_bytes <= kSharedPerSm - kSharedReservedPerBlock) return stages;
  }
  return 0;
}

// The channel width of least estimated time over whole waves for the persistent 128-row wgmma
// tile `c` under `modes` (kFittedWidthGain), or c.bn.
int fitted_width(const Problem& p, const Candidate& c, int sms, const Modes& modes) {
  const double table_cost = estimate_waves(p, c, sms);
  int best = c.bn;
  double best_cost = table_cost * kFittedWidthGain;
  for (int bn = kFittedWidthMin; bn <= kFittedWidthMax; bn += kFittedWidthStep) {
    const Candidate w = with_width(c, bn);
    if (stages_that_fit(p, w, sms, modes) == 0) continue;
    const double cost = estimate_waves(p, w, sms);
    if (cost < best_cost) {
      best = bn;
      best_cost = cost;
    }
  }
  return best;
}

// The pixel width (wgmma's n, a multiple of 16 from 64 to 256) of least estimated time over
// whole waves for tile `c` transposed under `modes` (as many stages as fit, kTransposedStages at
// most), or c.bn where the transposed GEMM does not fit. (1x1 2048->512 7x7 at batch 64: 4
// channel tiles x 33 of 96 pixels = 132 tiles.)
int transposed_width(const Problem& p, const Candidate& c, int sms, const Modes& modes) {
  int best = c.bn;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int bn = kForcedWidthMin; bn <= kFittedWidthMax; bn += kFittedWidthStep) {
    Candidate w = with_width(c, bn);
    w.stages = kTransposedStages;
    Modes deep = modes;
    const int stages = stages_that_fit(p, w, sms, modes);
    if (stages == 0) continue;
    if (deep.max_stages == 0 || stages < deep.max_stages) deep.max_stages = stages;
    const Config cfg = make_config(p, w, sms, deep);
    if (!cfg.transposed) return c.bn;
    const int resident = resident_blocks(w, cfg);
    const std::int64_t waves = ceil_div(cfg.tiles * p.groups, std::int64_t{sms} * resident);
    const double cost = static_cast<double>(waves * resident) * tile_work(p, w, cfg);
    if (cost < best_cost * 0.999) {
      best = bn;
      best_cost = cost;
    }
  }
  return best;
}

// Whether the heuristic takes the transposed GEMM (kTransposedTile's comment: as measured):
// fp16 / bf16 layers of one group, channels-last x (NCHW x's re-layout, streamed into the
// GEMM's first tiles without it, not measured with it) without a prologue, and at least a wave
// of 128x128 outputs; 1x1 of wide C and K, or wider filters of narrow C and K.
bool transposed_pays(const Problem& p, int sms) {
  if (p.elem == Elem::f32 || p.groups != 1 || p.has_prologue || p.x_strides[1] != 1) return false;
  if (p.gemm_m() * p.gemm_n() < std::int64_t{sms} * 128 * 128) return false;
  if (p.r == 1 && p.s == 1) return p.c >= kTransposedMinChannels1x1 && p.k >= kTransposedMinChannels1x1;
  return p.c <= kTransposedMaxChannelsWindow && p.k <= kTransposedMaxChannelsWindow;
}

// Turns stream-K on in `cfg` (tile c): the resident blocks, at most one per k-tile.
void use_stream_k(Config& cfg, const Problem& p, const Candidate& c, int sms) {
  const std::int64_t units = cfg.tiles * k_tiles(p, c);
  cfg.stream_k_blocks = static_cast<int>(std::min<std::int64_t>(std::int64_t{sms} * resident_blocks(c, cfg), units));
  cfg.grid_x = cfg.stream_k_blocks;
  cfg.one_even_wave = one_even_wave(cfg, c, sms);
}

// Whether stream-K can run `cfg`: a pipelined, non-persistent matrix tile of one group.
bool stream_k_fits(const Config& cfg, const Candidate& c) {
  return c.kernel == Kernel::matrix && !c.persistent && cfg.tile.stages > 1 && cfg.grid_y == 1;
}

// Whether `cfg` can be warp-specialised: a wgmma tile (persistent or not) whose loaders are all
// asynchronous copies (a register-staged loader would stall the loader warps on every load),
// the MN-major A's pixel chunks dividing among the 128 loader threads; not with stream-K.
bool warp_specialization_fits(const Config& cfg, const Candidate& c) {
  return c.warpgroup && cfg.stream_k_blocks == 0 &&
         cfg.a_loader != Loader::gather && cfg.b_loader == Loader::async16 &&
         (cfg.a_loader != Loader::pixels || kLoaderThreads % (c.bm / 8) == 0);
}

// Whether `cfg`'s epilogue can stage 16-bit values (Config::stage_16bit): a matrix tile whose
// y is fp16 / bf16, with an even channel count per group, so that a thread's accumulator pairs
// (two adjacent channels, prepared and checked together) are both in the group or both past
// it: y in vectors of 2 or more along the channels, or any vectors along the pixels.
bool stage_16bit_fits(const Problem& p, const Config& cfg) {
  if (cfg.kernel != Kernel::matrix || p.elem == Elem::f32) return false;
  return cfg.out_along_k ? cfg.out_vec >= 2 : p.gemm_n() % 2 == 0;
}

// Whether the heuristic's wgmma tile `c` runs warp-specialised (it must fit too): as the H200
// sweep v12 measured on the ResNet-50 wgmma layers (fp16, batch 64; docs/PERF_NOTES.md), with
// the weights (and a 1x1's channels-last A) moved by tensor map: 192x128, 128x128 and 256x128
// 1-20% faster on every layer; 128x256 faster only with A along the pixels (NCHW 1x1, 2-11%),
// 1-3% slower on channels-last 1x1 layers and up to 27% on 3x3 ones; 64x128 not measured.
bool is_128x256(const Candidate& c) { return c.bm == 128 && c.bn == 256; }
bool warp_specialization_pays(const Candidate& c, const Config& cfg) {
  if (is_128x256(c)) return cfg.a_loader == Loader::pixels;
  return c.bm >= 128 && c.bn == 128;
}

// The wgmma tile of least estimate_waves; the 128-accumulator ones are left out under a heavy
// register-staged A loader (a prologue, or per-element decodes), as for mma.sync below, and
// with both at once none is taken (nullptr: mma.sync's 64x64 then).
const Candidate* cheapest_warpgroup_tile(const Problem& p, int sms) {
  const bool odd_c = (p.c / p.groups) % static_cast<int>(16 / p.elem_bytes()) != 0;
  if (p.has_prologue && odd_c) return nullptr;
  Cheapest cheapest;
  for (const auto& c : kWarpgroupTiles) {
    const Config cfg = make_config(p, c, sms);
    if (heavy_register_gather(p, c, cfg) && c.bm * c.bn > 128 * 128) continue;
    // A copied along the pixels: 128x256, warp-specialised (below), the fastest or within 4% of
    // it on the four such layers of the H200 sweep v12 (fp16 NCHW 1x1 1024->256 14x14: 25.7 us,
    // wg192x128 34.0, which warp specialisation does not fit; 1024->512: 45.5, 128x128 51.2).
    if (cfg.a_loader == Loader::pixels && !is_128x256(c)) continue;
    cheapest.offer(&c, estimate_waves(p, c, sms));
  }
  return cheapest.best;
}

}  // namespace

// The weights (packed, or as given) as rows of GEMM K contiguous values, one per output
// channel, 16-byte aligned (the kernel's kLinearK): their distance, else 0.
std::int64_t weights_row_stride(const Problem& p, const Config& cfg) {
  if (cfg.b_loader != Loader::async16) return 0;
  const std::int64_t cg = p.c / p.groups;
  const auto& ws = p.w_strides;
  const std::int64_t row = cfg.pack_weights ? p.gemm_k() : ws[0];
  const bool linear = cfg.pack_weights || ((cg == 1 || ws[1] == 1) && (p.s == 1 || ws[3] == cg) &&
                                           (p.r == 1 || ws[2] == static_cast<std::int64_t>(p.s) * cg));
  return linear && (row * static_cast<std::int64_t>(p.elem_bytes())) % 16 == 0 ? row : 0;
}

// The distance between x's pixels as the GEMM reads x (copied as given, or re-laid out as
// packed NHWC), when A's k-tiles are boxes of a pixels x channels matrix: a 1x1, stride-1,
// unpadded convolution on channels-last x, the pixels evenly spaced 16-byte aligned rows, no
// k-tile straddling two groups; 0 otherwise.
std::int64_t input_row_stride(const Problem& p, const Config& cfg) {
  if (cfg.a_loader != Loader::async16 || !plain_1x1(p)) return 0;
  const auto& xs = p.x_strides;
  const int bk = block_k(p, cfg.tile.k_chunks);
  const std::int64_t pixel = cfg.pack_input ? p.c : xs[3];
  const bool evenly_spaced = cfg.pack_input || (xs[1] == 1 && (p.h == 1 || xs[2] == p.w * pixel) &&
                                                (p.n == 1 || xs[0] == std::int64_t{p.h} * p.w * pixel));
  const bool ok = evenly_spaced && (pixel * static_cast<std::int64_t>(p.elem_bytes())) % 16 == 0 &&
                  (p.groups == 1 || (p.c / p.groups) % bk == 0);
  return ok ? pixel : 0;
}

std::int64_t output_row_stride(const Problem& p) {
  const auto& ys = p.y_strides;
  const std::int64_t pixel = ys[3];
  const bool matrix = p.groups == 1 && (p.k == 1 || ys[1] == 1) && pixel >= p.k &&
                      (p.p == 1 || ys[2] == std::int64_t{p.q} * pixel) &&
                      (p.n == 1 || ys[0] == std::int64_t{p.p} * p.q * pixel);
  const bool rows_fit = p.gemm_m() <= std::numeric_limits<std::int32_t>::max();  // the copies' 32-bit coordinates
  return matrix && rows_fit && (pixel * static_cast<std::int64_t>(p.elem_bytes())) % 16 == 0 ? pixel : 0;
}

std::array<std::int64_t, 3> input_pixel_strides(const Problem& p, const Config& cfg) {
  if (cfg.pack_input) {  // re-laid out as packed NHWC
    return {std::int64_t{p.h} * p.w * p.c, std::int64_t{p.w} * p.c, p.c};
  }
  return {p.x_strides[0], p.x_strides[2], p.x_strides[3]};
}

WindowCorners window_corners(const Problem& p) {
  return {-p.pad_w, -p.pad_h, std::int64_t{p.q - 1} * p.stride_w - p.pad_w - (p.w - 1),
          std::int64_t{p.p - 1} * p.stride_h - p.pad_h - (p.h - 1)};
}

bool im2col_fits(const Problem& p, const Config& cfg) {
  if (cfg.a_loader != Loader::async16 || cfg.kernel != Kernel::matrix) return false;
  if (!cfg.pack_input && p.c > 1 && p.x_strides[1] != 1) return false;  // channels dense
  const int bk = block_k(p, cfg.tile.k_chunks);
  if ((p.c / p.groups) % bk != 0) return false;  // each k-tile one filter tap of one group
  const std::int64_t elem = p.elem_bytes();
  for (std::int64_t s : input_pixel_strides(p, cfg)) {
    if (s <= 0 || (s * elem) % 16 != 0 || s * elem >= (std::int64_t{1} << 40)) return false;
  }
  // A 4-D map keeps both corners in [-128, 127] and element strides <= 8.
  const auto in_range = [](std::int64_t v) { return v >= -128 && v <= 127; };
  const WindowCorners wc = window_corners(p);
  if (!in_range(wc.lower_w) || !in_range(wc.lower_h) || !in_range(wc.upper_w) || !in_range(wc.upper_h)) return false;
  if (p.stride_h > 8 || p.stride_w > 8) return false;
  // Filter offsets: kept to the 8 bits a 4-D map's corners have. (The map's dims, x's lengths,
  // are ints: within its 32 bits.)
  if (std::int64_t{p.r - 1} * p.dil_h > 255 || std::int64_t{p.s - 1} * p.dil_w > 255) return false;
  return cfg.tile.bm <= 256;
}

int block_k(const Problem& p, int k_chunks) { return 16 * k_chunks / static_cast<int>(p.elem_bytes()); }

std::array<std::int64_t, 4> nchw_strides(int n, int c, int h, int w) {
  (void)n;
  return {static_cast<std::int64_t>(c) * h * w, static_cast<std::int64_t>(h) * w, w, 1};
}

namespace {

// The first candidate of `lists`, searched in order, for which `pred` holds, or nullptr.
template <class Pred, class... Lists>
const Candidate* first_tile_of(Pred pred, const Lists&... lists) {
  const Candidate* found = nullptr;
  const auto search = [&](const auto& list) {
    for (const Candidate& c : list) {
      if (found == nullptr && pred(c)) found = &c;
    }
  };
  (search(lists), ...);
  return found;
}

// The first matrix tile (BK 32 ones, then BK 64, warpgroup, persistent) for which `pred` holds, or nullptr.
template <class Pred>
const Candidate* first_matrix_tile(Pred pred) {
  return first_tile_of(pred, kMatrixTiles, kK64Tiles, kWarpgroupTiles, kPersistentTiles);
}

// The first SIMT tile (BK 8 ones, then BK 16) for which `pred` holds, or nullptr.
template <class Pred>
const Candidate* first_simt_tile(Pred pred) {
  return first_tile_of(pred, kSimtTiles, kSimtK16Tiles);
}

}  // namespace

std::array<std::int64_t, 4> nhwc_strides(int n, int c, int h, int w) {
  (void)n;
  return {static_cast<std::int64_t>(h) * w * c, 1, static_cast<std::int64_t>(w) * c, c};
}

const char* Tile::name() const {
  const auto same = [this](const Candidate& c, bool any_width) {
    return c.bm == bm && (c.bn == bn || any_width) && c.warps_m == warps_m && c.warps_n == warps_n &&
           c.k_chunks == k_chunks && c.persistent == persistent && c.warpgroup == warpgroup && warps_m > 0;
  };
  const Candidate* matrix = first_matrix_tile([&](const Candidate& c) { return same(c, false); });
  // A wgmma tile of another width ("/n<N>", or fitted to the waves): the table's tile it came from.
  if (matrix == nullptr && warpgroup) matrix = first_matrix_tile([&](const Candidate& c) { return same(c, true); });
  if (matrix != nullptr) return matrix->name;
  const Candidate* simt = first_simt_tile([this](const Candidate& c) {
    return c.bm == bm && c.bn == bn && c.k_chunks == k_chunks && warps_m == 0;
  });
  return simt != nullptr ? simt->name : "custom";
}

std::string Config::describe() const {
  std::string s = kernel == Kernel::matrix ? "matrix " : "simt ";
  s += std::to_string(tile.bm) + "x" + std::to_string(tile.bn);
  if (kernel == Kernel::simt && tile.k_chunks != 2) s += " bk" + std::to_string(4 * tile.k_chunks);
  if (kernel == Kernel::matrix) {
    s += " w" + std::to_string(tile.warps_m) + "x" + std::to_string(tile.warps_n) + " s" + std::to_string(tile.stages);
    if (tile.k_chunks != 4) s += " k" + std::to_string(tile.k_chunks * 16) + "B";
    if (tile.persistent) s += " persistent";
    if (tile.warpgroup) s += " wgmma";
    if (stream_k_blocks > 0) s += " stream-k" + std::to_string(stream_k_blocks);
    if (warp_specialized) s += tma_a_im2col ? " ws tma:AB im2col" : tma_a ? " ws tma:AB" : tma_b ? " ws tma:B" : " ws";
    if (stage_16bit) s += " s16";
    if (tma_store) s += " tma:y";
    if (cluster_blocks > 1) s += " mc" + std::to_string(cluster_blocks);
    if (transposed) s += " transposed";
  }
  const auto loader = [](Loader l, int lanes) {
    if (l == Loader::pixels) return "pixels" + std::to_string(lanes);
    return std::string(l == Loader::async16 ? "vec" : "gather");
  };
  s += " A:" + loader(a_loader, a_pixel_lanes) + (fold.active() ? "(folded)" : pack_input ? "(packed)" : "") +
       " B:" + loader(b_loader, 0) +
       (pack_weights ? (pack_weight_slices > 0 ? "(packed with x)" : "(packed)") : "") +
       (stream_input ? " streamed" : "") +
       " out:" + (out_along_k ? "k" : "m") + std::to_string(out_vec);
  if (index64) s += " i64";
  return s;
}

bool has_warpgroup_mma(const std::string& arch) { return sm_version(arch) == 90; }

std::string why_not(const Problem& p, const std::string& arch) {
  if (p.groups < 1 || p.c % p.groups != 0 || p.k % p.groups != 0) return "channels do not divide into the groups";
  if (p.groups > 1 && (p.c / p.groups < 8 || p.k / p.groups < 8)) {
    return "grouped convolution with " + std::to_string(p.c / p.groups) + " input / " +
           std::to_string(p.k / p.groups) +
           " output channels per group is too narrow for a GEMM tile (the direct kernel suits it better)";
  }
  if (p.groups > kMaxGroups) return std::to_string(p.groups) + " groups exceed the grid's " + std::to_string(kMaxGroups);
  if (uses_matrix_units(p)) {
    if (!is_nvidia_arch(arch)) {
      return "the matrix-unit implicit GEMM runs on NVIDIA sm_80 or newer; on " + arch +
             " it would be emulated, slower than the direct kernel";
    }
    if (sm_version(arch) < 80) return "the matrix-unit implicit GEMM needs sm_80 or newer, the target is " + arch;
  }
  if (p.gemm_k() > std::numeric_limits<int>::max() / 2 || p.gemm_n() > std::numeric_limits<int>::max() / 2) {
    return "GEMM K or N too large for 32-bit tile indices";
  }
  const std::int64_t pixels = static_cast<std::int64_t>(p.h) * p.w;
  if (pixels > std::numeric_limits<int>::max() / 2 || static_cast<std::int64_t>(p.p) * p.q > std::numeric_limits<int>::max() / 2) {
    return "spatial size too large for 32-bit pixel indices";
  }
  return {};
}

namespace {

// The tile called `name` among the matrix tiles (BK 32, BK 64, persistent, and the warpgroup
// ones where `warpgroup` allows them) or the SIMT tiles; nullptr when there is none.
const Candidate* find_tile(const std::string& name, bool matrix, bool warpgroup = false) {
  if (!matrix) return first_simt_tile([&](const Candidate& c) { return name == c.name; });
  return first_matrix_tile([&](const Candidate& c) { return name == c.name && (warpgroup || !c.warpgroup); });
}

// simt128x64k16 in place of the heuristic's simt128x64 where it measured faster (kSimtK16Tiles):
// GEMM K of at least kSimtK16MinK and a BK 8 grid under one wave; `best` otherwise.
const Candidate* simt_k16_substitute(const Problem& p, const Candidate* best, int sms) {
  const bool pays = std::string(best->name) == "simt128x64" && p.gemm_k() >= kSimtK16MinK &&
                    tile_count(p, *best) < std::int64_t{kSimt128x64ResidentBlocks} * sms;
  return pays ? find_tile("simt128x64k16", false) : best;
}

// The cheapest of the tiles `names` (least estimated time over whole waves, a persistent
// tile's divided by kPersistentOverlap) that run warp-specialised with A by a tensor map:
// the im2col map (`im2col`), else the pixels x channels one. nullptr when none applies.
const Candidate* cheapest_mapped_tile(const Problem& p, int sms, const std::vector<const char*>& names, bool im2col) {
  Cheapest cheapest;
  for (const char* name : names) {
    const Candidate* c = find_tile(name, true, true);
    if (c == nullptr) continue;
    const Config plain = make_config(p, *c, sms);
    Modes maps;
    maps.warp_specialized = maps.tensor_maps = true;
    maps.im2col = im2col;
    if (!warp_specialization_fits(plain, *c)) continue;
    const Config mapped = make_config(p, *c, sms, maps);
    if (!(im2col ? mapped.tma_a_im2col : mapped.tma_a && !mapped.tma_a_im2col)) continue;
    cheapest.offer(c, estimate_waves(p, *c, sms) / (c->persistent ? kPersistentOverlap : 1.0));
  }
  return cheapest.best;
}

// The im2col tile (kIm2colTiles, kIm2colNarrowTile) for `p`, or nullptr where A's im2col map
// or the warp specialisation does not apply.
const Candidate* cheapest_im2col_tile(const Problem& p, int sms) {
  if (p.gemm_n() < 64) return nullptr;
  return cheapest_mapped_tile(p, sms,
                              p.gemm_n() >= kWarpgroupMinN
                                  ? std::vector<const char*>(std::begin(kIm2colTiles), std::end(kIm2colTiles))
                                  : std::vector<const char*>{kIm2colNarrowTile},
                              true);
}

}  // namespace

WidthFold width_fold_for(const Problem& p) {
  WidthFold fold;
  const int vec = static_cast<int>(16 / p.elem_bytes());
  if (!uses_matrix_units(p) || p.groups != 1 || p.s < 2 || p.c > 4 || p.c % vec == 0) return fold;
  // C' a power of two of at least a 32-byte sector: every filter row's run of x' starts a
  // sector, and the GEMM's k-tiles (32 or 64 bytes' values a row) hold whole runs or lie within
  // one, so that no sector is fetched twice. (H200, fp16 stem, C' = 24 rounded to 16 bytes:
  // the folded GEMM 144 us with L2 76% busy, a run split across k-tiles: v20.)
  std::int64_t channels = static_cast<std::int64_t>(32 / p.elem_bytes());
  while (channels < std::int64_t{p.s} * p.c) channels *= 2;
  // In double: n * h * q * C' can pass 2^63 for sizes the scratch limit refuses anyway.
  const double bytes = static_cast<double>(p.n) * p.h * p.q * static_cast<double>(channels) * static_cast<double>(p.elem_bytes());
  if (bytes > static_cast<double>(kMaxPackedInputBytes)) return fold;
  fold.s = p.s;
  fold.channels = static_cast<int>(channels);  // < 2^30: bounded by the bytes above
  fold.stride = p.stride_w;
  fold.pad = p.pad_w;
  fold.dilation = p.dil_w;
  return fold;
}

Problem folded(const Problem& p, const WidthFold& fold) {
  Problem f = p;
  f.c = fold.channels;
  f.s = 1;
  f.w = p.q;
  f.stride_w = 1;
  f.pad_w = 0;
  f.dil_w = 1;
  f.x_strides = nhwc_strides(p.n, f.c, p.h, f.w);
  f.w_strides = nhwc_strides(p.k, f.c, p.r, 1);
  f.has_prologue = false;  // applied by the re-layout
  return f;
}

std::array<std::int64_t, 3> relayout_grid(const Problem& p, const Config& c) {
  auto grid = relayout_input_grid(p, c);
  grid[c.fold.active() ? 0 : 2] += c.pack_weight_slices;
  return grid;
}

namespace {

// Where the streamed re-layout pays (H200, fp16 / bf16 NCHW, batch 64, docs/PERF_NOTES.md
// v23): it has a block a multiprocessor (its registers beside the GEMM's), too few to move x at
// the copy rate, so the GEMM must have work to hide it: several tiles a block, the first ones
// multiplied while later images are re-laid out (a block of one tile waits for its images, then
// runs all of it), and little x for its FLOPs. 3x3 64->64 56x56 (wg128x64p, 5.9 tiles a block,
// 1.7 bytes per kFLOP): 59.0 -> 57.0 us fp16, 59.0 -> 56.1 bf16; slower streamed: 3x3 128->128
// 28x28 (3.0 tiles a block) 38.3 -> 41.5, 3x3 512->512 14x14 s2 (1.0) 49.6 -> 66, 3x3
// 128->128 56x56 s2 (3.0 tiles, 3.5 bytes per kFLOP) 60.3 -> 67.4.
constexpr double kStreamedTilesPerBlock = 4.0;
constexpr double kStreamedBytesPerFlop = 2.0e-3;

// Config::stream_input: where the kernels can (a register-transposing re-layout of x, the GEMM's
// operands by tensor maps from its warp-specialised issuer), and where it pays (above) or is
// forced ("/stream"; "/serial" turns it off).
void use_streamed_input(Config& cfg, const Problem& p, bool force) {
  const bool possible = cfg.pack_input && cfg.pack_block_lanes > 0 && !cfg.fold.active() && cfg.warp_specialized &&
                        cfg.tma_a && cfg.tma_b && cfg.cluster_blocks == 1 && !cfg.transposed;
  const double x_bytes = static_cast<double>(p.n) * p.c * p.h * p.w * static_cast<double>(p.elem_bytes());
  const double tiles_per_block = static_cast<double>(cfg.tiles * p.groups) / static_cast<double>(cfg.grid_x * cfg.grid_y);
  const bool pays = cfg.tile.persistent && cfg.one_even_wave && tiles_per_block >= kStreamedTilesPerBlock &&
                    x_bytes <= kStreamedBytesPerFlop * p.flops();
  cfg.stream_input = possible && (force || pays);
}

// "a+b+c" without mode `m` ("a+c").
std::string without_mode(const std::string& modes, const std::string& m) {
  std::string kept;
  std::size_t begin = 0;
  while (begin <= modes.size()) {
    const std::size_t end = std::min(modes.find('+', begin), modes.size());
    const std::string one = modes.substr(begin, end - begin);
    if (!one.empty() && one != m) kept += (kept.empty() ? "" : "+") + one;
    begin = end + 1;
  }
  return kept;
}

// "<tile>/<modes>", or the tile alone without modes.
std::string with_modes(const std::string& tile, const std::string& modes) {
  return modes.empty() ? tile : tile + "/" + modes;
}

}  // namespace

std::string forced_tile_name(const std::string& tile_and_modes) {
  return tile_and_modes.substr(0, tile_and_modes.find('/'));
}

namespace {

// choose_config, where `may_transpose` lets the heuristic take the transposed GEMM
// (transposed_pays; not again once it did not apply).
Config choose(const Problem& p, int sms, const std::string& force_tile_and_mode, bool warpgroup_mma,
              bool may_transpose) {
  // Few input channels and a wide filter: the GEMM runs on the folded operands, which the
  // re-layout kernels write, on a tile swept fastest there (H200, fp16 7x7 3->64 224x224 s2,
  // batch 64, the folded GEMM with its re-layouts, C' = 32: 256x64 148.0 us NHWC / 155.2
  // NCHW, 128x64 147.6 / 154.0, the heuristic's 128x64k64 160.4 / 169.8, persistent
  // warp-specialised wgmma 128x64 with 16-bit staging 152.0; gathered, 266: v19, v20).
  if (const WidthFold fold = width_fold_for(p); fold.active()) {
    Config c = choose_config(folded(p, fold), sms, force_tile_and_mode.empty() ? "256x64" : force_tile_and_mode,
                             warpgroup_mma);
    c.fold = fold;
    c.pack_input = c.pack_weights = true;  // the folded problem's own operands need no re-layout
    c.pack_weight_slices = weight_slices(p, c);
    return c;
  }
  // "<tile>/sk": that tile (or the heuristic's, for "/sk") with stream-K; "/ws": warp-specialised;
  // "/s16": 16-bit epilogue staging; "/st<N>": at most N pipeline stages; "/mc" ("/nomc"): A multicast
  // across 2-block clusters (or not, where the heuristic would); several modes joined by '+'.
  const std::size_t slash = force_tile_and_mode.find('/');
  const std::string force_tile = forced_tile_name(force_tile_and_mode);
  const std::string mode = slash == std::string::npos ? "" : force_tile_and_mode.substr(slash + 1);
  const auto has_mode = [&](const char* m) { return ("+" + mode + "+").find("+" + std::string(m) + "+") != std::string::npos; };
  // N of a mode "<prefix><N>", N from `lo` to `hi` in steps of `step` (the least given), else 0.
  const auto numbered_mode = [&](const char* prefix, int lo, int hi, int step) {
    for (int n = lo; n <= hi; n += step) {
      if (has_mode((prefix + std::to_string(n)).c_str())) return n;
    }
    return 0;
  };
  const bool matrix = uses_matrix_units(p);
  const bool warpgroup = warpgroup_mma && p.elem != Elem::f32;  // wgmma tiles: fp16 / bf16
  std::vector<const Candidate*> pool;
  if (matrix) {
    for (const auto& c : kMatrixTiles) pool.push_back(&c);
  } else {
    for (const auto& c : kSimtTiles) pool.push_back(&c);
  }
  const Candidate* best = nullptr;
  // Memory-bound (GEMM K of at most 128: a block's loads, few k-tiles and stores run back to
  // back): the tile with the most resident blocks wins (H200 sweep, fp16 1x1 64->256 56x56:
  // 128x64 67.4 us, 64x64 72.2, 128x128 77.7 NHWC; 76.0 vs 81.6 NCHW).
  if (force_tile.empty() && matrix && p.gemm_k() <= 128 && p.gemm_n() >= 64) {
    best = find_tile(kMemoryBoundTileGathered, true);
    const bool half = p.elem != Elem::f32;
    const Loader a_loader = best != nullptr ? make_config(p, *best, sms).a_loader : Loader::gather;
    const Candidate* pixels_wg = a_loader == Loader::pixels && warpgroup && p.gemm_k() == 64 && p.gemm_n() >= 128
                                     ? find_tile(kMemoryBoundTilePixelsWgmma, true, true)
                                     : nullptr;
    if (pixels_wg != nullptr) {
      best = pixels_wg;
    } else if (best != nullptr && a_loader != Loader::gather) {
      // A copied by cp.async (along C, or along the pixels of NCHW): the tiles measured on NHWC.
      best = find_tile(half && p.gemm_k() > 64 ? kMemoryBoundTileAsyncLongK : kMemoryBoundTileAsync, true);
    } else if (best != nullptr && warpgroup && p.gemm_n() >= 128) {
      // Not under a heavy register-staged A (a prologue, per-element decodes): not measured.
      const Candidate* wg = find_tile(kMemoryBoundTileGatheredWgmma, true, true);
      if (wg != nullptr && !heavy_register_gather(p, *wg, make_config(p, *wg, sms))) best = wg;
    }
  }
  const bool compute_bound = p.flops() >= kWarpgroupMinIntensity * p.min_bytes();
  bool memory_bound_ws_pick = false;
  int max_stages = numbered_mode("st", 1, kMaxStagesMode, 1);
  if (force_tile.empty() && warpgroup && p.gemm_n() >= 64 && p.gemm_k() <= kMemoryBoundWarpSpecializedMaxK &&
      !compute_bound) {
    // As measured: both operands by tensor map (x as given), y 16-bit staged.
    const bool wide = p.gemm_n() >= kWideMemoryBoundMinN && p.gemm_k() > 64;  // as measured: K 128
    const Candidate* wg =
        find_tile(wide ? kWideMemoryBoundTileWarpSpecialized : kMemoryBoundTileWarpSpecialized, true, true);
    if (wg != nullptr) {
      const Config plain = make_config(p, *wg, sms);
      Modes maps;
      maps.warp_specialized = maps.tensor_maps = true;
      if (!plain.pack_input && stage_16bit_fits(p, plain) && warp_specialization_fits(plain, *wg) &&
          make_config(p, *wg, sms, maps).tma_a) {
        best = wg;
        memory_bound_ws_pick = true;
        if (wide) max_stages = kWideMemoryBoundStages;
      }
    }
  }
  bool pixels_ws_pick = false;
  if (force_tile.empty() && warpgroup && !compute_bound && p.gemm_n() >= 128 && p.gemm_k() > 64 &&
      p.gemm_k() <= kMemoryBoundWarpSpecializedMaxK) {
    const Candidate* wg = find_tile(kPixelsTileWarpSpecialized, true, true);
    if (wg != nullptr) {
      const Config plain = make_config(p, *wg, sms);
      if (plain.a_loader == Loader::pixels && warp_specialization_fits(plain, *wg)) {
        best = wg;
        pixels_ws_pick = true;
      }
    }
  }
  // A by an im2col tensor map where it applies (3x3, strided 1x1 on sm_90): kIm2colTiles.
  bool im2col_pick = false;
  if (force_tile.empty() && warpgroup && best == nullptr) {
    best = cheapest_im2col_tile(p, sms);
    im2col_pick = best != nullptr;
  }
  // Compute-bound with A by a pixels x channels map (1x1, stride 1, channels-last x): kMappedTiles.
  bool mapped_pick = false;
  if (force_tile.empty() && warpgroup && best == nullptr && compute_bound && p.gemm_n() >= kWarpgroupMinN) {
    best = cheapest_mapped_tile(p, sms, std::vector<const char*>(std::begin(kMappedTiles), std::end(kMappedTiles)), false);
    mapped_pick = best != nullptr;
  }
  // "/tr" alone, or the heuristic's pick: the transposed GEMM on its persistent wgmma tile
  // (kTransposedTile), on four stages where the heuristic takes it with x by im2col map.
  const bool transposed_pick = may_transpose && force_tile_and_mode.empty() && warpgroup && transposed_pays(p, sms);
  const bool transposed = has_mode("tr") || transposed_pick;
  if (transposed_pick && !plain_1x1(p)) max_stages = kTransposedIm2colStages;
  if (force_tile.empty() && transposed && warpgroup) {
    best = find_tile(p.gemm_n() <= 64 ? kTransposedNarrowTile : kTransposedTile, true, true);
  }
  const bool measured_pick = force_tile.empty() && best != nullptr;  // taken as swept: no promotion
  if (!force_tile.empty()) best = find_tile(force_tile, matrix, warpgroup);
  // Hopper, fp16/bf16, compute-bound (kWarpgroupMinIntensity) and wide enough (kWarpgroupMinN):
  // the wgmma tile with the least estimated time over whole waves.
  bool warpgroup_pick = false;
  if (best == nullptr && force_tile.empty() && warpgroup && p.gemm_n() >= kWarpgroupMinN && compute_bound) {
    best = cheapest_warpgroup_tile(p, sms);
    warpgroup_pick = best != nullptr && mode.empty();
  }
  if (best == nullptr) {
    Cheapest cheapest;
    for (const Candidate* c : pool) {
      // Big tiles (128 accumulators per thread in 128x128 / 256x64, 128 registers in total
      // for 128x128w8) with a heavy register-staged A loader on top (a prologue evaluated
      // there, or a per-element decode for C/G not a multiple of the vector) run out of
      // registers: ptxas reports 52-200 bytes of spills for those (docs/PERF_NOTES.md).
      const bool matrix_tile = c->kernel == Kernel::matrix;
      if (matrix_tile && heavy_register_gather(p, *c, make_config(p, *c, sms)) && c->bm * c->bn >= 128 * 128) continue;
      // Both at once (a prologue on per-element decodes): only the 4096-output tiles stay
      // spill-free (128x64 spills 44 bytes at 255 registers, 64x64 takes 168).
      const bool odd_c = (p.c / p.groups) % static_cast<int>(16 / p.elem_bytes()) != 0;
      if (matrix_tile && p.has_prologue && odd_c && c->bm * c->bn > 64 * 64) continue;
      cheapest.offer(c, estimate(p, *c, sms));
    }
    best = cheapest.best;
  }
  if (force_tile.empty()) best = simt_k16_substitute(p, best, sms);
  // Only with a cp.async A: a register-staged A holds twice the values per thread at BK 64
  // (not yet checked for spills with prologues / per-element decodes).
  if (force_tile.empty() && !measured_pick && best->kernel == Kernel::matrix &&
      make_config(p, *best, sms).a_loader != Loader::gather) {
    for (const Promotion& pr : kPromote) {
      if (std::string(pr.from) != best->name) continue;
      if (const Candidate* to = find_tile(pr.to, true)) best = to;
      break;
    }
  }
  const Config plain = make_config(p, *best, sms);
  Modes modes;
  // 16-bit staging: forced with "/s16", and the heuristic's choice wherever it fits. H200 sweep
  // v13 (docs/PERF_NOTES.md): 0-45% faster on every channels-last fp16 layer measured, never slower
  // (the warp-specialised wgmma tiles 3-20%, the persistent mma.sync ones 0-11%); along the
  // pixels (NCHW y, v21, with the weights' re-layout merged into x's): CBA 0-14% faster on the
  // seven fp16 NCHW layers, CBNA 11-19%.
  modes.stage_16bit = (has_mode("s16") || transposed || force_tile.empty()) && stage_16bit_fits(p, plain);
  const bool stream_k = has_mode("sk") && stream_k_fits(plain, *best);
  const bool ws = has_mode("ws") || transposed || memory_bound_ws_pick || pixels_ws_pick || im2col_pick ||
                  mapped_pick ||
                  (warpgroup_pick && warp_specialization_pays(*best, plain));
  modes.warp_specialized = ws && !stream_k && warp_specialization_fits(plain, *best);
  modes.tensor_maps = warpgroup;
  modes.im2col = has_mode("im2col") || im2col_pick || transposed;
  modes.max_stages = max_stages;
  modes.multicast_a = has_mode("mc") || (memory_bound_ws_pick && p.gemm_k() <= kMulticastMaxK && !has_mode("nomc"));
  // The tensor-map store of the staged tile: forced with "/bs", and the heuristic's choice where
  // it measured faster (make_config checks that it fits).
  modes.tensor_store = has_mode("bs") || transposed || (force_tile.empty() && tensor_store_pays(p));
  modes.transposed = transposed;
  // The channel width: forced ("/n<N>", wgmma tiles), or fitted to the waves (kFittedWidthGain).
  const int forced_width = best->warpgroup ? numbered_mode("n", kForcedWidthMin, kFittedWidthMax, kFittedWidthStep) : 0;
  int width = forced_width > 0 ? forced_width : best->bn;
  const bool fits_width = best->warpgroup && best->persistent && best->bm == 128 && best->bn == 128 && !stream_k;
  if (forced_width == 0 && transposed && best->warpgroup && !stream_k) {
    width = transposed_width(p, *best, sms, modes);
  } else if (width == best->bn && (mapped_pick || im2col_pick) && fits_width) {
    width = fitted_width(p, *best, sms, modes);
  }
  // (Where "/tr" does not fit, the plan is made again without it below: no need to check here.)
  const bool deepen = transposed && best->warpgroup && !stream_k;
  Candidate widened = *best;
  if (width != best->bn || deepen) {
    widened = with_width(*best, width);
    if (deepen) widened.stages = kTransposedStages;
    best = &widened;
    const int stages = stages_that_fit(p, widened, sms, modes);
    if (stages > 0 && (modes.max_stages == 0 || stages < modes.max_stages)) modes.max_stages = stages;
  }
  Config cfg = make_config(p, *best, sms, modes);
  if (transposed && !cfg.transposed) {
    // "/tr" does not apply: the plan as it would be without it (the modes that come with it too).
    return choose(p, sms, with_modes(force_tile, without_mode(mode, "tr")), warpgroup_mma, false);
  }
  if (stream_k) use_stream_k(cfg, p, *best, sms);
  if (!has_mode("serial")) use_streamed_input(cfg, p, has_mode("stream"));
  return cfg;
}

}  // namespace

Config choose_config(const Problem& p, int sms, const std::string& force_tile_and_mode, bool warpgroup_mma) {
  if (sms <= 0) sms = kDefaultMultiprocessors;
  // "/notr": the heuristic's plan without its transposed GEMM (what it chose before; for A/Bs).
  const std::size_t slash = force_tile_and_mode.find('/');
  if (slash != std::string::npos) {
    const std::string mode = force_tile_and_mode.substr(slash + 1), rest = without_mode(mode, "notr");
    if (rest != mode) return choose(p, sms, with_modes(forced_tile_name(force_tile_and_mode), rest), warpgroup_mma, false);
  }
  return choose(p, sms, force_tile_and_mode, warpgroup_mma, true);
}

std::string generate_header(const Problem& p, const Config& c) {
  auto b = [](bool v) { return v ? std::string("true") : std::string("false"); };
  std::string s = "// hf_igemm.h: generated by hipfuse (lib/solvers/conv_implicit_gemm_config.cpp): " + c.describe() +
                  "\n#pragma once\nnamespace hfi {\n";
  s += "constexpr int BM = " + std::to_string(c.tile.bm) + ", BN = " + std::to_string(c.tile.bn) + ";\n";
  s += "constexpr int WarpsM = " + std::to_string(c.tile.warps_m) + ", WarpsN = " + std::to_string(c.tile.warps_n) +
       ", Stages = " + std::to_string(c.tile.stages) + ", MinBlocks = " + std::to_string(c.tile.min_blocks) + ";\n";
  s += "constexpr int KChunks = " + std::to_string(c.tile.k_chunks) + ";  // 16-byte chunks per k-tile row\n";
  s += "constexpr bool Persistent = " + b(c.tile.persistent) + ";  // blocks loop over the output tiles\n";
  s += "constexpr bool Warpgroup = " + b(c.tile.warpgroup) + ";  // wgmma main loop (sm_90a)\n";
  s += "constexpr int AMode = " + std::to_string(static_cast<int>(c.a_loader)) +
       ", BMode = " + std::to_string(static_cast<int>(c.b_loader)) +
       ";  // 0: 16-byte vectors, 1: gathered, 2: vectors along the pixels\n";
  s += "constexpr int APixelLanes = " + std::to_string(c.a_pixel_lanes) + ";  // AMode 2: values per copy\n";
  s += "constexpr bool OutAlongK = " + b(c.out_along_k) + ";\n";
  s += "constexpr int OutVec = " + std::to_string(c.out_vec) + ";\n";
  s += "constexpr bool Stage16 = " + b(c.stage_16bit) + ";  // epilogue: fused ops in registers, 16-bit staging\n";
  // Without x's re-layout a shared tile the re-layout source accepts: the weights' own
  // re-layout launch (x as given, e.g. too large for the scratch) compiles that source too.
  const int tile_channels = c.pack_tile_channels > 0 ? c.pack_tile_channels : 64;
  const int tile_pixels = c.pack_tile_pixels > 0 ? c.pack_tile_pixels : hf::kPackTileElements / tile_channels;
  s += "constexpr int PackTileChannels = " + std::to_string(tile_channels) +
       ", PackTilePixels = " + std::to_string(tile_pixels) + ";  // hf_igemm_pack_input's tile\n";
  s += "constexpr int PackBlockLanes = " + std::to_string(c.pack_block_lanes) +
       ";  // its register blocks' pixels (0: a shared-memory tile)\n";
  s += "constexpr int PackWeightSlices = " + std::to_string(c.pack_weight_slices) +
       ";  // the weights re-laid out in hf_igemm_pack_input's first slices (0: a launch of their own)\n";
  const auto pack_grid = c.pack_input && !c.fold.active() ? relayout_input_grid(p, c) : std::array<std::int64_t, 3>{1, 1, 1};
  s += "constexpr bool StreamInput = " + b(c.stream_input) +
       ";  // the re-layout runs beside the GEMM, counting images done\n";
  s += "constexpr unsigned PackGridX = " + std::to_string(pack_grid[0]) + ", PackGridY = " + std::to_string(pack_grid[1]) +
       ";  // the re-layout's blocks per image\n";
  s += "constexpr int FoldS = " + std::to_string(c.fold.s) + ", FoldStrideW = " + std::to_string(c.fold.stride) +
       ", FoldPadW = " + std::to_string(c.fold.pad) + ", FoldDilationW = " + std::to_string(c.fold.dilation) +
       ";  // x's width windows folded into channels (FoldS 0: not)\n";
  s += "constexpr long long StreamKBlocks = " + std::to_string(c.stream_k_blocks) + ";  // 0: a block per tile\n";
  s += "constexpr bool WarpSpecialized = " + b(c.warp_specialized) + ";  // a loader warpgroup on mbarriers\n";
  s += "constexpr bool TmaA = " + b(c.tma_a) + ", TmaB = " + b(c.tma_b) + ";  // tensor-map copies (ConvArgs::a_map / b_map)\n";
  s += "constexpr bool TmaAIm2col = " + b(c.tma_a_im2col) + ";  // A's map: im2col, a box per filter tap\n";
  s += "constexpr bool TmaStore = " + b(c.tma_store) + ";  // y stored by tensor-map copies (ConvArgs::y_map)\n";
  s += "constexpr int ClusterBlocks = " + std::to_string(c.cluster_blocks) +
       ";  // A's k-tiles multicast across clusters of this many blocks (1: none)\n";
  s += "constexpr bool Transposed = " + b(c.transposed) +
       ";  // the weights are wgmma's A (BM channels), x's pixels its B (BN pixels)\n";
  s += "constexpr bool Tf32 = " + b(p.elem == Elem::f32 && c.kernel == Kernel::matrix) + ";\n";
  s += "}  // namespace hfi\n";
  // The kernel's cluster attribute (an ordinary launch then runs the grid in clusters).
  s += c.cluster_blocks > 1 ? "#define HF_IGEMM_CLUSTER_DIMS HF_CLUSTER_DIMS(" + std::to_string(c.cluster_blocks) + ")\n"
                            : "#define HF_IGEMM_CLUSTER_DIMS\n";
  return s;
}

}  // namespace hipfuse::igemm
