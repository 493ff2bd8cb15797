// analysis/dependence.hpp and passes/schedule.hpp: the dependence rules on small blocks, the schedule pass's
// decisions for gfx90a/gfx942/gfx950, its invariants (checker-clean, idempotent, undoable), and a rapidcheck property
// that random straight-line blocks compute the same registers and memory on the emulator before and after.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "asmevo/analysis/dependence.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/schedule.hpp"
#include "support/corpus.hpp"
#include "verify/emu_harness.hpp"

namespace asmevo::passes {
namespace {

using analysis::DepKind;

Program parse(const std::string& text, Target t = Target::gfx942) {
  auto p = parse_program(text, t, "<test>");
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().str()) << "\n" << text;
  return p ? std::move(*p) : Program{};
}

/// The instructions in order, printed without ids.
std::vector<std::string> listing(const Program& p) {
  std::vector<std::string> out;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst) out.push_back(print_inst(it.inst));
  return out;
}

/// Position of the first instruction whose text starts with `prefix`, or -1.
int pos(const Program& p, const std::string& prefix) {
  const auto l = listing(p);
  for (std::size_t i = 0; i < l.size(); ++i)
    if (l[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
  return -1;
}

/// Position of the first instruction whose text contains `part`, or -1.
int pos_of(const Program& p, const std::string& part) {
  const auto l = listing(p);
  for (std::size_t i = 0; i < l.size(); ++i)
    if (l[i].find(part) != std::string::npos) return static_cast<int>(i);
  return -1;
}

/// True if every finding of `after` is one of `before`.
template <class S>
bool no_new(const S& before, const S& after) {
  return std::includes(before.begin(), before.end(), after.begin(), after.end());
}

/// The dependence graph of every instruction of `p` (one run).
analysis::DepGraph dag(const Program& p) {
  std::vector<std::size_t> items;
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst) items.push_back(i);
  return analysis::build_dependences(p, items);
}

PassStats run(Rewriter& r, PassContext c = {}) {
  auto s = run_pass(Schedule{}, r, c);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().str());
  return s ? *s : PassStats{};
}

/// (rule, at, other) of every waitcnt and hazard finding of the program's kernels.
std::set<std::tuple<std::string, std::uint32_t, std::uint32_t>> findings(const Program& p, bool xnack = true) {
  const analysis::Cfg g = analysis::build_cfg(p);
  std::set<std::tuple<std::string, std::uint32_t, std::uint32_t>> s;
  auto e = kernel_entries(p, g, PassContext{});
  if (!e) return s;
  for (const auto b : *e) {
    for (const auto& f : analysis::check_waitcnt(p, g, b, p.target)) s.emplace(f.rule, f.at.value, f.other ? f.other->value : ~0u);
    for (const auto& f : analysis::check_hazards(p, g, b, p.target, xnack)) s.emplace(f.rule, f.at.value, f.other ? f.other->value : ~0u);
  }
  return s;
}

// ---- the dependence DAG ---------------------------------------------------------------------------------------

TEST(Dependence, RegisterEdgesNameTheirKindAndUnit) {
  const Program p = parse(
      "  v_add_u32 v1, v2, v3\n"     // 0 writes v1, reads v2
      "  v_mul_lo_u32 v4, v1, v1\n"  // 1 RAW on v1
      "  v_mov_b32 v2, 0\n"          // 2 WAR on v2 (0 reads it)
      "  v_mov_b32 v4, 1\n"          // 3 WAW on v4
      "  v_mov_b32 v9, v8\n");       // 4 independent
  const auto g = dag(p);
  ASSERT_EQ(g.nodes.size(), 5u);
  ASSERT_TRUE(g.edge(0, 1));
  EXPECT_EQ(g.edge(0, 1)->kind, DepKind::raw);
  EXPECT_EQ(analysis::detail::unit_name(g.edge(0, 1)->unit), "v1");
  ASSERT_TRUE(g.edge(0, 2));
  EXPECT_EQ(g.edge(0, 2)->kind, DepKind::war);
  ASSERT_TRUE(g.edge(1, 3));
  EXPECT_EQ(g.edge(1, 3)->kind, DepKind::waw);
  EXPECT_TRUE(g.ordered(1, 3));
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_FALSE(g.ordered(i, 4)) << i;
  EXPECT_FALSE(g.ordered(1, 2));  // v4 = v1*v1 and v2 = 0 touch nothing in common
}

