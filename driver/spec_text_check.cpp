// The bytes a spec may hold, checked before toml++ sees them.
//
// toml++ 3.3.0 (Debian 12) reaches __builtin_unreachable() in is_non_ascii_horizontal_whitespace
// for some non-ASCII characters (U+00A1..U+0499, U+2C6E..U+3067; marzer/tomlplusplus#190 and
// #295), which it asks about wherever whitespace may appear: outside strings and comments, right
// after a backslash in a basic string, and after a line-ending backslash in a multi-line basic
// string. Spec keys and values other than strings are ASCII anyway, so non-ASCII is accepted
// only inside strings and comments, as valid UTF-8, and never where toml++ skips whitespace.

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "spec_detail.h"

namespace hipfuse::driver::detail {

namespace {

// Length of the valid UTF-8 sequence at text[i] (1 for ASCII), or 0 when it is not one:
// no overlong forms, surrogates or code points above U+10FFFF.
size_t utf8_length(std::string_view text, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned lead = at(i);
  if (lead < 0x80) return 1;
  size_t n = 0;
  unsigned low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (at(i + 1) < low || at(i + 1) > high) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  }
  return n;
}

char32_t code_point(std::string_view text, size_t i, size_t n) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  if (n == 1) return at(i);
  char32_t c = at(i) & (0xFFu >> (n + 1));
  for (size_t k = 1; k < n; ++k) c = (c << 6) | (at(i + k) & 0x3Fu);
  return c;
}

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

size_t run_of(std::string_view text, size_t i, char quote) {
  size_t n = 0;
  while (i + n < text.size() && text[i + n] == quote) ++n;
  return n;
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::optional<TextProblem> run() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = line_start_ = 3;  // a byte-order mark, which toml++ skips
    while (i_ < text_.size()) {
      const char ch = text_[i_];
      if (static_cast<unsigned char>(ch) >= 0x80) {
        if (auto problem = non_ascii()) return problem;
        continue;
      }
      if (escaped_) {  // the character after a backslash in a basic string
        escaped_ = false;
        if (in_ == In::ml_basic && is_space(ch)) {
          skipping_ = true;  // a line-ending backslash
        } else if (ch != '\n') {
          advance(1);  // the escaped character: \" does not end the string
          continue;
        }
      }
      if (skipping_) {  // after a line-ending backslash, up to the next non-space character
        if (is_space(ch)) {
          advance(1);
          continue;
        }
        skipping_ = false;
      }
      step(ch);
    }
    return std::nullopt;
  }

 private:
  enum class In { plain, comment, basic, literal, ml_basic, ml_literal };

  std::optional<TextProblem> non_ascii() {
    const size_t n = utf8_length(text_, i_);
    if (n == 0) {
      return problem(fmt::format("byte 0x{:02X} is not valid utf-8", static_cast<unsigned char>(text_[i_])));
    }
    const auto c = static_cast<unsigned>(code_point(text_, i_, n));
    const std::string what = fmt::format("non-ASCII character U+{:04X} '{}'", c, text_.substr(i_, n));
    if (in_ == In::plain) {
      return problem(what + " outside a string or comment: keys and values other than strings are ASCII");
    }
    if (escaped_) return problem(what + " after a backslash, which is not an escape sequence");
    if (skipping_) {
      return problem(what + " right after a line-ending backslash (start the continued line with an ASCII "
                            "character, or write it as the escape \\u" + fmt::format("{:04X}", c) + ")");
    }
    advance(n);
    return std::nullopt;
  }

  // One ASCII character (or an escape, or a delimiter run) in the current state.
  void step(char ch) {
    if (ch == '\n') {
      if (in_ == In::comment || in_ == In::basic || in_ == In::literal) in_ = In::plain;  // ends (or breaks) them
      advance(1);
      return;
    }
    switch (in_) {
      case In::plain: return plain(ch);
      case In::comment: return advance(1);
      case In::basic:
      case In::ml_basic: return basic(ch);
      case In::literal:
      case In::ml_literal: return literal(ch);
    }
  }

  void plain(char ch) {
    if (ch == '#') {
      in_ = In::comment;
      advance(1);
    } else if (ch == '"' || ch == '\'') {
      const size_t run = run_of(text_, i_, ch);
      const bool basic = ch == '"';
      if (run >= 3) {
        in_ = basic ? In::ml_basic : In::ml_literal;
        advance(3);
      } else if (run == 2) {
        advance(2);  // an empty string
      } else {
        in_ = basic ? In::basic : In::literal;
        advance(1);
      }
    } else {
      advance(1);
    }
  }

  void basic(char ch) {
    if (ch == '\\') {
      escaped_ = true;
      return advance(1);
    }
    if (ch == '"') return close('"', In::basic, In::ml_basic);
    advance(1);
  }

  void literal(char ch) {
    if (ch == '\'') return close('\'', In::literal, In::ml_literal);
    advance(1);
  }

  // A quote in a string: ends a single-line string; ends a multi-line one when there are
  // three or more (up to two more belong to the string, as in toml++).
  void close(char quote, In single, In multi) {
    if (in_ == single) {
      in_ = In::plain;
      return advance(1);
    }
    const size_t run = run_of(text_, i_, quote);
    if (in_ == multi && run >= 3) {
      in_ = In::plain;
      return advance(run < 5 ? run : 5);
    }
    advance(run);
  }

  void advance(size_t n) {
    for (size_t k = 0; k < n && i_ < text_.size(); ++k, ++i_) {
      if (text_[i_] == '\n') {
        ++line_;
        line_start_ = i_ + 1;
      }
    }
  }

  TextProblem problem(std::string message) const {
    int column = 1;  // in characters
    for (size_t k = line_start_; k < i_; ++k) column += (static_cast<unsigned char>(text_[k]) & 0xC0) != 0x80;
    return TextProblem{line_, column, std::move(message)};
  }

  std::string_view text_;
  size_t i_ = 0, line_start_ = 0;
  int line_ = 1;
  In in_ = In::plain;
  bool escaped_ = false;   // the previous character was a backslash in a basic string
  bool skipping_ = false;  // after a line-ending backslash in a multi-line basic string
};

}  // namespace

std::optional<TextProblem> find_unsafe_character(std::string_view text) { return Scanner(text).run(); }

bool has_non_ascii(std::string_view text) {
  for (const char ch : text)
    if (static_cast<unsigned char>(ch) >= 0x80) return true;
  return false;
}

std::string ascii_stand_in(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {  // a byte-order mark, which toml++ skips: kept
    out += text.substr(0, 3);
    i = 3;
  }
  while (i < text.size()) {
    const size_t n = utf8_length(text, i);
    out += n > 1 ? '~' : text[i];
    i += n > 0 ? n : 1;
  }
  return out;
}

}  // namespace hipfuse::driver::detail
