// Tests of the wait-state rules (analysis/hazard_rules.hpp) and their check as instructions run (emu/hazards.hpp):
// for each rule family a snippet padded as the rule requires runs clean, and the same snippet one wait state short
// stops with a hazard violation naming the consumer, the producer and the rule. The distances are the ones of the
// ISA guides' tables as LLVM's GCNHazardRecognizer encodes them, written out here by hand. Real Triton gfx942
// MFMA kernels run clean, and edited to read an MFMA result too early, stop.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/hazards.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;

/// A snippet run with the hazard check on.
struct HzRun {
  std::unique_ptr<emu::test::Snippet> s;
  HazardTable table;
  HazardState state;
  Stop stop;
  [[nodiscard]] InstId id(std::size_t op_index) const { return s->code.ops.at(op_index).id; }
};

using Init = void (*)(emu::test::Snippet&);

std::unique_ptr<HzRun> run_hz(const std::string& text, Target t, Init init = nullptr) {
  auto r = std::make_unique<HzRun>();
  r->s = emu::test::make_snippet(text, t);
  if (!r->s) return nullptr;
  r->table = build_hazard_table(r->s->code, t);
  r->state.reset(&r->table);
  r->s->wave().hazards = &r->state;
  r->s->machine.hooks.before = &hazard_check;
  if (init) init(*r->s);
  r->stop = r->s->run();
  return r;
}

/// `n` wait states of padding: nothing, or one s_nop n-1.
std::string pad(int n) { return n <= 0 ? std::string() : "\ts_nop " + std::to_string(n - 1) + "\n"; }

/// One rule family: `setup` (ops before the producer), the producer line, the consumer line, and the distance the
/// rule requires (from the ISA guide / LLVM table, not from the code under test).
struct Case {
  const char* rule;
  Target target;
  int setup_ops;
  const char* setup;
  const char* producer;
  const char* consumer;
  int need;
  Init init = nullptr;
};

/// Runs `c` padded with `need` wait states (must be clean) and with `need - 1` (must stop at the consumer).
void check_case(const Case& c) {
  SCOPED_TRACE(std::string(c.rule) + " on " + std::string(to_string(c.target)));
  const std::string head = std::string(c.setup) + "\t" + c.producer + "\n";
  {
    auto r = run_hz(head + pad(c.need) + "\t" + c.consumer + "\n", c.target, c.init);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->stop.kind, Stop::Kind::none) << r->stop.message;
  }
  {
    auto r = run_hz(head + pad(c.need - 1) + "\t" + c.consumer + "\n", c.target, c.init);
    ASSERT_TRUE(r);
    const std::size_t prod = static_cast<std::size_t>(c.setup_ops);
    const std::size_t cons = prod + 1 + (c.need - 1 > 0 ? 1 : 0);
    ASSERT_EQ(r->stop.kind, Stop::Kind::hazard) << r->stop.message;
    EXPECT_EQ(r->stop.inst, r->id(cons)) << r->stop.message;
    ASSERT_TRUE(r->stop.has_other);
    EXPECT_EQ(r->stop.other, r->id(prod)) << r->stop.message;
    EXPECT_NE(r->stop.message.find(c.rule), std::string::npos) << r->stop.message;
    EXPECT_NE(r->stop.message.find("requires " + std::to_string(c.need) + ":"), std::string::npos) << r->stop.message;
    // The consumer never ran: the check precedes execution.
    EXPECT_EQ(r->s->wave().executed, cons);
  }
}

/// A global buffer at s[4:5] (low half in v1 lanes for v_readfirstlane) / v[0:1], zeroed.
void global_buffer(emu::test::Snippet& s) {
  const std::size_t r = s.machine.memory.map("buf", 4096, true);
  const std::uint64_t base = s.machine.memory.region(r).base;
  Wave& w = s.wave();
  for (unsigned l = 0; l < wave_lanes; ++l) {
    w.row(0)[l] = static_cast<std::uint32_t>(base + 16 * l);
    w.row(1)[l] = static_cast<std::uint32_t>((base + 16 * l) >> 32);
    w.row(3)[l] = 0;
    w.row(10)[l] = static_cast<std::uint32_t>(base);
  }
  w.s[5] = static_cast<std::uint32_t>(base >> 32);
}

