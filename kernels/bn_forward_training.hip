// BN forward training + any pointwise epilogue (typically the activation):
//   y = Epilogue( scale * (x - mean) * inv_std + bias ),  batch statistics per column
// (column_tiling.h), written to saved_mean / saved_inv_variance, and to the running
// statistics when the op asked for them (unbiased variance M/(M-1), none when M == 1;
// exp_avg_factor weights the new statistic).
//
// One kernel, launched per phase (BnPhase):
//   partials == 1: kBnReduce does it all: a block owns whole columns, reduces them,
//                  writes the statistics and normalises (its second read mostly hits L2);
//   exchange:      one launch of several partials a column: each block takes the next
//                  (column tile, partial) by ticket, holds its rows, publishes its partial
//                  moments, waits until its column's other partials are published (a
//                  counter per column tile), merges them in fp64 and normalises what it
//                  holds: x is read once from memory (Tiling::exchange);
//   partials > 1:  kBnReduce writes each block's partial moments to the scratch;
//                  with Tiling::apply_merges, kBnApply merges its columns' partials in fp64
//                  itself (a few hundred bytes per block; the blocks of partial 0 write the
//                  op's outputs) and normalises; otherwise kBnFinalize merges them into the
//                  op's outputs first and kBnApply reads mean and inv_std back.
// Threads accumulate shifted sums in fp32 runs folded into fp64, blocks merge Welford/Chan moments in fp32 and
// partials merge in fp64.
//
// Rows go as 16-byte vectors along the plane where the layout allows (ColumnTiling::
// vectorizable) and the pointers are aligned (args.vector_ok); planes that vectors do not
// tile go as vectors across a group of channels (Tiling::plane_groups, common/
// plane_groups.h); one element at a time otherwise. The apply phase and the fused second pass walk rows and blocks in the reverse
// order of the reduce, so that they start on the data the reduce read last, still in L2.
// With Tiling::held_units (one partial, a thread's share at most that many vectors: the 7x7
// and 14x14 planes of 64 images) the vector and plane-group walks hold the thread's whole share
// from the reduce to the normalise, the first Tiling::held_in_registers units in registers and
// the rest in dynamic shared memory (copied there by cp.async): x is read once, and all of a
// thread's loads are in flight together.
// With Tiling::persistent (one partial, fewer blocks than column tiles: columns that only a
// block of 1024 threads can hold) block b takes column tiles b, b + gridDim.x, ... and, holding
// x, loads the next tile's units while it normalises the current one: its loads overlap its
// stores, and no block waits for another.
//
// hf_plan.h provides: data_t, param_t, XGeom, YGeom, Tiling, kRunningStats, Epilogue.
#include "common/column_tiling.h"
#include "common/kernel_args.h"
#include "common/memory.h"
#include "common/plane_groups.h"
#include "common/pointwise_chain.h"
#include "common/ready_counters.h"
#include "common/statistics.h"
#include "common/vendor.h"
#include "hf_plan.h"

