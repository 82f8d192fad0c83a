// The entry points: read a spec (a file or text), parse --set overrides, and run the stages
// declared in spec_detail.h.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "spec.h"
#include "spec_detail.h"

namespace hipfuse::driver {

namespace {

using detail::Override;

bool is_word_start(char ch) { return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_'; }
bool is_word_char(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
}

// A --set value is TOML in which bare words are strings: `[nchw, nhwc]` -> `["nchw", "nhwc"]`.
// Quoted strings, numbers and the TOML words true, false, inf, nan pass through.
std::string quote_bare_words(std::string_view value) {
  std::string out;
  for (size_t i = 0; i < value.size();) {
    const char ch = value[i];
    if (ch == '"' || ch == '\'') {  // copy a quoted string through to its closing quote
      size_t end = i + 1;
      while (end < value.size() && value[end] != ch) end += (ch == '"' && value[end] == '\\') ? 2 : 1;
      out += value.substr(i, end + 1 - i);
      i = end + 1;
    } else if (is_word_start(ch) || std::isdigit(static_cast<unsigned char>(ch))) {
      size_t end = i;
      while (end < value.size() && is_word_char(value[end])) ++end;
      const std::string_view word = value.substr(i, end - i);
      const bool keep = !is_word_start(ch) || word == "true" || word == "false" || word == "inf" || word == "nan";
      out += keep ? std::string(word) : fmt::format("\"{}\"", word);
      i = end;
    } else {
      out += ch;
      ++i;
    }
  }
  return out;
}

std::string trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return "";
  return std::string(s.substr(begin, s.find_last_not_of(" \t") + 1 - begin));
}

bool is_dotted_key(std::string_view key) {
  if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string_view::npos) return false;
  return std::all_of(key.begin(), key.end(), [](char ch) { return is_word_char(ch); });
}

// The key written on a line (`filter` for "filter = [3,"), to name in a syntax error; "" if none.
std::string key_on_line(std::string_view text, size_t line) {
  size_t begin = 0;
  for (size_t l = 1; l < line && begin != std::string_view::npos; ++l) {
    begin = text.find('\n', begin);
    if (begin != std::string_view::npos) ++begin;
  }
  if (begin == std::string_view::npos) return "";
  const std::string_view row = text.substr(begin, text.find('\n', begin) - begin);
  const size_t eq = row.find('=');
  const std::string key = eq == std::string_view::npos ? "" : trim(row.substr(0, eq));
  return is_dotted_key(key) ? key : "";
}

toml::table parse_document(std::string_view text, const std::string& origin) {
  if (auto problem = detail::find_unsafe_character(text)) {
    const auto line = static_cast<size_t>(problem->line);
    throw SpecError(origin, problem->line, key_on_line(text, line),
                    fmt::format("column {}: {}", problem->column, problem->message));
  }
  toml::table doc;
  const bool non_ascii = detail::has_non_ascii(text);
  try {
    if (non_ascii) (void)toml::parse(detail::ascii_stand_in(text), origin);  // see ascii_stand_in
    doc = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto line = e.source().begin.line;
    std::string message(e.description());
    if (non_ascii) message += " (non-ASCII characters, shown as '~' here, are read only inside strings and comments)";
    throw SpecError(origin, static_cast<int>(line), key_on_line(text, line), message);
  }
  if (doc.empty()) throw SpecError(origin, 0, "", "the spec is empty");
  return doc;
}

Override parse_override(const std::string& arg, const std::string& origin) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos) throw SpecError(origin, 0, arg, "--set expects KEY=VALUE");
  const std::string key = trim(std::string_view(arg).substr(0, eq));
  const std::string value = trim(std::string_view(arg).substr(eq + 1));
  if (!is_dotted_key(key))
    throw SpecError(origin, 0, key, "a --set key is a dotted path such as dtype, op.0.k or timing.iters");
  if (value.empty()) throw SpecError(origin, 0, key, "--set needs a value after '='");
  const std::string text = fmt::format("{} = {}", key, quote_bare_words(value));
  if (auto problem = detail::find_unsafe_character(text)) {
    throw SpecError(origin, 0, key, fmt::format("cannot read the --set value '{}': {}", value, problem->message));
  }
  try {
    if (detail::has_non_ascii(text)) (void)toml::parse(detail::ascii_stand_in(text), std::string_view("--set"));
    return Override{key, toml::parse(text, std::string_view("--set"))};
  } catch (const toml::parse_error& e) {
    throw SpecError(origin, 0, key, fmt::format("cannot read the --set value '{}': {}", value, e.description()));
  }
}

void check_unique_names(const std::vector<Case>& cases) {
  std::map<std::string_view, const Case*> seen;
  for (const Case& c : cases) {
    const auto [it, fresh] = seen.emplace(c.name, &c);
    if (!fresh)
      throw SpecError(c.file, c.line, "name",
                      fmt::format("two cases are named '{}' (the other comes from line {}): give each [[case]] its "
                                  "own name and each list distinct values",
                                  c.name, it->second->line));
  }
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw SpecError(path, 0, "", "is a directory, not a spec file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path, 0, "", fmt::format("cannot open the spec file: {}", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<Case> load_spec_text(std::string_view text, const std::string& origin,
                                 const std::vector<std::string>& overrides) {
  const toml::table doc = parse_document(text, origin);
  std::vector<Override> parsed;  // owns the override values the plans point to
  for (const std::string& o : overrides) parsed.push_back(parse_override(o, origin));
  std::vector<Case> cases;
  for (const detail::RawPlan& plan : detail::make_plans(doc, origin, parsed)) {
    detail::check_plan(plan, origin);
    detail::expand_plan(plan, origin, cases);
  }
  check_unique_names(cases);
  return cases;
}

std::vector<Case> load_spec_file(const std::string& path, const std::vector<std::string>& overrides) {
  return load_spec_text(read_file(path), path, overrides);
}

}  // namespace hipfuse::driver