TEST(Dependence, ScalarCarryAndVccAreUnits) {
  const Program p = parse(
      "  s_add_u32 s0, s1, s2\n"          // writes scc
      "  s_addc_u32 s3, s4, s5\n"         // reads scc
      "  v_cmp_gt_u32 vcc, v1, v2\n"      // writes vcc
      "  v_cndmask_b32 v3, v4, v5, vcc\n");  // reads vcc
  const auto g = dag(p);
  ASSERT_TRUE(g.edge(0, 1));
  EXPECT_EQ(analysis::detail::unit_name(g.edge(0, 1)->unit), "scc");
  ASSERT_TRUE(g.edge(2, 3));
  EXPECT_EQ(g.edge(2, 3)->kind, DepKind::raw);
  EXPECT_FALSE(g.ordered(0, 2));
}

TEST(Dependence, BarriersPinEverything) {
  const Program p = parse(
      "  v_add_u32 v1, v2, v3\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_u32 v4, v5, v6\n"
      "  s_getpc_b64 s[0:1]\n"
      "  s_setreg_b32 hwreg(HW_REG_MODE, 0, 2), s3\n"
      "  s_nop 0\n"
      "  s_setprio 1\n"
      "  buffer_wbl2\n"
      "  s_dcache_wb\n"
      "  v_mov_b32 v7, v8\n");
  const auto g = dag(p);
  for (std::uint32_t i : {1u, 3u, 4u, 5u, 6u, 7u, 8u}) EXPECT_FALSE(g.nodes[i].barrier.empty()) << listing(p)[i];
  for (std::uint32_t i : {0u, 2u, 9u}) EXPECT_TRUE(g.nodes[i].barrier.empty()) << listing(p)[i];
  EXPECT_TRUE(g.ordered(0, 2));  // through the s_waitcnt, although they share no register
  EXPECT_TRUE(g.ordered(0, 9));
}

TEST(Dependence, CountedMemoryKeepsItsOrderPerCounter) {
  const Program p = parse(
      "  global_load_dword v10, v[0:1], off\n"        // 0 vmcnt
      "  s_load_dword s10, s[0:1], 0x0\n"             // 1 lgkmcnt
      "  global_load_dword v11, v[2:3], off\n"        // 2 vmcnt: after 0
      "  ds_read_b32 v12, v20\n"                      // 3 lgkmcnt: after 1
      "  v_add_u32 v13, v14, v15\n");                 // 4
  const auto g = dag(p);
  ASSERT_TRUE(g.edge(0, 2));
  EXPECT_EQ(g.edge(0, 2)->kind, DepKind::counter);
  ASSERT_TRUE(g.edge(1, 3));
  EXPECT_EQ(g.edge(1, 3)->kind, DepKind::counter);
  EXPECT_FALSE(g.ordered(0, 1));  // a VMEM load and an SMEM load: two loads, two counters
  EXPECT_FALSE(g.ordered(2, 3));  // global memory and LDS
  EXPECT_FALSE(g.ordered(0, 4));
}

TEST(Dependence, StoresOrderAgainstTheirAddressSpace) {
  const Program p = parse(
      "  global_store_dword v[0:1], v5, off\n"   // 0
      "  ds_read_b32 v12, v20\n"                 // 1: LDS
      "  s_load_dword s10, s[4:5], 0x0\n"        // 2: the same memory as 0, through the scalar cache
      "  ds_write_b32 v21, v13\n"                // 3: LDS store
      "  global_load_lds_dword v[0:1], off\n");  // 4: reads global memory, writes LDS
  const auto g = dag(p);
  EXPECT_FALSE(g.ordered(0, 1));
  ASSERT_TRUE(g.edge(0, 2));
  EXPECT_EQ(g.edge(0, 2)->kind, DepKind::memory);
  ASSERT_TRUE(g.edge(1, 3));
  EXPECT_EQ(g.edge(1, 3)->kind, DepKind::memory);
  ASSERT_TRUE(g.edge(3, 4));
  EXPECT_EQ(g.edge(3, 4)->kind, DepKind::memory);  // LDS, although 4 counts in vmcnt only
  EXPECT_EQ(analysis::memory_access(p.items[4].inst).writes, analysis::space::lds);
  EXPECT_EQ(analysis::memory_access(p.items[4].inst).reads, analysis::space::global);
}

