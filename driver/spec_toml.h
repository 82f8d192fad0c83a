#pragma once
// toml++ in header-only mode, whatever the build passes: the CMake package of Debian's toml++
// adds -DTOML_HEADER_ONLY=0 and links libtomlplusplus.so, which the GPU machine does not have
// (docs toolchain.md). Only the spec_*.cpp files include this.

#undef TOML_HEADER_ONLY
#define TOML_HEADER_ONLY 1
#undef TOML_SHARED_LIB
#include <toml++/toml.h>

static_assert(TOML_EXCEPTIONS, "the spec loader relies on toml::parse throwing toml::parse_error");
