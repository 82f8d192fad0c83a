#include "npy.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace hipfuse::driver {

std::string npy_header(std::string_view descr, const std::vector<int64_t>& shape) {
  std::string dims;
  for (int64_t d : shape) dims += fmt::format("{}, ", d);
  if (shape.size() > 1) dims.resize(dims.size() - 2);  // "(2, 3)"; one dim keeps its comma: "(5,)"
  else if (shape.size() == 1) dims.pop_back();
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  constexpr std::size_t kPrefix = 10;  // magic (6) + version (2) + header length (2)
  std::size_t total = kPrefix + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  if (dict.size() > 0xFFFF) throw std::length_error("npy header too long");
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(dict.size() & 0xFF));
  out.push_back(static_cast<char>((dict.size() >> 8) & 0xFF));
  return out + dict;
}

void write_npy(const std::string& path, std::string_view descr, const std::vector<int64_t>& shape,
               const void* data, std::size_t bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  const std::string header = npy_header(descr, shape);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!f) throw std::runtime_error(fmt::format("error writing {}", path));
}

std::string_view npy_descr(ref::DType dtype) { return dtype == ref::DType::f16 ? "<f2" : "<f4"; }

void write_npy(const std::string& path, const ref::Tensor& t, ref::DType dtype) {
  const ref::DType stored = dtype == ref::DType::bf16 ? ref::DType::f32 : dtype;
  std::vector<unsigned char> bytes(static_cast<std::size_t>(t.numel()) * ref::size_of(stored));
  // Logical row-major order = packed NCHW strides.
  ref::to_storage(t, stored, ref::packed_strides(t.lengths, ref::Layout::nchw), bytes.data());
  write_npy(path, npy_descr(dtype), t.lengths, bytes.data(), bytes.size());
}

void write_npy_f64(const std::string& path, const std::vector<int64_t>& shape, const std::vector<double>& values) {
  write_npy(path, "<f8", shape, values.data(), values.size() * sizeof(double));
}

void write_npy_i64(const std::string& path, const std::vector<int64_t>& values) {
  write_npy(path, "<i8", {static_cast<int64_t>(values.size())}, values.data(), values.size() * sizeof(int64_t));
}

}  // namespace hipfuse::driver