TEST(Dependence, OnlyUniformAddressesAreProvedDisjoint) {
  const Program p = parse(
      "  s_load_dwordx2 s[10:11], s[0:1], 0x0\n"   // 0: bytes 0..7
      "  s_load_dwordx2 s[12:13], s[0:1], 0x8\n"   // 1: bytes 8..15
      "  s_load_dwordx2 s[14:15], s[0:1], 0x4\n"   // 2: bytes 4..11
      "  s_load_dwordx2 s[16:17], s[2:3], 0x10\n"  // 3: another base
      "  global_load_dword v1, v[2:3], off\n"      // 4
      "  global_store_dword v[2:3], v5, off offset:4\n");  // 5
  const auto in = [&](std::size_t i) -> const Inst& { return p.items[i].inst; };
  EXPECT_TRUE(analysis::provably_disjoint(in(0), in(1), true));
  EXPECT_FALSE(analysis::provably_disjoint(in(0), in(1), false));  // s[0:1] rewritten in between
  EXPECT_FALSE(analysis::provably_disjoint(in(0), in(2), true));
  EXPECT_FALSE(analysis::provably_disjoint(in(1), in(3), true));
  // Per-lane addresses: lane 1's v[2:3] + 4 may be lane 0's v[2:3] + 0.
  EXPECT_FALSE(analysis::provably_disjoint(in(4), in(5), true));
}

TEST(Dependence, ExecWritesOrderAgainstVectorCode) {
  const Program p = parse(
      "  v_add_u32 v1, v2, v3\n"          // 0
      "  s_mov_b64 exec, s[4:5]\n"        // 1
      "  ds_read_b32 v12, v20\n"          // 2
      "  s_add_u32 s6, s7, s8\n"          // 3: scalar, no exec
      "  v_cmpx_gt_u32 vcc, v1, v2\n");   // 4: writes exec itself
  const auto g = dag(p);
  ASSERT_TRUE(g.edge(0, 1));
  EXPECT_EQ(g.edge(0, 1)->kind, DepKind::exec);
  ASSERT_TRUE(g.edge(1, 2));
  EXPECT_EQ(g.edge(1, 2)->kind, DepKind::exec);
  EXPECT_FALSE(g.ordered(1, 3));
  EXPECT_TRUE(g.ordered(2, 4));
}

// ---- the pass -------------------------------------------------------------------------------------------------

class ScheduleTargets : public ::testing::TestWithParam<Target> {};
INSTANTIATE_TEST_SUITE_P(Targets, ScheduleTargets, ::testing::Values(Target::gfx90a, Target::gfx942, Target::gfx950),
                         [](const auto& i) { return std::string(to_string(i.param)); });

const char* const kFarUse =
    "k:\n"
    "  v_add_u32 v1, v2, v3\n"
    "  v_mul_lo_u32 v4, v1, v1\n"
    "  v_xor_b32 v5, v4, v2\n"
    "  v_add_u32 v6, v5, v3\n"
    "  global_load_dword v10, v[20:21], off\n"
    "  s_waitcnt vmcnt(0)\n"
    "  v_add_u32 v11, v10, v6\n"
    "  s_endpgm\n";

TEST_P(ScheduleTargets, LoadIsHoistedAboveIndependentAlu) {
  Program p = parse(kFarUse, GetParam());
  const auto before = findings(p);
  Rewriter r(p);
  const auto st = run(r);
  EXPECT_EQ(pos(p, "global_load_dword"), 0) << print_program(p);
  EXPECT_EQ(pos(p, "s_waitcnt"), 5);  // the wait and everything after it stay
  EXPECT_EQ(st.insts_delta, 0);
  EXPECT_EQ(st.edits, 1u);  // one move: the load before the first v_add
  for (const auto& e : r.log()) {
    EXPECT_EQ(e.why, "schedule");
    EXPECT_TRUE(e.op == Edit::Op::move_before || e.op == Edit::Op::move_after);
  }
  EXPECT_TRUE(findings(p).empty());
  EXPECT_TRUE(before.empty());
}

