// Diffs: the alignment of two token sequences (the verifier aligns K0's and K1's code with it) and, on top of it,
// a unified diff of two texts (`asmevo apply --dry-run`, `asmevo optimize` and its report).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace asmevo {

namespace diff_detail {

/// A matched run of a diff: a[x + t] == b[y + t] for t < len.
struct Snake {
  std::size_t x = 0, y = 0, len = 0;
};

/// Myers' middle snake of `a` against `b` ("An O(ND) Difference Algorithm and Its Variations", Algorithmica 1986,
/// section 4b): a run of matches on some shortest edit path with about half of that path's edits on either side,
/// found by searching forward from the start and backward from the end at once in O(N + M) space. Each diagonal
/// step and each matched element costs one unit of `budget`; nullopt when it runs out. Precondition: the first and
/// last elements of `a` and `b` differ (the caller strips common ends), so the edit distance is at least 2 and both
/// halves left around the snake are smaller problems.
[[nodiscard]] inline std::optional<Snake> middle_snake(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                                       std::uint64_t& budget) {
  using I = std::ptrdiff_t;
  const I n = static_cast<I>(a.size()), m = static_cast<I>(b.size());
  const I delta = n - m;
  const bool odd = (delta & 1) != 0;
  const I dmax = (n + m + 1) / 2;
  const I off = dmax + 1;
  // vf[off + k]: the furthest x reached on forward diagonal k = x - y; vb likewise counting from the ends.
  std::vector<I> vf(static_cast<std::size_t>(2 * off + 1), 0), vb(static_cast<std::size_t>(2 * off + 1), 0);
  auto spend = [&](I units) {
    const auto u = static_cast<std::uint64_t>(units);
    if (budget < u) return false;
    budget -= u;
    return true;
  };
  for (I d = 0; d <= dmax; ++d) {
    for (I k = -d; k <= d; k += 2) {
      I x = (k == -d || (k != d && vf[off + k - 1] < vf[off + k + 1])) ? vf[off + k + 1] : vf[off + k - 1] + 1;
      I y = x - k;
      const I x0 = x, y0 = y;
      while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)]) ++x, ++y;
      if (!spend(1 + x - x0)) return std::nullopt;
      vf[off + k] = x;
      const I kr = delta - k;  // the backward diagonal through the same points
      if (odd && kr >= -(d - 1) && kr <= d - 1 && x + vb[off + kr] >= n)
        return Snake{static_cast<std::size_t>(x0), static_cast<std::size_t>(y0), static_cast<std::size_t>(x - x0)};
    }
    for (I k = -d; k <= d; k += 2) {
      I x = (k == -d || (k != d && vb[off + k - 1] < vb[off + k + 1])) ? vb[off + k + 1] : vb[off + k - 1] + 1;
      I y = x - k;
      const I x0 = x;
      while (x < n && y < m && a[static_cast<std::size_t>(n - 1 - x)] == b[static_cast<std::size_t>(m - 1 - y)]) ++x, ++y;
      if (!spend(1 + x - x0)) return std::nullopt;
      vb[off + k] = x;
      const I kf = delta - k;
      if (!odd && kf >= -d && kf <= d && x + vf[off + kf] >= n)
        return Snake{static_cast<std::size_t>(n - x), static_cast<std::size_t>(m - y), static_cast<std::size_t>(x - x0)};
    }
  }
  return std::nullopt;  // not reached: the searches meet by d = dmax
}

/// The elements that occur exactly once in a[a0, a1) and once in b[b0, b1), as pairs (i, j), reduced to a longest
/// run increasing in both (patience sorting): the anchors of a patience diff (Bram Cohen's; git diff --patience).
[[nodiscard]] inline std::vector<std::pair<std::size_t, std::size_t>> unique_anchors(
    std::span<const std::uint32_t> a, std::span<const std::uint32_t> b, std::size_t a0, std::size_t a1,
    std::size_t b0, std::size_t b1) {
  struct Seen {
    std::uint32_t na = 0, nb = 0;
    std::size_t j = 0;
  };
  std::unordered_map<std::uint32_t, Seen> seen;
  seen.reserve(a1 - a0);
  for (std::size_t i = a0; i < a1; ++i) ++seen[a[i]].na;
  for (std::size_t j = b0; j < b1; ++j)
    if (auto it = seen.find(b[j]); it != seen.end()) ++it->second.nb, it->second.j = j;
  std::vector<std::pair<std::size_t, std::size_t>> cand;
  for (std::size_t i = a0; i < a1; ++i)
    if (const Seen& s = seen[a[i]]; s.na == 1 && s.nb == 1) cand.emplace_back(i, s.j);
  if (cand.empty()) return cand;
  // Longest strictly increasing subsequence of the j's: tails[l] = the candidate ending the best run of length l+1.
  std::vector<std::size_t> tails, prev(cand.size(), ~std::size_t{0});
  for (std::size_t c = 0; c < cand.size(); ++c) {
    const auto pos = std::lower_bound(tails.begin(), tails.end(), cand[c].second,
                                      [&](std::size_t t, std::size_t j) { return cand[t].second < j; });
    if (pos != tails.begin()) prev[c] = *(pos - 1);
    if (pos == tails.end()) tails.push_back(c);
    else *pos = c;
  }
  std::vector<std::pair<std::size_t, std::size_t>> out(tails.size());
  std::size_t c = tails.back();
  for (std::size_t l = tails.size(); l-- > 0; c = prev[c]) out[l] = cand[c];
  return out;
}

}  // namespace diff_detail

