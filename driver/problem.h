#pragma once
// Every tensor a case's plan touches, with its role, shape, storage type and strides: the one
// inventory that host data, device buffers, metrics, verification and dumps all derive from.
// Pure host code (no GPU, no library): unit-tested.

#include <cstdint>
#include <string>
#include <vector>

#include <hipfuse/reference/dtype.h>
#include <hipfuse/reference/tensor.h>

#include "case.h"

namespace hipfuse::driver {

enum class Role {
  input,          // plan input: x (dy for a BN backward plan)
  output,         // plan output: y (dx for a BN backward plan)
  weights,        // conv filter {K, C/groups, filter...}
  bias,           // per-channel bias {1, K, 1, 1}
  residual,       // residual_add z, shaped like the op's output
  bn_scale,
  bn_bias,
  bn_mean,        // BN inference: estimated mean
  bn_variance,    // BN inference: estimated variance
  running_mean,   // BN forward training, in/out
  running_variance,
  saved_mean,     // BN forward training: out; BN backward: in
  saved_inv_variance,
  bn_x,           // BN backward: the forward BN input
  activation_y,   // activation backward: the forward activation output
  scale_diff,     // BN backward: dScale, out
  bias_diff,      // BN backward: dBias, out
};
const char* role_name(Role r);

enum class Access { read, write, read_write };

struct TensorInfo {
  std::string name;  // unique in the problem: "input", "output", "op0.weights", "op2.running_mean", ...
  Role role = Role::input;
  Access access = Access::read;
  int op = -1;  // index of the op it belongs to; -1 for the plan input and output
  std::vector<int64_t> lengths;  // logical N, C, spatial... order
  ref::DType dtype = ref::DType::f32;
  ref::Layout layout = ref::Layout::nchw;
  std::vector<int64_t> strides;  // element strides per logical dim

  int64_t elements() const;          // logical elements
  int64_t storage_elements() const;  // elements the strided buffer spans
  std::size_t storage_bytes() const;
  bool is_output() const { return access != Access::read; }
};

struct Problem {
  std::vector<TensorInfo> tensors;  // [0] the plan input, [1] the plan output, then per op in plan order
  std::vector<std::vector<int64_t>> shapes;  // tensor_shapes(case): [0] input, [i + 1] after op i

  const TensorInfo& input() const { return tensors[0]; }
  const TensorInfo& output() const { return tensors[1]; }
  // Index of the tensor of `role` belonging to op `op`; -1 when there is none.
  int find(Role role, int op) const;
  std::size_t total_bytes() const;  // every tensor once: the working set of one execution
};

ref::DType to_ref(DType t);
ref::Layout to_ref(Layout l);
// Storage type of BN parameters and statistics: fp32 whatever the data type (MIOpen's
// convention; miopenDeriveBNTensorDescriptor gives fp32).
inline ref::DType bn_param_dtype(DType) { return ref::DType::f32; }
// Storage type of the conv bias: the data type.
inline ref::DType bias_dtype(DType t) { return to_ref(t); }

// True for a BN backward plan: input is dy, output dx.
bool is_backward_plan(const Case& c);

// The inventory of `c`. Throws std::invalid_argument for shapes the reference rejects.
Problem make_problem(const Case& c);

// "64x64x56x56".
std::string shape_string(const std::vector<int64_t>& lengths);
// Longest sum behind one element of the plan output (conv: C/groups * filter taps; BN training
// or backward: the statistics' element count M; element-wise: 1), for tolerances.
int64_t reduction_length(const Case& c);
// Element count of one BN statistic's reduction (M) for an op input of `lengths`.
int64_t bn_reduction_length(const std::vector<int64_t>& lengths, int bn_mode);

}  // namespace hipfuse::driver
