// A unified diff of two texts, for `asmevo apply --dry-run`, `asmevo optimize` and its report.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace asmevo {

namespace diff_detail {

[[nodiscard]] inline std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < s.size()) {
    const auto nl = s.find('\n', at);
    out.push_back(s.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

}  // namespace diff_detail

/// A unified diff of two texts (3 lines of context), from a longest-common-subsequence alignment of the lines that
/// differ after the common prefix and suffix are set aside. Empty when the texts are equal.
[[nodiscard]] inline std::string unified_diff(const std::string& a_text, const std::string& b_text,
                                              const std::string& a_name, const std::string& b_name) {
  const auto a = diff_detail::lines_of(a_text), b = diff_detail::lines_of(b_text);
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  const std::size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  if (n == 0 && m == 0) return {};
  // ops: ' ' common, '-' only in a, '+' only in b; over the whole texts.
  std::vector<std::pair<char, std::string>> ops;
  for (std::size_t i = 0; i < pre; ++i) ops.emplace_back(' ', a[i]);
  if (n * m <= 64u * 1024 * 1024) {
    std::vector<std::uint32_t> L((n + 1) * (m + 1), 0);
    auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return L[i * (m + 1) + j]; };
    for (std::size_t i = n; i-- > 0;)
      for (std::size_t j = m; j-- > 0;)
        at(i, j) = a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) ops.emplace_back(' ', a[pre + i]), ++i, ++j;
      else if (j < m && (i == n || at(i, j + 1) >= at(i + 1, j))) ops.emplace_back('+', b[pre + j++]);
      else ops.emplace_back('-', a[pre + i++]);
    }
  } else {  // too large to align: the whole middle as removed then added
    for (std::size_t i = 0; i < n; ++i) ops.emplace_back('-', a[pre + i]);
    for (std::size_t j = 0; j < m; ++j) ops.emplace_back('+', b[pre + j]);
  }
  for (std::size_t i = a.size() - suf; i < a.size(); ++i) ops.emplace_back(' ', a[i]);
  std::string out = "--- " + a_name + "\n+++ " + b_name + "\n";
  constexpr std::size_t ctx = 3;
  std::size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].first == ' ') ++k;
    if (k == ops.size()) break;
    std::size_t start = k >= ctx ? k - ctx : 0, end = k;
    // Extend the hunk while changes are within 2*ctx lines of each other.
    for (std::size_t gap = 0; end < ops.size(); ++end) {
      if (ops[end].first != ' ') gap = 0;
      else if (++gap > 2 * ctx) break;
    }
    std::size_t stop = end;
    while (stop > start && ops[stop - 1].first == ' ' && stop > k) --stop;
    stop = std::min(ops.size(), stop + ctx);
    std::size_t la = 1, lb = 1;
    for (std::size_t q = 0; q < start; ++q) la += ops[q].first != '+', lb += ops[q].first != '-';
    std::size_t na = 0, nb = 0;
    for (std::size_t q = start; q < stop; ++q) na += ops[q].first != '+', nb += ops[q].first != '-';
    out += "@@ -" + std::to_string(la) + "," + std::to_string(na) + " +" + std::to_string(lb) + "," + std::to_string(nb) + " @@\n";
    for (std::size_t q = start; q < stop; ++q) out += std::string(1, ops[q].first) + ops[q].second + "\n";
    k = stop;
  }
  return out;
}

}  // namespace asmevo
