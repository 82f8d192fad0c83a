// fusiondriver --dump: the .npy writer.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <hipfuse/reference/tensor.h>

#include "npy.h"

using namespace hipfuse::driver;
namespace ref = hipfuse::ref;

namespace {

std::string dict_of(const std::string& header) {
  const std::size_t len = static_cast<unsigned char>(header[8]) | (static_cast<unsigned char>(header[9]) << 8);
  return header.substr(10, len);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST_CASE("driver npy: header layout") {
  const std::string h = npy_header("<f4", {2, 3});
  CHECK(h.size() % 64 == 0);
  CHECK(h.compare(0, 6, "\x93NUMPY") == 0);
  CHECK(h[6] == 1);
  CHECK(h[7] == 0);
  const std::string d = dict_of(h);
  CHECK(10 + d.size() == h.size());
  CHECK(d.back() == '\n');
  CHECK(d.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0) == 0);
  CHECK(d.find_first_not_of(' ', d.find('}') + 1) == d.size() - 1);  // spaces, then '\n'
}

TEST_CASE("driver npy: shape tuples") {
  CHECK(dict_of(npy_header("<f8", {5})).find("'shape': (5,)") != std::string::npos);
  CHECK(dict_of(npy_header("<f8", {})).find("'shape': ()") != std::string::npos);
  CHECK(dict_of(npy_header("<i8", {1, 2, 3, 4, 5})).find("'shape': (1, 2, 3, 4, 5)") != std::string::npos);
}

TEST_CASE("driver npy: files hold the header then the data, in logical order") {
  const std::string dir = (std::filesystem::temp_directory_path() / "hipfuse_test_npy").string();
  std::filesystem::create_directories(dir);
  ref::Tensor t = ref::make_tensor({1, 2, 1, 3});
  for (int i = 0; i < 6; ++i) t[i] = 0.5 * i;

  const std::string f16 = dir + "/t16.npy";
  write_npy(f16, t, ref::DType::f16);
  const std::string b16 = slurp(f16);
  const std::string h16 = npy_header("<f2", {1, 2, 1, 3});
  REQUIRE(b16.size() == h16.size() + 6 * 2);
  CHECK(b16.compare(0, h16.size(), h16) == 0);
  for (int i = 0; i < 6; ++i) CHECK(ref::decode(ref::DType::f16, b16.data() + h16.size() + 2 * i) == 0.5 * i);

  // bf16 has no NumPy type: written as exact float32.
  const std::string fb = dir + "/tb.npy";
  write_npy(fb, t, ref::DType::bf16);
  const std::string bb = slurp(fb);
  CHECK(dict_of(bb).find("'<f4'") != std::string::npos);
  CHECK(bb.size() == npy_header("<f4", {1, 2, 1, 3}).size() + 6 * 4);

  const std::string f64 = dir + "/r.npy";
  write_npy_f64(f64, {2, 3}, t.data);
  const std::string b64 = slurp(f64);
  double last = 0;
  std::memcpy(&last, b64.data() + b64.size() - 8, 8);
  CHECK(last == 2.5);
  std::filesystem::remove_all(dir);
}

TEST_CASE("driver npy: unwritable path throws with the path") {
  CHECK_THROWS_WITH_AS(write_npy("/nonexistent-dir/x.npy", "<f4", {1}, "abcd", 4),
                       doctest::Contains("/nonexistent-dir/x.npy"), std::runtime_error);
}