TEST_P(ScheduleTargets, LoadNeverCrossesAWaitcnt) {
  Program p = parse(
      "k:\n"
      "  global_load_dword v10, v[20:21], off\n"
      "  v_add_u32 v1, v2, v3\n"
      "  v_add_u32 v4, v2, v3\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_u32 v11, v10, v1\n"
      "  global_load_dword v12, v[22:23], off\n"  // independent of everything above, but after the wait
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_u32 v13, v12, v11\n"
      "  s_endpgm\n",
      GetParam());
  Rewriter r(p);
  (void)run(r);
  EXPECT_GT(pos(p, "global_load_dword v12"), pos(p, "s_waitcnt"));
  EXPECT_EQ(pos(p, "global_load_dword v10"), 0);
  EXPECT_TRUE(findings(p).empty());
}

TEST_P(ScheduleTargets, LoadStaysBehindAStoreToPossiblyTheSameAddress) {
  Program p = parse(
      "k:\n"
      "  v_add_u32 v1, v2, v3\n"
      "  v_add_u32 v4, v1, v3\n"
      "  global_store_dword v[20:21], v5, off\n"
      "  v_add_u32 v6, v4, v3\n"
      "  s_load_dword s10, s[0:1], 0x0\n"            // SMEM: no counter in common with the store
      "  global_load_dword v10, v[20:21], off offset:4\n"
      "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"
      "  v_add_u32 v11, v10, s10\n"
      "  s_endpgm\n",
      GetParam());
  Rewriter r(p);
  (void)run(r);
  const int store = pos(p, "global_store_dword");
  EXPECT_LT(store, pos(p, "s_load_dword"));
  EXPECT_LT(store, pos(p, "global_load_dword"));
  EXPECT_TRUE(findings(p).empty());
}

TEST_P(ScheduleTargets, TwoVmemLoadsKeepTheirOrder) {
  // The first load's address needs a chain of ALU, the second's is ready: issuing the second first would be faster,
  // but the vmcnt(1) below must keep meaning "the first load is back".
  Program p = parse(
      "k:\n"
      "  v_add_u32 v20, v30, v31\n"
      "  v_add_u32 v20, v20, v31\n"
      "  v_add_u32 v20, v20, v31\n"
      "  global_load_dword v10, v[20:21], off\n"
      "  global_load_dword v11, v[22:23], off\n"
      "  s_waitcnt vmcnt(1)\n"
      "  v_add_u32 v12, v10, v10\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_u32 v13, v11, v11\n"
      "  s_endpgm\n",
      GetParam());
  Rewriter r(p);
  (void)run(r);
  EXPECT_LT(pos(p, "global_load_dword v10"), pos(p, "global_load_dword v11")) << print_program(p);
  EXPECT_TRUE(findings(p).empty());
}

TEST_P(ScheduleTargets, ExecWriteKeepsVectorCodeOnItsSide) {
  Program p = parse(
      "k:\n"
      "  v_add_u32 v1, v2, v3\n"
      "  v_add_u32 v4, v1, v3\n"
      "  s_mov_b64 exec, s[4:5]\n"
      "  v_add_u32 v6, v7, v8\n"
      "  global_load_dword v10, v[20:21], off\n"
      "  s_waitcnt vmcnt(0)\n"
      "  s_endpgm\n",
      GetParam());
  Rewriter r(p);
  (void)run(r);
  const int exec = pos(p, "s_mov_b64 exec");
  EXPECT_LT(pos(p, "v_add_u32_e32 v4"), exec);
  EXPECT_GT(pos(p, "global_load_dword"), exec) << print_program(p);
  EXPECT_GT(pos(p, "v_add_u32_e32 v6"), exec);
}

TEST_P(ScheduleTargets, IndependentAluFillsTheGapBetweenMfmas) {
  const std::string mfma = "v_mfma_f32_16x16x16f16";
  Program p = parse("k:\n"
                    "  " + mfma + " a[0:3], v[0:1], v[2:3], a[0:3]\n"
                    "  " + mfma + " a[4:7], v[4:5], v[6:7], a[4:7]\n"
                    "  v_add_u32 v10, v11, v12\n"
                    "  v_add_u32 v13, v14, v15\n"
                    "  s_nop 7\n"
                    "  s_endpgm\n",
                    GetParam());
  const auto before = findings(p);
  Rewriter r(p);
  (void)run(r);
  // The second MFMA waits for the matrix pipe, so the ALU goes between the two.
  EXPECT_LT(pos(p, "v_add_u32"), pos_of(p, "a[4:7]")) << print_program(p);
  EXPECT_EQ(pos_of(p, "a[0:3]"), 0);
  EXPECT_TRUE(no_new(before, findings(p)));
}