TEST(Hazards, ValuSaluRules) {
  const Case cases[] = {
      // VALU writes an SGPR a VMEM instruction reads as its address: 5 (MI300 ISA §4.5; LLVM checkVMEMHazards).
      {"valu_sgpr_vmem", Target::gfx942, 0, "", "v_readfirstlane_b32 s4, v10",
       "global_load_dword v2, v3, s[4:5]\n\ts_waitcnt vmcnt(0)", 5, global_buffer},
      {"valu_sgpr_vmem", Target::gfx90a, 0, "", "v_readfirstlane_b32 s4, v10",
       "global_load_dword v2, v3, s[4:5]\n\ts_waitcnt vmcnt(0)", 5, global_buffer},
      // VALU writes VCC, v_div_fmas reads it: 4 (LLVM checkDivFMasHazards).
      {"valu_vcc_div_fmas", Target::gfx942, 0, "", "v_div_scale_f32 v2, vcc, v0, v0, v1",
       "v_div_fmas_f32 v3, v0, v1, v2", 4},
      {"valu_vcc_div_fmas", Target::gfx90a, 0, "", "v_div_scale_f32 v2, vcc, v0, v0, v1",
       "v_div_fmas_f32 v3, v0, v1, v2", 4},
      // VALU writes the lane select of v_readlane: 4 (LLVM checkRWLaneHazards).
      {"valu_sgpr_lane_select", Target::gfx90a, 0, "", "v_readfirstlane_b32 s2, v0", "v_readlane_b32 s3, v1, s2", 4},
      {"valu_sgpr_lane_select", Target::gfx942, 0, "", "v_readfirstlane_b32 s2, v0", "v_readlane_b32 s3, v1, s2", 4},
      // s_setreg then s_getreg / s_setreg of the same register: 2 (LLVM checkGetRegHazards / checkSetRegHazards).
      {"setreg_getreg", Target::gfx942, 0, "", "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0",
       "s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 4)", 2},
      {"setreg_setreg", Target::gfx90a, 0, "", "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0",
       "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0", 2},
      // A VGPR written, then read by DPP: 2; EXEC written by a VALU, then DPP: 5 (LLVM checkDPPHazards).
      {"vgpr_write_dpp_read", Target::gfx942, 0, "", "v_mov_b32_e32 v1, v0",
       "v_mov_b32_dpp v2, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 2},
      {"valu_exec_dpp", Target::gfx90a, 0, "", "v_cmpx_eq_u32_e32 vcc, v0, v0",
       "v_mov_b32_dpp v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 5},
      // SALU writes M0, s_movrels reads it: 1 (LLVM checkReadM0Hazards).
      {"salu_m0_movrel", Target::gfx942, 0, "", "s_mov_b32 m0, 0", "s_movrels_b32 s1, s2", 1},
      // A store of more than 64 bits, then a VALU overwrites its data: 2 on gfx942, 1 on gfx90a (LLVM
      // checkVALUHazardsHelper).
      {"wide_store_data_valu_write", Target::gfx942, 0, "", "global_store_dwordx4 v[0:1], v[4:7], off",
       "v_mov_b32_e32 v5, 0", 2, global_buffer},
      {"wide_store_data_valu_write", Target::gfx90a, 0, "", "global_store_dwordx4 v[0:1], v[4:7], off",
       "v_mov_b32_e32 v5, 0", 1, global_buffer},
      // gfx940+ VALU forwarding: trans result 1, SGPR or VCC read as a constant 2, readlane source 1, EXEC then
      // readlane 4, partial (dst_sel) write 1 (MI300 ISA §4.5 Table 11; LLVM checkVALUHazards).
      {"trans_result_valu_read", Target::gfx942, 0, "", "v_exp_f32_e32 v1, v0", "v_add_f32_e32 v2, v1, v1", 1},
      {"valu_sgpr_valu_read", Target::gfx942, 0, "", "v_cmp_gt_u32_e64 s[0:1], v0, v1", "v_add_u32_e32 v2, s1, v1", 2},
      {"valu_sgpr_valu_read", Target::gfx942, 0, "", "v_cmp_eq_u32_e32 vcc, 0, v0", "v_add_u32_e32 v2, vcc_lo, v1", 2},
      {"valu_vgpr_readlane", Target::gfx942, 0, "", "v_mov_b32_e32 v1, v0", "v_readfirstlane_b32 s0, v1", 1},
      {"valu_exec_rw_lane", Target::gfx942, 0, "", "v_cmpx_eq_u32_e32 vcc, v0, v0", "v_readfirstlane_b32 s0, v1", 4},
      {"valu_vgpr_permlane_swap", Target::gfx950, 0, "", "v_mov_b32_e32 v1, v0", "v_permlane32_swap_b32_e32 v2, v1", 2},
      {"valu_vgpr_permlane_swap", Target::gfx950, 0, "", "v_mov_b32_e32 v2, v0", "v_permlane16_swap_b32_e32 v2, v1", 2},
      {"valu_exec_permlane_swap", Target::gfx950, 0, "", "v_cmpx_eq_u32_e32 vcc, v0, v0",
       "v_permlane32_swap_b32_e32 v2, v1", 4},
      {"dst_sel_result_valu_read", Target::gfx942, 0, "",
       "v_mov_b32_sdwa v1, v0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD", "v_add_u32_e32 v2, v1, v1", 1},
      {"packed_result_valu_read", Target::gfx950, 0, "", "v_pk_mul_f32 v[4:5], v[4:5], v[6:7]",
       "v_cvt_pk_bf16_f32 v4, v4, v5", 1},
      // DOT result read by another VALU: 3 (LLVM checkMAIVALUHazards DotWriteDifferentVALURead).
      {"dot_write_valu_read", Target::gfx942, 0, "", "v_dot2_f32_f16 v2, v0, v1, v2", "v_add_f32_e32 v3, v2, v2", 3},
      // gfx940+: an SGPR/VCC a VALU wrote, read as a lane mask or carry-in: 2 (LLVM checkVALUHazards,
      // hasVDecCoExecHazard: explicit SGPR uses and readsRegister(VCC), VALUWriteSGPRVALUReadWaitstates = 2).
      {"valu_sgpr_valu_mask_read", Target::gfx950, 0, "", "v_cmp_le_u32_e32 vcc, v0, v1",
       "v_cndmask_b32_e32 v2, v0, v1, vcc", 2},
      {"valu_sgpr_valu_mask_read", Target::gfx942, 0, "", "v_cmp_gt_u32_e64 s[0:1], v0, v1",
       "v_cndmask_b32_e64 v2, v0, v1, s[0:1]", 2},
      {"valu_sgpr_valu_mask_read", Target::gfx942, 0, "", "v_add_co_u32_e32 v2, vcc, v0, v1",
       "v_addc_co_u32_e32 v3, vcc, v0, v1, vcc", 2},
      // XNACK soft clauses (LLVM checkSoftClauseHazards; a snippet's target has XNACK "any"): a load overwriting the
      // address the load before it read needs a break of 1 (s_nop 0); so does a store after a load.
      {"xnack_soft_clause", Target::gfx90a, 0, "", "global_load_dword v2, v[0:1], off",
       "global_load_dword v1, v[0:1], off\n\ts_waitcnt vmcnt(0)", 1, global_buffer},
      {"xnack_soft_clause", Target::gfx942, 0, "", "global_load_dword v2, v[0:1], off",
       "global_load_dword v0, v[0:1], off\n\ts_waitcnt vmcnt(0)", 1, global_buffer},
      {"xnack_soft_clause", Target::gfx950, 0, "", "global_load_dword v2, v[0:1], off",
       "global_store_dword v[0:1], v3, off\n\ts_waitcnt vmcnt(0)", 1, global_buffer},
  };
  for (const Case& c : cases) check_case(c);
}

TEST(Hazards, SoftClauseOnlyWithXnack) {
  // A target id with xnack- has no soft-clause hazard (LLVM checkSoftClauseHazards returns 0 unless
  // isXNACKEnabled); XNACK on or any stops the same code at the second load.
  const std::string text = "\tglobal_load_dword v2, v[0:1], off\n\tglobal_load_dword v1, v[0:1], off\n"
                           "\ts_waitcnt vmcnt(0)\n";
  for (const bool xnack : {true, false}) {
    HzRun r;
    r.s = emu::test::make_snippet(text, Target::gfx942);
    ASSERT_TRUE(r.s);
    r.table = build_hazard_table(r.s->code, Target::gfx942, xnack);
    r.state.reset(&r.table);
    r.s->wave().hazards = &r.state;
    r.s->machine.hooks.before = &hazard_check;
    global_buffer(*r.s);
    r.stop = r.s->run();
    EXPECT_EQ(r.stop.kind, xnack ? Stop::Kind::hazard : Stop::Kind::none) << xnack << ": " << r.stop.message;
    if (xnack) {
      EXPECT_EQ(r.stop.inst, r.id(1));
      EXPECT_EQ(r.stop.other, r.id(0));
      EXPECT_NE(r.stop.message.find("xnack_soft_clause"), std::string::npos) << r.stop.message;
    }
  }
}

TEST(Hazards, RulesOfOtherTargetsDoNotFire) {
  // gfx90a has no VALU-to-VALU SGPR, VCC or transcendental forwarding hazards (GCNSubtarget::hasVDecCoExecHazard /
  // hasTransForwardingHazard are gfx940+): the gfx942 patterns run clean unpadded there.
  for (const char* text : {"v_cmp_eq_u32_e32 vcc, 0, v0\n\tv_cndmask_b32_e32 v2, v0, v1, vcc",
                           "v_exp_f32_e32 v1, v0\n\tv_add_f32_e32 v2, v1, v1",
                           "v_readfirstlane_b32 s4, v1\n\tv_add_u32_e32 v2, s4, v1"}) {
    auto r = run_hz(std::string("\t") + text + "\n", Target::gfx90a);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->stop.kind, Stop::Kind::none) << text << ": " << r->stop.message;
  }
  // A DPP instruction's non-DPP source needs no wait states on gfx942 (MI300 ISA §4.5 Table 11). (A carry-in or
  // lane mask, which the table also exempts, follows LLVM: valu_sgpr_valu_mask_read in ValuSaluRules.)
  for (const char* text : {"v_mov_b32_e32 v1, v0\n\tv_add_f32_dpp v2, v3, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"}) {
    auto c = run_hz(std::string("\t") + text + "\n", Target::gfx942);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->stop.kind, Stop::Kind::none) << text << ": " << c->stop.message;
  }
  // s_setreg of one register does not delay s_getreg of another.
  auto r = run_hz("\ts_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0\n\ts_getreg_b32 s1, hwreg(HW_REG_TRAPSTS, 0, 4)\n",
                  Target::gfx942);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stop.kind, Stop::Kind::none) << r->stop.message;
}

