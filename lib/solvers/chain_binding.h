// The run-time half of a fused chain: which plan op fills which ChainArgs slot, and the
// packing of those ops' arguments at launch (pointers as given, scalars converted to
// float). Built once at compile; pack() does no allocation and no lookup beyond the slots.
#pragma once

#include "common/kernel_args.h"
#include "plan/fusion_plan.h"

#include <vector>

namespace hipfuse {

class ChainBinding {
 public:
  ChainBinding() = default;
  // `ops` take the slots first_slot, first_slot + 1, ... (as emit_chain numbered them).
  void bind(const std::vector<const FusionOp*>& ops, int first_slot);

  // Fills the bound slots from `args`. False when a slot is missing or of another kind.
  bool pack(const OperatorArgs& args, hf::ChainArgs& chain) const;

 private:
  struct Step {
    int op_index;
    int slot;
  };
  std::vector<Step> steps_;
};

}  // namespace hipfuse
