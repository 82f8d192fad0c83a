// MIOPEN_ENABLE_LOGGING_CMD: the command logged for a compiled plan is a fusiondriver
// command whose inline spec the driver parses back into the same plan.
#include <doctest/doctest.h>

#include "plan/driver_command.h"
#include "plan/fusion_plan.h"
#include "spec.h"

#include <variant>

using namespace hipfuse;

namespace {

std::string inline_spec_of(const std::string& command) {
  const auto begin = command.find('\'');
  const auto end = command.rfind('\'');
  REQUIRE(begin != std::string::npos);
  REQUIRE(end > begin);
  return command.substr(begin + 1, end - begin - 1);
}

}  // namespace

TEST_CASE("driver: the logged command of an NHWC fp16 conv + bias + BN + leaky ReLU plan round-trips") {
  FusionPlan plan(FusionDirection::vertical, TensorDesc::packed(DataType::half, {2, 6, 9, 11}, Layout::nhwc));
  ConvForwardOp conv;
  conv.conv.pads = {1, 2};
  conv.conv.strides = {2, 1};
  conv.conv.dilations = {1, 2};
  conv.conv.groups = 3;
  conv.weights = TensorDesc::packed(DataType::half, {12, 2, 3, 3}, Layout::nhwc);
  plan.add(conv);
  plan.add(BiasForwardOp{TensorDesc::packed(DataType::half, {1, 12, 1, 1}, Layout::nchw)});
  const auto& y = plan.output();
  plan.add(BatchNormInferenceOp{BatchNormMode::per_activation,
                                TensorDesc::packed(DataType::float32, {1, 12, y.lengths[2], y.lengths[3]}, Layout::nchw)});
  plan.add(ActivationForwardOp{ActivationMode::leakyrelu});

  const std::string command = driver_command(plan);
  CHECK(command.rfind("fusiondriver run --spec-text '", 0) == 0);
  auto cases = driver::load_spec_text(inline_spec_of(command), "logged");
  REQUIRE(cases.size() == 1);
  const driver::Case& c = cases[0];
  CHECK(c.dtype == driver::DType::f16);
  CHECK(c.layout == driver::Layout::nhwc);
  CHECK(c.input == std::vector<std::int64_t>{2, 6, 9, 11});
  REQUIRE(c.ops.size() == 4);
  const auto& cs = std::get<driver::ConvSpec>(c.ops[0]);
  CHECK(cs.k == 12);
  CHECK(cs.filter == std::vector<int>{3, 3});
  CHECK(cs.stride == std::vector<int>{2, 1});
  CHECK(cs.pad == std::vector<int>{1, 2});
  CHECK(cs.dilation == std::vector<int>{1, 2});
  CHECK(cs.groups == 3);
  CHECK(std::holds_alternative<driver::BiasSpec>(c.ops[1]));
  CHECK(std::get<driver::BnInferenceSpec>(c.ops[2]).mode == driver::kBnPerActivation);
  CHECK(std::get<driver::ActivationSpec>(c.ops[3]).mode == static_cast<int>(ActivationMode::leakyrelu));
}

TEST_CASE("driver: the logged command of a BN backward plan keeps the declared op order") {
  FusionPlan plan(FusionDirection::vertical, TensorDesc::packed(DataType::float32, {4, 3, 5, 5}, Layout::nchw));
  plan.add(BatchNormBackwardOp{BatchNormMode::spatial});
  plan.add(ActivationBackwardOp{ActivationMode::elu});
  auto cases = driver::load_spec_text(inline_spec_of(driver_command(plan)), "logged");
  REQUIRE(cases.size() == 1);
  REQUIRE(cases[0].ops.size() == 2);
  CHECK(std::holds_alternative<driver::BnBackwardSpec>(cases[0].ops[0]));
  CHECK(std::get<driver::ActivationSpec>(cases[0].ops[1]).backward);
}
