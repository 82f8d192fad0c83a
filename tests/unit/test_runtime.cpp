// The run-time compilation layer without a GPU: embedded sources, hipRTC for a named
// architecture, compile errors, and the platform layer's no-GPU behaviour.
#include <doctest/doctest.h>

#include "common/error.h"
#include "runtime/kernel_compiler.h"
#include "runtime/kernel_sources.h"
#include "runtime/platform.h"
#include "runtime/rtc.h"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace hipfuse::rt;

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

KernelRequest smoke_request() { return {"smoke.hip", "hf_smoke", {}, {}}; }

}  // namespace

TEST_CASE("every file under kernels/ is embedded byte for byte") {
  const std::filesystem::path dir = std::filesystem::path(HIPFUSE_SOURCE_DIR) / "kernels";
  std::size_t on_disk = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".hip" && ext != ".h")) continue;
    ++on_disk;
    std::string rel = std::filesystem::relative(entry.path(), dir).generic_string();
    CAPTURE(rel);
    CHECK(kernel_file(rel).text == read_file(entry.path()));
  }
  CHECK(on_disk == kernel_files().size());
  CHECK(on_disk >= 2);
}

TEST_CASE("the kernel directory override reads sources from disk") {
  auto dir = std::filesystem::temp_directory_path() / "hipfuse-kernel-dir-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "common");
  std::ofstream(dir / "k.hip") << "// kernel\n";
  std::ofstream(dir / "common" / "h.h") << "// header\n";
  std::ofstream(dir / "notes.txt") << "ignored\n";
  auto files = read_kernel_directory(dir);
  REQUIRE(files.size() == 2);
  CHECK_THROWS_AS(read_kernel_directory(dir / "missing"), hipfuse::Error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("an unknown kernel source is an internal error naming it") {
  try {
    kernel_file("no_such_kernel.hip");
    FAIL("expected an error");
  } catch (const hipfuse::Error& e) {
    CHECK(e.status() == hipfuse::Status::internal_error);
    CHECK(std::string(e.what()).find("no_such_kernel.hip") != std::string::npos);
  }
}

TEST_CASE("without a GPU the platform layer reports it instead of failing") {
  std::string why;
  int count = device_count(&why);
  if (count == 0) {
    CHECK(why.find("no GPU device found") != std::string::npos);
  } else {
    MESSAGE("a GPU is present: " << count << " device(s)");
  }
}

TEST_CASE("architecture names") {
  CHECK(is_known_arch("sm_90"));
  CHECK(is_known_arch("sm_90a"));
  CHECK(is_known_arch("sm_100"));
  CHECK_FALSE(is_known_arch("sm_9"));
  CHECK_FALSE(is_known_arch("gfx90a"));
  CHECK_FALSE(is_known_arch("sm_90x"));
  CHECK(warp_size_for_arch("sm_90") == 32);
}

TEST_CASE("early start (programmatic dependent launch) from compute capability 9.0") {
  CHECK(supports_early_start("sm_90"));
  CHECK(supports_early_start("sm_90a"));
  CHECK(supports_early_start("sm_100"));
  CHECK(supports_early_start("sm_120"));
  CHECK_FALSE(supports_early_start("sm_89"));
  CHECK_FALSE(supports_early_start("sm_80"));
  CHECK_FALSE(supports_early_start("gfx90a"));
}

TEST_CASE("hipRTC compiles the smoke kernel for sm_90 without a GPU") {
  auto options = KernelCompiler::instance().options_for(smoke_request(), "sm_90", 32);
  auto code = rtc_compile(kernel_file("smoke.hip"), kernel_headers(), options);
  // A CUBIN (ELF for EM_CUDA = 190) for a real architecture: it loads without JIT.
  std::string image(code.begin(), code.end());
  REQUIRE(image.size() > 20);
  CHECK(image.compare(0, 4, "\x7f" "ELF") == 0);
  CHECK((static_cast<unsigned char>(image[18]) | (static_cast<unsigned char>(image[19]) << 8)) == 190);
  CHECK(image.find("hf_smoke") != std::string::npos);
}

TEST_CASE("a compile error carries the compiler log and the options") {
  SourceFile broken{"broken.hip", "#include \"common/vendor.h\"\nHF_KERNEL void k() { this is not C++; }\n"};
  auto options = KernelCompiler::instance().options_for(smoke_request(), "sm_90", 32);
  options.push_back("-DHF_MARKER_OPTION=1");
  try {
    rtc_compile(broken, kernel_headers(), options);
    FAIL("expected a compile error");
  } catch (const hipfuse::Error& e) {
    std::string what = e.what();
    CHECK(what.find("broken.hip") != std::string::npos);
    CHECK(what.find("error") != std::string::npos);          // the compiler's log
    CHECK(what.find("-DHF_MARKER_OPTION=1") != std::string::npos);
  }
}

TEST_CASE("the compiler version names the platform") {
  CHECK(rtc_compiler_version().find(platform_name()) == 0);
}
