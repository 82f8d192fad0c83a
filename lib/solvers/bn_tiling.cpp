#include "solvers/bn_tiling.h"

#include "solvers/invoker_support.h"

#include <algorithm>
#include <limits>

namespace hipfuse {

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerMultiprocessor = 8;    // 256-thread blocks for full occupancy
constexpr std::int64_t kMinRowsPerThread = 4;  // below this, more partials cost more than they give
constexpr std::int64_t kMaxRowsPerPartial = std::int64_t{1} << 24;  // counts stay exact in fp32
constexpr int kMaxTileColumns = 32;

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

// Enough partials for a full wave of blocks, few enough that each thread has work.
int choose_partials(const BnTiling& t, const Target& target) {
  const std::int64_t column_tiles = ceil_div(t.columns, t.tile_columns);
  const std::int64_t wave = std::int64_t{multiprocessors_of(target)} * kBlocksPerMultiprocessor;
  const std::int64_t most = std::max<std::int64_t>(1, t.rows / (t.tile_rows * kMinRowsPerThread));
  std::int64_t p = std::clamp<std::int64_t>(ceil_div(wave, column_tiles), 1, most);
  p = std::max(p, ceil_div(t.rows, kMaxRowsPerPartial));
  return static_cast<int>(std::min<std::int64_t>(p, 65535));
}

}  // namespace

dim3 BnTiling::grid() const {
  return dim3(static_cast<unsigned>(ceil_div(columns, tile_columns)), static_cast<unsigned>(partials));
}

dim3 BnTiling::finalize_grid() const { return dim3(static_cast<unsigned>(ceil_div(columns, threads()))); }

std::size_t BnTiling::scratch_bytes(int fields) const {
  if (partials == 1) return 0;
  return static_cast<std::size_t>(columns) * static_cast<std::size_t>(partials) * static_cast<std::size_t>(fields) *
         sizeof(float);
}

BnTiling choose_bn_tiling(const TensorDesc& x, BatchNormMode mode, const Target& target) {
  BnTiling t;
  const std::int64_t n = x.lengths[0], c = x.lengths[1], s = spatial_size(x);
  const bool channels_inner = channels_innermost(x) || s == 1;
  t.spatial = mode == BatchNormMode::spatial;
  t.columns = t.spatial ? c : c * s;
  t.rows = t.spatial ? n * s : n;
  t.channels_inner = !t.spatial && channels_inner;
  // Rows run along memory for channel-first spatial BN; otherwise columns do.
  t.tile_columns = t.spatial && !channels_inner ? 1 : pow2_at_least(t.columns);
  t.tile_rows = kThreads / t.tile_columns;
  t.partials = choose_partials(t, target);
  t.rows_per_partial = ceil_div(t.rows, t.partials);
  t.partials = static_cast<int>(ceil_div(t.rows, t.rows_per_partial));  // no empty partials
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
  h.line("};");
}

}  // namespace hipfuse
