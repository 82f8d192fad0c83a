// Helpers for the reliability tests (test_reliability_*.cpp): scratch directories, the kernel
// cache pointed at one (also used by the compile tests), environment overrides, stderr capture,
// and running a check in a forked child (for resource limits that must not touch the test process).
#pragma once

#include <doctest/doctest.h>

#include "runtime/disk_cache.h"
#include "runtime/kernel_compiler.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace reliability {

namespace fs = std::filesystem;

// A fresh directory under the temporary directory, removed with its contents.
class TempDir {
 public:
  explicit TempDir(const char* prefix) {
    std::string pattern = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// Points the process-wide kernel compiler at `dir` (counts reset) for the scope.
class CacheAt {
 public:
  explicit CacheAt(const fs::path& dir, bool enabled = true) {
    auto& compiler = hipfuse::rt::KernelCompiler::instance();
    compiler.set_disk_cache(hipfuse::rt::DiskCache(dir, enabled));
    compiler.reset_stats();
  }
  ~CacheAt() { hipfuse::rt::KernelCompiler::instance().set_disk_cache(hipfuse::rt::DiskCache::from_environment()); }
  CacheAt(const CacheAt&) = delete;
  CacheAt& operator=(const CacheAt&) = delete;
};

// Sets (or, with nullptr, unsets) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_.c_str(), old_->c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Redirects this process's stderr (fd 2) into a file for the scope; text() reads it.
class CaptureStderr {
 public:
  CaptureStderr() : file_(std::tmpfile()) {
    REQUIRE(file_ != nullptr);
    std::fflush(stderr);
    saved_ = ::dup(2);
    ::dup2(::fileno(file_), 2);
  }
  ~CaptureStderr() {
    restore();
    std::fclose(file_);
  }
  CaptureStderr(const CaptureStderr&) = delete;
  CaptureStderr& operator=(const CaptureStderr&) = delete;
  std::string text() {
    std::fflush(stderr);
    std::string out;
    std::rewind(file_);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) out.append(buf, n);
    return out;
  }
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }

 private:
  std::FILE* file_;
  int saved_ = -1;
};

inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Runs `body` in a forked child and returns its exit code (128 + signal if killed). The
// child leaves with _exit, so no destructor of the test process runs twice. Only call
// while the test process has no other threads.
inline int in_child(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int code = 99;
    try {
      code = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: exception: %s\n", e.what());
      code = 98;
    } catch (...) {
      code = 97;
    }
    std::fflush(nullptr);
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Files in `dir` by kind: finished entries (*.hfkc) and anything else (temporaries).
struct Listing {
  std::vector<fs::path> entries, others;
};
inline Listing list(const fs::path& dir) {
  Listing out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) (e.path().extension() == ".hfkc" ? out.entries : out.others).push_back(e.path());
  return out;
}

// The digest an entry file is named by ("<32 hex digits>.hfkc").
inline std::optional<hipfuse::rt::Digest> key_of_entry(const fs::path& entry) {
  const std::string stem = entry.stem().string();
  if (stem.size() != 32 || stem.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  hipfuse::rt::Digest d;
  d.hi = std::stoull(stem.substr(0, 16), nullptr, 16);
  d.lo = std::stoull(stem.substr(16), nullptr, 16);
  if (d.hex() != stem) return std::nullopt;
  return d;
}

inline std::vector<char> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const fs::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The cheapest kernel there is (kernels/smoke.hip); `define` makes distinct cache keys.
inline hipfuse::rt::KernelRequest smoke_request(const std::string& define = "-DHF_RELIABILITY=0") {
  return {"smoke.hip", "hf_smoke", {}, {define}};
}

// True when built with AddressSanitizer (resource-limit tests cannot run under it: its
// shadow memory alone exceeds any address-space limit).
#if defined(__SANITIZE_ADDRESS__)
#define HIPFUSE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HIPFUSE_TEST_ASAN 1
#endif
#endif
#ifndef HIPFUSE_TEST_ASAN
#define HIPFUSE_TEST_ASAN 0
#endif

}  // namespace reliability