namespace {

using namespace hf_plan;
using hf::index_t;
using Tiles = hf::ColumnTiling<XGeom, Tiling>;
using Place = Tiles::Place;
using XOffsets = Tiles::ColumnOffsets<XGeom>;
using YOffsets = Tiles::ColumnOffsets<YGeom>;

constexpr int kPartialFields = 3;  // n, mean, m2
constexpr int kLanes = hf::kLanes16<data_t>;
constexpr bool kVector = Tiles::vectorizable<kLanes, XGeom, YGeom>;
constexpr int kVectorLanes = kVector ? kLanes : 1;
using Groups = hf::PlaneGroups<XGeom, Tiling, kLanes>;
constexpr bool kGrouped = Groups::usable<XGeom, YGeom>;
// Units in flight per thread: 4 vectors, or 8 scalar loads. 2-byte types' loads carry half
// the bytes, so they batch 12 (the forward pass reads one tensor: 12 fit in 64 registers
// without spilling where 16 did not), and 10 where the apply blocks also merge the partials
// (Tiling::apply_merges: 12 left an 8-byte frame on fp16 NCHW 4x32x28x28; 10 ran within 0.3%
// of 12 on the five fp16 NCHW NA forward-training layers at batch 64, H100).
template <int V>
constexpr int kBatch = V == 1 ? (sizeof(data_t) < 4 ? (Tiling::apply_merges ? 10 : 12) : 8) : 4;
// At most 64 registers a thread, so that 1024 threads fit on a multiprocessor: the host
// sizes the grid for that many (bn_tiling.cpp, kThreadsPerMultiprocessor).
constexpr int kMinBlocksPerMultiprocessor = Tiles::threads <= 1024 ? 1024 / Tiles::threads : 1;

static_assert(Tiling::partials == 1 || Tiles::rows > 1, "several partials need several rows");
static_assert(!Tiling::exchange || (Tiling::partials > 1 && !Tiling::plane_groups && !Tiling::apply_merges),
              "the exchange is for several partials walked along the plane");
static_assert(!Tiling::persistent || (Tiling::partials == 1 && Tiling::tile_columns == 1 && !Tiling::plane_groups &&
                                       !Tiling::exchange),
              "persistent blocks walk one whole column at a time along the plane (every tile below the "
              "column tiles is a valid column)");

constexpr index_t kColumnTiles = (Tiles::columns + Tiling::tile_columns - 1) / Tiling::tile_columns;

// Whether the walk of V-value units holds the thread's share (Held) between the reduce and the
// normalise: the host's choice, for the vector walks of a one-partial tiling.
constexpr int kHeld = Tiling::held_units;
constexpr int kHeldInRegisters = Tiling::held_in_registers;
template <int V>
constexpr bool kHolds = kHeld > 0 && V > 1 && (Tiling::partials == 1 || Tiling::exchange);

// A thread's units of x, unit k at the k-th place of its walk: k < kHeldInRegisters in
// registers (a compile-time index once the loops over k unroll), as loaded (16 bytes, 4
// registers, whatever the type: 2-byte types unpack when read), the others in its 16-byte
// slots of the dynamic shared memory, slot k - kHeldInRegisters of thread t at
// (k - kHeldInRegisters) * threads + t (the host sizes it: BnTiling::shared_bytes). Only the
// vector walks hold (kHolds: V > 1).
template <int V>
struct Held {
  hf::Words<16> in_registers[kHeldInRegisters > 0 ? kHeldInRegisters : 1];
  unsigned char* in_shared;  // this thread's first slot

