// The semantic rules R1-R8 of spec_validate.cpp, one check or more per rule, each pointing at
// the right line and key.

#include <doctest/doctest.h>

#include "spec.h"

using namespace hipfuse::driver;

namespace {

// A spec of the given input and op tables, each op on its own lines.
std::string spec(const std::string& input, const std::vector<std::string>& ops, const std::string& tail = "") {
  std::string text = "input = " + input + "\n";
  for (const std::string& op : ops) text += "[[op]]\n" + op + "\n";
  return text + tail;
}

std::string error_of(const std::string& text) {
  try {
    load_spec_text(text, "v.toml");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "no error";
}

// The error message, cut to the length of `prefix` so that a failed CHECK shows both.
std::string prefix_of(const std::string& s, const std::string& prefix) { return s.substr(0, prefix.size()); }
#define CHECK_STARTS(text, prefix) CHECK(prefix_of(text, prefix) == std::string(prefix))

const std::string kBias = "kind = \"bias\"";
const std::string kRelu = "kind = \"activation\"\nmode = \"relu\"";

std::string conv(const std::string& extra) { return "kind = \"conv\"\nk = 8\nfilter = 3\n" + extra; }

}  // namespace

TEST_CASE("spec: R1 input has 4 or 5 positive lengths") {
  CHECK_STARTS(error_of(spec("[2, 8, 8]", {kBias})), "v.toml:1: input: expected 4 or 5 lengths");
  CHECK_STARTS(error_of(spec("[1, 2, 3, 4, 5, 6]", {kBias})), "v.toml:1: input: expected 4 or 5 lengths");
  CHECK_STARTS(error_of(spec("[2, 8, 0, 8]", {kBias})), "v.toml:1: input: every length must be in [1, 2147483647], got 0");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 4294967296]", {kBias})), "v.toml:1: input: every length must be in");
  CHECK(error_of(spec("[2, 8, 8, 8]", {kBias})) == "no error");
  CHECK(error_of(spec("[2, 8, 4, 8, 8]", {kBias})) == "no error");
  CHECK(error_of(spec("[[2, 8, 8, 8], [2, 8, 8]]", {kBias})).find("[case v/input=2x8x8]") != std::string::npos);
}

TEST_CASE("spec: R3 plan shapes") {
  const std::string bn_bwd = "kind = \"bn_backward\"\nmode = \"spatial\"";
  const std::string act_bwd = "kind = \"activation_backward\"\nmode = \"relu\"";
  const std::string bn_train = "kind = \"bn_forward_training\"\nmode = \"spatial\"";
  CHECK(error_of(spec("[2, 8, 8, 8]", {bn_bwd, act_bwd})) == "no error");
  CHECK(error_of(spec("[2, 8, 8, 8]", {bn_bwd})) == "no error");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {act_bwd})), "v.toml:3: op.0.kind: activation_backward must come directly");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {bn_bwd, act_bwd, act_bwd})),
               "v.toml:9: op.2.kind: activation_backward must come directly");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {bn_bwd, kBias})), "v.toml:6: op.1.kind: a backward plan");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {kRelu, bn_bwd, act_bwd})), "v.toml:3: op.0.kind: a backward plan");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {bn_train, bn_train})), "v.toml:6: op.1.kind: a plan holds at most one BN");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {bn_train, kRelu, conv("pad = 1")})),
               "v.toml:3: op.0.kind: a BN training op cannot share a plan with a conv");
  CHECK(error_of(spec("[2, 8, 8, 8]", {bn_train, kRelu})) == "no error");
}

