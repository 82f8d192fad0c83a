// --set KEY=VALUE overrides: applied before expansion, may give lists, name bad keys.

#include <doctest/doctest.h>

#include "spec.h"

using namespace hipfuse::driver;

namespace {

const char* const kSpec = R"(
name = "s"
dtype = ["fp32", "fp16"]
input = [2, 8, 8, 8]

[[op]]
kind = "conv"
k = 8
filter = 3
pad = 1

[[op]]
kind = "activation"
mode = "relu"
)";

std::vector<Case> load(const std::vector<std::string>& sets, const char* text = kSpec) {
  return load_spec_text(text, "s.toml", sets);
}

std::string error_of(const std::vector<std::string>& sets, const char* text = kSpec) {
  try {
    load(sets, text);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> names(const std::vector<Case>& cases) {
  std::vector<std::string> out;
  for (const Case& c : cases) out.push_back(c.name);
  return out;
}

const ConvSpec& conv(const Case& c) { return std::get<ConvSpec>(c.ops.at(0)); }

}  // namespace

TEST_CASE("spec: --set replaces a value, a list replaces a sweep") {
  const std::vector<Case> one = load({"dtype=fp16"});
  REQUIRE(one.size() == 1);
  CHECK(one[0].name == "s");
  CHECK(one[0].dtype == DType::f16);

  CHECK(names(load({"dtype=bf16", "layout=[nchw,nhwc]"})) == std::vector<std::string>{"s/layout=nchw", "s/layout=nhwc"});
}

TEST_CASE("spec: --set values are TOML in which bare words are strings") {
  const std::vector<Case> cases = load({"dtype = \"fp16\"", "input=[1,3,224,224]", "op.0.k=[64,128]",
                                        "op.1.mode=leakyrelu", "op.1.alpha=0.125", "timing.iters=100",
                                        "init.seed=7", "init.distribution=normal", "verify.tolerance=1e-3"});
  REQUIRE(cases.size() == 2);
  CHECK(names(cases) == std::vector<std::string>{"s/op.0.k=64", "s/op.0.k=128"});
  const Case& c = cases[1];
  CHECK(c.input == std::vector<int64_t>{1, 3, 224, 224});  // a flat list is one value
  CHECK(conv(c).k == 128);
  CHECK(std::get<ActivationSpec>(c.ops[1]).mode == 8);
  CHECK(std::get<ActivationSpec>(c.ops[1]).alpha == 0.125);
  CHECK(c.timing.iters == 100);  // the spec has no [timing] table: --set makes one
  CHECK(c.init.seed == 7);
  CHECK(c.init.distribution == "normal");
  CHECK(c.verify.tolerance == 1e-3);
}

TEST_CASE("spec: --set can sweep vector keys and whole sections") {
  const std::vector<Case> cases =
      load({"input=[[1,8,8,8],[2,8,16,16]]", "op.0.filter=[[1,1],[3,3]]", "timing={warmup=0, iters=2}"});
  CHECK(names(cases) == std::vector<std::string>{"s/dtype=fp32/input=1x8x8x8/op.0.filter=1x1",
                                                 "s/dtype=fp32/input=1x8x8x8/op.0.filter=3x3",
                                                 "s/dtype=fp32/input=2x8x16x16/op.0.filter=1x1",
                                                 "s/dtype=fp32/input=2x8x16x16/op.0.filter=3x3",
                                                 "s/dtype=fp16/input=1x8x8x8/op.0.filter=1x1",
                                                 "s/dtype=fp16/input=1x8x8x8/op.0.filter=3x3",
                                                 "s/dtype=fp16/input=2x8x16x16/op.0.filter=1x1",
                                                 "s/dtype=fp16/input=2x8x16x16/op.0.filter=3x3"});
  CHECK(cases[0].timing == TimingSpec{0, 2});
}

TEST_CASE("spec: --set applies in order and can replace the op list or the spec name") {
  const std::vector<Case> cases = load({"dtype=fp16", "dtype=bf16", "name=renamed", "op=[{kind=bias}]"});
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].name == "renamed");
  CHECK(cases[0].dtype == DType::bf16);
  REQUIRE(cases[0].ops.size() == 1);
  CHECK(std::holds_alternative<BiasSpec>(cases[0].ops[0]));
}

TEST_CASE("spec: --set bad keys and values are errors naming the key") {
  CHECK(error_of({"dtyp=fp16"}) ==
        "s.toml: dtyp: unknown key 'dtyp' in the plan (did you mean 'dtype'?); valid: name, dtype, layout, input, op, "
        "init, timing, verify, case (value from --set)");
  CHECK(error_of({"op.0.stirde=2"}) == "s.toml: op.0.stirde: no op kind has a key 'stirde' (value from --set)");
  CHECK(error_of({"op.2.k=2"}) == "s.toml: op.2.k: no plan has an op at this index with this key (value from --set)");
  CHECK(error_of({"op.1.k=2"}) == "s.toml: op.1.k: no plan has an op at this index with this key (value from --set)");
  CHECK(error_of({"op.x.k=2"}).find("s.toml: op.x: expected an op index") == 0);
  CHECK(error_of({"timing.iter=2"}).find("s.toml: timing.iter: unknown key 'iter' in [timing] (did you mean 'iters'?)") ==
        0);
  CHECK(error_of({"dtype=fp64"}).find("s.toml: dtype: unknown dtype 'fp64'") == 0);
  CHECK(error_of({"dtype=fp64"}).find("(value from --set)") != std::string::npos);
  CHECK(error_of({"op.0.k=0"}).find("s.toml: op.0.k: k must be >= 1, got 0") == 0);
  CHECK(error_of({"dtype"}) == "s.toml: dtype: --set expects KEY=VALUE");
  CHECK(error_of({"dtype="}) == "s.toml: dtype: --set needs a value after '='");
  CHECK(error_of({"a..b=1"}).find("s.toml: a..b: a --set key is a dotted path") == 0);
  CHECK(error_of({"input=[1,2"}).find("s.toml: input: cannot read the --set value '[1,2'") == 0);
}

TEST_CASE("spec: --set reaches every case entry, and an op key only the ops that have it") {
  const char* const suite = R"(
input = [2, 8, 8, 8]
[[case]]
name = "conv"
dtype = "fp16"
op = [{ kind = "conv", k = 8, filter = 1 }]
[[case]]
name = "bn"
op = [{ kind = "bn_inference", mode = "spatial" }, { kind = "activation", mode = "relu" }]
)";
  const std::vector<Case> cases = load({"op.0.k=16", "dtype=bf16"}, suite);
  REQUIRE(cases.size() == 2);
  CHECK(conv(cases[0]).k == 16);
  CHECK(cases[0].dtype == DType::bf16);  // --set wins over the case's own value
  CHECK(std::holds_alternative<BnInferenceSpec>(cases[1].ops[0]));
  CHECK(cases[1].dtype == DType::bf16);
  CHECK(error_of({"op.1.k=16"}, suite) ==
        "s.toml: op.1.k: no plan has an op at this index with this key (value from --set)");
}