TEST(Hazards, NearerSgprWriterHidesTheValuWrite) {
  // An SALU write of an SGPR after a VALU wrote it is what a later VALU or VMEM reader sees; SALU writes and SALU
  // reads of a VALU-written SGPR are interlocked (MI300 ISA (CDNA3) §4.5 Table 11 has no row for either), so
  // valu_sgpr_valu_read (2) and valu_sgpr_vmem (5) do not apply. LLVM pads these anyway (its search skips non-VALU
  // writers): the rule rows depart from it on purpose, and the run-time check agrees with the static one.
  for (const char* text : {"v_readlane_b32 s82, v3, 0\n\ts_and_b32 s82, s82, 0xffffff\n\tv_mul_lo_u32 v6, v5, s82",
                           "v_readfirstlane_b32 s4, v1\n\ts_mov_b32 s4, 0\n\tv_add_u32_e32 v2, s4, v1",
                           "v_cmp_gt_u32_e64 s[0:1], v0, v1\n\ts_mov_b64 s[0:1], exec\n\tv_add_u32_e32 v2, s1, v1"}) {
    auto r = run_hz(std::string("\t") + text + "\n", Target::gfx942);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->stop.kind, Stop::Kind::none) << text << ": " << r->stop.message;
  }
  {
    // The load's address: s4 rewritten by an SALU (with its own value), s5 never written by a VALU.
    auto r = run_hz("\tv_readfirstlane_b32 s4, v10\n\ts_mov_b32 s4, s4\n\tglobal_load_dword v2, v3, s[4:5]\n"
                    "\ts_waitcnt vmcnt(0)\n",
                    Target::gfx942, global_buffer);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->stop.kind, Stop::Kind::none) << r->stop.message;
  }
  // A write of another SGPR in between, or a conditional one (s_cmov: only when SCC is set), hides nothing.
  struct Bad {
    const char* text;
    const char* rule;
    Init init;
  };
  for (const Bad& b : {Bad{"v_readlane_b32 s82, v3, 0\n\ts_and_b32 s83, s83, 0xffffff\n\tv_mul_lo_u32 v6, v5, s82",
                           "valu_sgpr_valu_read", nullptr},
                       Bad{"v_readfirstlane_b32 s4, v10\n\ts_mov_b32 s5, s5\n\tglobal_load_dword v2, v3, s[4:5]\n"
                           "\ts_waitcnt vmcnt(0)",
                           "valu_sgpr_vmem", global_buffer},
                       Bad{"v_readfirstlane_b32 s4, v1\n\ts_cmov_b32 s4, 0\n\tv_add_u32_e32 v2, s4, v1",
                           "valu_sgpr_valu_read", nullptr},
                       Bad{"v_cmp_gt_u32_e64 s[0:1], v0, v1\n\ts_mov_b32 s0, 0\n\tv_add_u32_e32 v2, s1, v1",
                           "valu_sgpr_valu_read", nullptr}}) {
    SCOPED_TRACE(b.text);
    auto r = run_hz(std::string("\t") + b.text + "\n", Target::gfx942, b.init);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->stop.kind, Stop::Kind::hazard) << r->stop.message;
    EXPECT_EQ(r->stop.inst, r->id(2));
    EXPECT_EQ(r->stop.other, r->id(0));
    EXPECT_NE(r->stop.message.find(b.rule), std::string::npos) << r->stop.message;
    EXPECT_NE(r->stop.message.find("issues 1 wait state "), std::string::npos) << r->stop.message;
  }
}

