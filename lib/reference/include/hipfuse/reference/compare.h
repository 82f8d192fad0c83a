// Device output vs reference: normalised RMS error, per-element bound, NaN/Inf apart, MISTRUSTED.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hipfuse/reference/dtype.h"

namespace hipfuse::ref {

struct Tolerance {
    double nrms = 0.0;           // bound on ||gpu - ref|| / ||ref||
    double max_abs_floor = 0.0;  // absolute errors at or below this never fail the check
};

// Tolerance 0: every element must match exactly. For fills that make the reference exact (small
// integers in a conv whose sums stay below 2^24, see fill_integers).
Tolerance exact_tolerance();

// Tolerance for an output of `dtype` computed by a kernel that reads inputs exact in that dtype,
// accumulates in fp32 and rounds once at the store, against this double-precision reference.
// reduction_length = the longest sum behind one output element (conv: C/groups * filter size;
// BN training / backward: M; element-wise ops: 1).
Tolerance default_tolerance(DType dtype, std::int64_t reduction_length);

// Each element must also satisfy |g - r| <= max_abs_floor + element_factor * nrms * (|r| + rms(r)):
// a single grossly wrong element (a missed edge, one bad channel) hides in the norm of a large
// tensor, while legitimate rounding stays far below this bound (factor 16 leaves about 4 sigma
// of fp32 accumulation noise and 8x the storage rounding).
constexpr double element_factor = 16.0;

// A reference with more than this fraction of zeros cannot tell a working kernel from one that
// writes zeros: the verdict is MISTRUSTED instead of PASSED.
constexpr double mistrust_zero_fraction = 0.9;

// An element whose exact answer is a matter of rounding: an activation derivative that jumps (RELU's
// at 0, ...) evaluated where the exact input lies within the kernel's rounding of the jump may take
// either branch. `value` is the answer on the other branch.
struct Alternate {
    std::int64_t index = 0;
    double value = 0.0;
};

struct Verdict {
    enum Kind { passed, failed, mistrusted };
    Kind kind = failed;
    double nrms_error = 0.0;            // over the elements where both values are finite
    double max_abs_error = 0.0;
    std::int64_t max_error_index = -1;  // index of max_abs_error, -1 when none
    std::int64_t nan_inf_mismatches = 0;   // one side finite, the other not, or different non-finite values
    std::int64_t elements_out_of_bounds = 0;  // elements above the per-element bound
    std::int64_t checked = 0;
    std::int64_t alternates = 0;        // elements with a second legitimate value (see Alternate)
    double nonzero_fraction = 0.0;      // of the reference values
    std::string message;                // one line: the numbers behind the verdict

    bool ok() const { return kind == passed; }
};

const char* name(Verdict::Kind kind);  // "PASSED", "FAILED", "MISTRUSTED"

// Order of judgement: any NaN/Inf mismatch or error above tolerance fails; otherwise a reference
// that is more than 90% zeros, or constant (count >= 2), or empty is MISTRUSTED; otherwise PASSED.
// Matching non-finite values (NaN vs NaN, +inf vs +inf) agree and are left out of the error norms.
//
// `alternates` (sorted by index; several per index allowed) are second legitimate values of
// single elements: the element is judged against whichever of its values is nearest the GPU's.
Verdict compare(const double* gpu, const double* ref, std::int64_t count, const Tolerance& tolerance,
                const std::vector<Alternate>& alternates = {});

}  // namespace hipfuse::ref