/// A common subsequence of `a` and `b` as pairs (i, j) with a[i] == b[j], increasing in both i and j: what diff
/// tools compute, as they compute it. The common prefix and suffix match first; then, in what is left, elements
/// unique on both sides anchor the match (patience diff) and the gaps between anchors are matched the same way;
/// where no anchor is left, Myers' linear-space O(ND) diff finds a longest common subsequence. Usually longest, not
/// always (anchors can cross better matches). `budget` bounds the Myers steps (about one per diagonal step and per
/// matched element): a region that would need more stays unmatched, so the result is always a valid alignment and
/// the time is bounded (O((N + M) log) with anchors, never beyond `budget` without).
[[nodiscard]] inline std::vector<std::pair<std::size_t, std::size_t>> align_sequences(std::span<const std::uint32_t> a,
                                                                                     std::span<const std::uint32_t> b,
                                                                                     std::uint64_t budget = 20'000'000) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  struct Range {
    std::size_t a0, a1, b0, b1;
    bool anchors;
  };
  std::vector<Range> work{{0, a.size(), 0, b.size(), true}};
  while (!work.empty()) {
    Range r = work.back();
    work.pop_back();
    while (r.a0 < r.a1 && r.b0 < r.b1 && a[r.a0] == b[r.b0]) out.emplace_back(r.a0++, r.b0++);
    while (r.a0 < r.a1 && r.b0 < r.b1 && a[r.a1 - 1] == b[r.b1 - 1]) out.emplace_back(--r.a1, --r.b1);
    if (r.a0 == r.a1 || r.b0 == r.b1) continue;
    if (r.anchors) {
      const auto anchors = diff_detail::unique_anchors(a, b, r.a0, r.a1, r.b0, r.b1);
      if (!anchors.empty()) {
        std::size_t pa = r.a0, pb = r.b0;
        for (const auto& [i, j] : anchors) {
          out.emplace_back(i, j);
          work.push_back({pa, i, pb, j, true});
          pa = i + 1, pb = j + 1;
        }
        work.push_back({pa, r.a1, pb, r.b1, true});
        continue;
      }
    }
    const auto s = diff_detail::middle_snake(a.subspan(r.a0, r.a1 - r.a0), b.subspan(r.b0, r.b1 - r.b0), budget);
    if (!s) continue;  // over budget: left unmatched
    for (std::size_t t = 0; t < s->len; ++t) out.emplace_back(r.a0 + s->x + t, r.b0 + s->y + t);
    work.push_back({r.a0, r.a0 + s->x, r.b0, r.b0 + s->y, false});
    work.push_back({r.a0 + s->x + s->len, r.a1, r.b0 + s->y + s->len, r.b1, false});
  }
  std::sort(out.begin(), out.end());
  return out;
}

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

/// A unified diff of two texts (3 lines of context): their lines aligned by align_sequences, removed lines before
/// added ones in each change. Empty when the texts have the same lines. Applying the hunks to `a_text` gives
/// `b_text`'s lines.
[[nodiscard]] inline std::string unified_diff(const std::string& a_text, const std::string& b_text,
                                              const std::string& a_name, const std::string& b_name) {
  const auto a = diff_detail::lines_of(a_text), b = diff_detail::lines_of(b_text);
  if (a == b) return {};
  // Equal lines get equal ids; the ids are aligned.
  std::unordered_map<std::string_view, std::uint32_t> ids;
  auto ids_of = [&](const std::vector<std::string>& lines) {
    std::vector<std::uint32_t> out;
    out.reserve(lines.size());
    for (const std::string& l : lines) out.push_back(ids.try_emplace(l, static_cast<std::uint32_t>(ids.size())).first->second);
    return out;
  };
  const auto ta = ids_of(a), tb = ids_of(b);
  // ops: ' ' common, '-' only in a, '+' only in b; over the whole texts.
  std::vector<std::pair<char, const std::string*>> ops;
  std::size_t i = 0, j = 0;
  auto gap = [&](std::size_t i1, std::size_t j1) {
    for (; i < i1; ++i) ops.emplace_back('-', &a[i]);
    for (; j < j1; ++j) ops.emplace_back('+', &b[j]);
  };
  for (const auto& [x, y] : align_sequences(ta, tb)) {
    gap(x, y);
    ops.emplace_back(' ', &a[i]);
    ++i, ++j;
  }
  gap(a.size(), b.size());
  std::string out = "--- " + a_name + "\n+++ " + b_name + "\n";
  constexpr std::size_t ctx = 3;
  std::size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].first == ' ') ++k;
    if (k == ops.size()) break;
    std::size_t start = k >= ctx ? k - ctx : 0, end = k;
    // Extend the hunk while changes are within 2*ctx lines of each other.
    for (std::size_t run = 0; end < ops.size(); ++end) {
      if (ops[end].first != ' ') run = 0;
      else if (++run > 2 * ctx) break;
    }
    std::size_t stop = end;
    while (stop > start && ops[stop - 1].first == ' ' && stop > k) --stop;
    stop = std::min(ops.size(), stop + ctx);
    std::size_t la = 1, lb = 1;
    for (std::size_t q = 0; q < start; ++q) la += ops[q].first != '+', lb += ops[q].first != '-';
    std::size_t na = 0, nb = 0;
    for (std::size_t q = start; q < stop; ++q) na += ops[q].first != '+', nb += ops[q].first != '-';
    out += "@@ -" + std::to_string(la) + "," + std::to_string(na) + " +" + std::to_string(lb) + "," + std::to_string(nb) + " @@\n";
    for (std::size_t q = start; q < stop; ++q) out += std::string(1, ops[q].first) + *ops[q].second + "\n";
    k = stop;
  }
  return out;
}

}  // namespace asmevo
