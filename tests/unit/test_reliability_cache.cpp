// Kernel cache faults beyond test_kernel_cache.cpp (which covers flipped, truncated,
// zero-byte, foreign-version and garbage entries, one-process concurrent writers, the
// disabled cache and compiling under an unwritable directory): an entry under another
// key's name (copy or symlink), trailing bytes, a header announcing an absurd payload, a
// directory where an entry should be, stale temporaries, a missing directory tree, an
// unwritable directory (a regular file in the path: CI runs as root, where chmod does not
// stop writes), a full disk (RLIMIT_FSIZE in a forked child), and a corrupt entry repaired
// while 8 threads ask for it. In every case hipfuse must return the right binary, never
// another key's, never crash, and warn at most once per directory.
#include "test_reliability_support.h"

#include "runtime/cache_sweep.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

using namespace hipfuse::rt;
using namespace reliability;

namespace {

constexpr const char* kWriteWarning = "cannot write the kernel cache in";

// The payload of the smoke kernel for an architecture, compiled with no cache at all.
std::vector<char> reference_binary(const std::string& arch, const std::string& define = "-DHF_RELIABILITY=0") {
  TempDir none("hipfuse-rel-ref");
  CacheAt off(none.path(), false);
  return KernelCompiler::instance().binary(smoke_request(define), arch, 32);
}

Digest key(const std::string& arch, const std::string& define = "-DHF_RELIABILITY=0") {
  return KernelCompiler::instance().key_for(smoke_request(define), arch, 32);
}

// The entry header as disk_cache.cpp writes it (magic, version, key, size, checksum).
struct Header {
  char magic[4];
  std::uint32_t format_version;
  std::uint64_t key_hi, key_lo;
  std::uint64_t payload_size;
  std::uint64_t payload_hi, payload_lo;
};
static_assert(sizeof(Header) == 48);

}  // namespace

TEST_CASE("reliability: an entry copied under another key's name is rejected, never loaded") {
  const auto sm90 = reference_binary("sm_90"), sm80 = reference_binary("sm_80");
  REQUIRE(sm90 != sm80);  // the two keys really have different binaries
  TempDir dir("hipfuse-rel-copy");
  CacheAt cache(dir.path());
  auto& compiler = KernelCompiler::instance();
  compiler.binary(smoke_request(), "sm_90", 32);
  compiler.binary(smoke_request(), "sm_80", 32);
  const DiskCache disk(dir.path(), true);
  const fs::path p90 = disk.entry_path(key("sm_90")), p80 = disk.entry_path(key("sm_80"));

  SUBCASE("a copy") { fs::copy_file(p90, p80, fs::copy_options::overwrite_existing); }
  SUBCASE("a symbolic link") {
    fs::remove(p80);
    fs::create_symlink(p90, p80);
  }
  compiler.reset_stats();
  CompileReport report;
  const auto got = compiler.binary(smoke_request(), "sm_80", 32, &report);
  CHECK(got == sm80);
  CHECK(report.from == CompileReport::From::compiler);
  CHECK(compiler.stats().corrupt_entries == 1);
  // Rebuilt in place as a regular file; the other key's entry is untouched.
  CHECK(fs::is_regular_file(fs::symlink_status(p80)));
  std::vector<char> payload;
  CHECK(disk.read(key("sm_80"), payload) == DiskCache::Lookup::hit);
  CHECK(payload == sm80);
  CHECK(disk.read(key("sm_90"), payload) == DiskCache::Lookup::hit);
  CHECK(payload == sm90);
}

TEST_CASE("reliability: an entry with trailing bytes is rejected and rebuilt") {
  const auto good = reference_binary("sm_90");
  TempDir dir("hipfuse-rel-trailing");
  CacheAt cache(dir.path());
  auto& compiler = KernelCompiler::instance();
  compiler.binary(smoke_request(), "sm_90", 32);
  const fs::path path = DiskCache(dir.path(), true).entry_path(key("sm_90"));
  const auto size = fs::file_size(path);
  std::ofstream(path, std::ios::binary | std::ios::app) << "trailing";
  compiler.reset_stats();
  CHECK(compiler.binary(smoke_request(), "sm_90", 32) == good);
  CHECK(compiler.stats().corrupt_entries == 1);
  CHECK(fs::file_size(path) == size);
}

