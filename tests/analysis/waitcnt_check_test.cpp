// Tests of analysis/waitcnt_check.hpp. Snippets (gfx942) whose answers are derived by hand from the counter rules
// of the MI300 ISA (CDNA3) §4.4 "S_WAITCNT" and LLVM's SIInsertWaitcnts (vmcnt in order; SMEM out of order; FLAT
// on both counters; a join needs the strongest wait of its paths), then the corpus: every Triton kernel (LLVM output:
// no findings), a Triton kernel with one needed s_waitcnt deleted (the finding names the load and the reader read
// off the kernel's text), and the aiter kernels (production code: the counts the report explains).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace {

namespace fs = std::filesystem;
using namespace asmevo;
using namespace asmevo::analysis;

struct Checked {
  Program p;
  Findings f;
  /// The mnemonic of an instruction by id.
  std::string mnem(InstId id) const {
    const Inst* in = p.find(id);
    return in ? std::string(isa::forms(in->target)[in->form].mnemonic) : std::string("?");
  }
  /// The id of the n-th instruction (0-based) of the snippet.
  InstId nth(std::size_t n) const {
    for (const auto& it : p.items)
      if (it.kind == Item::Kind::inst && n-- == 0) return it.inst.id;
    return InstId{~0u};
  }
};

Checked check(const std::string& body, Target t = Target::gfx942) {
  Checked c;
  auto p = parse_program("k:\n" + body, t, "<waitcnt_test>");
  EXPECT_TRUE(p.has_value()) << (p ? std::string{} : p.error().message);
  if (!p) return c;
  c.p = std::move(*p);
  const Cfg g = build_cfg(c.p);
  c.f = check_waitcnt(c.p, g, g.block_named("k").value(), t);
  return c;
}

std::string all(const Findings& f) {
  std::string s;
  for (const auto& x : f) s += "[" + x.rule + "] " + x.message + "\n";
  return s;
}

// ---- straight line ----------------------------------------------------------------------------------------------

TEST(WaitcntCheck, InOrderVmcntCoversTheOlderLoadOnly) {
  // Two loads; vmcnt(1) leaves at most the younger outstanding, and vmcnt is in order: v1 is ready, v4 is not.
  auto c = check(R"(
  global_load_dword v1, v[2:3], off
  global_load_dword v4, v[2:3], off
  s_waitcnt vmcnt(1)
  v_add_u32 v5, v1, v1
  v_add_u32 v6, v4, v4
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].rule, "waitcnt");
  EXPECT_EQ(c.f[0].at, c.nth(4));     // v_add_u32 v6, v4, v4
  EXPECT_EQ(c.f[0].other, c.nth(1));  // the second load
  EXPECT_NE(c.f[0].message.find("v4"), std::string::npos) << c.f[0].message;
  EXPECT_NE(c.f[0].message.find("vmcnt(0)"), std::string::npos) << c.f[0].message;
  EXPECT_NE(c.f[0].message.find("global_load_dword"), std::string::npos) << c.f[0].message;
  EXPECT_NE(c.f[0].message.find("v_add_u32"), std::string::npos) << c.f[0].message;
}

TEST(WaitcntCheck, NeededCountIsTheNumberOfLaterEvents) {
  // A store counts in vmcnt on gfx9 too: after the load of v1 come a store and another load, so reading v1 needs
  // vmcnt(2); vmcnt(3) is not enough.
  auto c = check(R"(
  global_load_dword v1, v[2:3], off
  global_store_dword v[2:3], v7, off
  global_load_dword v4, v[2:3], off
  s_waitcnt vmcnt(3)
  v_add_u32 v5, v1, v1
  s_waitcnt vmcnt(2)
  v_add_u32 v6, v1, v1
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].at, c.nth(4));
  EXPECT_NE(c.f[0].message.find("vmcnt(2)"), std::string::npos) << c.f[0].message;
}

TEST(WaitcntCheck, EndOfProgramNeedsNoWait) {
  auto c = check(R"(
  global_load_dword v1, v[2:3], off
  s_load_dword s4, s[0:1], 0x0
  s_endpgm
)");
  EXPECT_TRUE(c.f.empty()) << all(c.f);
}

// ---- joins and loops --------------------------------------------------------------------------------------------

TEST(WaitcntCheck, ACallCompletesNothing) {
  // A callee that returns at once (s_setpc_b64 back to the return address) waits for nothing: the load's result read
  // after the call needs a wait of its own. LLVM's callees do wait on entry, but one kernel's analysis cannot see that.
  const auto c = check(R"(
  global_load_dword v1, v[2:3], off
  s_getpc_b64 s[30:31]
  s_add_u32 s30, s30, 8
  s_addc_u32 s31, s31, 0
  s_swappc_b64 s[30:31], s[30:31]
  v_add_u32_e32 v4, v1, v1
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].at, c.nth(5));
  EXPECT_EQ(c.f[0].other, c.nth(0));
}

TEST(WaitcntCheck, DiamondCoveredOnOnePathOnly) {
  // The then-path waits, the else-path does not: the read after the join is not covered on every path.
  const std::string uncovered = R"(
  global_load_dword v1, v[2:3], off
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc0 .Lelse
  s_waitcnt vmcnt(0)
  s_branch .Ljoin
.Lelse:
  s_nop 0
.Ljoin:
  v_add_u32 v5, v1, v1
  s_endpgm
)";
  auto c = check(uncovered);
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.mnem(c.f[0].at), "v_add_u32");
  EXPECT_EQ(c.f[0].other, c.nth(0));
  // Waiting on both paths covers it.
  std::string both = uncovered;
  both.replace(both.find("s_nop 0"), 7, "s_waitcnt vmcnt(0)");
  EXPECT_TRUE(check(both).f.empty()) << all(check(both).f);
}

TEST(WaitcntCheck, JoinTakesTheStrongerWait) {
  // Path A: load v1 then one more load (v1 needs vmcnt(1)); path B: load v1 last (needs vmcnt(0)). After the join
  // vmcnt(1) is not enough, vmcnt(0) is.
  const std::string text = R"(
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc0 .Lb
  global_load_dword v1, v[2:3], off
  global_load_dword v4, v[2:3], off
  s_branch .Ljoin
.Lb:
  global_load_dword v4, v[2:3], off
  global_load_dword v1, v[2:3], off
.Ljoin:
  s_waitcnt vmcnt(1)
  v_add_u32 v5, v1, v1
  s_endpgm
)";
  auto c = check(text);
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].other, c.nth(6));  // path B's load of v1, the one needing vmcnt(0)
  EXPECT_NE(c.f[0].message.find("vmcnt(0)"), std::string::npos) << c.f[0].message;
  std::string fixed = text;
  fixed.replace(fixed.find("vmcnt(1)"), 8, "vmcnt(0)");
  EXPECT_TRUE(check(fixed).f.empty()) << all(check(fixed).f);
}

