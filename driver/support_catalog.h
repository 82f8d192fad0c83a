#pragma once
// The representative plans `fusiondriver support` asks the library about: MIOpen's fusion
// table rows, hipfuse's further families and convolution geometries, the activation modes,
// and plans no fused kernel takes. Plain data: no GPU, no library calls.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "case.h"

namespace hipfuse::driver {

struct SupportPlan {
  std::string label;            // "CBNA", "pre-activation", ...
  std::string ops;              // what the plan is, in words: "conv 3x3 + bias + BN inference + ReLU"
  std::vector<int64_t> input;   // logical N, C, [D,] H, W
  std::vector<OpSpec> plan;
};

// The input most plans share, and the sentence that describes the defaults of family_plans().
const std::vector<int64_t>& support_input();
std::string support_defaults();

// MIOpen's table rows first (named as MIOpenDriver's fusion modes), then hipfuse's families.
std::vector<SupportPlan> family_plans();
// Plans that are expected not to fuse, to show the library's reasons.
std::vector<SupportPlan> unsupported_plans();

// A column of the activation-mode table: the plan built around activation mode `mode`.
struct ActivationFamily {
  std::string name;
  std::function<std::vector<OpSpec>(int mode)> plan;
};
std::vector<ActivationFamily> activation_families();

}  // namespace hipfuse::driver
