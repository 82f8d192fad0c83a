// Which keys each table of a spec accepts, how each reads a list, and which are required.
// Types are checked where the values are read (spec_build.cpp); this is names and shapes only.

#include <algorithm>

#include <fmt/format.h>

#include "spec_detail.h"

namespace hipfuse::driver::detail {

namespace {

constexpr KeyForm kFixed = KeyForm::fixed;
constexpr KeyForm kScalar = KeyForm::scalar;
constexpr KeyForm kVector = KeyForm::vector;

std::vector<KeyInfo> op_key_list(std::vector<KeyInfo> own) {  // kind and enabled come first
  std::vector<KeyInfo> keys{{"kind", kFixed, true}, {"enabled", kScalar, false}};
  keys.insert(keys.end(), own.begin(), own.end());
  return keys;
}

const std::map<std::string_view, std::vector<KeyInfo>>& op_table() {
  static const std::map<std::string_view, std::vector<KeyInfo>> table{
      {"conv", op_key_list({{"k", kScalar, true},
                   {"filter", kVector, true},
                   {"stride", kVector, false},
                   {"pad", kVector, false},
                   {"dilation", kVector, false},
                   {"groups", kScalar, false}})},
      {"bias", op_key_list({})},
      {"residual_add", op_key_list({{"alpha", kScalar, false}})},
      {"bn_inference", op_key_list({{"mode", kScalar, true}, {"epsilon", kScalar, false}})},
      {"bn_forward_training", op_key_list({{"mode", kScalar, true},
                                  {"epsilon", kScalar, false},
                                  {"exp_avg_factor", kScalar, false},
                                  {"running_stats", kScalar, false}})},
      {"bn_backward", op_key_list({{"mode", kScalar, true}})},
      {"activation", op_key_list({{"mode", kScalar, true}, {"alpha", kScalar, false}, {"beta", kScalar, false},
                         {"gamma", kScalar, false}})},
      {"activation_backward", op_key_list({{"mode", kScalar, true}, {"alpha", kScalar, false},
                                  {"beta", kScalar, false}, {"gamma", kScalar, false}})},
  };
  return table;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

const std::vector<KeyInfo>& plan_keys() {
  static const std::vector<KeyInfo> keys{
      {"dtype", kScalar, false}, {"layout", kScalar, false}, {"input", KeyForm::shape, true}};
  return keys;
}

const std::vector<KeyInfo>* op_keys(std::string_view kind) {
  const auto it = op_table().find(kind);
  return it == op_table().end() ? nullptr : &it->second;
}

const std::vector<KeyInfo>* section_keys(std::string_view name) {
  static const std::vector<KeyInfo> init{{"distribution", kScalar, false}, {"min", kScalar, false},
                                         {"max", kScalar, false},          {"mean", kScalar, false},
                                         {"stddev", kScalar, false},       {"seed", kScalar, false}};
  static const std::vector<KeyInfo> timing{{"warmup", kScalar, false}, {"iters", kScalar, false}};
  static const std::vector<KeyInfo> verify{
      {"mode", kScalar, false}, {"samples", kScalar, false}, {"tolerance", kScalar, false}};
  if (name == "init") return &init;
  if (name == "timing") return &timing;
  if (name == "verify") return &verify;
  return nullptr;
}

const KeyInfo* find_key(const std::vector<KeyInfo>& keys, std::string_view name) {
  const auto it = std::find_if(keys.begin(), keys.end(), [&](const KeyInfo& k) { return k.name == name; });
  return it == keys.end() ? nullptr : &*it;
}

bool is_op_key(std::string_view key) {
  const auto& table = op_table();
  return std::any_of(table.begin(), table.end(), [&](const auto& kv) { return find_key(kv.second, key); });
}

std::vector<std::string_view> names_of(const std::vector<KeyInfo>& keys) {
  std::vector<std::string_view> names;
  for (const KeyInfo& k : keys) names.push_back(k.name);
  return names;
}

std::vector<std::string_view> plan_table_keys(bool root) {
  std::vector<std::string_view> names{"name"};
  for (const KeyInfo& k : plan_keys()) names.push_back(k.name);
  names.insert(names.end(), {"op", "init", "timing", "verify"});
  if (root) names.push_back("case");
  return names;
}

std::string valid_list_hint(std::string_view word, const std::vector<std::string_view>& valid) {
  std::string_view best;
  size_t best_distance = 3;  // suggest only near misses: typos, not different words
  for (std::string_view v : valid) {
    const size_t d = edit_distance(word, v);
    if (d < best_distance) best = v, best_distance = d;
  }
  std::string hint = best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
  return hint + fmt::format("; valid: {}", fmt::join(valid, ", "));
}

}  // namespace hipfuse::driver::detail
