// fusiondriver: the command line wiring only; the commands live in commands_*.cpp.

#include <cstdio>

#include <fmt/format.h>

#include "cli.h"
#include "commands.h"

int main(int argc, char** argv) {
  using namespace hipfuse::driver;
  const ParseResult parsed = parse_cli(argc, argv);
  if (!parsed.out.empty()) fmt::print(stdout, "{}", parsed.out);
  if (!parsed.err.empty()) fmt::print(stderr, "{}", parsed.err);
  if (parsed.options.version) {
    fmt::print("{}\n", version_text());
    return kExitOk;
  }
  if (parsed.exit) return parsed.exit_code;
  return run_command(parsed.options);
}
