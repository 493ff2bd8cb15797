// Tests of analysis/loops.hpp: dominators, natural loops and their nesting, induction variables and trip counts on
// hand-written gfx942 loops (each expectation read off the snippet by hand: which blocks form the loop, what steps,
// how often the header runs), an irreducible cycle, and every kernel of the corpus, where the structural facts a
// loop must satisfy are checked on real compiled code. The trip counts are also checked against the emulator, on the
// calibration kernels under their launches (tests/verify/loop_trips_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/parser.hpp"
#include "analysis/test_programs.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::analysis;

Program parse(const std::string& text) { return test::parse_gfx942(text, "<loops_test>"); }

std::uint32_t B(const Cfg& g, const std::string& label) { return test::block_of(g, label); }

struct Found {
  Program p;
  Cfg g;
  LoopInfo li;
};
Found find(const std::string& text) {
  Found f;
  f.p = parse(text);
  f.g = build_cfg(f.p);
  f.li = find_loops(f.p, f.g, B(f.g, "k"));
  return f;
}

TEST(Loops, BottomTestedCountedLoop) {
  const auto f = find(R"(
k:
  s_mov_b32 s4, 0
  v_mov_b32 v1, 0
.Lhead:
  v_add_u32 v1, 4, v1
  global_load_dword v2, v1, s[0:1]
  s_waitcnt vmcnt(0)
  s_add_u32 s4, s4, 1
  s_cmp_lt_u32 s4, 10
  s_cbranch_scc1 .Lhead
  s_endpgm
)");
  ASSERT_EQ(f.li.loops.size(), 1u);
  const Loop& l = f.li.loops[0];
  EXPECT_EQ(l.header, B(f.g, ".Lhead"));
  EXPECT_EQ(l.blocks, std::vector<std::uint32_t>{l.header});
  EXPECT_EQ(l.latches, std::vector<std::uint32_t>{l.header});
  ASSERT_TRUE(l.preheader.has_value());
  EXPECT_EQ(*l.preheader, B(f.g, "k"));
  EXPECT_EQ(l.depth, 1u);
  ASSERT_EQ(l.ivs.size(), 2u);
  const Induction* s4 = l.iv_of(4);
  const Induction* v1 = l.iv_of(analysis::detail::unit_v0 + 1);
  ASSERT_TRUE(s4 && v1);
  EXPECT_TRUE(s4->step.is_const && s4->step.value == 1);
  EXPECT_TRUE(v1->vector && v1->step.is_const && v1->step.value == 4);
  ASSERT_TRUE(l.trip.has_value()) << l.no_trip;
  const TripCount& t = *l.trip;
  EXPECT_EQ(l.ivs[t.iv].unit, 4u);
  EXPECT_TRUE(t.after_update);
  EXPECT_TRUE(t.continue_if);
  EXPECT_TRUE(t.bound.is_const && t.bound.value == 10);
  EXPECT_EQ(t.evaluate(0, 1, 10), 10u) << "s4 = 1..10, the tenth compare fails";
  EXPECT_EQ(t.evaluate(9, 1, 10), 1u) << "a do-while runs once even when the bound is met";
  EXPECT_EQ(t.evaluate(0, 0, 10, 1000), std::nullopt) << "a step of 0 never leaves: past the cap, no count";
  std::printf("[loops] %s\n", t.symbolic(l.ivs[t.iv]).c_str());
}

TEST(Loops, TopTestedLoopWithAKernargBound) {
  // while (s4 < s6) { ...; s4 += 2 } : tested in the header, the exit taken on scc1 of s_cmp_ge_i32.
  const auto f = find(R"(
k:
  s_mov_b32 s4, 0
.Lhead:
  s_cmp_ge_i32 s4, s6
  s_cbranch_scc1 .Lexit
  v_add_u32 v1, s4, v1
  s_add_i32 s4, s4, 2
  s_branch .Lhead
.Lexit:
  s_endpgm
)");
  ASSERT_EQ(f.li.loops.size(), 1u);
  const Loop& l = f.li.loops[0];
  EXPECT_EQ(l.blocks.size(), 2u);
  ASSERT_EQ(l.exits.size(), 1u);
  EXPECT_EQ(l.exits[0].second, B(f.g, ".Lexit"));
  ASSERT_TRUE(l.trip.has_value()) << l.no_trip;
  const TripCount& t = *l.trip;
  EXPECT_TRUE(t.at_header);
  EXPECT_FALSE(t.after_update);
  EXPECT_FALSE(t.continue_if) << "the loop goes on while s4 >= s6 is false";
  EXPECT_TRUE(t.is_signed);
  EXPECT_FALSE(t.bound.is_const);
  EXPECT_EQ(t.bound.unit, 6u);
  EXPECT_EQ(t.evaluate(0, 2, 7), 5u) << "s4 = 0, 2, 4, 6 enter the body; 8 leaves: the header runs 5 times";
  EXPECT_EQ(t.evaluate(0, 2, 0), 1u) << "a bound of 0: the header runs once, the body never";
  EXPECT_EQ(t.evaluate(0, 2, static_cast<std::uint32_t>(-3)), 1u) << "signed compare: 0 >= -3";
}

