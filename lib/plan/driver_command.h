// The fusiondriver command that reproduces a plan (MIOPEN_ENABLE_LOGGING_CMD=1 prints it
// for each compiled plan, as MIOpen prints its MIOpenDriver line). Run-time scalars
// (activation alpha/beta/gamma, epsilon, ...) are not part of a plan: the command uses the
// spec format's defaults for them.
#pragma once

#include "plan/fusion_plan.h"

#include <string>

namespace hipfuse {

std::string driver_command(const FusionPlan& plan);

}  // namespace hipfuse
