// Removal of the temporary files that disk-cache writers left behind when they were killed
// between creating a temporary and renaming it into place (<key>.tmp.<pid>.<n>.<r>).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>

namespace hipfuse::rt {

// A write takes milliseconds; a temporary this old belongs to a writer that died.
inline constexpr std::chrono::hours kStaleTemporaryAge{1};

// Whether `name` is one of DiskCache's temporaries: 32 hex digits, ".tmp.", digits and dots.
bool is_cache_temporary(const std::string& name);

// Removes the temporaries in `directory` last written more than `age` ago; returns how many.
// Other processes may sweep or write at the same time: every failure is ignored, and a
// live writer's temporary is never that old.
std::size_t remove_stale_temporaries(const std::filesystem::path& directory,
                                     std::chrono::seconds age = kStaleTemporaryAge);

// The same, at most once per directory per process (the first write there).
void remove_stale_temporaries_once(const std::filesystem::path& directory);

}  // namespace hipfuse::rt