TEST(Loops, CountDownLoopAndASubtractedStep) {
  const auto f = find(R"(
k:
.Lhead:
  v_add_u32 v1, 1, v1
  s_sub_u32 s5, s5, 1
  s_cmp_lg_u32 s5, 0
  s_cbranch_scc1 .Lhead
  s_endpgm
)");
  ASSERT_EQ(f.li.loops.size(), 1u);
  const Loop& l = f.li.loops[0];
  EXPECT_FALSE(l.entered_from.has_value()) << "the kernel entry is the header: nothing outside enters it";
  const Induction* s5 = l.iv_of(5);
  ASSERT_TRUE(s5);
  EXPECT_EQ(s5->step.value, 0xffffffffu) << "s5 - 1 is a step of -1";
  ASSERT_TRUE(l.trip.has_value()) << l.no_trip;
  EXPECT_EQ(l.trip->evaluate(7, 0xffffffffu, 0), 7u);
}

TEST(Loops, NestingDepthsAndParents) {
  const auto f = find(R"(
k:
  s_mov_b32 s4, 0
.Louter:
  s_mov_b32 s5, 0
.Linner:
  v_add_u32 v1, 1, v1
  s_add_u32 s5, s5, 1
  s_cmp_lg_u32 s5, 8
  s_cbranch_scc1 .Linner
  s_add_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 3
  s_cbranch_scc1 .Louter
  s_endpgm
)");
  ASSERT_EQ(f.li.loops.size(), 2u);
  const Loop& outer = f.li.loops[0];
  const Loop& inner = f.li.loops[1];
  EXPECT_EQ(outer.header, B(f.g, ".Louter"));
  EXPECT_EQ(inner.header, B(f.g, ".Linner"));
  EXPECT_EQ(outer.depth, 1u);
  EXPECT_EQ(inner.depth, 2u);
  EXPECT_EQ(inner.parent, 0u);
  for (const auto b : inner.blocks) EXPECT_TRUE(outer.contains(b));
  EXPECT_EQ(f.li.innermost[inner.header], 1u);
  // v1 steps in the inner loop only: for the outer loop it is written in an inner loop, so not once per iteration.
  EXPECT_EQ(outer.iv_of(analysis::detail::unit_v0 + 1), nullptr);
  EXPECT_NE(inner.iv_of(analysis::detail::unit_v0 + 1), nullptr);
  // s5 is reset in every outer iteration: written twice in the outer loop, an IV of the inner one only.
  EXPECT_EQ(outer.iv_of(5), nullptr);
  ASSERT_TRUE(inner.trip && outer.trip);
  EXPECT_EQ(inner.trip->evaluate(0, 1, 8), 8u);
  EXPECT_EQ(outer.trip->evaluate(0, 1, 3), 3u);
}

TEST(Loops, TwoExitsHaveNoTripCountAndSayWhy) {
  const auto f = find(R"(
k:
  s_mov_b32 s4, 0
.Lhead:
  s_cmp_eq_u32 s7, 0
  s_cbranch_scc1 .Lout
  s_add_u32 s4, s4, 1
  s_cmp_lt_u32 s4, 16
  s_cbranch_scc1 .Lhead
.Lout:
  s_endpgm
)");
  ASSERT_EQ(f.li.loops.size(), 1u);
  EXPECT_FALSE(f.li.loops[0].trip.has_value());
  EXPECT_EQ(f.li.loops[0].no_trip, "2 exits");
}

