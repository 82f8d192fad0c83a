#include "runtime/disk_cache.h"

#include "common/env.h"
#include "common/log.h"
#include "runtime/cache_sweep.h"

#include <atomic>
#include <cstring>
#include <fstream>
#include <random>
#include <system_error>
#include <unistd.h>

namespace hipfuse::rt {
namespace {

constexpr char kMagic[4] = {'H', 'F', 'K', 'C'};

struct EntryHeader {
  char magic[4];
  std::uint32_t format_version;
  std::uint64_t key_hi, key_lo;
  std::uint64_t payload_size;
  std::uint64_t payload_hi, payload_lo;
};

std::filesystem::path default_directory() {
  if (auto dir = env::get("MIOPEN_CUSTOM_CACHE_DIR")) return *dir;
  if (auto xdg = env::get("XDG_CACHE_HOME")) return std::filesystem::path(*xdg) / "hipfuse";
  if (auto home = env::get("HOME")) return std::filesystem::path(*home) / ".cache" / "hipfuse";
  return std::filesystem::temp_directory_path() / "hipfuse-cache";
}

std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 rng(std::random_device{}());
  return std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + std::to_string(rng() % 1000000007ULL);
}

// Bytes from the read position to the end of the open file (0 if it cannot be told).
// Measured on the stream, not the path, which a concurrent writer may rename over.
std::uint64_t remaining_bytes(std::ifstream& in) {
  const auto here = in.tellg();
  in.seekg(0, std::ios::end);
  const auto end = in.tellg();
  in.seekg(here);
  if (here < 0 || end < here || !in) return 0;
  return static_cast<std::uint64_t>(end - here);
}

}  // namespace

DiskCache DiskCache::from_environment() {
  return DiskCache(default_directory(), !env::is_enabled("MIOPEN_DISABLE_CACHE"));
}

DiskCache::DiskCache(std::filesystem::path directory, bool enabled)
    : directory_(std::move(directory)), enabled_(enabled) {}

std::filesystem::path DiskCache::entry_path(const Digest& key) const {
  return directory_ / (key.hex() + ".hfkc");
}

DiskCache::Lookup DiskCache::read(const Digest& key, std::vector<char>& payload) const {
  if (!enabled_) return Lookup::miss;
  const auto path = entry_path(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Lookup::miss;

  auto reject = [&](const char* why) {
    log::print(log::Level::info, "kernel cache entry {} rejected ({}); rebuilding", path.string(), why);
    std::error_code ec;
    std::filesystem::remove(path, ec);
    return Lookup::corrupt;
  };
  EntryHeader header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof(header))) return reject("truncated header");
  if (std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0) return reject("not a hipfuse cache entry");
  if (header.format_version != kFormatVersion) return reject("other format version");
  if (header.key_hi != key.hi || header.key_lo != key.lo) return reject("key mismatch");
  if (header.payload_size == 0 || header.payload_size > (1ULL << 32)) return reject("implausible size");
  // Compare with what the file really holds before allocating: a corrupt header must not
  // cost the announced size in memory.
  const std::uint64_t available = remaining_bytes(in);
  if (available < header.payload_size) return reject("truncated payload");
  if (available > header.payload_size) return reject("trailing bytes");
  payload.resize(header.payload_size);
  if (!in.read(payload.data(), static_cast<std::streamsize>(payload.size()))) return reject("truncated payload");
  if (in.peek() != std::ifstream::traits_type::eof()) return reject("trailing bytes");
  Digest check = digest_of(std::string_view(payload.data(), payload.size()));
  if (check.hi != header.payload_hi || check.lo != header.payload_lo) return reject("checksum mismatch");
  return Lookup::hit;
}

bool DiskCache::write(const Digest& key, const std::vector<char>& payload) const {
  if (!enabled_) return false;
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  remove_stale_temporaries_once(directory_);
  const auto final_path = entry_path(key);
  const auto temp_path = directory_ / (key.hex() + ".tmp." + unique_suffix());
  Digest sum = digest_of(std::string_view(payload.data(), payload.size()));
  EntryHeader header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.format_version = kFormatVersion;
  header.key_hi = key.hi;
  header.key_lo = key.lo;
  header.payload_size = payload.size();
  header.payload_hi = sum.hi;
  header.payload_lo = sum.lo;
  bool ok = false;
  {
    std::ofstream out(temp_path, std::ios::binary | std::ios::trunc);
    if (out) {
      out.write(reinterpret_cast<const char*>(&header), sizeof(header));
      out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
      out.flush();
      ok = static_cast<bool>(out);
    }
  }
  if (ok) {
    std::filesystem::rename(temp_path, final_path, ec);
    ok = !ec;
  }
  if (!ok) {
    std::filesystem::remove(temp_path, ec);
    log::warn_once("disk-cache-write:" + directory_.string(),
                   "cannot write the kernel cache in " + directory_.string() +
                       "; continuing without the disk cache for new kernels");
  }
  return ok;
}

}  // namespace hipfuse::rt
