// Reading the few environment variables hipfuse honours (documented in README.md).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace hipfuse::env {

inline std::optional<std::string> get(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// True for "1", "on", "yes", "true" (any case), as MIOpen reads its boolean variables.
bool is_enabled(const char* name);

// Integer value, or `fallback` when unset or not a number.
long get_int(const char* name, long fallback);

}  // namespace hipfuse::env
