// Tests of analysis/cfg.hpp on hand-written gfx942 snippets: the edges of conditional and unconditional branches,
// fall-through, loops, an indirect branch, an unknown label, and the reverse post-order. Every expected edge set is
// read off the snippet by hand (a branch goes to its label's block; a conditional branch also falls through;
// s_branch and s_endpgm do not).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/ir/parser.hpp"
#include "analysis/test_programs.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::analysis;

Program parse(const std::string& text) { return test::parse_gfx942(text, "<cfg_test>"); }

std::uint32_t B(const Cfg& g, const std::string& label) { return test::block_of(g, label); }

std::set<std::uint32_t> succ(const Cfg& g, std::uint32_t b) { return {g.succ[b].begin(), g.succ[b].end()}; }
std::set<std::uint32_t> pred(const Cfg& g, std::uint32_t b) { return {g.pred[b].begin(), g.pred[b].end()}; }

TEST(Cfg, DiamondEdges) {
  const Program p = parse(R"(
k:
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc0 .Lelse
.Lthen:
  v_mov_b32 v0, 1
  s_branch .Ljoin
.Lelse:
  v_mov_b32 v0, 2
.Ljoin:
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  ASSERT_EQ(g.blocks.size(), 4u);
  const auto k = B(g, "k"), t = B(g, ".Lthen"), e = B(g, ".Lelse"), j = B(g, ".Ljoin");
  EXPECT_EQ(succ(g, k), (std::set<std::uint32_t>{t, e}));  // taken -> .Lelse, fall-through -> .Lthen
  EXPECT_EQ(succ(g, t), (std::set<std::uint32_t>{j}));     // s_branch does not fall through
  EXPECT_EQ(succ(g, e), (std::set<std::uint32_t>{j}));     // falls into .Ljoin
  EXPECT_TRUE(succ(g, j).empty());                         // s_endpgm
  EXPECT_EQ(pred(g, j), (std::set<std::uint32_t>{t, e}));
  EXPECT_TRUE(g.unresolved.empty());
  // Every instruction belongs to its block.
  for (std::uint32_t b = 0; b < g.blocks.size(); ++b)
    for (const std::size_t i : g.blocks[b].insts) EXPECT_EQ(g.block_of[i], b);
}

TEST(Cfg, LoopAndReversePostOrder) {
  const Program p = parse(R"(
k:
  s_mov_b32 s0, 4
.Lloop:
  s_sub_u32 s0, s0, 1
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 .Lloop
.Lexit:
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  const auto k = B(g, "k"), l = B(g, ".Lloop"), x = B(g, ".Lexit");
  EXPECT_EQ(succ(g, k), (std::set<std::uint32_t>{l}));
  EXPECT_EQ(succ(g, l), (std::set<std::uint32_t>{l, x}));  // back edge to itself and the exit
  EXPECT_EQ(pred(g, l), (std::set<std::uint32_t>{k, l}));
  // Reverse post-order from the entry: k, then the loop, then the exit (the back edge is the only edge against it).
  EXPECT_EQ(g.reverse_post_order(k), (std::vector<std::uint32_t>{k, l, x}));
  // From the loop, the entry is not reachable.
  EXPECT_EQ(g.reverse_post_order(l), (std::vector<std::uint32_t>{l, x}));
}

TEST(Cfg, ReversePostOrderPutsEveryForwardEdgeForward) {
  // A diamond inside a loop: every edge but the back edge .Llatch -> .Lhead goes forward in the order.
  const Program p = parse(R"(
k:
  s_mov_b32 s0, 4
.Lhead:
  s_cmp_eq_u32 s1, 0
  s_cbranch_scc1 .Lright
.Lleft:
  s_add_u32 s2, s2, 1
  s_branch .Llatch
.Lright:
  s_add_u32 s2, s2, 2
.Llatch:
  s_sub_u32 s0, s0, 1
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 .Lhead
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  const auto order = g.reverse_post_order(B(g, "k"));
  ASSERT_EQ(order.size(), g.blocks.size());
  std::vector<std::size_t> pos(g.blocks.size());
  for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = i;
  const auto head = B(g, ".Lhead"), latch = B(g, ".Llatch");
  for (std::uint32_t b = 0; b < g.blocks.size(); ++b)
    for (const std::uint32_t s : g.succ[b]) {
      if (b == latch && s == head) {
        EXPECT_GT(pos[b], pos[s]);  // the back edge
        continue;
      }
      EXPECT_LT(pos[b], pos[s]) << "edge " << b << " -> " << s;
    }
  EXPECT_EQ(order.front(), B(g, "k"));
}

TEST(Cfg, IndirectBranchReachesEveryLabelledBlock) {
  const Program p = parse(R"(
k:
  s_getpc_b64 s[0:1]
  s_setpc_b64 s[0:1]
.La:
  s_endpgm
.Lb:
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  const auto k = B(g, "k"), a = B(g, ".La"), b = B(g, ".Lb");
  EXPECT_TRUE(g.indirect[k]);
  EXPECT_FALSE(g.indirect[a]);
  // Conservatively every labelled block, the entry included (MI300 ISA S_SETPC_B64: the target is a register).
  EXPECT_EQ(succ(g, k), (std::set<std::uint32_t>{k, a, b}));
}

TEST(Cfg, UnknownLabelIsUnresolved) {
  const Program p = parse(R"(
k:
  s_cbranch_scc1 .Lnowhere
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  ASSERT_EQ(g.unresolved.size(), 1u);
  EXPECT_EQ(g.unresolved[0], ".Lnowhere");
  EXPECT_EQ(g.succ[B(g, "k")].size(), 1u);  // only the fall-through
}

}  // namespace
