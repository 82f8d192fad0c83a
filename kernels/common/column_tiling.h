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
//   tile_rows (a power of two), partials, rows_per_partial, apply_merges (the apply phase
//   merges the partials itself: no finalize launch), plane_groups (spatial NCHW planes that
//   16-byte vectors do not tile: the block's tile_columns channels are walked together,
//   common/plane_groups.h).
#pragma once

#include "common/geometry.h"
#include "common/memory.h"
#include "common/statistics.h"
#include "common/vendor.h"

namespace hf {

namespace detail {
template <bool Small>
struct OffsetType {
  using type = index_t;
};
template <>
struct OffsetType<true> {
  using type = unsigned int;
};
}  // namespace detail

// Where the rows of one column lie in a tensor of geometry G. Walking rows through the
// (n, c, d, h, w) coordinates costs a 64-bit division and modulo per element, which made the
// kernels instruction bound; the common layouts need much less:
//   uniform: offset = column_offset + row * row_stride   (spatial NHWC: stride C; any
//            per-activation layout: stride_n; spatial with one spatial position)
//   plane:   offset = column_offset + (row / S) * stride_n + (row % S) * L   (spatial NCHW:
//            L = 1; the spatial dimensions form one run of stride L)
//   generic: through the coordinates (strides that are neither).
// When every offset of the tensor fits in 31 bits the row arithmetic runs in 32 bits, where
// the division by the constant S is a multiply-high and a shift.
template <class G, class T>
struct RowLayout {
  static constexpr index_t S = G::spatial;
  // The stride between consecutive spatial positions if the spatial dimensions form one
  // row-major run, else 0.
  static constexpr index_t L_candidate = S == 1 ? G::stride_n
                                         : G::W > 1 ? G::stride_w
                                         : G::H > 1 ? G::stride_h
                                                    : G::stride_d;
  static constexpr bool run = S == 1 || ((G::W == 1 || G::stride_w == L_candidate) &&
                                         (G::H == 1 || G::stride_h == L_candidate * G::W) &&
                                         (G::D == 1 || G::stride_d == L_candidate * G::W * G::H));
  static constexpr index_t L = run ? L_candidate : 0;

  static constexpr bool uniform = T::spatial ? run && (G::N == 1 || G::stride_n == S * L) : true;
  static constexpr bool plane = T::spatial && run && !uniform;
  static constexpr index_t row_stride = T::spatial ? L : G::stride_n;

  // The largest offset (for non-negative strides, which `small` requires).
  static constexpr index_t max_offset = (G::N - 1) * G::stride_n + (G::C - 1) * G::stride_c +
                                        (G::D - 1) * G::stride_d + (G::H - 1) * G::stride_h +
                                        (G::W - 1) * G::stride_w;
  static constexpr bool small = G::stride_n >= 0 && G::stride_c >= 0 && G::stride_d >= 0 && G::stride_h >= 0 &&
                                G::stride_w >= 0 && max_offset < (index_t{1} << 31) &&
                                G::elements < (index_t{1} << 31);
  using offset_t = typename detail::OffsetType<small>::type;

