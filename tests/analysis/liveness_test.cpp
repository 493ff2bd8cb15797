// Tests of analysis/liveness.hpp: hand-checked live-in sets on gfx942 snippets (straight-line code, a diamond, a
// loop, implicit EXEC/VCC/SCC, a partial write, a call), and a rapidcheck property that compares every live-in set
// of random branchy programs with an independent oracle: a search, per instruction and register, for a path that
// reads the register before anything writes it, over successors worked out from the text (not from the Cfg).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/ir/parser.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::analysis;
namespace du = asmevo::analysis::detail;

// Property tests are bounded (<= 200 cases) unless RC_PARAMS says otherwise; rapidcheck prints the seed it used.
const bool rc_defaults_installed = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += " max_success=200";
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

Program parse(const std::string& text) {
  auto p = parse_program(text, Target::gfx942, "<liveness_test>");
  EXPECT_TRUE(p.has_value()) << (p ? std::string{} : p.error().str());
  return p ? std::move(*p) : Program{};
}

/// Item indexes of the instructions of `p`, in order.
std::vector<std::size_t> insts(const Program& p) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst) out.push_back(i);
  return out;
}

/// The live-in set of instruction `n` (0-based among instructions) by name, without EXEC/MODE/SCC noise unless asked.
std::set<std::string> live(const Program& p, const Liveness& L, std::size_t n, bool all = false) {
  std::set<std::string> out;
  const UnitSet s = L.live_in(insts(p)[n]);
  for (unsigned u = 0; u < s.size(); ++u)
    if (s.test(u)) {
      const std::string name = du::unit_name(u);
      if (all || (name != "exec_lo" && name != "exec_hi")) out.insert(name);
    }
  return out;
}

using S = std::set<std::string>;

