// The implicit-GEMM convolution's problem description, tile heuristic and the generated
// header (hf_igemm.h) its kernels are specialised with. Plain C++ (no HIP, no plan types),
// so that tests and benchmarks can drive the heuristic and the code generation directly;
// conv_implicit_gemm.cpp maps a FusionPlan onto it.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace hipfuse::igemm {

enum class Elem { f16, bf16, f32 };

// One 2-D forward convolution (NCHW logical order; element strides carry the layout).
struct Problem {
  Elem elem = Elem::f16;
  bool allow_tf32 = false;  // fp32 on the matrix units (tf32) instead of the fp32 SIMT kernel
  int n = 1, c = 1, h = 1, w = 1;   // input
  int k = 1, r = 1, s = 1;          // filters
  int p = 1, q = 1;                 // output spatial size
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int groups = 1;
  std::array<std::int64_t, 4> x_strides{};  // n, c, h, w
  std::array<std::int64_t, 4> w_strides{};  // k, c/g, r, s
  std::array<std::int64_t, 4> y_strides{};  // n, k, p, q
  bool has_prologue = false;  // pointwise ops applied to x before the conv (forces gathered A)

  std::size_t elem_bytes() const { return elem == Elem::f32 ? 4 : 2; }
  std::int64_t gemm_m() const { return static_cast<std::int64_t>(n) * p * q; }
  std::int64_t gemm_n() const { return k / groups; }
  std::int64_t gemm_k() const { return static_cast<std::int64_t>(c / groups) * r * s; }
  double flops() const { return 2.0 * static_cast<double>(gemm_m()) * k * static_cast<double>(gemm_k()); }
  // The least device-memory traffic: x, the weights and y, each once.
  double min_bytes() const {
    const double elems = static_cast<double>(n) * c * h * w + static_cast<double>(k) * (c / groups) * r * s +
                         static_cast<double>(n) * k * p * q;
    return elems * static_cast<double>(elem_bytes());
  }
};

// Packed strides for the two layouts (helpers for tests and benchmarks).
std::array<std::int64_t, 4> nchw_strides(int n, int c, int h, int w);
std::array<std::int64_t, 4> nhwc_strides(int n, int c, int h, int w);

enum class Kernel { matrix, simt };
// How the matrix kernel fills A / B (hfi::AMode / BMode): async16, cp.async of 16-byte vectors
// along C; gather, element by element through registers; pixels (A only), cp.async vectors
// along the pixels of an NCHW-like x into an MN-major tile (1x1, stride 1, no padding).
enum class Loader { async16 = 0, gather = 1, pixels = 2 };

struct Tile {
  int bm = 128, bn = 128;
  int warps_m = 2, warps_n = 2;  // matrix kernel: groups of 32 threads; simt: unused
  int stages = 4;                // matrix kernel: shared-memory ring depth; simt: 2
  int min_blocks = 1;            // __launch_bounds__ minimum resident blocks (register cap)
  int k_chunks = 4;              // 16-byte chunks per k-tile row (BK = 16 * k_chunks bytes; simt: 2 or 4)
  bool persistent = false;       // matrix kernel: blocks loop over output tiles, prefetching the next
  bool warpgroup = false;        // matrix kernel: Hopper warpgroup MMA (wgmma) instead of mma.sync
  // The table tile's name ("wg128x128p"; "custom" for none); a wgmma tile of a width not in the
  // table (Config's "/n<N>", or fitted to the waves) is named after the first of its shape.
  const char* name() const;
};

// A filter's width folded into its channels, for inputs of few channels (an RGB image): x is
// re-laid out as N x H x Q x C' (channels last), x'[n, h, q, s*C + c] = x[n, c, h, q*stride_w -
// pad_w + s*dil_w] (zero outside x and for s*C + c >= S*C), the weights as K x R x 1 x C', and
// the GEMM runs the R x 1 convolution of stride (stride_h, 1) on them: A in 16-byte vectors of
// C' channels (S*C rounded up, width_fold_for) instead of gathered one value at a time.
struct WidthFold {
  int s = 0;         // the filter's width S; 0: not folded
  int channels = 0;  // C': S*C rounded up to a power of two of at least 32 bytes
  int stride = 1, pad = 0, dilation = 1;  // along the width, as the plan has them
  bool active() const { return s > 0; }
};

