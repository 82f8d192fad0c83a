// Broken specs: every fixture under tests/data/specs fails with a SpecError that names the
// file, the line and the key of the problem.

#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

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

namespace {

std::optional<SpecError> text_error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    load_spec_text(text, "t.toml", overrides);
  } catch (const SpecError& e) {
    return e;
  }
  return std::nullopt;
}

const std::string kOps = "\n[[op]]\nkind = \"activation\"\nmode = \"relu\"\n";

}  // namespace

// toml-unicode-unreachable (fixed in driver/spec_text_check.cpp): toml++ 3.3.0 reaches
// __builtin_unreachable() on some non-ASCII characters where it looks for whitespace. The
// loader refuses them first, naming the line, the key and the column.
TEST_CASE("spec: non-ASCII characters are refused outside strings and comments, with line, key and column") {
  struct Bad {
    std::string text;
    int line;
    const char* key;
    const char* words;
  };
  const Bad bad[] = {
      {"name = \"x\"\n\xC3\xA9 = 1\n", 2, "", "column 1: non-ASCII character U+00E9 '\xC3\xA9' outside a string"},
      {"name = \"x\"\ninput = [1, 2, 3, 4\xC2\xA7]\n", 2, "input", "column 20: non-ASCII character U+00A7"},
      {"name = \"x\"\ndtype = fp32\xE3\x80\x81\n", 2, "dtype", "U+3001"},
      {"name = \"x\" \xC2\xA0# no-break space\n", 1, "name", "U+00A0"},
      {"name = \"\"\"a\\\n\xC2\xA7\"\"\"\n", 2, "", "after a line-ending backslash"},
      {"name = \"\"\"a\\   \n  \n   \xC3\xA9\"\"\"\n", 3, "", "column 4: non-ASCII character U+00E9 '\xC3\xA9' right after"},
      {"name = \"\"\"a\\  \xC3\xA9\"\"\"\n", 1, "name", "right after a line-ending backslash"},
      {"name = \"a\\\xC3\xA9\"\n", 1, "name", "after a backslash"},
      {"name = \"\"\"a\\\xC3\xA9\"\"\"\n", 1, "name", "after a backslash"},
      {"x = [\"\"\"a\"\"\"\", \xC3\xA9]\n", 1, "x", "outside a string"},     // the string ends after 4 quotes
      {"x = ['''a''''', \xC3\xA9]\n", 1, "x", "outside a string"},           // and after 5
      {"x = \"a\\\"\" \xC3\xA9\n", 1, "x", "outside a string"},               // \" does not end it
      {"x = 'a\\' \xC3\xA9\n", 1, "x", "outside a string"},                   // a literal string has no escapes
      {"# comment \xC3\n", 1, "", "byte 0xC3 is not valid utf-8"},
      {"name = \"\xED\xA0\x80\"\n", 1, "name", "byte 0xED is not valid utf-8"},     // a surrogate
      {"name = \"\xC0\xAF\"\n", 1, "name", "byte 0xC0 is not valid utf-8"},         // overlong
      {"name = \"\xF4\x90\x80\x80\"\n", 1, "name", "byte 0xF4 is not valid utf-8"},  // above U+10FFFF
      {"name = \"\xE2\x82\"\n", 1, "name", "byte 0xE2 is not valid utf-8"},         // cut short
      // A quote inside a bare value opens no string: toml++ reads on to the non-ASCII character.
      {"name = \"x\"\ninput = [64, 14pmena\"\xC3\xA9 = 1\n", 2, "input", "read only inside strings and comments"},
      {"name = \"x\"\nx = 1.=\"\xC3\xA9\"\n", 2, "x", "read only inside strings and comments"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    const std::optional<SpecError> e = text_error_of(b.text + kOps);
    REQUIRE(e);
    CAPTURE(e->what());
    CHECK(e->file == "t.toml");
    CHECK(e->line == b.line);
    CHECK(e->key == b.key);
    CHECK(e->message.find(b.words) != std::string::npos);
  }
}

TEST_CASE("spec: non-ASCII text in strings and comments is read") {
  const std::string text = "\xEF\xBB\xBF# caf\xC3\xA9 \xE3\x80\x81 \xF0\x9F\x98\x80\n"
                           "name = \"na\xC3\xAFve \xC2\xA7 \\u00e9\"\n"
                           "input = [1, 4, 8, 8]\n"
                           "[verify]  # \xC2\xA0\n"
                           "tolerance = 1e-3\n" +
                           kOps;
  std::vector<Case> cases;
  REQUIRE_NOTHROW(cases = load_spec_text(text, "t.toml"));
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].name == "na\xC3\xAFve \xC2\xA7 \xC3\xA9");
  for (const char* name : {"'''x\xC3\xA9'''", "\"\"\"\nx\xC2\xA7\"\"\"", "\"\"\"x\\\n  y\xC3\xA9\"\"\"", "'\xE3\x80\x81'"}) {
    CAPTURE(name);
    CHECK_NOTHROW(load_spec_text(std::string("name = ") + name + "\ninput = [1, 4, 8, 8]\n" + kOps, "t.toml"));
  }
}

TEST_CASE("spec: --set values are refused with non-ASCII outside strings") {
  const std::string text = "name = \"x\"\ninput = [1, 4, 8, 8]\n" + kOps;
  const std::optional<SpecError> e = text_error_of(text, {"name=\xC3\xA9"});
  REQUIRE(e);
  CHECK(e->key == "name");
  CHECK(e->message.find("cannot read the --set value") != std::string::npos);
  CHECK(e->message.find("U+00E9") != std::string::npos);
  std::vector<Case> cases;
  REQUIRE_NOTHROW(cases = load_spec_text(text, "t.toml", {"name=\"\xC3\xA9\""}));
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].name == "\xC3\xA9");
}
