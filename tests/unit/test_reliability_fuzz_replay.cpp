// The fuzz targets' inputs replayed under the normal build (no clang, no libFuzzer needed):
// every seed in tests/fuzz/corpus/<target>/ and every input that once broke a rule, kept in
// tests/fuzz/regressions/<target>/ (one file per bug, named after it). Plus a small
// deterministic "fuzz" of the C API harness: a few thousand pseudo-random programs, so the
// harness's rules run on every CI build, with or without sanitizers.
#include <doctest/doctest.h>

#include "../fuzz/api_harness.h"
#include "test_api_support.h"
#ifdef HIPFUSE_HAVE_SPEC_HARNESS
#include "../fuzz/spec_harness.h"
#endif

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> inputs(const std::string& target) {
  std::vector<fs::path> out;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(HIPFUSE_FUZZ_DIR) / kind / target;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("reliability: fuzz_api corpus and regression inputs replay cleanly") {
  api_test::QuietLog quiet;
  const auto files = inputs("fuzz_api");
  CHECK(files.size() >= 10);
  for (const auto& f : files) {
    CAPTURE(f.string());
    const auto data = bytes_of(f);
    const std::string broken = hipfuse::fuzz::check_api_sequence(data.data(), data.size());
    CHECK_MESSAGE(broken.empty(), broken);
  }
}

TEST_CASE("reliability: 3000 pseudo-random C API programs keep every documented rule") {
  api_test::QuietLog quiet;
  std::mt19937_64 rng(20261129);
  int failures = 0;
  for (int i = 0; i < 3000 && failures < 3; ++i) {
    std::vector<std::uint8_t> program(64 + rng() % 960);
    for (auto& b : program) b = static_cast<std::uint8_t>(rng());
    const std::string broken = hipfuse::fuzz::check_api_sequence(program.data(), program.size());
    if (!broken.empty()) {
      ++failures;
      std::string hex;
      for (auto b : program) {
        static const char digits[] = "0123456789abcdef";
        hex += digits[b >> 4];
        hex += digits[b & 15];
      }
      FAIL_CHECK("program " << i << " broke a rule: " << broken << "\n  bytes: " << hex);
    }
  }
}

#ifdef HIPFUSE_HAVE_SPEC_HARNESS
TEST_CASE("reliability: fuzz_spec corpus and regression inputs replay cleanly") {
  const auto files = inputs("fuzz_spec");
  CHECK(files.size() >= 10);
  for (const auto& f : files) {
    CAPTURE(f.string());
    const auto data = bytes_of(f);
    const std::string broken = hipfuse::fuzz::check_spec_input(data.data(), data.size());
    CHECK_MESSAGE(broken.empty(), broken);
  }
}
#endif
