#pragma once
// NumPy .npy files (format version 1.0), for --dump: readable with numpy.load.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <hipfuse/reference/dtype.h>
#include <hipfuse/reference/tensor.h>

namespace hipfuse::driver {

// The complete header: magic, version 1.0, little-endian header length, the dict
// {'descr': DESCR, 'fortran_order': False, 'shape': (...), } padded with spaces and ended by
// '\n' so that the data starts at a multiple of 64 bytes.
std::string npy_header(std::string_view descr, const std::vector<int64_t>& shape);

// Writes header + `bytes` raw bytes (C order). Throws std::runtime_error naming the path.
void write_npy(const std::string& path, std::string_view descr, const std::vector<int64_t>& shape,
               const void* data, std::size_t bytes);

// A logical tensor (N, C, spatial... order) stored as `dtype`: fp32 '<f4', fp16 '<f2'; bf16 has
// no NumPy type and is written as '<f4' (every bf16 value is exact in fp32).
void write_npy(const std::string& path, const ref::Tensor& t, ref::DType dtype);
// A logical tensor in double ('<f8'): references.
void write_npy_f64(const std::string& path, const std::vector<int64_t>& shape, const std::vector<double>& values);
// '<i8' indices (sampled verification).
void write_npy_i64(const std::string& path, const std::vector<int64_t>& values);

// The descr a dtype is written with.
std::string_view npy_descr(ref::DType dtype);

}  // namespace hipfuse::driver
