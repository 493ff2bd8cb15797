// Tests of analysis/hazard_check.hpp, the static wait-state check over CFG paths: per rule family a snippet padded
// exactly as the ISA guides' tables (as LLVM's GCNHazardRecognizer encodes them; the numbers are written out here by
// hand) is clean and one wait state short is reported; a hazard that exists only across a branch join or a loop
// back edge is found, and one satisfied on one path but not on the other is reported. Agreement with the emulator's
// run-time check: the same facts for every corpus instruction, no findings on the Triton corpus, and the edited
// Triton fp8 GEMM the emulator stops on is reported with the same rule, consumer and producer.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/hazards.hpp"
#include "asmevo/ir/parser.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace {

namespace fs = std::filesystem;
using namespace asmevo;
using analysis::Finding;
using analysis::Findings;

/// A parsed snippet and its instruction ids in order.
struct Snip {
  Program p;
  std::vector<InstId> ids;
};

std::unique_ptr<Snip> parse(const std::string& text, Target t) {
  auto p = parse_program(text, t, "<snippet>");
  if (!p) {
    ADD_FAILURE() << "snippet does not parse: " << p.error().message << "\n" << text;
    return nullptr;
  }
  auto s = std::make_unique<Snip>();
  s->p = std::move(*p);
  for (const Item& it : s->p.items)
    if (it.kind == Item::Kind::inst) s->ids.push_back(it.inst.id);
  return s;
}

Findings check(const Snip& s, Target t) {
  const analysis::Cfg g = analysis::build_cfg(s.p);
  return analysis::check_hazards(s.p, g, 0, t);
}

std::string dump(const Findings& fs) {
  std::string out;
  for (const Finding& f : fs) out += f.rule + ": " + f.message + "\n";
  return out;
}

/// `n` wait states of padding: nothing, or one s_nop n-1 (at most 16 wait states per s_nop).
std::string pad(int n) {
  std::string out;
  while (n > 0) {
    const int k = n > 16 ? 16 : n;
    out += "\ts_nop " + std::to_string(k - 1) + "\n";
    n -= k;
  }
  return out;
}

/// One rule family: the producer line, the consumer line, the wait states the rule requires (the ISA guide / LLVM
/// table value, not the code under test's).
struct Case {
  const char* rule;
  Target target;
  const char* producer;
  const char* consumer;
  int need;
};