TEST(WaitcntCheck, LoopCarriedPendingLoad) {
  // The load at the bottom of the loop is read at its top on the next iteration: the first iteration is clean,
  // the back edge is not.
  const std::string text = R"(
  v_mov_b32 v1, 0
.Lloop:
  v_add_u32 v5, v1, v1
  global_load_dword v1, v[2:3], off
  s_sub_u32 s0, s0, 1
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 .Lloop
  s_endpgm
)";
  auto c = check(text);
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].at, c.nth(1));
  EXPECT_EQ(c.f[0].other, c.nth(2));
  std::string fixed = text;
  fixed.replace(fixed.find("  s_sub_u32"), 0, "  s_waitcnt vmcnt(0)\n");
  EXPECT_TRUE(check(fixed).f.empty()) << all(check(fixed).f);
}

// ---- path refinement: paths the scalar code rules out ------------------------------------------------------------

// A loop unrolled by two (s39 += 32 per half, leaving when s39 >= s38), guarded so that it runs only when
// 0 < s38, and an epilogue that picks its half by the parity of ceil(s38 / 32) = ((s38 + 31) >> 5) & 1 (the shape of
// aiter's fmha_fwd kernels). Each half loads one register; the epilogue half reads the OLDER of the two loads, which
// vmcnt(1) covers. Worked by hand from the MI300 ISA (CDNA3) opcode descriptions (S_CMP_LT_I32: SCC = signed S0 < S1;
// S_ADD_U32: D = S0 + S1 mod 2^32; S_LSHR_B32: D = S0 >> S1[4:0]; S_AND_B32; S_CBRANCH_SCC0: jump iff SCC = 0):
//  - leaving after the first half: s39 = 32 + 64k and s39 - 32 < s38 <= s39 (the previous test passed, this one
//    failed), so ceil(s38 / 32) = s39 / 32 = 2k + 1 is odd and s40 = 1: the jump to .Lodd is taken. The last load is
//    v224 and .Lodd reads v228 (loaded before it, or never): covered.
//  - leaving after the second half: s39 = 64 + 64k, ceil(s38 / 32) = 2k + 2 is even, s40 = 0: fall through to the
//    even half, which reads v224 (older than the last load v228): covered.
// A path-insensitive checker also sees "first-half exit, then the even half" (reads v224, the last load: needs
// vmcnt(0)) and "second-half exit, then .Lodd" (reads v228, the last load): two findings no execution produces.
const std::string parity_loop = R"(
  s_mov_b32 s39, 0
  s_cmp_lt_i32 s39, s38
  s_cbranch_scc0 .Ldone
.Lloop:
  global_load_dword v224, v[2:3], off
  s_addk_i32 s39, 0x20
  s_cmp_lt_i32 s39, s38
  s_cbranch_scc0 .Lexit
  global_load_dword v228, v[2:3], off
  s_addk_i32 s39, 0x20
  s_cmp_lt_i32 s39, s38
  s_cbranch_scc0 .Lexit
  s_branch .Lloop
.Lexit:
  s_add_u32 s40, s38, 31
  s_lshr_b32 s40, s40, 5
  s_and_b32 s40, 1, s40
  s_cmp_lt_i32 s40, 1
  s_cbranch_scc0 .Lodd
  s_waitcnt vmcnt(1)
  v_mov_b32 v0, v224
  s_endpgm
.Lodd:
  s_waitcnt vmcnt(1)
  v_mov_b32 v0, v228
  s_endpgm
.Ldone:
  s_endpgm
)";

/// parity_loop with `from` replaced by `to` (which must occur).
std::string parity_variant(std::string_view from, std::string_view to) {
  std::string s = parity_loop;
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

/// The (reader, load) pairs of the findings, as instruction indexes of the snippet.
std::set<std::pair<std::size_t, std::size_t>> pairs(const Checked& c) {
  std::set<std::pair<std::size_t, std::size_t>> out;
  for (const Finding& f : c.f) {
    std::size_t at = ~std::size_t{0}, other = ~std::size_t{0};
    for (std::size_t n = 0; n < 64; ++n) {
      if (c.nth(n) == f.at) at = n;
      if (f.other && c.nth(n) == *f.other) other = n;
    }
    out.emplace(at, other);
  }
  return out;
}

TEST(WaitcntPaths, ParityDispatchAfterALoopUnrolledByTwoIsClean) {
  auto c = check(parity_loop);
  EXPECT_TRUE(c.f.empty()) << all(c.f);
}

TEST(WaitcntPaths, DispatchOnAnotherBitKeepsTheFindings) {
  // (s38 + 31) >> 6: bit 6 of s39 + [0, 31], which is not fixed by which half left (s38 = 32 leaves after the first
  // half with s40 = 0 and falls through to read v224, the last load). Both readers keep their finding: the even
  // half's read of v224 (instruction 18) against the first-half load (3), .Lodd's read of v228 (21) against the
  // second-half load (7).
  auto c = check(parity_variant("s_lshr_b32 s40, s40, 5", "s_lshr_b32 s40, s40, 6"));
  const std::set<std::pair<std::size_t, std::size_t>> expected{{18, 3}, {21, 7}};
  EXPECT_EQ(pairs(c), expected) << all(c.f);
  EXPECT_EQ(c.mnem(c.nth(18)), "v_mov_b32");
  EXPECT_EQ(c.mnem(c.nth(3)), "global_load_dword");
}

TEST(WaitcntPaths, DispatchOnAnUnrelatedRegisterKeepsTheFindings) {
  auto c = check(parity_variant("s_add_u32 s40, s38, 31", "s_add_u32 s40, s37, 31"));
  const std::set<std::pair<std::size_t, std::size_t>> expected{{18, 3}, {21, 7}};
  EXPECT_EQ(pairs(c), expected) << all(c.f);
}

TEST(WaitcntPaths, DispatchWithTheWrongPolarityIsReported) {
  // s_cbranch_scc1: the odd trip counts fall through to read v224 right after loading it (first-half exit) and the
  // even ones jump to read v228 right after loading it. Both are real, and both are reported.
  auto c = check(parity_variant("s_cbranch_scc0 .Lodd", "s_cbranch_scc1 .Lodd"));
  const std::set<std::pair<std::size_t, std::size_t>> expected{{18, 3}, {21, 7}};
  EXPECT_EQ(pairs(c), expected) << all(c.f);
}

TEST(WaitcntPaths, WithoutTheGuardAZeroTripBoundIsARealPath) {
  // Without `s39 < s38` before the loop, s38 = 0 runs the first half once, leaves (32 >= 0), and (0 + 31) >> 5 = 0
  // falls through to read v224 with only vmcnt(1): a real missing wait, which must stay reported.
  auto c = check(parity_variant("  s_cmp_lt_i32 s39, s38\n  s_cbranch_scc0 .Ldone\n", ""));
  bool found = false;
  for (const Finding& f : c.f) found |= f.at == c.nth(16) && f.other == c.nth(1);
  EXPECT_TRUE(found) << all(c.f);
  EXPECT_EQ(c.mnem(c.nth(16)), "v_mov_b32");
}

TEST(WaitcntPaths, AnOverwrittenBoundIsNotTrusted) {
  // s38 changes after the loop (to an unknown value): the exit facts no longer describe it.
  auto c = check(parity_variant(".Lexit:\n", ".Lexit:\n  s_mov_b32 s38, s36\n"));
  const std::set<std::pair<std::size_t, std::size_t>> expected{{19, 3}, {22, 7}};
  EXPECT_EQ(pairs(c), expected) << all(c.f);
}

TEST(WaitcntPaths, APendingScalarLoadIsNotTrusted) {
  // An SMEM load into s40 that nothing waits for: it may land after the dispatch computes s40 (SMEM completes out
  // of order, only lgkmcnt(0) proves it done), so s40 may hold the loaded value at the compare.
  auto c = check(parity_variant(".Lexit:\n", ".Lexit:\n  s_load_dword s40, s[0:1], 0x0\n"));
  std::set<std::pair<std::size_t, std::size_t>> vm;
  for (const auto& pr : pairs(c))
    if (pr.second == 3 || pr.second == 7) vm.insert(pr);
  const std::set<std::pair<std::size_t, std::size_t>> expected{{19, 3}, {22, 7}};
  EXPECT_EQ(vm, expected) << all(c.f);
}

TEST(WaitcntPaths, AnAlwaysTakenBranchPrunesTheOtherEdge) {
  // S_CMP_GE_U32 s0, 0 is true for every s0 (unsigned), so the fall-through (a load never waited for) is dead;
  // S_CMP_GE_I32 s0, 0 is not.
  const std::string text = R"(
  s_cmp_ge_u32 s0, 0
  s_cbranch_scc1 .Lskip
  global_load_dword v1, v[2:3], off
.Lskip:
  v_mov_b32 v0, v1
  s_endpgm
)";
  EXPECT_TRUE(check(text).f.empty()) << all(check(text).f);
  std::string signed_ = text;
  signed_.replace(signed_.find("s_cmp_ge_u32"), 12, "s_cmp_ge_i32");
  EXPECT_EQ(check(signed_).f.size(), 1u) << all(check(signed_).f);
}

