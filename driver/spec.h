#pragma once
// TOML plan specs -> validated cases. The format is documented in docs/spec-format.md.
// Everything here runs without a GPU and without the library.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "case.h"

namespace hipfuse::driver {

// A spec that expands to more cases than this is rejected (a runaway cartesian product; at a
// few seconds a case, 10,000 cases are a day's run: split larger sweeps into several files).
inline constexpr std::size_t kMaxCasesPerSpec = 10000;
// A plan with more ops than this is rejected before it is expanded (hipfuse fuses a convolution
// and at most 8 pointwise ops; this only bounds the work of reading a spec).
inline constexpr std::size_t kMaxOpsPerPlan = 32;

// Parses, applies the --set overrides ("KEY=VALUE", KEY a dotted path, VALUE a TOML value
// in which bare words are strings), expands lists into cases and validates each case.
// Throws SpecError on the first problem.
std::vector<Case> load_spec_file(const std::string& path, const std::vector<std::string>& overrides = {});
// `origin` names the text in errors and in Case::file, and gives the default spec name.
std::vector<Case> load_spec_text(std::string_view toml, const std::string& origin,
                                 const std::vector<std::string>& overrides = {});

// A self-contained spec for exactly this case: every value explicit, no lists to expand.
// load_spec_text() of it gives back one case equal to `c`.
std::string to_inline_spec(const Case& c);
// `fusiondriver run --spec-text '<to_inline_spec>'`, quoted for POSIX sh.
std::string repro_command(const Case& c);
// One line for humans, e.g. "fp16 nhwc 64x64x56x56 conv(k64 3x3 s1 p1)+bias+relu".
std::string describe(const Case& c);

}  // namespace hipfuse::driver