TEST(Liveness, StraightLine) {
  const Program p = parse(R"(
k:
  v_add_f32_e32 v2, v0, v1
  v_mov_b32_e32 v0, 0
  global_store_dword v[4:5], v2, off
  global_store_dword v[4:5], v0, off offset:4
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  const auto L = Liveness::compute(p, g);
  EXPECT_EQ(live(p, L, 0), (S{"v0", "v1", "v4", "v5"}));  // v2 is written before it is read; v0 read first
  EXPECT_EQ(live(p, L, 1), (S{"v2", "v4", "v5"}));        // v0 is overwritten here
  EXPECT_EQ(live(p, L, 3), (S{"v0", "v4", "v5"}));
  EXPECT_EQ(live(p, L, 4), S{});
  // Every VALU and vector memory instruction reads EXEC.
  EXPECT_TRUE(live(p, L, 0, true).contains("exec_lo"));
  EXPECT_TRUE(live(p, L, 0, true).contains("exec_hi"));
}

TEST(Liveness, DiamondJoinsBothArms) {
  const Program p = parse(R"(
k:
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc0 .Lelse
  v_mov_b32_e32 v0, v1
  s_branch .Ljoin
.Lelse:
  v_mov_b32_e32 v0, v2
.Ljoin:
  global_store_dword v[4:5], v0, off
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  const auto L = Liveness::compute(p, g);
  EXPECT_EQ(live(p, L, 0), (S{"s0", "v1", "v2", "v4", "v5"}));
  EXPECT_EQ(live(p, L, 1), (S{"scc", "v1", "v2", "v4", "v5"}));  // the branch reads SCC
  EXPECT_EQ(live(p, L, 2), (S{"v1", "v4", "v5"}));
  EXPECT_EQ(live(p, L, 4), (S{"v2", "v4", "v5"}));
}

TEST(Liveness, LoopCarriesWhatTheNextIterationReads) {
  const Program p = parse(R"(
k:
  s_mov_b32 s1, 0
.Lloop:
  v_add_u32_e32 v3, s1, v3
  s_add_u32 s1, s1, 1
  s_cmp_lt_u32 s1, s2
  s_cbranch_scc1 .Lloop
  global_store_dword v[4:5], v3, off
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  const auto L = Liveness::compute(p, g);
  EXPECT_EQ(live(p, L, 0), (S{"s2", "v3", "v4", "v5"}));
  // At the back edge's target, s1 and s2 are read by the next iteration and v3 by both it and the store.
  EXPECT_EQ(live(p, L, 1), (S{"s1", "s2", "v3", "v4", "v5"}));
  EXPECT_EQ(live(p, L, 4), (S{"s1", "s2", "scc", "v3", "v4", "v5"}));  // the branch
  EXPECT_EQ(live(p, L, 5), (S{"v3", "v4", "v5"}));
}

TEST(Liveness, ImplicitVccAndPartialWrites) {
  const Program p = parse(R"(
k:
  v_cmp_gt_u32_e32 vcc, v0, v1
  v_cndmask_b32_e32 v2, v3, v4, vcc
  v_mov_b32_sdwa v2, v5 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0
  global_store_dword v[6:7], v2, off
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  const auto L = Liveness::compute(p, g);
  EXPECT_EQ(live(p, L, 0), (S{"v0", "v1", "v3", "v4", "v5", "v6", "v7"}));
  EXPECT_EQ(live(p, L, 1), (S{"vcc_lo", "vcc_hi", "v3", "v4", "v5", "v6", "v7"}));
  // SDWA that preserves the other half reads its old destination: v2 is live before it.
  EXPECT_EQ(live(p, L, 2), (S{"v2", "v5", "v6", "v7"}));
}

TEST(Liveness, CallReadsEverything) {
  const Program p = parse(R"(
k:
  v_mov_b32_e32 v9, 0
  s_swappc_b64 s[30:31], s[4:5]
  s_endpgm
)");
  const Cfg g = build_cfg(p);
  const auto L = Liveness::compute(p, g);
  const auto at_call = live(p, L, 1);
  EXPECT_TRUE(at_call.contains("v9"));
  EXPECT_TRUE(at_call.contains("a255"));
  EXPECT_FALSE(live(p, L, 0).contains("v9"));  // written right here
}

// ---- property: the fixed point equals a path search ------------------------------------------------------------

/// One generated instruction: its text, the registers it reads and writes (names as unit_name spells them), and
/// where it may go (label index for branches).
struct GenInst {
  std::string text;
  std::vector<std::string> reads, writes;
  int target = -1;      ///< label index of a branch
  bool falls = true;    ///< continues to the next instruction
};

TEST(Liveness, MatchesAPathSearchOnRandomPrograms) {
  const bool ok = rc::check("live-in sets equal a path search", [] {
    const int n = *rc::gen::inRange(3, 14);
    const int labels = *rc::gen::inRange(1, 4);
    std::vector<GenInst> code;
    for (int i = 0; i < n; ++i) {
      const int kind = *rc::gen::inRange(0, 6);
      const int a = *rc::gen::inRange(0, 4), b = *rc::gen::inRange(0, 4), d = *rc::gen::inRange(0, 4);
      const std::string va = "v" + std::to_string(a), vb = "v" + std::to_string(b), vd = "v" + std::to_string(d);
      const std::string sa = "s" + std::to_string(a), sb = "s" + std::to_string(b), sd = "s" + std::to_string(d);
      GenInst g;
      switch (kind) {
        case 0: g = {"v_add_u32_e32 " + vd + ", " + va + ", " + vb, {va, vb, "exec_lo", "exec_hi"}, {vd}}; break;
        case 1: g = {"s_add_u32 " + sd + ", " + sa + ", " + sb, {sa, sb}, {sd, "scc"}}; break;
        case 2: g = {"s_cmp_lt_u32 " + sa + ", " + sb, {sa, sb}, {"scc"}}; break;
        case 3: g = {"v_mov_b32_e32 " + vd + ", " + sa, {sa, "exec_lo", "exec_hi"}, {vd}}; break;
        case 4: {
          const int t = *rc::gen::inRange(0, labels);
          g = {"s_cbranch_scc1 .L" + std::to_string(t), {"scc"}, {}, t, true};
          break;
        }
        default: {
          const int t = *rc::gen::inRange(0, labels);
          g = {"s_branch .L" + std::to_string(t), {}, {}, t, false};
          break;
        }
      }
      code.push_back(g);
    }
    code.push_back({"global_store_dword v[4:5], v0, off", {"v0", "v4", "v5", "exec_lo", "exec_hi"}, {}});
    code.push_back({"s_endpgm", {}, {}, -1, false});
    // Each label sits before a random instruction.
    std::vector<int> label_at(static_cast<std::size_t>(labels));
    for (auto& l : label_at) l = *rc::gen::inRange(0, static_cast<int>(code.size()));
    std::string text = "k:\n";
    for (std::size_t i = 0; i < code.size(); ++i) {
      for (int l = 0; l < labels; ++l)
        if (label_at[static_cast<std::size_t>(l)] == static_cast<int>(i)) text += ".L" + std::to_string(l) + ":\n";
      text += "  " + code[i].text + "\n";
    }
    const Program p = parse(text);
    RC_ASSERT(!p.items.empty());
    const Cfg g = build_cfg(p);
    const auto L = Liveness::compute(p, g);
    const auto idx = insts(p);
    RC_ASSERT(idx.size() == code.size());
    auto succ = [&](std::size_t i) {
      std::vector<std::size_t> s;
      if (code[i].target >= 0) s.push_back(static_cast<std::size_t>(label_at[static_cast<std::size_t>(code[i].target)]));
      if (code[i].falls && i + 1 < code.size()) s.push_back(i + 1);
      return s;
    };
    auto has = [](const std::vector<std::string>& v, const std::string& x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    const std::vector<std::string> regs = {"v0", "v1", "v2", "v3", "v4", "v5", "s0", "s1", "s2", "s3", "scc",
                                           "exec_lo"};
    for (std::size_t i = 0; i < code.size(); ++i) {
      const auto got = live(p, L, i, true);
      for (const auto& r : regs) {
        // Oracle: is there a path from i that reads r before writing it?
        std::vector<char> seen(code.size(), 0);
        std::vector<std::size_t> work{i};
        bool reached = false;
        while (!work.empty() && !reached) {
          const std::size_t k = work.back();
          work.pop_back();
          if (seen[k]) continue;
          seen[k] = 1;
          if (has(code[k].reads, r)) { reached = true; break; }
          if (has(code[k].writes, r)) continue;
          for (auto s : succ(k)) work.push_back(s);
        }
        RC_ASSERT(got.contains(r) == reached);
      }
    }
  });
  EXPECT_TRUE(ok);
}

}  // namespace
