// hipRTC: one program in, one code object out (PTX on NVIDIA, a code object on AMD).
#pragma once

#include "runtime/kernel_sources.h"

#include <string>
#include <vector>

namespace hipfuse::rt {

// "<platform> hipRTC <major>.<minor>": part of every cache key.
std::string rtc_compiler_version();

// The options as one command-line string, space-separated (for logs and HIPFUSE_DUMP_SOURCE_DIR).
std::string join_options(const std::vector<std::string>& options);

// Compiles `source` with the given headers and complete option list. On failure throws
// hipfuse::Error(internal_error) carrying the compiler log and the options.
std::vector<char> rtc_compile(const SourceFile& source, const std::vector<const SourceFile*>& headers,
                              const std::vector<std::string>& options);

}  // namespace hipfuse::rt
