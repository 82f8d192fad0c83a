// Logging to stderr, filtered by MIOPEN_LOG_LEVEL with MIOpen's levels:
// 1 quiet, 2 fatal, 3 error, 4 warning (default), 5 info, 6 info2, 7 trace.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace hipfuse::log {

enum class Level : int { quiet = 1, fatal = 2, error = 3, warning = 4, info = 5, info2 = 6, trace = 7 };

bool enabled(Level level);
void write(Level level, std::string_view message);

template <typename... Args>
void print(Level level, fmt::format_string<Args...> format, Args&&... args) {
  if (enabled(level)) write(level, fmt::format(format, std::forward<Args>(args)...));
}

// Warns once per distinct key for the life of the process (e.g. "cache directory unwritable").
void warn_once(std::string_view key, std::string_view message);

}  // namespace hipfuse::log