struct Config {
  Kernel kernel = Kernel::matrix;
  Tile tile;
  Loader a_loader = Loader::gather, b_loader = Loader::gather;
  int a_pixel_lanes = 0;  // Loader::pixels: values per copy along the pixels (8: 16 bytes, 4: 8 bytes)
  // The weights are first re-laid out as K x R x S x C/G by a small kernel into invoker
  // scratch (their own layout is not (r, s, c)-contiguous, e.g. NCHW filters > 1x1), so
  // that B loads as vectors.
  bool pack_weights = false;
  // x is first re-laid out as packed NHWC (the plan's prologue applied on the way) by a
  // transposing kernel into invoker scratch: for filters larger than 1x1 on NCHW-like inputs,
  // where gathering A would load every x value R*S times element by element, and on the
  // matrix kernel with a prologue, which would be evaluated R*S times per x value.
  bool pack_input = false;
  // pack_input's block tile, channels x pixels, and how it moves: pack_block_lanes > 0, each
  // thread transposes a block of 16 bytes' worth of channels x that many pixels in registers
  // (x's planes in runs that accesses of 8 or 16 bytes tile); 0, through a shared-memory
  // tile of 4096 values (up to 64 channels).
  int pack_tile_channels = 0, pack_tile_pixels = 0;
  int pack_block_lanes = 0;
  // With pack_input and pack_weights: the weights' re-layout rides along in the input's
  // launch, on this many z slices of its grid (the folded x's 1-D grid: this many blocks)
  // before x's; 0: a launch of its own.
  int pack_weight_slices = 0;
  WidthFold fold;  // x and the weights re-laid out with the filter width folded in (pack_input, pack_weights)
  bool out_along_k = true;  // y stored in vectors along channels (else along pixels)
  int out_vec = 1;          // elements per output store
  // Matrix tiles with 16-bit y, even channels per group (the heuristic's tiles, or "<tile>/s16"):
  // the fused ops applied to each thread's own accumulators, the results staged as 16-bit
  // values instead of fp32 (half the epilogue's shared-memory traffic and staging).
  bool stage_16bit = false;
  bool index64 = false;     // some tensor spans >= 2^31 elements
  int threads = 0;
  int shared_bytes = 0;     // dynamic shared memory per block
  std::int64_t tiles = 0;   // output tiles per group: (m tiles) * (n tiles)
  std::int64_t grid_x = 0;  // tiles; fewer for persistent and stream-K tiles
  // Stream-K (matrix kernel, forced only): this many blocks (the resident count) split the
  // GEMM's k-tiles evenly instead of taking a tile each, and sum shared tiles through scratch; 0: off.
  int stream_k_blocks = 0;
  // Warp specialisation (wgmma tiles with asynchronous loaders): loader threads (`threads`
  // includes them) fill the stages on mbarriers, the tile's warpgroups only multiply.
  bool warp_specialized = false;
  // Warp-specialised tiles on sm_90 only: A's / B's k-tiles moved by tensor-map copies (the
  // invoker encodes hf::ConvArgs::a_map / b_map at launch) instead of 16-byte cp.async.
  bool tma_a = false, tma_b = false;
  // With tma_a: A's k-tiles gathered by an im2col tensor map (one box a filter tap: channels-last
  // x of any filter, stride and padding) rather than read as a pixels x channels matrix.
  bool tma_a_im2col = false;
  // Persistent warp-specialised tiles with 16-bit staging on channels-last y (tensor_store_fits):
  // the staged tile leaves shared memory by one tensor-map copy per 64 channels (the invoker
  // encodes hf::ConvArgs::y_map at launch), issued by one thread, while the warpgroups go on to
  // the block's next tile, instead of every multiplying thread storing vectors ("/bs").
  bool tma_store = false;
  // Blocks launched in clusters of this many along x (2: the heuristic's memory-bound 1x1 tiles
  // of one k-tile, or "/mc"; else 1): the two blocks of a cluster take neighbouring tiles of one
  // row of tiles (same pixels, next channels), and each copies half of their common A k-tile by
  // a tensor-map copy multicast into both, so that the pair reads A from L2 once. Warp-
  // specialised tiles with both operands by plain 2-D maps, an even number of channel tiles, an
  // even grid.
  int cluster_blocks = 1;
  // The GEMM transposed ("/tr"): the weights are wgmma's A and x's pixels its B, so that tile.bm
  // counts output channels and tile.bn pixels (a multiple of 16 along wgmma's n, fitted to the
  // waves), and `tiles` is ceil(pixels / bn) * ceil(channels / bm). Persistent warp-specialised
  // wgmma tiles whose x (as a matrix, or by im2col windows, as given or re-laid out) and weights
  // go by tensor maps (tma_a, tma_b), with 16-bit staging (y then leaves by the tensor-map store
  // where it fits, else in vectors: NCHW y along the pixels).
  bool transposed = false;
  int grid_y = 0;           // groups
  // Matrix kernels whose blocks are all resident from the start, as many on every
  // multiprocessor whatever order they are placed in (persistent grids of the resident count,
  // or at most one block a multiprocessor). Only those start early after a re-layout
  // (rt::launch_kernel): blocks placed while the re-layout drains would otherwise pile onto the
  // multiprocessors it frees first (H200, fp32 NCHW 3x3 256->256 14x14 on SIMT tiles: 457 ->
  // 548 us, docs/PERF_NOTES.md v22).
  bool one_even_wave = false;
  // The re-layout of x runs beside the GEMM instead of before it: a persistent grid (sized by
  // the invoker from both kernels' registers) walks the re-layout's blocks image by image and
  // counts each image done (kernels/common/ready_counters.h); the GEMM, started early, waits per
  // tile for its images only. Register-transposing re-layouts into warp-specialised tensor-map
  // GEMMs (wgmma, sm_90), where the heuristic finds that it pays (persistent blocks of several
  // tiles, little x for the GEMM's work), or forced ("/stream").
  bool stream_input = false;
  std::string source() const { return kernel == Kernel::matrix ? "conv_igemm.hip" : "conv_igemm_simt.hip"; }
  std::string entry() const { return kernel == Kernel::matrix ? "hf_conv_igemm" : "hf_conv_igemm_simt"; }
  std::string describe() const;  // "matrix 128x128 w2x2 s4 A:async16 B:async16 out:k8"
};

