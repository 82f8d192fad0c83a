// A 128-bit content digest (two independent 64-bit hashes) for cache keys and entry
// checksums. Not cryptographic: it names cache entries; the entry header repeats it so a
// file under the wrong name is never loaded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hipfuse::rt {

struct Digest {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  bool operator==(const Digest& other) const { return hi == other.hi && lo == other.lo; }
  bool operator!=(const Digest& other) const { return !(*this == other); }
  std::string hex() const;
};

class Hasher {
 public:
  Hasher& add(std::string_view bytes);
  // Length-prefixed so that ("ab","c") and ("a","bc") differ.
  Hasher& field(std::string_view bytes);
  Digest digest() const;

 private:
  std::uint64_t fnv_ = 0xcbf29ce484222325ULL;  // FNV-1a 64
  std::uint64_t mix_ = 0x9e3779b97f4a7c15ULL;  // multiply-rotate mix, independent of FNV
  std::uint64_t length_ = 0;
};

Digest digest_of(std::string_view bytes);

}  // namespace hipfuse::rt