TEST(WaitcntPaths, AnAddThatMayWrapIsNotShiftedExactly) {
  // After `s1 > 0xfff0` (unsigned), `s1 += 0x20` wraps for s1 >= 0xffffffe0 (S_ADD_U32 is mod 2^32): s1 = 0xffffffff
  // becomes 0x1f, so the later `s1 < 0x20` can hold and the load's unwaited read is reachable: reported. Shifting
  // the bound exactly (s1 >= 0x10011) would wrongly drop it.
  const std::string wraps = R"(
  s_cmpk_gt_u32 s1, 0xfff0
  s_cbranch_scc0 .Lend
  s_add_u32 s1, s1, 0x20
  s_cmpk_lt_u32 s1, 0x20
  s_cbranch_scc0 .Lend
  global_load_dword v1, v[2:3], off
  v_mov_b32 v0, v1
.Lend:
  s_endpgm
)";
  EXPECT_EQ(check(wraps).f.size(), 1u) << all(check(wraps).f);
  // Bounded on both sides instead (0x40 < s1 < 0x1000): no wrap,
  // s1 + 0x20 is in [0x61, 0x101f], never below 0x20, so the load path is dead and nothing is reported.
  std::string bounded = wraps;
  bounded.replace(bounded.find("0xfff0"), 6, "0x40");
  bounded.replace(bounded.find("  s_add_u32"), 0, "  s_cmpk_lt_u32 s1, 0x1000\n  s_cbranch_scc0 .Lend\n");
  EXPECT_TRUE(check(bounded).f.empty()) << all(check(bounded).f);
}

// ---- path refinement, adversarial: a real path to an unwaited read that a wrong scalar fact would prune ------------
//
// Each snippet below reaches `v_mov_b32 v0, v1` right after `global_load_dword v1` (no s_waitcnt) on a path that some
// execution takes, guarded by SCC branches whose outcome a wrong model of an instruction would "prove" impossible.
// The expected answer (exactly that one vmcnt finding) is worked by hand from the MI300 ISA (CDNA3) opcode
// descriptions of the SALU instructions used (S_CMPK_*: SCC = S0 <op> SIMM16, sign-extended for _I32 and
// zero-extended for _U32; S_ADDK_I32 / S_MOVK_I32 / S_CMOVK_I32: signext(SIMM16); shifts use S1[4:0]; S_CSELECT_B32:
// D = SCC ? S0 : S1; S_CBRANCH_SCC0/1 jump iff SCC = 0/1; S_CBRANCH_VCCZ/EXECZ test VCC/EXEC, not SCC).

/// The findings that name the global_load_dword as the load and v_mov_b32 as the reader.
std::size_t unwaited_vmov_reads(const Checked& c) {
  std::size_t n = 0;
  for (const Finding& f : c.f)
    if (f.other && c.mnem(*f.other) == "global_load_dword" && c.mnem(f.at) == "v_mov_b32") ++n;
  return n;
}

/// `head`, then: if (s0 > 20) { load v1; read v1 }. The head ends with SCC/facts that a wrong model would turn into
/// "s0 < 10" on the fall-through, making the guarded read look dead.
std::string guarded_read(std::string_view head) {
  return std::string(head) + R"(
  s_cmpk_gt_u32 s0, 20
  s_cbranch_scc0 .Lend
  global_load_dword v1, v[2:3], off
  v_mov_b32 v0, v1
.Lend:
  s_endpgm
)";
}

