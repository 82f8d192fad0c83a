// fusiondriver: the tensor inventory of a case and its byte / FLOP counts.
#include <doctest/doctest.h>

#include "metrics.h"
#include "problem.h"

using namespace hipfuse::driver;
namespace ref = hipfuse::ref;

namespace {

ConvSpec conv(int k, int f, int pad, int groups = 1) {
  ConvSpec c;
  c.k = k;
  c.filter = {f, f};
  c.stride = {1, 1};
  c.pad = {pad, pad};
  c.dilation = {1, 1};
  c.groups = groups;
  return c;
}

Case make_case(std::vector<int64_t> input, std::vector<OpSpec> ops, DType dt = DType::f32, Layout l = Layout::nchw) {
  Case c;
  c.name = "t";
  c.input = std::move(input);
  c.ops = std::move(ops);
  c.dtype = dt;
  c.layout = l;
  return c;
}

}  // namespace

TEST_CASE("driver metrics: conv + bias + relu, fp32") {
  // N=2, C=8, 8x8, K=16, 3x3 pad 1: output 2x16x8x8.
  const Case c = make_case({2, 8, 8, 8}, {conv(16, 3, 1), BiasSpec{}, ActivationSpec{}});
  const Work w = plan_work(c);
  const double out = 2 * 16 * 8 * 8;
  CHECK(w.flops == doctest::Approx(2.0 * out * 8 * 9 + out /*bias*/ + out /*relu*/));
  const double bytes = 4.0 * (2 * 8 * 8 * 8 /*x*/ + 16 * 8 * 9 /*w*/ + 16 /*bias*/ + out /*y*/);
  CHECK(w.bytes == doctest::Approx(bytes));
}

TEST_CASE("driver metrics: grouped conv counts C/groups per output, fp16 halves the bytes") {
  const Case c = make_case({1, 8, 4, 4}, {conv(8, 3, 1, 4)}, DType::f16);
  const Work w = plan_work(c);
  CHECK(w.flops == doctest::Approx(2.0 * (8 * 4 * 4) * (8 / 4) * 9));
  CHECK(w.bytes == doctest::Approx(2.0 * (8 * 16 + 8 * 2 * 9 + 8 * 16)));
}

TEST_CASE("driver metrics: BN parameters are fp32 for fp16 data; running statistics count twice") {
  BnForwardTrainingSpec train;
  train.running_stats = true;
  const Case c = make_case({2, 4, 3, 3}, {train, ActivationSpec{}}, DType::f16);
  const Problem p = make_problem(c);
  const Work w = plan_work(c, p);
  const double data = 2.0 * 2 * 4 * 9 * 2;  // x read + y written, 2 bytes each
  const double params = 4.0 * 4 * (2 /*scale, bias*/ + 2 /*saved*/ + 2 * 2 /*running in+out*/);
  CHECK(w.bytes == doctest::Approx(data + params));
  CHECK(w.flops == doctest::Approx((kPointwiseFlops.bn_forward_training + kPointwiseFlops.activation) * 72));

  train.running_stats = false;
  const Case no_running = make_case({2, 4, 3, 3}, {train, ActivationSpec{}}, DType::f16);
  CHECK(plan_work(no_running).bytes == doctest::Approx(data + 4.0 * 4 * 4));
}

TEST_CASE("driver metrics: a strided convolution reads only the input pixels its windows cover") {
  ConvSpec strided = conv(16, 1, 0);
  strided.stride = {2, 2};
  const Case c = make_case({2, 8, 8, 8}, {strided, BiasSpec{}}, DType::f16);
  const Problem p = make_problem(c);
  CHECK(conv_read_fraction(strided, p.shapes[0], p.shapes[1]) == doctest::Approx(0.25));  // every other row and column
  const double out = 2 * 16 * 4 * 4;
  CHECK(plan_work(c, p).bytes == doctest::Approx(2.0 * (2 * 8 * 8 * 8 / 4.0 + 16 * 8 + 16 + out)));
  // A 3x3 of stride 2 with padding 1 covers every pixel; one of stride 3 without padding skips none of 9 columns.
  ConvSpec s2 = conv(16, 3, 1);
  s2.stride = {2, 2};
  CHECK(conv_read_fraction(s2, {2, 8, 8, 8}, {2, 16, 4, 4}) == doctest::Approx(1.0));
  ConvSpec s3 = conv(16, 3, 0);
  s3.stride = {3, 3};
  CHECK(conv_read_fraction(s3, {1, 8, 9, 9}, {1, 16, 3, 3}) == doctest::Approx(1.0));
  // Dilation 2 with a 2-tap filter and stride 4 reads 2 of every 4: half a dimension, a quarter in 2-D.
  ConvSpec dilated = conv(16, 2, 0);
  dilated.stride = {4, 4};
  dilated.dilation = {2, 2};
  CHECK(conv_read_fraction(dilated, {1, 8, 8, 8}, {1, 16, 2, 2}) == doctest::Approx(0.25));
  // Not a convolution's lengths: all of it.
  CHECK(conv_read_fraction(strided, {2, 8}, {2, 16}) == doctest::Approx(1.0));
}