// Fixed bug cache-huge-payload (lib/runtime/disk_cache.cpp): the reader resized its buffer
// to the size the header announces (up to 4 GiB) before checking it against the file, so a
// corrupt 48-byte file cost gigabytes of zero-filled memory, or std::bad_alloc escaped
// DiskCache::read and the compile failed with AllocFailed where a recompile was due. The
// announced size is now compared with the bytes the file holds first.
TEST_CASE("reliability (fixed bug cache-huge-payload): a header announcing a huge payload is rejected without allocating it") {
  // A 48-byte file whose header says the payload is 3 GiB (or exactly 4 GiB, the largest
  // size the reader accepts). The reader must compare the size with the file before
  // allocating: a corrupt or hostile cache file must not cost gigabytes of memory, nor turn
  // into an out-of-memory error where a recompile was due.
  TempDir dir("hipfuse-rel-huge");
  const DiskCache disk(dir.path(), true);
  const Digest k = digest_of("huge");
  for (const std::uint64_t size : {std::uint64_t{3} << 30, std::uint64_t{1} << 32}) {
    CAPTURE(size);
    Header h{};
    std::memcpy(h.magic, "HFKC", 4);
    h.format_version = DiskCache::kFormatVersion;
    h.key_hi = k.hi;
    h.key_lo = k.lo;
    h.payload_size = size;
    std::vector<char> bytes(sizeof h);
    std::memcpy(bytes.data(), &h, sizeof h);
    write_bytes(disk.entry_path(k), bytes);
    // In a child limited to 1 GiB more address space than it has: an allocation of the
    // announced size fails there (std::bad_alloc) instead of zero-filling gigabytes.
    // (AddressSanitizer reserves terabytes of address space: no limit there, where the
    // result alone is checked.)
    const int code = in_child([&] {
#if !HIPFUSE_TEST_ASAN
      struct rlimit limit {};
      std::ifstream statm("/proc/self/statm");
      std::size_t pages = 0;
      statm >> pages;
      const rlim_t now = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
      limit.rlim_cur = limit.rlim_max = now + (rlim_t{1} << 30);
      if (::setrlimit(RLIMIT_AS, &limit) != 0) return 90;
#endif
      std::vector<char> payload;
      try {
        return disk.read(k, payload) == DiskCache::Lookup::corrupt ? 0 : 1;
      } catch (const std::bad_alloc&) {
        return 2;  // the reader tried to allocate what the header announced
      }
    });
    CHECK_MESSAGE(code == 0, "child exit " << code << " (2: DiskCache::read allocated the announced payload size before "
                                             "checking it against the file size; lib/runtime/disk_cache.cpp)");
    CHECK_FALSE(fs::exists(disk.entry_path(k)));  // removed, to be rebuilt
  }
}

TEST_CASE("reliability: a directory in place of an entry is survived") {
  const auto good = reference_binary("sm_90");
  TempDir dir("hipfuse-rel-dir-entry");
  CacheAt cache(dir.path());
  const fs::path path = DiskCache(dir.path(), true).entry_path(key("sm_90"));
  fs::create_directories(path / "inside");  // not empty: cannot be removed or renamed over
  CaptureStderr err;
  ScopedEnv level("MIOPEN_LOG_LEVEL", "4");
  CHECK(KernelCompiler::instance().binary(smoke_request(), "sm_90", 32) == good);
  CHECK(KernelCompiler::instance().binary(smoke_request(), "sm_90", 32) == good);
  CHECK(KernelCompiler::instance().stats().compiles == 2);
  CHECK(list(dir.path()).others.empty());  // no temporary left behind
  CHECK(count_of(err.text(), kWriteWarning) <= 1);
}

TEST_CASE("reliability: temporaries of a crashed writer are ignored, and removed once an hour old") {
  const auto good = reference_binary("sm_90");
  TempDir dir("hipfuse-rel-stale");
  CacheAt cache(dir.path());
  const std::string stem = key("sm_90").hex();
  const fs::path old_half = dir / (stem + ".tmp.12345.0.42"), old_empty = dir / (stem + ".tmp.12345.1.43");
  const fs::path recent = dir / (stem + ".tmp.12346.0.7"), unrelated = dir / "notes.tmp.1";
  std::ofstream(old_half, std::ios::binary) << "half-written";
  write_bytes(old_empty, {});
  std::ofstream(recent, std::ios::binary) << "maybe a live writer's";
  std::ofstream(unrelated) << "not the cache's";
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (const auto& p : {old_half, old_empty, unrelated}) fs::last_write_time(p, two_hours_ago);
  auto& compiler = KernelCompiler::instance();
  CHECK(compiler.binary(smoke_request(), "sm_90", 32) == good);  // the first write sweeps
  CompileReport report;
  CHECK(compiler.binary(smoke_request(), "sm_90", 32, &report) == good);
  CHECK(report.from == CompileReport::From::disk);
  const Listing l = list(dir.path());
  CHECK(l.entries.size() == 1);
  CHECK(l.others.size() == 2);  // the recent temporary and the file that is not the cache's
  CHECK_FALSE(fs::exists(old_half));
  CHECK_FALSE(fs::exists(old_empty));
  CHECK(fs::exists(recent));
  CHECK(fs::exists(unrelated));
}

