// fusiondriver list: the expanded cases, without a GPU. --format commands prints one
// self-contained fusiondriver command per case, for GNU parallel, Slurm arrays or xargs -P.

#include <unistd.h>

#include <climits>
#include <optional>

#include <fmt/format.h>

#include "commands.h"
#include "metrics.h"
#include "problem.h"
#include "report.h"
#include "spec.h"

namespace hipfuse::driver {

namespace {

// The running binary's absolute path (so that the commands work from any directory).
std::string program_path() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "fusiondriver";
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace

int command_list(const Options& o) {
  const std::vector<Case> cases = load_cases(o);
  OutputFile out(o.out);
  if (o.format == "commands") {
    const std::string program = program_path();
    const std::vector<std::string> extra = forwarded_run_options(o);
    for (const Case& c : cases) fmt::print(out.get(), "{}\n", one_line_command(program, c, extra));
    return kExitOk;
  }
  const Format format = *parse_format(o.format);
  std::vector<std::vector<Cell>> rows;
  for (const Case& c : cases) {
    std::string output_shape;
    std::optional<double> bytes, flops;  // the least traffic and the work (metrics.h), as `run` reports them
    try {
      const Problem problem = make_problem(c);
      output_shape = shape_string(problem.shapes.back());
      const Work work = plan_work(c, problem);
      bytes = work.bytes;
      flops = work.flops;
    } catch (const std::exception&) {
    }
    if (format == Format::table) {
      rows.push_back({text_cell(c.name), text_cell(describe(c))});
    } else {
      rows.push_back({text_cell(c.name), text_cell(describe(c)), text_cell(c.file), number_cell(c.line),
                      text_cell(std::string(kDTypeNames.at(static_cast<std::size_t>(c.dtype)))),
                      text_cell(std::string(kLayoutNames.at(static_cast<std::size_t>(c.layout)))),
                      text_cell(shape_string(c.input)), text_cell(output_shape), number_cell(bytes),
                      number_cell(flops), text_cell(repro_command(c))});
    }
  }
  if (format == Format::table)
    write_rows(out.get(), format, "cases", {"name", "plan"}, rows);
  else
    write_rows(out.get(), format, "cases",
               {"name", "describe", "file", "line", "dtype", "layout", "shape", "output_shape", "bytes", "flops", "repro"},
               rows);
  if (format == Format::table) fmt::print(out.get(), "{} case{}\n", cases.size(), cases.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace hipfuse::driver
