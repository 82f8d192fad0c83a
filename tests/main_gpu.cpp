// GPU tests: skipped (exit 77, which CTest reports as "Skipped") where no GPU is present.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "runtime/platform.h"

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strncmp(argv[i], "--list", 6) == 0;
  std::string why;
  if (!listing && hipfuse::rt::device_count(&why) == 0) {
    std::printf("skipped: %s\n", why.c_str());
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
