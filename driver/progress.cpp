#include "progress.h"

#include <algorithm>

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace hipfuse::driver {

bool is_terminal(std::FILE* f) { return f && isatty(fileno(f)) == 1; }

std::string progress_text(int done, int total, const std::string& current, int width) {
  constexpr int kBar = 24;
  const int filled = total > 0 ? std::clamp(done * kBar / total, 0, kBar) : 0;
  std::string text = fmt::format("[{}{}] {}/{} ", std::string(static_cast<std::size_t>(filled), '#'),
                                 std::string(static_cast<std::size_t>(kBar - filled), '.'), done, total);
  const int room = width - static_cast<int>(text.size()) - 1;
  if (room > 3) {
    if (static_cast<int>(current.size()) <= room) text += current;
    else text += current.substr(0, static_cast<std::size_t>(room - 3)) + "...";
  }
  return text;
}

namespace {
int terminal_width(std::FILE* f) {
  winsize ws{};
  if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}
}  // namespace

Progress::Progress(std::FILE* out, int total, bool enabled) : out_(out), total_(total), enabled_(enabled && out) {}

Progress::~Progress() { clear(); }

void Progress::start(int index, const std::string& name) {
  if (!enabled_) return;
  fmt::print(out_, "\r\033[K{}", progress_text(index, total_, name, terminal_width(out_)));
  std::fflush(out_);
  drawn_ = true;
}

void Progress::clear() {
  if (!enabled_ || !drawn_) return;
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace hipfuse::driver