  HF_DEVICE Held() {
    extern __shared__ uint4 held_slots[];
    in_shared = reinterpret_cast<unsigned char*>(held_slots + threadIdx.x);
  }
  HF_DEVICE void* slot(int k) const { return in_shared + (k - kHeldInRegisters) * Tiles::threads * 16; }
  // Starts the load of unit k from x's element `offset` (`valid`: the unit lies in the tensor;
  // else it is left unloaded).
  HF_DEVICE void load(int k, const void* x, index_t offset, bool valid) {
    if (k < kHeldInRegisters) {
      if (valid) in_registers[k] = *reinterpret_cast<const hf::Words<16>*>(static_cast<const data_t*>(x) + offset);
    } else {
      hf::cp_async16(slot(k), static_cast<const data_t*>(x) + (valid ? offset : 0), valid);
    }
  }
  HF_DEVICE hf::Values<V> get(int k) const {
    if (k >= kHeldInRegisters) return hf::load_values<data_t, V>(slot(k), 0);
    hf::Values<V> out;
    hf::unpack_lanes<data_t, V>(in_registers[k], out.v);
    return out;
  }
};

// The block's shared memory, declared once for every phase and vector width.
struct Shared {
  union {  // each launch uses one: the column walk's reduction, the plane groups', or the merge of partials
    hf::Moments<float> moments[Tiles::threads];
    hf::Moments<double> merged[Tiles::threads];
    Groups::Shared<hf::Moments<float>, kGrouped> groups;
  };
  float inv_std[Tiling::tile_columns];
  float mean[Tiling::tile_columns];  // plane groups
  unsigned ticket;                   // exchange: the block's work
};

// This thread's moments over its rows of the block's partial.
template <int V>
HF_DEVICE hf::Moments<float> thread_moments(const hf::BnForwardArgs& args, const Place& p) {
  if (!p.valid) return {0.0f, 0.0f, 0.0f};
  const XOffsets x(p.column);
  hf::ShiftedSums sums(hf::load_float<data_t>(args.x, x(0)));
  Tiles::for_each_row<V, false, kBatch<V>>(
      p, [&](index_t row) { return hf::load_values<data_t, V>(args.x, x(row)); },
      [&](index_t, const hf::Values<V>& in) { sums.add(in.v); },
      [&](int units) { sums.end_batch<V>(units); });
  return sums.moments();
}

// The first row of unit k of this thread's walk (for_each_row's order); at or past row_end: none.
template <int V>
HF_DEVICE index_t held_row(const Place& p, int k) {
  return p.row_begin + (static_cast<index_t>(k) * Tiling::tile_rows + p.row_lane) * V;
}

// Starts the loads of every unit k of this thread (x's element offset(k), if valid(k)) into
// `held` at once.
template <int V, class Offset, class Valid>
HF_DEVICE void start_held(const hf::BnForwardArgs& args, Held<V>& held, Offset offset, Valid valid) {
#pragma unroll
  for (int k = 0; k < kHeld; ++k) held.load(k, args.x, offset(k), valid(k));
  hf::cp_async_commit();
}

// Passes the values of each unit that start_held loaded to add(), as they land: those in
// registers first, while the shared ones land.
template <int V, class Valid, class Add>
HF_DEVICE void add_held(const Held<V>& held, Valid valid, Add add) {
#pragma unroll
  for (int k = 0; k < kHeldInRegisters; ++k) {
    if (valid(k)) add(held.get(k));
  }
  hf::cp_async_wait<0>();  // each thread reads back only its own slots: no block barrier
#pragma unroll
  for (int k = kHeldInRegisters; k < kHeld; ++k) {
    if (valid(k)) add(held.get(k));
  }
}

template <int V, class Offset, class Valid, class Add>
HF_DEVICE void load_held(const hf::BnForwardArgs& args, Held<V>& held, Offset offset, Valid valid, Add add) {
  start_held<V>(args, held, offset, valid);
  add_held<V>(held, valid, add);
}

// Whether unit k of this thread's share of p lies in its partial (the held walk along the
// plane; p itself is valid).
template <int V>
HF_DEVICE bool held_valid(const Place& p, int k) {
  return held_row<V>(p, k) < p.row_end;
}

// Starts the loads of this thread's share of p into `held` (the held walk along the plane; p is
// valid).
template <int V>
HF_DEVICE void start_held_rows(const hf::BnForwardArgs& args, Held<V>& held, const Place& p) {
  const XOffsets x(p.column);
  start_held<V>(
      args, held, [&](int k) { return x(held_row<V>(p, k)); }, [&](int k) { return held_valid<V>(p, k); });
}

// thread_moments over the units of p that start_held_rows loaded into `held`. The shift is the
// thread's first value, in registers, so that no load of its own waits before the sums.
template <int V>
HF_DEVICE hf::Moments<float> held_rows_moments(const Place& p, const Held<V>& held) {
  static_assert(kHeldInRegisters > 0, "the shift is read from the units in registers");
  // Every thread waits for its copies, even with nothing to add: none is left in flight.
  hf::ShiftedSums sums(held_valid<V>(p, 0) ? held.get(0).v[0] : 0.0f);
  int values = 0;
  add_held<V>(held, [&](int k) { return held_valid<V>(p, k); },
              [&](const hf::Values<V>& in) {
                sums.add(in.v);
                values += V;
              });
  sums.sums.end_batch_values<false>(values);  // at most kHeld * V values: one fp32 run
  return sums.moments();
}

// thread_moments over units loaded all at once into `held`.
template <int V>
HF_DEVICE hf::Moments<float> held_moments(const hf::BnForwardArgs& args, const Place& p, Held<V>& held) {
  if (!p.valid) return {0.0f, 0.0f, 0.0f};  // before the loads, not in their predicates: 0 spills, not 120 bytes
  start_held_rows<V>(args, held, p);
  return held_rows_moments<V>(p, held);
}

// This thread's moments by the walk the tiling takes: held_moments where it holds x.
template <int V>
HF_DEVICE hf::Moments<float> walk_moments(const hf::BnForwardArgs& args, const Place& p, Held<V>& held) {
  if constexpr (kHolds<V>) {
    return held_moments<V>(args, p, held);
  } else {
    return thread_moments<V>(args, p);
  }
}

HF_DEVICE double inv_std_of(const hf::BnForwardArgs& args, double m2) {
  return 1.0 / sqrt(m2 / static_cast<double>(Tiles::rows) + static_cast<double>(args.epsilon));
}

// Writes a column's statistics; returns inv_std.
HF_DEVICE float write_statistics(const hf::BnForwardArgs& args, index_t column, double mean, double m2) {
  constexpr double M = static_cast<double>(Tiles::rows);
  const double var = m2 / M;
  const double inv_std = inv_std_of(args, m2);
  const index_t i = Tiles::parameter_index(column);
  hf::store_float<param_t>(args.saved_mean, i, static_cast<float>(mean));
  hf::store_float<param_t>(args.saved_inv_variance, i, static_cast<float>(inv_std));
  if constexpr (kRunningStats) {
    const double f = args.exp_avg_factor;
    const double unbiased = Tiles::rows > 1 ? var * (M / (M - 1.0)) : var;
    const double rm = hf::load_float<param_t>(args.running_mean, i);
    const double rv = hf::load_float<param_t>(args.running_variance, i);
    hf::store_float<param_t>(args.running_mean, i, static_cast<float>((1.0 - f) * rm + f * mean));
    hf::store_float<param_t>(args.running_variance, i, static_cast<float>((1.0 - f) * rv + f * unbiased));
  }
  return static_cast<float>(inv_std);
}

// y over this thread's rows of the block's partial, last rows first; with Holds, from `held`
// (held_moments) instead of x, and with `prefetch`, each unit's slot then starts loading the
// unit of `next` (start_held_rows). (`next` by reference, not as a pointer that may be null:
// that put the place in local memory.)
template <int V, bool Holds = false>
HF_DEVICE void normalize(const hf::BnForwardArgs& args, const Place& p, float mean, float inv_std,
                         Held<V>* held = nullptr, bool prefetch = false, const Place& next = {}) {
  if (!p.valid) return;
  const index_t i = Tiles::parameter_index(p.column);
  const float scale = hf::load_float<param_t>(args.scale, i) * inv_std;
  const float bias = hf::load_float<param_t>(args.bias, i);
  const YOffsets y(p.column);
  const auto write = [&](index_t row, const hf::Values<V>& in) {
    const index_t y_offset = y(row);
    hf::Values<V> out;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      // Only the coordinates the epilogue reads survive compilation (none for an
      // activation, the channel for a bias).
      const hf::Coord at = Tiles::coord(p.column, row + j);
      const float v = fmaf(in.v[j] - mean, scale, bias);  // x - mean first: exact-ish when |mean| >> std
      out.v[j] = Epilogue::apply(v, at, y_offset + j, args.chain);
    }
    hf::store_values<data_t, V>(args.y, y_offset, out);
  };
  if constexpr (Holds) {
    const XOffsets x_next(next.column);
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      if (held_row<V>(p, k) < p.row_end) write(held_row<V>(p, k), held->get(k));
      // The store above took the slot's values, so the load may overwrite it.
      if (prefetch) held->load(k, args.x, x_next(held_row<V>(next, k)), held_valid<V>(next, k));
    }
    if (prefetch) hf::cp_async_commit();
  } else {
    const XOffsets x(p.column);
    Tiles::for_each_row<V, true, kBatch<V>>(
        p, [&](index_t row) { return hf::load_values<data_t, V>(args.x, x(row)); }, write);
  }
}

