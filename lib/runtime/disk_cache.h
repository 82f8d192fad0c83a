// The on-disk level of the kernel cache: one file per compiled kernel, named by the
// digest of everything that determines the binary.
//
// Entry layout: magic "HFKC", format version, key digest, payload size, payload digest,
// payload. Writes go to a temporary file in the same directory and are renamed into
// place, so concurrent writers (threads or processes) never expose a torn entry. A
// truncated, corrupted or foreign entry is reported at info level, removed and rebuilt.
// Temporaries of writers killed mid-write are removed, once they are an hour old, at the
// first write into the directory in a process (runtime/cache_sweep.h).
#pragma once

#include "runtime/digest.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hipfuse::rt {

class DiskCache {
 public:
  // Bump when the entry layout or anything else that makes old entries unusable changes.
  static constexpr std::uint32_t kFormatVersion = 2;  // 2: CUBIN payloads on NVIDIA

  // The directory from MIOPEN_CUSTOM_CACHE_DIR, else $XDG_CACHE_HOME/hipfuse, else
  // ~/.cache/hipfuse; disabled by MIOPEN_DISABLE_CACHE=1.
  static DiskCache from_environment();
  DiskCache(std::filesystem::path directory, bool enabled);

  bool enabled() const { return enabled_; }
  const std::filesystem::path& directory() const { return directory_; }

  enum class Lookup { hit, miss, corrupt };
  Lookup read(const Digest& key, std::vector<char>& payload) const;
  // Returns false (after one warning per process) if the entry could not be written.
  bool write(const Digest& key, const std::vector<char>& payload) const;

  std::filesystem::path entry_path(const Digest& key) const;

 private:
  std::filesystem::path directory_;
  bool enabled_;
};

}  // namespace hipfuse::rt