TEST(Loops, AnIrreducibleCycleIsNamedNotTakenForALoop) {
  // .La and .Lb form a cycle entered at both: neither dominates the other.
  const auto f = find(R"(
k:
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc1 .Lb
.La:
  v_add_u32 v1, 1, v1
.Lb:
  v_add_u32 v2, 1, v2
  s_cmp_lg_u32 s1, 0
  s_cbranch_scc1 .La
  s_endpgm
)");
  EXPECT_TRUE(f.li.loops.empty());
  ASSERT_EQ(f.li.irreducible.size(), 1u);
  const auto [from, to] = f.li.irreducible[0];
  const auto a = B(f.g, ".La"), b = B(f.g, ".Lb");
  EXPECT_TRUE((from == a && to == b) || (from == b && to == a)) << "the retreating edge of the a-b cycle";
}

TEST(Dominators, DiamondAndLoop) {
  const auto f = find(R"(
k:
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc1 .Lelse
  v_mov_b32 v1, 1
  s_branch .Ljoin
.Lelse:
  v_mov_b32 v1, 2
.Ljoin:
  s_endpgm
)");
  const auto& d = f.li.dom;
  const auto k = B(f.g, "k"), e = B(f.g, ".Lelse"), j = B(f.g, ".Ljoin");
  EXPECT_TRUE(d.dominates(k, j));
  EXPECT_FALSE(d.dominates(e, j));
  EXPECT_EQ(d.idom[j], k);
  EXPECT_TRUE(d.dominates(j, j));
}

/// The facts every natural loop satisfies, on `li` of kernel entry `entry`.
void expect_well_formed(const Cfg& g, const LoopInfo& li) {
  for (std::size_t i = 0; i < li.loops.size(); ++i) {
    const Loop& l = li.loops[i];
    ASSERT_TRUE(l.contains(l.header));
    for (const auto b : l.blocks) EXPECT_TRUE(li.dom.dominates(l.header, b)) << "header dominates block " << b;
    ASSERT_FALSE(l.latches.empty());
    for (const auto lt : l.latches) {
      EXPECT_TRUE(l.contains(lt));
      EXPECT_NE(std::find(g.succ[lt].begin(), g.succ[lt].end(), l.header), g.succ[lt].end());
    }
    for (const auto& [in, out] : l.exits) EXPECT_TRUE(l.contains(in) && !l.contains(out));
    // Every block of the loop other than the header has all its predecessors inside.
    for (const auto b : l.blocks)
      if (b != l.header)
        for (const auto q : g.pred[b])
          if (li.dom.reachable(q)) EXPECT_TRUE(l.contains(q)) << "block " << b << " entered from outside";
    if (l.parent != Loop::npos) {
      const Loop& up = li.loops[l.parent];
      for (const auto b : l.blocks) EXPECT_TRUE(up.contains(b));
      EXPECT_EQ(l.depth, up.depth + 1);
    }
    for (const auto& v : l.ivs) EXPECT_TRUE(l.contains(v.update_block));
    if (l.trip) {
      EXPECT_LT(l.trip->iv, l.ivs.size());
      EXPECT_FALSE(l.ivs[l.trip->iv].vector);
    } else {
      EXPECT_FALSE(l.no_trip.empty());
    }
  }
}

TEST(LoopsCorpus, EveryCorpusKernelsLoopsAreWellFormed) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  namespace fs = std::filesystem;
  std::size_t kernels = 0, loops = 0, with_trip = 0, ivs = 0, irreducible = 0;
  for (const char* dir : {"triton", "inductor-dev", "triton-cache", "aiter-co", "debian-rocr-blit-co"})
    for (const auto& f : test::code_objects(corpus / dir)) {
      if (f.filename().string().find("gfx908") != std::string::npos) continue;
      SCOPED_TRACE(fs::relative(f, corpus).string());
      const auto* obj = emu::test::cached_object(f.string());
      ASSERT_NE(obj, nullptr);
      const Program& p = obj->module.program;
      const Cfg g = build_cfg(p);
      for (const auto& k : obj->module.kernels) {
        const auto e = g.block_named(k.name);
        ASSERT_TRUE(e.has_value()) << k.name;
        const LoopInfo li = find_loops(p, g, *e);
        expect_well_formed(g, li);
        ++kernels;
        loops += li.loops.size();
        irreducible += li.irreducible.size();
        for (const auto& l : li.loops) with_trip += l.trip.has_value(), ivs += l.ivs.size();
      }
    }
  EXPECT_GT(kernels, 150u);
  EXPECT_GT(loops, 0u) << "the corpus has loops (aiter's GEMM and attention kernels)";
  EXPECT_GT(with_trip, 0u);
  std::printf("[loops corpus] %zu kernels: %zu loops, %zu with a trip count, %zu induction variables, %zu irreducible "
              "edges\n",
              kernels, loops, with_trip, ivs, irreducible);
}

}  // namespace