// The block's moments of p's column, as its partial (reduce phase of several partials).
HF_DEVICE void write_partial(const hf::BnForwardArgs& args, const Place& p, const hf::Moments<float>& m) {
  float* out = args.partials + (p.column * Tiling::partials + p.partial) * kPartialFields;
  out[0] = m.n;
  out[1] = m.mean;
  out[2] = m.m2;
}

// Tiling::persistent: the block's column tiles blockIdx.x, + gridDim.x, ... in one pass each;
// holding x, it starts the next tile's loads as it normalises (the scalar walk of misaligned
// pointers reads x again instead).
template <int V>
HF_DEVICE void persistent_phase(const hf::BnForwardArgs& args, Shared& shared) {
  if (blockIdx.x >= kColumnTiles) return;  // the host launches at most one block a tile
  Held<V> held;  // unused unless kHolds<V>
  Place p = Tiles::place_at(blockIdx.x, 0);
  if constexpr (kHolds<V>) start_held_rows<V>(args, held, p);
  for (unsigned tile = blockIdx.x; tile < kColumnTiles; tile += gridDim.x) {
    const unsigned next_tile = tile + gridDim.x;
    Place next = Tiles::place_at(next_tile, 0);
    // Else the rows' offsets, the same for every tile, are hoisted out of the loop: 13 units'
    // worth of registers, which spilled 100 bytes (fp32, sm_90).
    next.row_lane = hf::opaque(next.row_lane);
    hf::Moments<float> own;
    if constexpr (kHolds<V>) {
      own = held_rows_moments<V>(p, held);
    } else {
      own = thread_moments<V>(args, p);
    }
    // Shuffles and 3 barriers instead of reduce_rows' 12 (H100, docs/PERF_NOTES.md v46: fp16
    // 64x512x28x28 0.967x, fp32 0.996x).
    const hf::Moments<float> m = Tiles::reduce_column(own, hf::Moments<float>{0.0f, 0.0f, 0.0f}, shared.moments);
    if (p.valid && p.row_lane == 0) shared.inv_std[p.column_lane] = write_statistics(args, p.column, m.mean, m.m2);
    __syncthreads();  // the next tile's statistics are written after reduce_column's barriers: no second one
    normalize<V, kHolds<V>>(args, p, m.mean, shared.inv_std[p.column_lane], &held, next_tile < kColumnTiles, next);
    p = next;
  }
}

