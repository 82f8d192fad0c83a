// The BN training walk for spatial NCHW planes that 16-byte vectors do not tile: S spatial
// positions with S % V != 0 (V elements per 16 bytes: 7x7 = 49 in any type, 14x14 = 196 in
// fp16). ColumnTiling would walk such planes one element at a time. Here a block takes
// V adjacent channels (Tiling::tile_columns == V, Tiling::plane_groups): for every image
// their planes are one run of V * S elements, i.e. exactly S vectors, the first aligned
// whenever the tensor's base is. Thread t takes vector j = t % S of every image it walks
// (images t / S, t / S + S_lanes, ...), so its elements always split the same way between
// at most two channels of the group: the first `split` ones belong to channel `low`, the
// rest to low + 1. Each thread keeps two accumulators; reduce_channels merges them per
// channel. Partials cover whole images (the host makes rows_per_partial a multiple of S).
//
// The per-column steps around the walk (statistics, partials, their merge) keep ColumnTiling's
// Place: its column lanes are the group's channels.
#pragma once

#include "common/column_tiling.h"
#include "common/geometry.h"
#include "common/statistics.h"
#include "common/vendor.h"

namespace hf {

template <class G, class T, int V>
struct PlaneGroups {
  static constexpr index_t S = G::spatial;
  static constexpr int threads = T::tile_columns * T::tile_rows;
  static constexpr int image_lanes = S <= threads ? static_cast<int>(threads / S) : 0;  // images a pass covers
  static constexpr int active_threads = image_lanes * static_cast<int>(S);
  static constexpr index_t images_per_partial = T::rows_per_partial / S;
  // Whether a thread's values of one channel can pass kFoldEvery (statistics.h): else its
  // accumulators need no fp64 folds in the loop, one fp32 run holding them all.
  static constexpr bool folds =
      image_lanes == 0 || (images_per_partial + image_lanes - 1) / image_lanes * V > kFoldEvery;

  // Whether tensors of geometry Gx can take the walk: the channels' planes adjacent and
  // contiguous, groups of V channels starting on vector boundaries.
  template <class Gx>
  static constexpr bool fits = Gx::spatial == S && RowLayout<Gx, T>::run && RowLayout<Gx, T>::L == 1 &&
                               Gx::stride_c == S && (Gx::N == 1 || Gx::stride_n % V == 0) && Gx::C % V == 0;
  // Whether the plan asked for the walk and every tensor of geometries Gs can take it.
  template <class... Gs>
  static constexpr bool usable = T::plane_groups && T::spatial && V > 1 && T::tile_columns == V && S % V != 0 &&
                                 S >= V && image_lanes >= 1 && T::rows_per_partial % S == 0 && (fits<Gs> && ...);

  // This thread's place in its block's group of channels and images.
  struct Lane {
    index_t c0;               // the group's first channel
    index_t n_begin, n_end;   // the block's images (its partial)
    int j;                    // the thread's vector in each image's run
    int image_lane;           // its first image, relative to n_begin
    bool active;              // threads past image_lanes * S walk nothing
    int low;                  // group channel of the vector's first element
    int split;                // elements [0, split) are channel low's, the rest low + 1's (split >= V: all low's)
    HF_DEVICE int channel(int e) const { return e < split ? low : low + 1; }
    // Elements of each vector that are low's, and low + 1's.
    HF_DEVICE int low_count() const { return split < V ? split : V; }
    HF_DEVICE int high_count() const { return V - low_count(); }
    // The channel of a thread's second accumulator (low's again where the vector does not split).
    HF_DEVICE int high() const { return split < V ? low + 1 : low; }
  };
  // `reversed` as in ColumnTiling::place: the same block numbering.
  static HF_DEVICE Lane lane(bool reversed = false) {
    Lane g;
    const unsigned bx = reversed ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    const unsigned by = reversed ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
    const int t = static_cast<int>(threadIdx.x);
    g.c0 = static_cast<index_t>(bx) * V;
    g.n_begin = static_cast<index_t>(by) * images_per_partial;
    g.n_end = g.n_begin + images_per_partial < G::N ? g.n_begin + images_per_partial : G::N;
    g.active = t < active_threads;
    g.j = t % static_cast<int>(S);
    g.image_lane = t / static_cast<int>(S);
    g.low = static_cast<int>(static_cast<index_t>(g.j) * V / S);
    g.split = static_cast<int>(static_cast<index_t>(g.low + 1) * S - static_cast<index_t>(g.j) * V);
    return g;
  }

  // Offset of the thread's vector of image n in a tensor of geometry Gx.
  template <class Gx>
  static HF_DEVICE index_t offset(const Lane& g, index_t n) {
    return n * Gx::stride_n + g.c0 * Gx::stride_c + static_cast<index_t>(g.j) * V;
  }
  // The coordinates of element e of the thread's vector of image n.
  static HF_DEVICE Coord coord(const Lane& g, index_t n, int e) {
    const int ch = g.channel(e);
    Coord at;
    at.n = n;
    at.c = g.c0 + ch;
    G::set_spatial(at, static_cast<index_t>(g.j) * V + e - static_cast<index_t>(ch) * S);
    return at;
  }

  // use(n, load(n)) over the thread's images, batched as walk_units.
  template <int kBatch, bool Reverse = false, class Load, class Use, class EndBatch = NoBatchHook>
  static HF_DEVICE void for_each_image(const Lane& g, Load load, Use use, EndBatch end_batch = {}) {
    if (!g.active) return;
    walk_units<kBatch, Reverse>(g.n_begin + g.image_lane, g.n_end, image_lanes, load, use, end_batch);
  }

  // Block-wide scratch of reduce_channels (a token size where the kernel does not take the
  // walk: kernels declare it for every tiling).
  template <class Acc, bool Used = true>
  struct Shared {
    Acc slots[Used ? threads : 1][2];
    Acc channel[V];
  };

  // Merges every thread's (low, high) accumulators into shared.channel[0 .. V): 32 threads a
  // channel, each merging a fixed set of threads' in thread order, then a tree over the 32 by
  // shuffles: no block barrier a level (the same result in every launch). Groups of 32 lanes,
  // not the warp: on a 64-lane wavefront the lanes whose results are kept read only lanes of
  // their own group (lane + step < 32). Every thread of the block must call it; shared.channel
  // is ready on return.
  template <class Acc>
  static HF_DEVICE void reduce_channels(Acc low, Acc high, Acc zero, Shared<Acc, true>& shared) {
    static_assert(threads >= 32 * V, "32 threads a channel of the group");
    shared.slots[threadIdx.x][0] = low;
    shared.slots[threadIdx.x][1] = high;
    __syncthreads();
    const int ch = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const bool merging = ch < V;
    Acc a = zero;
    if (merging) {
      for (int t = lane; t < active_threads; t += 32) {
        const int first = static_cast<int>(static_cast<index_t>(t % static_cast<int>(S)) * V / S);
        if (first == ch) {
          a.merge(shared.slots[t][0]);
        } else if (first + 1 == ch) {
          a.merge(shared.slots[t][1]);  // empty (zero) where t's vector does not split
        }
      }
      // Then a tree over the 32 lanes by shuffles (whole groups of 32 threads merge or not).
      a = merged_over_32_lanes(a);
      if (lane == 0) shared.channel[ch] = a;
    }
    __syncthreads();
  }
};

}  // namespace hf
