// Lists expand into the cartesian product of cases; scalars broadcast; [[case]] entries
// inherit the top level; `enabled` drops ops.

#include <doctest/doctest.h>

#include <set>

#include "spec.h"

using namespace hipfuse::driver;

namespace {

std::vector<Case> load(const std::string& text) { return load_spec_text(text, "t.toml"); }

std::string error_of(const std::string& text) {
  try {
    load(text);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "no error";
}

const ConvSpec& conv(const Case& c, size_t i = 0) { return std::get<ConvSpec>(c.ops.at(i)); }

const char* const kCba = R"(
name = "cba"
dtype = ["fp32", "fp16", "bf16"]
layout = ["nchw", "nhwc"]
input = [8, 16, 14, 14]

[[op]]
kind = "conv"
k = [64, 128]
filter = 3
pad = 1

[[op]]
kind = "bias"

[[op]]
kind = "activation"
mode = "relu"
)";

}  // namespace

TEST_CASE("spec: lists expand into the cartesian product, first key slowest") {
  const std::vector<Case> cases = load(kCba);
  REQUIRE(cases.size() == 12);
  std::set<std::string> names;
  for (const Case& c : cases) names.insert(c.name);
  CHECK(names.size() == 12);
  CHECK(cases[0].name == "cba/dtype=fp32/layout=nchw/op.0.k=64");
  CHECK(cases[1].name == "cba/dtype=fp32/layout=nchw/op.0.k=128");
  CHECK(cases[2].name == "cba/dtype=fp32/layout=nhwc/op.0.k=64");
  CHECK(cases[11].name == "cba/dtype=bf16/layout=nhwc/op.0.k=128");
  CHECK(cases[11].dtype == DType::bf16);
  CHECK(cases[11].layout == Layout::nhwc);
  CHECK(conv(cases[11]).k == 128);
  using Swept = std::vector<std::pair<std::string, std::string>>;
  CHECK(cases[5].swept == Swept{{"dtype", "fp16"}, {"layout", "nchw"}, {"op.0.k", "128"}});
  CHECK(cases[5].file == "t.toml");
  CHECK(cases[5].line == 1);
}

TEST_CASE("spec: case names follow the schema order, not the order the file writes keys in") {
  const std::vector<Case> cases = load(R"(
input = [1, 2, 3, 4]
layout = ["nchw", "nhwc"]
[timing]
iters = [1, 2]
[init]
seed = [3, 4]
[[op]]
mode = ["relu", "elu"]
kind = "activation"
)");
  REQUIRE(cases.size() == 16);
  CHECK(cases[0].name == "t/layout=nchw/op.0.mode=relu/init.seed=3/timing.iters=1");
}

TEST_CASE("spec: a scalar broadcasts to every spatial dim and a flat list is one value") {
  const auto one = [](const std::string& input, const std::string& conv_keys) {
    const std::vector<Case> cases =
        load("input = " + input + "\n[[op]]\nkind = \"conv\"\nk = 4\n" + conv_keys);
    REQUIRE(cases.size() == 1);
    return conv(cases[0]);
  };
  const ConvSpec c2 = one("[1, 4, 9, 9]", "filter = 3\nstride = 2\npad = 1\ndilation = 1\n");
  CHECK(c2.filter == std::vector<int>{3, 3});
  CHECK(c2.stride == std::vector<int>{2, 2});
  CHECK(c2.pad == std::vector<int>{1, 1});
  CHECK(c2.dilation == std::vector<int>{1, 1});
  const ConvSpec c3 = one("[1, 4, 5, 9, 9]", "filter = 3\n");
  CHECK(c3.filter == std::vector<int>{3, 3, 3});
  CHECK(c3.stride == std::vector<int>{1, 1, 1});  // defaults follow the spatial dims too
  CHECK(c3.pad == std::vector<int>{0, 0, 0});
  const ConvSpec flat = one("[1, 4, 9, 9]", "filter = [3, 1]\npad = [1, 0]\n");
  CHECK(flat.filter == std::vector<int>{3, 1});
  CHECK(flat.pad == std::vector<int>{1, 0});
  CHECK(flat.groups == 1);
}

TEST_CASE("spec: a list of lists sweeps a vector key") {
  const std::vector<Case> cases = load(R"(
input = [[64, 64, 56, 56], [1, 3, 224, 224]]
[[op]]
kind = "conv"
k = 8
filter = [[1, 1], [3, 3]]
)");
  REQUIRE(cases.size() == 4);
  CHECK(cases[0].input == std::vector<int64_t>{64, 64, 56, 56});
  CHECK(cases[0].name == "t/input=64x64x56x56/op.0.filter=1x1");
  CHECK(cases[3].input == std::vector<int64_t>{1, 3, 224, 224});
  CHECK(conv(cases[3]).filter == std::vector<int>{3, 3});
}