template <int V>
HF_DEVICE void reduce_phase(const hf::BnForwardArgs& args, Shared& shared) {
  if constexpr (Tiling::persistent) {
    persistent_phase<V>(args, shared);
    return;
  }
  const Place p = Tiles::place();
  Held<V> held;  // unused unless kHolds<V>
  const hf::Moments<float> m = Tiles::reduce_rows(p, walk_moments<V>(args, p, held), shared.moments);
  if constexpr (Tiling::partials == 1) {
    if (p.valid && p.row_lane == 0) shared.inv_std[p.column_lane] = write_statistics(args, p.column, m.mean, m.m2);
    __syncthreads();
    normalize<V, kHolds<V>>(args, p, m.mean, shared.inv_std[p.column_lane], &held);
  } else if (p.valid && p.row_lane == 0) {
    write_partial(args, p, m);
  }
}

// The moments of the block's columns, merged from the partials in fp64.
HF_DEVICE hf::Moments<double> merged_moments(const hf::BnForwardArgs& args, const Place& p, Shared& shared) {
  return Tiles::merge_partials<kPartialFields>(
      p, args.partials, hf::Moments<double>{0.0, 0.0, 0.0},
      [](const float* in) { return hf::Moments<double>{in[0], in[1], in[2]}; }, shared.merged);
}

// Blocks of tile_columns columns.
HF_DEVICE void finalize_phase(const hf::BnForwardArgs& args, Shared& shared) {
  const Place p = Tiles::place();
  const hf::Moments<double> m = merged_moments(args, p, shared);
  if (p.valid && p.row_lane == 0) write_statistics(args, p.column, m.mean, m.m2);
}

// A column's batch mean and inverse standard deviation, as the apply phase normalises with.
struct ColumnStatistics {
  float mean, inv_std;
};

