// The wait-state (hazard) rules of gfx90a, gfx942 and gfx950 as data: one row per rule, each citing its source, plus
// a small matcher over two instructions' facts (classes, registers with operand roles, MFMA pass counts). The
// emulator applies the rows as instructions run (emu/hazards.hpp); a static checker can apply them to a CFG.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "asmevo/analysis/mfma_info.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/isa_info.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/target.hpp"

namespace asmevo::analysis {

// ---- instruction classes -------------------------------------------------------------------------------------

/// Class bits of one instruction, as the hazard rules name producers and consumers. Most come from the form alone
/// (hazard_class); the bits marked "operand" depend on operand values and are added by whoever builds the facts.
namespace hz {
inline constexpr std::uint64_t
    valu = 1ull << 0,          ///< any VALU, MFMA included (LLVM SIInstrInfo::isVALU)
    valu_legacy = 1ull << 1,   ///< a VALU that is not an MFMA: v_accvgpr_read/write count here (LLVM isMFMA)
    dot = 1ull << 2,           ///< v_dot* (LLVM isDOT)
    trans = 1ull << 3,         ///< transcendental VALU (LLVM isTRANS)
    mfma = 1ull << 4,          ///< MFMA / SMFMAC (LLVM isMFMA: MAI but not v_accvgpr_read/write)
    xdl = 1ull << 5,           ///< an MFMA on the XDL pipeline (LLVM isXDL: every non-DGEMM MFMA on gfx90a; on
                               ///< gfx942/gfx950 those whose A/B inputs are not f32 or f64 -- SGEMM and DGEMM are not)
    dgemm = 1ull << 6,         ///< f64 MFMA (LLVM isDGEMM)
    dgemm_4x4 = 1ull << 7,     ///< v_mfma_f64_4x4x4f64
    dgemm_16x16 = 1ull << 8,   ///< v_mfma_f64_16x16x4f64
    two_pass = 1ull << 9,      ///< an MFMA of 2 passes (the 4x4 forms)
    vmem = 1ull << 10,         ///< MUBUF/MTBUF/MIMG and FLAT/GLOBAL/SCRATCH (LLVM isVMEM || isFLAT)
    ds = 1ull << 11,           ///< LDS/GDS (LLVM isDS)
    salu = 1ull << 12,         ///< SOP1/SOP2/SOPK/SOPC/SOPP (LLVM isSALU)
    setreg = 1ull << 13,       ///< s_setreg_b32, s_setreg_imm32_b32
    getreg = 1ull << 14,       ///< s_getreg_b32
    rw_lane = 1ull << 15,      ///< v_readlane_b32, v_writelane_b32 (LLVM isRWLane)
    read_lane = 1ull << 16,    ///< v_readlane_b32, v_readfirstlane_b32
    div_fmas = 1ull << 17,     ///< v_div_fmas_f32/f64
    dpp = 1ull << 18,          ///< a DPP encoding
    m0_movrel = 1ull << 19,    ///< s_movrels/s_movreld, ds_read_addtid_b32, ds_write_addtid_b32
    m0_msg = 1ull << 20,       ///< s_sendmsg, s_sendmsghalt, s_ttracedata, and (operand) a DS op with gds
    lds_dma = 1ull << 21,      ///< buffer/global load into LDS (M0 gives the LDS address)
    fma64 = 1ull << 22,        ///< v_fma_f64, v_fmac_f64
    wide_store = 1ull << 23,   ///< (operand) a store whose data is more than 64 bits: FLAT/GLOBAL/SCRATCH always,
                               ///< MUBUF/MTBUF only without an SGPR soffset (LLVM createsVALUHazard)
    dst_sel = 1ull << 24,      ///< (operand) a VALU writing part of its destination: SDWA dst_sel other than DWORD
                               ///< or VOP3 op_sel on the destination (LLVM hasDstSelForwardingHazard)
    rfe = 1ull << 25,          ///< s_rfe_b64
    any = 1ull << 26,          ///< every instruction
    mask_reader = 1ull << 27,  ///< v_addc_co_u32, v_subb_co_u32, v_subbrev_co_u32, v_cndmask_b32 (see role::mask_in)
    flat_seg = 1ull << 28,     ///< FLAT/GLOBAL/SCRATCH (not MUBUF/MTBUF)
    permlane_swap = 1ull << 29,  ///< v_permlane16_swap_b32, v_permlane32_swap_b32 (gfx950)
    packed_hi = 1ull << 30,      ///< (operand) a packed (VOP3P, not MFMA) VALU with op_sel_hi[0] set
    cond_write = 1ull << 31;     ///< s_cmov_b32/b64, s_cmovk_i32: writes its destination only when SCC is set
}  // namespace hz

/// Operand roles of a register reference.
namespace role {
inline constexpr std::uint16_t def = 1, use = 2,
    src0 = 4, src1 = 8,
    src2 = 16,       ///< the operand named src2 (an MFMA's SrcC; SMFMAC has none: its accumulator is tied to vdst)
    data = 32,       ///< store data (vdata/data0/data1 of a store or atomic)
    implicit = 64,   ///< exec, vcc or m0 used or defined without being an operand (LLVM implicit operands)
    mask_in = 128;   ///< the carry-in of v_addc/v_subb/v_subbrev or the lane mask of v_cndmask (src2, or the
                     ///< implicit VCC of the e32 forms): read through the mask path, not as a constant
}  // namespace role

/// One register reference of an instruction. Scalar registers are numbered by their hardware operand code (s0..s101
/// = 0..101, vcc 106/107, m0 124, exec 126/127: MI300 ISA (CDNA3) §4.1 "SGPR and special register codes");
/// vector registers by row: v0..v255 = 0..255, a0..a255 = 256..511 (the unified file of gfx90a+).
struct HazardRef {
  bool vector = false;
  std::uint16_t first = 0, count = 0;
  std::uint16_t roles = 0;
};

/// What the matcher needs to know about one instruction.
struct HazardFacts {
  const isa::FormInfo* form = nullptr;
  Opcode op = Opcode::invalid;     ///< the typed op of `form` (the same-op relation of a rule compares these)
  std::uint64_t cls = 0;           ///< hz:: bits
  unsigned passes = 0;             ///< MFMA passes (mfma_info), 0 for other instructions
  std::int32_t hwreg = -1;         ///< s_setreg/s_getreg: the HW_REG id (simm16 bits 5:0)
  std::array<HazardRef, 16> refs{};
  std::uint8_t nrefs = 0;

  void add(const HazardRef& r) noexcept {
    if (r.count && nrefs < refs.size()) refs[nrefs++] = r;
  }
  [[nodiscard]] std::string_view mnemonic() const noexcept { return form ? form->mnemonic : std::string_view{}; }
};

// ---- rules ---------------------------------------------------------------------------------------------------

/// Which registers of one side a rule looks at: refs of the file whose roles include all of `need`, any of `any`
/// (when non-zero) and none of `none`, clipped to [fixed_first, fixed_first + fixed_count) when fixed_count > 0.
struct RegSel {
  enum class File : std::uint8_t { none, scalar, vector };
  File file = File::none;          ///< none: the rule has no register relation
  std::uint16_t need = 0, any = 0, none = 0;
  std::uint16_t fixed_first = 0, fixed_count = 0;
};

/// How the producer's and the consumer's selected registers must relate.
enum class Overlap : std::uint8_t {
  any,      ///< share at least one register
  exact,    ///< the same register range (LLVM "FullReg": DstReg == Reg)
  partial,  ///< share a register without being the same range
};

/// Whether the two instructions must have the same opcode (the DOT rules).
enum class SameOp : std::uint8_t { either, same, different };

/// Targets a rule applies to.
namespace tg {
inline constexpr std::uint8_t gfx90a = 1, gfx942 = 2, gfx950 = 4, gfx94x = gfx942 | gfx950, all = 7;
}  // namespace tg
[[nodiscard]] constexpr std::uint8_t target_bit(Target t) noexcept { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(t)); }

