// support/text_diff.hpp: unified_diff checked by applying it. A small patch applier written here (the oracle) reads
// the hunks back and must turn the old text's lines into the new text's, with every hunk header matching its body
// and every context and removed line matching the old text where the header says.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "asmevo/support/text_diff.hpp"

namespace {

std::vector<std::string> lines(const std::string& s) { return asmevo::diff_detail::lines_of(s); }

// Applies a unified diff to `old_lines`; nullopt (with `why`) if the diff is malformed or does not fit.
std::optional<std::vector<std::string>> apply(const std::vector<std::string>& old_lines, const std::string& diff,
                                              std::string& why) {
  const auto d = lines(diff);
  if (d.size() < 2 || d[0].rfind("--- ", 0) != 0 || d[1].rfind("+++ ", 0) != 0) return why = "no header", std::nullopt;
  std::vector<std::string> out;
  std::size_t at = 0;  // next old line to copy
  long shift = 0;      // new line number - old line number so far
  for (std::size_t k = 2; k < d.size();) {
    unsigned la = 0, na = 0, lb = 0, nb = 0;
    if (std::sscanf(d[k].c_str(), "@@ -%u,%u +%u,%u @@", &la, &na, &lb, &nb) != 4) return why = "bad hunk " + d[k], std::nullopt;
    if (la == 0 || la - 1 < at) return why = "hunks overlap or go backwards at " + d[k], std::nullopt;
    if (static_cast<long>(lb) - static_cast<long>(la) != shift) return why = "new line number off at " + d[k], std::nullopt;
    while (at < la - 1 && at < old_lines.size()) out.push_back(old_lines[at++]);
    unsigned seen_a = 0, seen_b = 0;
    for (++k; k < d.size() && d[k].rfind("@@", 0) != 0; ++k) {
      if (d[k].empty()) return why = "empty diff line", std::nullopt;
      const char c = d[k][0];
      const std::string text = d[k].substr(1);
      if (c == ' ' || c == '-') {
        if (at >= old_lines.size() || old_lines[at] != text) return why = "line does not match: " + d[k], std::nullopt;
        ++at, ++seen_a;
      }
      if (c == ' ' || c == '+') out.push_back(text), ++seen_b;
      if (c != ' ' && c != '-' && c != '+') return why = "bad line " + d[k], std::nullopt;
    }
    if (seen_a != na || seen_b != nb) return why = "hunk counts do not match its lines", std::nullopt;
    shift += static_cast<long>(nb) - static_cast<long>(na);
  }
  while (at < old_lines.size()) out.push_back(old_lines[at++]);
  return out;
}

TEST(TextDiff, EqualTextsGiveNoDiff) {
  EXPECT_EQ(asmevo::unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
  EXPECT_EQ(asmevo::unified_diff("", "", "x", "y"), "");
}

TEST(TextDiff, OneChangedLineGivesOneHunkWithThreeLinesOfContext) {
  const std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n", b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
  EXPECT_EQ(asmevo::unified_diff(a, b, "a.s", "b.s"),
            "--- a.s\n+++ b.s\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST(TextDiff, ChangesFarApartGiveTwoHunks) {
  std::string a, b;
  for (int i = 0; i < 30; ++i) {
    a += std::to_string(i) + "\n";
    b += (i == 3 || i == 25 ? "x" : std::to_string(i)) + "\n";
  }
  const std::string d = asmevo::unified_diff(a, b, "a", "b");
  std::size_t hunks = 0;
  for (std::size_t p = d.find("@@ -"); p != std::string::npos; p = d.find("@@ -", p + 1)) ++hunks;
  EXPECT_EQ(hunks, 2u) << d;
}

// Property: for random texts over a small alphabet (many repeated lines, as in assembly), applying the diff to the
// old text gives the new one, and the diff has no more changed lines than removing all and adding all would.
TEST(TextDiff, ApplyingTheDiffGivesTheNewText) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with it to reproduce)");
  std::printf("TextDiff.ApplyingTheDiffGivesTheNewText seed %u\n", seed);
  std::mt19937 rng(seed);
  const char* alphabet[] = {"s_waitcnt vmcnt(0)", "v_add_f32 v0, v1, v2", "s_nop 0", "", "  ; comment", "s_endpgm"};
  for (int round = 0; round < 400; ++round) {
    auto text = [&](std::size_t n) {
      std::string t;
      for (std::size_t i = 0; i < n; ++i) t += std::string(alphabet[rng() % 6]) + "\n";
      return t;
    };
    const std::string a = text(rng() % 40);
    std::string b = a;
    // Edit a copy: delete, insert or replace a few lines, or start from an unrelated text.
    if (rng() % 5 == 0) {
      b = text(rng() % 40);
    } else {
      auto bl = lines(b);
      for (unsigned e = rng() % 4; e-- > 0;) {
        const std::size_t at = bl.empty() ? 0 : rng() % (bl.size() + 1);
        switch (rng() % 3) {
          case 0: if (at < bl.size()) bl.erase(bl.begin() + static_cast<long>(at)); break;
          case 1: bl.insert(bl.begin() + static_cast<long>(at), alphabet[rng() % 6]); break;
          default: if (at < bl.size()) bl[at] = "v_mov_b32 v" + std::to_string(rng() % 8) + ", 0"; break;
        }
      }
      b.clear();
      for (const auto& l : bl) b += l + "\n";
    }
    const std::string d = asmevo::unified_diff(a, b, "a", "b");
    if (lines(a) == lines(b)) {
      EXPECT_EQ(d, "");
      continue;
    }
    std::string why;
    const auto got = apply(lines(a), d, why);
    ASSERT_TRUE(got) << why << "\nold:\n" << a << "new:\n" << b << "diff:\n" << d;
    ASSERT_EQ(*got, lines(b)) << "diff:\n" << d;
    std::size_t changed = 0;
    for (const auto& l : lines(d)) changed += !l.empty() && (l[0] == '+' || l[0] == '-') && l.rfind("+++", 0) && l.rfind("---", 0);
    EXPECT_LE(changed, lines(a).size() + lines(b).size());
  }
}

}  // namespace
