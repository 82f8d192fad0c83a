#pragma once
// Case -> fusion plan, through the public API only (<miopen/miopen.h>, <hipfuse/hipfuse.h>):
// tensor and convolution descriptors, miopenCreateFusionPlan, miopenCreateOp* per op,
// compile (on the handle's GPU, or offline for an architecture), operator arguments bound to
// device buffers, and execution.
//
// A plan can cover a slice [first, last) of the case's ops: the whole case for the fused run,
// one op (or the [BN backward, activation backward] pair) per plan for the unfused baseline.

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <miopen/miopen.h>

#include "case.h"
#include "problem.h"

namespace hipfuse::driver {

// A failed API call: the status, the call and the library's reason.
struct ApiError : std::runtime_error {
  ApiError(miopenStatus_t status, std::string call, std::string message);
  miopenStatus_t status;
  std::string call;
  std::string message;  // hipfuseGetLastErrorMessage() after the call
};
// Throws ApiError unless `s` is miopenStatusSuccess.
void api_check(miopenStatus_t s, const char* call);
// UnsupportedOp and NotImplemented: the library cannot do it (UNSUPPORTED); anything else is
// an error (COMPILE_ERROR while building, FAILED while running).
bool is_unsupported(miopenStatus_t s);

// An owned tensor descriptor with the type, lengths and strides of `info`.
class TensorDescriptor {
 public:
  explicit TensorDescriptor(const TensorInfo& info);
  ~TensorDescriptor();
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  miopenTensorDescriptor_t get() const { return desc_; }

 private:
  miopenTensorDescriptor_t desc_ = nullptr;
};

// The data tensor flowing between ops: after op `index - 1` (index 0 = the plan input).
TensorInfo data_tensor_info(const Case& c, const Problem& p, std::size_t index);

struct PlanInfo {
  std::string solver;
  std::string key;
  int kernels = 0;
  double compile_ms = 0;
  bool cache_hit = false;
};

// Device pointers of one buffer set, indexed like Problem::tensors.
using DevicePointers = std::vector<void*>;

class FusionPlan {
 public:
  // Creates the plan for ops [first, last). Throws ApiError when the library rejects an op
  // (its message says why) and std::invalid_argument for sizes the API's int fields cannot hold.
  FusionPlan(const Case& c, const Problem& p, std::size_t first, std::size_t last);
  ~FusionPlan();
  FusionPlan(const FusionPlan&) = delete;
  FusionPlan& operator=(const FusionPlan&) = delete;

  void compile(miopenHandle_t handle);           // throws ApiError
  void compile_for_arch(const std::string& arch);  // throws ApiError
  // The kernel family that would take the plan on `arch`, from the solvers' applicability
  // checks only (nothing compiled, no GPU). Throws ApiError with the reasons when none does.
  std::string check_for_arch(const std::string& arch) const;
  PlanInfo info() const;

  // Sets every op's arguments from the tensors of one buffer set (ops of this plan only).
  void bind(miopenOperatorArgs_t args, const DevicePointers& tensors) const;
  // Enqueues one execution on the handle's stream. Throws ApiError.
  void execute(miopenHandle_t handle, const void* input, void* output, miopenOperatorArgs_t args) const;

  std::size_t first() const { return first_; }
  std::size_t last() const { return last_; }
  std::string description() const;  // "ops 1..2 (bias+relu)"

 private:
  const Case& case_;
  const Problem& problem_;
  std::size_t first_, last_;
  miopenFusionPlanDescriptor_t plan_ = nullptr;
  std::vector<miopenFusionOpDescriptor_t> ops_;  // per op in [first, last)
  std::unique_ptr<TensorDescriptor> input_, output_;
};

// An owned miopenOperatorArgs_t.
class OperatorArgs {
 public:
  OperatorArgs();
  ~OperatorArgs();
  OperatorArgs(const OperatorArgs&) = delete;
  OperatorArgs& operator=(const OperatorArgs&) = delete;
  miopenOperatorArgs_t get() const { return args_; }

 private:
  miopenOperatorArgs_t args_ = nullptr;
};

// An owned handle on the current device, on `stream`.
class Handle {
 public:
  explicit Handle(hipStream_t stream);
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  miopenHandle_t get() const { return handle_; }

 private:
  miopenHandle_t handle_ = nullptr;
};

// How the unfused baseline splits a case: one plan per op, except that an activation backward
// stays with the BN backward before it (it has no meaning alone). Returns [first, last) ranges.
std::vector<std::pair<std::size_t, std::size_t>> unfused_stages(const Case& c);
// "op 1 (bias)", "ops 0..1 (bn_backward+activation_backward)".
std::string stage_description(const Case& c, std::size_t first, std::size_t last);

}  // namespace hipfuse::driver