TEST(Hazards, RunTimeCheckStopsOnRowsAmdKernelsBreak) {
  // The static checker reports the rows AMD's aiter kernels break (HazardRule::contested) as warnings; the run-time
  // check still stops on them: an XDL result read 6 wait states after v_mfma_f32_16x16x16_f16 (7 required).
  auto r = run_hz("\tv_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0\n" + pad(6) + "\tv_mov_b32_e32 v8, v0\n",
                  Target::gfx942);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->stop.kind, Stop::Kind::hazard) << r->stop.message;
  EXPECT_NE(r->stop.message.find("xdl_write_valu_mem_read"), std::string::npos) << r->stop.message;
}

TEST(Hazards, MfmaRules) {
  // gfx942 v_mfma_f32_16x16x16_f16: XDL, 4 passes (MI300 ISA §7; LLVM SISchedule Write4PassMAI); 32x32x8_f16:
  // XDL, 8 passes. gfx90a v_mfma_f32_16x16x16f16: 8 passes; 4x4x4f16: 2 passes.
  const Case cases[] = {
      // An MFMA result read by a VALU: XDL passes + 3 = 7 (gfx942), passes + 3 = 11 (gfx90a, 8 passes).
      {"xdl_write_valu_mem_read", Target::gfx942, 0, "", "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mov_b32_e32 v8, v0", 7},
      {"xdl_write_valu_mem_read", Target::gfx942, 0, "", "v_mfma_f32_32x32x8_f16 a[0:15], v[4:5], v[6:7], 0",
       "v_accvgpr_read_b32 v8, a5", 11},
      {"smfma_write_valu_mem_read", Target::gfx90a, 0, "", "v_mfma_f32_16x16x16f16 a[0:3], v[4:5], v[6:7], 0",
       "v_accvgpr_read_b32 v8, a3", 11},
      // An MFMA result read by a memory instruction (as store data): the same distance on gfx942.
      {"xdl_write_valu_mem_read", Target::gfx942, 0, "", "v_mfma_f32_16x16x16_f16 v[4:7], v[8:9], v[10:11], 0",
       "global_store_dword v[0:1], v5, off", 7, global_buffer},
      // A VALU write read by an MFMA: 2; a VALU write of EXEC before an MFMA: 4 (LLVM checkMAIHazards90A).
      {"valu_vgpr_mfma_read", Target::gfx942, 0, "", "v_mov_b32_e32 v5, 0",
       "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0", 2},
      {"valu_exec_mfma", Target::gfx942, 0, "", "v_cmpx_eq_u32_e32 vcc, v0, v0",
       "v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], 0", 4},
      // SrcC overlapping, not equal to, the previous XDL result: passes + 1 = 5 (gfx942).
      {"xdl_overlap_srcc_xdl", Target::gfx942, 0, "", "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], v[2:5]", 5},
      // SrcC partially overlapping on gfx90a: passes = 8.
      {"smfma_overlap_srcc_smfma", Target::gfx90a, 0, "", "v_mfma_f32_16x16x16f16 a[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_16x16x16f16 a[8:11], v[4:5], v[6:7], a[2:5]", 8},
      // A 2-pass MFMA result as the exact SrcC of the next: 2 on gfx942.
      {"mfma2_full_srcc", Target::gfx942, 0, "", "v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3]", 2},
      // An MFMA result read as SrcA/SrcB: XDL passes + 3 = 7 (gfx942), passes + 3 = 11 (gfx90a).
      {"xdl_write_srcab", Target::gfx942, 0, "", "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_16x16x16_f16 v[8:11], v[2:3], v[6:7], 0", 7},
      {"smfma_write_srcab", Target::gfx90a, 0, "", "v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_16x16x16f16 v[8:11], v[2:3], v[6:7], 0", 11},
      // A VALU overwriting what an XDL MFMA reads as SrcC: passes - 1 = 3 (gfx942 4 passes).
      {"mfma_srcc_valu_overwrite", Target::gfx942, 0, "",
       "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[8:11]", "v_mov_b32_e32 v9, 0", 3},
      // A VALU overwriting an MFMA result (WAW): XDL passes + 3 = 7.
      {"xdl_write_valu_write", Target::gfx942, 0, "", "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mov_b32_e32 v1, 0", 7},
  };
  for (const Case& c : cases) check_case(c);
}

