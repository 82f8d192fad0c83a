#pragma once
// A one-line progress bar for multi-case runs, drawn only on a terminal.

#include <cstdio>
#include <string>

namespace hipfuse::driver {

// True when `f` is a terminal (isatty).
bool is_terminal(std::FILE* f);

// The bar text for `done` of `total` cases, the current case's name cut to fit `width` columns:
// "[#####.....]  5/10  name".
std::string progress_text(int done, int total, const std::string& current, int width);

class Progress {
 public:
  // Draws on `out` only when `enabled` (the caller decides: a terminal and more than one case).
  Progress(std::FILE* out, int total, bool enabled);
  ~Progress();
  void start(int index, const std::string& name);  // shows case index (0-based) as running
  void clear();                                     // erases the bar before other output

 private:
  std::FILE* out_;
  int total_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace hipfuse::driver