TEST_CASE("reliability: the stale-temporary sweep touches only old cache temporaries") {
  CHECK(is_cache_temporary("0123456789abcdef0123456789ABCDEF.tmp.12345.0.42"));
  CHECK_FALSE(is_cache_temporary("0123456789abcdef0123456789abcdef.hfkc"));
  CHECK_FALSE(is_cache_temporary("0123456789abcdef0123456789abcdef.tmp."));
  CHECK_FALSE(is_cache_temporary("0123456789abcdef0123456789abcdeg.tmp.1"));
  CHECK_FALSE(is_cache_temporary("0123456789abcdef0123456789abcdef.tmp.1x"));
  CHECK_FALSE(is_cache_temporary("x.tmp.1"));
  TempDir dir("hipfuse-rel-sweep");
  const std::string stem(32, 'a');
  const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(61);
  std::ofstream(dir / (stem + ".tmp.1.0.1")) << "old";
  fs::last_write_time(dir / (stem + ".tmp.1.0.1"), old);
  std::ofstream(dir / (stem + ".tmp.1.0.2")) << "new";
  fs::create_directory(dir / (stem + ".tmp.1.0.3"));  // not a regular file: left alone
  fs::last_write_time(dir / (stem + ".tmp.1.0.3"), old);
  fs::create_symlink(dir / (stem + ".tmp.1.0.2"), dir / (stem + ".tmp.1.0.4"));  // a link: left alone
  CHECK(remove_stale_temporaries(dir.path()) == 1);
  CHECK_FALSE(fs::exists(dir / (stem + ".tmp.1.0.1")));
  CHECK(fs::exists(dir / (stem + ".tmp.1.0.2")));
  CHECK(fs::is_directory(dir / (stem + ".tmp.1.0.3")));
  CHECK(fs::is_symlink(dir / (stem + ".tmp.1.0.4")));
  CHECK(remove_stale_temporaries(dir.path()) == 0);
  CHECK(remove_stale_temporaries(dir / "absent") == 0);
}

TEST_CASE("reliability: a missing cache directory tree is created on first write") {
  const auto good = reference_binary("sm_90");
  TempDir dir("hipfuse-rel-missing");
  const fs::path nested = dir / "a/b/c";
  CacheAt cache(nested);
  auto& compiler = KernelCompiler::instance();
  CHECK(compiler.binary(smoke_request(), "sm_90", 32) == good);
  REQUIRE(fs::is_directory(nested));
  const Listing l = list(nested);
  REQUIRE(l.entries.size() == 1);
  CHECK(l.others.empty());
  std::vector<char> payload;
  CHECK(DiskCache(nested, true).read(*key_of_entry(l.entries[0]), payload) == DiskCache::Lookup::hit);
  CHECK(payload == good);
}

TEST_CASE("reliability: an unwritable cache directory compiles without caching and warns once") {
  const auto a = reference_binary("sm_90", "-DHF_RELIABILITY=1"), b = reference_binary("sm_90", "-DHF_RELIABILITY=2");
  TempDir dir("hipfuse-rel-unwritable");
  const fs::path blocker = dir / "not-a-directory";
  std::ofstream(blocker) << "a regular file where the cache directory's parent should be";
  const fs::path cache_dir = blocker / "cache";  // cannot exist, even for root
  CacheAt cache(cache_dir);
  ScopedEnv level("MIOPEN_LOG_LEVEL", "4");
  CaptureStderr err;
  auto& compiler = KernelCompiler::instance();
  CHECK(compiler.binary(smoke_request("-DHF_RELIABILITY=1"), "sm_90", 32) == a);
  CHECK(compiler.binary(smoke_request("-DHF_RELIABILITY=2"), "sm_90", 32) == b);
  CHECK(compiler.binary(smoke_request("-DHF_RELIABILITY=1"), "sm_90", 32) == a);
  const std::string text = err.text();
  err.restore();
  CHECK(compiler.stats().compiles == 3);
  CHECK(compiler.stats().disk_hits == 0);
  CHECK_MESSAGE(count_of(text, kWriteWarning) == 1, text);
  CHECK(text.find(cache_dir.string()) != std::string::npos);  // the warning names the directory
  CHECK_FALSE(DiskCache(cache_dir, true).write(digest_of("x"), {'x'}));
  CHECK(fs::is_regular_file(blocker));
}

