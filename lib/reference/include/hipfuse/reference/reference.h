// The whole CPU reference (hipfuse::ref): dtypes, tensors, fills, ops, chains, comparison.
#pragma once

#include "hipfuse/reference/chain.h"
#include "hipfuse/reference/compare.h"
#include "hipfuse/reference/dtype.h"
#include "hipfuse/reference/fill.h"
#include "hipfuse/reference/ops.h"
#include "hipfuse/reference/random.h"
#include "hipfuse/reference/tensor.h"