  // Whether V consecutive rows starting at a multiple of V are V consecutive elements, and
  // the first one 16-byte aligned when the base is (with V elements per 16 bytes).
  template <int V>
  static constexpr bool vector_rows = T::spatial && (plane || uniform) && L == 1 && S % V == 0 &&
                                      (G::N == 1 || G::stride_n % V == 0) && (G::C == 1 || G::stride_c % V == 0);
};

// The default end_batch of the walks: nothing.
struct NoBatchHook {
  HF_DEVICE void operator()(int) const {}
};

// use(u, load(u)) for the units u = first, first + step, ... below end, forwards or
// backwards. Loads are issued kBatch units at a time before their uses, so each thread keeps
// several memory requests in flight (one at a time leaves the memory system idle; stores in
// `use` would otherwise order later loads). end_batch(units) follows each batch's uses
// (bookkeeping paid per batch, not per unit).
template <int kBatch, bool Reverse, class Load, class Use, class EndBatch>
HF_DEVICE void walk_units(index_t first, index_t end, index_t unit_step, Load load, Use use, EndBatch end_batch) {
  const index_t count = first < end ? (end - first + unit_step - 1) / unit_step : 0;
  const index_t step = Reverse ? -unit_step : unit_step;
  index_t unit = Reverse ? first + (count - 1) * unit_step : first;
  index_t k = 0;
  for (; k + kBatch <= count; k += kBatch, unit += kBatch * step) {
    decltype(load(unit)) values[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) values[b] = load(unit + b * step);
#pragma unroll
    for (int b = 0; b < kBatch; ++b) use(unit + b * step, values[b]);
    end_batch(kBatch);
  }
  // The rest (fewer than kBatch units) in one batch too: a thread of a small partial (a
  // 7x7 plane: ~12 rows a thread) would otherwise wait for its last loads one at a time.
  if (k < count) {
    decltype(load(unit)) values[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      // Past the end: the last unit again (unconditional loads keep the registers down).
      values[b] = load(unit + (k + b < count ? b : count - 1 - k) * step);
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      if (k + b < count) use(unit + b * step, values[b]);
    }
    end_batch(static_cast<int>(count - k));
  }
}

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

  // Offsets of one column's rows in a tensor of geometry Gx (RowLayout), the column's part
  // computed once.
  template <class Gx>
  struct ColumnOffsets {
    using Layout = RowLayout<Gx, T>;
    using offset_t = typename Layout::offset_t;
    index_t column, base;
    HF_DEVICE explicit ColumnOffsets(index_t c) : column(c), base(Gx::offset(coord(c, 0))) {}
    HF_DEVICE index_t operator()(index_t row) const {
      if constexpr (Layout::uniform) {
        return base + static_cast<index_t>(static_cast<offset_t>(row) * static_cast<offset_t>(Layout::row_stride));
      } else if constexpr (Layout::plane) {
        constexpr offset_t S = static_cast<offset_t>(Layout::S);
        const offset_t r = static_cast<offset_t>(row);
        const offset_t n = r / S;
        return base + static_cast<index_t>(n * static_cast<offset_t>(Gx::stride_n) +
                                           (r - n * S) * static_cast<offset_t>(Layout::L));
      } else {
        return Gx::offset(coord(column, row));
      }
    }
  };

  // Whether rows go V at a time as 16-byte vectors in tensors of geometries Gs (the host
  // makes rows_per_partial a multiple of 8 where it can; the pointers' alignment is checked
  // at run time by the caller).
  template <int V, class... Gs>
  static constexpr bool vectorizable = V > 1 && T::rows_per_partial % V == 0 &&
                                       (RowLayout<Gs, T>::template vector_rows<V> && ...);

  // Index of the column's BN parameters and statistics (1 x C x spatial, packed).
  static HF_DEVICE index_t parameter_index(index_t column) {
    if constexpr (T::spatial || !T::channels_inner) {
      return column;
    } else {
      return (column % G::C) * G::spatial + column / G::C;
    }
  }

  // This thread's place: column, and the row range of this block's partial it walks with
  // stride tile_rows starting at row_begin + row_lane. `reversed` numbers the blocks from the
  // other end of the grid: the apply phase then starts where the reduce phase ended, on data
  // that is still in L2.
  struct Place {
    index_t column;
    index_t row_begin, row_end;
    int column_lane, row_lane;
    int partial;  // block's partial (row range) index
    bool valid;   // column < columns
  };
  static HF_DEVICE Place place(bool reversed = false) {
    const unsigned bx = reversed ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    const unsigned by = reversed ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
    return place_at(bx, by);
  }
  // The place of block (column tile bx, partial by), however the block got that work.
  static HF_DEVICE Place place_at(unsigned bx, unsigned by) {
    Place p;
    p.column_lane = static_cast<int>(threadIdx.x % T::tile_columns);
    p.row_lane = static_cast<int>(threadIdx.x / T::tile_columns);
    p.column = static_cast<index_t>(bx) * T::tile_columns + p.column_lane;
    p.valid = p.column < columns;
    p.partial = static_cast<int>(by);
    p.row_begin = static_cast<index_t>(by) * T::rows_per_partial;
    p.row_end = p.row_begin + T::rows_per_partial < rows ? p.row_begin + T::rows_per_partial : rows;
    return p;
  }

