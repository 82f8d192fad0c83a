// How the BN training families split a tensor into columns x rows (kernels/common/
// column_tiling.h) and blocks, chosen at build time from the layout and the device size,
// and how the choice is written into the plan header and launched.
#pragma once

#include "common/kernel_args.h"
#include "runtime/kernel_compiler.h"
#include "solvers/plan_header.h"
#include "solvers/solver.h"

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hipfuse {

struct BnTiling {
  bool spatial = true;
  bool channels_inner = false;  // per-activation columns ordered s*C + c (channels-last data)
  int tile_columns = 1;         // adjacent columns per block
  int tile_rows = 256;          // threads per column in a block (a power of two)
  int partials = 1;             // row ranges per column: 1 = one fused pass, else reduce/finalize/apply
  bool apply_merges = false;    // partials > 1: the apply phase merges the partials (no finalize)
  // Forward training, partials > 1 along vector-walked planes: one launch whose blocks hold
  // their share of x, exchange their partial moments through counters and normalise what they
  // hold (kernels/bn_forward_training.hip): x is read once.
  bool exchange = false;
  bool plane_groups = false;    // spatial NCHW planes vectors do not tile: tile_columns channels walked together
  int held_units = 0;           // forward training, one partial or exchange: the vector units a thread holds from reduce to normalise (0: none)
  int held_in_registers = 0;    // of which in registers; the rest in dynamic shared memory
  // Forward training, one partial whose column only a block of kPersistentThreads can hold: that
  // many blocks (one a multiprocessor), each walking column tiles b, b + blocks, ... and loading
  // the next tile while it normalises this one (kernels/bn_forward_training.hip); 0: not so.
  int persistent_blocks = 0;
  std::int64_t columns = 0, rows = 0, rows_per_partial = 0;
  // The finalize and apply phases start early (rt::launch_kernel), where the target can.
  bool early_start = false;

  int threads() const { return tile_columns * tile_rows; }
  bool persistent() const { return persistent_blocks > 0; }
  dim3 grid() const;           // reduce and apply phases: column tiles x partials
  dim3 finalize_grid() const;  // column tiles
  int launches() const { return partials == 1 || exchange ? 1 : apply_merges ? 2 : 3; }
  // Dynamic shared memory of the (first) launch: the held units not in registers, 16 bytes each.
  unsigned shared_bytes() const { return static_cast<unsigned>((held_units - held_in_registers) * threads() * 16); }
  // Bytes of the partials scratch for `fields` floats per (column, partial); 0 with one partial.
  std::size_t scratch_bytes(int fields) const;
  // Counters of the exchange (kernels/bn_forward_training.hip: one per column tile, the ticket,
  // the retired blocks), zero before the first launch; 0 without the exchange.
  std::size_t counter_bytes() const;
};

// Which BN training kernel a tiling is for.
enum class BnKernel { forward_training, backward };

// Where forward training's persistent blocks (BnTiling::persistent) are taken: where the
// heuristic takes them, nowhere, or wherever a column fits one (development: the
// HIPFUSE_BN_PERSISTENT variable, bn_training_solver.cpp).
enum class BnPersistence { heuristic, never, wherever_fits };

// The tiling for BN over `x` in `mode` on `target`, for `kernel`.
BnTiling choose_bn_tiling(const TensorDesc& x, BatchNormMode mode, const Target& target, BnKernel kernel,
                          BnPersistence persistence = BnPersistence::heuristic);

// `struct Tiling { ... };` for ColumnTiling.
void emit_tiling(PlanHeader& header, const BnTiling& tiling);

// Enqueues the phases of a BN kernel (BnForwardArgs or BnBackwardArgs): the fused reduce
// alone with one partial or the exchange, else reduce, finalize (unless the apply phase
// merges) and apply.
template <class Args>
hipError_t launch_bn_phases(const rt::Kernel& kernel, const BnTiling& tiling, hipStream_t stream, Args& args) {
  const dim3 block(static_cast<unsigned>(tiling.threads()));
  args.phase = hf::kBnReduce;
  hipError_t e = kernel.launch(tiling.grid(), block, tiling.shared_bytes(), stream, &args);
  if (e != hipSuccess || tiling.partials == 1 || tiling.exchange) return e;
  if (!tiling.apply_merges) {
    args.phase = hf::kBnFinalize;
    e = kernel.launch(tiling.finalize_grid(), block, 0, stream, &args, tiling.early_start);
    if (e != hipSuccess) return e;
  }
  args.phase = hf::kBnApply;
  return kernel.launch(tiling.grid(), block, 0, stream, &args, tiling.early_start);
}

}  // namespace hipfuse