// The apply phase's statistics of p's column: merged from the partials here (the blocks of
// partial 0 write the op's outputs) or read back from them after the finalize launch. Every
// thread of the block must call it (the merge is a block-wide tree).
HF_DEVICE ColumnStatistics apply_statistics(const hf::BnForwardArgs& args, const Place& p, Shared& shared) {
  if constexpr (Tiling::apply_merges) {
    const hf::Moments<double> m = merged_moments(args, p, shared);
    if (p.valid && p.row_lane == 0 && p.partial == 0) write_statistics(args, p.column, m.mean, m.m2);
    // The same float values the statistics outputs hold.
    return {static_cast<float>(m.mean), static_cast<float>(inv_std_of(args, m.m2))};
  } else {
    if (!p.valid) return {0.0f, 0.0f};
    const index_t i = Tiles::parameter_index(p.column);
    return {hf::load_float<param_t>(args.saved_mean, i), hf::load_float<param_t>(args.saved_inv_variance, i)};
  }
}

template <int V>
HF_DEVICE void apply_phase(const hf::BnForwardArgs& args, Shared& shared) {
  const Place p = Tiles::place(true);
  if constexpr (!Tiling::apply_merges) {
    if (!p.valid) return;  // no block-wide step follows
  }
  const ColumnStatistics c = apply_statistics(args, p, shared);
  normalize<V>(args, p, c.mean, c.inv_std);
}

// ---- exchange: several partials a column in one launch ----------------------------------

// Counter slots after the per-column-tile counts (ready_counters.h's layout, columns for
// images): the next ticket, then the retired blocks.
constexpr index_t kTicketSlot = kColumnTiles;
static_assert(hf::kReadyCounterSlots == 2, "the ticket's slot and retire_ready's");
constexpr unsigned kExchangeBlocks = static_cast<unsigned>(kColumnTiles * Tiling::partials);

// Work goes by ticket, not by block index: a column's partials are consecutive tickets, held
// by blocks that have started, so whenever every resident block waits, the lowest waiting
// column has all its tickets taken and published (the host keeps partials <= multiprocessors,
// at least one block each): the waits end.
template <int V>
HF_DEVICE void exchange_phase(const hf::BnForwardArgs& args, Shared& shared) {
  if (threadIdx.x == 0) shared.ticket = atomicAdd(args.counters + kTicketSlot, 1u);
  __syncthreads();
  const unsigned ticket = shared.ticket;
  // Past the last ticket only if two executions of the plan overlap, which its scratch forbids:
  // a launch error then, not writes past the counters.
  if (ticket >= kExchangeBlocks) hf::trap();
  const unsigned tile = ticket / Tiling::partials;
  const Place p = Tiles::place_at(tile, ticket % Tiling::partials);
  Held<V> held;  // unused unless kHolds<V> (the scalar walk of misaligned pointers reads x again)
  const hf::Moments<float> m = Tiles::reduce_rows(p, walk_moments<V>(args, p, held), shared.moments);
  if (p.valid && p.row_lane == 0) write_partial(args, p, m);
  __syncthreads();
  if (threadIdx.x == 0) {
    hf::count_ready(args.counters + tile);
    hf::wait_ready(args.counters + tile, Tiling::partials);
  }
  __syncthreads();  // the partials the count covers are visible to every thread after it
  const hf::Moments<double> merged = merged_moments(args, p, shared);
  if (p.valid && p.row_lane == 0 && p.partial == 0) write_statistics(args, p.column, merged.mean, merged.m2);
  // The same float values the statistics outputs hold.
  normalize<V, kHolds<V>>(args, p, static_cast<float>(merged.mean), static_cast<float>(inv_std_of(args, merged.m2)),
                          &held);
  // Past its wait: the last block zeroes the counters for the next launch or graph replay.
  if (threadIdx.x == 0) hf::retire_ready(args.counters, static_cast<int>(kColumnTiles), kExchangeBlocks);
}

// ---- plane groups: V channels a block, walked as vectors across their planes -------------

// The image of unit k of this thread's plane-group walk (for_each_image's order); at or past
// n_end: none.
HF_DEVICE index_t held_image(const Groups::Lane& g, int k) {
  return g.n_begin + g.image_lane + static_cast<index_t>(k) * Groups::image_lanes;
}