// The fold for a problem, or an inactive one: a filter wider than 1 on x of at most 4 channels
// that no 16-byte vector along C can read (not grouped), folded x within the re-layout's scratch.
WidthFold width_fold_for(const Problem& problem);

// The problem the GEMM runs on the folded operands (WidthFold).
Problem folded(const Problem& problem, const WidthFold& fold);

// The input re-layout's grid (hf_igemm_pack_input) for `problem` (as given, not folded) under
// `config`: (pixel tiles, channel tiles, images), or the folded x's columns' blocks on x; the
// weights' slices (Config::pack_weight_slices) included. Streamed (Config::stream_input), the
// blocks that its persistent grid walks.
std::array<std::int64_t, 3> relayout_grid(const Problem& problem, const Config& config);

// Whether an architecture has the warpgroup matrix instructions (wgmma: sm_90, compiled for
// its architecture-specific target sm_90a).
bool has_warpgroup_mma(const std::string& arch);

// Empty when the implicit GEMM can run the problem, else the reason (for the solver's
// Applicability). `arch` is the target ("sm_90", "gfx90a", ...).
std::string why_not(const Problem& problem, const std::string& arch);

// The kernel and tile for a problem: a fixed shape heuristic (no autotuning). `sms` is the
// multiprocessor count (0: assume 132). `force_tile` (tests, benchmarks) picks a named matrix tile:
// "128x128", "128x128w8", "256x64", "128x64", "64x64", "128x32", the BK = 64 ones "128x128k64",
// "128x128w8k64", "256x64k64", "128x64k64", "128x64w8k64", the persistent "128x64k64p" and
// "64x64k64p", the warpgroup ones "wg128x128", "wg128x64", "wg64x128", "wg128x256", "wg256x128",
// "wg192x128" and the persistent "wg64x128p", "wg128x64p", "wg128x128p", "wg128x256p" (fp16/bf16,
// only where `warpgroup_mma`: a forced one elsewhere falls back to the heuristic), or a SIMT one:
// "simt128x128", "simt128x64", "simt64x64", with k-tiles of 16 "simt128x128k16", "simt128x64k16"; a
// "/sk" suffix ("<tile>/sk", or "/sk" for the heuristic's tile) turns stream-K on for a pipelined
// matrix tile (never chosen automatically: slower on the H200); "/ws" warp-specialises a wgmma tile
// (persistent or not) with asynchronous loaders (loader threads of their own, tensor-map copies
// where they apply), as the heuristic also does for its own wgmma picks where the H200 measured it
// faster (a forced tile without "/ws" runs without it); "/s16" stages a 16-bit output as 16-bit
// values, the fused ops applied in registers (Config::stage_16bit); "/im2col" (with "/ws") moves A
// by an im2col tensor map where a pixels x channels map cannot (filters past 1x1, strides, padding:
// Config::tma_a_im2col); "/stream" runs x's re-layout beside the GEMM wherever the kernels can
// (Config::stream_input), "/serial" before it wherever the heuristic would stream it; "/bs" (with
// "/ws" and "/s16" on a persistent wgmma tile) stores the staged tile by tensor-map copies
// (Config::tma_store); "/tr" transposes the GEMM on a persistent 128-row wgmma tile where it fits
// (Config::transposed; warp specialisation, 16-bit staging, the tensor-map store where y allows
// it and, past 1x1 stride-1 layers, the im2col map come with it), its pixel width the one of
// least estimated time over whole waves unless "/n<N>" gives it;
// "/n<N>" gives a wgmma tile N output channels (pixels when transposed), a multiple of 16 from 64
// to 256, as the heuristic does where a wider width fits the waves better (kFittedWidthGain:
// 1x1 1024->2048 14x14 s2 at batch 64 on 128x208), its stages cut to the shared memory a block
// can have.
// Modes combine with '+': "wg128x128/ws+s16".
// `warpgroup_mma`: the target has wgmma (has_warpgroup_mma).
Config choose_config(const Problem& problem, int sms, const std::string& force_tile = {}, bool warpgroup_mma = false);

