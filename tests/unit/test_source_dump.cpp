// HIPFUSE_DUMP_SOURCE_DIR: a compile writes what hipRTC compiles (source, headers, options)
// under its cache key, so that the kernel can be rebuilt outside the library; a cache hit
// writes nothing, and a directory that cannot be written does not stop the compile.
#include "test_reliability_support.h"

#include <fstream>

using namespace hipfuse::rt;
using namespace reliability;

namespace {

std::string read_text(const fs::path& path) {
  const std::vector<char> bytes = read_bytes(path);
  return {bytes.begin(), bytes.end()};
}

KernelRequest dumped_request() {
  KernelRequest request = smoke_request("-DHF_DUMP_TEST=1");
  request.generated_headers.push_back({"hf_plan.h", "// the plan's generated header\n"});
  return request;
}

}  // namespace

TEST_CASE("HIPFUSE_DUMP_SOURCE_DIR: a compile writes its source, headers and options under its key") {
  TempDir cache("hipfuse-dump-cache"), dump("hipfuse-dump");
  CacheAt at(cache.path());
  ScopedEnv env("HIPFUSE_DUMP_SOURCE_DIR", dump.path().c_str());
  auto& compiler = KernelCompiler::instance();
  const KernelRequest request = dumped_request();
  const auto code = compiler.binary(request, "sm_90", 32);
  CHECK_FALSE(code.empty());

  const fs::path dir = dump / compiler.key_for(request, "sm_90", 32).hex();
  CHECK(read_text(dir / "smoke.hip") == kernel_file("smoke.hip").text);
  CHECK(read_text(dir / "hf_plan.h") == "// the plan's generated header\n");
  for (const SourceFile* header : kernel_headers()) CHECK(read_text(dir / header->path) == header->text);
  const std::string options = read_text(dir / "options");
  CHECK(options.find("-std=c++17") != std::string::npos);
  CHECK(options.find("-DHF_WARP_SIZE=32") != std::string::npos);
  CHECK(options.find("-DHF_DUMP_TEST=1") != std::string::npos);
  CHECK(options.back() == '\n');

  SUBCASE("a cache hit compiles nothing and writes nothing") {
    fs::remove_all(dir);
    CHECK(compiler.binary(request, "sm_90", 32) == code);
    CHECK_FALSE(fs::exists(dir));
  }
}

TEST_CASE("HIPFUSE_DUMP_SOURCE_DIR: a directory that cannot be written warns, and the compile goes on") {
  TempDir cache("hipfuse-dump-cache"), scratch("hipfuse-dump");
  const fs::path file = scratch / "a-file";
  std::ofstream(file) << "not a directory";
  CacheAt at(cache.path());
  ScopedEnv env("HIPFUSE_DUMP_SOURCE_DIR", file.c_str()), level("MIOPEN_LOG_LEVEL", "4");
  CaptureStderr err;
  const auto code = KernelCompiler::instance().binary(dumped_request(), "sm_90", 32);
  const std::string log = err.text();
  err.restore();
  CHECK_FALSE(code.empty());
  CHECK(log.find("HIPFUSE_DUMP_SOURCE_DIR: cannot write") != std::string::npos);
}