// This thread's moments of its two channels (low, high) over its vectors; with Holds, loaded
// all at once into `held`. Element e of every vector belongs to the same channel (low's for
// e < split), so each e keeps fp32 sums of its own, shifted by its channel's value, and the
// loop makes no per-element choice between the two channels (it cost ~34 instructions a vector
// against ~12: docs/PERF_NOTES.md v27); they go into the channels' runs after each batch.
template <int V, bool Holds = false>
HF_DEVICE void group_moments(const hf::BnForwardArgs& args, const Groups::Lane& g, hf::Moments<float>& low,
                             hf::Moments<float>& high, Held<V>* held = nullptr) {
  low = high = {0.0f, 0.0f, 0.0f};
  if (!g.active) return;
  // A value of each channel as its shift: the plane's first of the partial's first image.
  const index_t first = g.n_begin * XGeom::stride_n + g.c0 * XGeom::stride_c;
  hf::ShiftedSums lo(hf::load_float<data_t>(args.x, first + g.low * XGeom::stride_c));
  hf::ShiftedSums hi(hf::load_float<data_t>(args.x, first + g.high() * XGeom::stride_c));
  const int lo_count = g.low_count(), hi_count = g.high_count();
  float shift[V], run1[V], run2[V];
#pragma unroll
  for (int e = 0; e < V; ++e) {
    shift[e] = e < g.split ? lo.shift : hi.shift;
    run1[e] = run2[e] = 0.0f;
  }
  const auto load = [&](index_t n) { return hf::load_values<data_t, V>(args.x, Groups::offset<XGeom>(g, n)); };
  const auto add = [&](const hf::Values<V>& in) {
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const float d = in.v[e] - shift[e];
      run1[e] += d;
      run2[e] = fmaf(d, d, run2[e]);
    }
  };
  const auto flush = [&] {  // the elements' runs into their channels' runs
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const bool low_e = e < g.split;
      lo.sums.run1 += low_e ? run1[e] : 0.0f;
      lo.sums.run2 += low_e ? run2[e] : 0.0f;
      hi.sums.run1 += low_e ? 0.0f : run1[e];
      hi.sums.run2 += low_e ? 0.0f : run2[e];
      run1[e] = run2[e] = 0.0f;
    }
  };
  if constexpr (Holds) {
    int units = 0;
    load_held<V>(
        args, *held, [&](int k) { return Groups::offset<XGeom>(g, held_image(g, k)); },
        [&](int k) { return held_image(g, k) < g.n_end; },
        [&](const hf::Values<V>& in) {
          add(in);
          ++units;
        });
    flush();
    // At most kHeld * V values a channel: one fp32 run.
    lo.sums.end_batch_values<false>(units * lo_count);
    hi.sums.end_batch_values<false>(units * hi_count);
  } else {
    Groups::for_each_image<kBatch<V>>(
        g, load, [&](index_t, const hf::Values<V>& in) { add(in); },
        [&](int units) {
          flush();
          lo.sums.end_batch_values<Groups::folds>(units * lo_count);
          hi.sums.end_batch_values<Groups::folds>(units * hi_count);
        });
  }
  low = lo.moments();
  high = hi.moments();
}

// y over this thread's vectors, last images first (with Holds: from `held`); mean and
// inv_std: the group's channels'.
template <int V, bool Holds = false>
HF_DEVICE void group_normalize(const hf::BnForwardArgs& args, const Groups::Lane& g, const float* mean,
                               const float* inv_std, const Held<V>* held = nullptr) {
  if (!g.active) return;
  const int ch[2] = {g.low, g.high()};
  float shift[2], scale[2], bias[2];
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const index_t i = Tiles::parameter_index(g.c0 + ch[k]);
    shift[k] = mean[ch[k]];
    scale[k] = hf::load_float<param_t>(args.scale, i) * inv_std[ch[k]];
    bias[k] = hf::load_float<param_t>(args.bias, i);
  }
  // Each element's channel's parameters, chosen once (as group_moments' shifts).
  float e_shift[V], e_scale[V], e_bias[V];
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const bool low_e = e < g.split;  // a select, not an index: shift[k] would put the arrays in local memory
    e_shift[e] = low_e ? shift[0] : shift[1];
    e_scale[e] = low_e ? scale[0] : scale[1];
    e_bias[e] = low_e ? bias[0] : bias[1];
  }
  const auto write = [&](index_t n, const hf::Values<V>& in) {
    const index_t y_offset = Groups::offset<YGeom>(g, n);
    hf::Values<V> out;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const float v = fmaf(in.v[e] - e_shift[e], e_scale[e], e_bias[e]);
      out.v[e] = Epilogue::apply(v, Groups::coord(g, n, e), y_offset + e, args.chain);
    }
    hf::store_values<data_t, V>(args.y, y_offset, out);
  };
  if constexpr (Holds) {
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      if (held_image(g, k) < g.n_end) write(held_image(g, k), held->get(k));
    }
  } else {
    Groups::for_each_image<kBatch<V>, true>(
        g, [&](index_t n) { return hf::load_values<data_t, V>(args.x, Groups::offset<XGeom>(g, n)); }, write);
  }
}

