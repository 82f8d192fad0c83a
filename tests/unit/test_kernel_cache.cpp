// The kernel cache: keys, hit/miss counters, corrupted and truncated entries, concurrent
// writers, disabled and unwritable directories.
#include <doctest/doctest.h>

#include "runtime/disk_cache.h"
#include "runtime/kernel_compiler.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace hipfuse::rt;

namespace {

struct TempCacheDir {
  std::filesystem::path path;
  explicit TempCacheDir(const char* name) : path(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path);
    KernelCompiler::instance().set_disk_cache(DiskCache(path, true));
    KernelCompiler::instance().reset_stats();
  }
  ~TempCacheDir() {
    KernelCompiler::instance().set_disk_cache(DiskCache::from_environment());
    std::filesystem::remove_all(path);
  }
};

KernelRequest request(const std::string& define = "-DHF_UNUSED=0") {
  return {"smoke.hip", "hf_smoke", {}, {define}};
}

std::size_t entry_count(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) n += entry.path().extension() == ".hfkc";
  return n;
}

}  // namespace

TEST_CASE("the key covers architecture, options, generated headers and entry") {
  auto& compiler = KernelCompiler::instance();
  Digest base = compiler.key_for(request(), "sm_90", 32);
  CHECK(base == compiler.key_for(request(), "sm_90", 32));
  CHECK(base != compiler.key_for(request(), "sm_80", 32));
  CHECK(base != compiler.key_for(request(), "sm_90", 64));
  CHECK(base != compiler.key_for(request("-DHF_UNUSED=1"), "sm_90", 32));
  KernelRequest with_header = request();
  with_header.generated_headers.push_back({"hf_plan.h", "constexpr int x = 1;"});
  CHECK(base != compiler.key_for(with_header, "sm_90", 32));
  KernelRequest other_entry = request();
  other_entry.entry = "other";
  CHECK(base != compiler.key_for(other_entry, "sm_90", 32));
}

TEST_CASE("a miss compiles and writes; the next request is a disk hit") {
  TempCacheDir dir("hipfuse-cache-test-hit");
  auto& compiler = KernelCompiler::instance();
  CompileReport report;
  auto first = compiler.binary(request(), "sm_90", 32, &report);
  CHECK(report.from == CompileReport::From::compiler);
  CHECK(entry_count(dir.path) == 1);
  auto second = compiler.binary(request(), "sm_90", 32, &report);
  CHECK(report.from == CompileReport::From::disk);
  CHECK(first == second);
  CacheStats stats = compiler.stats();
  CHECK(stats.compiles == 1);
  CHECK(stats.disk_hits == 1);
  CHECK(stats.corrupt_entries == 0);
}

TEST_CASE("corrupted, truncated, zero-byte and foreign entries are rebuilt") {
  TempCacheDir dir("hipfuse-cache-test-corrupt");
  auto& compiler = KernelCompiler::instance();
  auto good = compiler.binary(request(), "sm_90", 32);
  auto path = DiskCache(dir.path, true).entry_path(compiler.key_for(request(), "sm_90", 32));
  auto original_size = std::filesystem::file_size(path);

  auto damage = [&](auto&& how) {
    how();
    compiler.reset_stats();
    CompileReport report;
    auto rebuilt = compiler.binary(request(), "sm_90", 32, &report);
    CHECK(report.from == CompileReport::From::compiler);
    CHECK(rebuilt == good);
    CHECK(compiler.stats().corrupt_entries == 1);
    CHECK(std::filesystem::file_size(path) == original_size);  // rewritten whole
  };
  SUBCASE("flipped payload byte") {
    damage([&] {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(original_size - 10));
      f.put('\x5a');
    });
  }
  SUBCASE("truncated") { damage([&] { std::filesystem::resize_file(path, original_size / 2); }); }
  SUBCASE("zero bytes") { damage([&] { std::filesystem::resize_file(path, 0); }); }
  SUBCASE("foreign version") {
    damage([&] {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(4);
      f.put('\x7f');
    });
  }
  SUBCASE("garbage") { damage([&] { std::ofstream(path, std::ios::binary) << "not a cache entry at all"; }); }
}

TEST_CASE("concurrent writers of the same entry never leave a torn file") {
  TempCacheDir dir("hipfuse-cache-test-concurrent");
  DiskCache cache(dir.path, true);
  Digest key = digest_of("concurrent");
  std::vector<char> payload(1 << 20);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7);
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&] {
      for (int i = 0; i < 20; ++i) cache.write(key, payload);
    });
  }
  std::vector<std::thread> readers;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        std::vector<char> got;
        auto result = cache.read(key, got);
        if (result == DiskCache::Lookup::corrupt || (result == DiskCache::Lookup::hit && got != payload)) ++bad;
      }
    });
  }
  for (auto& w : writers) w.join();
  for (auto& r : readers) r.join();
  CHECK(bad == 0);
  std::vector<char> got;
  CHECK(cache.read(key, got) == DiskCache::Lookup::hit);
  CHECK(got == payload);
  std::size_t leftovers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path)) leftovers += entry.path().extension() != ".hfkc";
  CHECK(leftovers == 0);  // no temporary files left behind
}

TEST_CASE("a disabled cache neither reads nor writes") {
  auto path = std::filesystem::temp_directory_path() / "hipfuse-cache-test-disabled";
  std::filesystem::remove_all(path);
  DiskCache cache(path, false);
  CHECK_FALSE(cache.write(digest_of("x"), {'a'}));
  std::vector<char> got;
  CHECK(cache.read(digest_of("x"), got) == DiskCache::Lookup::miss);
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("an unwritable cache directory degrades to compiling without caching") {
  auto blocker = std::filesystem::temp_directory_path() / "hipfuse-cache-test-blocker";
  std::filesystem::remove_all(blocker);
  std::ofstream(blocker) << "a file where the directory should be";
  KernelCompiler::instance().set_disk_cache(DiskCache(blocker / "sub", true));
  KernelCompiler::instance().reset_stats();
  CompileReport report;
  auto code = KernelCompiler::instance().binary(request(), "sm_90", 32, &report);
  CHECK_FALSE(code.empty());
  CHECK(report.from == CompileReport::From::compiler);
  KernelCompiler::instance().set_disk_cache(DiskCache::from_environment());
  std::filesystem::remove(blocker);
}

TEST_CASE("MIOPEN_CUSTOM_CACHE_DIR and MIOPEN_DISABLE_CACHE select the disk cache") {
  setenv("MIOPEN_CUSTOM_CACHE_DIR", "/tmp/hipfuse-custom-cache", 1);
  unsetenv("MIOPEN_DISABLE_CACHE");
  DiskCache custom = DiskCache::from_environment();
  CHECK(custom.directory() == "/tmp/hipfuse-custom-cache");
  CHECK(custom.enabled());
  setenv("MIOPEN_DISABLE_CACHE", "1", 1);
  CHECK_FALSE(DiskCache::from_environment().enabled());
  unsetenv("MIOPEN_DISABLE_CACHE");
  unsetenv("MIOPEN_CUSTOM_CACHE_DIR");
  setenv("HOME", "/tmp/hipfuse-home", 1);
  unsetenv("XDG_CACHE_HOME");
  CHECK(DiskCache::from_environment().directory() == "/tmp/hipfuse-home/.cache/hipfuse");
}
