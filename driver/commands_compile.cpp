// fusiondriver compile: builds every case's kernels into the disk cache. With --arch the
// compile is offline (hipfuseCompileFusionPlanForArch): no GPU is needed.

#include <memory>

#include <fmt/format.h>

#include "commands.h"
#include "gpu.h"
#include "plan_builder.h"
#include "problem.h"
#include "report.h"
#include "spec.h"

namespace hipfuse::driver {

namespace {

enum class CompileStatus { compiled, unsupported, error };
const char* compile_status_name(CompileStatus s) {
  switch (s) {
    case CompileStatus::compiled: return "COMPILED";
    case CompileStatus::unsupported: return "UNSUPPORTED";
    case CompileStatus::error: return "COMPILE_ERROR";
  }
  return "?";
}

struct CompileResult {
  CompileStatus status = CompileStatus::error;
  std::string reason;
  PlanInfo info;
  bool have_info = false;
};

CompileResult compile_case(const Case& c, const std::string& arch, miopenHandle_t handle) {
  CompileResult res;
  try {
    const Problem p = make_problem(c);
    FusionPlan plan(c, p, 0, c.ops.size());
    try {
      if (handle) plan.compile(handle);
      else plan.compile_for_arch(arch);
      res.status = CompileStatus::compiled;
    } catch (const ApiError& e) {
      res.status = is_unsupported(e.status) ? CompileStatus::unsupported : CompileStatus::error;
      res.reason = is_unsupported(e.status) ? e.message : e.what();
    }
    res.info = plan.info();
    res.have_info = true;
  } catch (const ApiError& e) {  // the library rejected an op while creating the plan
    res.status = is_unsupported(e.status) ? CompileStatus::unsupported : CompileStatus::error;
    res.reason = e.what();
  } catch (const std::invalid_argument& e) {
    res.status = CompileStatus::unsupported;
    res.reason = e.what();
  }
  return res;
}

}  // namespace

int command_compile(const Options& o) {
  quiet_library_logs(o.verbosity);
  const std::vector<Case> cases = load_cases(o);
  const bool offline = !o.arch.empty();
  std::unique_ptr<Stream> stream;
  std::unique_ptr<Handle> handle;
  std::string target = o.arch;
  if (!offline && !cases.empty()) {
    if (const auto why = gpu_unavailable_reason(o.device)) {
      print_error(*why + " (compile --arch ARCH needs no GPU)");
      return kExitNoDevice;
    }
    try {
      target = select_device(o.device).arch;
      stream = std::make_unique<Stream>();
      handle = std::make_unique<Handle>(stream->get());
    } catch (const std::exception& e) {
      print_error(e.what());
      return kExitNoDevice;
    }
  }
  OutputFile out(o.out);
  const Format format = *parse_format(o.format);
  std::FILE* human = format != Format::table && out.is_stdout() ? stderr : stdout;

  int compiled = 0, unsupported = 0, errors = 0;
  std::vector<std::vector<Cell>> rows;
  for (const Case& c : cases) {
    const CompileResult res = compile_case(c, o.arch, handle ? handle->get() : nullptr);
    std::string line = fmt::format("{:<13} {}", compile_status_name(res.status), c.name);
    if (res.status == CompileStatus::compiled) {
      line += fmt::format("  {}  {} kernel{}  {:.1f} ms{}", res.info.solver, res.info.kernels,
                          res.info.kernels == 1 ? "" : "s", res.info.compile_ms,
                          res.info.cache_hit ? " (cache hit)" : " (cache miss)");
    } else {
      line += res.status == CompileStatus::unsupported ? fmt::format("  ({})", res.reason)
                                                       : fmt::format("  : {}", res.reason);
    }
    fmt::print(human, "{}\n", line);
    if (res.status != CompileStatus::compiled) fmt::print(human, "  repro: {}\n", repro_command(c));
    std::fflush(human);
    switch (res.status) {
      case CompileStatus::compiled: ++compiled; break;
      case CompileStatus::unsupported: ++unsupported; break;
      case CompileStatus::error: ++errors; break;
    }
    rows.push_back({text_cell(c.name), text_cell(compile_status_name(res.status)), text_cell(res.reason),
                    text_cell(describe(c)), text_cell(target), text_cell(res.have_info ? res.info.solver : ""),
                    res.have_info && res.status == CompileStatus::compiled ? number_cell(res.info.kernels) : number_cell({}),
                    res.have_info ? number_cell(res.info.compile_ms) : number_cell({}),
                    res.have_info && res.status == CompileStatus::compiled ? bool_cell(res.info.cache_hit) : bool_cell({}),
                    text_cell(res.have_info ? res.info.key : ""), text_cell(c.file), number_cell(c.line)});
  }
  if (format != Format::table || !out.is_stdout())
    write_rows(out.get(), format, "compile",
               {"name", "status", "reason", "ops", "arch", "solver", "kernels", "compile_ms", "cache_hit", "key", "file",
                "line"},
               rows);
  std::string summary = fmt::format("{} compiled, {} failed", compiled, errors);
  if (unsupported) summary += fmt::format(", {} unsupported", unsupported);
  fmt::print(human, "{}\n", summary);
  std::fflush(human);
  if (errors) return kExitFailed;
  if (o.strict && unsupported) return kExitFailed;
  return kExitOk;
}

}  // namespace hipfuse::driver
