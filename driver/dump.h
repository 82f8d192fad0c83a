#pragma once
// --dump DIR: a case's tensors as .npy files plus a manifest.json under DIR/<NNNN_case-name>/.
//
//   <tensor>.npy       what the plan read (inputs, parameters), in its storage type
//   <tensor>.gpu.npy   what the plan wrote, downloaded from the GPU
//   <tensor>.ref.npy   the CPU reference (float64); for a sampled check output.ref.npy holds the
//                      sampled values and output.indices.npy their logical (row-major) indices
// All arrays are in logical order N, C, [D,] H, W whatever the layout (the manifest records the
// layout and strides the GPU used). bf16 is written as float32 (exact).

#include <cstdint>
#include <string>
#include <vector>

#include "case.h"
#include "host_data.h"
#include "problem.h"
#include "report.h"
#include "verify.h"

namespace hipfuse::driver {

// A file-system-safe directory name: "0007_" + the name with every character outside
// [A-Za-z0-9._=-] replaced by '_'.
std::string dump_dir_name(int index, const std::string& case_name);

// Writes the case directory; returns its path. `gpu` as for check_outputs (may be empty when
// the plan did not run), `reference` may be null. Throws std::runtime_error on I/O errors.
std::string dump_case(const std::string& dir, int index, const Case& c, const Problem& p, const HostData& h,
                      const std::vector<std::vector<std::uint8_t>>& gpu, const Reference* reference,
                      const Record& record);

}  // namespace hipfuse::driver