TEST(WaitcntPathsAdversarial, ACompareOperandWrittenBeforeTheBranchIsNotTrusted) {
  // `s_cmpk_lt_u32 s0, 10` sets SCC from the OLD s0; each write below changes s0 (and none of them writes SCC, or
  // writes it as noted) before the branch, so the fall-through says nothing about the new s0, which can be > 20.
  const std::pair<const char*, const char*> writers[] = {
      {"s_mov_b32", "  s_mov_b32 s0, 100\n"},
      {"s_movk_i32", "  s_movk_i32 s0, 0x64\n"},
      {"v_readfirstlane_b32", "  v_readfirstlane_b32 s0, v5\n"},
      {"v_readlane_b32", "  v_readlane_b32 s0, v5, 3\n"},
      {"v_cmp_e64 (pair)", "  v_cmp_eq_u32_e64 s[0:1], v5, v6\n"},
      {"v_add_co_u32 carry-out", "  v_add_co_u32_e64 v4, s[0:1], v5, v6\n"},
      {"s_mov_b64", "  s_mov_b64 s[0:1], s[8:9]\n"},
      {"s_getpc_b64", "  s_getpc_b64 s[0:1]\n"},
      {"s_bitset1_b32 (bit 5)", "  s_bitset1_b32 s0, 5\n"},
      // On the fall-through SCC = 1 (old s0 < 10), so the conditional moves do move: s0 = 100.
      {"s_cmovk_i32", "  s_cmovk_i32 s0, 0x64\n"},
      {"s_cmov_b32", "  s_cmov_b32 s0, 0x64\n"},
      {"s_cselect_b32", "  s_cselect_b32 s0, 0x64, s0\n"},
      {"s_mulk_i32", "  s_mulk_i32 s0, 0x40\n"},
      {"s_movrels_b32", "  s_movrels_b32 s0, s8\n"},
      {"s_getreg_b32", "  s_getreg_b32 s0, hwreg(HW_REG_HW_ID)\n"},
      {"s_load + wait", "  s_load_dword s0, s[4:5], 0x0\n  s_waitcnt lgkmcnt(0)\n"},
      // The gfx9 branch stack lives in SGPRs: S_CBRANCH_I_FORK writes SGPR[CSP*4 ..] (GCN3/Vega ISA), which LLVM
      // does not list as a def.
      {"s_cbranch_i_fork", "  s_cbranch_i_fork s[6:7], .Lend\n"},
  };
  for (const auto& [name, w] : writers) {
    SCOPED_TRACE(name);
    const auto c = check(guarded_read(std::string("  s_cmpk_lt_u32 s0, 10\n") + w + "  s_cbranch_scc0 .Lend\n"));
    EXPECT_EQ(unwaited_vmov_reads(c), 1u) << all(c.f);
  }
}

TEST(WaitcntPathsAdversarial, AnSccWriterBetweenCompareAndBranchReplacesTheCompare) {
  // SCC is written again before the branch (the new value can be 1 with s0 > 20): the fall-through of
  // s_cbranch_scc0 no longer means s0 < 10. Each writer is one whose SCC can be 1 here.
  const char* writers[] = {
      "  s_add_u32 s1, s1, -1\n",          // carry
      "  s_addc_u32 s1, s1, -1\n",         // carry (carry-in is 0 when s0 >= 10)
      "  s_sub_u32 s1, 0, s1\n",           // borrow
      "  s_add_i32 s1, s1, 1\n",           // signed overflow
      "  s_addk_i32 s1, 0x1\n",            // signed overflow
      "  s_min_u32 s1, s1, s2\n",          // S0 chosen
      "  s_max_i32 s1, s1, s2\n",
      "  s_bfe_u32 s1, s1, 0x80000\n",     // D != 0
      "  s_bitcmp1_b32 s1, 3\n",
      "  s_bitcmp0_b32 s1, 3\n",
      "  s_cmp_eq_u64 s[4:5], s[4:5]\n",   // always 1
      "  s_cmp_lg_u64 s[4:5], 0\n",
      "  s_and_b64 s[6:7], s[4:5], -1\n",
      "  s_and_saveexec_b64 s[6:7], s[4:5]\n",
      "  s_abs_i32 s1, s1\n",
      "  s_bcnt1_i32_b32 s1, s1\n",
      "  s_lshl1_add_u32 s1, s1, s2\n",
      "  s_lshl_b64 s[6:7], s[4:5], 1\n",
      "  s_not_b64 s[6:7], s[4:5]\n",
      "  s_cmp_lt_u32 s1, s2\n",
      "  s_cmpk_eq_u32 s1, 0x7\n",
  };
  for (const char* w : writers) {
    SCOPED_TRACE(w);
    const auto c = check(guarded_read(std::string("  s_cmpk_lt_u32 s0, 10\n") + w + "  s_cbranch_scc0 .Lend\n"));
    EXPECT_EQ(unwaited_vmov_reads(c), 1u) << all(c.f);
  }
}

TEST(WaitcntPathsAdversarial, BranchesOnVccOrExecDoNotUseScc) {
  // SCC = (s0 < 10), but the branch tests VCC / EXEC: its fall-through says nothing about s0.
  for (const char* br : {"s_cbranch_vccz", "s_cbranch_vccnz", "s_cbranch_execz", "s_cbranch_execnz"}) {
    SCOPED_TRACE(br);
    const auto c = check(guarded_read(std::string("  s_cmpk_lt_u32 s0, 10\n  ") + br + " .Lend\n"));
    EXPECT_EQ(unwaited_vmov_reads(c), 1u) << all(c.f);
  }
}

TEST(WaitcntPathsAdversarial, ScalarLoadsAreUnknownUntilWaitedFor) {
  // (a) The compare reads s0 while the load into it is outstanding: it may see the old value (5) and the load
  //     land (50) before the second compare.
  // (b) s0 is overwritten with 5 while a load into it is outstanding: the load may land after the move.
  // (c) An lgkmcnt(1) wait does not prove an SMEM load complete (SMEM returns out of order).
  const char* heads[] = {
      "  s_mov_b32 s0, 5\n  s_load_dword s0, s[4:5], 0x0\n  s_cmpk_lt_u32 s0, 10\n  s_waitcnt lgkmcnt(0)\n"
      "  s_cbranch_scc0 .Lend\n",
      "  s_load_dword s0, s[4:5], 0x0\n  s_mov_b32 s0, 5\n  s_waitcnt lgkmcnt(0)\n",
      "  s_mov_b32 s0, 5\n  s_load_dword s0, s[4:5], 0x0\n  s_load_dword s9, s[4:5], 0x4\n  s_waitcnt lgkmcnt(1)\n"
      "  s_cmpk_lt_u32 s0, 10\n  s_cbranch_scc0 .Lend\n",
      "  s_mov_b32 s0, 5\n  s_load_dwordx4 s[0:3], s[4:5], 0x0\n  s_waitcnt lgkmcnt(0)\n",
      "  s_mov_b32 s0, 5\n  s_buffer_load_dword s0, s[8:11], 0x0\n  s_waitcnt lgkmcnt(0)\n",
      "  s_mov_b32 s0, 5\n  s_memtime s[0:1]\n  s_waitcnt lgkmcnt(0)\n",
  };
  for (const char* h : heads) {
    SCOPED_TRACE(h);
    const auto c = check(guarded_read(h));
    EXPECT_EQ(unwaited_vmov_reads(c), 1u) << all(c.f);
  }
}

