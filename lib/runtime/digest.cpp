#include "runtime/digest.h"

#include <cstdio>

namespace hipfuse::rt {
namespace {

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

std::uint64_t finalize(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::string Digest::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return buf;
}

Hasher& Hasher::add(std::string_view bytes) {
  for (unsigned char c : bytes) {
    fnv_ = (fnv_ ^ c) * 0x100000001b3ULL;
    mix_ = rotl((mix_ ^ c) * 0xff51afd7ed558ccdULL, 29);
  }
  length_ += bytes.size();
  return *this;
}

Hasher& Hasher::field(std::string_view bytes) {
  std::uint64_t n = bytes.size();
  add(std::string_view(reinterpret_cast<const char*>(&n), sizeof(n)));
  return add(bytes);
}

Digest Hasher::digest() const { return {finalize(fnv_ ^ length_), finalize(mix_ + length_)}; }

Digest digest_of(std::string_view bytes) { return Hasher().add(bytes).digest(); }

}  // namespace hipfuse::rt