/// One wait-state rule: when an instruction of the consumer classes issues fewer than `wait + per_pass * passes +
/// not2_extra * (passes != 2)` wait states after an instruction of the producer classes and their registers relate
/// as the selectors say, the program is wrong (the hardware does not interlock). Every issued instruction is one
/// wait state, `s_nop N` is N + 1 (MI300 ISA (CDNA3) §4.5 "Manually Inserted Wait States (NOPs)"; LLVM
/// SIInstrInfo::getNumWaitStates).
struct HazardRule {
  std::string_view name;
  std::uint8_t targets = 0;
  std::uint64_t prod_all = 0, prod_any = 0, prod_none = 0;  ///< producer class: all of, any of (if set), none of
  std::uint64_t cons_all = 0, cons_any = 0, cons_none = 0;  ///< consumer class
  RegSel prod, cons;
  Overlap overlap = Overlap::any;
  SameOp same_op = SameOp::either;
  int wait = 0;        ///< wait states required
  int per_pass = 0;    ///< plus this many per producer MFMA pass
  int not2_extra = 0;  ///< plus this when the producer MFMA does not have 2 passes (gfx950)
  std::string_view text;    ///< the rule in words
  std::string_view source;  ///< where it comes from
  /// Rows with the same non-zero group are one search, as in LLVM's getWaitStatesSinceDef: only the producer
  /// nearest to the consumer that writes (or, for group 6, reads) an overlapping register counts, and the row that
  /// matches it decides the distance (so an MFMA that fully overwrote the registers hides an older one). Group 0:
  /// the row is its own search.
  std::uint8_t group = 0;
  /// For rows whose producer is a VALU writing an SGPR that the consumer reads as an operand: the NEAREST earlier
  /// writer of each consumer SGPR, of any kind, decides. When that writer is not a producer of the row (an SALU
  /// such as `s_and_b32 s82, s82, 0xffffff` after `v_readlane_b32 s82, ...`, an s_mov, an s_load), the consumer
  /// reads its value, not the VALU's, and the row does not apply to that register: an SALU or SMEM write of an SGPR
  /// is interlocked for every later reader (MI300 ISA (CDNA3) §4.5 Table 11 has no "SALU writes SGPR -> VALU/VMEM
  /// reads" row; LLVM GCNHazardRecognizer has no check with a non-VALU SGPR writer as producer), and an SALU reading
  /// a VALU-written SGPR is interlocked too (no row either). This departs on purpose from LLVM, whose
  /// getWaitStatesSinceDef skips non-VALU writers and so pads against the older VALU write anyway (more
  /// conservative than the hardware needs; AMD's aiter kernels rely on the interlock). Writers that may not write
  /// (s_cmov*) or write a register chosen at run time (s_movreld) never hide (hazard_hiding_writer).
  bool any_writer_hides = false;
  /// Empty, or one concrete site where AMD's production kernels (the aiter corpus, assumed correct) break this row
  /// as written: a static checker reports the row's findings as warnings (Severity::warning), not errors. The
  /// emulator's run-time check still stops on every row.
  std::string_view contested = {};
};

namespace detail {
using F = RegSel::File;
// Hardware operand codes of the special scalar registers (MI300 ISA (CDNA3) §4.1 / LLVM SIDefines.h).
inline constexpr std::uint16_t code_vcc = 106, code_m0 = 124, code_exec = 126;
inline constexpr RegSel sgpr_def{F::scalar, role::def, 0, 0, 0, 0};
inline constexpr RegSel sgpr_use{F::scalar, role::use, 0, 0, 0, 0};
inline constexpr RegSel sgpr_use_explicit{F::scalar, role::use, 0, role::implicit, 0, 0};
inline constexpr RegSel sgpr_use_constant{F::scalar, role::use, 0, role::implicit | role::mask_in, 0, 0};
inline constexpr RegSel sgpr_use_mask{F::scalar, role::use | role::mask_in, 0, 0, 0, 0};
inline constexpr RegSel exec_def{F::scalar, role::def, 0, 0, code_exec, 2};
inline constexpr RegSel vcc_def{F::scalar, role::def, 0, 0, code_vcc, 2};
inline constexpr RegSel m0_def{F::scalar, role::def, 0, 0, code_m0, 1};
inline constexpr RegSel lane_select{F::scalar, role::use | role::src1, 0, 0, 0, 0};
inline constexpr RegSel vgpr_def{F::vector, role::def, 0, 0, 0, 0};
inline constexpr RegSel vgpr_use{F::vector, role::use, 0, 0, 0, 0};
inline constexpr RegSel vgpr_use_explicit{F::vector, role::use, 0, role::implicit, 0, 0};
inline constexpr RegSel vgpr_src0{F::vector, role::use | role::src0, 0, 0, 0, 0};
inline constexpr RegSel vgpr_srcc{F::vector, role::use | role::src2, 0, 0, 0, 0};
inline constexpr RegSel vgpr_srcab{F::vector, role::use, 0, role::src2 | role::implicit, 0, 0};
inline constexpr RegSel vgpr_store_data{F::vector, role::use | role::data, 0, 0, 0, 0};
inline constexpr RegSel no_regs{};

// Sources, cited once.
inline constexpr std::string_view isa_nops =
    "MI200 ISA (CDNA2) §4.5 and MI300 ISA (CDNA3) §4.5 \"Manually Inserted Wait States (NOPs)\"";
inline constexpr std::string_view isa_mfma =
    "MI200 ISA (CDNA2) and MI300 ISA (CDNA3) §7 \"Dependency Resolution: Required Independent Instructions\"";
}  // namespace detail