const char* const kMixed =
    "k:\n"
    "  s_load_dwordx2 s[4:5], s[0:1], 0x0\n"
    "  v_lshlrev_b32 v1, 2, v0\n"
    "  v_mov_b32 v2, 0\n"
    "  s_waitcnt lgkmcnt(0)\n"
    "  v_add_u32 v3, s4, v1\n"
    "  v_mov_b32 v4, s5\n"
    "  v_mul_lo_u32 v5, v1, v1\n"
    "  v_xor_b32 v6, v5, v1\n"
    "  v_add_u32 v7, v6, v5\n"
    "  global_load_dword v8, v[2:3], off\n"
    "  ds_read_b32 v9, v1\n"
    "  v_add_u32 v10, v7, v6\n"
    "  v_mfma_f32_16x16x16f16 a[0:3], v[12:13], v[14:15], a[0:3]\n"
    "  v_add_u32 v11, v10, v7\n"
    "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"
    "  v_add_u32 v8, v8, v9\n"
    "  global_store_dword v[2:3], v8, off\n"
    "  s_nop 7\n"
    "  v_accvgpr_read_b32 v16, a0\n"
    "  s_endpgm\n";

TEST_P(ScheduleTargets, ChecksStayCleanIdempotentAndUndoable) {
  Program p = parse(kMixed, GetParam());
  const std::string original = print_program(p);
  const auto before = findings(p);
  Rewriter r(p);
  const auto st = run(r);
  EXPECT_GT(st.edits, 0u);
  EXPECT_EQ(st.insts_delta, 0);
  EXPECT_TRUE(no_new(before, findings(p))) << print_program(p);
  EXPECT_LT(pos(p, "global_load_dword"), pos(p, "v_mul_lo_u32"));
  const std::string once = print_program(p);
  const auto second = run(r);
  EXPECT_EQ(second.edits, 0u);
  EXPECT_EQ(print_program(p), once);
  r.undo();
  EXPECT_EQ(print_program(p), original);
}

TEST_P(ScheduleTargets, ALoadIsNotHoistedIntoAHazard) {
  // Hoisting the buffer load right behind the v_readfirstlane that writes its soffset would break the "VALU writes
  // SGPR, VMEM reads it: 5 wait states" rule (hazard row valu_sgpr_vmem). The scheduler checks each candidate
  // against the instructions placed before it, so it issues the five adds first: the order stays as it was.
  Program p = parse(
      "k:\n"
      "  v_readfirstlane_b32 s10, v1\n"
      "  v_add_u32 v2, v3, v4\n"
      "  v_add_u32 v5, v3, v4\n"
      "  v_add_u32 v6, v3, v4\n"
      "  v_add_u32 v7, v3, v4\n"
      "  v_add_u32 v8, v3, v4\n"
      "  buffer_load_dword v9, v0, s[12:15], s10 offen\n"
      "  s_waitcnt vmcnt(0)\n"
      "  s_endpgm\n",
      GetParam());
  const std::string original = print_program(p);
  ASSERT_TRUE(findings(p).empty());
  Rewriter r(p);
  const auto st = run(r);
  EXPECT_TRUE(findings(p).empty());
  EXPECT_EQ(print_program(p), original);
  EXPECT_EQ(st.edits, 0u);
}

TEST(Schedule, HotWindowArguments) {
  // Only the instructions from `from` through `to` are scheduled: a window without the load moves nothing, one
  // with the load and the ALU above it hoists the load; an id that is not in the program is an error.
  Program p = parse(kFarUse);
  Rewriter r(p);
  PassContext c;
  c.args["from"] = "i0";
  c.args["to"] = "i3";
  EXPECT_EQ(run(r, c).edits, 0u);
  c.args["from"] = "i2";
  c.args["to"] = "4";
  EXPECT_EQ(run(r, c).edits, 1u);
  EXPECT_NE(print_program(p).find("v_mul_lo_u32 v4, v1, v1 ; i1\n\tglobal_load_dword"), std::string::npos) << print_program(p);
  c.args["to"] = "i99";
  auto bad = run_pass(Schedule{}, r, c);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("argument 'to'"), std::string::npos);
}

