// fusiondriver: host data (fills, BN backward consistency), reference, checks and verdicts.
// The "GPU" result here is the reference itself, perturbed or poisoned on purpose.
#include <doctest/doctest.h>

#include <cmath>

#include <hipfuse/reference/activation.h>
#include <hipfuse/reference/batchnorm.h>
#include <hipfuse/reference/dtype.h>

#include "host_data.h"
#include "problem.h"
#include "spec.h"
#include "verify.h"

using namespace hipfuse::driver;
namespace ref = hipfuse::ref;

namespace {

Case load_one(const std::string& text) {
  const std::vector<Case> cases = load_spec_text(text, "test");
  REQUIRE(cases.size() == 1);
  return cases[0];
}

// The bytes a perfect kernel would write: the reference rounded to each tensor's storage.
std::vector<std::vector<std::uint8_t>> perfect_gpu(const Problem& p, const Reference& r) {
  std::vector<std::vector<std::uint8_t>> gpu(p.tensors.size());
  ref::Tensor out = ref::make_tensor(p.output().lengths);
  out.data = r.output;
  gpu[1] = to_bytes(out, p.output());
  for (const auto& [i, value] : r.extra) gpu[static_cast<std::size_t>(i)] = to_bytes(value, p.tensors[static_cast<std::size_t>(i)]);
  return gpu;
}

const char* kCbna = R"(
name = "cbna"
dtype = "fp16"
layout = "nhwc"
input = [2, 8, 6, 6]
op = [ { kind = "conv", k = 8, filter = 3, pad = 1 }, { kind = "bias" },
       { kind = "bn_inference", mode = "spatial" }, { kind = "activation", mode = "relu" } ]
)";

}  // namespace

TEST_CASE("driver host data: values exact in their dtype, variances positive, nothing all-zero") {
  const Case c = load_one(kCbna);
  const Problem p = make_problem(c);
  const HostData h = make_host_data(c, p);
  REQUIRE(h.values.size() == p.tensors.size());
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const TensorInfo& t = p.tensors[i];
    if (t.access == Access::write) {
      CHECK(h.values[i].data.empty());
      continue;
    }
    REQUIRE(h.values[i].numel() == t.elements());
    bool nonzero = false;
    for (double v : h.values[i].data) {
      CHECK(ref::round_to(t.dtype, v) == v);
      nonzero = nonzero || v != 0;
      if (t.role == Role::bn_variance) CHECK(v >= kVarianceMin);
    }
    CHECK_MESSAGE(nonzero, t.name);
  }
  // Seeds differ per tensor and follow init.seed.
  CHECK(h.values[0].data != h.values[2].data);
  Case c2 = c;
  c2.init.seed = 2;
  CHECK(make_host_data(c2, p).values[0].data != h.values[0].data);
  CHECK(make_host_data(c, p).values[0].data == h.values[0].data);
}

TEST_CASE("driver host data: a BN backward plan gets saved statistics of its x and y = act(z)") {
  const Case c = load_one(R"(
name = "bwd"
input = [3, 4, 2, 5]
op = [ { kind = "bn_backward", mode = "spatial" }, { kind = "activation_backward", mode = "elu", alpha = 0.5 } ]
)");
  const Problem p = make_problem(c);
  const HostData h = make_host_data(c, p);
  const ref::Tensor& x = h.values[static_cast<std::size_t>(p.find(Role::bn_x, 0))];
  const ref::Tensor& mean = h.values[static_cast<std::size_t>(p.find(Role::saved_mean, 0))];
  const ref::Tensor& inv = h.values[static_cast<std::size_t>(p.find(Role::saved_inv_variance, 0))];
  const ref::Tensor& scale = h.values[static_cast<std::size_t>(p.find(Role::bn_scale, 0))];
  const ref::Tensor& bias = h.values[static_cast<std::size_t>(p.find(Role::bn_bias, 0))];
  const ref::Tensor& y = h.values[static_cast<std::size_t>(p.find(Role::activation_y, 1))];
  // Channel 1's mean over N*H*W.
  double sum = 0;
  for (int n = 0; n < 3; ++n)
    for (int s = 0; s < 10; ++s) sum += x[(n * 4 + 1) * 10 + s];
  CHECK(mean[1] == doctest::Approx(sum / 30).epsilon(1e-6));
  CHECK(inv[1] > 0);
  // y at one element = elu(scale * xhat + bias), rounded to fp32.
  const int64_t i = (2 * 4 + 3) * 10 + 7;
  const double z = scale[3] * (x[i] - mean[3]) * inv[3] + bias[3];
  CHECK(y[i] == doctest::Approx(ref::activation_forward(z, ref::ActivationMode::elu, 0.5, 0, 1)).epsilon(1e-6));
}