  // use(row, load(row)) over this thread's rows in units of V adjacent rows (row: the unit's
  // first; V > 1 needs row_begin and row_end multiples of V), forwards or backwards, batched
  // as walk_units (above) describes.
  template <int V, bool Reverse = false, int kBatch = (V == 1 ? 8 : 4), class Load, class Use,
            class EndBatch = NoBatchHook>
  static HF_DEVICE void for_each_row(const Place& p, Load load, Use use, EndBatch end_batch = {}) {
    walk_units<kBatch, Reverse>(p.row_begin + static_cast<index_t>(p.row_lane) * V, p.row_end,
                                static_cast<index_t>(T::tile_rows) * V, load, use, end_batch);
  }

  // Merges the accumulators of the threads that share a column (tree over row lanes);
  // every thread gets its column's result. `shared` holds `threads` accumulators. Every
  // thread of the block must call it.
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

  // reduce_rows for blocks of one column (tile_columns == 1) whose Acc shuffles
  // (Acc::shuffled_down): a tree over each 32 lanes by shuffles (merged_over_32_lanes), then
  // over the groups' results in the first 32 threads: 2 barriers and a third before `shared`
  // is reused, where reduce_rows takes log2(tile_rows) + 2 (12 for 1024 threads).
  template <class Acc>
  static HF_DEVICE Acc reduce_column(Acc a, Acc zero, Acc* shared) {
    static_assert(T::tile_columns == 1 && T::tile_rows % 32 == 0 && T::tile_rows <= 32 * 32,
                  "one column, whole groups of 32 lanes, at most 32 of them");
    const int lane = static_cast<int>(threadIdx.x) % 32, group = static_cast<int>(threadIdx.x) / 32;
    a = merged_over_32_lanes(a);
    if (lane == 0) shared[group] = a;
    __syncthreads();
    if (group == 0) {
      a = merged_over_32_lanes(lane < T::tile_rows / 32 ? shared[lane] : zero);
      if (lane == 0) shared[T::tile_rows / 32] = a;
    }
    __syncthreads();
    const Acc result = shared[T::tile_rows / 32];
    __syncthreads();  // `shared` may be reused
    return result;
  }

  // The column's merge of the reduce phase's per-partial accumulators (Fields floats each,
  // column-major: partials of a column adjacent), in Acc's precision: row lanes take
  // partials tile_rows apart, then a tree. The order is fixed, so every block computes the
  // same result. `make` builds an Acc from Fields floats. Every thread must call it.
  template <int Fields, class Acc, class Make>
  static HF_DEVICE Acc merge_partials(const Place& p, const float* partials, Acc zero, Make make, Acc* shared) {
    Acc a = zero;
    if (p.valid) {
      const float* in = partials + p.column * T::partials * Fields;
#pragma unroll 4
      for (int q = p.row_lane; q < T::partials; q += T::tile_rows) a.merge(make(in + q * Fields));
    }
    return reduce_rows(p, a, shared);
  }
};

// V values of a unit of rows.
template <int V>
struct Values {
  float v[V];
};

// The unit of V rows at `offset` of a tensor of T: a 16-byte vector when V > 1.
template <class T, int V>
HF_DEVICE Values<V> load_values(const void* base, index_t offset) {
  Values<V> out;
  if constexpr (V == 1) {
    out.v[0] = load_float<T>(base, offset);
  } else {
    static_assert(V == kLanes16<T>, "vector units are 16 bytes");
    load16<T>(base, offset, out.v);
  }
  return out;
}

template <class T, int V>
HF_DEVICE void store_values(void* base, index_t offset, const Values<V>& in) {
  if constexpr (V == 1) {
    store_float<T>(base, offset, in.v[0]);
  } else {
    static_assert(V == kLanes16<T>, "vector units are 16 bytes");
    store16<T>(base, offset, in.v);
  }
}

}  // namespace hf
