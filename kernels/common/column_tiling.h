// How the BN training kernels see a tensor: a matrix of columns (what one statistic is
// computed over) and rows (the elements reduced):
//   spatial BN:        column = channel c,                 rows = N x spatial
//   per-activation BN: column = (c, spatial position),    rows = N
// A block covers tile_columns adjacent columns x one row range ("partial") of them; the
// threads of a column share its rows. Column order follows memory so that the threads of
// a warp touch adjacent addresses: per-activation NHWC columns run channel-fastest.
//
// The plan header describes the tiling in a struct T:
//   spatial, channels_inner (per-activation column order s*C + c), tile_columns,
//   tile_rows (a power of two), partials, rows_per_partial.
#pragma once

#include "common/geometry.h"
#include "common/vendor.h"

namespace hf {

template <class G, class T>
struct ColumnTiling {
  static constexpr index_t columns = T::spatial ? G::C : G::C * G::spatial;
  static constexpr index_t rows = T::spatial ? G::N * G::spatial : G::N;
  static constexpr int threads = T::tile_columns * T::tile_rows;

  // The element at (column, row).
  static HF_DEVICE Coord coord(index_t column, index_t row) {
    Coord at;
    if constexpr (T::spatial) {
      at.c = column;
      at.n = row / G::spatial;
      G::set_spatial(at, row % G::spatial);
    } else {
      at.n = row;
      at.c = T::channels_inner ? column % G::C : column / G::spatial;
      G::set_spatial(at, T::channels_inner ? column / G::C : column % G::spatial);
    }
    return at;
  }

  // Index of the column's BN parameters and statistics (1 x C x spatial, packed).
  static HF_DEVICE index_t parameter_index(index_t column) {
    if constexpr (T::spatial || !T::channels_inner) {
      return column;
    } else {
      return (column % G::C) * G::spatial + column / G::C;
    }
  }

  // This thread's place: column, and the row range of this block's partial it walks with
  // stride tile_rows starting at row_begin + row_lane.
  struct Place {
    index_t column;
    index_t row_begin, row_end;
    int column_lane, row_lane;
    bool valid;  // column < columns
  };
  static HF_DEVICE Place place() {
    Place p;
    p.column_lane = static_cast<int>(threadIdx.x % T::tile_columns);
    p.row_lane = static_cast<int>(threadIdx.x / T::tile_columns);
    p.column = static_cast<index_t>(blockIdx.x) * T::tile_columns + p.column_lane;
    p.valid = p.column < columns;
    p.row_begin = static_cast<index_t>(blockIdx.y) * T::rows_per_partial;
    p.row_end = p.row_begin + T::rows_per_partial < rows ? p.row_begin + T::rows_per_partial : rows;
    return p;
  }

  // use(row, load(row)) over this thread's rows, in order. Loads are issued kBatch rows at a
  // time before their uses, so each thread keeps several memory requests in flight (one at a
  // time leaves the memory system idle; stores in `use` would otherwise order later loads).
  static constexpr int kBatch = 4;
  template <class Load, class Use>
  static HF_DEVICE void for_each_row(const Place& p, Load load, Use use) {
    index_t row = p.row_begin + p.row_lane;
    for (; row + (kBatch - 1) * T::tile_rows < p.row_end; row += kBatch * T::tile_rows) {
      decltype(load(row)) values[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) values[b] = load(row + b * T::tile_rows);
#pragma unroll
      for (int b = 0; b < kBatch; ++b) use(row + b * T::tile_rows, values[b]);
    }
    for (; row < p.row_end; row += T::tile_rows) use(row, load(row));
  }

  // Merges the accumulators of the threads that share a column (tree over row lanes);
  // every thread gets its column's result. `shared` holds `threads` accumulators.
  template <class Acc>
  static HF_DEVICE Acc reduce_rows(const Place& p, Acc a, Acc* shared) {
    static_assert((T::tile_rows & (T::tile_rows - 1)) == 0, "tile_rows must be a power of two");
    shared[threadIdx.x] = a;
    __syncthreads();
#pragma unroll
    for (int step = T::tile_rows / 2; step > 0; step /= 2) {
      if (p.row_lane < step) shared[threadIdx.x].merge(shared[threadIdx.x + step * T::tile_columns]);
      __syncthreads();
    }
    const Acc result = shared[p.column_lane];
    __syncthreads();  // `shared` may be reused
    return result;
  }
};

}  // namespace hf
