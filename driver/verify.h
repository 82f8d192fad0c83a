#pragma once
// Verification against the CPU reference (hipfuse::ref): which outputs, how many elements,
// which tolerance, and the verdict. Pure host code: the GPU side only hands over the bytes it
// downloaded.
//
// Checked: the plan output, and every other tensor the plan writes (BN training: saved mean,
// saved inverse variance, running mean/variance; BN backward: dScale, dBias). Each check counts
// elements still holding the poison pattern (never written), then compares with
// ref::compare. Tolerances: ref::default_tolerance for the tensor's dtype and the longest sum
// behind one element; the case's verify.tolerance replaces the nrms bound of the plan output.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <hipfuse/reference/compare.h>
#include <hipfuse/reference/tensor.h>

#include "case.h"
#include "host_data.h"
#include "problem.h"
#include "report.h"

namespace hipfuse::driver {

struct VerifyPlan {
  enum class Mode { full, sample, off } mode = Mode::full;
  int64_t samples = 0;    // sample mode: output elements checked
  std::uint64_t seed = 0; // sample mode: which ones
  std::string note;       // e.g. why a requested sample check runs in full
  std::string label(int64_t output_elements) const;  // "cpu", "sample (1000 of 205520896)", "off"
};

// From the case's [verify] section. Sampling needs element-local ops after the conv: plans with
// BN training or backward ops (whole-tensor statistics) and outputs no larger than the sample
// count are checked in full.
VerifyPlan choose_verify(const Case& c, const Problem& p);

struct Reference {
  bool sampled = false;
  std::vector<int64_t> indices;  // sampled: logical indices into the plan output
  std::vector<double> output;    // full: the whole output (logical order); sampled: at `indices`
  std::vector<std::pair<int, ref::Tensor>> extra;  // other written tensors, by Problem index
  std::vector<ref::Alternate> alternates;  // full: output elements with a second legitimate value
};
// Throws std::invalid_argument when the reference cannot run the chain.
Reference compute_reference(const Case& c, const Problem& p, const HostData& h, const VerifyPlan& v);

// The tolerance a written tensor is checked with.
ref::Tolerance tolerance_for(const Case& c, const Problem& p, int tensor);

// `gpu` holds the downloaded storage bytes per Problem index (written tensors; others empty).
std::vector<CheckResult> check_outputs(const Case& c, const Problem& p, const Reference& r,
                                       const std::vector<std::vector<std::uint8_t>>& gpu);

// PASSED / FAILED / MISTRUSTED from the checks (only the plan output can make it MISTRUSTED),
// with the reason: the failing checks' messages.
Status judge(const std::vector<CheckResult>& checks, std::string* reason);

}  // namespace hipfuse::driver