template <int V>
HF_DEVICE void group_reduce_phase(const hf::BnForwardArgs& args, Shared& shared) {
  const Groups::Lane g = Groups::lane();
  Held<V> held;  // unused unless kHolds<V>
  hf::Moments<float> low, high;
  group_moments<V, kHolds<V>>(args, g, low, high, &held);
  Groups::reduce_channels(low, high, hf::Moments<float>{0.0f, 0.0f, 0.0f}, shared.groups);
  const Place p = Tiles::place();  // column lanes = the group's channels
  if (p.valid && p.row_lane == 0) {
    const hf::Moments<float> m = shared.groups.channel[p.column_lane];
    if constexpr (Tiling::partials == 1) {
      shared.mean[p.column_lane] = m.mean;
      shared.inv_std[p.column_lane] = write_statistics(args, p.column, m.mean, m.m2);
    } else {
      write_partial(args, p, m);
    }
  }
  if constexpr (Tiling::partials == 1) {
    __syncthreads();
    group_normalize<V, kHolds<V>>(args, g, shared.mean, shared.inv_std, &held);
  }
}

template <int V>
HF_DEVICE void group_apply_phase(const hf::BnForwardArgs& args, Shared& shared) {
  const Place p = Tiles::place(true);  // column lanes = the group's channels
  const ColumnStatistics c = apply_statistics(args, p, shared);
  if (p.valid && p.row_lane == 0) {
    shared.mean[p.column_lane] = c.mean;
    shared.inv_std[p.column_lane] = c.inv_std;
  }
  __syncthreads();
  group_normalize<V>(args, Groups::lane(true), shared.mean, shared.inv_std);
}

template <bool Grouped>
HF_DEVICE void run_groups(const hf::BnForwardArgs& args, Shared& shared) {
  if constexpr (Grouped) {
    if (Tiling::partials == 1 || args.phase == hf::kBnReduce) {
      group_reduce_phase<kLanes>(args, shared);
    } else if constexpr (Tiling::partials > 1) {
      group_apply_phase<kLanes>(args, shared);
    }
  }
}

// The phases this tiling launches, and nothing else (compile time: each is built for the
// vector and the scalar walk).
template <int V>
HF_DEVICE void run(const hf::BnForwardArgs& args, Shared& shared) {
  if (Tiling::partials == 1 || args.phase == hf::kBnReduce) {
    reduce_phase<V>(args, shared);
  } else if constexpr (Tiling::partials > 1) {
    apply_phase<V>(args, shared);
  }
}

}  // namespace

HF_KERNEL void __launch_bounds__(Tiles::threads, kMinBlocksPerMultiprocessor) hf_bn_forward_training(hf::BnForwardArgs args) {
  // The finalize and apply phases start early (launch_bn_phases): they wait for the phase before.
  hf::wait_for_prior_grid();
  hf::allow_early_start();
  __shared__ Shared shared;
  if constexpr (Tiling::exchange) {
    if (kVector && args.vector_ok) {
      exchange_phase<kVectorLanes>(args, shared);
    } else {
      exchange_phase<1>(args, shared);
    }
    return;
  }
  if constexpr (Tiling::partials > 1 && !Tiling::apply_merges) {
    if (args.phase == hf::kBnFinalize) {
      finalize_phase(args, shared);
      return;
    }
  }
  if (kVector && args.vector_ok) {
    run<kVectorLanes>(args, shared);
  } else if (kGrouped && args.vector_ok) {
    run_groups<kGrouped>(args, shared);
  } else {
    run<1>(args, shared);
  }
}
