// Golden tests of waitcnt-min, nop-min, hazard-fix, dce, vgpr-compact and load-widen: small programs, each case
// commented with what the pass must (or must not) do and why, run for gfx90a, gfx942 and gfx950.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/pipeline.hpp"
#include "asmevo/passes/registry.hpp"

namespace asmevo::passes {
namespace {

constexpr Target kTargets[] = {Target::gfx90a, Target::gfx942, Target::gfx950};

struct Run {
  Program program;
  PassStats stats;
  std::string text;  // printed without ids
};

Run run(const char* pass, const std::string& src, Target t) {
  Run out;
  auto p = parse_program(src, t, "<test>");
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().str());
  if (!p) return out;
  out.program = std::move(*p);
  Rewriter r(out.program);
  const PassInfo* info = find_pass(pass);
  EXPECT_NE(info, nullptr) << pass;
  auto s = info->run(r, PassContext{});
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().str());
  if (s) out.stats = *s;
  PrintOptions po;
  po.ids = false;
  out.text = print_program(out.program, po);
  // Every pass leaves the checkers clean on these inputs, and a second run changes nothing (all claim idempotence).
  const auto g = analysis::build_cfg(out.program);
  const auto e = g.block_named("k");
  EXPECT_TRUE(e.has_value());
  if (e) {
    EXPECT_TRUE(analysis::check_waitcnt(out.program, g, *e, t).empty()) << pass << "\n" << out.text;
    EXPECT_TRUE(analysis::check_hazards(out.program, g, *e, t).empty()) << pass << "\n" << out.text;
  }
  auto again = info->run(r, PassContext{});
  EXPECT_TRUE(again && again->edits == 0) << pass << " is not idempotent on\n" << out.text;
  return out;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST(WaitcntMin, WeakensToTheCountTheReadNeedsAndKeepsStoreFences) {
  const std::string src =
      "k:\n"
      "  global_load_dword v1, v0, s[0:1]\n"
      "  global_load_dword v2, v0, s[0:1] offset:4\n"
      "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"  // only v1 is read next: vmcnt(1) covers it; nothing is on lgkmcnt
      "  v_add_u32 v3, v1, v1\n"
      "  s_waitcnt vmcnt(0)\n"             // v2: needs vmcnt(0)
      "  v_add_u32 v3, v3, v2\n"
      "  global_store_dword v0, v3, s[0:1]\n"
      "  s_waitcnt vmcnt(0)\n"             // a fence after a store: the load below may read what it wrote
      "  global_load_dword v4, v0, s[0:1]\n"
      "  s_waitcnt vmcnt(0)\n"
      "  global_store_dword v0, v4, s[0:1] offset:8\n"
      "  s_endpgm\n";
  for (const Target t : kTargets) {
    const auto r = run("waitcnt-min", src, t);
    EXPECT_TRUE(has(r.text, "s_waitcnt vmcnt(1)\n\tv_add_u32_e32 v3, v1, v1")) << r.text;
    EXPECT_TRUE(has(r.text, "global_store_dword v0, v3, s[0:1]\n\ts_waitcnt vmcnt(0)\n\tglobal_load_dword v4")) << r.text;
    EXPECT_EQ(r.stats.edits, 1u) << r.text;
  }
}

TEST(WaitcntMin, DropsAWaitForNothingAndKeepsOneBeforeABarrier) {
  const std::string src =
      "k:\n"
      "  v_mov_b32 v1, 1\n"
      "  s_waitcnt lgkmcnt(0)\n"          // nothing outstanding: dropped
      "  ds_write_b32 v0, v1\n"
      "  s_waitcnt lgkmcnt(0)\n"          // guards the barrier: other waves read this LDS after it
      "  s_barrier\n"
      "  ds_read_b32 v2, v0 offset:4\n"
      "  s_waitcnt lgkmcnt(0)\n"
      "  v_add_u32 v3, v2, v1\n"
      "  s_endpgm\n";
  for (const Target t : kTargets) {
    const auto r = run("waitcnt-min", src, t);
    EXPECT_TRUE(has(r.text, "v_mov_b32_e32 v1, 1\n\tds_write_b32 v0, v1\n\ts_waitcnt lgkmcnt(0)\n\ts_barrier")) << r.text;
    EXPECT_EQ(r.stats.insts_delta, -1) << r.text;
  }
}

TEST(WaitcntMin, KeepsAWaitForNothingThatIsADppReadsWaitState) {
  // A Triton cross-entropy kernel (bf16, gfx942): v_max3_f32 writes v2, a wait for nothing, one more instruction, and
  // a DPP v_mov_b32 reads v2, which needs 2 wait states after the VALU write (vgpr_write_dpp_read). The wait is one of
  // them: dropping it broke the rule. A second wait for nothing, before the VALU, is still dropped.
  const std::string src =
      "k:\n"
      "  v_mov_b32 v1, 1.0\n"
      "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"  // nothing outstanding, no hazard around: dropped
      "  v_max3_f32 v2, v0, v1, v2\n"
      "  s_waitcnt lgkmcnt(0)\n"           // nothing outstanding, but a wait state of the pair: kept (counts may relax)
      "  s_nop 0\n"
      "  v_mov_b32_dpp v3, v2 row_shr:1 row_mask:0xf bank_mask:0xf\n"
      "  s_endpgm\n";
  for (const Target t : kTargets) {
    const auto r = run("waitcnt-min", src, t);
    // Kept as a wait state; a later stage may relax its counts to ones that wait for nothing explicitly.
    const auto w = r.text.find("v_max3_f32 v2, v0, v1, v2\n\ts_waitcnt ");
    ASSERT_NE(w, std::string::npos) << r.text;
    EXPECT_EQ(r.text.find("\n\ts_nop 0\n\tv_mov_b32_dpp", w), r.text.find('\n', r.text.find("s_waitcnt", w))) << r.text;
    EXPECT_FALSE(has(r.text, "vmcnt(0)")) << r.text;
    EXPECT_EQ(r.stats.insts_delta, -1) << r.text;
    EXPECT_TRUE(std::any_of(r.stats.notes.begin(), r.stats.notes.end(),
                            [](const std::string& n) { return has(n, "a hazard needs"); }))
        << r.text;
  }
}

TEST(NopMin, ShrinksToWhatTheHazardNeedsAndDropsUnneededNops) {
  // v_readlane writes s4 from VALU; reading s4 as a VMEM address... keep it simple: a VALU write of vcc read as an
  // SGPR by v_readlane's lane select needs 4 wait states on gfx9 (MI300 ISA §4.5 "VALU writes SGPR/VCC ->
  // v_readlane/v_writelane lane select": 4). s_nop 7 (8 states) shrinks to s_nop 3; the s_nop at the top is dropped.
  const std::string src =
      "k:\n"
      "  s_nop 5\n"
      "  v_cmp_eq_u32 vcc, v0, v1\n"
      "  s_nop 7\n"
      "  v_readlane_b32 s6, v2, vcc_lo\n"
      "  s_endpgm\n";
  for (const Target t : kTargets) {
    const auto r = run("nop-min", src, t);
    EXPECT_FALSE(has(r.text, "s_nop 5")) << r.text;
    EXPECT_TRUE(has(r.text, "s_nop 3\n\tv_readlane_b32")) << r.text;
  }
}

TEST(HazardFix, InsertsTheFewestWaitStatesAndMergesIntoAnAdjacentNop) {
  const std::string src =
      "k:\n"
      "  v_cmp_eq_u32 vcc, v0, v1\n"
      "  v_readlane_b32 s6, v2, vcc_lo\n"   // needs 4 wait states after the VCC write
      "  s_endpgm\n";
  for (const Target t : kTargets) {
    const auto r = run("hazard-fix", src, t);
    EXPECT_TRUE(has(r.text, "v_cmp_eq_u32_e32 vcc, v0, v1\n\ts_nop 3\n\tv_readlane_b32")) << r.text;
    EXPECT_EQ(r.stats.insts_delta, 1) << r.text;
  }
}

TEST(Dce, DropsDeadChainsButNotMemoryExecOrScc) {
  const std::string src =
      "k:\n"
      "  v_add_u32 v5, v0, v0\n"            // only feeds v6, which is dead: both go
      "  v_mul_lo_u32 v6, v5, v5\n"
      "  s_add_u32 s8, s0, 1\n"             // s8 dead, but SCC is read by s_cselect: kept
      "  s_cselect_b32 s9, 1, 2\n"
      "  v_mov_b32 v7, s9\n"
      "  v_mov_b32 v8, 3\n"                 // overwritten before any read: dead
      "  v_mov_b32 v8, 4\n"
      "  global_store_dword v0, v7, s[0:1]\n"
      "  global_store_dword v0, v8, s[0:1] offset:4\n"
      "  s_endpgm\n";
  for (const Target t : kTargets) {
    const auto r = run("dce", src, t);
    EXPECT_FALSE(has(r.text, "v_add_u32")) << r.text;
    EXPECT_FALSE(has(r.text, "v_mul_lo_u32")) << r.text;
    EXPECT_FALSE(has(r.text, "v_mov_b32_e32 v8, 3")) << r.text;
    EXPECT_TRUE(has(r.text, "s_add_u32 s8, s0, 1")) << r.text;
    EXPECT_EQ(r.stats.insts_delta, -3) << r.text;
  }
}

// VGPRs with gaps that vgpr-compact closes (v8, v12, v21 move down; v0, the work-item id, stays).
constexpr const char* kGappyVgprs =
    "k:\n"
    "  v_mov_b32 v8, v0\n"
    "  v_mov_b32 v9, 0\n"
    "  global_load_dwordx2 v[12:13], v[8:9], off\n"
    "  s_waitcnt vmcnt(0)\n"
    "  v_add_u32 v21, v12, v13\n"
    "  global_store_dword v[8:9], v21, off\n"
    "  s_endpgm\n";

TEST(VgprCompact, ClosesGapsKeepingTuplesAlignedAndEntryRegistersInPlace) {
  const std::string src = kGappyVgprs;
  for (const Target t : kTargets) {
    const auto r = run("vgpr-compact", src, t);
    // v0 is live at the entry (the work-item id) and stays; v8.. move down by even steps.
    EXPECT_TRUE(has(r.text, "v_mov_b32_e32 v2, v0\n\tv_mov_b32_e32 v3, 0\n\tglobal_load_dwordx2 v[4:5], v[2:3], off")) << r.text;
    EXPECT_TRUE(has(r.text, "v_add_u32_e32 v7, v4, v5")) << r.text;  // v21 -> v7 (one odd register stays a gap)
    EXPECT_TRUE(r.stats.shrinks_resources);
  }
}

// A pipeline's stats sum its passes': vgpr-compact inside one still asks the rebuild for an exact recount.
TEST(Pipeline, SumsItsPassesStatsAndKeepsShrinksResources) {
  const std::string src = kGappyVgprs;
  for (const Target t : kTargets) {
    auto p = parse_program(src, t, "<test>");
    ASSERT_TRUE(p.has_value()) << p.error().str();
    Rewriter r(*p);
    auto s = run_pass(pipeline(WaitcntMin{}, VgprCompact{}, Dce{}), r, PassContext{});
    ASSERT_TRUE(s.has_value()) << s.error().str();
    EXPECT_TRUE(s->shrinks_resources);
    EXPECT_EQ(s->edits, r.log().size());
    EXPECT_GT(s->edits, 0u);
    auto each = pipeline(WaitcntMin{}, VgprCompact{}, Dce{}).run(r, PassContext{});  // idempotent by now
    ASSERT_TRUE(each.has_value());
    EXPECT_EQ(each->edits, 0u);
    // Without vgpr-compact nothing asks for the recount.
    auto q = parse_program(src, t, "<test>");
    ASSERT_TRUE(q.has_value());
    Rewriter r2(*q);
    auto s2 = run_pass(pipeline(WaitcntMin{}, Dce{}), r2, PassContext{});
    ASSERT_TRUE(s2.has_value());
    EXPECT_FALSE(s2->shrinks_resources);
  }
}

TEST(LoadWiden, MergesAdjacentGlobalAndLdsAccessesOnly) {
  const std::string src =
      "k:\n"
      "  global_load_dword v4, v2, s[0:1] offset:8\n"
      "  global_load_dword v5, v2, s[0:1] offset:12\n"   // -> dwordx2 v[4:5] offset:8
      "  global_load_dword v7, v2, s[0:1] offset:16\n"   // v7 does not follow v5: stays
      "  ds_read_b32 v10, v3 offset:4\n"
      "  ds_read_b32 v11, v3 offset:64\n"               // -> ds_read2_b32 offset0:1 offset1:16
      "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"
      "  v_add_u32 v4, v4, v5\n"
      "  v_add_u32 v4, v4, v10\n"
      "  v_add_u32 v4, v4, v11\n"
      "  v_add_u32 v4, v4, v7\n"
      "  global_store_dword v2, v4, s[0:1]\n"
      "  v_mov_b32 v5, 1\n"                              // writes the second store's data between: no merge
      "  global_store_dword v2, v5, s[0:1] offset:4\n"
      "  s_endpgm\n";
  for (const Target t : kTargets) {
    const auto r = run("load-widen", src, t);
    EXPECT_TRUE(has(r.text, "global_load_dwordx2 v[4:5], v2, s[0:1] offset:8\n\tglobal_load_dword v7")) << r.text;
    EXPECT_TRUE(has(r.text, "ds_read2_b32 v[10:11], v3 offset0:1 offset1:16")) << r.text;
    EXPECT_TRUE(has(r.text, "global_store_dword v2, v5, s[0:1] offset:4")) << r.text;
    EXPECT_EQ(r.stats.insts_delta, -2) << r.text;
  }
}

TEST(LoadWiden, TheMergedInstructionKeepsAddressOffsetAndCacheBits) {
  // `off` addressing and a cache-policy bit carry over to the wider store (its op picked at run time), its data
  // registers join; two LDS writes pair into ds_write2_b32 with any data registers.
  for (const Target t : kTargets) {
    const std::string cpol = t == Target::gfx90a ? "slc" : "nt";
    const std::string src = "k:\n"
                            "  global_store_dwordx2 v[2:3], v[4:5], off offset:16 " + cpol + "\n"
                            "  global_store_dword v[2:3], v6, off offset:24 " + cpol + "\n"
                            "  ds_write_b32 v1, v9 offset:8\n"
                            "  ds_write_b32 v1, v8 offset:12\n"
                            "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"
                            "  s_endpgm\n";
    const auto r = run("load-widen", src, t);
    EXPECT_TRUE(has(r.text, "global_store_dwordx3 v[2:3], v[4:6], off offset:16 " + cpol + "\n")) << r.text;
    EXPECT_TRUE(has(r.text, "ds_write2_b32 v1, v9, v8 offset0:2 offset1:3\n")) << r.text;
    EXPECT_EQ(r.stats.insts_delta, -2) << r.text;
  }
}

TEST(LoadWiden, NoMergeWhenTheNextWaitCountsTheSeparateOperations) {
  // vmcnt(1) after two loads waits for the first; merged, the one load would not be waited for at all.
  const std::string precise =
      "k:\n"
      "  global_load_dword v4, v2, s[0:1]\n"
      "  global_load_dword v5, v2, s[0:1] offset:4\n"
      "  s_waitcnt vmcnt(1)\n"
      "  global_store_dword v2, v4, s[0:1] offset:8\n"
      "  s_waitcnt vmcnt(0)\n"
      "  global_store_dword v2, v5, s[0:1] offset:12\n"
      "  s_endpgm\n";
  // vmcnt(2) retires the store before the barrier; with the loads merged it would retire nothing.
  const std::string fence =
      "k:\n"
      "  global_store_dword v2, v3, s[0:1] offset:64\n"
      "  global_load_dword v4, v2, s[0:1]\n"
      "  global_load_dword v5, v2, s[0:1] offset:4\n"
      "  s_waitcnt vmcnt(2)\n"
      "  s_barrier\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_u32 v4, v4, v5\n"
      "  global_store_dword v2, v4, s[0:1] offset:8\n"
      "  s_endpgm\n";
  for (const Target t : kTargets)
    for (const auto& src : {precise, fence}) {
      const auto r = run("load-widen", src, t);
      EXPECT_FALSE(has(r.text, "dwordx2")) << r.text;
    }
}

TEST(WaitcntMin, KeepsWaitsThatOrderMemoryTheRegisterCheckCannotSee) {
  // (a) an acquire: the wait before buffer_inv orders the invalidate after the load (LLVM SIMemoryLegalizer);
  // (b) a label between the wait and s_barrier; (c) another wait between the wait and s_barrier;
  // (d) a FLAT load pending: vmcnt may retire out of order, so the store's vmcnt(0) fence stays.
  const std::string acquire =
      "k:\n  global_load_dword v2, v0, s[0:1] sc1\n  s_waitcnt vmcnt(0)\n  buffer_inv sc1\n"
      "  global_load_dword v3, v0, s[0:1] offset:4\n  s_waitcnt vmcnt(0)\n  v_add_u32 v4, v2, v3\n"
      "  global_store_dword v0, v4, s[0:1]\n  s_endpgm\n";
  const std::string label =
      "k:\n  ds_read_b32 v2, v0\n  s_waitcnt lgkmcnt(0)\n.Lnext:\n  s_barrier\n  ds_write_b32 v0, v1\n"
      "  v_add_u32 v3, v2, v2\n  global_store_dword v0, v3, s[0:1]\n  s_endpgm\n";
  const std::string two_waits =
      "k:\n  global_store_dword v0, v1, s[0:1]\n  ds_write_b32 v0, v1\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n"
      "  s_waitcnt lgkmcnt(0)\n  s_barrier\n  s_endpgm\n";
  const std::string flat =
      "k:\n  global_store_dword v0, v1, s[0:1]\n  flat_load_dword v4, v[2:3]\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n"
      "  global_load_dword v5, v0, s[0:1]\n  s_waitcnt vmcnt(0)\n  v_add_u32 v5, v5, v4\n"
      "  global_store_dword v0, v5, s[0:1] offset:4\n  s_endpgm\n";
  for (const Target t : {Target::gfx90a, Target::gfx942}) {
    const std::string inv = t == Target::gfx90a ? "buffer_wbinvl1_vol" : "buffer_inv sc1";
    std::string a = acquire;
    a.replace(a.find("buffer_inv sc1"), 14, inv);
    if (t == Target::gfx90a) a.replace(a.find(" sc1\n"), 4, " glc");
    const auto ra = run("waitcnt-min", a, t);
    EXPECT_TRUE(has(ra.text, "s_waitcnt vmcnt(0)\n\t" + inv)) << ra.text;
    const auto rb = run("waitcnt-min", label, t);
    EXPECT_TRUE(has(rb.text, "s_waitcnt lgkmcnt(0)\n.Lnext:")) << rb.text;
    const auto rc = run("waitcnt-min", two_waits, t);
    EXPECT_TRUE(has(rc.text, "s_waitcnt vmcnt(0) lgkmcnt(0)")) << rc.text;
    const auto rd = run("waitcnt-min", flat, t);
    EXPECT_TRUE(has(rd.text, "flat_load_dword v4, v[2:3]\n\ts_waitcnt vmcnt(0)")) << rd.text;
  }
}

TEST(Passes, RestrictedToTheLaunchTheyLeaveEveryBlockWithAnUnexercisedInstructionAlone) {
  // Two kernels with the same dead move (in a register vgpr-compact would renumber) and a needless s_nop; the launch
  // ran only the first (i0..i2). Each pass changes `k` as usual and leaves `k2` as it is.
  const std::string src =
      "k:\n  v_mov_b32 v8, 3\n  s_nop 4\n  s_endpgm\n"
      "k2:\n  v_mov_b32 v8, 3\n  s_nop 4\n  s_endpgm\n";
  for (const char* pass : {"dce", "nop-min", "vgpr-compact"})
    for (const Target t : kTargets) {
      auto p = parse_program(src, t, "<test>");
      ASSERT_TRUE(p.has_value());
      Rewriter r(*p);
      PassContext c;
      c.kernels = {"k", "k2"};
      c.not_exercised = std::make_shared<const std::unordered_set<std::uint32_t>>(std::unordered_set<std::uint32_t>{3, 4, 5});
      auto s = find_pass(pass)->run(r, c);
      ASSERT_TRUE(s.has_value()) << s.error().str();
      PrintOptions po;
      po.ids = false;
      const std::string text = print_program(*p, po);
      const std::string k = text.substr(0, text.find("k2:")), k2 = text.substr(text.find("k2:"));
      EXPECT_NE(k2.find(std::string(pass) != "nop-min" ? "v_mov_b32_e32 v8, 3" : "s_nop 4"), std::string::npos) << pass << "\n" << text;
      EXPECT_EQ(k.find(std::string(pass) != "nop-min" ? "v_mov_b32_e32 v8, 3" : "s_nop 4"), std::string::npos) << pass << "\n" << text;
      // Unrestricted, the same pass changes both.
      auto q = parse_program(src, t, "<test>");
      ASSERT_TRUE(q.has_value());
      Rewriter rq(*q);
      c.not_exercised.reset();
      ASSERT_TRUE(find_pass(pass)->run(rq, c).has_value());
      EXPECT_EQ(print_program(*q, po).find(std::string(pass) != "nop-min" ? "v_mov_b32_e32 v8, 3" : "s_nop 4"), std::string::npos);
    }
}

TEST(Registry, ListsEveryPassOnceWithASummaryAndParsesArguments) {
  std::set<std::string_view> names;
  for (const auto& p : builtin_passes()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_FALSE(p.summary.empty()) << p.name;
  }
  auto ok = parse_pass_list("waitcnt-min,dce:a=1:b=x");
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)[1].args.at("b"), "x");
  auto bad = parse_pass_list("waitcnt-min,nope,dce:broken");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error().message, "unknown pass 'nope'")) << bad.error().message;
  EXPECT_TRUE(has(bad.error().message, "'broken' is not key=value")) << bad.error().message;
}

}  // namespace
}  // namespace asmevo::passes
