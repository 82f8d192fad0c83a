// Emits a pointwise chain (kernels/common/pointwise_chain.h) into a plan header: the
// compile-time half of a fused chain. ChainBinding (chain_binding.h) is the run-time half.
#pragma once

#include "solvers/plan_header.h"

#include <string>
#include <vector>

namespace hipfuse {

// Writes `using <name> = hf::Chain<...>;` for `ops` (all pointwise, in plan order). The
// ops take ChainArgs slots first_slot, first_slot + 1, ...; `site` names the geometry alias
// of the tensor the chain produces values of (per-activation BN parameters and residual z
// are addressed through it). Residual z geometries become aliases <name>Z<slot>.
void emit_chain(PlanHeader& header, const std::string& name, const std::vector<const FusionOp*>& ops,
                int first_slot, const std::string& site);

}  // namespace hipfuse
