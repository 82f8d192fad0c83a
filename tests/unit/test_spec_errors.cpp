// Broken specs: every fixture under tests/data/specs fails with a SpecError that names the
// file, the line and the key of the problem.

#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <set>

#include "spec.h"

#ifndef HIPFUSE_SOURCE_DIR
#define HIPFUSE_SOURCE_DIR "."
#endif

using namespace hipfuse::driver;

namespace {

std::string fixture(const std::string& name) { return std::string(HIPFUSE_SOURCE_DIR) + "/tests/data/specs/" + name; }

std::optional<SpecError> error_of(const std::string& path) {
  try {
    load_spec_file(path);
  } catch (const SpecError& e) {
    return e;
  }
  return std::nullopt;
}

struct Expected {
  const char* file;
  int line;         // 0: no line to name
  const char* key;  // "": no key to name
  const char* words;
};

const Expected kFixtures[] = {
    {"syntax_error.toml", 8, "filter", "expected value"},
    {"garbage.toml", 1, "", "utf-8"},
    {"empty.toml", 0, "", "empty"},
    {"unknown_key.toml", 10, "op.0.stirde", "did you mean 'stride'"},
    {"unknown_op_kind.toml", 7, "op.0.kind", "unknown op kind 'batchnorm'"},
    {"bad_dtype.toml", 4, "dtype", "valid: fp32, fp16, bf16"},
    {"wrong_type.toml", 8, "op.0.k", "expected an integer, got string"},
    {"bad_shape.toml", 3, "input", "got -8"},
    {"bad_nesting.toml", 8, "op.0.filter", "bad list nesting"},
    {"groups_mismatch.toml", 14, "op.1.groups", "does not divide the 12 channels"},
    {"misplaced_activation_backward.toml", 7, "op.0.kind", "directly after bn_backward"},
    {"unknown_section.toml", 8, "timming", "did you mean 'timing'"},
    {"bn_training_with_conv.toml", 11, "op.1.kind", "cannot share a plan with a conv"},
    {"case_error.toml", 14, "case.1.op.0.filter", "empty output along H"},
};

}  // namespace

TEST_CASE("spec: every broken fixture names its file, line and key") {
  for (const Expected& x : kFixtures) {
    CAPTURE(x.file);
    const std::optional<SpecError> e = error_of(fixture(x.file));
    REQUIRE(e);
    const std::string what = e->what();
    CAPTURE(what);
    CHECK(e->file == fixture(x.file));
    CHECK(e->line == x.line);
    CHECK(e->key == x.key);
    const std::string location = std::string(x.file) + (x.line ? ":" + std::to_string(x.line) + ": " : ": ");
    CHECK(what.find(location) != std::string::npos);
    if (*x.key) CHECK(what.find(std::string(": ") + x.key + ": ") != std::string::npos);
    CHECK(what.find(x.words) != std::string::npos);
  }
}

TEST_CASE("spec: every fixture under tests/data/specs has its expectation above") {
  std::set<std::string> listed;
  for (const Expected& x : kFixtures) listed.insert(x.file);
  for (const auto& entry : std::filesystem::directory_iterator(fixture(""))) {
    CAPTURE(entry.path().string());
    CHECK(listed.count(entry.path().filename().string()) == 1);
  }
}

TEST_CASE("spec: a file that cannot be read is a SpecError naming it") {
  const std::optional<SpecError> missing = error_of(fixture("no_such_spec.toml"));
  REQUIRE(missing);
  CHECK(missing->file == fixture("no_such_spec.toml"));
  CHECK(std::string(missing->what()).find("cannot open") != std::string::npos);

  const std::optional<SpecError> directory = error_of(fixture(""));
  REQUIRE(directory);
  CHECK(std::string(directory->what()).find("directory") != std::string::npos);
}

TEST_CASE("spec: SpecError what() is FILE:LINE: KEY: message, leaving out what is unknown") {
  CHECK(std::string(SpecError("a.toml", 3, "op.0.k", "bad").what()) == "a.toml:3: op.0.k: bad");
  CHECK(std::string(SpecError("a.toml", 0, "op.0.k", "bad").what()) == "a.toml: op.0.k: bad");
  CHECK(std::string(SpecError("a.toml", 3, "", "bad").what()) == "a.toml:3: bad");
  CHECK(std::string(SpecError("a.toml", 0, "", "bad").what()) == "a.toml: bad");
}