TEST(Hazards, AccumulatingInPlaceNeedsNoWait) {
  // The exact SrcC chain of a 4-pass XDL MFMA has no wait-state rule on gfx942 (hardware forwards it; LLVM
  // checkMAIHazards90A FullReg with more than 2 passes needs 0): back-to-back accumulation runs clean.
  auto r = run_hz("\tv_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0\n"
                  "\tv_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]\n"
                  "\tv_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]\n",
                  Target::gfx942);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stop.kind, Stop::Kind::none) << r->stop.message;
}

TEST(Hazards, MovingAnMfmaReadOneInstructionEarlier) {
  // Seven independent instructions between an XDL 4-pass MFMA and the read of its result satisfy passes + 3 = 7;
  // moving the read above the last of them leaves 6 and is reported, naming both instructions and the rule.
  std::string fill;
  for (int k = 0; k < 7; ++k) fill += "\tv_mov_b32_e32 v" + std::to_string(20 + k) + ", 0\n";
  const std::string mfma = "\tv_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0\n";
  const std::string read = "\tv_add_f32_e32 v8, v0, v1\n";
  auto ok = run_hz(mfma + fill + read, Target::gfx942);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->stop.kind, Stop::Kind::none) << ok->stop.message;
  std::string early_fill;
  for (int k = 0; k < 6; ++k) early_fill += "\tv_mov_b32_e32 v" + std::to_string(20 + k) + ", 0\n";
  auto bad = run_hz(mfma + early_fill + read + "\tv_mov_b32_e32 v26, 0\n", Target::gfx942);
  ASSERT_TRUE(bad);
  ASSERT_EQ(bad->stop.kind, Stop::Kind::hazard) << bad->stop.message;
  EXPECT_EQ(bad->stop.inst, bad->id(7));
  EXPECT_EQ(bad->stop.other, bad->id(0));
  EXPECT_NE(bad->stop.message.find("xdl_write_valu_mem_read"), std::string::npos) << bad->stop.message;
  EXPECT_NE(bad->stop.message.find("GCNHazardRecognizer"), std::string::npos) << bad->stop.message;
}