/// Every rule. Rows whose numbers differ per target are separate rows. Consumers and producers are named by hz::
/// bits. The numbers and relations follow LLVM's GCNHazardRecognizer (llvm-project main, ROCm fork 2025), which
/// encodes the ISA guides' tables and is what every compiler-produced kernel was padded against; where the MI300 ISA
/// (CDNA3) §4.5 Table 11 is narrower than LLVM's conservative check (a DPP instruction's non-DPP sources, MUBUF
/// loads into LDS after an M0 write) the row follows the ISA and says so: AMD's hand-written aiter kernels rely on
/// those exceptions at hundreds of sites. An SGPR read as carry-in or lane mask follows LLVM (its own row,
/// valu_sgpr_valu_mask_read), since LLVM-compiled kernels are padded for it. The SGPR rows whose consumer
/// reads the VALU-written SGPR as an operand (valu_sgpr_vmem, valu_sgpr_lane_select, valu_sgpr_valu_read) let any
/// nearer writer of that SGPR hide the VALU's write (HazardRule::any_writer_hides, a departure from LLVM); the rows
/// whose consumer reads VCC or EXEC implicitly (valu_vcc_div_fmas, valu_exec_*) keep LLVM's VALU-only search.
inline constexpr HazardRule hazard_rules[] = {
    // ---- VALU / SALU / VMEM rules ---------------------------------------------------------------------------------
    {"valu_sgpr_vmem", tg::all, hz::valu, 0, 0, hz::vmem, 0, 0, detail::sgpr_def, detail::sgpr_use, Overlap::any,
     SameOp::either, 5, 0, 0, "a VALU writes an SGPR (or VCC/EXEC/M0) that a VMEM/FLAT instruction reads",
     "LLVM GCNHazardRecognizer::checkVMEMHazards (VmemSgprWaitStates = 5); MI300 ISA (CDNA3) §4.5", 0, true,
     "aiter gfx942 allreduce_rmsnorm_N8192: i791 v_readlane_b32 writes s8, i794 buffer_store_dwordx4 reads it after 2 "
     "of 5"},
    {"valu_vcc_div_fmas", tg::all, hz::valu, 0, 0, hz::div_fmas, 0, 0, detail::vcc_def, detail::no_regs,
     Overlap::any, SameOp::either, 4, 0, 0, "a VALU writes VCC, then v_div_fmas (which reads VCC)",
     "LLVM GCNHazardRecognizer::checkDivFMasHazards (DivFMasWaitStates = 4); MI300 ISA (CDNA3) §4.5"},
    {"valu_sgpr_lane_select", tg::all, hz::valu, 0, 0, hz::rw_lane, 0, 0, detail::sgpr_def, detail::lane_select,
     Overlap::any, SameOp::either, 4, 0, 0,
     "a VALU writes an SGPR that v_readlane/v_writelane uses as its lane select",
     "LLVM GCNHazardRecognizer::checkRWLaneHazards (RWLaneWaitStates = 4); MI300 ISA (CDNA3) §4.5", 0, true},
    {"setreg_getreg", tg::all, hz::setreg, 0, 0, hz::getreg, 0, 0, detail::no_regs, detail::no_regs, Overlap::any,
     SameOp::either, 2, 0, 0, "s_setreg, then s_getreg of the same hardware register",
     "LLVM GCNHazardRecognizer::checkGetRegHazards (GetRegWaitStates = 2); MI300 ISA (CDNA3) §4.5"},
    {"setreg_setreg", tg::all, hz::setreg, 0, 0, hz::setreg, 0, 0, detail::no_regs, detail::no_regs, Overlap::any,
     SameOp::either, 2, 0, 0, "s_setreg, then s_setreg of the same hardware register",
     "LLVM GCNHazardRecognizer::checkSetRegHazards (GCNSubtarget::getSetRegWaitStates = 2 after SEA_ISLANDS)"},
    {"setreg_trapsts_rfe", tg::all, hz::setreg, 0, 0, hz::rfe, 0, 0, detail::no_regs, detail::no_regs, Overlap::any,
     SameOp::either, 1, 0, 0, "s_setreg of TRAPSTS, then s_rfe_b64",
     "LLVM GCNHazardRecognizer::checkRFEHazards (RFEWaitStates = 1)"},
    {"vgpr_write_dpp_read", tg::all, hz::valu, 0, 0, hz::dpp, 0, 0, detail::vgpr_def, detail::vgpr_src0,
     Overlap::any, SameOp::either, 2, 0, 0, "a VALU writes a VGPR that a DPP instruction reads as its DPP source",
     "MI300 ISA (CDNA3) §4.5 Table 11 \"VALU writes VGPR -> VALU DPP reads that VGPR: 2\"; LLVM "
     "GCNHazardRecognizer::checkDPPHazards (DppVgprWaitStates = 2) pads every VGPR use of any writer", 0, false,
     "aiter gfx942 pa_a16w16_b16: i110 v_mov_b32 writes v9, i111 v_mov_b32 (DPP) reads it after 0 of 2"},
    {"valu_exec_dpp", tg::all, hz::valu, 0, 0, hz::dpp, 0, 0, detail::exec_def, detail::no_regs, Overlap::any,
     SameOp::either, 5, 0, 0, "a VALU writes EXEC, then a DPP instruction",
     "LLVM GCNHazardRecognizer::checkDPPHazards (DppExecWaitStates = 5); MI300 ISA (CDNA3) §4.5"},
    {"salu_m0_movrel", tg::all, hz::salu, 0, 0, hz::m0_movrel, 0, 0, detail::m0_def, detail::no_regs, Overlap::any,
     SameOp::either, 1, 0, 0, "an SALU writes M0, then s_movrel or ds_*_addtid (which read M0)",
     "LLVM GCNHazardRecognizer::checkReadM0Hazards (GCNSubtarget::hasReadM0MovRelInterpHazard: GFX9)"},
    {"salu_m0_msg_gds", tg::all, hz::salu, 0, 0, hz::m0_msg, 0, 0, detail::m0_def, detail::no_regs, Overlap::any,
     SameOp::either, 1, 0, 0, "an SALU writes M0, then s_sendmsg/s_ttracedata or a GDS operation",
     "LLVM GCNHazardRecognizer::checkReadM0Hazards (GCNSubtarget::hasReadM0SendMsgHazard: GFX8-GFX9)"},
    {"salu_m0_lds_dma", tg::all, hz::salu, 0, 0, hz::lds_dma | hz::flat_seg, 0, 0, detail::m0_def, detail::no_regs,
     Overlap::any, SameOp::either, 1, 0, 0, "an SALU writes M0, then a global/scratch load into LDS (M0 is its LDS address)",
     "MI300 ISA (CDNA3) §4.5 Table 11 \"SALU writes M0 -> ... scratch or global with LDS = 1: 1\"; LLVM "
     "GCNHazardRecognizer::checkReadM0Hazards (hasReadM0LdsDmaHazard) also pads MUBUF loads into LDS"},
    {"wide_store_data_valu_write", tg::gfx90a, hz::wide_store, 0, 0, hz::valu, 0, 0, detail::vgpr_store_data,
     detail::vgpr_def, Overlap::any, SameOp::either, 1, 0, 0,
     "a VALU overwrites the data VGPRs of a preceding store of more than 64 bits",
     "LLVM GCNHazardRecognizer::checkVALUHazardsHelper / createsVALUHazard (VALUWaitStates = 1 before gfx940); "
     "MI200 ISA (CDNA2) §4.5"},
    {"wide_store_data_valu_write", tg::gfx94x, hz::wide_store, 0, 0, hz::valu, 0, 0, detail::vgpr_store_data,
     detail::vgpr_def, Overlap::any, SameOp::either, 2, 0, 0,
     "a VALU overwrites the data VGPRs of a preceding store of more than 64 bits",
     "LLVM GCNHazardRecognizer::checkVALUHazardsHelper / createsVALUHazard (VALUWaitStates = 2 on gfx940+); "
     "MI300 ISA (CDNA3) §4.5"},
    // gfx940+ VALU forwarding rules (GCNSubtarget::hasTransForwardingHazard, hasDstSelForwardingHazard,
    // hasVDecCoExecHazard: HasGFX940Insts).
    {"trans_result_valu_read", tg::gfx94x, hz::trans, 0, 0, hz::valu, 0, hz::trans, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 1, 0, 0,
     "a transcendental VALU writes a VGPR that a non-transcendental VALU reads",
     "LLVM GCNHazardRecognizer::checkVALUHazards (TransDefWaitstates = 1); MI300 ISA (CDNA3) §4.5"},
    {"dst_sel_result_valu_read", tg::gfx94x, hz::valu | hz::dst_sel, 0, 0, hz::valu, 0, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 1, 0, 0,
     "a VALU writes part of a VGPR (SDWA dst_sel / op_sel on the destination) that a VALU reads",
     "LLVM GCNHazardRecognizer::checkVALUHazards (Shift16DefWaitstates = 1); MI300 ISA (CDNA3) §4.5"},
    // LLVM's dst_sel test is `src0_modifiers & SISrcMods::DST_OP_SEL`, and SIDefines.h gives DST_OP_SEL the mask of
    // OP_SEL_1, which in a VOP3P form's src0_modifiers is op_sel_hi[0]: so LLVM pads a packed VALU with op_sel_hi[0]
    // set (the default) like a dst_sel write (Triton's gfx950 `v_pk_mul_f32 v[4:5], ...; s_nop 0;
    // v_cvt_pk_bf16_f32 v4, v4, v5`). The ISA lists no such row, and AMD's kernels do not pad it.
    {"packed_result_valu_read", tg::gfx94x, hz::valu | hz::packed_hi, 0, 0, hz::valu, 0, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 1, 0, 0,
     "a packed VALU with op_sel_hi[0] set writes a VGPR that a VALU reads",
     "LLVM GCNHazardRecognizer::checkVALUHazards (hasDstSelForwardingHazard, Shift16DefWaitstates = 1: "
     "src0_modifiers & DST_OP_SEL, and SIDefines.h DST_OP_SEL = OP_SEL_1, a VOP3P form's op_sel_hi[0])", 0, false,
     "aiter gfx942 I8gemm_bf16_perTokenI8_BpreShuffle_16x128: i572 v_pk_mul_f32 writes v30, i573 v_fma_f32 reads "
     "it after 0 of 1"},
    {"valu_sgpr_valu_read", tg::gfx94x, hz::valu, 0, 0, hz::valu, 0, 0, detail::sgpr_def,
     detail::sgpr_use_constant, Overlap::any, SameOp::either, 2, 0, 0,
     "a VALU writes an SGPR that a VALU reads as a constant (a carry-in or lane mask: valu_sgpr_valu_mask_read)",
     "MI300 ISA (CDNA3) §4.5 Table 11 \"VALU writes SGPR/VCC ... VALU reads SGPR as constant: 2, as carry-in: 0\"; "
     "LLVM GCNHazardRecognizer::checkVALUHazards (VALUWriteSGPRVALUReadWaitstates = 2) also pads carry-ins", 0, true,
     "aiter gfx942 and gfx950 topksoftmax_4x128x4: i90 v_readlane_b32 writes s20, i91 v_mov_b32 reads it after 0 of "
     "2"},
    // LLVM pads a carry-in / lane mask like any other SGPR read (checkVALUHazards under hasVDecCoExecHazard, i.e.
    // HasGFX940Insts: every explicit SGPR use, which includes src2 of v_addc/v_subb/v_cndmask e64, and
    // `VALU->readsRegister(VCC)`, which includes the implicit VCC of their e32 forms; the nearest VALU writer
    // (IsVALUDefSGPRFn: isVALU && modifiesRegister) decides, SALU writers are skipped). The MI300 ISA (CDNA3) §4.5
    // Table 11 lists "as carry-in: 0", but LLVM-compiled kernels are padded against this row (the Triton corpus: 37
    // deleted-s_nop mutants of `v_cmp ... vcc ; s_nop 1 ; v_cndmask_b32_e32 ... vcc` went unnoticed without it).
    {"valu_sgpr_valu_mask_read", tg::gfx94x, hz::valu, 0, 0, hz::mask_reader, 0, 0, detail::sgpr_def,
     detail::sgpr_use_mask, Overlap::any, SameOp::either, 2, 0, 0,
     "a VALU writes an SGPR/VCC that v_addc/v_subb/v_subbrev/v_cndmask reads as its carry-in or lane mask",
     "LLVM GCNHazardRecognizer::checkVALUHazards (hasVDecCoExecHazard: VALUWriteSGPRVALUReadWaitstates = 2 for every "
     "explicit SGPR use and readsRegister(VCC)); MI300 ISA (CDNA3) §4.5 Table 11 says 0 for a carry-in", 0, false,
     "aiter gfx942 all_reduce: i499 v_cmp_u_f32 writes s92, i501 v_cndmask_b32 reads it as its lane mask after 1 of 2"},
    {"valu_vgpr_readlane", tg::gfx94x, hz::valu, 0, 0, hz::read_lane, 0, 0, detail::vgpr_def, detail::vgpr_src0,
     Overlap::any, SameOp::either, 1, 0, 0, "a VALU writes the VGPR that v_readlane/v_readfirstlane reads",
     "LLVM GCNHazardRecognizer::checkVALUHazards (VALUWriteVGPRReadlaneRead = 1); MI300 ISA (CDNA3) §4.5"},
    {"valu_vgpr_permlane_swap", tg::gfx950, hz::valu, 0, 0, hz::permlane_swap, 0, 0, detail::vgpr_def,
     detail::vgpr_use, Overlap::any, SameOp::either, 2, 0, 0,
     "a VALU writes a VGPR that v_permlane16_swap/v_permlane32_swap reads (either operand: the swap reads both)",
     "LLVM GCNHazardRecognizer::checkPermlaneHazards (VALUWritesVDstWaitStates = 2 for every explicit VGPR use; "
     "llvm-project PR 117287)", 0, false,
     "aiter gfx950 mla_a8w8_qh16_qseqlen1_gqaratio16: i990 v_cvt_pk_fp8_f32 writes v39, i992 v_permlane16_swap_b32 "
     "reads it after 1 of 2 (and fmha fwd_hd128_bf16 chains swaps: i2498 v_permlane32_swap_b32 writes v104, i2500 "
     "v_permlane16_swap_b32 reads it after 1)"},
    {"valu_exec_permlane_swap", tg::gfx950, hz::valu, 0, 0, hz::permlane_swap, 0, 0, detail::exec_def,
     detail::no_regs, Overlap::any, SameOp::either, 4, 0, 0,
     "a VALU (v_cmpx) writes EXEC, then v_permlane16_swap/v_permlane32_swap",
     "LLVM GCNHazardRecognizer::checkPermlaneHazards (VCmpXWritesExecWaitStates, llvm-project PR 117286); rocRoller "
     "VCMPXWrite94x: gfx950 v_cmpx_* then v_permlane*: 4 NOPs. Any VALU writing EXEC counts here (the conservative "
     "side)"},
    {"valu_exec_rw_lane", tg::gfx94x, hz::valu, 0, 0, 0, hz::read_lane | hz::rw_lane, 0, detail::exec_def,
     detail::no_regs, Overlap::any, SameOp::either, 4, 0, 0,
     "a VALU writes EXEC, then v_readlane/v_readfirstlane/v_writelane",
     "LLVM GCNHazardRecognizer::checkVALUHazards (VALUWriteEXECRWLane = 4); MI300 ISA (CDNA3) §4.5"},

    // ---- MFMA as consumer (LLVM GCNHazardRecognizer::checkMAIHazards90A) -------------------------------------------
    {"valu_exec_mfma", tg::all, hz::valu_legacy, 0, 0, hz::mfma, 0, 0, detail::exec_def, detail::no_regs,
     Overlap::any, SameOp::either, 4, 0, 0, "a (non-MFMA) VALU writes EXEC, then an MFMA",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (VALUWritesExecWaitStates = 4); " "MI300 ISA (CDNA3) §7"},
    {"valu_vgpr_mfma_read", tg::all, hz::valu_legacy, 0, hz::dot, hz::mfma, 0, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 2, 0, 0,
     "a (non-MFMA, non-DOT) VALU writes a VGPR/AGPR that an MFMA reads (SrcA, SrcB or SrcC)",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (LegacyVALUNotDotWritesVGPRWaitStates = 2); MI300 ISA (CDNA3) §7"},
    // SrcC exactly the previous MFMA's destination.
    {"mfma_srcc_nearest", tg::all, hz::mfma, 0, 0, hz::mfma, 0, 0, detail::vgpr_def, detail::vgpr_srcc,
     Overlap::any, SameOp::either, 0, 0, 0,
     "(no wait of its own) the nearest MFMA writing registers a following MFMA reads as SrcC decides the SrcC rules",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (IsOverlappedMFMAFn: nearest overlapping MFMA)", 1},
    {"dgemm4_full_srcc_dgemm4", tg::all, hz::dgemm_4x4, 0, 0, hz::dgemm_4x4, 0, 0, detail::vgpr_def,
     detail::vgpr_srcc, Overlap::exact, SameOp::either, 4, 0, 0,
     "v_mfma_f64_4x4x4f64 writes exactly the SrcC of a following v_mfma_f64_4x4x4f64",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (DMFMA4x4WritesVGPRFullSrcCWaitStates = 4)", 1},
    {"mfma2_full_srcc", tg::gfx94x, hz::mfma | hz::two_pass, 0, hz::dgemm_4x4, hz::mfma, 0, 0, detail::vgpr_def,
     detail::vgpr_srcc, Overlap::exact, SameOp::either, 2, 0, 0,
     "a 2-pass MFMA writes exactly the SrcC of a following MFMA",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_SMFMA4x4WritesVGPRFullSrcCWaitStates = 2)", 1},
    // SrcC overlapping (not equal to) the previous MFMA's destination.
    {"dgemm16_overlap_srcc", tg::gfx90a | tg::gfx942, hz::dgemm_16x16, 0, 0, hz::mfma, 0, hz::xdl,
     detail::vgpr_def, detail::vgpr_srcc, Overlap::partial, SameOp::either, 9, 0, 0,
     "v_mfma_f64_16x16x4f64 writes registers overlapping the SrcC of a following non-XDL MFMA",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (DMFMA16x16WritesVGPROverlappedSrcCWaitStates = 9)", 1},
    {"dgemm16_overlap_srcc", tg::gfx950, hz::dgemm_16x16, 0, 0, hz::mfma, 0, hz::xdl, detail::vgpr_def,
     detail::vgpr_srcc, Overlap::partial, SameOp::either, 17, 0, 0,
     "v_mfma_f64_16x16x4f64 writes registers overlapping the SrcC of a following non-XDL MFMA",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX950_DMFMA16x16WritesVGPROverlappedSrcCWaitStates = 17)", 1},
    {"dgemm4_overlap_srcc", tg::all, hz::dgemm_4x4, 0, 0, hz::mfma, 0, hz::xdl, detail::vgpr_def,
     detail::vgpr_srcc, Overlap::partial, SameOp::either, 4, 0, 0,
     "v_mfma_f64_4x4x4f64 writes registers overlapping the SrcC of a following non-XDL MFMA",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (DMFMA4x4WritesVGPROverlappedSrcCWaitStates = 4)", 1},
    {"smfma_overlap_srcc_smfma", tg::gfx90a, hz::mfma, 0, hz::dgemm, hz::mfma, 0, hz::dgemm, detail::vgpr_def,
     detail::vgpr_srcc, Overlap::partial, SameOp::either, 0, 1, 0,
     "an MFMA writes registers overlapping the SrcC of a following non-DGEMM MFMA: passes (2/8/16)",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (SMFMA{4x4,16x16,32x32}WritesVGPROverlappedSMFMASrcCWaitStates)", 1},
    {"smfma_overlap_srcc_dgemm", tg::gfx90a, hz::mfma, 0, hz::dgemm, hz::dgemm, 0, 0, detail::vgpr_def,
     detail::vgpr_srcc, Overlap::partial, SameOp::either, 1, 1, 0,
     "an MFMA writes registers overlapping the SrcC of a following DGEMM: passes + 1 (3/9/17)",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (SMFMA{4x4,16x16,32x32}WritesVGPROverlappedDMFMASrcCWaitStates)", 1},
    {"xdl_overlap_srcc_xdl", tg::gfx942, hz::xdl, 0, 0, hz::xdl, 0, 0, detail::vgpr_def, detail::vgpr_srcc,
     Overlap::partial, SameOp::either, 1, 1, 0,
     "an XDL MFMA writes registers overlapping the SrcC of a following XDL MFMA: passes + 1",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_XDL_N_PassWritesVGPROverlappedXDLOrSMFMASrcCWaitStates)", 1},
    {"xdl_overlap_srcc_xdl", tg::gfx950, hz::xdl, 0, 0, hz::xdl, 0, 0, detail::vgpr_def, detail::vgpr_srcc,
     Overlap::partial, SameOp::either, 2, 1, 0,
     "an XDL MFMA writes registers overlapping the SrcC of a following XDL MFMA: passes + 2",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_XDL_N_PassWritesVGPROverlappedXDLOrSMFMASrcCWaitStates, "
     "IsGFX950)", 1},
    {"xdl_overlap_srcc_nonxdl", tg::gfx942, hz::xdl, 0, 0, hz::mfma, 0, hz::xdl, detail::vgpr_def,
     detail::vgpr_srcc, Overlap::partial, SameOp::either, 1, 1, 0,
     "an XDL MFMA writes registers overlapping the SrcC of a following SGEMM/DGEMM: passes + 1",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_XDL_N_PassWritesVGPROverlappedSGEMMDGEMMSrcCWaitStates)", 1},
    {"xdl_overlap_srcc_nonxdl", tg::gfx950, hz::xdl, 0, 0, hz::mfma, 0, hz::xdl, detail::vgpr_def,
     detail::vgpr_srcc, Overlap::partial, SameOp::either, 1, 1, 1,
     "an XDL MFMA writes registers overlapping the SrcC of a following SGEMM/DGEMM: passes + 1 (+1 unless 2 passes)",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_XDL_N_PassWritesVGPROverlappedSGEMMDGEMMSrcCWaitStates, "
     "IsGFX950)", 1},
    {"sgemm_overlap_srcc_nonxdl", tg::gfx94x, hz::mfma, 0, hz::xdl | hz::dgemm, hz::mfma, 0, hz::xdl,
     detail::vgpr_def, detail::vgpr_srcc, Overlap::partial, SameOp::either, 0, 1, 0,
     "an SGEMM (f32-input, non-XDL) MFMA writes registers overlapping the SrcC of a following non-XDL MFMA: passes",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_SMFMA_N_PassWritesVGPROverlappedSMFMASrcCWaitStates)", 1},
    // SrcA/SrcB reading the previous MFMA's destination.
    {"dgemm16_write_srcab", tg::gfx90a | tg::gfx942, hz::dgemm_16x16, 0, 0, hz::mfma, 0, 0, detail::vgpr_def,
     detail::vgpr_srcab, Overlap::any, SameOp::either, 11, 0, 0,
     "v_mfma_f64_16x16x4f64 writes registers a following MFMA reads as SrcA/SrcB",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (DMFMA16x16WritesVGPROverlappedMFMASrcABWaitStates = 11)", 2},
    {"dgemm16_write_srcab", tg::gfx950, hz::dgemm_16x16, 0, 0, hz::mfma, 0, 0, detail::vgpr_def,
     detail::vgpr_srcab, Overlap::any, SameOp::either, 19, 0, 0,
     "v_mfma_f64_16x16x4f64 writes registers a following MFMA reads as SrcA/SrcB",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX950_DMFMA16x16WritesVGPROverlappedMFMASrcABWaitStates = 19)", 2},
    {"dgemm4_write_srcab", tg::all, hz::dgemm_4x4, 0, 0, hz::mfma, 0, 0, detail::vgpr_def, detail::vgpr_srcab,
     Overlap::any, SameOp::either, 6, 0, 0, "v_mfma_f64_4x4x4f64 writes registers a following MFMA reads as SrcA/SrcB",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (DMFMA4x4WritesVGPROverlappedMFMASrcABWaitStates = 6)", 2},
    {"smfma_write_srcab", tg::gfx90a, hz::mfma, 0, hz::dgemm, hz::mfma, 0, 0, detail::vgpr_def, detail::vgpr_srcab,
     Overlap::any, SameOp::either, 3, 1, 0,
     "an MFMA writes registers a following MFMA reads as SrcA/SrcB: passes + 3 (5/11/19)",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (SMFMA{4x4,16x16,32x32}WritesVGPROverlappedSrcABWaitStates)", 2},
    {"xdl_write_srcab", tg::gfx942, hz::xdl, 0, 0, hz::mfma, 0, 0, detail::vgpr_def, detail::vgpr_srcab,
     Overlap::any, SameOp::either, 3, 1, 0,
     "an XDL MFMA writes registers a following MFMA reads as SrcA/SrcB: passes + 3",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_XDL_N_PassWritesVGPROverlappedSrcABWaitStates)", 2},
    {"xdl_write_srcab", tg::gfx950, hz::xdl, 0, 0, hz::mfma, 0, 0, detail::vgpr_def, detail::vgpr_srcab,
     Overlap::any, SameOp::either, 3, 1, 1,
     "an XDL MFMA writes registers a following MFMA reads as SrcA/SrcB: passes + 3, +1 unless 2 passes",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_XDL_N_PassWritesVGPROverlappedSrcABWaitStates, IsGFX950)", 2},
    {"sgemm_write_srcab", tg::gfx94x, hz::mfma, 0, hz::xdl | hz::dgemm, hz::mfma, 0, 0, detail::vgpr_def,
     detail::vgpr_srcab, Overlap::any, SameOp::either, 2, 1, 0,
     "an SGEMM MFMA writes registers a following MFMA reads as SrcA/SrcB: passes + 2",
     "LLVM GCNHazardRecognizer::checkMAIHazards90A (GFX940_SMFMA_N_PassWritesVGPROverlappedSrcABWaitStates)", 2},

    // ---- MFMA / DOT results read or overwritten by VALU and memory (LLVM checkMAIVALUHazards) -----------------------
    {"dot_write_nearest", tg::all, hz::dot, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 0, 0, 0,
     "(no wait of its own) the nearest DOT writing a register a following VALU/memory instruction reads decides",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (IsDotWriteFn: nearest DOT writer)", 5},
    {"dot_write_same_dot_srcab", tg::all, hz::dot, 0, 0, hz::dot, 0, 0, detail::vgpr_def, detail::vgpr_srcab,
     Overlap::any, SameOp::same, 3, 0, 0, "a DOT writes a VGPR the same DOT opcode reads as SrcA/SrcB",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DotWriteSameDotReadSrcAB = 3)", 5},
    {"dot_write_valu_read", tg::all, hz::dot, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::different, 3, 0, 0,
     "a DOT writes a VGPR that another VALU opcode or a memory instruction reads",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DotWriteDifferentVALURead = 3)", 5},
    {"dot_write_valu_write", tg::all, hz::dot, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0, detail::vgpr_def,
     detail::vgpr_def, Overlap::any, SameOp::different, 3, 0, 0,
     "a DOT writes a VGPR that another VALU opcode or a memory instruction overwrites",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DotWriteDifferentVALUWrite = 3)"},
    {"dgemm4_write_valu_read", tg::all, hz::dgemm_4x4, 0, 0, hz::valu_legacy, 0, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 6, 0, 0,
     "v_mfma_f64_4x4x4f64 writes a VGPR/AGPR a VALU reads",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DMFMA4x4WriteVgprVALUReadWaitStates = 6)", 3},
    {"dgemm16_write_valu_read", tg::gfx90a | tg::gfx942, hz::dgemm_16x16, 0, 0, hz::valu_legacy, 0, 0,
     detail::vgpr_def, detail::vgpr_use_explicit, Overlap::any, SameOp::either, 11, 0, 0,
     "v_mfma_f64_16x16x4f64 writes a VGPR/AGPR a VALU reads",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DMFMA16x16WriteVgprVALUReadWaitStates = 11)", 3},
    {"dgemm16_write_valu_read", tg::gfx950, hz::dgemm_16x16, 0, 0, hz::valu_legacy, 0, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 19, 0, 0,
     "v_mfma_f64_16x16x4f64 writes a VGPR/AGPR a VALU reads",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (GFX950_DMFMA16x16WriteVgprVALUReadWaitStates = 19)", 3},
    {"dgemm4_write_mem_read", tg::all, hz::dgemm_4x4, 0, 0, 0, hz::vmem | hz::ds, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 9, 0, 0,
     "v_mfma_f64_4x4x4f64 writes a VGPR/AGPR a memory instruction reads",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DMFMA4x4WriteVgprMemExpReadWaitStates = 9)", 3},
    {"dgemm16_write_mem_read", tg::all, hz::dgemm_16x16, 0, 0, 0, hz::vmem | hz::ds, 0, detail::vgpr_def,
     detail::vgpr_use_explicit, Overlap::any, SameOp::either, 18, 0, 0,
     "v_mfma_f64_16x16x4f64 writes a VGPR/AGPR a memory instruction reads",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DMFMA16x16WriteVgprMemExpReadWaitStates = 18)", 3},
    {"smfma_write_valu_mem_read", tg::gfx90a, hz::mfma, 0, hz::dgemm, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_def, detail::vgpr_use_explicit, Overlap::any, SameOp::either, 3, 1, 0,
     "an MFMA writes a VGPR/AGPR a VALU or memory instruction reads: passes + 3 (5/11/19)",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (SMFMA{4x4,16x16,32x32}WriteVgprVALUMemExpReadWaitStates); "
     "MI200 ISA (CDNA2) §7", 3},
    {"xdl_write_valu_mem_read", tg::gfx942, hz::xdl, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_def, detail::vgpr_use_explicit, Overlap::any, SameOp::either, 3, 1, 0,
     "an XDL MFMA writes a VGPR/AGPR a VALU or memory instruction reads: passes + 3",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates); MI300 ISA "
     "(CDNA3) §7", 3, false,
     "aiter gfx942 flatmm_uk_gfx9_f16f8_128x256x128_1x4x1_16x16x32: i388 v_mfma_f32_16x16x32_fp8_fp8 writes v56, "
     "i391 v_fmac_f32 reads it after 2 of 7"},
    {"xdl_write_valu_mem_read", tg::gfx950, hz::xdl, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_def, detail::vgpr_use_explicit, Overlap::any, SameOp::either, 3, 1, 1,
     "an XDL MFMA writes a VGPR/AGPR a VALU or memory instruction reads: passes + 3, +1 unless 2 passes",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates, IsGFX950)", 3,
     false,
     "aiter gfx950 f8_block_scale_mi350_x32: i323 v_mfma_f32_16x16x128_f8f6f4 (8 passes) writes v8, i329 v_fma_f32 "
     "reads it after 10 of 12"},
    {"sgemm_write_valu_mem_read", tg::gfx94x, hz::mfma, 0, hz::xdl | hz::dgemm, 0,
     hz::valu_legacy | hz::vmem | hz::ds, 0, detail::vgpr_def, detail::vgpr_use_explicit, Overlap::any,
     SameOp::either, 2, 1, 0, "an SGEMM MFMA writes a VGPR/AGPR a VALU or memory instruction reads: passes + 2",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (GFX940_SMFMA_N_PassWriteVgprVALUMemExpReadWaitStates)", 3},
    {"dgemm_fma64", tg::all, hz::dgemm, 0, 0, hz::fma64, 0, 0, detail::no_regs, detail::no_regs, Overlap::any,
     SameOp::either, 2, 0, 0, "a DGEMM, then v_fma_f64/v_fmac_f64 (any registers)",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DMFMAToFMA64WaitStates = 2)"},
    {"dgemm4_write_valu_write", tg::all, hz::dgemm_4x4, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_def, detail::vgpr_def, Overlap::any, SameOp::either, 6, 0, 0,
     "v_mfma_f64_4x4x4f64 writes a VGPR/AGPR a VALU or memory instruction overwrites",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DMFMA4x4WriteVgprVALUWriteWaitStates = 6)", 4},
    {"dgemm16_write_valu_write", tg::all, hz::dgemm_16x16, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_def, detail::vgpr_def, Overlap::any, SameOp::either, 11, 0, 0,
     "v_mfma_f64_16x16x4f64 writes a VGPR/AGPR a VALU or memory instruction overwrites",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (DMFMA16x16WriteVgprVALUWriteWaitStates = 11)", 4},
    {"smfma_write_valu_write", tg::gfx90a, hz::mfma, 0, hz::dgemm, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_def, detail::vgpr_def, Overlap::any, SameOp::either, 3, 1, 0,
     "an MFMA writes a VGPR/AGPR a VALU or memory instruction overwrites: passes + 3 (5/11/19)",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (SMFMA{4x4,16x16,32x32}WriteVgprVALUWawWaitStates)", 4},
    {"xdl_write_valu_write", tg::gfx942, hz::xdl, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_def, detail::vgpr_def, Overlap::any, SameOp::either, 3, 1, 0,
     "an XDL MFMA writes a VGPR/AGPR a VALU or memory instruction overwrites: passes + 3",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (GFX940_XDL_N_PassWriteVgprVALUWawWaitStates)", 4, false,
     "aiter gfx942 fmha_v3_fwd/MI300/fwd_hd128_bf16_rtz: i491 v_mfma_f32_32x32x8_bf16 writes v64, i500 v_cndmask_b32 "
     "overwrites it after 8 of 11"},
    {"xdl_write_valu_write", tg::gfx950, hz::xdl, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_def, detail::vgpr_def, Overlap::any, SameOp::either, 3, 1, 1,
     "an XDL MFMA writes a VGPR/AGPR a VALU or memory instruction overwrites: passes + 3, +1 unless 2 passes",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (GFX940_XDL_N_PassWriteVgprVALUWawWaitStates, IsGFX950)", 4, false,
     "aiter gfx950 fmha_v4_fwd/fwd_hd128_f6f4: i816 v_smfmac_f32_16x16x128_fp8_fp8 writes v184, i821 v_add_f32 "
     "overwrites it after 4 of 8"},
    {"sgemm_write_valu_write", tg::gfx94x, hz::mfma, 0, hz::xdl | hz::dgemm, 0,
     hz::valu_legacy | hz::vmem | hz::ds, 0, detail::vgpr_def, detail::vgpr_def, Overlap::any, SameOp::either, 2,
     1, 0, "an SGEMM MFMA writes a VGPR/AGPR a VALU or memory instruction overwrites: passes + 2",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (GFX940_SMFMA_N_PassWriteVgprVALUWawWaitStates)", 4},
    {"mfma_srcc_valu_overwrite", tg::gfx90a, hz::mfma, 0, hz::dgemm, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_srcc, detail::vgpr_def, Overlap::any, SameOp::either, -1, 1, 0,
     "a VALU or memory instruction overwrites a VGPR/AGPR an MFMA is still reading as SrcC: passes - 1 (1/7/15)",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (SMFMA{4x4,16x16,32x32}ReadVgprVALUWarWaitStates)", 6},
    {"mfma_srcc_valu_overwrite", tg::gfx94x, hz::xdl, 0, 0, 0, hz::valu_legacy | hz::vmem | hz::ds, 0,
     detail::vgpr_srcc, detail::vgpr_def, Overlap::any, SameOp::either, -1, 1, 0,
     "a VALU or memory instruction overwrites a VGPR/AGPR an XDL MFMA is still reading as SrcC: passes - 1",
     "LLVM GCNHazardRecognizer::checkMAIVALUHazards (SMFMA*ReadVgprVALUWarWaitStates, "
     "GFX940_XDL4PassReadVgprVALUWarWaitStates = 3)", 6},
};

/// Rules the tables above do not encode (each would need more than a producer, a consumer and a distance, or is not
/// a concern of compute kernels): stated so that nobody assumes they are checked.
inline constexpr std::string_view hazard_rules_not_covered =
    "gfx90a: a DGEMM issued between a VALU write and a VMEM read of the same VGPR (LLVM checkMAIVALUHazards "
    "DMFMABetweenVALUWriteVMEMRead, a three-instruction pattern); LDS_DIRECT and VINTRP readers of M0 (graphics); "
    "exports (no compute kernel exports); s_setreg MODE.vskip and s_set_gpr_idx_on/VGPR indexing "
    "(not encoded by LLVM's hazard recognizer); gfx950's v_cvt_scalef32* forwarding (hasCvtScaleForwardingHazard).";

/// The rules that apply to `t`, as indexes into hazard_rules (at most 64 per target: rule masks are 64-bit).
struct TargetRules {
  std::array<std::uint8_t, 64> index{};
  std::size_t count = 0;
};
[[nodiscard]] constexpr TargetRules target_rules(Target t) noexcept {
  TargetRules r;
  for (std::size_t i = 0; i < std::size(hazard_rules) && r.count < r.index.size(); ++i)
    if (hazard_rules[i].targets & target_bit(t)) r.index[r.count++] = static_cast<std::uint8_t>(i);
  return r;
}
static_assert([] {
  for (const auto& r : hazard_rules)
    if (r.group >= 8) return false;
  return true;
}(), "hazard rule groups are numbered 0..7 (a checker keeps per-group state in an array of 8)");
static_assert(target_rules(Target::gfx90a).count < 64 && target_rules(Target::gfx942).count < 64 &&
                  target_rules(Target::gfx950).count < 64,
              "rule masks are 64-bit: a target has more hazard rules than fit");

// ---- classification ------------------------------------------------------------------------------------------

namespace detail {
/// Class bits of the ops the rules single out (LLVM GCNHazardRecognizer's isSSetReg/isSGetReg/isRWLane/isDivFMas/
/// isSMovRel/isSendMsgTraceDataOrGDS/isRFE and the DS_*_ADDTID and V_FMA(C)_F64 cases of checkMAIVALUHazards), and
/// the conditional writes hazard_hiding_writer leaves out.
[[nodiscard]] constexpr std::uint64_t named_class(Opcode o) noexcept {
  switch (family_of(o)) {
    case Family::s_movrel: return hz::m0_movrel;  // s_movrels_b32/b64, s_movreld_b32/b64
    case Family::s_setreg: return hz::setreg;     // s_setreg_b32, s_setreg_imm32_b32
    case Family::s_getreg: return hz::getreg;     // s_getreg_b32
    case Family::s_sendmsg: return hz::m0_msg;    // s_sendmsg, s_sendmsghalt
    case Family::s_cmov: return hz::cond_write;   // s_cmov_b32, s_cmov_b64, s_cmovk_i32
    default: break;
  }
  switch (o) {
    case op::ds_read_addtid_b32: case op::ds_write_addtid_b32: return hz::m0_movrel;
    case op::s_ttracedata: return hz::m0_msg;
    case op::s_rfe_b64: return hz::rfe;  // not s_rfe_restore_b64 (LLVM isRFE: S_RFE_B64 only)
    case op::v_div_fmas_f32: case op::v_div_fmas_f64: return hz::div_fmas;
    case op::v_fma_f64: case op::v_fmac_f64: return hz::fma64;
    case op::v_readfirstlane_b32: return hz::read_lane;
    case op::v_readlane_b32: return hz::rw_lane | hz::read_lane;
    case op::v_writelane_b32: return hz::rw_lane;
    case op::v_permlane16_swap_b32: case op::v_permlane32_swap_b32: return hz::permlane_swap;
    case op::v_addc_co_u32: case op::v_subb_co_u32: case op::v_subbrev_co_u32: case op::v_cndmask_b32:
      return hz::mask_reader;
    default: return 0;
  }
}
}  // namespace detail

/// The class bits of form `f` of op `o` on `t` that follow from the form alone (no operand values): see hz:: for the
/// others.
[[nodiscard]] constexpr std::uint64_t hazard_class(const isa::FormInfo& f, asmevo::Opcode o, Target t) noexcept {
  using namespace isa;
  std::uint64_t c = hz::any;
  const bool accvgpr = family_of(o) == Family::v_accvgpr;  // v_accvgpr_read/write/mov_b32
  if (f.has(prop::valu)) c |= hz::valu;
  if (f.has(prop::valu) && !(f.has(prop::mfma) && !accvgpr)) c |= hz::valu_legacy;
  if (f.has(prop::dot)) c |= hz::dot;
  if (f.has(prop::trans)) c |= hz::trans;
  if (f.has(prop::salu) || f.format == Format::SOPP) c |= hz::salu;
  if (f.has(prop::vmem) || f.has(prop::flat)) c |= hz::vmem;
  if (f.has(prop::flat)) c |= hz::flat_seg;
  if (f.has(prop::ds)) c |= hz::ds;
  if (f.has(prop::lds_dma)) c |= hz::lds_dma;
  if (f.variant == Variant::dpp || f.has(prop::dpp)) c |= hz::dpp;
  if (f.has(prop::mfma) && !accvgpr) {
    c |= hz::mfma;
    if (const MfmaInfo* mi = mfma_info(o, t)) {
      if (mi->dgemm) {
        c |= hz::dgemm | (mi->m == 4 ? hz::dgemm_4x4 : hz::dgemm_16x16);
      } else if (t == Target::gfx90a || mi->a != MfmaType::f32) {
        c |= hz::xdl;  // LLVM isXDL: gfx90a every non-DGEMM MFMA; gfx940+ getMAIIsGFX940XDL (not SGEMM/DGEMM)
      }
      if (mi->passes == 2) c |= hz::two_pass;
    }
  }
  return c | detail::named_class(o);
}

/// The MFMA pass count of form `f` of op `o` on `t` (0 when it is not an MFMA or the pass count is unknown).
[[nodiscard]] constexpr unsigned hazard_passes(const isa::FormInfo& f, asmevo::Opcode o, Target t) noexcept {
  if (!f.has(isa::prop::mfma)) return 0;
  const MfmaInfo* mi = mfma_info(o, t);
  return mi ? mi->passes : 0;
}

// ---- matching ------------------------------------------------------------------------------------------------

[[nodiscard]] constexpr bool class_matches(std::uint64_t cls, std::uint64_t all, std::uint64_t any,
                                           std::uint64_t none) noexcept {
  return (cls & all) == all && (any == 0 || (cls & any) != 0) && (cls & none) == 0;
}
[[nodiscard]] constexpr bool producer_matches(const HazardRule& r, const HazardFacts& p) noexcept {
  return class_matches(p.cls, r.prod_all, r.prod_any, r.prod_none);
}
[[nodiscard]] constexpr bool consumer_matches(const HazardRule& r, const HazardFacts& c) noexcept {
  return class_matches(c.cls, r.cons_all, r.cons_any, r.cons_none);
}

/// Wait states `r` requires after producer `p` (whose class it matches).
[[nodiscard]] constexpr int required_wait_states(const HazardRule& r, const HazardFacts& p) noexcept {
  const int n = r.wait + r.per_pass * static_cast<int>(p.passes) + (p.passes != 2 ? r.not2_extra : 0);
  return n > 0 ? n : 0;
}

namespace detail {
/// `x` clipped to the selector's fixed range (count 0 when it misses it or does not qualify).
[[nodiscard]] constexpr HazardRef select(const RegSel& s, const HazardRef& x) noexcept {
  HazardRef none{};
  if ((s.file == RegSel::File::vector) != x.vector) return none;
  if ((x.roles & s.need) != s.need || (s.any && !(x.roles & s.any)) || (x.roles & s.none)) return none;
  if (!s.fixed_count) return x;
  const unsigned lo = x.first > s.fixed_first ? x.first : s.fixed_first;
  const unsigned hi_x = x.first + x.count, hi_s = s.fixed_first + s.fixed_count;
  const unsigned hi = hi_x < hi_s ? hi_x : hi_s;
  if (lo >= hi) return none;
  return HazardRef{x.vector, static_cast<std::uint16_t>(lo), static_cast<std::uint16_t>(hi - lo), x.roles};
}
}  // namespace detail

/// A set of scalar registers by hardware operand code (0..127): the SGPRs written by instructions between a consumer
/// and the producer a search has reached (HazardRule::any_writer_hides).
struct SgprSet {
  std::array<std::uint64_t, 2> bits{};
  constexpr void add(unsigned first, unsigned count) noexcept {
    for (unsigned k = first; k < first + count && k < 128; ++k) bits[k >> 6] |= std::uint64_t{1} << (k & 63);
  }
  [[nodiscard]] constexpr bool has(unsigned k) const noexcept {
    return k < 128 && ((bits[k >> 6] >> (k & 63)) & 1);
  }
  [[nodiscard]] constexpr bool empty() const noexcept { return !bits[0] && !bits[1]; }
  constexpr bool operator==(const SgprSet&) const noexcept = default;
};

/// Whether `f`'s scalar register writes hide an older VALU write of the same SGPR from later readers
/// (HazardRule::any_writer_hides): every instruction that writes its scalar destinations unconditionally and at the
/// registers its operands name. Not s_cmov_b32/b64 and s_cmovk_i32 (hz::cond_write: they write only when SCC is set)
/// nor s_movreld_b32/b64 (hz::m0_movrel: they write the register M0 selects).
[[nodiscard]] constexpr bool hazard_hiding_writer(const HazardFacts& f) noexcept {
  if (!f.form || (f.cls & (hz::m0_movrel | hz::cond_write))) return false;
  for (std::size_t k = 0; k < f.nrefs; ++k)
    if (!f.refs[k].vector && (f.refs[k].roles & role::def)) return true;
  return false;
}

/// Adds the scalar registers `f` writes to `s` when `f` is a hiding writer (hazard_hiding_writer).
constexpr void add_hiding_writes(SgprSet& s, const HazardFacts& f) noexcept {
  if (!hazard_hiding_writer(f)) return;
  for (std::size_t k = 0; k < f.nrefs; ++k)
    if (!f.refs[k].vector && (f.refs[k].roles & role::def)) s.add(f.refs[k].first, f.refs[k].count);
}

/// How rule `r` relates producer `p` to consumer `c`: `overlaps` when they share a register of the selected kinds
/// (whatever the Overlap kind: what makes `p` the nearest producer of the row's group), `related` when the row
/// applies (its Overlap kind, same-opcode and hardware-register conditions hold). Rows without registers relate any
/// two instructions of their classes (the producer must still write what the row names: EXEC, VCC, M0 ...).
/// Consumer refs whose bit is set in `skip` are left out: a grouped search (HazardRule::group) is per consumer
/// operand, as LLVM's checkMAIHazards90A/checkMAIVALUHazards search the nearest writer of each use separately, so
/// an operand whose nearest producer was already found is not related to older ones. For a row with
/// HazardRule::any_writer_hides, consumer SGPRs in `hidden` (written by an instruction nearer to the consumer than
/// `p`) do not relate either.
struct HazardMatch {
  bool overlaps = false;
  bool related = false;
  HazardRef reg{};             ///< the first shared register of the consumer (count 1), for messages
  std::uint32_t cons_refs = 0;  ///< the consumer refs (bit j = c.refs[j]) that overlap; all bits for register-less rows
};
[[nodiscard]] constexpr HazardMatch relate(const HazardRule& r, const HazardFacts& p, const HazardFacts& c,
                                           std::uint32_t skip = 0, const SgprSet* hidden = nullptr) noexcept {
  HazardMatch m;
  if (!r.any_writer_hides) hidden = nullptr;
  if (r.same_op == SameOp::same && p.op != c.op) return m;
  if (r.same_op == SameOp::different && p.op == c.op) return m;
  // s_setreg/s_getreg rules relate through the hardware register id (LLVM getHWReg); s_rfe needs TRAPSTS (id 3,
  // MI300 ISA (CDNA3) §4.4 "S_GETREG/S_SETREG hardware register IDs").
  if (p.cls & hz::setreg) {
    if (c.cls & hz::rfe) {
      if (p.hwreg != 3) return m;
    } else if (p.hwreg < 0 || p.hwreg != c.hwreg) {
      return m;
    }
  }
  if (r.cons.file == RegSel::File::none) {
    if (r.prod.file == RegSel::File::none) {
      m.overlaps = m.related = true;
      m.cons_refs = ~std::uint32_t{0};
      return m;
    }
    for (std::size_t i = 0; i < p.nrefs; ++i) {
      const HazardRef a = detail::select(r.prod, p.refs[i]);
      if (!a.count) continue;
      m.overlaps = m.related = true;
      m.cons_refs = ~std::uint32_t{0};
      m.reg = HazardRef{a.vector, a.first, 1, a.roles};
      return m;
    }
    return m;
  }
  for (std::size_t j = 0; j < c.nrefs; ++j) {
    if ((skip >> j) & 1) continue;
    const HazardRef b = detail::select(r.cons, c.refs[j]);
    if (!b.count) continue;
    for (std::size_t i = 0; i < p.nrefs; ++i) {
      const HazardRef a = detail::select(r.prod, p.refs[i]);
      if (!a.count) continue;
      unsigned lo = a.first > b.first ? a.first : b.first;
      const unsigned hi = (a.first + a.count) < (b.first + b.count) ? a.first + a.count : b.first + b.count;
      if (hidden && !b.vector)
        while (lo < hi && hidden->has(lo)) ++lo;  // a nearer writer of these SGPRs decides for them
      if (lo >= hi) continue;
      if (!m.overlaps) m.reg = HazardRef{b.vector, static_cast<std::uint16_t>(lo), 1, b.roles};
      m.overlaps = true;
      m.cons_refs |= std::uint32_t{1} << j;
      const bool exact = a.first == b.first && a.count == b.count;
      if ((r.overlap == Overlap::exact && !exact) || (r.overlap == Overlap::partial && exact)) continue;
      if (!m.related) m.reg = HazardRef{b.vector, static_cast<std::uint16_t>(lo), 1, b.roles};
      m.related = true;
    }
  }
  return m;
}

// ---- XNACK soft clauses -----------------------------------------------------------------------------------------

/// Soft clauses (LLVM GCNHazardRecognizer::checkSoftClauseHazards, called from checkSMRDHazards and, on VI+
/// (hasVMEMReadSGPRVALUDefHazard), checkVMEMHazards): a run of consecutive SMEM instructions, or of consecutive
/// VMEM/FLAT instructions, issued back to back (any other instruction, s_nop and s_waitcnt included, ends it:
/// breaksSMEMSoftClause / breaksVMEMSoftClause). With XNACK on or "any" (GCNSubtarget::isXNACKEnabled =
/// TargetID.isXnackOnOrAny) the members may return out of order and be replayed after a page fault, so no member may
/// write a register another member -- or itself -- reads. Not a wait-state distance: a checker applies it with
/// soft_clause_hazard, apart from the rows, as the rule "xnack_soft_clause".
inline constexpr std::string_view soft_clause_rule = "xnack_soft_clause";
inline constexpr std::string_view soft_clause_text =
    "with XNACK on or any, a soft clause (back-to-back SMEM, or back-to-back VMEM/FLAT, instructions) must not hold "
    "a member writing a register a member reads, nor a store after a member that writes; break it with s_nop 0";
inline constexpr std::string_view soft_clause_source =
    "LLVM GCNHazardRecognizer::checkSoftClauseHazards (isXNACKEnabled; ClauseDefs.anyCommon(ClauseUses); "
    "MEM->mayStore() after a clause with defs: 1)";
/// One concrete site where AMD's aiter kernels break the soft-clause rule (as HazardRule::contested): a static
/// checker reports its findings as warnings.
inline constexpr std::string_view soft_clause_contested =
    "aiter gfx942 all_reduce: i35 s_load_dwordx2 s[8:9], s[8:9], 0x0 overwrites its own address right after i34 "
    "s_load_dwordx2, no break";

enum class ClauseKind : std::uint8_t { none, smem, vmem };

/// The soft-clause kind of `f`: SMEM (LLVM isSMRD), VMEM (isVMEM || isFLAT), or none (breaks any clause).
[[nodiscard]] constexpr ClauseKind soft_clause_kind(const HazardFacts& f) noexcept {
  if (!f.form) return ClauseKind::none;
  if (f.form->has(isa::prop::smem)) return ClauseKind::smem;
  if (f.cls & hz::vmem) return ClauseKind::vmem;
  return ClauseKind::none;
}

/// Registers by hazard numbering: scalar codes 0..127 at bits 0..127, vector rows 0..511 at bits 128..639.
struct RegBits {
  std::array<std::uint64_t, 10> bits{};
  constexpr void add(const HazardRef& r) noexcept {
    const unsigned base = r.vector ? 128u : 0u, lim = r.vector ? 640u : 128u;
    for (unsigned k = base + r.first; k < base + r.first + r.count && k < lim; ++k)
      bits[k >> 6] |= std::uint64_t{1} << (k & 63);
  }
  [[nodiscard]] constexpr bool any() const noexcept {
    for (const auto w : bits)
      if (w) return true;
    return false;
  }
  [[nodiscard]] constexpr bool meets(const RegBits& o) const noexcept {
    for (std::size_t i = 0; i < bits.size(); ++i)
      if (bits[i] & o.bits[i]) return true;
    return false;
  }
};

/// The registers one instruction writes and reads (every reference, implicit ones included: LLVM addClauseInst
/// takes all of MI.operands()).
struct ClauseRegs {
  RegBits defs, uses;
  constexpr explicit ClauseRegs(const HazardFacts& f) noexcept {
    for (std::size_t k = 0; k < f.nrefs; ++k) (f.refs[k].roles & role::def ? defs : uses).add(f.refs[k]);
  }
};

/// Whether `f` may store (LLVM MachineInstr::mayStore: stores and atomics).
[[nodiscard]] constexpr bool soft_clause_store(const HazardFacts& f) noexcept {
  return f.form && (f.form->has(isa::prop::store) || f.form->has(isa::prop::atomic));
}

/// The open soft clause of a path: its kind and the registers its members write and read.
struct SoftClause {
  ClauseKind kind = ClauseKind::none;
  RegBits defs, uses;
  /// Adds `f`, which issues right after the clause's last member: a member of another kind (or none) starts a new
  /// clause (or none).
  constexpr void add(const HazardFacts& f) noexcept {
    const ClauseKind k = soft_clause_kind(f);
    if (k != kind) *this = SoftClause{k, {}, {}};
    if (k == ClauseKind::none) return;
    const ClauseRegs r(f);
    for (std::size_t i = 0; i < defs.bits.size(); ++i) {
      defs.bits[i] |= r.defs.bits[i];
      uses.bits[i] |= r.uses.bits[i];
    }
  }
};

/// LLVM's condition for `f` issuing right after the members of `c` (checkSoftClauseHazards): `f` is of the clause's
/// kind, the members write something (ClauseDefs non-empty), and `f` stores or, with `f` added, some register the
/// members write is one they read.
[[nodiscard]] constexpr bool soft_clause_hazard(const SoftClause& c, const HazardFacts& f) noexcept {
  if (c.kind == ClauseKind::none || soft_clause_kind(f) != c.kind || !c.defs.any()) return false;
  if (soft_clause_store(f)) return true;
  const ClauseRegs r(f);
  return c.defs.meets(c.uses) || c.defs.meets(r.uses) || r.defs.meets(c.uses) || r.defs.meets(r.uses);
}

/// How many of a clause's members, nearest first, LLVM compares an instruction with: checkSoftClauseHazards walks
/// EmittedInstrs, which holds the last getMaxLookAhead() wait states only -- MaxLookAhead = 19 when the function
/// uses AGPR0 (MF.getRegInfo().isPhysRegUsed(AMDGPU::AGPR0)), else 5 (GCNHazardRecognizer constructor). A conflict
/// with an older member of a longer clause is not padded by LLVM (Triton's gfx90a spill reloads: runs of 80
/// buffer_load_dword after a buffer_store_dword of a register a later reload overwrites), so it is not checked.
[[nodiscard]] constexpr unsigned soft_clause_window(bool uses_a0) noexcept { return uses_a0 ? 19u : 5u; }

/// Whether `f` names AGPR a0 (as part of any range): what soft_clause_window asks of a kernel.
[[nodiscard]] constexpr bool uses_a0(const HazardFacts& f) noexcept {
  constexpr unsigned a0 = 256;  // vector rows: a0..a255 = 256..511
  for (std::size_t k = 0; k < f.nrefs; ++k)
    if (f.refs[k].vector && f.refs[k].first <= a0 && a0 < f.refs[k].first + f.refs[k].count) return true;
  return false;
}

/// Whether a target id ("gfx942", "gfx942:sramecc+:xnack-") has XNACK on or "any": a feature left out is "any"
/// (AMDGPUUsage "Target ID"; LLVM AMDGPU::IsaInfo::AMDGPUTargetID::isXnackOnOrAny). gfx90a/gfx942/gfx950 support
/// XNACK.
[[nodiscard]] constexpr bool xnack_enabled(std::string_view target_id) noexcept {
  return target_id.find(":xnack-") == std::string_view::npos;
}

/// The largest distance any rule of `t` can require (how far back a checker must look).
[[nodiscard]] constexpr int max_wait_states(Target t) noexcept {
  int best = 0;
  for (const HazardRule& r : hazard_rules)
    if (r.targets & target_bit(t)) {
      const int n = r.wait + r.per_pass * 16 + r.not2_extra;
      best = n > best ? n : best;
    }
  return best;
}

}  // namespace asmevo::analysis
