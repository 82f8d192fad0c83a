#include "common/log.h"

#include "common/env.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace hipfuse::env {

bool is_enabled(const char* name) {
  auto value = get(name);
  if (!value) return false;
  std::string v;
  for (char c : *value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v == "1" || v == "on" || v == "yes" || v == "true" || v == "enable" || v == "enabled";
}

long get_int(const char* name, long fallback) {
  auto value = get(name);
  if (!value) return fallback;
  char* end = nullptr;
  long parsed = std::strtol(value->c_str(), &end, 10);
  return (end != nullptr && *end == '\0') ? parsed : fallback;
}

}  // namespace hipfuse::env

namespace hipfuse::log {
namespace {

const char* level_name(Level level) {
  switch (level) {
    case Level::fatal: return "Fatal";
    case Level::error: return "Error";
    case Level::warning: return "Warning";
    case Level::info: return "Info";
    case Level::info2: return "Info2";
    case Level::trace: return "Trace";
    default: return "";
  }
}

}  // namespace

bool enabled(Level level) {
  // Re-read each time so tests and apps may change it at run time; the cost is a getenv.
  long threshold = env::get_int("MIOPEN_LOG_LEVEL", 0);
  if (threshold <= 0) threshold = static_cast<long>(Level::warning);
  return static_cast<long>(level) <= threshold && level != Level::quiet;
}

void write(Level level, std::string_view message) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(stderr, "hipfuse %s: %.*s\n", level_name(level), static_cast<int>(message.size()),
               message.data());
}

void warn_once(std::string_view key, std::string_view message) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> seen;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!seen.emplace(key).second) return;
  }
  if (enabled(Level::warning)) write(Level::warning, message);
}

}  // namespace hipfuse::log