TEST(WaitcntPathsAdversarial, ImmediateExtensionAndShiftMasking) {
  // Each head leads to the guarded read only through an edge that a wrong extension or shift would call dead.
  const std::pair<const char*, const char*> heads[] = {
      // S_CMPK_GT_I32 sign-extends 0xfff0 (-16): s0 = -5 passes both tests (zero-extended, s0 > 65520 and s0 < 0
      // would contradict).
      {"cmpk_i32 sext", "  s_cmpk_gt_i32 s0, 0xfff0\n  s_cbranch_scc0 .Lend\n  s_cmpk_lt_i32 s0, 0x0\n"
                        "  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
      // S_CMPK_GE_U32 zero-extends 0x8000 (32768): s0 = 33000 passes and is below 0x9000 (sign-extended,
      // s0 >= 0xffff8000 would contradict it).
      {"cmpk_u32 zext", "  s_cmpk_ge_u32 s0, 0x8000\n  s_cbranch_scc0 .Lend\n  s_cmp_lt_u32 s0, 0x9000\n"
                        "  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
      // S_ADDK_I32 sign-extends: 0 + 0xffff = 0xffffffff.
      {"addk sext", "  s_mov_b32 s3, 0\n  s_addk_i32 s3, 0xffff\n  s_cmp_eq_u32 s3, -1\n  s_cbranch_scc0 .Lend\n"
                    "  s_mov_b32 s0, 21\n"},
      // S_MOVK_I32 sign-extends: 0x8000 -> 0xffff8000 < 0 signed.
      {"movk sext", "  s_movk_i32 s3, 0x8000\n  s_cmp_lt_i32 s3, 0\n  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
      // Shift amounts use S1[4:0]: 1 << 33 = 2, 0x80000000 >> 33 = 0x40000000, ashr by 63 = -1.
      {"lshl mask", "  s_mov_b32 s3, 1\n  s_lshl_b32 s3, s3, 33\n  s_cmp_eq_u32 s3, 2\n  s_cbranch_scc0 .Lend\n"
                    "  s_mov_b32 s0, 21\n"},
      {"lshr mask", "  s_mov_b32 s3, 0x80000000\n  s_lshr_b32 s3, s3, 33\n"
                    "  s_cmp_eq_u32 s3, 0x40000000\n  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
      {"ashr mask", "  s_mov_b32 s3, 0x80000000\n  s_ashr_i32 s3, s3, 63\n  s_cmp_eq_u32 s3, -1\n"
                    "  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
      // Signed vs unsigned: -1 > 5 unsigned.
      {"u32 compare", "  s_mov_b32 s3, -1\n  s_cmp_gt_u32 s3, 5\n  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
      // S_SUB_U32 wraps: s1 < 16 gives s1 - 32 >= 0xffffffe0 > s1 (unsigned).
      {"sub wraps", "  s_cmpk_lt_u32 s1, 0x10\n  s_cbranch_scc0 .Lend\n  s_sub_u32 s2, s1, 32\n  s_cmp_gt_u32 s2, s1\n"
                    "  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
      // ... and signed: s1 in [0x7ffffff0, 0x7fffffff] plus 0x20 is negative.
      {"add wraps signed", "  s_cmp_gt_i32 s1, 0x7fffffef\n  s_cbranch_scc0 .Lend\n  s_add_i32 s2, s1, 32\n"
                           "  s_cmp_lt_i32 s2, s1\n  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
  };
  for (const auto& [name, h] : heads) {
    SCOPED_TRACE(name);
    const auto c = check(guarded_read(h));
    EXPECT_EQ(unwaited_vmov_reads(c), 1u) << all(c.f);
  }
}

TEST(WaitcntPathsAdversarial, JoinsAndLoopsKeepOnlyFactsOfEveryPath) {
  const std::pair<const char*, const char*> cases[] = {
      // s0 = 1 on one path and 21 on the other: after the join s0 > 20 is possible.
      {"join", "  s_cmp_eq_u32 s5, 0\n  s_cbranch_scc1 .La\n  s_mov_b32 s0, 1\n  s_branch .Lj\n.La:\n"
               "  s_mov_b32 s0, 21\n.Lj:\n"},
      // A counting loop leaves with s0 = 1000 (the widened bound must not exclude it).
      {"loop", "  s_mov_b32 s0, 0\n.Ll:\n  s_add_u32 s0, s0, 1\n  s_cmpk_lt_u32 s0, 0x3e8\n  s_cbranch_scc1 .Ll\n"
               "  s_cmpk_eq_u32 s0, 0x3e8\n  s_cbranch_scc0 .Lend\n"},
      // A loop whose counter wraps through 0: it leaves with s0 = 25.
      {"wrapping loop", "  s_mov_b32 s0, -8\n.Ll:\n  s_add_u32 s0, s0, 1\n  s_cmpk_lg_u32 s0, 0x19\n"
                        "  s_cbranch_scc1 .Ll\n"},
      // Down-counting by 3 from 100 in signed: leaves at s0 = -2.
      {"down loop", "  s_mov_b32 s0, 100\n.Ll:\n  s_addk_i32 s0, 0xfffd\n  s_cmp_gt_i32 s0, 0\n  s_cbranch_scc1 .Ll\n"
                    "  s_cmp_eq_i32 s0, -2\n  s_cbranch_scc0 .Lend\n  s_mov_b32 s0, 21\n"},
  };
  for (const auto& [name, h] : cases) {
    SCOPED_TRACE(name);
    const auto c = check(guarded_read(h));
    EXPECT_EQ(unwaited_vmov_reads(c), 1u) << all(c.f);
  }
}

TEST(WaitcntPathsAdversarial, ASplitJoinInALoopKeepsTheStateOfTheBackEdge) {
  // .Lj is entered from the entry (s0 = 0: goes to .Lfirst) and from .Lfirst (s0 = 1: falls through). The second
  // visit reads v1, loaded on the first visit and never waited for: real (s0 = 0, load, s0 = 1, read).
  const auto c = check(R"(
  s_mov_b32 s0, 0
.Lj:
  s_cmpk_eq_u32 s0, 0x0
  s_cbranch_scc1 .Lfirst
  v_mov_b32 v0, v1
  s_endpgm
.Lfirst:
  global_load_dword v1, v[2:3], off
  s_mov_b32 s0, 1
  s_branch .Lj
)");
  EXPECT_EQ(unwaited_vmov_reads(c), 1u) << all(c.f);
}

TEST(WaitcntPathsAdversarial, ARedundantWaitNeedsEveryRealPath) {
  // The wait is needed on the real path "s0 was < 10 at the compare, then s0 = 100": not redundant.
  auto p = parse_program(std::string("k:\n") + R"(
  s_cmpk_lt_u32 s0, 10
  s_mov_b32 s0, 100
  s_cbranch_scc0 .Lend
  s_cmpk_gt_u32 s0, 20
  s_cbranch_scc0 .Lend
  global_load_dword v1, v[2:3], off
.Lend:
  s_waitcnt vmcnt(0)
  v_mov_b32 v0, v1
  s_endpgm
)", Target::gfx942, "<waitcnt_test>");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  const Cfg g = build_cfg(*p);
  const auto a = analyze_waitcnt(*p, g, g.block_named("k").value(), Target::gfx942);
  std::size_t wait_item = 0;
  for (std::size_t i = 0; i < p->items.size(); ++i)
    if (p->items[i].kind == Item::Kind::inst &&
        isa::forms(Target::gfx942)[p->items[i].inst.form].mnemonic == "s_waitcnt")
      wait_item = i;
  ASSERT_NE(wait_item, 0u);
  EXPECT_FALSE(a.wait_is_redundant(wait_item));
}

// ---- lgkmcnt: LDS in order, SMEM out of order, FLAT on both counters --------------------------------------------

TEST(WaitcntCheck, LdsIsInOrder) {
  auto c = check(R"(
  ds_read_b32 v1, v0
  ds_read_b32 v2, v0 offset:4
  s_waitcnt lgkmcnt(1)
  v_add_u32 v3, v1, v1
  s_endpgm
)");
  EXPECT_TRUE(c.f.empty()) << all(c.f);
}

TEST(WaitcntCheck, SmemIsOutOfOrderAndNeedsZero) {
  // With LDS this would be enough (see LdsIsInOrder); scalar loads may return in any order (MI300 ISA §4.4).
  auto c = check(R"(
  s_load_dword s4, s[0:1], 0x0
  s_load_dword s5, s[0:1], 0x4
  s_waitcnt lgkmcnt(1)
  s_add_u32 s6, s4, s4
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].other, c.nth(0));
  EXPECT_NE(c.f[0].message.find("lgkmcnt(0)"), std::string::npos) << c.f[0].message;
  EXPECT_NE(c.f[0].message.find("s4"), std::string::npos) << c.f[0].message;
}

TEST(WaitcntCheck, PendingSmemMakesLdsNeedZeroToo) {
  auto c = check(R"(
  ds_read_b32 v1, v0
  s_load_dword s4, s[0:1], 0x0
  s_waitcnt lgkmcnt(1)
  v_add_u32 v3, v1, v1
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].other, c.nth(0));
  EXPECT_NE(c.f[0].message.find("lgkmcnt(0)"), std::string::npos) << c.f[0].message;
}

TEST(WaitcntCheck, FlatCountsInBothCounters) {
  // A FLAT load may be serviced by LDS or memory: vmcnt(0) alone does not cover it, vmcnt(0) lgkmcnt(0) does.
  auto c = check(R"(
  flat_load_dword v1, v[2:3]
  s_waitcnt vmcnt(0)
  v_add_u32 v5, v1, v1
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_NE(c.f[0].message.find("lgkmcnt(0)"), std::string::npos) << c.f[0].message;
  auto ok = check(R"(
  flat_load_dword v1, v[2:3]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_add_u32 v5, v1, v1
  s_endpgm
)");
  EXPECT_TRUE(ok.f.empty()) << all(ok.f);
}

TEST(WaitcntCheck, PendingFlatMakesVmcntOutOfOrder) {
  // In order, vmcnt(1) would cover the global load; with a FLAT load after it, it needs vmcnt(0).
  auto c = check(R"(
  global_load_dword v4, v[2:3], off
  flat_load_dword v1, v[2:3]
  s_waitcnt vmcnt(1)
  v_add_u32 v5, v4, v4
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].other, c.nth(0));
  EXPECT_NE(c.f[0].message.find("vmcnt(0)"), std::string::npos) << c.f[0].message;
}

// ---- overwrites -------------------------------------------------------------------------------------------------

TEST(WaitcntCheck, OverwriteOfAPendingLoad) {
  auto c = check(R"(
  global_load_dword v1, v[2:3], off
  v_mov_b32 v1, 0
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].at, c.nth(1));
  EXPECT_NE(c.f[0].message.find("overwrites v1"), std::string::npos) << c.f[0].message;
}

TEST(WaitcntCheck, OverwriteOrderedOnlyWithinOneInOrderCounter) {
  // VMEM after VMEM to v1 lands in order: fine. An LDS result and a VMEM result to v1 may land in either order.
  EXPECT_TRUE(check(R"(
  global_load_dword v1, v[2:3], off
  global_load_dword v1, v[4:5], off
  s_waitcnt vmcnt(0)
  v_add_u32 v5, v1, v1
  s_endpgm
)").f.empty());
  auto c = check(R"(
  ds_read_b32 v1, v0
  global_load_dword v1, v[2:3], off
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].at, c.nth(1));
  EXPECT_EQ(c.f[0].other, c.nth(0));
  EXPECT_NE(c.f[0].message.find("lgkmcnt(0)"), std::string::npos) << c.f[0].message;
}

TEST(WaitcntCheck, ImplicitVccRead) {
  // v_cndmask_b32_e32 reads vcc implicitly; vcc loaded by SMEM must be waited for.
  auto c = check(R"(
  s_load_dwordx2 vcc, s[0:1], 0x0
  v_cndmask_b32_e32 v0, v1, v2, vcc
  s_endpgm
)");
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_NE(c.f[0].message.find("vcc"), std::string::npos) << c.f[0].message;
}

TEST(WaitcntCheck, CounterNeverHoldsMoreThanItsField) {
  // vmcnt is 6 bits: with 63 stores issued after it, the load of v1 has completed (the 64th would wait at issue).
  std::string text = "  global_load_dword v1, v[2:3], off\n";
  for (int i = 0; i < 63; ++i) text += "  global_store_dword v[2:3], v7, off\n";
  text += "  v_add_u32 v5, v1, v1\n  s_endpgm\n";
  EXPECT_TRUE(check(text).f.empty()) << all(check(text).f);
  // 62 stores: it needs vmcnt(62).
  std::string text62 = "  global_load_dword v1, v[2:3], off\n";
  for (int i = 0; i < 62; ++i) text62 += "  global_store_dword v[2:3], v7, off\n";
  text62 += "  v_add_u32 v5, v1, v1\n  s_endpgm\n";
  auto c = check(text62);
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_NE(c.f[0].message.find("vmcnt(62)"), std::string::npos) << c.f[0].message;
}


TEST(WaitcntCheck, AFullOutOfOrderCounterProvesNothingAboutOneLoad) {
  // lgkmcnt holds 15; 16 SMEM loads fill it, but SMEM returns out of order (MI300 ISA §4.4), so the stall at the
  // cap says some load completed, not the first: reading s4 still needs lgkmcnt(0).
  std::string smem = "  s_load_dword s4, s[0:1], 0x0\n";
  for (int i = 0; i < 15; ++i)
    smem += "  s_load_dword s" + std::to_string(10 + i) + ", s[0:1], " + std::to_string(4 * (i + 1)) + "\n";
  smem += "  s_add_u32 s5, s4, 1\n  s_endpgm\n";
  auto c = check(smem);
  ASSERT_EQ(c.f.size(), 1u) << all(c.f);
  EXPECT_EQ(c.f[0].at, c.nth(16));
  EXPECT_EQ(c.f[0].other, c.nth(0));
  // A FLAT load makes vmcnt out of order too: 63 global loads after it do not retire it.
  std::string flat = "  flat_load_dword v4, v[2:3]\n";
  for (int i = 0; i < 63; ++i) flat += "  global_load_dword v" + std::to_string(10 + i) + ", v[2:3], off\n";
  flat += "  v_add_u32 v5, v4, v4\n  s_endpgm\n";
  auto f = check(flat);
  ASSERT_FALSE(f.f.empty());
  EXPECT_EQ(f.f[0].at, f.nth(64)) << all(f.f);
}

// ---- the per-instruction result ----------------------------------------------------------------------------------

TEST(WaitcntAnalysis, RedundantWaitsAndOutstandingCounts) {
  auto p = parse_program(R"(k:
  global_load_dword v1, v[2:3], off
  global_load_dword v4, v[2:3], off
  s_waitcnt vmcnt(1)
  s_waitcnt vmcnt(1)
  s_waitcnt lgkmcnt(0)
  s_waitcnt vmcnt(0)
  v_add_u32 v5, v4, v1
  s_endpgm
)", Target::gfx942);
  ASSERT_TRUE(p.has_value());
  const Cfg g = build_cfg(*p);
  const auto a = analyze_waitcnt(*p, g, g.block_named("k").value(), Target::gfx942);
  std::vector<std::size_t> items;
  for (std::size_t i = 0; i < p->items.size(); ++i)
    if (p->items[i].kind == Item::Kind::inst) items.push_back(i);
  ASSERT_EQ(items.size(), 8u);
  EXPECT_EQ(a.before[items[2]].get(Counter::vm), 2u);  // two loads outstanding before the first wait
  EXPECT_FALSE(a.wait_is_redundant(items[2]));
  EXPECT_TRUE(a.wait_is_redundant(items[3]));   // the same wait again does nothing
  EXPECT_TRUE(a.wait_is_redundant(items[4]));   // nothing counts in lgkmcnt
  EXPECT_FALSE(a.wait_is_redundant(items[5]));  // v4 is still outstanding
  EXPECT_EQ(a.before[items[6]].get(Counter::vm), 0u);
  // Before the third wait, exactly v4 (the second load) is pending.
  const auto pend = a.pending_before(items[4]);
  ASSERT_EQ(pend.size(), 1u);
  EXPECT_EQ(pend[0].reg, (Reg{RegFile::vgpr, 4, 1}));
  EXPECT_EQ(pend[0].counter, Counter::vm);
  EXPECT_EQ(pend[0].needed, 0u);
  EXPECT_EQ(pend[0].load_item, items[1]);
}

TEST(WaitcntAnalysis, UnreachableWaitIsNotRedundant) {
  // i2 follows an unconditional branch and i6 follows s_endpgm: no path from the entry reaches them. "Redundant" is
  // an equivalence proof for callers (tools/mutate), and "unreachable in this CFG" is not one, so both are false.
  // i3 is reachable with the load i0 outstanding (not redundant); i4 is reachable after i3 waited for everything
  // (redundant).
  auto p = parse_program(R"(k:
  global_load_dword v1, v[2:3], off
  s_branch .L1
  s_waitcnt vmcnt(0)
.L1:
  s_waitcnt vmcnt(0)
  s_waitcnt vmcnt(0)
  s_endpgm
  s_waitcnt vmcnt(0)
)", Target::gfx942);
  ASSERT_TRUE(p.has_value());
  const Cfg g = build_cfg(*p);
  const auto a = analyze_waitcnt(*p, g, g.block_named("k").value(), Target::gfx942);
  std::vector<std::size_t> items;
  for (std::size_t i = 0; i < p->items.size(); ++i)
    if (p->items[i].kind == Item::Kind::inst) items.push_back(i);
  ASSERT_EQ(items.size(), 7u);
  EXPECT_FALSE(a.reachable(items[2]));
  EXPECT_FALSE(a.wait_is_redundant(items[2]));  // unreachable: no proof
  EXPECT_TRUE(a.reachable(items[3]));
  EXPECT_FALSE(a.wait_is_redundant(items[3]));  // the load is outstanding here
  EXPECT_TRUE(a.wait_is_redundant(items[4]));   // reachable, and i3 already waited for everything
  EXPECT_FALSE(a.reachable(items[6]));
  EXPECT_FALSE(a.wait_is_redundant(items[6]));
  EXPECT_FALSE(a.reachable(p->items.size()));   // out of range
}

// ---- corpus -----------------------------------------------------------------------------------------------------

std::vector<fs::path> objects_under(const fs::path& dir, std::initializer_list<const char*> exts) {
  std::vector<fs::path> v;
  if (!fs::is_directory(dir)) return v;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    for (const char* x : exts)
      if (e.is_regular_file() && e.path().extension() == x) v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

/// Waitcnt findings per kernel of a recovered object.
std::map<std::string, Findings> check_object(const codeobject::Module& m) {
  std::map<std::string, Findings> out;
  const Cfg g = build_cfg(m.program);
  for (const auto& k : m.kernels) {
    const auto e = g.block_named(k.name);
    EXPECT_TRUE(e.has_value()) << m.file << ": no block for kernel " << k.name;
    if (e) out[k.name] = check_waitcnt(m.program, g, *e, m.target);
  }
  return out;
}

TEST(WaitcntCorpus, EveryTritonKernelIsClean) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto files = objects_under(dir / "triton", {".hsaco"});
  ASSERT_EQ(files.size(), 33u);  // 11 kernels x gfx90a/gfx942/gfx950
  for (const auto& f : files) {
    auto obj = emu::test::recover_object(f.string());
    ASSERT_NE(obj, nullptr) << f;
    for (const auto& [k, fs_] : check_object(obj->module)) EXPECT_TRUE(fs_.empty()) << f << " " << k << ":\n" << all(fs_);
  }
}

TEST(WaitcntCorpus, DeletingANeededWaitInTritonRmsNorm) {
  // rms_norm_f16.gfx942.s (LLVM's own listing), lines 60-118:
  //     buffer_load_ushort v18, v1, ...      (the 1st of 16 loads)
  //     buffer_load_ushort v32, v2, ...      (2nd)
  //     buffer_load_ushort v19, v3, ...      (3rd)
  //     ... 13 more ...
  //     s_waitcnt vmcnt(14)                  (the first two are done)
  //     v_cvt_f32_f16_e32 v17, v32           reads the 2nd load
  //     ...
  //     v_fma_mix_f32 v34, v18, v18, v34     reads the 1st
  //     s_waitcnt vmcnt(13)
  //     v_fma_mix_f32 v34, v19, v19, v34     reads the 3rd
  // Deleting `s_waitcnt vmcnt(14)`: the first reader of an uncovered register is v_cvt_f32_f16 of v32 (the 2nd
  // load, which needs vmcnt(14)); the 1st load (v18) is also uncovered at v_fma_mix_f32 (needs vmcnt(15)).
  ASMEVO_REQUIRE_CORPUS(dir);
  auto obj = emu::test::recover_object((dir / "triton" / "rms_norm_f16.gfx942.hsaco").string());
  ASSERT_NE(obj, nullptr);
  Program& p = obj->module.program;
  const auto forms = isa::forms(p.target);
  auto mn = [&](const Item& it) { return std::string(forms[it.inst.form].mnemonic); };
  std::size_t w = p.items.size();
  std::vector<InstId> loads;
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    if (p.items[i].kind != Item::Kind::inst) continue;
    if (mn(p.items[i]) == "buffer_load_ushort") loads.push_back(p.items[i].inst.id);
    if (mn(p.items[i]) == "s_waitcnt" && print_inst(p.items[i].inst).find("vmcnt(14)") != std::string::npos) {
      w = i;
      break;
    }
  }
  ASSERT_LT(w, p.items.size());
  ASSERT_EQ(loads.size(), 16u);
  InstId cvt{}, fma{};
  for (std::size_t i = w + 1; i < p.items.size(); ++i) {
    if (p.items[i].kind != Item::Kind::inst) continue;
    const std::string text = print_inst(p.items[i].inst);
    if (mn(p.items[i]) == "v_cvt_f32_f16" && text.find("v32") != std::string::npos && cvt.value == 0) cvt = p.items[i].inst.id;
    if (mn(p.items[i]) == "v_fma_mix_f32" && text.find("v18, v18") != std::string::npos && fma.value == 0) fma = p.items[i].inst.id;
  }
  ASSERT_NE(cvt.value, 0u);
  ASSERT_NE(fma.value, 0u);
  // Before the edit: clean.
  EXPECT_TRUE(check_object(obj->module).begin()->second.empty());
  p.items.erase(p.items.begin() + static_cast<std::ptrdiff_t>(w));
  const auto after = check_object(obj->module).begin()->second;
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after[0].at, cvt) << all(after);
  EXPECT_EQ(after[0].other, loads[1]) << all(after);
  EXPECT_NE(after[0].message.find("v32"), std::string::npos) << after[0].message;
  EXPECT_NE(after[0].message.find("vmcnt(14)"), std::string::npos) << after[0].message;
  const bool fma_found = std::any_of(after.begin(), after.end(), [&](const Finding& f) {
    return f.at == fma && f.other == loads[0] && f.message.find("vmcnt(15)") != std::string::npos;
  });
  EXPECT_TRUE(fma_found) << all(after);
}

TEST(WaitcntCorpus, AiterFindingsOnlyWhereHandScheduledWaitsRelyOnLatency) {
  // The aiter kernels are hand-scheduled assembly. Six of them read (or, once, overwrite) a register whose load the
  // ISA's counter rules do not guarantee complete; each was checked by hand against the instruction text:
  //  - bwd_hd64_dq_convert_fp16: `ds_read_b32 v12, v14` ... `s_barrier` ... `buffer_store_dword v12, ...` with no
  //    lgkmcnt wait (s_barrier does not wait for counters on gfx942);
  //  - fmoe_int8_g1u0: `ds_read_b32 v73, v4 offset:31744` ... 420 instructions with no lgkmcnt wait ...
  //    `global_atomic_pk_add_bf16 v88, v73, s[8:9]`;
  //  - pa_a16w16_b16: `buffer_load_dword v16` followed by 23 more buffer loads, `s_waitcnt vmcnt(24)`, 8 more, then
  //    `v_mul_u32_u24_dpp v38, v16, ...` (vmcnt(23) would cover v16);
  //  - fwd_hd128_f6f4 (gfx950): `ds_read_b64_tr_b4 v[16:17]` ... `s_waitcnt lgkmcnt(6)` ... `s_waitcnt lgkmcnt(8)`
  //    then `v_mfma_scale_f32_32x32x64_f8f6f4 ..., v[16:19], ...` (needs lgkmcnt(5));
  //  - mla_a8w8_qh16_qseqlen1_gqaratio16 (gfx950): `ds_read_b128 a[60:63]` ... `s_waitcnt lgkmcnt(4)`, one more
  //    ds_read_b128, then `v_mfma_f32_16x16x128_f8f6f4 ..., a[56:63], ...` with no wait;
  //  - fmoe_bf16_pertokenFp8_g1u1_tkw1_silu_1tg_32x64 (gfx950): `buffer_load_dword v42, v11, ...` then
  //    `v_lshrrev_b32_e32 v42, 4, v0` with no vmcnt wait (the load may land after the VALU write).
  // All rely on the memory returning within a fixed number of cycles. Every other aiter kernel is clean, including
  // fwd_hd128_bf16_rtz / fwd_hd128_i8fp8 (gfx942), whose loop is unrolled by two and whose epilogue picks its half by
  // the parity of the trip count: a path-insensitive check would report the two exit/epilogue combinations no
  // execution takes (16 findings each; see WaitcntPaths.ParityDispatchAfterALoopUnrolledByTwoIsClean).
  ASMEVO_REQUIRE_CORPUS(dir);
  const std::set<std::string> expected = {
      "bwd_hd64_dq_convert_fp16.co", "fmoe_int8_g1u0.co", "pa_a16w16_b16.co", "fwd_hd128_f6f4.co", "mla_a8w8_qh16_qseqlen1_gqaratio16.co",
      "fmoe_bf16_pertokenFp8_g1u1_tkw1_silu_1tg_32x64.co"};
  std::set<std::string> with_findings;
  std::size_t files = 0;
  for (const auto& f : objects_under(dir / "aiter-co", {".co"})) {
    auto obj = emu::test::recover_object(f.string());
    ASSERT_NE(obj, nullptr) << f;
    ++files;
    for (const auto& [k, fs_] : check_object(obj->module)) {
      if (fs_.empty()) continue;
      with_findings.insert(f.filename().string());
      for (const auto& x : fs_) {
        const std::string load = x.other ? std::string(isa::forms(obj->module.target)[obj->module.program.find(*x.other)->form].mnemonic) : "";
        EXPECT_TRUE(load.starts_with("ds_read") || load.starts_with("buffer_load")) << f << ": " << x.message;
      }
    }
  }
  EXPECT_EQ(files, 32u);
  EXPECT_EQ(with_findings, expected);
}

}  // namespace
