#pragma once
// The semantic rules of a case (spec_validate.cpp), apart from TOML reading so that the whole
// rule list stays in one file.

#include <string>
#include <vector>

#include "case.h"

namespace hipfuse::driver::detail {

// Raises the SpecError for a rule broken at a key path of the case's plan: "input",
// "op.2.groups", "op.2" (the op as a whole), "timing.iters".
class Site {
 public:
  virtual ~Site() = default;
  [[noreturn]] virtual void fail(const std::string& path, const std::string& message) const = 0;
};

// op_index[i] is the declared position of c.ops[i] (ops with enabled = false are not in c.ops).
void validate_case(const Case& c, const std::vector<size_t>& op_index, const Site& site);

}  // namespace hipfuse::driver::detail
