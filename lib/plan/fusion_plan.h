// A fusion plan: the input descriptor and the ordered ops. Ops are validated as they are
// added (shape, type and channel errors are reported at creation with the reason);
// support is decided at compile, by the solvers; execution only launches.
#pragma once

#include "plan/op_args.h"
#include "plan/ops.h"
#include "plan/tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace hipfuse {

class Invoker;
struct Target;

enum class FusionDirection : int { vertical = 0, horizontal = 1 };

struct CompileInfo {
  std::string solver;          // which kernel family was chosen
  int kernel_launches = 0;     // kernels launched per execution
  double milliseconds = 0;     // wall time of the last compile (hipRTC + load, or cache lookups)
  bool cache_hit = false;      // every kernel came from the memory or disk cache
};

class FusionPlan {
 public:
  // Throws Error(bad_parm) unless input is a 4-D or 5-D tensor with positive lengths and
  // strides, or for a direction outside the enum.
  FusionPlan(FusionDirection direction, TensorDesc input);
  ~FusionPlan();
  FusionPlan(const FusionPlan&) = delete;
  FusionPlan& operator=(const FusionPlan&) = delete;

  // Appends an op; its input is the current output. Throws Error(bad_parm) with the reason
  // when the op cannot follow (channel mismatch, wrong parameter shapes or types, ...).
  // Adding an op after a compile invalidates the compiled kernel.
  FusionOp& add(Op op);

  FusionDirection direction() const { return direction_; }
  const TensorDesc& input() const { return input_; }
  const TensorDesc& output() const;  // the last op's output (the input when empty)
  const std::vector<std::unique_ptr<FusionOp>>& ops() const { return ops_; }
  int op_count() const { return static_cast<int>(ops_.size()); }

  // Canonical text of everything that decides the kernel: the in-memory invoker key, the
  // log line, and part of the disk-cache key.
  std::string key() const;

  // Chooses a solver and builds its kernels for `target` (target.device >= 0 loads them).
  // Throws Error(unsupported_op) naming each solver's reason when none applies, or
  // Error(not_implemented) for horizontal plans; a failure leaves the plan uncompiled.
  void compile(const Target& target);
  // Compiles the kernels for target.arch without a GPU (fills the disk cache). Same solver
  // choice and errors as compile(); records compile_info() (kernel_launches = kernels
  // built) but leaves the plan uncompiled: executing needs compile() on a device.
  void compile_offline(const Target& target);
  // The name of the solver compile() would use for `target`, from the solvers'
  // applicability checks only: nothing is compiled and no GPU is needed. Same errors as
  // compile(); the plan is unchanged.
  const char* applicable_solver(const Target& target) const;
  bool compiled() const { return invoker_ != nullptr; }
  const Invoker& invoker() const { return *invoker_; }
  const CompileInfo& compile_info() const { return compile_info_; }

 private:
  FusionDirection direction_;
  TensorDesc input_;
  std::vector<std::unique_ptr<FusionOp>> ops_;
  std::unique_ptr<Invoker> invoker_;
  CompileInfo compile_info_;
};

}  // namespace hipfuse