TEST(Schedule, WindowArgument) {
  Program p = parse(kFarUse);
  Rewriter r(p);
  PassContext c;
  c.args["window"] = "1";
  EXPECT_EQ(run(r, c).edits, 0u);
  c.args["window"] = "4";  // the load is the 5th of its run: in a region of its own
  EXPECT_EQ(run(r, c).edits, 0u);
  c.args["window"] = "5";
  EXPECT_EQ(run(r, c).edits, 1u);
  c.args["window"] = "0";
  EXPECT_FALSE(run_pass(Schedule{}, r, c).has_value());
  c.args["window"] = "many";
  EXPECT_FALSE(run_pass(Schedule{}, r, c).has_value());
}

TEST(Schedule, NeverMovesAcrossADirective) {
  Program p = parse(
      "k:\n"
      "  v_add_u32 v1, v2, v3\n"
      "  .p2align 4\n"
      "  global_load_dword v10, v[20:21], off\n"
      "  s_waitcnt vmcnt(0)\n"
      "  s_endpgm\n");
  Rewriter r(p);
  EXPECT_EQ(run(r).edits, 0u);
}

// ---- real kernels ---------------------------------------------------------------------------------------------

/// Every Triton kernel of the corpus, for its target: the pass moves something, adds no finding, a second run makes no
/// edit, and undo gives back the text.
TEST(ScheduleCorpus, TritonKernels) {
  const auto dir = test::corpus_dir();
  if (!dir) GTEST_SKIP() << "no corpus (../shared/corpus or ASMEVO_CORPUS_DIR)";
  std::size_t files = 0, moved = 0;
  for (const auto& path : test::files_with_ext(*dir / "triton", ".s")) {
    const std::string name = path.filename().string();
    const Target t = name.find("gfx90a") != std::string::npos   ? Target::gfx90a
                     : name.find("gfx950") != std::string::npos ? Target::gfx950
                                                                : Target::gfx942;
    auto p = parse_program(test::slurp(path), t, name);
    ASSERT_TRUE(p.has_value()) << name << ": " << p.error().str();
    const std::string original = print_program(*p);
    const auto before = findings(*p);
    Rewriter r(*p);
    const auto st = run(r);
    EXPECT_EQ(st.insts_delta, 0) << name;
    EXPECT_TRUE(no_new(before, findings(*p))) << name;
    const auto second = run(r);
    EXPECT_EQ(second.edits, 0u) << name;
    if (second.edits) {
      for (const auto& n : st.notes) std::cout << "1: " << n.substr(0, 300) << "\n";
      for (const auto& n : second.notes) std::cout << "2: " << n.substr(0, 300) << "\n";
    }
    r.undo();
    EXPECT_EQ(print_program(*p), original) << name;
    ++files;
    moved += st.edits;
  }
  EXPECT_GT(files, 0u);
  EXPECT_GT(moved, 0u);
  std::cout << files << " Triton kernels, " << moved << " moves\n";
}

// ---- semantics on the emulator ----------------------------------------------------------------------------------