TEST_CASE("spec: R4 conv geometry, with the channel count that reaches the conv") {
  const std::string in = "[2, 8, 8, 8]";
  CHECK_STARTS(error_of(spec(in, {"kind = \"conv\"\nk = 0\nfilter = 1"})), "v.toml:4: op.0.k: k must be >= 1");
  CHECK_STARTS(error_of(spec(in, {conv("groups = 0")})), "v.toml:6: op.0.groups: groups must be >= 1");
  CHECK_STARTS(error_of(spec(in, {conv("pad = -1")})), "v.toml:6: op.0.pad: pad must be >= 0, got -1");
  CHECK_STARTS(error_of(spec(in, {conv("stride = [1, 0]")})), "v.toml:6: op.0.stride: stride must be >= 1, got 0");
  CHECK_STARTS(error_of(spec(in, {conv("dilation = 0")})), "v.toml:6: op.0.dilation: dilation must be >= 1");
  CHECK_STARTS(error_of(spec(in, {conv("pad = [1, 1, 1]")})), "v.toml:6: op.0.pad: 3 values for 2 spatial dims");
  CHECK_STARTS(error_of(spec("[2, 8, 4, 8, 8]", {conv("stride = [1, 1]")})),
               "v.toml:6: op.0.stride: 2 values for 3 spatial dims");
  CHECK_STARTS(error_of(spec(in, {conv("groups = 3")})), "v.toml:6: op.0.groups: groups 3 does not divide the 8 channels");
  CHECK_STARTS(error_of(spec(in, {"kind = \"conv\"\nk = 6\nfilter = 1\ngroups = 4"})),
               "v.toml:6: op.0.groups: groups 4 does not divide k 6");
  CHECK_STARTS(error_of(spec(in, {"kind = \"conv\"\nk = 8\nfilter = [9, 1]"})),
               "v.toml:5: op.0.filter: empty output along H: the input length 8 plus padding 2*0 is shorter than the "
               "dilated filter 9");
  CHECK_STARTS(error_of(spec(in, {conv("dilation = [1, 4]")})), "v.toml:5: op.0.filter: empty output along W");
  CHECK(error_of(spec(in, {conv("dilation = [1, 4]\npad = [0, 4]")})) == "no error");
  // The second conv gets the first one's 12 output channels, and its 6x6 output.
  CHECK_STARTS(error_of(spec(in, {"kind = \"conv\"\nk = 12\nfilter = 3", kBias, "kind = \"conv\"\nk = 8\nfilter = 1\ngroups = 8"})),
               "v.toml:12: op.2.groups: groups 8 does not divide the 12 channels");
  CHECK_STARTS(error_of(spec(in, {"kind = \"conv\"\nk = 12\nfilter = 3", "kind = \"conv\"\nk = 8\nfilter = 7"})),
               "v.toml:9: op.1.filter: empty output along H: the input length 6");
  // A pointwise prologue keeps C: the conv's groups see the input's 8 channels.
  CHECK(error_of(spec(in, {kBias, kRelu, conv("groups = 8")})) == "no error");
}

TEST_CASE("spec: R5 lengths fit MIOpen's int descriptors") {
  CHECK_STARTS(error_of(spec("[1, 8, 8, 8]", {"kind = \"conv\"\nk = 8\nfilter = 1\npad = 1073741824"})),
               "v.toml:3: op.0.kind: its output would have the length 2147483656");
}

TEST_CASE("spec: R6 BN epsilon and exp_avg_factor") {
  const std::string in = "[2, 8, 8, 8]";
  CHECK_STARTS(error_of(spec(in, {"kind = \"bn_inference\"\nmode = \"spatial\"\nepsilon = 0"})),
               "v.toml:5: op.0.epsilon: epsilon must be > 0, got 0");
  CHECK_STARTS(error_of(spec(in, {"kind = \"bn_forward_training\"\nmode = \"spatial\"\nepsilon = -1e-5"})),
               "v.toml:5: op.0.epsilon: epsilon must be > 0");
  CHECK_STARTS(error_of(spec(in, {"kind = \"bn_forward_training\"\nmode = \"spatial\"\nexp_avg_factor = 1.5"})),
               "v.toml:5: op.0.exp_avg_factor: exp_avg_factor must be in [0, 1], got 1.5");
  CHECK(error_of(spec(in, {"kind = \"bn_forward_training\"\nmode = \"spatial\"\nexp_avg_factor = [0, 1]"})) == "no error");
  CHECK_STARTS(error_of(spec(in, {"kind = \"bn_inference\"\nmode = \"spatial\"\nepsilon = nan"})),
               "v.toml:5: op.0.epsilon: expected a finite number, got nan");
  CHECK_STARTS(error_of(spec(in, {"kind = \"bn_inference\"\nmode = \"spacial\""})),
               "v.toml:4: op.0.mode: unknown mode 'spacial' (did you mean 'spatial'?); valid: per_activation, spatial");
  CHECK_STARTS(error_of(spec(in, {"kind = \"bn_inference\""})), "v.toml:2: op.0.mode: a bn_inference op needs the key 'mode'");
}