TEST_CASE("reliability: a full disk (RLIMIT_FSIZE) compiles without caching, leaves no debris, warns once") {
  const auto a = reference_binary("sm_90", "-DHF_RELIABILITY=3"), b = reference_binary("sm_90", "-DHF_RELIABILITY=4");
  const auto cached = reference_binary("sm_80", "-DHF_RELIABILITY=3");
  for (const rlim_t limit : {rlim_t{0}, rlim_t{100}, static_cast<rlim_t>(sizeof(Header) + a.size() - 1)}) {
    CAPTURE(limit);
    TempDir dir("hipfuse-rel-full");
    {
      // One entry written before the disk fills up: reading it needs no space.
      CacheAt before(dir.path());
      KernelCompiler::instance().binary(smoke_request("-DHF_RELIABILITY=3"), "sm_80", 32);
    }
    REQUIRE(list(dir.path()).entries.size() == 1);
    // The child's stderr goes to a pipe: a file would be cut short by the limit too.
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    const int code = in_child([&] {
      std::signal(SIGXFSZ, SIG_IGN);  // writes past the limit fail with EFBIG instead of killing us
      ::close(pipe_fds[0]);
      if (::dup2(pipe_fds[1], 2) < 0) return 90;
      setenv("MIOPEN_LOG_LEVEL", "4", 1);
      struct rlimit l {limit, limit};
      if (::setrlimit(RLIMIT_FSIZE, &l) != 0) return 91;
      CacheAt cache(dir.path());
      auto& compiler = KernelCompiler::instance();
      int failures = 0;
      CompileReport report;
      failures |= compiler.binary(smoke_request("-DHF_RELIABILITY=3"), "sm_90", 32) == a ? 0 : 1;
      failures |= compiler.binary(smoke_request("-DHF_RELIABILITY=4"), "sm_90", 32) == b ? 0 : 2;
      failures |= compiler.binary(smoke_request("-DHF_RELIABILITY=3"), "sm_80", 32, &report) == cached ? 0 : 4;
      failures |= report.from == CompileReport::From::disk ? 0 : 8;
      failures |= compiler.stats().compiles == 2 ? 0 : 16;
      return failures;
    });
    ::close(pipe_fds[1]);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    CHECK_MESSAGE(code == 0, "child exit " << code);
    CHECK_MESSAGE(count_of(text, kWriteWarning) == 1, text);
    const Listing l = list(dir.path());
    CHECK(l.entries.size() == 1);  // only the entry written before; no partial entries
    CHECK(l.others.empty());       // and no temporaries
  }
}

TEST_CASE("reliability: 8 threads asking for a corrupt entry all get the right binary") {
  const auto good = reference_binary("sm_90");
  TempDir dir("hipfuse-rel-repair");
  CacheAt cache(dir.path());
  auto& compiler = KernelCompiler::instance();
  compiler.binary(smoke_request(), "sm_90", 32);
  const fs::path path = DiskCache(dir.path(), true).entry_path(key("sm_90"));
  std::vector<char> bytes = read_bytes(path);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
  write_bytes(path, bytes);
  compiler.reset_stats();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      if (compiler.binary(smoke_request(), "sm_90", 32) != good) ++wrong;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(wrong == 0);
  const CacheStats s = compiler.stats();
  CHECK(s.compiles + s.disk_hits == 8);
  CHECK(s.corrupt_entries >= 1);
  CHECK(s.compiles >= 1);
  std::vector<char> payload;
  CHECK(DiskCache(dir.path(), true).read(key("sm_90"), payload) == DiskCache::Lookup::hit);
  CHECK(payload == good);
  CHECK(list(dir.path()).others.empty());
}
