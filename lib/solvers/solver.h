// A solver is one fused kernel family: an applicability check that needs no GPU and says
// why it does not apply, the kernel specialisations it would compile for a plan, and the
// invoker that launches them. The registry (registry.cpp) is a short ordered list.
#pragma once

#include "plan/fusion_plan.h"
#include "plan/op_args.h"
#include "runtime/kernel_compiler.h"

#include <hip/hip_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

namespace hipfuse {

// What a plan is compiled for. device < 0: no GPU (offline compile for `arch`).
struct Target {
  int device = -1;
  std::string arch;             // "sm_90"
  int warp_size = 32;
  int multiprocessors = 0;      // 0 when unknown (offline): heuristics assume a large part
  std::size_t l2_bytes = 0;     // 0 when unknown (offline): heuristics assume an H200's
  std::size_t shared_per_block = 48 * 1024;
};

struct Applicability {
  bool applies = false;
  std::string reason;  // why not, in words a user understands
  static Applicability yes() { return {true, {}}; }
  static Applicability no(std::string why) { return {false, std::move(why)}; }
};

// Launches a compiled plan. launch() only packs arguments and enqueues kernels on the
// stream: no allocation, no synchronisation, no compilation, no lookups. The caller has
// already checked that every op's args slot holds the right kind.
class Invoker {
 public:
  virtual ~Invoker() = default;
  virtual hipError_t launch(hipStream_t stream, const void* input, void* output,
                            const OperatorArgs& args) const = 0;
  virtual int kernel_launches() const = 0;
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual const char* name() const = 0;
  virtual Applicability applies(const FusionPlan& plan, const Target& target) const = 0;
  // The kernel specialisations this solver compiles for the plan.
  virtual std::vector<rt::KernelRequest> kernels(const FusionPlan& plan, const Target& target) const = 0;
  // Loads those kernels on target.device and returns the invoker.
  virtual std::unique_ptr<Invoker> build(const FusionPlan& plan, const Target& target,
                                         std::vector<rt::CompileReport>& reports) const = 0;
};

// The solvers in the order they are tried; the first that applies is used.
const std::vector<const Solver*>& solver_registry();

}  // namespace hipfuse