/// A random straight-line block (text) that is waitcnt-clean by construction: a wait is emitted before any
/// instruction that touches a register a load has not yet returned. Registers: v[0:1] the lane's 64-byte slot of
/// global memory, v40 its LDS slot, s[0:1] a read-only buffer for SMEM, s[20:21] an EXEC mask, v2..v15 and
/// s10..s17 data.
std::string random_block() {
  const int n = *rc::gen::inRange(4, 40);
  std::string out;
  std::set<std::string> pend_vm, pend_lgkm;  // registers (as "vN"/"sN") a load will still write
  auto vreg = [] { return "v" + std::to_string(*rc::gen::inRange(2, 16)); };
  auto sreg = [] { return "s" + std::to_string(*rc::gen::inRange(10, 18)); };
  auto off = [] { return std::to_string(4 * *rc::gen::inRange(0, 16)); };
  for (int k = 0; k < n; ++k) {
    std::string text;
    std::vector<std::string> regs;  // every register it names
    std::string load_dst;
    bool vm = false;
    const int kind = *rc::gen::weightedElement<int>(
        {{6, 0}, {2, 1}, {2, 2}, {3, 3}, {2, 4}, {2, 5}, {2, 6}, {1, 7}, {1, 8}, {1, 9}, {1, 10}});
    switch (kind) {
      case 0: {  // VALU: independent or dependent, by chance of register choice
        const auto d = vreg(), a = vreg(), b = vreg();
        const std::string op = *rc::gen::element<std::string>("v_add_u32", "v_xor_b32", "v_mul_lo_u32", "v_sub_u32",
                                                              "v_lshlrev_b32", "v_max_u32");
        text = op + " " + d + ", " + a + ", " + b;
        regs = {d, a, b};
        break;
      }
      case 1: {
        const auto d = vreg(), a = sreg(), b = vreg();
        text = "v_add_u32 " + d + ", " + a + ", " + b;
        regs = {d, a, b};
        break;
      }
      case 2: {  // VCC
        const auto a = vreg(), b = vreg(), d = vreg(), c = vreg();
        text = "v_cmp_gt_u32 vcc, " + a + ", " + b + "\n  v_cndmask_b32 " + d + ", " + c + ", " + a + ", vcc";
        regs = {a, b, c, d};
        break;
      }
      case 3: {  // SALU with SCC
        const auto d = sreg(), a = sreg(), b = sreg();
        const std::string op = *rc::gen::element<std::string>("s_add_u32", "s_addc_u32", "s_xor_b32", "s_cselect_b32",
                                                              "s_mul_i32", "s_min_u32");
        text = op + " " + d + ", " + a + ", " + b;
        regs = {d, a, b};
        break;
      }
      case 4: {
        load_dst = vreg();
        vm = true;
        text = "global_load_dword " + load_dst + ", v[0:1], off offset:" + off();
        regs = {load_dst};
        break;
      }
      case 5: {
        const auto a = vreg();
        text = "global_store_dword v[0:1], " + a + ", off offset:" + off();
        regs = {a};
        break;
      }
      case 6: {
        if (*rc::gen::arbitrary<bool>()) {
          load_dst = vreg();
          text = "ds_read_b32 " + load_dst + ", v40 offset:" + off();
          regs = {load_dst};
        } else {
          const auto a = vreg();
          text = "ds_write_b32 v40, " + a + " offset:" + off();
          regs = {a};
        }
        break;
      }
      case 7: {
        load_dst = sreg();
        text = "s_load_dword " + load_dst + ", s[0:1], 0x" + std::to_string(*rc::gen::inRange(0, 4) * 4);
        regs = {load_dst};
        break;
      }
      case 8: {  // EXEC: some lanes off, or all back on
        text = *rc::gen::arbitrary<bool>() ? "s_mov_b64 exec, s[20:21]" : "s_mov_b64 exec, -1";
        break;
      }
      case 9: {
        const auto d = sreg(), a = vreg();
        text = "v_readfirstlane_b32 " + d + ", " + a;
        regs = {d, a};
        break;
      }
      default: text = *rc::gen::element<std::string>("s_nop 1", "s_waitcnt vmcnt(0)", "s_waitcnt lgkmcnt(0)"); break;
    }
    auto touches = [&](const std::set<std::string>& pend) {
      return std::any_of(regs.begin(), regs.end(), [&](const std::string& r) { return pend.count(r) != 0; });
    };
    if (touches(pend_vm)) {
      out += "  s_waitcnt vmcnt(0)\n";
      pend_vm.clear();
    }
    if (touches(pend_lgkm)) {
      out += "  s_waitcnt lgkmcnt(0)\n";
      pend_lgkm.clear();
    }
    if (text == "s_waitcnt vmcnt(0)") pend_vm.clear();
    if (text == "s_waitcnt lgkmcnt(0)") pend_lgkm.clear();
    if (!load_dst.empty()) (vm ? pend_vm : pend_lgkm).insert(load_dst);
    out += "  " + text + "\n";
  }
  return out;
}