TEST(Hazards, NearestMfmaWriterDecides) {
  // LLVM looks for the nearest MFMA writing the register (checkMAIVALUHazards getWaitStatesSinceDef): on gfx942 a
  // 2-pass SGEMM (v_mfma_f32_4x4x1_16b_f32: passes + 2 = 4) that overwrote v[0:3] after a 16-pass SGEMM
  // (v_mfma_f32_32x32x2f32: 18) decides a read of v0; a read of v8, which only the 16-pass one wrote, needs 18.
  const std::string head = "\tv_mfma_f32_32x32x2f32 v[0:15], v20, v21, 0\n" + pad(8) +
                           "\tv_mfma_f32_4x4x1_16b_f32 v[0:3], v20, v21, 0\n" + pad(5);
  auto ok = run_hz(head + "\tv_mov_b32_e32 v22, v0\n", Target::gfx942);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->stop.kind, Stop::Kind::none) << ok->stop.message;
  auto bad = run_hz(head + "\tv_mov_b32_e32 v22, v8\n", Target::gfx942);
  ASSERT_TRUE(bad);
  ASSERT_EQ(bad->stop.kind, Stop::Kind::hazard) << bad->stop.message;
  EXPECT_EQ(bad->stop.other, bad->id(0));
  EXPECT_NE(bad->stop.message.find("sgemm_write_valu_mem_read"), std::string::npos) << bad->stop.message;
  EXPECT_NE(bad->stop.message.find("requires 18:"), std::string::npos) << bad->stop.message;
}

TEST(Hazards, GroupedSearchIsPerConsumerOperand) {
  // relate() leaves out consumer operands whose nearest producer was already found, and says which operands a
  // producer overlaps: the checker keeps one nearest producer per operand, as LLVM searches each use separately.
  auto s = emu::test::make_snippet("\tv_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0\n"
                                   "\tv_add_f32_e32 v8, v0, v2\n"
                                   "\tv_add_f32_e32 v9, v12, v2\n",
                                   Target::gfx942);
  ASSERT_TRUE(s);
  const auto p = hazard_facts(s->code.ops[0], Target::gfx942);
  const auto c = hazard_facts(s->code.ops[1], Target::gfx942);
  const auto c2 = hazard_facts(s->code.ops[2], Target::gfx942);
  const verify::HazardRule* rule = nullptr;
  for (const auto& r : verify::hazard_rules)
    if (r.name == "xdl_write_valu_mem_read") rule = &r;
  ASSERT_TRUE(rule);
  // v_add_f32 v8, v0, v2: refs vdst (def), src0, src1; both sources overlap v[0:3].
  std::uint32_t uses = 0;
  for (std::size_t j = 0; j < c.nrefs; ++j)
    if (c.refs[j].vector && (c.refs[j].roles & verify::role::use)) uses |= 1u << j;
  ASSERT_EQ(std::popcount(uses), 2);
  auto m = verify::relate(*rule, p, c);
  EXPECT_TRUE(m.related);
  EXPECT_EQ(m.cons_refs, uses);
  const std::uint32_t first = uses & (0u - uses);
  m = verify::relate(*rule, p, c, first);  // src0 already has a nearer producer: src1 still relates
  EXPECT_TRUE(m.related);
  EXPECT_EQ(m.cons_refs, uses & ~first);
  m = verify::relate(*rule, p, c, uses);  // both have one: nothing relates
  EXPECT_FALSE(m.overlaps);
  EXPECT_FALSE(m.related);
  // v_add_f32 v9, v12, v2: only src1 overlaps.
  m = verify::relate(*rule, p, c2);
  EXPECT_TRUE(m.related);
  EXPECT_EQ(std::popcount(m.cons_refs), 1);
}