// The tile part of a forced "<tile>/<modes>" ("" for "/sk" alone: the heuristic's tile).
std::string forced_tile_name(const std::string& tile_and_modes);

// The generated header hf_igemm.h (namespace hfi): dtype, geometry, strides, tile, loaders,
// output vectors, index type.
std::string generate_header(const Problem& problem, const Config& config);

// GEMM K per k-tile of a matrix tile: `k_chunks` 16-byte chunks of the problem's elements.
int block_k(const Problem& problem, int k_chunks);

// The row strides (elements) of the matrices that Config::tma_a / tma_b's tensor maps cover:
// x's pixels (as the GEMM reads x) and the weights' output channels; 0 where there is none.
std::int64_t input_row_stride(const Problem& problem, const Config& config);
std::int64_t weights_row_stride(const Problem& problem, const Config& config);
// The distance (elements) between y's pixels when y is a pixels x channels matrix of 16-byte
// aligned rows (channels-last, pixels evenly spaced, one group, fewer than 2^31 of them) that
// Config::tma_store's map can cover; 0 otherwise.
std::int64_t output_row_stride(const Problem& problem);

// Whether an im2col tensor map can gather A (Config::tma_a_im2col): x channels-last as the GEMM
// reads it (as given, or re-laid out), 16-byte aligned pixel, row and image strides, whole
// k-tiles of one filter tap in one group, and the window bounds, strides and filter offsets in
// the map's ranges.
bool im2col_fits(const Problem& problem, const Config& config);
// The convolution windows' origins over x: from -pad (lower) to (P - 1) * stride - pad (upper,
// relative to the last pixel), along w and h: an im2col map's corners.
struct WindowCorners {
  std::int64_t lower_w, lower_h, upper_w, upper_h;
};
WindowCorners window_corners(const Problem& problem);
// x's strides (elements: image, row, pixel) as the GEMM reads it, channels dense.
std::array<std::int64_t, 3> input_pixel_strides(const Problem& problem, const Config& config);

}  // namespace hipfuse::igemm
