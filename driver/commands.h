#pragma once
// The subcommands, and what they share: loading and selecting cases, opening outputs.
// Each command returns the process exit code (cli.h) and prints its own errors.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "case.h"
#include "cli.h"

namespace hipfuse::driver {

int command_run(const Options& o);
int command_compile(const Options& o);
int command_list(const Options& o);
int command_support(const Options& o);
// The whole program after parsing: dispatches, turns stray exceptions into one error line.
int run_command(const Options& o);
// "fusiondriver <hipfuse version> (MIOpen API a.b.c)".
std::string version_text();

// Every spec file, then every --spec-text, with the --set overrides; then the CLI overrides of
// the case fields (--iters, --warmup, --seed, --verify, --samples); then --filter.
// Throws SpecError for a broken spec, std::runtime_error for a bad --filter.
std::vector<Case> load_cases(const Options& o);
// Applies --iters / --warmup / --seed / --verify / --samples to a case.
void apply_overrides(Case& c, const Options& o);

// Prints "fusiondriver: MESSAGE" on stderr (callers pass one-line messages).
void print_error(const std::string& message);

// --out FILE or stdout. Throws std::runtime_error when the file cannot be opened.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  std::FILE* get() const { return file_; }
  bool is_stdout() const { return file_ == stdout; }

 private:
  std::FILE* file_ = stdout;
};

// Keeps the library's own stderr logging to fatal messages unless MIOPEN_LOG_LEVEL is set or
// -v is given: the driver reports every error itself, with the library's reason.
void quiet_library_logs(int verbosity);

// `list --format commands`: one POSIX-sh command line per case, the spec given inline through
// printf so that the command stays on one line.
std::string one_line_command(const std::string& program, const Case& c, const std::vector<std::string>& extra_args);
// Quotes a word for POSIX sh ('...' with ' as '\'').
std::string sh_quote_word(const std::string& word);

}  // namespace hipfuse::driver