TEST(Hazards, RuleTableIsWellFormed) {
  // Every row cites a source and says what it checks; every target has rows; the largest distance a checker must
  // look back covers the 16-pass rows (19 on gfx90a/gfx942: LLVM MaxWaitStates).
  for (const auto& r : verify::hazard_rules) {
    EXPECT_FALSE(r.source.empty()) << r.name;
    EXPECT_FALSE(r.text.empty()) << r.name;
    EXPECT_NE(r.targets, 0) << r.name;
  }
  // A nearer writer hides only for rows whose producer is a VALU writing an SGPR the consumer reads as an operand;
  // a row AMD's kernels break names the aiter site.
  for (const auto& r : verify::hazard_rules) {
    if (r.any_writer_hides) {
      EXPECT_TRUE(r.prod_all & verify::hz::valu) << r.name;
      EXPECT_EQ(r.prod.file, verify::RegSel::File::scalar) << r.name;
      EXPECT_TRUE(r.prod.need & verify::role::def) << r.name;
      EXPECT_EQ(r.cons.file, verify::RegSel::File::scalar) << r.name;
    }
    if (!r.contested.empty()) EXPECT_TRUE(r.contested.starts_with("aiter gfx9")) << r.name;
  }
  EXPECT_EQ(verify::max_wait_states(Target::gfx90a), 19);
  EXPECT_EQ(verify::max_wait_states(Target::gfx942), 19);
  EXPECT_GT(verify::target_rules(Target::gfx950).count, 0u);
}

// ---- a real Triton MFMA kernel -------------------------------------------------------------------------------

using Loaded = emu::test::RecoveredObject;

std::unique_ptr<Loaded> load(const std::string& file) { return emu::test::recover_object(file); }

std::string i32(int v) { return R"({"scalar": {"type": "i32", "value": )" + std::to_string(v) + "}}"; }
std::string random_buf(const char* dtype, int count, int seed, double lo, double hi) {
  return R"({"buffer": {"dtype": ")" + std::string(dtype) + R"(", "count": )" + std::to_string(count) +
         R"(, "init": {"random": {"seed": )" + std::to_string(seed) + R"(, "min": )" + std::to_string(lo) +
         R"(, "max": )" + std::to_string(hi) + "}}}}";
}

/// gemm_a8w8_blockscale_fp8 (a, b, c, a_scale, b_scale, M, N, K, sam, sbn, scm, sas, sbs): M = 64, N = 256,
/// K = 256, fp8 A and B, f32 block scales, bf16 C; two workgroups.
std::string gemm_spec() {
  return R"({"grid": [1,2,1], "args": [)" + random_buf("fp8e4m3fnuz", 64 * 256, 61, -4, 4) + "," +
         random_buf("fp8e4m3fnuz", 256 * 256, 62, -4, 4) +
         R"(, {"buffer": {"dtype": "bf16", "count": 16384, "init": "zeros"}},)" + random_buf("f32", 128, 63, 0.5, 2) +
         "," + random_buf("f32", 4, 64, 0.5, 2) + "," + i32(64) + "," + i32(256) + "," + i32(256) + "," + i32(256) +
         "," + i32(256) + "," + i32(256) + "," + i32(2) + "," + i32(2) + R"(, {"null": true}, {"null": true}]})";
}

/// Index in `p.items` of the first instruction with mnemonic `mn` after item `from`, or npos.
std::size_t find_inst(const Program& p, std::string_view mn, std::size_t from = 0) {
  const auto forms = isa::forms(p.target);
  for (std::size_t i = from; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst && forms[p.items[i].inst.form].mnemonic == mn) return i;
  return std::string::npos;
}

/// Runs the hazard check over `code` in layout order, as if every block fell through to the next (the history is
/// cleared after an instruction that does not fall through: s_branch, s_endpgm, s_setpc). Compiler output must be
/// clean along these paths too, since LLVM pads every path into a block. Returns the violation messages.
std::vector<std::string> scan_fallthrough(const Code& code, Target t) {
  const HazardTable table = build_hazard_table(code, t);
  HazardState hs;
  hs.reset(&table);
  Stop stop;
  Wave w;
  w.ops = code.ops.data();
  w.nops = static_cast<std::uint32_t>(code.ops.size());
  w.stop = &stop;
  w.hazards = &hs;
  std::vector<std::string> hits;
  for (std::size_t i = 0; i + 1 < code.ops.size(); ++i) {  // the last op is decode_program's sentinel
    const Op& op = code.ops[i];
    if (!hazard_check(w, op)) {
      hits.push_back(stop.message);
      stop = Stop{};
      w.ended = false;
      hs.reset(&table);
      continue;
    }
    if (op.info && op.info->has(isa::prop::no_fallthrough)) hs.reset(&table);
  }
  return hits;
}