TEST_CASE("spec: R7 init distributions") {
  const std::string head = spec("[2, 8, 8, 8]", {kBias}) + "[init]\n";
  CHECK_STARTS(error_of(head + "min = 1\nmax = 1\n"), "v.toml:5: init.min: uniform needs min < max");
  CHECK_STARTS(error_of(head + "distribution = \"integer\"\nmin = -2.5\nmax = 2\n"),
               "v.toml:6: init.min: integer needs whole numbers min <= max");
  CHECK(error_of(head + "distribution = \"integer\"\nmin = 2\nmax = 2\n") == "no error");
  CHECK_STARTS(error_of(head + "distribution = \"normal\"\nstddev = 0\n"), "v.toml:6: init.stddev: stddev must be > 0");
  CHECK_STARTS(error_of(head + "distribution = \"gauss\"\n"), "v.toml:5: init.distribution: unknown distribution 'gauss'");
  CHECK_STARTS(error_of(head + "seed = -1\n"), "v.toml:5: init.seed: expected an integer >= 0, got -1");
  CHECK_STARTS(error_of(head + "sead = 1\n"), "v.toml:5: init.sead: unknown key 'sead' in [init] (did you mean 'seed'?)");
}

TEST_CASE("spec: R8 timing and verify") {
  const std::string head = spec("[2, 8, 8, 8]", {kBias});
  CHECK_STARTS(error_of(head + "[timing]\niters = 0\n"), "v.toml:5: timing.iters: iters must be >= 1, got 0");
  CHECK_STARTS(error_of(head + "[timing]\nwarmup = -1\n"), "v.toml:5: timing.warmup: warmup must be >= 0");
  CHECK_STARTS(error_of(head + "[verify]\nsamples = 0\n"), "v.toml:5: verify.samples: samples must be >= 1");
  CHECK_STARTS(error_of(head + "[verify]\ntolerance = 0.0\n"), "v.toml:5: verify.tolerance: tolerance must be > 0");
  CHECK_STARTS(error_of(head + "[verify]\nmode = \"gpu\"\n"), "v.toml:5: verify.mode: unknown mode 'gpu'");
  CHECK_STARTS(error_of(head + "[timing]\niters = 2.5\n"), "v.toml:5: timing.iters: expected an integer, got float 2.5");
  CHECK_STARTS(error_of(head + "[timing]\niters = 4294967296\n"), "v.toml:5: timing.iters: 4294967296 does not fit in an int");
}

TEST_CASE("spec: type and name errors point at the offending list element") {
  CHECK_STARTS(error_of("dtype = [\"fp32\",\n  16]\n" + spec("[2, 8, 8, 8]", {kBias})),
               "v.toml:2: dtype: expected a string, got integer 16");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {"kind = \"activation\"\nmode = \"relu6\""})),
               "v.toml:4: op.0.mode: unknown mode 'relu6'");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {kBias + "\nenabled = 1"})), "v.toml:4: op.0.enabled: expected true or false");
  CHECK_STARTS(error_of(spec("[2, 8, 8, 8]", {"kind = \"conv\"\nfilter = 3\nk = [8, \"16\"]"})),
               "v.toml:5: op.0.k: expected an integer, got string \"16\"");
}
