#include "solvers/chain_binding.h"

#include "common/error.h"

namespace hipfuse {

namespace {

float to_f32(double v) { return static_cast<float>(v); }

// One slot's fields from the op's arguments; false for kinds a chain does not hold.
struct PackStep {
  hf::StepArgs& s;
  bool operator()(const BiasForwardArgs& a) const {
    s.ptr[0] = a.bias;
    return true;
  }
  bool operator()(const BatchNormInferenceArgs& a) const {
    s.ptr[0] = a.scale;
    s.ptr[1] = a.bias;
    s.ptr[2] = a.mean;
    s.ptr[3] = a.variance;
    s.scalar[0] = to_f32(a.epsilon);
    return true;
  }
  bool operator()(const ActivationForwardArgs& a) const {
    s.scalar[0] = to_f32(a.alpha);
    s.scalar[1] = to_f32(a.beta);
    s.scalar[2] = to_f32(a.gamma);
    return true;
  }
  bool operator()(const ResidualAddArgs& a) const {
    s.ptr[0] = a.z;
    s.scalar[0] = to_f32(a.alpha);
    return true;
  }
  template <class Other>
  bool operator()(const Other&) const {
    return false;
  }
};

}  // namespace

void ChainBinding::bind(const std::vector<const FusionOp*>& ops, int first_slot) {
  for (const FusionOp* op : ops) {
    if (first_slot >= hf::kMaxChainSteps) fail(Status::internal_error, "chain binding past hf::kMaxChainSteps");
    steps_.push_back({op->index, first_slot++});
  }
}

bool ChainBinding::pack(const OperatorArgs& args, hf::ChainArgs& chain) const {
  for (const Step& step : steps_) {
    if (step.op_index >= static_cast<int>(args.slots.size())) return false;
    if (!std::visit(PackStep{chain.step[step.slot]}, args.slots[static_cast<std::size_t>(step.op_index)])) return false;
  }
  return true;
}

}  // namespace hipfuse
