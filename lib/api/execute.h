// Running a compiled plan: every check Execute makes, then the invoker's launch on the
// handle's stream, timed with events when profiling is on. Shared by
// miopenExecuteFusionPlan and miopenConvolutionBiasActivationForward.
#pragma once

#include "api/objects.h"

namespace hipfuse::api {

// compiled_device: the device the plan's kernels were loaded on.
void execute(HandleObject& handle, const FusionPlan& plan, int compiled_device, const TensorDesc& input_desc,
             const void* input, const TensorDesc& output_desc, void* output, const OperatorArgs& args);

// Throws Error(bad_parm) naming the op when a slot is missing, of another kind, or lacks a
// device pointer the op needs.
void check_args(const FusionPlan& plan, const OperatorArgs& args);

}  // namespace hipfuse::api