TEST_CASE("driver verify: a perfect result passes; a wrong element, NaN or unwritten element fails") {
  const Case c = load_one(kCbna);
  const Problem p = make_problem(c);
  const HostData h = make_host_data(c, p);
  const VerifyPlan vp = choose_verify(c, p);
  CHECK(vp.mode == VerifyPlan::Mode::full);
  const Reference r = compute_reference(c, p, h, vp);
  CHECK(r.output.size() == static_cast<std::size_t>(p.output().elements()));
  std::vector<std::vector<std::uint8_t>> gpu = perfect_gpu(p, r);
  std::string why;
  const auto checks = check_outputs(c, p, r, gpu);
  REQUIRE(checks.size() == 1);
  CHECK(judge(checks, &why) == Status::passed);
  CHECK(why.empty());

  // One grossly wrong element.
  {
    auto bad = gpu;
    ref::Tensor out = from_bytes(bad[1], p.output());
    int64_t k = 0;
    while (out[k] == 0) ++k;  // a non-zero (post-ReLU) element
    out[k] = out[k] * 4 + 1;
    bad[1] = to_bytes(out, p.output());
    CHECK(judge(check_outputs(c, p, r, bad), &why) == Status::failed);
    CHECK(why.rfind("output: ", 0) == 0);
  }
  // Never written.
  {
    auto bad = gpu;
    ref::write_poison(ref::DType::f16, bad[1].data() + 10, 3);
    const auto ck = check_outputs(c, p, r, bad);
    CHECK(ck[0].unwritten == 3);
    CHECK(judge(ck, &why) == Status::failed);
    CHECK(why.find("3 element(s) never written") != std::string::npos);
  }
}

TEST_CASE("driver verify: BN training checks the statistics too; sampling falls back to full") {
  Case c = load_one(R"(
name = "train"
input = [4, 3, 5, 5]
op = [ { kind = "bn_forward_training", mode = "spatial", exp_avg_factor = 0.25 }, { kind = "activation", mode = "relu" } ]
verify = { mode = "sample", samples = 10 }
)");
  const Problem p = make_problem(c);
  const VerifyPlan vp = choose_verify(c, p);
  CHECK(vp.mode == VerifyPlan::Mode::full);
  CHECK_FALSE(vp.note.empty());
  const HostData h = make_host_data(c, p);
  const Reference r = compute_reference(c, p, h, vp);
  CHECK(r.extra.size() == 4);  // saved mean, saved inv variance, running mean, running variance
  auto gpu = perfect_gpu(p, r);
  const auto checks = check_outputs(c, p, r, gpu);
  CHECK(checks.size() == 5);
  CHECK(judge(checks, nullptr) == Status::passed);
  // A wrong running variance fails the case.
  const int iv = p.find(Role::running_variance, 0);
  ref::Tensor v = from_bytes(gpu[static_cast<std::size_t>(iv)], p.tensors[static_cast<std::size_t>(iv)]);
  v[1] *= 1.5;
  gpu[static_cast<std::size_t>(iv)] = to_bytes(v, p.tensors[static_cast<std::size_t>(iv)]);
  std::string why;
  CHECK(judge(check_outputs(c, p, r, gpu), &why) == Status::failed);
  CHECK(why.rfind("op0.running_variance", 0) == 0);
}

TEST_CASE("driver verify: sampled check of a conv plan") {
  Case c = load_one(R"(
name = "s"
input = [2, 4, 9, 9]
op = [ { kind = "conv", k = 6, filter = 3 }, { kind = "bias" } ]
verify = { mode = "sample", samples = 50 }
)");
  const Problem p = make_problem(c);
  const VerifyPlan vp = choose_verify(c, p);
  REQUIRE(vp.mode == VerifyPlan::Mode::sample);
  CHECK(vp.label(p.output().elements()) == "sample (50 of 588)");
  const HostData h = make_host_data(c, p);
  const Reference sampled = compute_reference(c, p, h, vp);
  CHECK(sampled.sampled);
  CHECK(sampled.output.size() == 50);
  // The full reference, as a perfect GPU result, agrees at the sampled points.
  VerifyPlan full;
  const Reference all = compute_reference(c, p, h, full);
  const auto gpu = perfect_gpu(p, all);
  const auto checks = check_outputs(c, p, sampled, gpu);
  CHECK(checks[0].checked == 50);
  CHECK(judge(checks, nullptr) == Status::passed);
  // The tolerance override replaces the nrms bound of the output.
  c.verify.tolerance = 0.125;
  CHECK(tolerance_for(c, p, 1).nrms == 0.125);
}

TEST_CASE("driver verify: a mostly-zero reference is MISTRUSTED") {
  const Case c = load_one(R"(
name = "m"
input = [2, 4, 4, 4]
op = [ { kind = "activation", mode = "relu" } ]
init = { distribution = "uniform", min = -1.0, max = -0.5 }
)");
  const Problem p = make_problem(c);
  const HostData h = make_host_data(c, p);
  const Reference r = compute_reference(c, p, h, VerifyPlan{});
  CHECK(judge(check_outputs(c, p, r, perfect_gpu(p, r)), nullptr) == Status::mistrusted);
}
