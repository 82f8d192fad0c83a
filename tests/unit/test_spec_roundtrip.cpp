// Every committed spec loads, and every one of its cases survives to_inline_spec -> load.
// Also the repro command's shell quoting.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "spec.h"

#ifndef HIPFUSE_SOURCE_DIR
#define HIPFUSE_SOURCE_DIR "."
#endif

using namespace hipfuse::driver;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> spec_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(HIPFUSE_SOURCE_DIR) / "specs"))
    if (entry.is_regular_file() && entry.path().extension() == ".toml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Cases per committed spec (docs/spec-format.md quotes these).
const std::map<std::string, size_t> kCaseCounts{
    {"ci/activations.toml", 90},        {"ci/conv_geometry.toml", 72},      {"ci/fusions.toml", 96},
    {"examples/bn_bwd_act.toml", 4},    {"examples/bn_train_act.toml", 4},  {"examples/c.toml", 3},
    {"examples/ca.toml", 2},            {"examples/cb.toml", 3},            {"examples/cba.toml", 12},
    {"examples/cbna.toml", 2},          {"examples/cn.toml", 2},            {"examples/cna.toml", 4},
    {"examples/conv_residual.toml", 4}, {"examples/pointwise.toml", 20},    {"examples/preact.toml", 3},
    {"miopen_tables.toml", 96},         {"resnet50/bn.toml", 216},          {"resnet50/conv.toml", 276},
};

void check_round_trip(const Case& c) {
  const std::string text = to_inline_spec(c);
  CAPTURE(text);
  const std::vector<Case> back = load_spec_text(text, "inline");
  REQUIRE(back.size() == 1);
  CHECK(back[0] == c);
  CHECK(back[0].swept.empty());
}

std::string run_sh(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0;) out.append(buffer, n);
  return out;
}

}  // namespace

TEST_CASE("spec: every committed spec validates, expands as documented and round-trips case by case") {
  const std::vector<std::string> files = spec_files();
  REQUIRE(files.size() >= kCaseCounts.size());
  std::map<std::string, size_t> counts;
  for (const std::string& file : files) {
    CAPTURE(file);
    const std::vector<Case> cases = load_spec_file(file);
    CHECK(!cases.empty());
    counts[fs::relative(file, fs::path(HIPFUSE_SOURCE_DIR) / "specs").generic_string()] = cases.size();
    for (const Case& c : cases) {
      CAPTURE(c.name);
      CHECK(c.file == file);
      check_round_trip(c);
    }
  }
  for (const auto& [file, expected] : kCaseCounts) {
    CAPTURE(file);
    CHECK(counts[file] == expected);
  }
}

TEST_CASE("spec: to_inline_spec keeps awkward names and numbers exactly") {
  std::vector<Case> cases = load_spec_text(R"(
name = "it's \"quoted\" \\ back\tslash / ünï"
input = [1, 2, 3, 4, 5]
[[op]]
kind = "residual_add"
alpha = [1e-7, 0.1, 1e20, -0.0, 3]
[[op]]
kind = "activation"
mode = "power"
alpha = 0.30000000000000004
[verify]
tolerance = 2.5e-3
)",
                                           "awkward.toml");
  REQUIRE(cases.size() == 5);
  for (const Case& c : cases) check_round_trip(c);
  CHECK(to_inline_spec(cases[4]).find("alpha = 3.0") != std::string::npos);  // stays a float

  Case untouched = cases[0];
  untouched.verify.tolerance.reset();
  check_round_trip(untouched);
}

TEST_CASE("spec: to_inline_spec writes every value explicitly") {
  const Case c = load_spec_text("input = [2, 8, 8, 8]\n[[op]]\nkind = \"conv\"\nk = 4\nfilter = 3\n", "x.toml")[0];
  CHECK(to_inline_spec(c) ==
        "name = \"x\"\n"
        "dtype = \"fp32\"\n"
        "layout = \"nchw\"\n"
        "input = [2, 8, 8, 8]\n"
        "op = [\n"
        "  { kind = \"conv\", k = 4, filter = [3, 3], stride = [1, 1], pad = [0, 0], dilation = [1, 1], groups = 1 },\n"
        "]\n"
        "init = { distribution = \"uniform\", min = -1.0, max = 1.0, mean = 0.0, stddev = 1.0, seed = 1 }\n"
        "timing = { warmup = 5, iters = 50 }\n"
        "verify = { mode = \"cpu\", samples = 100000 }\n");
}

TEST_CASE("spec: repro_command is one POSIX sh command, even with quotes in the name") {
  const Case c = load_spec_text(R"(
name = "don't $HOME `true` \"x\" \\"
input = [1, 2, 3, 4]
[[op]]
kind = "bias"
)",
                                "r.toml")[0];
  const std::string command = repro_command(c);
  const std::string prefix = "fusiondriver run --spec-text '";
  REQUIRE(command.rfind(prefix, 0) == 0);
  CHECK(command.find("'\\''") != std::string::npos);
  // Let sh itself unquote the argument: printf prints it back unchanged.
  const std::string printed = run_sh("printf '%s' " + command.substr(prefix.size() - 1));
  CHECK(printed == to_inline_spec(c));
  CHECK(load_spec_text(printed, "repro")[0] == c);
}
