#include "solvers/pointwise_solver.h"

#include "common/kernel_args.h"
#include "solvers/chain_binding.h"
#include "solvers/chain_codegen.h"
#include "solvers/invoker_support.h"
#include "solvers/plan_parts.h"

#include <algorithm>
#include <numeric>

namespace hipfuse {

namespace {

constexpr int kBlockSize = 256;
// Blocks per multiprocessor the kernel is compiled for (__launch_bounds__: at most 64
// registers) and launched with: the whole grid is resident, each thread with kUnroll 16-byte
// loads in flight (kernels/pointwise.hip).
constexpr int kMinBlocks = 4;
constexpr int kUnroll = 4;

std::vector<const FusionOp*> all_ops(const FusionPlan& plan) {
  std::vector<const FusionOp*> ops;
  for (const auto& op : plan.ops()) ops.push_back(op.get());
  return ops;
}

rt::KernelRequest request_for(const FusionPlan& plan) {
  PlanHeader h(plan);
  h.include("common/pointwise_chain.h");
  h.alias("data_t", cpp_type(plan.input().type));
  h.alias("XGeom", geometry_type(plan.input()));
  h.alias("YGeom", geometry_type(plan.output()));
  emit_chain(h, "Chain", all_ops(plan), 0, "YGeom");
  h.int_constant("kBlockSize", kBlockSize);
  h.int_constant("kMinBlocks", kMinBlocks);
  return {"pointwise.hip", "hf_pointwise", {h.file()}, {}};
}

// One resident wave of blocks, each walking the tensor with a grid-stride loop.
dim3 grid_for(const FusionPlan& plan, const Target& target) {
  const TensorDesc& y = plan.output();
  const std::int64_t lanes = 16 / static_cast<std::int64_t>(size_of(plan.input().type));
  const std::int64_t items = ceil_div(y.element_count(), lanes * kUnroll);
  std::int64_t blocks = std::min<std::int64_t>(ceil_div(items, kBlockSize), multiprocessors_of(target) * kMinBlocks);
  // Channels fastest: a grid stride of whole channel rows keeps each thread's lanes on the
  // same channels, so the kernel prepares their parameters once. Worth up to 1/8 of the blocks.
  if (y.dims() >= 2 && y.lengths[1] > 1 && y.strides[1] == 1) {
    const std::int64_t c = y.lengths[1];
    const std::int64_t quantum = c / std::gcd(c, kBlockSize * lanes);
    const std::int64_t rounded = blocks / quantum * quantum;
    if (rounded > 0 && rounded * 8 >= blocks * 7) blocks = rounded;
  }
  return dim3(static_cast<unsigned>(std::max<std::int64_t>(blocks, 1)));
}

class PointwiseInvoker final : public Invoker {
 public:
  PointwiseInvoker(std::shared_ptr<const rt::Kernel> kernel, dim3 grid, ChainBinding binding)
      : kernel_(std::move(kernel)), grid_(grid), binding_(std::move(binding)) {}

  hipError_t launch(hipStream_t stream, const void* input, void* output, const OperatorArgs& args) const override {
    hf::PointwiseArgs a{};
    a.x = input;
    a.y = output;
    a.vector_ok = aligned16(input) && aligned16(output);
    if (!binding_.pack(args, a.chain)) return hipErrorInvalidValue;
    return kernel_->launch(grid_, dim3(kBlockSize), 0, stream, &a);
  }
  int kernel_launches() const override { return 1; }

 private:
  std::shared_ptr<const rt::Kernel> kernel_;
  dim3 grid_;
  ChainBinding binding_;
};

}  // namespace

Applicability PointwiseSolver::applies(const FusionPlan& plan, const Target&) const {
  if (plan.op_count() == 0) return Applicability::no("the plan has no ops");
  if (auto why = unsupported_data_type(plan)) return Applicability::no(*why);
  if (auto why = unfusable_chain(all_ops(plan))) return Applicability::no(*why);
  return Applicability::yes();
}

std::vector<rt::KernelRequest> PointwiseSolver::kernels(const FusionPlan& plan, const Target&) const {
  return {request_for(plan)};
}

std::unique_ptr<Invoker> PointwiseSolver::build(const FusionPlan& plan, const Target& target,
                                                std::vector<rt::CompileReport>& reports) const {
  ChainBinding binding;
  binding.bind(all_ops(plan), 0);
  return std::make_unique<PointwiseInvoker>(load_kernel(request_for(plan), target, reports), grid_for(plan, target),
                                            std::move(binding));
}

}  // namespace hipfuse
