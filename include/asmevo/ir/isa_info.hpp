// The types of the generated instruction tables (ir/gen/): one FormInfo per real LLVM encoding, with its operands.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "asmevo/ir/target.hpp"

namespace asmevo::isa {

using asmevo::Target;

/// Hardware encoding format of a form. VOP3-encoded forms of VOP1/VOP2/VOPC opcodes are VOP3; MFMA/SMFMAC are
/// VOP3P (with prop::mfma). SDWA and DPP forms are VOP1/VOP2/VOPC words (see Variant).
enum class Format : std::uint8_t {
  SOP1, SOP2, SOPK, SOPC, SOPP, SMEM, VOP1, VOP2, VOPC, VOP3, VOP3P, VINTRP,
  DS, FLAT, GLOBAL, SCRATCH, MUBUF, MTBUF, MIMG, EXP,
};

/// VALU encoding variant, spelled by the assembler as a forced-encoding suffix (`v_add_f32_e64`).
/// e32: VOP1/VOP2/VOPC word; e64: VOP3/VOP3P; dpp covers DPP16 and gfx90a's 64-bit DPP. `none` for non-VALU.
/// FormInfo::suffix reuses this type for what LLVM's printer appends (printVOPDst): `none` when it prints
/// the bare mnemonic (VOP3-only opcodes, MFMA, v_fmaak_f32 ...).
enum class Variant : std::uint8_t { none, e32, e64, sdwa, dpp };

/// What an assembly operand is, syntactically. Register-like kinds use OperandInfo::regs/bits.
enum class Kind : std::uint8_t {
  reg,              ///< a register only: v0, s[0:1], a[0:3], vcc ... (regs says which files)
  src,              ///< register or constant: regs has inline_const (and literal if a 32-bit literal is allowed)
  imm,              ///< bare integer: s_movk_i32 simm16, s_nop count, SMEM offset (printed as hex)
  kimm,             ///< mandatory literal K of v_fmaak/v_madmk... (type says f32 or f16)
  label,            ///< SOPP branch target: pc-relative dword offset, written as a label or an integer
  named_int,        ///< `prefix:N`: offset:, offset0:, offset1:, dmask:, cbsz:, abid:, row_mask:, bank_mask:,
                    ///< bound_ctrl:, fi:, bitop3: ...
  flag,             ///< bare keyword, present = 1: clamp, gds, d16, da, lwe, unorm, tfe, high ...
  r128_a16,         ///< MIMG `a16` (gfx9 has FeatureR128A16; LLVM spells it r128 elsewhere)
  cpol,             ///< cache-policy keywords: glc slc scc (gfx90a) / sc0 sc1 nt (gfx940+), any subset
  cpol_glc,         ///< cpol that must contain glc (sc0 on gfx940+): returning atomics
  cpol_noglc,       ///< cpol that must not contain glc/sc0: non-returning atomics
  omod,             ///< output modifier: mul:2 | mul:4 | div:2
  bit_array,        ///< `prefix:[b,b,..]`: op_sel, op_sel_hi, neg_lo, neg_hi
  blgp,             ///< MFMA blgp:N (on gfx940+ f64 MFMAs also neg:[a,b,c])
  dpp_ctrl,         ///< quad_perm:[a,b,c,d] | row_shl:n | row_shr:n | row_ror:n | wave_shl:1 | wave_rol:1 |
                    ///< wave_shr:1 | wave_ror:1 | row_mirror | row_half_mirror | row_bcast:15 | row_bcast:31 ...
  sdwa_sel,         ///< dst_sel: / src0_sel: / src1_sel: BYTE_0..BYTE_3 | WORD_0 | WORD_1 | DWORD
  sdwa_dst_unused,  ///< dst_unused: UNUSED_PAD | UNUSED_SEXT | UNUSED_PRESERVE
  format,           ///< MTBUF format:N, format:[BUF_DATA_FORMAT_*,BUF_NUM_FORMAT_*] or dfmt:/nfmt:
  hwreg,            ///< hwreg(HW_REG_*[, offset, size]) or an integer
  sendmsg,          ///< sendmsg(MSG_*[, op[, stream]]) or an integer
  swizzle,          ///< ds_swizzle offset:swizzle(QUAD_PERM|BITMASK_PERM|BROADCAST|SWAP|REVERSE, ...) or offset:N
  waitcnt,          ///< vmcnt(n) expcnt(n) lgkmcnt(n), separated by spaces or &, or an integer
  gpr_idx,          ///< s_set_gpr_idx_* gpr_idx(SRC0,SRC1,SRC2,DST) or an integer
  endpgm_imm,       ///< optional integer after s_endpgm
};

/// Operand direction. A `use` tied to a `def` (OperandInfo::tied) must name the same register.
enum class Role : std::uint8_t { def, use };

/// Source modifiers the parser accepts on this operand: fp = neg/abs (-v0, |v0|, neg(), abs()), int = sext().
enum class Mods : std::uint8_t { none, fp, int_ };

/// Value type of a constant-accepting source (decides which inline constants exist and how LLVM prints them).
/// iN covers LLVM's INTn ("bN" in the ISA guide); v2f16_splat is v_pk_fmac_f16's src0.
enum class ValueType : std::uint8_t {
  none, i16, f16, bf16, v2i16, v2f16, v2bf16, v2f16_splat, i32, f32, v2i32, v2f32, i64, f64,
};

/// Register files and operand sources, as bits of OperandInfo::regs and of the implicit use/def masks.
namespace reg {
inline constexpr std::uint32_t sgpr = 1u << 0, vgpr = 1u << 1, agpr = 1u << 2, ttmp = 1u << 3, vcc = 1u << 4,
    exec = 1u << 5, m0 = 1u << 6, flat_scratch = 1u << 7, xnack_mask = 1u << 8, scc = 1u << 9, null = 1u << 10,
    src_shared_base = 1u << 11, src_shared_limit = 1u << 12, src_private_base = 1u << 13,
    src_private_limit = 1u << 14, src_pops_exiting_wave_id = 1u << 15, src_execz = 1u << 16,
    src_vccz = 1u << 17, src_scc = 1u << 18, lds_direct = 1u << 19, mode = 1u << 20,
    inline_const = 1u << 21,  ///< integer -16..64 and the fp inline constants of the operand's ValueType
    literal = 1u << 22;       ///< a 32-bit literal dword after the instruction
}  // namespace reg

/// FormInfo::props bits. From TSFlags bits (SIInstrFormats.td) and Instruction flags (mayLoad, isBranch ...).
namespace prop {
inline constexpr std::uint64_t salu = 1ull << 0, valu = 1ull << 1, smem = 1ull << 2,
    vmem = 1ull << 3,         ///< MUBUF/MTBUF/MIMG (FLAT/GLOBAL/SCRATCH have `flat`)
    flat = 1ull << 4, ds = 1ull << 5, mfma = 1ull << 6, dot = 1ull << 7, trans = 1ull << 8, packed = 1ull << 9,
    load = 1ull << 10, store = 1ull << 11, atomic = 1ull << 12, atomic_ret = 1ull << 13,
    atomic_noret = 1ull << 14, branch = 1ull << 15,
    cond_branch = 1ull << 16,     ///< isBranch && !isBarrier
    indirect_branch = 1ull << 17, terminator = 1ull << 18,
    no_fallthrough = 1ull << 19,  ///< LLVM isBarrier (s_branch, s_endpgm ...); NOT s_barrier
    call = 1ull << 20, return_ = 1ull << 21, side_effects = 1ull << 22, convergent = 1ull << 23,
    sopp = 1ull << 24, sdwa = 1ull << 25, dpp = 1ull << 26, fixed_size = 1ull << 27,
    lds_dma = 1ull << 28,         ///< buffer/global load into LDS (`... lds`)
    gws = 1ull << 29,
    has_e32 = 1ull << 30,         ///< this mnemonic also has an e32 form on the target
    asm_matchable = 1ull << 31,   ///< the assembler can produce it
    decodable = 1ull << 32,       ///< the disassembler's decoder tables produce it
    vm_cnt = 1ull << 33, exp_cnt = 1ull << 34, lgkm_cnt = 1ull << 35;  ///< s_waitcnt counters it increments
}  // namespace prop

/// One assembly operand of a form. Printed operands come first, in AsmString order; then the operands LLVM has
/// but does not print (tied inputs such as vdst_in / old, hidden defaults such as MUBUF swz).
struct OperandInfo {
  static constexpr std::uint8_t printed = 1, optional = 2, early_clobber = 4,
                                mods_operand = 8;  ///< LLVM operand mc_index-1 holds this source's modifiers