/// Final registers and memory of one run of `text` on target `t` from the state `seed` picks.
struct Final {
  std::vector<std::uint32_t> v, s;
  std::vector<std::byte> global, lds;
  bool scc = false;
  std::string stop;
  friend bool operator==(const Final&, const Final&) = default;
};

Final execute(const std::string& text, Target t, std::uint64_t seed) {
  Final f;
  emu::RunOptions o;  // adversarial completion: memory returns as late as the ISA lets it
  o.seed = seed;
  auto s = emu::test::make_snippet(text, t, 1, 65536, o);
  if (!s) {
    f.stop = "no snippet";
    return f;
  }
  emu::Region& g = s->machine.memory.region(s->machine.memory.map("global", 64 * 64, true));
  emu::Region& k = s->machine.memory.region(s->machine.memory.map("const", 64, false));
  auto mix = [&](std::uint64_t x) {
    x = (x + seed + 1) * 0x9e3779b97f4a7c15ull;  // splitmix64 finaliser
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return static_cast<std::uint32_t>(x ^ (x >> 31));
  };
  for (std::size_t i = 0; i < g.bytes.size(); ++i) g.bytes[i] = static_cast<std::byte>(mix(i));
  for (std::size_t i = 0; i < k.bytes.size(); ++i) k.bytes[i] = static_cast<std::byte>(mix(100000 + i));
  for (std::size_t i = 0; i < s->group.lds.size(); ++i) s->group.lds[i] = static_cast<std::byte>(mix(200000 + i));
  emu::Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    const std::uint64_t a = g.base + 64u * l;
    w.v[0][l] = static_cast<std::uint32_t>(a);
    w.v[1][l] = static_cast<std::uint32_t>(a >> 32);
    w.v[40][l] = 64u * l;
    for (unsigned r = 2; r < 16; ++r) w.v[r][l] = mix(300000 + 64u * r + l) % 1000;
  }
  w.set_s64(0, k.base);
  for (unsigned r = 10; r < 18; ++r) w.s[r] = mix(400000 + r) % 1000;
  w.set_s64(20, (static_cast<std::uint64_t>(mix(500000)) << 32 | mix(500001)) | 1);
  const auto& stop = emu::test::run_body(*s);
  if (stop.kind != emu::Stop::Kind::none) f.stop = stop.message;
  for (unsigned r = 0; r < 48; ++r) f.v.insert(f.v.end(), w.v[r], w.v[r] + 64);
  f.s.assign(w.s.begin(), w.s.end());
  f.scc = w.scc;
  f.global = g.bytes;
  f.lds = s->group.lds;
  return f;
}

RC_GTEST_PROP(ScheduleProperty, RandomBlocksComputeTheSameOnTheEmulator, ()) {
  const Target t = *rc::gen::element(Target::gfx90a, Target::gfx942, Target::gfx950);
  const std::string text = random_block();
  auto p = parse_program(text, t, "<random>");
  RC_ASSERT(p.has_value());
  // XNACK off half the time: its soft-clause rule would otherwise undo many reorderings of memory instructions,
  // and the property is about the DAG, not that safety net.
  PassContext c;
  c.xnack = *rc::gen::arbitrary<bool>();
  const auto before = findings(*p, c.xnack);
  Rewriter r(*p);
  auto st = run_pass(Schedule{}, r, c);
  RC_ASSERT(st.has_value());
  RC_ASSERT(st->insts_delta == 0);
  const auto after = findings(*p, c.xnack);
  RC_ASSERT(no_new(before, after));
  const std::string scheduled = print_program(*p, PrintOptions{false, false});
  RC_TAG(st->edits > 0 ? "moved" : "unchanged");
  RC_LOG() << to_string(t) << (c.xnack ? " xnack" : "") << "\n-- original:\n" << text << "-- scheduled:\n" << scheduled;
  const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(1, 1000);
  const Final a = execute(text, t, seed);
  const Final b = execute(scheduled, t, seed);
  RC_ASSERT(a.stop.empty());
  RC_ASSERT(b.stop.empty());
  RC_ASSERT(a == b);
  // Idempotent on random code too.
  auto again = run_pass(Schedule{}, r, c);
  RC_ASSERT(again.has_value());
  RC_ASSERT(again->edits == 0u);
}

}  // namespace
}  // namespace asmevo::passes