TEST_CASE("spec: a one-value list still names its case") {
  const std::vector<Case> cases = load("dtype = [\"fp16\"]\ninput = [1, 2, 3, 4]\n[[op]]\nkind = \"bias\"\n");
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].name == "t/dtype=fp16");
}

TEST_CASE("spec: defaults") {
  const std::vector<Case> cases = load("input = [1, 2, 3, 4]\n[[op]]\nkind = \"bn_forward_training\"\nmode = \"spatial\"\n");
  REQUIRE(cases.size() == 1);
  const Case& c = cases[0];
  CHECK(c.name == "t");  // the file's stem when the spec has no name
  CHECK(c.dtype == DType::f32);
  CHECK(c.layout == Layout::nchw);
  CHECK(std::get<BnForwardTrainingSpec>(c.ops[0]) == BnForwardTrainingSpec{kBnSpatial, 1e-5, 0.1, true});
  CHECK(c.init == InitSpec{});
  CHECK(c.timing == TimingSpec{});
  CHECK(c.verify == VerifySpec{});
}

TEST_CASE("spec: every op kind and section reads its keys") {
  const std::vector<Case> cases = load(R"(
input = [2, 4, 6, 6]
[[op]]
kind = "conv"
k = 8
filter = 3
pad = 1
groups = 2
[[op]]
kind = "residual_add"
alpha = 0.5
[[op]]
kind = "bias"
[[op]]
kind = "bn_inference"
mode = "per_activation"
epsilon = 1e-3
[[op]]
kind = "activation"
mode = "power"
alpha = 1
beta = 2.5
gamma = 3
[init]
distribution = "normal"
mean = 0.5
stddev = 2
seed = 99
[timing]
warmup = 0
iters = 7
[verify]
mode = "sample"
samples = 10
tolerance = 0.01
)");
  REQUIRE(cases.size() == 1);
  const Case& c = cases[0];
  REQUIRE(c.ops.size() == 5);
  CHECK(conv(c).groups == 2);
  CHECK(std::get<ResidualAddSpec>(c.ops[1]).alpha == 0.5);
  CHECK(std::holds_alternative<BiasSpec>(c.ops[2]));
  CHECK(std::get<BnInferenceSpec>(c.ops[3]) == BnInferenceSpec{kBnPerActivation, 1e-3});
  CHECK(std::get<ActivationSpec>(c.ops[4]) == ActivationSpec{6, 1.0, 2.5, 3.0, false});
  CHECK(c.init.distribution == "normal");
  CHECK(c.init.mean == 0.5);
  CHECK(c.init.stddev == 2.0);
  CHECK(c.init.seed == 99);
  CHECK(c.timing == TimingSpec{0, 7});
  CHECK(c.verify.mode == "sample");
  CHECK(c.verify.samples == 10);
  CHECK(c.verify.tolerance == 0.01);
}

TEST_CASE("spec: case entries inherit the top level and override it key by key") {
  const std::vector<Case> cases = load(R"(
name = "suite"
dtype = ["fp32", "fp16"]
input = [2, 8, 8, 8]
[timing]
warmup = 2
iters = 9

[[op]]
kind = "conv"
k = 8
filter = 3
pad = 1
[[op]]
kind = "activation"
mode = "relu"

[[case]]
name = "default_ops"

[[case]]
name = "patched"
dtype = "bf16"
op.0 = { k = 16, stride = 2 }
op.1.mode = "tanh"
[case.timing]
iters = 3

[[case]]
name = "own_ops"
input = [1, 4, 4, 4]
op = [{ kind = "bias" }]
)");
  REQUIRE(cases.size() == 5);  // own_ops inherits the dtype list too
  CHECK(cases[0].name == "suite/default_ops/dtype=fp32");
  CHECK(cases[1].name == "suite/default_ops/dtype=fp16");
  CHECK(cases[0].line == 18);
  CHECK(conv(cases[0]).k == 8);

  const Case& patched = cases[2];
  CHECK(patched.name == "suite/patched");
  CHECK(patched.line == 21);
  CHECK(patched.dtype == DType::bf16);
  CHECK(conv(patched).k == 16);
  CHECK(conv(patched).stride == std::vector<int>{2, 2});
  CHECK(conv(patched).pad == std::vector<int>{1, 1});  // kept from the top level
  CHECK(std::get<ActivationSpec>(patched.ops[1]).mode == 2);
  CHECK(patched.timing == TimingSpec{2, 3});  // warmup inherited, iters overridden

  const Case& own = cases[3];
  CHECK(own.name == "suite/own_ops/dtype=fp32");
  CHECK(own.input == std::vector<int64_t>{1, 4, 4, 4});
  REQUIRE(own.ops.size() == 1);
  CHECK(std::holds_alternative<BiasSpec>(own.ops[0]));
}

