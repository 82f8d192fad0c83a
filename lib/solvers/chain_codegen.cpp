#include "solvers/chain_codegen.h"

#include "common/error.h"

namespace hipfuse {

namespace {

// The step type for one op in `slot`.
struct StepType {
  const std::string& chain_name;
  const std::string& site;
  PlanHeader& header;
  int slot;

  std::string operator()(const BiasForwardOp& o) const {
    return "hf::BiasStep<" + std::to_string(slot) + ", " + cpp_type(o.bias.type) + ">";
  }
  std::string operator()(const BatchNormInferenceOp& o) const {
    return "hf::BnInferenceStep<" + std::to_string(slot) + ", " + cpp_type(o.params.type) + ", " +
           (o.mode == BatchNormMode::spatial ? "true" : "false") + ", " + site + ">";
  }
  std::string operator()(const ActivationForwardOp& o) const {
    return "hf::ActivationStep<" + std::to_string(slot) + ", " + act_mode(o.mode) + ">";
  }
  std::string operator()(const ResidualAddOp& o) const {
    const std::string z = chain_name + "Z" + std::to_string(slot);
    header.alias(z, geometry_type(o.z));
    return "hf::ResidualAddStep<" + std::to_string(slot) + ", " + cpp_type(o.z.type) + ", " + z + ", " + site + ">";
  }
  template <class Other>
  std::string operator()(const Other&) const {
    fail(Status::internal_error, "a chain holds pointwise forward ops only");
  }
};

}  // namespace

void emit_chain(PlanHeader& header, const std::string& name, const std::vector<const FusionOp*>& ops,
                int first_slot, const std::string& site) {
  std::string steps;
  int slot = first_slot;
  for (const FusionOp* op : ops) {
    if (!steps.empty()) steps += ", ";
    steps += std::visit(StepType{name, site, header, slot++}, op->op);
  }
  header.alias(name, "hf::Chain<" + steps + ">");
}

}  // namespace hipfuse
