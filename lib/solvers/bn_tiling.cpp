#include "solvers/bn_tiling.h"

#include "runtime/platform.h"
#include "solvers/invoker_support.h"

#include <algorithm>
#include <limits>

namespace hipfuse {

namespace {

constexpr int kThreads = 256;
// 256-thread blocks resident per multiprocessor: the kernels are built for at most 64
// registers a thread (their __launch_bounds__), so 4 fit. With 16-byte vectors and 4-8 loads
// in flight per thread, 1024 threads keep ~64 KB of loads outstanding per multiprocessor,
// more than the ~30 KB its share of the memory bandwidth needs.
constexpr int kBlocksPerMultiprocessor = 4;
// Forward training's held walk (BnTiling::held_units): with one partial, each thread keeps its
// share of x from the reduce to the normalise, so that x is read once: up to
// kHeldRegisterValues values in registers (6 fp32 vectors, 3 of fp16: the kernel stays within
// its 64 registers), the rest in dynamic shared memory, at most kHeldSharedBytes a block so
// that 4 blocks still fit a multiprocessor (228 KB: 4 x (40 KB + the kernel's ~8 KB of static
// shared memory + 1 KB the hardware reserves a block)): the fp32 7x7 and 14x14 planes of 64
// images with enough channels for one partial (13 vectors a thread).
constexpr std::int64_t kHeldRegisterValues = 24;
constexpr std::int64_t kHeldSharedBytes = 40 * 1024;
// The exchange (BnTiling::exchange) merges its column's partials in fp64 while it holds x:
// 16 values in registers (4 fp32 vectors, 2 of fp16) keep its stack frame at 0 bytes where
// kHeldRegisterValues left 40-64 (NVRTC for sm_90, 64 registers, on the ResNet-50 shapes).
// The kernel keeps 2-byte vectors as loaded (4 registers each) and unpacks them when read; the
// budgets count the floats they unpack to all the same: 4 fp16 vectors left a 16-24 byte frame.
constexpr std::int64_t kExchangeRegisterValues = 16;
// Persistent blocks (BnTiling::persistent): 1024 threads, one block a multiprocessor, holding a
// whole column (kHeldRegisterValues in registers, the rest in the shared memory a block may
// have, less kStaticSharedBytes for the kernel's own: its fp64 merge scratch, 24 bytes a thread).
constexpr int kPersistentThreads = 1024;
constexpr std::int64_t kStaticSharedBytes = 32 * 1024;
constexpr std::int64_t kMinRowsPerThread = 4;  // below this, more partials cost more than they give
constexpr std::int64_t kMaxRowsPerPartial = std::int64_t{1} << 24;  // counts stay exact in fp32
constexpr int kMaxTileColumns = 32;
constexpr std::int64_t kVectorRows = 8;  // rows_per_partial a multiple of the widest 16-byte vector (fp16)
// The apply phase merges the partials itself when each of its threads merges at most this
// many and a column's partials (12 bytes each at most) are at most 1/kMergeBytesRatio of the
// bytes of x a block reads per column: a few kilobytes of L2 reads per block, against a
// launch and a small serial kernel of a few microseconds (which matter most for the small
// tensors, 7x7 and 14x14 channels-last).
constexpr std::int64_t kMaxMergesPerThread = 4;
constexpr std::int64_t kMergeBytesRatio = 8;
constexpr std::int64_t kPartialBytes = 12;

int pow2_at_least(std::int64_t v) {
  int p = 1;
  while (p < v && p < kMaxTileColumns) p *= 2;
  return p;
}

std::int64_t spatial_size(const TensorDesc& x) {
  std::int64_t s = 1;
  for (int d = 2; d < x.dims(); ++d) s *= x.lengths[static_cast<std::size_t>(d)];
  return s;
}

// Whether channels are closer together in memory than spatial neighbours (NHWC-like), or
// there is no spatial extent: then adjacent threads take adjacent channels.
bool channels_innermost(const TensorDesc& x) {
  std::int64_t min_spatial = std::numeric_limits<std::int64_t>::max();
  for (int d = 2; d < x.dims(); ++d) {
    if (x.lengths[static_cast<std::size_t>(d)] > 1) min_spatial = std::min(min_spatial, x.strides[static_cast<std::size_t>(d)]);
  }
  return x.lengths[1] > 1 && x.strides[1] < min_spatial;
}

// Whether each plane of x (its spatial dimensions) is one contiguous run in memory.
bool planes_contiguous(const TensorDesc& x) {
  std::int64_t run = 1;
  for (int d = x.dims() - 1; d >= 2; --d) {
    const auto i = static_cast<std::size_t>(d);
    if (x.lengths[i] > 1 && x.strides[i] != run) return false;
    run *= x.lengths[i];
  }
  return true;
}

// Whether spatial BN over x (channels first) walks its planes as plane groups (kernels/common/
// plane_groups.h): planes of S positions that 16-byte vectors of `lanes` elements do not tile
// (7x7 = 49; 14x14 = 196 in fp16), contiguous and adjacent, so that `lanes` channels' planes
// form S whole vectors; S at most a block's threads (each thread keeps one vector of an image).
bool plane_groups_fit(const TensorDesc& x, std::int64_t lanes) {
  const std::int64_t c = x.lengths[1], s = spatial_size(x);
  if (s % lanes == 0 || s < lanes || s > kThreads || c % lanes != 0) return false;
  return planes_contiguous(x) && x.strides[1] == s && (x.lengths[0] == 1 || x.strides[0] % lanes == 0);
}

// Enough partials for about a full wave of blocks, few enough that each thread has work.
// Rounded down, not up: 64 channels on a 132 x 8-block wave would take 17 partials = 1088
// blocks, 1.03 waves, whose last 32 blocks run alone for as long as the first wave.
int choose_partials(const BnTiling& t, const Target& target) {
  const std::int64_t column_tiles = ceil_div(t.columns, t.tile_columns);
  const std::int64_t wave = std::int64_t{multiprocessors_of(target)} * kBlocksPerMultiprocessor;
  const std::int64_t most = std::max<std::int64_t>(1, t.rows / (t.tile_rows * kMinRowsPerThread));
  std::int64_t p = std::clamp<std::int64_t>(wave / column_tiles, 1, most);
  p = std::max(p, ceil_div(t.rows, kMaxRowsPerPartial));
  return static_cast<int>(std::min<std::int64_t>(p, 65535));
}

// Whether spatial BN over x (channels first) walks its planes as 16-byte vectors of `lanes`
// elements along the rows (ColumnTiling::vectorizable): contiguous planes that the vectors
// tile, channel and batch strides multiples of the vector.
bool plane_vectors_fit(const TensorDesc& x, std::int64_t lanes) {
  return planes_contiguous(x) && spatial_size(x) % lanes == 0 && (x.lengths[1] == 1 || x.strides[1] % lanes == 0) &&
         (x.lengths[0] == 1 || x.strides[0] % lanes == 0);
}

// The vector units each thread of a one-partial tiling walks at most: images (plane groups, a
// vector of each) or `lanes`-row vectors along the plane.
std::int64_t units_per_thread(const BnTiling& t, std::int64_t images, std::int64_t plane, std::int64_t lanes) {
  if (t.plane_groups) return ceil_div(images, t.threads() / plane);
  return ceil_div(t.rows, lanes * t.tile_rows);
}

}  // namespace

dim3 BnTiling::grid() const {
  if (persistent()) return dim3(static_cast<unsigned>(persistent_blocks));
  return dim3(static_cast<unsigned>(ceil_div(columns, tile_columns)), static_cast<unsigned>(partials));
}

dim3 BnTiling::finalize_grid() const { return dim3(static_cast<unsigned>(ceil_div(columns, tile_columns))); }

std::size_t BnTiling::counter_bytes() const {
  return exchange ? static_cast<std::size_t>(ceil_div(columns, tile_columns) + 2) * sizeof(unsigned) : 0;
}

std::size_t BnTiling::scratch_bytes(int fields) const {
  if (partials == 1) return 0;
  return static_cast<std::size_t>(columns) * static_cast<std::size_t>(partials) * static_cast<std::size_t>(fields) *
         sizeof(float);
}

BnTiling choose_bn_tiling(const TensorDesc& x, BatchNormMode mode, const Target& target, BnKernel kernel,
                          BnPersistence persistence) {
  BnTiling t;
  const std::int64_t n = x.lengths[0], c = x.lengths[1], s = spatial_size(x);
  const bool channels_inner = channels_innermost(x) || s == 1;
  t.spatial = mode == BatchNormMode::spatial;
  t.columns = t.spatial ? c : c * s;
  t.rows = t.spatial ? n * s : n;
  t.channels_inner = !t.spatial && channels_inner;
  // Rows run along memory for channel-first spatial BN; otherwise columns do.
  const auto element_bytes = static_cast<std::int64_t>(size_of(x.type));
  const std::int64_t lanes = 16 / element_bytes;
  // Forward training only: the backward reads three tensors and would keep two channels'
  // parameters a thread, which left room for 2 vectors in flight; its plane groups measured
  // slower than its scalar walk (H200, 64x2048x7x7 fp32: 37.6 against 34.7 us, docs/PERF_NOTES.md v9).
  t.plane_groups = kernel == BnKernel::forward_training && t.spatial && !channels_inner && plane_groups_fit(x, lanes);
  t.tile_columns = t.plane_groups ? static_cast<int>(lanes) : t.spatial && !channels_inner ? 1 : pow2_at_least(t.columns);
  t.tile_rows = kThreads / t.tile_columns;
  t.partials = choose_partials(t, target);
  if (t.plane_groups) {
    // Partials of whole images (the walk keeps one vector of each image per thread), at most
    // kMaxRowsPerPartial rows.
    t.rows_per_partial = std::min(ceil_div(n, t.partials), kMaxRowsPerPartial / s) * s;
  } else {
    t.rows_per_partial = ceil_div(t.rows, t.partials);
    // A multiple of 8 rows lets the kernels take 16-byte vectors along the rows (NCHW planes);
    // still at most 2^24 rows, as kMaxRowsPerPartial is a multiple of 8.
    if (t.partials > 1) t.rows_per_partial = ceil_div(t.rows_per_partial, kVectorRows) * kVectorRows;
  }
  t.partials = static_cast<int>(ceil_div(t.rows, t.rows_per_partial));  // no empty partials
  t.early_start = t.partials > 1 && rt::supports_early_start(target.arch);
  // Forward training over vector-walked planes, one partial: the held walk where a thread's
  // share fits.
  if (kernel == BnKernel::forward_training && t.spatial && !channels_inner && t.partials == 1 &&
      (t.plane_groups || plane_vectors_fit(x, lanes))) {
    const std::int64_t units = units_per_thread(t, n, s, lanes);
    const std::int64_t in_registers = std::min(units, kHeldRegisterValues / lanes);
    if ((units - in_registers) * t.threads() * 16 <= kHeldSharedBytes) {
      t.held_units = static_cast<int>(units);
      t.held_in_registers = static_cast<int>(in_registers);
    }
  }
  // Forward training over vector-walked planes whose column does not fit the held walk of 256
  // threads but fits one block of kPersistentThreads, at least two such columns a
  // multiprocessor: persistent blocks, whose loads of the next column overlap the stores of
  // this one, x read once, no block waiting for another (the exchange's loss, below).
  const std::int64_t sms = multiprocessors_of(target);
  const bool persistent_wanted = persistence == BnPersistence::wherever_fits ||
                                 (persistence == BnPersistence::heuristic && t.held_units == 0 && t.columns >= 2 * sms);
  if (kernel == BnKernel::forward_training && t.spatial && !channels_inner && !t.plane_groups && persistent_wanted &&
      plane_vectors_fit(x, lanes)) {
    const std::int64_t units = ceil_div(t.rows, lanes * kPersistentThreads);
    const std::int64_t in_registers = std::min(units, kHeldRegisterValues / lanes);
    const auto shared_limit = static_cast<std::int64_t>(shared_per_block_of(target)) - kStaticSharedBytes;
    if ((units - in_registers) * kPersistentThreads * 16 <= shared_limit) {
      t.persistent_blocks = static_cast<int>(std::min(t.columns, sms));
      t.tile_columns = 1;
      t.tile_rows = kPersistentThreads;
      t.partials = 1;
      t.rows_per_partial = t.rows;
      t.early_start = false;  // one launch
      t.held_units = static_cast<int>(units);
      t.held_in_registers = static_cast<int>(in_registers);
    }
  }
  // Forward training over vector-walked planes whose column does not fit one held partial, x
  // larger than the L2 (else the second pass reads x from the L2 anyway): the exchange, with
  // partials small enough to hold (rows_per_partial <= held_rows) and at least as many as the
  // reduce/apply tiling's, at most one a multiprocessor (the kernel's waits end only if a
  // column's partials can be resident together). H200 (docs/PERF_NOTES.md v24, NCHW, batch
  // 64, us): fp32 64x112x112 160.9 -> 137.9, 256x56x56 157.4 -> 148.6, 512x28x28 80.0 -> 74.8;
  // fp16 64x112x112 84.5 -> 80.5, 256x56x56 84.8 -> 81.7; but fp16 512x28x28 (51 MB, within
  // the L2) 43.2 -> 46.9.
  const auto x_bytes = static_cast<std::size_t>(n * c * s * element_bytes);
  if (kernel == BnKernel::forward_training && t.spatial && !channels_inner && !t.plane_groups && t.held_units == 0 &&
      x_bytes > l2_bytes_of(target) && plane_vectors_fit(x, lanes)) {
    const std::int64_t register_units = kExchangeRegisterValues / lanes;
    const std::int64_t held_rows = (register_units + kHeldSharedBytes / (t.threads() * 16)) * lanes * t.tile_rows;
    const std::int64_t most = sms;
    const std::int64_t p = std::max(ceil_div(t.rows, held_rows), std::min<std::int64_t>(t.partials, most));
    if (p > 1 && p <= most) {
      t.exchange = true;
      t.early_start = false;  // one launch
      t.rows_per_partial = ceil_div(ceil_div(t.rows, p), kVectorRows) * kVectorRows;
      t.partials = static_cast<int>(ceil_div(t.rows, t.rows_per_partial));
      const std::int64_t units = ceil_div(t.rows_per_partial, lanes * t.tile_rows);
      t.held_units = static_cast<int>(units);
      t.held_in_registers = static_cast<int>(std::min(units, register_units));
    }
  }
  t.apply_merges = t.partials > 1 && !t.exchange && t.partials <= t.tile_rows * kMaxMergesPerThread &&
                   t.partials * kPartialBytes * kMergeBytesRatio <= t.rows_per_partial * element_bytes;
  return t;
}

void emit_tiling(PlanHeader& h, const BnTiling& t) {
  h.line("struct Tiling {");
  h.line(std::string("  static constexpr bool spatial = ") + (t.spatial ? "true" : "false") + ";");
  h.line(std::string("  static constexpr bool channels_inner = ") + (t.channels_inner ? "true" : "false") + ";");
  h.line("  static constexpr int tile_columns = " + std::to_string(t.tile_columns) + ";");
  h.line("  static constexpr int tile_rows = " + std::to_string(t.tile_rows) + ";");
  h.line("  static constexpr int partials = " + std::to_string(t.partials) + ";");
  h.line("  static constexpr hf::index_t rows_per_partial = " + std::to_string(t.rows_per_partial) + ";");
  h.line(std::string("  static constexpr bool apply_merges = ") + (t.apply_merges ? "true" : "false") + ";");
  h.line(std::string("  static constexpr bool exchange = ") + (t.exchange ? "true" : "false") + ";");
  h.line(std::string("  static constexpr bool plane_groups = ") + (t.plane_groups ? "true" : "false") + ";");
  h.line("  static constexpr int held_units = " + std::to_string(t.held_units) + ";");
  h.line("  static constexpr int held_in_registers = " + std::to_string(t.held_in_registers) + ";");
  h.line(std::string("  static constexpr bool persistent = ") + (t.persistent() ? "true" : "false") + ";");
  h.line("};");
}

}  // namespace hipfuse
