// analysis/def_use.hpp: reaching definitions across blocks and loops, per-lane vs whole-register vector writes, and
// reads reached from the kernel's entry.
#include <gtest/gtest.h>

#include <vector>

#include "asmevo/analysis/def_use.hpp"
#include "asmevo/ir/parser.hpp"

namespace asmevo::analysis {
namespace {

struct Fixture {
  Program p;
  Cfg g;
  std::uint32_t entry = 0;
  /// Item index of instruction i<id>.
  [[nodiscard]] std::size_t at(std::uint32_t id) const {
    for (std::size_t i = 0; i < p.items.size(); ++i)
      if (p.items[i].kind == Item::Kind::inst && p.items[i].inst.id.value == id) return i;
    return ~std::size_t{0};
  }
};

Fixture make(const char* text) {
  Fixture f;
  auto p = parse_program(text, Target::gfx942, "<test>");
  EXPECT_TRUE(p.has_value());
  f.p = std::move(*p);
  f.g = build_cfg(f.p);
  f.entry = *f.g.block_named("k");
  return f;
}

constexpr unsigned v(unsigned n) { return detail::unit_v0 + n; }

TEST(DefUse, LoopCarriedAndBranchJoinDefinitionsReachTheirReads) {
  const auto f = make(
      "k:\n"
      "  s_mov_b32 s2, 4\n"            // i0
      "  v_mov_b32 v1, 0\n"            // i1
      ".Lloop:\n"
      "  v_add_u32 v1, v1, v0\n"       // i2: reads v1 from i1 (first trip) or i2 (later trips)
      "  s_sub_u32 s2, s2, 1\n"        // i3: reads s2 from i0 or i3
      "  s_cmp_lg_u32 s2, 0\n"         // i4
      "  s_cbranch_scc1 .Lloop\n"      // i5
      "  v_mov_b32 v3, v1\n"           // i6
      "  s_endpgm\n");
  const auto whole = DefUse::compute(f.p, f.g, f.entry, DefUse::Lanes::whole);
  EXPECT_EQ(whole.defs(f.at(2), v(1)), (std::vector<std::size_t>{f.at(1), f.at(2)}));
  EXPECT_EQ(whole.defs(f.at(3), 2u), (std::vector<std::size_t>{f.at(0), f.at(3)}));
  EXPECT_EQ(whole.defs(f.at(6), v(1)), (std::vector<std::size_t>{f.at(2)}));
  EXPECT_EQ(whole.defs(f.at(2), v(0)), (std::vector<std::size_t>{DefUse::entry}));  // the work-item id
  EXPECT_EQ(whole.uses(f.at(2), v(1)), (std::vector<std::size_t>{f.at(2), f.at(6)}));
  // Per lane, an exec-masked write never hides the one before it: i6 may also see i1's value (and the entry's).
  const auto lanes = DefUse::compute(f.p, f.g, f.entry);
  EXPECT_EQ(lanes.defs(f.at(6), v(1)), (std::vector<std::size_t>{f.at(1), f.at(2), DefUse::entry}));
  EXPECT_EQ(lanes.defs(f.at(3), 2u), (std::vector<std::size_t>{f.at(0), f.at(3)}));  // scalar writes always kill
}

TEST(DefUse, AJoinOfAWrittenAndAnUnwrittenPathIncludesTheEntry) {
  const auto f = make(
      "k:\n"
      "  s_cmp_eq_u32 s0, 0\n"         // i0
      "  s_cbranch_scc1 .Lskip\n"      // i1
      "  s_mov_b32 s5, 1\n"            // i2
      ".Lskip:\n"
      "  s_add_u32 s6, s5, 1\n"        // i3: s5 from i2, or from the entry when the branch skipped it
      "  s_endpgm\n");
  const auto du = DefUse::compute(f.p, f.g, f.entry);
  EXPECT_EQ(du.defs(f.at(3), 5u), (std::vector<std::size_t>{f.at(2), DefUse::entry}));
  EXPECT_EQ(du.defs(f.at(3), 4u), (std::vector<std::size_t>{}));  // i3 does not read s4
  EXPECT_EQ(du.uses(f.at(0), detail::unit_scc), (std::vector<std::size_t>{f.at(1)}));
}

}  // namespace
}  // namespace asmevo::analysis