TEST(Hazards, TritonCorpusFallThroughPathsAreClean) {
  ASMEVO_REQUIRE_CORPUS(dir);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(*asmevo::test::corpus_dir() / "triton")) {
    if (e.path().extension() != ".hsaco") continue;
    auto l = load(e.path().string());
    ASSERT_TRUE(l);
    auto code = emu::test::decode_object(*l);
    ASSERT_TRUE(code) << e.path();
    ++files;
    for (const auto& h : scan_fallthrough(*code, l->module.target)) ADD_FAILURE() << e.path().filename() << ": " << h;
  }
  EXPECT_GT(files, 20u);
}

/// Index in `p.items` of the first s_nop directly followed by a v_accvgpr_read_b32, or npos.
std::size_t nop_before_read(const Program& p) {
  for (std::size_t i = find_inst(p, "s_nop"); i != std::string::npos; i = find_inst(p, "s_nop", i + 1))
    if (find_inst(p, "v_accvgpr_read_b32", i + 1) == i + 1) return i;
  return std::string::npos;
}

TEST(Hazards, TritonMfmaKernelRunsCleanAndEditedStops) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const std::string file = (dir / "triton" / "gemm_a8w8_blockscale_fp8.gfx942.hsaco").string();
  auto l = load(file);
  ASSERT_TRUE(l);
  auto spec = verify::parse_launch_spec(gemm_spec(), "<test>", ".");
  ASSERT_TRUE(spec) << spec.error().message;

  // As compiled: LLVM padded every hazard, so the run is clean with the check on.
  {
    auto res = emu::emulate(l->module, l->elf, *spec);
    ASSERT_TRUE(res) << res.error().message;
    EXPECT_NE(res->stop.kind, Stop::Kind::hazard) << res->stop.message;
    EXPECT_TRUE(res->ok()) << to_string(res->stop.kind) << ": " << res->stop.message;
  }

  // After the K loop the last two MFMAs (8 passes each) are followed by s_nop 9 and the reads of the results: the
  // first read (of the first of the two) is 1 + 10 = 11 wait states after its MFMA, as xdl_write_valu_mem_read
  // requires. Move that read above the s_nop.
  Program& p = l->module.program;
  const std::size_t nop = nop_before_read(p);
  ASSERT_NE(nop, std::string::npos) << "no s_nop right before a v_accvgpr_read_b32 in " << file;
  const Program original = p;
  {
    std::swap(p.items[nop], p.items[nop + 1]);
    const InstId read = p.items[nop].inst.id;
    auto res = emu::emulate(l->module, l->elf, *spec);
    ASSERT_TRUE(res) << res.error().message;
    ASSERT_EQ(res->stop.kind, Stop::Kind::hazard) << res->stop.message;
    EXPECT_EQ(res->stop.inst, read);
    ASSERT_TRUE(res->stop.has_other);
    const Inst* prod = p.find(res->stop.other);
    ASSERT_TRUE(prod);
    EXPECT_EQ(isa::forms(p.target)[prod->form].mnemonic, "v_mfma_f32_32x32x16_fp8_fp8");
    EXPECT_NE(res->stop.message.find("xdl_write_valu_mem_read"), std::string::npos) << res->stop.message;
    EXPECT_NE(res->stop.message.find("requires 11:"), std::string::npos) << res->stop.message;
    // With the check off the same edit runs to the end (the emulator computes as if the result were there).
    emu::EmulateOptions off;
    off.hazards = false;
    auto res2 = emu::emulate(l->module, l->elf, *spec, off);
    ASSERT_TRUE(res2);
    EXPECT_TRUE(res2->ok()) << res2->stop.message;
  }
  // Removing the s_nop the rule needs is reported the same way.
  {
    p = original;
    const InstId read = p.items[nop + 1].inst.id;
    p.items.erase(p.items.begin() + static_cast<std::ptrdiff_t>(nop));
    auto res = emu::emulate(l->module, l->elf, *spec);
    ASSERT_TRUE(res) << res.error().message;
    ASSERT_EQ(res->stop.kind, Stop::Kind::hazard) << res->stop.message;
    EXPECT_EQ(res->stop.inst, read);
  }
}

}  // namespace