  std::string_view name;    ///< LLVM operand name: vdst, src0, sdst, simm16, offset, cpol ...
  std::string_view prefix;  ///< keyword of named operands (offset, glc-style flags, op_sel ...); else empty
  std::string_view cls;     ///< LLVM operand record (VSrc_f32, AVLdSt_128, flat_offset, VOPDstOperand<VGPR_32>)
  std::uint32_t regs;       ///< reg:: bits accepted (register kinds); reg::literal for kimm
  std::uint16_t bits;       ///< register width in bits (32 per dword; 16-bit values still use 32-bit registers)
  Kind kind;
  Role role;
  Mods mods;
  ValueType type;
  std::uint8_t valign;      ///< dword alignment of VGPR/AGPR tuples (2 on gfx90a+ for >= 64-bit tuples)
  std::uint8_t salign;      ///< dword alignment of SGPR/TTMP tuples (2 for 64-bit, 4 for >= 128-bit)
  std::uint8_t mc_index;    ///< index of the value in LLVM's MCInst operand list (outs then ins)
  std::int8_t tied;         ///< index (in this form's operand list) of the operand it is tied to, or -1
  std::uint8_t flags;

  [[nodiscard]] constexpr bool is_printed() const noexcept { return flags & printed; }
  [[nodiscard]] constexpr bool is_optional() const noexcept { return flags & optional; }
  [[nodiscard]] constexpr bool accepts(std::uint32_t reg_bits) const noexcept { return (regs & reg_bits) != 0; }
  [[nodiscard]] constexpr unsigned dwords() const noexcept { return (bits + 31u) / 32u; }
};

/// One real instruction encoding selectable on a target (LLVM record, e.g. V_ADD_F32_e32_vi).
struct FormInfo {
  std::string_view name;        ///< LLVM record name; stable, used by tests and diagnostics
  std::string_view mnemonic;    ///< lowercase, without _e32/_e64/_sdwa/_dpp
  std::string_view asm_string;  ///< raw LLVM AsmString (`v_add_f32$vdst, $src0, $src1`)
  const OperandInfo* operand_ptr;  ///< into the target's operand array; use operands(form)
  std::uint32_t first_operand;  ///< the same, as an index (forms with equal operand lists share one run)
  std::uint8_t num_operands;
  Format format;
  Variant variant;              ///< forced-encoding suffix the assembler accepts for this form
  Variant suffix;               ///< suffix LLVM's printer appends to the mnemonic (printVOPDst)
  std::uint8_t size;            ///< bytes without an optional literal (v_fmaak's mandatory K is included)
  std::uint32_t implicit_uses;  ///< reg:: bits (exec, mode, vcc, m0, scc, flat_scratch)
  std::uint32_t implicit_defs;
  std::uint64_t props;          ///< prop:: bits

  [[nodiscard]] constexpr bool has(std::uint64_t p) const noexcept { return (props & p) == p; }
};

/// The form's operands: printed ones in AsmString order, then the unprinted ones. Usable in constant
/// expressions: `static_assert(operands(gfx942::form_table[gfx942::V_ADD_F32_e32_vi])[0].accepts(reg::vgpr));`
[[nodiscard]] constexpr std::span<const OperandInfo> operands(const FormInfo& f) noexcept {
  return {f.operand_ptr, f.num_operands};
}

/// A run of forms sharing one mnemonic in a target's form table.
struct MnemonicEntry {
  std::string_view mnemonic;
  std::uint16_t first;
  std::uint16_t count;
};

/// MnemonicAlias: the assembler reads `from` as `to` (variant "" = every variant).
struct MnemonicAlias {
  std::string_view from, to, variant;
};

/// InstAlias that only renames: `from` with the operands of `record` assembles to `record` (mnemonic `to`).
struct RenameAlias {
  std::string_view from, to, record;
};

/// Any other InstAlias: its AsmString and the record it produces (in_table: that record is a form of the target).
struct InstAlias {
  std::string_view asm_string, record;
  bool in_table;
};

}  // namespace asmevo::isa
