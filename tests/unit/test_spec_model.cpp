// The case model: equality, names, shape arithmetic, describe().

#include <doctest/doctest.h>

#include "spec.h"

using namespace hipfuse::driver;

namespace {

ConvSpec conv(int k, int filter, int stride, int pad, int groups = 1, size_t spatial = 2) {
  return ConvSpec{k, std::vector<int>(spatial, filter), std::vector<int>(spatial, stride),
                  std::vector<int>(spatial, pad), std::vector<int>(spatial, 1), groups};
}

Case sample() {
  Case c;
  c.name = "resnet50_l3";
  c.input = {64, 64, 56, 56};
  c.dtype = DType::f16;
  c.layout = Layout::nhwc;
  c.ops = {conv(64, 3, 1, 1), BiasSpec{}, ActivationSpec{}};
  return c;
}

}  // namespace

TEST_CASE("spec: equality compares what defines a case, not where it came from") {
  const Case a = sample();
  Case b = a;
  b.file = "elsewhere.toml";
  b.line = 42;
  b.swept = {{"dtype", "fp16"}};
  CHECK(a == b);
  b = a;
  b.name = "other";
  CHECK_FALSE(a == b);
  b = a;
  std::get<ConvSpec>(b.ops[0]).dilation = {1, 2};
  CHECK_FALSE(a == b);
  b = a;
  b.ops[2] = ActivationSpec{3, 1, 0, 1, true};
  CHECK_FALSE(a == b);
  b = a;
  b.ops[1] = ResidualAddSpec{};
  CHECK_FALSE(a == b);
  b = a;
  b.init.seed = 2;
  CHECK_FALSE(a == b);
  b = a;
  b.verify.tolerance = 0.1;
  CHECK_FALSE(a == b);
  CHECK_FALSE(BnForwardTrainingSpec{} == BnForwardTrainingSpec{kBnSpatial, 1e-5, 0.1, false});
}

TEST_CASE("spec: op kind names") {
  CHECK(op_kind_name(conv(1, 1, 1, 0)) == "conv");
  CHECK(op_kind_name(BnBackwardSpec{}) == "bn_backward");
  CHECK(op_kind_name(ActivationSpec{}) == "activation");
  CHECK(op_kind_name(ActivationSpec{3, 1, 0, 1, true}) == "activation_backward");
  CHECK(kActivationModeNames[8] == "leakyrelu");  // indexed by miopenActivationMode_t
  CHECK(kBnModeNames[kBnSpatial] == "spatial");
}

TEST_CASE("spec: conv output sizes follow MIOpen's default padding mode") {
  CHECK(conv_output_size(224, 7, 2, 3, 1) == 112);
  CHECK(conv_output_size(56, 3, 2, 1, 1) == 28);
  CHECK(conv_output_size(56, 1, 2, 0, 1) == 28);
  CHECK(conv_output_size(7, 3, 1, 1, 1) == 7);
  CHECK(conv_output_size(8, 3, 1, 2, 2) == 8);
  CHECK(conv_output_size(8, 9, 1, 0, 1) == 0);
  CHECK(conv_output_size(8, 3, 0, 0, 1) == 0);  // not a geometry
}

TEST_CASE("spec: shapes through a plan, and the parameter tensors of each op") {
  Case c = sample();
  c.input = {2, 8, 9, 7};
  c.ops = {BnInferenceSpec{kBnPerActivation}, conv(16, 3, 2, 1, 4), ResidualAddSpec{}, BiasSpec{},
           BnForwardTrainingSpec{kBnSpatial}, ActivationSpec{}};
  CHECK(spatial_dims(c) == 2);
  const std::vector<std::vector<int64_t>> shapes = tensor_shapes(c);
  REQUIRE(shapes.size() == 7);
  CHECK(shapes[1] == std::vector<int64_t>{2, 8, 9, 7});
  CHECK(shapes[2] == std::vector<int64_t>{2, 16, 5, 4});
  CHECK(shapes[6] == std::vector<int64_t>{2, 16, 5, 4});
  CHECK(parameter_shape(shapes[0], c.ops[0]) == std::vector<int64_t>{1, 8, 9, 7});
  CHECK(parameter_shape(shapes[1], c.ops[1]) == std::vector<int64_t>{16, 2, 3, 3});
  CHECK(parameter_shape(shapes[2], c.ops[2]) == std::vector<int64_t>{2, 16, 5, 4});
  CHECK(parameter_shape(shapes[3], c.ops[3]) == std::vector<int64_t>{1, 16, 1, 1});
  CHECK(parameter_shape(shapes[4], c.ops[4]) == std::vector<int64_t>{1, 16, 1, 1});
  CHECK(parameter_shape(shapes[5], c.ops[5]).empty());

  c.input = {1, 4, 3, 6, 6};
  c.ops = {conv(8, 3, 1, 1, 1, 3), BnBackwardSpec{kBnSpatial}};
  CHECK(spatial_dims(c) == 3);
  CHECK(tensor_shapes(c).back() == std::vector<int64_t>{1, 8, 3, 6, 6});
  CHECK(parameter_shape(tensor_shapes(c)[1], c.ops[1]) == std::vector<int64_t>{1, 8, 1, 1, 1});
}

TEST_CASE("spec: describe is one line per case") {
  CHECK(describe(sample()) == "fp16 nhwc 64x64x56x56 conv(k64 3x3 s1 p1)+bias+relu");
  Case c = sample();
  c.dtype = DType::bf16;
  c.layout = Layout::nchw;
  c.ops = {ConvSpec{8, {3, 1}, {2, 1}, {1, 0}, {2, 2}, 4}, ResidualAddSpec{0.5}, BnInferenceSpec{kBnPerActivation},
           BnForwardTrainingSpec{}, BnBackwardSpec{}, ActivationSpec{8, 0.01, 0, 1, true}};
  CHECK(describe(c) ==
        "bf16 nchw 64x64x56x56 conv(k8 3x1 s2x1 p1x0 d2 g4)+residual_add(0.5)+bn_inference(per_activation)"
        "+bn_forward_training(spatial)+bn_backward(spatial)+leakyrelu_backward");
}
