#include "runtime/cache_sweep.h"

#include "common/log.h"

#include <cctype>
#include <mutex>
#include <set>
#include <system_error>

namespace hipfuse::rt {

bool is_cache_temporary(const std::string& name) {
  constexpr std::size_t kHexDigits = 32;
  const std::string marker = ".tmp.";
  if (name.size() <= kHexDigits + marker.size() || name.compare(kHexDigits, marker.size(), marker) != 0) return false;
  for (std::size_t i = 0; i < kHexDigits; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  for (std::size_t i = kHexDigits + marker.size(); i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) && name[i] != '.') return false;
  }
  return true;
}

std::size_t remove_stale_temporaries(const std::filesystem::path& directory, std::chrono::seconds age) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::directory_iterator it(directory, ec), end;
  if (ec) return 0;
  const auto now = fs::file_time_type::clock::now();
  std::size_t removed = 0;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::path& path = it->path();
    if (!is_cache_temporary(path.filename().string())) continue;
    std::error_code entry_ec;
    if (!fs::is_regular_file(fs::symlink_status(path, entry_ec))) continue;
    const auto written = fs::last_write_time(path, entry_ec);
    if (entry_ec || now - written < age) continue;
    if (fs::remove(path, entry_ec)) ++removed;  // another sweeper may have been first
  }
  if (removed > 0) {
    log::print(log::Level::info, "kernel cache {}: removed {} stale temporary file(s)", directory.string(), removed);
  }
  return removed;
}

void remove_stale_temporaries_once(const std::filesystem::path& directory) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!swept.insert(directory.string()).second) return;
  }
  remove_stale_temporaries(directory);
}

}  // namespace hipfuse::rt