TEST_CASE("spec: mistakes in case entries") {
  CHECK(error_of("input = [1, 2, 3, 4]\n[[case]]\nop = [{ kind = \"bias\" }]\n") ==
        "t.toml:2: case.0: every [[case]] needs a name");
  CHECK(error_of("input = [1, 2, 3, 4]\n[[op]]\nkind = \"bias\"\n[[case]]\nname = \"a\"\nop.3.k = 2\n") ==
        "t.toml:6: case.0.op.3: there is no op 3: the plan has 1 ops");
  CHECK(error_of("input = [1, 2, 3, 4]\n[[op]]\nkind = \"bias\"\n[[case]]\nname = \"a\"\n[[case]]\nname = \"a\"\n")
            .find("t.toml:6: name: two cases are named 't/a'") == 0);
  CHECK(error_of("input = [1, 2, 3, 4]\n[[op]]\nkind = \"bias\"\n[[case]]\nname = \"a\"\n[[case.case]]\nname = \"b\"\n")
            .find("t.toml:6: case.0.case: unknown key 'case'") == 0);
}

TEST_CASE("spec: enabled = false drops an op and a list of both sweeps it") {
  const std::vector<Case> cases = load(R"(
input = [2, 8, 8, 8]
[[op]]
kind = "conv"
k = 8
filter = 1
[[op]]
kind = "bn_inference"
mode = "spatial"
enabled = [false, true]
[[op]]
kind = "activation"
mode = "relu"
)");
  REQUIRE(cases.size() == 2);
  CHECK(cases[0].name == "t/op.1.enabled=false");
  CHECK(cases[0].ops.size() == 2);
  CHECK(std::holds_alternative<ActivationSpec>(cases[0].ops[1]));
  CHECK(cases[1].ops.size() == 3);
  // Errors still name the op by its declared index.
  CHECK(error_of("input = [1, 2, 3, 4]\n[[op]]\nkind = \"bias\"\nenabled = false\n[[op]]\nkind = \"bn_backward\"\n"
                 "mode = \"spatial\"\n[[op]]\nkind = \"bias\"\n")
            .find("t.toml:9: op.2.kind: a backward plan") == 0);
  CHECK(error_of("input = [1, 2, 3, 4]\n[[op]]\nkind = \"bias\"\nenabled = false\n").find("every op is disabled") !=
        std::string::npos);
}

TEST_CASE("spec: list shapes that mean nothing are errors") {
  const std::string head = "input = [1, 2, 3, 4]\n[[op]]\nkind = \"conv\"\nk = 4\n";
  CHECK(error_of(head + "filter = [[1, 1], 1]\n").find("t.toml:5: op.0.filter: bad list nesting") == 0);
  CHECK(error_of(head + "filter = [1, [1, 1]]\n").find("t.toml:5: op.0.filter: bad list nesting") == 0);
  CHECK(error_of(head + "filter = [[[1, 1]]]\n").find("t.toml:5: op.0.filter: bad list nesting") == 0);
  CHECK(error_of(head + "filter = []\n").find("t.toml:5: op.0.filter: empty list") == 0);
  CHECK(error_of(head + "filter = 1\ngroups = [[1]]\n").find("t.toml:6: op.0.groups: bad list nesting") == 0);
  CHECK(error_of("input = 4\n[[op]]\nkind = \"bias\"\n") == "t.toml:1: input: expected a list of integers, got integer 4");
  CHECK(error_of("input = [1, 2, 3, 4]\n[[op]]\nkind = [\"bias\"]\n").find("t.toml:3: op.0.kind: expected an op kind") ==
        0);
  CHECK(error_of("input = [1, 2, 3, 4]\n[op]\nkind = \"bias\"\n") ==
        "t.toml:2: op: expected [[op]] tables, got a table");
  CHECK(error_of("input = [1, 2, 3, 4]\nname = [\"a\"]\n[[op]]\nkind = \"bias\"\n")
            .find("t.toml:2: name: expected a string") == 0);
}

TEST_CASE("spec: a runaway product is refused before any case is built") {
  std::string text = "input = [1, 2, 3, 4]\n[[op]]\nkind = \"activation\"\nmode = \"relu\"\n";
  const std::string eleven = " = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n";  // 11^5 > 10000
  for (const char* key : {"alpha", "beta", "gamma"}) text += key + eleven;
  text += "[timing]\niters" + eleven + "warmup" + eleven;
  CHECK(error_of(text).find("more than 10000 cases") != std::string::npos);
}

TEST_CASE("spec: a plan of more than kMaxOpsPerPlan ops is refused before it is expanded") {
  std::string text = "input = [1, 2, 3, 4]\n";
  for (int i = 0; i < 33; ++i) text += "[[op]]\nkind = \"activation\"\nmode = \"relu\"\nalpha = [1, 2]\n";
  CHECK(error_of(text).find("a plan holds at most 32 ops, this one 33") != std::string::npos);
  std::string thirty_two = "input = [1, 2, 3, 4]\n";
  for (int i = 0; i < 32; ++i) thirty_two += "[[op]]\nkind = \"bias\"\n";
  CHECK(error_of(thirty_two) == "no error");
}