TEST_CASE("driver metrics: rates") {
  CHECK(gb_per_s(4e9, 1e6) == doctest::Approx(4.0));      // 4 GB in 1 s
  CHECK(tflop_per_s(2e12, 1e6) == doctest::Approx(2.0));  // 2 TFLOP in 1 s
  CHECK(gb_per_s(1, 0) == 0);
  CHECK(conv_flops(conv(64, 3, 1), {64, 64, 56, 56}, {64, 64, 56, 56}) == doctest::Approx(14.797504e9));
}

TEST_CASE("driver problem: tensor inventory, roles and layouts") {
  const Case c = make_case({2, 8, 5, 7}, {conv(16, 3, 1), ResidualAddSpec{}, BiasSpec{}, BnInferenceSpec{}, ActivationSpec{}},
                           DType::bf16, Layout::nhwc);
  const Problem p = make_problem(c);
  REQUIRE(p.tensors.size() == 2 + 1 + 1 + 1 + 4);
  CHECK(p.input().lengths == std::vector<int64_t>{2, 8, 5, 7});
  CHECK(p.output().lengths == std::vector<int64_t>{2, 16, 5, 7});
  CHECK(p.input().strides == std::vector<int64_t>{5 * 7 * 8, 1, 7 * 8, 8});  // NHWC
  const TensorInfo& w = p.tensors[static_cast<std::size_t>(p.find(Role::weights, 0))];
  CHECK(w.lengths == std::vector<int64_t>{16, 8, 3, 3});
  CHECK(w.strides == std::vector<int64_t>{3 * 3 * 8, 1, 3 * 8, 8});  // KYXC
  CHECK(w.dtype == ref::DType::bf16);
  const TensorInfo& z = p.tensors[static_cast<std::size_t>(p.find(Role::residual, 1))];
  CHECK(z.lengths == p.output().lengths);
  const TensorInfo& b = p.tensors[static_cast<std::size_t>(p.find(Role::bias, 2))];
  CHECK(b.lengths == std::vector<int64_t>{1, 16, 1, 1});
  CHECK(b.dtype == ref::DType::bf16);
  const TensorInfo& var = p.tensors[static_cast<std::size_t>(p.find(Role::bn_variance, 3))];
  CHECK(var.lengths == std::vector<int64_t>{1, 16, 1, 1});
  CHECK(var.dtype == ref::DType::f32);
  CHECK(var.name == "op3.variance");
  CHECK(p.find(Role::weights, 1) == -1);
  CHECK(p.total_bytes() > 0);
  CHECK(reduction_length(c) == 8 * 9);
}

TEST_CASE("driver problem: a BN backward plan reads x, saved statistics and y; writes dScale/dBias") {
  BnBackwardSpec bwd;
  bwd.mode = kBnPerActivation;
  ActivationSpec act;
  act.backward = true;
  const Case c = make_case({4, 3, 2, 2}, {bwd, act});
  CHECK(is_backward_plan(c));
  const Problem p = make_problem(c);
  CHECK(p.find(Role::bn_x, 0) >= 0);
  CHECK(p.find(Role::activation_y, 1) >= 0);
  const TensorInfo& ds = p.tensors[static_cast<std::size_t>(p.find(Role::scale_diff, 0))];
  CHECK(ds.access == Access::write);
  CHECK(ds.lengths == std::vector<int64_t>{1, 3, 2, 2});  // per-activation
  CHECK(reduction_length(c) == 4);                        // M = N
  CHECK(bn_reduction_length({4, 3, 2, 2}, kBnSpatial) == 16);
}