/// `c` padded with `need` wait states has no finding; with `need - 1` it has the rule's finding at the consumer,
/// naming the producer and both counts.
void check_case(const Case& c) {
  SCOPED_TRACE(std::string(c.rule) + " on " + std::string(to_string(c.target)));
  {
    auto s = parse("\t" + std::string(c.producer) + "\n" + pad(c.need) + "\t" + c.consumer + "\n\ts_endpgm\n",
                   c.target);
    ASSERT_TRUE(s);
    const Findings fs = check(*s, c.target);
    EXPECT_TRUE(fs.empty()) << dump(fs);
  }
  {
    auto s = parse("\t" + std::string(c.producer) + "\n" + pad(c.need - 1) + "\t" + c.consumer + "\n\ts_endpgm\n",
                   c.target);
    ASSERT_TRUE(s);
    const std::size_t cons = 1 + (c.need - 1 + 15) / 16;
    const Findings fs = check(*s, c.target);
    bool found = false;
    for (const Finding& f : fs) {
      EXPECT_EQ(f.at, s->ids[cons]) << f.message;
      if (f.rule != "hazard:" + std::string(c.rule)) continue;
      found = true;
      ASSERT_TRUE(f.other);
      EXPECT_EQ(*f.other, s->ids[0]) << f.message;
      EXPECT_NE(f.message.find("requires " + std::to_string(c.need) + ":"), std::string::npos) << f.message;
      const int got = c.need - 1;
      EXPECT_NE(f.message.find("issues " + std::to_string(got) + " wait state"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("i" + std::to_string(s->ids[cons].value) + " ("), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("i" + std::to_string(s->ids[0].value) + " ("), std::string::npos) << f.message;
    }
    EXPECT_TRUE(found) << dump(fs);
  }
}

TEST(HazardCheck, ValuSaluRuleFamilies) {
  const Case cases[] = {
      // VALU writes an SGPR a VMEM instruction reads: 5 (MI300 ISA (CDNA3) §4.5; LLVM checkVMEMHazards).
      {"valu_sgpr_vmem", Target::gfx942, "v_readfirstlane_b32 s4, v10", "global_load_dword v2, v3, s[4:5]", 5},
      {"valu_sgpr_vmem", Target::gfx90a, "v_readfirstlane_b32 s4, v10", "global_load_dword v2, v3, s[4:5]", 5},
      {"valu_sgpr_vmem", Target::gfx950, "v_readfirstlane_b32 s4, v10", "global_load_dword v2, v3, s[4:5]", 5},
      // VALU writes VCC, v_div_fmas reads it: 4 (LLVM checkDivFMasHazards).
      {"valu_vcc_div_fmas", Target::gfx942, "v_div_scale_f32 v2, vcc, v0, v0, v1", "v_div_fmas_f32 v3, v0, v1, v2", 4},
      // VALU writes the lane select of v_readlane: 4 (LLVM checkRWLaneHazards).
      {"valu_sgpr_lane_select", Target::gfx90a, "v_readfirstlane_b32 s2, v0", "v_readlane_b32 s3, v1, s2", 4},
      // s_setreg then s_getreg / s_setreg of the same hardware register: 2 (LLVM checkGetRegHazards/SetReg).
      {"setreg_getreg", Target::gfx942, "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0",
       "s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 4)", 2},
      {"setreg_setreg", Target::gfx90a, "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0",
       "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0", 2},
      // A VGPR written, then read by DPP: 2; EXEC written by a VALU, then DPP: 5 (MI300 ISA §4.5; checkDPPHazards).
      {"vgpr_write_dpp_read", Target::gfx942, "v_mov_b32_e32 v1, v0",
       "v_mov_b32_dpp v2, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 2},
      {"valu_exec_dpp", Target::gfx90a, "v_cmpx_eq_u32_e32 vcc, v0, v0",
       "v_mov_b32_dpp v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 5},
      // SALU writes M0, s_movrels reads it: 1 (LLVM checkReadM0Hazards).
      {"salu_m0_movrel", Target::gfx942, "s_mov_b32 m0, 0", "s_movrels_b32 s1, s2", 1},
      // A store of more than 64 bits, then a VALU overwrites its data: 2 on gfx942, 1 on gfx90a (MI300 ISA §4.5;
      // LLVM checkVALUHazardsHelper).
      {"wide_store_data_valu_write", Target::gfx942, "global_store_dwordx4 v[0:1], v[4:7], off", "v_mov_b32_e32 v5, 0",
       2},
      {"wide_store_data_valu_write", Target::gfx90a, "global_store_dwordx4 v[0:1], v[4:7], off", "v_mov_b32_e32 v5, 0",
       1},
      // gfx940+ VALU forwarding: trans result 1, SGPR or VCC read as a constant 2, readlane source 1, EXEC then
      // readlane 4, partial (dst_sel) write 1 (MI300 ISA §4.5 Table 11; LLVM checkVALUHazards).
      {"trans_result_valu_read", Target::gfx942, "v_exp_f32_e32 v1, v0", "v_add_f32_e32 v2, v1, v1", 1},
      {"valu_sgpr_valu_read", Target::gfx942, "v_cmp_gt_u32_e64 s[0:1], v0, v1", "v_add_u32_e32 v2, s1, v1", 2},
      {"valu_sgpr_valu_read", Target::gfx950, "v_readfirstlane_b32 s4, v1", "v_add_u32_e32 v2, s4, v1", 2},
      {"valu_vgpr_readlane", Target::gfx942, "v_mov_b32_e32 v1, v0", "v_readfirstlane_b32 s0, v1", 1},
      {"valu_exec_rw_lane", Target::gfx942, "v_cmpx_eq_u32_e32 vcc, v0, v0", "v_readfirstlane_b32 s0, v1", 4},
      // gfx950 lane swaps (LLVM checkPermlaneHazards): a VALU-written VGPR read by the swap, as src0 or as the
      // destination it also reads, 2 (Triton gfx950 writes `v_mov_b32 v157, v128 ; s_nop 1 ; v_permlane32_swap_b32
      // v128, v157`); EXEC written by a VALU, 4.
      {"valu_vgpr_permlane_swap", Target::gfx950, "v_mov_b32_e32 v1, v0", "v_permlane32_swap_b32_e32 v2, v1", 2},
      {"valu_vgpr_permlane_swap", Target::gfx950, "v_mov_b32_e32 v2, v0", "v_permlane16_swap_b32_e32 v2, v1", 2},
      {"valu_exec_permlane_swap", Target::gfx950, "v_cmpx_eq_u32_e32 vcc, v0, v0", "v_permlane32_swap_b32_e32 v2, v1",
       4},
      {"dst_sel_result_valu_read", Target::gfx942,
       "v_mov_b32_sdwa v1, v0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD", "v_add_u32_e32 v2, v1, v1", 1},
      // A packed VALU with op_sel_hi[0] set (here the default), read by a VALU: 1, as LLVM pads it (its dst_sel test
      // reads op_sel_hi[0] of a VOP3P form; Triton gfx950 `v_pk_mul_f32 ; s_nop 0 ; v_cvt_pk_bf16_f32`).
      {"packed_result_valu_read", Target::gfx950, "v_pk_mul_f32 v[4:5], v[4:5], v[6:7]",
       "v_cvt_pk_bf16_f32 v4, v4, v5", 1},
      {"packed_result_valu_read", Target::gfx942, "v_pk_add_f32 v[0:1], v[2:3], v[4:5] op_sel_hi:[1,0]",
       "v_fma_f32 v6, v0, v1, v6", 1},
      // DOT result read by another VALU: 3 (LLVM checkMAIVALUHazards DotWriteDifferentVALURead).
      {"dot_write_valu_read", Target::gfx942, "v_dot2_f32_f16 v2, v0, v1, v2", "v_add_f32_e32 v3, v2, v2", 3},
      // gfx940+: an SGPR/VCC a VALU wrote, read as a lane mask or carry-in: 2, as LLVM pads it (checkVALUHazards,
      // hasVDecCoExecHazard: every explicit SGPR use and readsRegister(VCC); VALUWriteSGPRVALUReadWaitstates = 2).
      // The Triton pattern: attn_fwd_causal_f16_d64.gfx950 `v_cmp_le_u32_e32 vcc ; s_nop 1 ; v_cndmask_b32_e32 .. vcc`.
      {"valu_sgpr_valu_mask_read", Target::gfx950, "v_cmp_le_u32_e32 vcc, v0, v1", "v_cndmask_b32_e32 v2, v0, v1, vcc",
       2},
      {"valu_sgpr_valu_mask_read", Target::gfx942, "v_cmp_gt_u32_e64 s[0:1], v0, v1",
       "v_cndmask_b32_e64 v2, v0, v1, s[0:1]", 2},
      {"valu_sgpr_valu_mask_read", Target::gfx942, "v_add_co_u32_e32 v2, vcc, v0, v1",
       "v_addc_co_u32_e32 v3, vcc, v0, v1, vcc", 2},
  };
  for (const Case& c : cases) check_case(c);
}

TEST(HazardCheck, XnackSoftClauses) {
  // LLVM GCNHazardRecognizer::checkSoftClauseHazards (XNACK on or any; the snippets declare no target id, which is
  // "any"): back-to-back VMEM (or SMEM) instructions form a soft clause; one whose write meets a member's read, or a
  // store after a member that writes, needs a break: 1 wait state (s_nop 0).
  const Case cases[] = {
      // The Triton pattern (attn_fwd_causal_f16_d64.gfx90a): a load overwriting the address of the load before it.
      {"xnack_soft_clause", Target::gfx90a, "global_load_ushort v72, v[56:57], off",
       "global_load_ushort v56, v[4:5], off", 1},
      // A load reading what the load before it writes.
      {"xnack_soft_clause", Target::gfx942, "global_load_dword v4, v[0:1], off", "global_load_dword v6, v[4:5], off",
       1},
      // A load overwriting its own address, after another member that writes.
      {"xnack_soft_clause", Target::gfx942, "global_load_dword v8, v[2:3], off", "global_load_dword v0, v[0:1], off",
       1},
      // SMEM: the kernarg pointer overwritten by the last load of a clause.
      {"xnack_soft_clause", Target::gfx942, "s_load_dwordx2 s[4:5], s[0:1], 0x0", "s_load_dwordx2 s[0:1], s[0:1], 0x8",
       1},
      // A store after a load.
      {"xnack_soft_clause", Target::gfx950, "global_load_dword v2, v[0:1], off", "global_store_dword v[4:5], v6, off",
       1},
  };
  for (const Case& c : cases) check_case(c);
  const Target t = Target::gfx942;
  // Independent members, stores after stores, and different kinds back to back are no clause hazard.
  for (const char* text : {"global_load_dword v4, v[0:1], off\n\tglobal_load_dword v5, v[2:3], off",
                           "global_store_dword v[0:1], v4, off\n\tglobal_store_dword v[0:1], v5, off",
                           "global_load_dword v4, v[0:1], off\n\ts_load_dword s0, s[0:1], 0x0",
                           "s_load_dword s2, s[0:1], 0x0\n\tglobal_load_dword v0, v[0:1], off"}) {
    auto s = parse(std::string("\t") + text + "\n\ts_endpgm\n", t);
    ASSERT_TRUE(s);
    const Findings fs = check(*s, t);
    EXPECT_TRUE(fs.empty()) << text << "\n" << dump(fs);
  }
  // LLVM compares with the last 5 emitted instructions (MaxLookAhead without AGPR0): a conflict with the 5th member
  // back is reported, with the 6th not.
  auto clause = [](int between) {
    std::string s = "\tglobal_load_dword v10, v[0:1], off\n";
    for (int k = 0; k < between; ++k) s += "\tglobal_load_dword v" + std::to_string(20 + k) + ", v[2:3], off\n";
    return s + "\tglobal_load_dword v0, v[4:5], off\n\ts_endpgm\n";
  };
  auto near = parse(clause(4), t);
  ASSERT_TRUE(near);
  Findings fs = check(*near, t);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:xnack_soft_clause");
  EXPECT_EQ(fs[0].at, near->ids[5]);
  EXPECT_EQ(fs[0].other, near->ids[0]);
  auto far = parse(clause(5), t);
  ASSERT_TRUE(far);
  EXPECT_TRUE(check(*far, t).empty()) << dump(check(*far, t));
  // With XNACK off in the target id there are no soft-clause hazards; on or any, there are.
  for (const char* id : {"gfx942:xnack-", "gfx942:xnack+", "gfx942"}) {
    auto s = parse(std::string("\t.amdgcn_target \"amdgcn-amd-amdhsa--") + id +
                       "\"\n\tglobal_load_dword v4, v[0:1], off\n\tglobal_load_dword v0, v[0:1], off\n\ts_endpgm\n",
                   t);
    ASSERT_TRUE(s);
    EXPECT_EQ(analysis::program_xnack(s->p), std::string_view(id) != "gfx942:xnack-") << id;
    fs = analysis::check_hazards(s->p);
    EXPECT_EQ(fs.empty(), std::string_view(id) == "gfx942:xnack-") << id << "\n" << dump(fs);
  }
}

TEST(HazardCheck, MfmaRuleFamilies) {
  // Pass counts (AMD matrix instruction calculator 'cycles' / 4; LLVM SISchedule.td Write{2,4,8,16}PassMAI): gfx942
  // 16x16x16_f16 4 passes, 32x32x8_f16 8, 32x32x2f32 16, 4x4x4_16b_f16 2; gfx90a 16x16x16f16 8. Distances: LLVM
  // GCNHazardRecognizer checkMAIVALUHazards / checkMAIHazards90A, MI300 ISA (CDNA3) §7.
  const Case cases[] = {
      // XDL result read by a VALU or a memory instruction: passes + 3 (gfx942), passes + 3 (gfx90a, 8 passes = 11).
      {"xdl_write_valu_mem_read", Target::gfx942, "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mov_b32_e32 v8, v0", 7},
      {"xdl_write_valu_mem_read", Target::gfx942, "v_mfma_f32_32x32x8_f16 a[0:15], v[4:5], v[6:7], 0",
       "v_accvgpr_read_b32 v8, a5", 11},
      {"xdl_write_valu_mem_read", Target::gfx942, "v_mfma_f32_16x16x16_f16 v[4:7], v[8:9], v[10:11], 0",
       "global_store_dword v[0:1], v5, off", 7},
      {"smfma_write_valu_mem_read", Target::gfx90a, "v_mfma_f32_16x16x16f16 a[0:3], v[4:5], v[6:7], 0",
       "v_accvgpr_read_b32 v8, a3", 11},
      // gfx950: passes + 3, + 1 unless 2 passes (GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates, IsGFX950):
      // 16x16x16_f16 is 4 passes on gfx950 too (SIDPGFX950FullSpeedModel Write4PassMAI): 8.
      {"xdl_write_valu_mem_read", Target::gfx950, "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mov_b32_e32 v8, v0", 8},
      // A VALU write read by an MFMA: 2; a VALU write of EXEC before an MFMA: 4 (LLVM checkMAIHazards90A).
      {"valu_vgpr_mfma_read", Target::gfx942, "v_mov_b32_e32 v5, 0",
       "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0", 2},
      {"valu_exec_mfma", Target::gfx942, "v_cmpx_eq_u32_e32 vcc, v0, v0",
       "v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], 0", 4},
      // SrcC overlapping, not equal to, the previous XDL result: passes + 1 = 5 (gfx942); gfx90a passes = 8.
      {"xdl_overlap_srcc_xdl", Target::gfx942, "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], v[2:5]", 5},
      {"smfma_overlap_srcc_smfma", Target::gfx90a, "v_mfma_f32_16x16x16f16 a[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_16x16x16f16 a[8:11], v[4:5], v[6:7], a[2:5]", 8},
      // A 2-pass MFMA result as the exact SrcC of the next: 2 on gfx942.
      {"mfma2_full_srcc", Target::gfx942, "v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3]", 2},
      // An MFMA result read as SrcA/SrcB: XDL passes + 3 = 7 (gfx942), passes + 3 = 11 (gfx90a).
      {"xdl_write_srcab", Target::gfx942, "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_16x16x16_f16 v[8:11], v[2:3], v[6:7], 0", 7},
      {"smfma_write_srcab", Target::gfx90a, "v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mfma_f32_16x16x16f16 v[8:11], v[2:3], v[6:7], 0", 11},
      // A VALU overwriting what an XDL MFMA reads as SrcC: passes - 1 = 3; overwriting its result: passes + 3 = 7.
      {"mfma_srcc_valu_overwrite", Target::gfx942, "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[8:11]",
       "v_mov_b32_e32 v9, 0", 3},
      {"xdl_write_valu_write", Target::gfx942, "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0",
       "v_mov_b32_e32 v1, 0", 7},
      // 16-pass SGEMM (v_mfma_f32_32x32x2f32, 64 cycles on CDNA3) read by a VALU: passes + 2 = 18.
      {"sgemm_write_valu_mem_read", Target::gfx942, "v_mfma_f32_32x32x2f32 v[0:15], v20, v21, 0",
       "v_mov_b32_e32 v22, v8", 18},
  };
  for (const Case& c : cases) check_case(c);
}

TEST(HazardCheck, NearestWriterHidesOlderOne) {
  // LLVM's getWaitStatesSinceDef looks for the nearest MFMA writing the register: a 2-pass SGEMM (passes + 2 = 4)
  // that overwrote v[0:3] after a 16-pass one (18) decides a read of v0; v8, written only by the older, needs 18.
  const std::string head = "\tv_mfma_f32_32x32x2f32 v[0:15], v20, v21, 0\n" + pad(8) +
                           "\tv_mfma_f32_4x4x1_16b_f32 v[0:3], v20, v21, 0\n" + pad(5);
  auto ok = parse(head + "\tv_mov_b32_e32 v22, v0\n", Target::gfx942);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(check(*ok, Target::gfx942).empty()) << dump(check(*ok, Target::gfx942));
  auto bad = parse(head + "\tv_mov_b32_e32 v22, v8\n", Target::gfx942);
  ASSERT_TRUE(bad);
  const Findings fs = check(*bad, Target::gfx942);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:sgemm_write_valu_mem_read");
  EXPECT_EQ(fs[0].other, bad->ids[0]);
  EXPECT_NE(fs[0].message.find("requires 18:"), std::string::npos) << fs[0].message;
}

TEST(HazardCheck, DppNonDppSourceIsExempt) {
  // MI300 ISA (CDNA3) §4.5 Table 11: the VGPR rule of DPP covers only the DPP source (src0). (A carry-in or lane
  // mask, which the table also exempts, follows LLVM: valu_sgpr_valu_mask_read, in ValuSaluRuleFamilies.)
  for (const char* text : {"v_mov_b32_e32 v1, v0\n\tv_add_f32_dpp v2, v3, v1 quad_perm:[1,0,3,2] row_mask:0xf "
                           "bank_mask:0xf"}) {
    auto s = parse(std::string("\t") + text + "\n", Target::gfx942);
    ASSERT_TRUE(s);
    const Findings fs = check(*s, Target::gfx942);
    EXPECT_TRUE(fs.empty()) << text << "\n" << dump(fs);
  }
}

TEST(HazardCheck, NearerSgprWriterHidesTheValuWrite) {
  // An SALU (or any non-VALU) write of an SGPR is interlocked for every later reader, and so is an SALU reading a
  // VALU-written SGPR (MI300 ISA (CDNA3) §4.5 Table 11 has neither row): once an s_and/s_mov rewrote the SGPR, a later
  // VALU or VMEM instruction reads that value, not the VALU's, and valu_sgpr_valu_read (2) / valu_sgpr_vmem (5) do
  // not apply. (LLVM pads these anyway: its search skips non-VALU writers; the checker departs from it on purpose.)
  const Target t = Target::gfx942;
  for (const char* text : {// the aiter pattern: the VALU reads the SALU's value
                           "v_readlane_b32 s82, v3, 0\n\ts_and_b32 s82, s82, 0xffffff\n\tv_mul_lo_u32 v6, v5, s82",
                           "v_readfirstlane_b32 s4, v1\n\ts_mov_b32 s4, 0\n\tv_add_u32_e32 v2, s4, v1",
                           "v_readfirstlane_b32 s4, v10\n\ts_mov_b32 s4, s4\n\tglobal_load_dword v2, v3, s[4:5]",
                           // a 64-bit SALU write covers both halves the VALU wrote
                           "v_cmp_gt_u32_e64 s[0:1], v0, v1\n\ts_mov_b64 s[0:1], exec\n\tv_add_u32_e32 v2, s1, v1"}) {
    auto s = parse(std::string("\t") + text + "\n", t);
    ASSERT_TRUE(s);
    const Findings fs = check(*s, t);
    EXPECT_TRUE(fs.empty()) << text << "\n" << dump(fs);
  }
  // A write of a different SGPR in between hides nothing: 1 wait state after the VALU write of the register read.
  struct Bad {
    const char* text;
    const char* rule;
  };
  for (const Bad& b : {Bad{"v_readlane_b32 s82, v3, 0\n\ts_and_b32 s83, s83, 0xffffff\n\tv_mul_lo_u32 v6, v5, s82",
                           "valu_sgpr_valu_read"},
                       // s5 rewritten, s4 (also read by the load) still the VALU's
                       Bad{"v_readfirstlane_b32 s4, v10\n\ts_mov_b32 s5, 0\n\tglobal_load_dword v2, v3, s[4:5]",
                           "valu_sgpr_vmem"},
                       // s_cmov writes only when SCC is set: it hides nothing
                       Bad{"v_readfirstlane_b32 s4, v1\n\ts_cmov_b32 s4, 0\n\tv_add_u32_e32 v2, s4, v1",
                           "valu_sgpr_valu_read"},
                       // only the low half of s[0:1] rewritten; s1 is the one read
                       Bad{"v_cmp_gt_u32_e64 s[0:1], v0, v1\n\ts_mov_b32 s0, 0\n\tv_add_u32_e32 v2, s1, v1",
                           "valu_sgpr_valu_read"}}) {
    SCOPED_TRACE(b.text);
    auto s = parse(std::string("\t") + b.text + "\n", t);
    ASSERT_TRUE(s);
    const Findings fs = check(*s, t);
    ASSERT_EQ(fs.size(), 1u) << dump(fs);
    EXPECT_EQ(fs[0].rule, "hazard:" + std::string(b.rule));
    EXPECT_EQ(fs[0].at, s->ids[2]);
    EXPECT_EQ(fs[0].other, s->ids[0]);
    EXPECT_NE(fs[0].message.find("issues 1 wait state "), std::string::npos) << fs[0].message;
  }
  // The rewrite hides the VALU write only on the path that passes it: here the branch skips it.
  auto s = parse("\tv_readfirstlane_b32 s4, v1\n"
                 "\ts_cbranch_scc1 .Ljoin\n"
                 "\ts_mov_b32 s4, 0\n"
                 ".Ljoin:\n"
                 "\tv_add_u32_e32 v2, s4, v1\n",
                 t);
  ASSERT_TRUE(s);
  const Findings fs = check(*s, t);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:valu_sgpr_valu_read");
  EXPECT_EQ(fs[0].other, s->ids[0]);
  EXPECT_NE(fs[0].message.find("issues 1 wait state "), std::string::npos) << fs[0].message;
}

TEST(HazardCheck, RowsAmdKernelsBreakAreWarnings) {
  // An XDL result read early (xdl_write_valu_mem_read: passes + 3 = 7 for v_mfma_f32_16x16x16_f16 on gfx942) is a
  // rule AMD's aiter kernels break (e.g. flatmm_uk_gfx9_f16f8 reads an MFMA result 2 wait states after it): reported
  // as a warning saying so. A VCC written by a VALU read by v_div_fmas 3 wait states later (4 required; no known
  // production kernel does it) is an error.
  auto w = parse("\tv_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0\n" + pad(6) + "\tv_mov_b32_e32 v8, v0\n",
                 Target::gfx942);
  ASSERT_TRUE(w);
  Findings fs = check(*w, Target::gfx942);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:xdl_write_valu_mem_read");
  EXPECT_EQ(fs[0].severity, analysis::Severity::warning);
  EXPECT_NE(fs[0].message.find("AMD's production kernels do the same"), std::string::npos) << fs[0].message;
  auto e = parse("\tv_div_scale_f32 v2, vcc, v0, v0, v1\n" + pad(3) + "\tv_div_fmas_f32 v3, v0, v1, v2\n",
                 Target::gfx942);
  ASSERT_TRUE(e);
  fs = check(*e, Target::gfx942);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:valu_vcc_div_fmas");
  EXPECT_EQ(fs[0].severity, analysis::Severity::error);
  EXPECT_EQ(fs[0].message.find("AMD's production kernels"), std::string::npos) << fs[0].message;
}

// packed_result_valu_read follows op_sel_hi[0] of the producer only: cleared, no wait is needed; fma_mix forms
// default it to 0. AMD's kernels break the row, so a finding is a warning.
TEST(HazardCheck, PackedResultFollowsOpSelHi0) {
  for (const char* producer : {"v_pk_mul_f32 v[4:5], v[4:5], v[6:7] op_sel_hi:[0,1]", "v_fma_mix_f32 v4, v1, v2, v3"}) {
    auto p = parse(std::string("\t") + producer + "\n\tv_add_f32_e32 v8, v4, v5\n", Target::gfx942);
    ASSERT_TRUE(p) << producer;
    EXPECT_TRUE(check(*p, Target::gfx942).empty()) << producer << ": " << dump(check(*p, Target::gfx942));
  }
  auto w = parse("\tv_pk_fma_f32 v[4:5], v[0:1], v[2:3], v[4:5]\n\tv_add_f32_e32 v8, v4, v5\n", Target::gfx942);
  ASSERT_TRUE(w);
  const Findings fs = check(*w, Target::gfx942);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:packed_result_valu_read");
  EXPECT_EQ(fs[0].severity, analysis::Severity::warning);
  // On gfx90a LLVM has no dst_sel forwarding rule (hasDstSelForwardingHazard: GFX940Insts).
  auto g = parse("\tv_pk_fma_f32 v[4:5], v[0:1], v[2:3], v[4:5]\n\tv_add_f32_e32 v8, v4, v5\n", Target::gfx90a);
  ASSERT_TRUE(g);
  EXPECT_TRUE(check(*g, Target::gfx90a).empty());
}

// ---- paths -----------------------------------------------------------------------------------------------------

TEST(HazardCheck, HazardOnlyAcrossABranchJoin) {
  // The SGPR write sits on the taken side of a branch; in layout the load follows unreachable s_nop padding, so a
  // straight-line scan sees no producer. On the path through .Lthen: v_readfirstlane, s_nop (pad), s_branch = pad + 1
  // wait states; valu_sgpr_vmem requires 5 (MI300 ISA (CDNA3) §4.5).
  auto text = [](int pad_states) {
    return "\ts_cmp_eq_u32 s0, 0\n"
           "\ts_cbranch_scc1 .Lthen\n"
           "\ts_nop 7\n"
           "\ts_branch .Ljoin\n"
           ".Lthen:\n"
           "\tv_readfirstlane_b32 s4, v10\n" +
           pad(pad_states) +
           "\ts_branch .Ljoin\n"
           "\ts_nop 7\n"
           "\ts_nop 7\n"
           ".Ljoin:\n"
           "\tglobal_load_dword v2, v3, s[4:5]\n"
           "\ts_endpgm\n";
  };
  auto ok = parse(text(4), Target::gfx942);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(check(*ok, Target::gfx942).empty()) << dump(check(*ok, Target::gfx942));
  auto bad = parse(text(3), Target::gfx942);
  ASSERT_TRUE(bad);
  const Findings fs = check(*bad, Target::gfx942);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:valu_sgpr_vmem");
  EXPECT_EQ(fs[0].at, bad->ids[9]);      // global_load_dword
  EXPECT_EQ(fs[0].other, bad->ids[4]);   // v_readfirstlane_b32
  EXPECT_NE(fs[0].message.find("issues 4 wait states"), std::string::npos) << fs[0].message;
  EXPECT_NE(fs[0].message.find("requires 5:"), std::string::npos) << fs[0].message;
  EXPECT_NE(fs[0].message.find("v_readfirstlane_b32"), std::string::npos) << fs[0].message;
  EXPECT_NE(fs[0].message.find("global_load_dword"), std::string::npos) << fs[0].message;
}

TEST(HazardCheck, HazardAcrossALoopBackEdge) {
  // The load at the top of the loop reads s4, which the bottom of the previous iteration wrote: s_nop N, then the
  // back-edge branch = N + 2 wait states; 5 required. The first iteration (from the entry) has no producer.
  auto text = [](int nop) {
    return "\ts_mov_b32 s4, 0\n"
           "\ts_mov_b32 s5, 0\n"
           ".Lloop:\n"
           "\tglobal_load_dword v2, v3, s[4:5]\n"
           "\ts_nop 7\n"
           "\tv_readfirstlane_b32 s4, v10\n"
           "\ts_nop " + std::to_string(nop) + "\n"
           "\ts_cbranch_scc1 .Lloop\n"
           "\ts_endpgm\n";
  };
  auto ok = parse(text(3), Target::gfx942);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(check(*ok, Target::gfx942).empty()) << dump(check(*ok, Target::gfx942));
  auto bad = parse(text(2), Target::gfx942);
  ASSERT_TRUE(bad);
  const Findings fs = check(*bad, Target::gfx942);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:valu_sgpr_vmem");
  EXPECT_EQ(fs[0].at, bad->ids[2]);
  EXPECT_EQ(fs[0].other, bad->ids[4]);
  EXPECT_NE(fs[0].message.find("issues 4 wait states"), std::string::npos) << fs[0].message;
}

TEST(HazardCheck, SatisfiedOnOnePathOnly) {
  // Falling through, the load is 1 + 8 = 9 wait states after the SGPR write; taking the branch, 1 (the branch).
  // The shortest path decides: reported with 1. With 4 wait states before the branch both paths are clean.
  auto text = [](int pad_states) {
    return "\tv_readfirstlane_b32 s4, v10\n" + pad(pad_states) +
           "\ts_cbranch_scc1 .Ljoin\n"
           "\ts_nop 7\n"
           ".Ljoin:\n"
           "\tglobal_load_dword v2, v3, s[4:5]\n"
           "\ts_endpgm\n";
  };
  auto bad = parse(text(0), Target::gfx942);
  ASSERT_TRUE(bad);
  const Findings fs = check(*bad, Target::gfx942);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:valu_sgpr_vmem");
  EXPECT_EQ(fs[0].at, bad->ids[3]);
  EXPECT_EQ(fs[0].other, bad->ids[0]);
  EXPECT_NE(fs[0].message.find("issues 1 wait state "), std::string::npos) << fs[0].message;
  auto ok = parse(text(4), Target::gfx942);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(check(*ok, Target::gfx942).empty()) << dump(check(*ok, Target::gfx942));
}

TEST(HazardCheck, NearestWriterIsPerPath) {
  // On the fall-through path a 2-pass SGEMM overwrote v[0:3] after the 16-pass one (so the read of v0 needs 4,
  // given); on the branch path only the 16-pass SGEMM wrote it, 1 + 8 + 1 = 10 wait states earlier (18 required).
  const std::string text = "\tv_mfma_f32_32x32x2f32 v[0:15], v20, v21, 0\n"
                           "\ts_nop 7\n"
                           "\ts_cbranch_scc1 .Ljoin\n"
                           "\tv_mfma_f32_4x4x1_16b_f32 v[0:3], v20, v21, 0\n"
                           "\ts_nop 7\n"
                           "\ts_nop 7\n"
                           ".Ljoin:\n"
                           "\tv_mov_b32_e32 v22, v0\n"
                           "\ts_endpgm\n";
  auto s = parse(text, Target::gfx942);
  ASSERT_TRUE(s);
  const Findings fs = check(*s, Target::gfx942);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].rule, "hazard:sgemm_write_valu_mem_read");
  EXPECT_EQ(fs[0].at, s->ids[6]);
  EXPECT_EQ(fs[0].other, s->ids[0]);
  EXPECT_NE(fs[0].message.find("issues 9 wait states"), std::string::npos) << fs[0].message;
}

// ---- agreement with the emulator -------------------------------------------------------------------------------

/// Code objects under `dir` (recursively) with extension `ext`, sorted.
std::vector<fs::path> objects(const fs::path& dir, std::string_view ext) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// The emulator's hazard facts (emu::hazard_facts over the predecoded instruction) equal the static checker's
/// (analysis::hazard_facts over the IR instruction) for every instruction of `obj`.
void expect_same_facts(const emu::test::RecoveredObject& obj) {
  auto code = emu::test::decode_object(obj);
  ASSERT_TRUE(code);
  const Program& p = obj.module.program;
  std::unordered_map<std::uint32_t, const Inst*> by_id;
  for (const Item& it : p.items)
    if (it.kind == Item::Kind::inst) by_id[it.inst.id.value] = &it.inst;
  std::size_t compared = 0, bad = 0;
  for (const emu::Op& op : code->ops) {
    if (!op.info) continue;
    const auto it = by_id.find(op.id.value);
    if (it == by_id.end()) continue;
    const analysis::HazardFacts e = emu::hazard_facts(op, p.target);
    const analysis::HazardFacts a = analysis::hazard_facts(*it->second, p.target);
    ++compared;
    bool same = e.form == a.form && e.cls == a.cls && e.passes == a.passes && e.hwreg == a.hwreg && e.nrefs == a.nrefs;
    for (std::size_t k = 0; same && k < e.nrefs; ++k)
      same = e.refs[k].vector == a.refs[k].vector && e.refs[k].first == a.refs[k].first &&
             e.refs[k].count == a.refs[k].count && e.refs[k].roles == a.refs[k].roles;
    if (!same && ++bad <= 5)
      ADD_FAILURE() << p.file << ": i" << op.id.value << " (" << op.mnemonic() << "): facts differ (cls " << e.cls
                    << " vs " << a.cls << ", nrefs " << int(e.nrefs) << " vs " << int(a.nrefs) << ")";
    const unsigned ws = analysis::hazard_wait_states(*it->second, p.target);
    if (op.info->mnemonic == "s_nop") EXPECT_EQ(ws, (op.imm(emu::Name::simm16) & 0xf) + 1) << p.file;
  }
  EXPECT_GT(compared, 0u) << p.file;
}

TEST(HazardCheck, SameFactsAsTheEmulatorOnTheCorpus) {
  ASMEVO_REQUIRE_CORPUS(dir);
  std::size_t files = 0;
  for (const char* sub : {"triton", "aiter-co"})
    for (const fs::path& f : objects(dir / sub, std::string_view(sub) == "triton" ? ".hsaco" : ".co")) {
      SCOPED_TRACE(f.string());
      auto obj = emu::test::recover_object(f.string());
      ASSERT_TRUE(obj);
      expect_same_facts(*obj);
      ++files;
    }
  EXPECT_GT(files, 40u);
}

TEST(HazardCheck, TritonCorpusIsClean) {
  // LLVM padded every path of these kernels (GCNHazardRecognizer walks all predecessors): no findings.
  ASMEVO_REQUIRE_CORPUS(dir);
  std::size_t files = 0;
  for (const fs::path& f : objects(dir / "triton", ".hsaco")) {
    auto obj = emu::test::recover_object(f.string());
    ASSERT_TRUE(obj);
    const Findings fs = analysis::check_hazards(obj->module.program);
    EXPECT_TRUE(fs.empty()) << f.filename() << ":\n" << dump(fs);
    ++files;
  }
  EXPECT_GE(files, 33u);  // 11 kernels x gfx90a/gfx942/gfx950
}

/// Index in `p.items` of the first instruction with mnemonic `mn` at or after item `from`, or npos.
std::size_t find_inst(const Program& p, std::string_view mn, std::size_t from = 0) {
  const auto forms = isa::forms(p.target);
  for (std::size_t i = from; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst && forms[p.items[i].inst.form].mnemonic == mn) return i;
  return std::string::npos;
}

/// Index of the first s_nop directly followed by a v_accvgpr_read_b32 (the edit tests/verify/hazards_test.cpp makes).
std::size_t nop_before_read(const Program& p) {
  for (std::size_t i = find_inst(p, "s_nop"); i != std::string::npos; i = find_inst(p, "s_nop", i + 1))
    if (find_inst(p, "v_accvgpr_read_b32", i + 1) == i + 1) return i;
  return std::string::npos;
}

TEST(HazardCheck, EditedTritonGemmIsReportedLikeTheEmulatorStops) {
  // gemm_a8w8_blockscale_fp8 (gfx942): after the K loop two 8-pass MFMAs are followed by s_nop 9 and the reads of
  // their results; the first read is 1 + 10 = 11 wait states after its MFMA (xdl_write_valu_mem_read: passes + 3 =
  // 11). Moving the read above the s_nop, or deleting the s_nop, is the edit the emulator stops on
  // (tests/verify/hazards_test.cpp TritonMfmaKernelRunsCleanAndEditedStops).
  ASMEVO_REQUIRE_CORPUS(dir);
  auto obj = emu::test::recover_object((dir / "triton" / "gemm_a8w8_blockscale_fp8.gfx942.hsaco").string());
  ASSERT_TRUE(obj);
  Program& p = obj->module.program;
  const std::size_t nop = nop_before_read(p);
  ASSERT_NE(nop, std::string::npos);
  const Program original = p;
  // Every later read of the two results is then short as well (the emulator stops at the first): all findings are
  // that rule, and the moved read's names the MFMA.
  auto expect_report = [&](const Program& q, InstId read) {
    const Findings fs = analysis::check_hazards(q);
    bool found = false;
    for (const Finding& f : fs) {
      EXPECT_EQ(f.rule, "hazard:xdl_write_valu_mem_read") << f.message;
      if (f.at != read) continue;
      found = true;
      ASSERT_TRUE(f.other);
      const Inst* prod = q.find(*f.other);
      ASSERT_TRUE(prod);
      EXPECT_EQ(isa::forms(q.target)[prod->form].mnemonic, "v_mfma_f32_32x32x16_fp8_fp8");
      EXPECT_NE(f.message.find("requires 11:"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("v_accvgpr_read_b32"), std::string::npos) << f.message;
    }
    EXPECT_TRUE(found) << dump(fs);
  };
  std::swap(p.items[nop], p.items[nop + 1]);
  expect_report(p, p.items[nop].inst.id);
  p = original;
  const InstId read = p.items[nop + 1].inst.id;
  p.items.erase(p.items.begin() + static_cast<std::ptrdiff_t>(nop));
  expect_report(p, read);
}

// ---- aiter ---------------------------------------------------------------------------------------------------

TEST(HazardCheck, AiterCorpusSummary) {
  // AMD's hand-written production kernels (assumed correct): no ERROR finding on any object. They break some ISA /
  // LLVM distances (reported to the lead with examples in issue 6); those rows name such a site
  // (HazardRule::contested) and their findings are warnings, printed per rule (distinct consumer sites) with the
  // time taken. ASMEVO_HAZARD_VERBOSE=1 prints every finding.
  ASMEVO_REQUIRE_CORPUS(dir);
  std::map<std::string, std::map<std::string, std::size_t>> per_target;
  double seconds = 0;
  std::size_t insts = 0, objects_checked = 0;
  for (const fs::path& f : objects(dir / "aiter-co", ".co")) {
    auto obj = emu::test::recover_object(f.string());
    ASSERT_TRUE(obj);
    const Program& p = obj->module.program;
    insts += p.instruction_count();
    ++objects_checked;
    const auto t0 = std::chrono::steady_clock::now();
    const Findings fs = analysis::check_hazards(p);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::set<std::pair<std::string, std::uint32_t>> sites;  // (rule, consumer)
    for (const Finding& fd : fs) {
      EXPECT_EQ(fd.severity, analysis::Severity::warning) << f << ": " << fd.message;
      // The classes investigated for issue 6 (an MFMA result read or overwritten early, an SGPR written by a VALU
      // and read by VMEM, a DPP source written just before, a gfx950 lane swap reading a VGPR written 1 wait state
      // before: mla and fmha v3 do it where LLVM pads 2; a packed VALU result read at once: allreduce_rmsnorm and
      // I8gemm, where LLVM pads 1); a new class needs a new investigation.
      EXPECT_TRUE(fd.rule == "hazard:xdl_write_valu_mem_read" || fd.rule == "hazard:xdl_write_valu_write" ||
                  fd.rule == "hazard:valu_sgpr_valu_read" || fd.rule == "hazard:valu_sgpr_vmem" ||
                  fd.rule == "hazard:vgpr_write_dpp_read" || fd.rule == "hazard:valu_sgpr_valu_mask_read" ||
                  fd.rule == "hazard:xnack_soft_clause" || fd.rule == "hazard:valu_vgpr_permlane_swap" ||
                  fd.rule == "hazard:packed_result_valu_read")
          << f << ": " << fd.message;
      if (sites.emplace(fd.rule, fd.at.value).second) ++per_target[std::string(to_string(p.target))][fd.rule];
      if (std::getenv("ASMEVO_HAZARD_VERBOSE"))
        std::printf("%s: %s\n", f.lexically_relative(dir).c_str(), fd.message.c_str());
    }
  }
  for (const auto& [t, rules] : per_target)
    for (const auto& [r, n] : rules) std::printf("aiter %s %s: %zu warning sites\n", t.c_str(), r.c_str(), n);
  std::printf("aiter: %zu objects, %zu instructions checked in %.3f s\n", objects_checked, insts, seconds);
  EXPECT_GT(objects_checked, 0u);
  EXPECT_LT(seconds, 30.0);
}

}  // namespace
