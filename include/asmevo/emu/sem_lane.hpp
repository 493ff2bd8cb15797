// Emulator semantics of cross-lane operations: readlane/writelane/readfirstlane, mbcnt, the DS lane shuffles
// (ds_bpermute/ds_permute/ds_swizzle) and the DPP and SDWA wrappers around plain VALU semantics.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "asmevo/emu/machine.hpp"

// Sources: "AMD Instinct MI300 ISA" (CDNA3) reference guide, "MI200 ISA" (CDNA2) for gfx90a: the VOP1/VOP3 opcode
// descriptions (V_READLANE_B32 ...), the DS opcode descriptions (DS_BPERMUTE_B32, DS_PERMUTE_B32, DS_SWIZZLE_B32),
// the sections "Data Parallel Processing (DPP)" and "Sub-Dword Addressing (SDWA)" of the VOP encodings chapter;
// AMD GPUOpen "AMD GCN Assembly: Cross-Lane Operations" for the DPP lane patterns; LLVM SIDefines.h (DppCtrl,
// SdwaSel, DstUnused, Swizzle encodings) for the encoded operand values.

namespace asmevo::emu {

namespace detail::lane {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

[[nodiscard]] inline bool active(LaneMask m, unsigned l) noexcept { return (m >> l) & 1; }

// ---- VOP cross-lane ---------------------------------------------------------------------------------------------

// V_READLANE_B32: "Copy one VGPR value to one SGPR. D = SGPR-dest, S0 = source data, S1 = lane select. Ignores
// exec mask." The lane is S1[5:0] (wave64).
inline void v_readlane_b32(Wave& w, const Op& op) {
  alignas(64) u32 tmp[wave_lanes];
  const u32* s = w.lanes(op.at(Name::src0), tmp);
  w.write_scalar(op.at(Name::vdst), s[w.scalar32(op.at(Name::src1)) & 63u]);
}
// V_READFIRSTLANE_B32: "Lane# = FindFirst1fromLSB(exec) (Lane# = 0 if exec is zero). Ignores exec mask."
inline void v_readfirstlane_b32(Wave& w, const Op& op) {
  alignas(64) u32 tmp[wave_lanes];
  const u32* s = w.lanes(op.at(Name::src0), tmp);
  const LaneMask e = w.exec();
  w.write_scalar(op.at(Name::vdst), s[e ? std::countr_zero(e) : 0]);
}
// V_WRITELANE_B32: "Write value into one VGPR in one lane. S0 = source data (SGPR, M0, exec or constant), S1 = lane
// select. Ignores exec mask."
inline void v_writelane_b32(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::vdst);
  if (d.kind != Slot::Kind::vgpr) return;
  w.row(d.index)[w.scalar32(op.at(Name::src1)) & 63u] = w.scalar32(op.at(Name::src0));
}
// V_MBCNT_LO_U32_B32: D = CountOneBits(S0 & ThreadMask[31:0]) + S1; V_MBCNT_HI_U32_B32: the same with
// ThreadMask[63:32], where ThreadMask = (1 << lane) - 1. Writes active lanes only.
template <bool Hi>
inline void v_mbcnt(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::vdst);
  if (d.kind != Slot::Kind::vgpr) return;
  alignas(64) u32 t0[wave_lanes], t1[wave_lanes], r[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), t0);
  const u32* b = w.lanes(op.at(Name::src1), t1);
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const u64 thread_mask = (u64{1} << l) - 1;
    const u32 m = Hi ? static_cast<u32>(thread_mask >> 32) : static_cast<u32>(thread_mask);
    r[l] = static_cast<u32>(std::popcount(a[l] & m)) + b[l];
  }
  const LaneMask e = w.exec();
  u32* out = w.row(d.index);
  for (unsigned l = 0; l < wave_lanes; ++l)
    if (active(e, l)) out[l] = r[l];
}

// V_PERMLANE16_SWAP_B32 (gfx950): odd rows of vdst are swapped with even rows of src0; V_PERMLANE32_SWAP_B32: rows
// 2-3 of vdst with rows 0-1 of src0 (LLVM AMDGPUUsage, llvm.amdgcn.permlane16.swap / permlane32.swap; a row is 16
// lanes). Only a full EXEC is emulated: which lane pairs swap under a partial EXEC (and what bound_ctrl/fi then
// change) is not modelled.
template <bool Rows32>
inline void v_permlane_swap(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::vdst);
  const Slot& s = op.at(Name::src0);
  if (d.kind != Slot::Kind::vgpr || s.kind != Slot::Kind::vgpr) return;
  if (w.exec() != ~LaneMask{0}) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + " with a partial EXEC is not emulated");
    return;
  }
  u32* a = w.row(d.index);
  u32* b = w.row(s.index);
  if (Rows32) {
    for (unsigned i = 0; i < 32; ++i) std::swap(a[32 + i], b[i]);
  } else {
    for (unsigned base = 0; base < wave_lanes; base += 32)
      for (unsigned i = 0; i < 16; ++i) std::swap(a[base + 16 + i], b[base + i]);
  }
}

// ---- DS lane shuffles (no memory access, but counted in LGKM_CNT like every DS instruction) ---------------------

inline void ds_lane_complete(Wave& w, MemOp& m) {
  u32* d = w.row(m.dst.first);
  for (unsigned l = 0; l < wave_lanes; ++l)
    if (active(m.exec, l)) d[l] = m.data[0][l];
}

/// Captures the shuffled result `r` at issue and writes it to vdst's active lanes when the op completes.
inline void ds_lane_issue(Wave& w, const Op& op, const u32* r) {
  const Slot& d = op.at(Name::vdst);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  m.exec = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l) m.data[0][l] = r[l];
  m.dst = RegRange{true, static_cast<std::uint16_t>(d.index), 1};
  m.complete = ds_lane_complete;
  issue(w);
}

inline bool ds_lane_operands_ok(Wave& w, const Op& op) {
  if (op.at(Name::vdst).kind != Slot::Kind::vgpr) {
    w.stop_with(Stop::Kind::illegal, op, std::string(op.mnemonic()) + ": vdst must be a VGPR");
    return false;
  }
  if (op.imm(Name::gds) != 0) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + " with gds is not emulated");
    return false;
  }
  return true;
}

// DS_BPERMUTE_B32 (backward permute): for each lane i, src = ((ADDR[i] + offset) / 4) mod 64; the value is
// DATA0[src] if lane src is active (EXEC applies to the source reads), else 0; active lanes write it.
inline void ds_bpermute_b32(Wave& w, const Op& op) {
  if (!ds_lane_operands_ok(w, op)) return;
  alignas(64) u32 ta[wave_lanes], td[wave_lanes], r[wave_lanes];
  const u32* addr = w.lanes(op.at(Name::addr), ta);
  const u32* data = w.lanes(op.at(Name::data0), td);
  const u32 off = static_cast<u32>(op.imm(Name::offset));
  const LaneMask e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const unsigned src = ((addr[l] + off) >> 2) & 63u;
    r[l] = active(e, src) ? data[src] : 0u;
  }
  ds_lane_issue(w, op, r);
}
// DS_PERMUTE_B32 (forward permute): every active lane i sends DATA0[i] to lane ((ADDR[i] + offset) / 4) mod 64;
// lanes nobody sends to receive 0; when several lanes pick the same destination, the highest-numbered one wins;
// active lanes write.
inline void ds_permute_b32(Wave& w, const Op& op) {
  if (!ds_lane_operands_ok(w, op)) return;
  alignas(64) u32 ta[wave_lanes], td[wave_lanes], r[wave_lanes] = {};
  const u32* addr = w.lanes(op.at(Name::addr), ta);
  const u32* data = w.lanes(op.at(Name::data0), td);
  const u32 off = static_cast<u32>(op.imm(Name::offset));
  const LaneMask e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l)
    if (active(e, l)) r[((addr[l] + off) >> 2) & 63u] = data[l];
  ds_lane_issue(w, op, r);
}

/// Source lane of lane `l` for a ds_swizzle offset (gfx9). offset[15] = 1: QDMode, lane (l & ~3) | offset[2j+1:2j]
/// for j = l & 3. offset[15] = 0: BitMode within each 32-lane half, and_mask = offset[4:0], or_mask = offset[9:5],
/// xor_mask = offset[14:10]: src = ((l & and) | or) ^ xor (MI300 ISA DS_SWIZZLE_B32; LLVM SIDefines.h
/// Swizzle::QUAD_PERM_ENC / BITMASK_PERM_ENC; the BROADCAST, SWAP and REVERSE macros are BitMode patterns).
[[nodiscard]] inline unsigned swizzle_source(u32 offset, unsigned l) noexcept {
  if (offset & 0x8000u) return (l & ~3u) | ((offset >> (2 * (l & 3))) & 3u);
  const unsigned and_mask = offset & 0x1f, or_mask = (offset >> 5) & 0x1f, xor_mask = (offset >> 10) & 0x1f;
  return (l & 0x20u) | ((((l & and_mask) | or_mask) ^ xor_mask) & 0x1fu);
}
// DS_SWIZZLE_B32: "RETURN_DATA = swizzle(vgpr_data, offset1:offset0)", no LDS access. A lane whose source lane is
// inactive reads 0 (as gem5's Vega model does; the ISA text does not say).
inline void ds_swizzle_b32(Wave& w, const Op& op) {
  if (!ds_lane_operands_ok(w, op)) return;
  alignas(64) u32 td[wave_lanes], r[wave_lanes];
  const u32* data = w.lanes(op.at(Name::addr), td);
  const u32 off = static_cast<u32>(op.imm(Name::offset)) & 0xffffu;
  const LaneMask e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const unsigned src = swizzle_source(off, l);
    r[l] = active(e, src) ? data[src] : 0u;
  }
  ds_lane_issue(w, op, r);
}

// ---- DPP ----------------------------------------------------------------------------------------------------------

/// Source lane of every lane for DPP_CTRL `ctrl`, -1 where the source is out of range. Returns false for a control
/// value the targets do not define. Encodings (LLVM SIDefines.h DppCtrl; MI300 ISA "DPP_CTRL" table):
/// 0x000-0x0ff quad_perm (lane (l & ~3) | ctrl[2j+1:2j], j = l & 3); 0x101-0x10f row_shl:n (l + n within the
/// 16-lane row); 0x111-0x11f row_shr:n (l - n within the row); 0x121-0x12f row_ror:n (rotate right within the row);
/// 0x130 wave_shl:1 (l + 1); 0x134 wave_rol:1; 0x138 wave_shr:1 (l - 1); 0x13c wave_ror:1; 0x140 row_mirror
/// (15 - r); 0x141 row_half_mirror (7 - r within 8 lanes); 0x142 row_bcast:15 (lane 15 of each row to every lane of
/// the next row; row 0 has no source); 0x143 row_bcast:31 (lane 31 to rows 2 and 3; rows 0-1 have no source);
/// 0x150-0x15f row_newbcast:n (gfx90a+, LLVM "row_newbcast" = the ROW_SHARE encoding: lane n of each row to the
/// whole row).
[[nodiscard]] inline bool dpp_sources(u32 ctrl, int* src) noexcept {
  for (int l = 0; l < static_cast<int>(wave_lanes); ++l) {
    const int r = l & 15, row = l & ~15;
    int s = -1;
    if (ctrl <= 0xff) s = (l & ~3) | static_cast<int>((ctrl >> (2 * (l & 3))) & 3u);
    else if (ctrl >= 0x101 && ctrl <= 0x10f) { const int n = static_cast<int>(ctrl - 0x100); s = r + n < 16 ? l + n : -1; }
    else if (ctrl >= 0x111 && ctrl <= 0x11f) { const int n = static_cast<int>(ctrl - 0x110); s = r - n >= 0 ? l - n : -1; }
    else if (ctrl >= 0x121 && ctrl <= 0x12f) { const int n = static_cast<int>(ctrl - 0x120); s = row | ((r - n) & 15); }
    else if (ctrl == 0x130) s = l + 1 < 64 ? l + 1 : -1;
    else if (ctrl == 0x134) s = (l + 1) & 63;
    else if (ctrl == 0x138) s = l - 1;
    else if (ctrl == 0x13c) s = (l - 1) & 63;
    else if (ctrl == 0x140) s = row | (15 - r);
    else if (ctrl == 0x141) s = (l & ~7) | (7 - (l & 7));
    else if (ctrl == 0x142) s = l >= 16 ? (l & 0x30) - 1 : -1;
    else if (ctrl == 0x143) s = l >= 32 ? 31 : -1;
    else if (ctrl >= 0x150 && ctrl <= 0x15f) s = row | static_cast<int>(ctrl - 0x150);
    else return false;
    src[l] = s;
  }
  return true;
}

/// Lanes enabled by DPP row_mask (bit i: lanes 16i..16i+15) and bank_mask (bit j: lanes 4j..4j+3 of every row).
[[nodiscard]] inline LaneMask dpp_write_mask(u32 row_mask, u32 bank_mask) noexcept {
  std::uint64_t bank16 = 0;  // the bank pattern of one 16-lane row
  for (unsigned j = 0; j < 4; ++j)
    if ((bank_mask >> j) & 1) bank16 |= std::uint64_t{0xf} << (4 * j);
  LaneMask m = 0;
  for (unsigned i = 0; i < 4; ++i)
    if ((row_mask >> i) & 1) m |= bank16 << (16 * i);
  return m;
}

/// dpp_sources for every DPP control, computed once: (defined, source lane per lane) indexed by dpp_ctrl.
struct DppTable {
  std::array<std::array<std::int8_t, wave_lanes>, 0x160> src{};
  std::array<bool, 0x160> defined{};
};
[[nodiscard]] inline const DppTable& dpp_table() {
  static const DppTable t = [] {
    DppTable d;
    int tmp[wave_lanes];
    for (u32 c = 0; c < 0x160; ++c) {
      d.defined[c] = dpp_sources(c, tmp);
      if (d.defined[c])
        for (unsigned l = 0; l < wave_lanes; ++l) d.src[c][l] = static_cast<std::int8_t>(tmp[l]);
    }
    return d;
  }();
  return t;
}

[[nodiscard]] inline std::uint8_t slot_pos(const Op& op, Name n) noexcept { return op.pos[static_cast<std::size_t>(n)]; }

}  // namespace detail::lane

/// DPP16 wrapper (gfx9 "VOP_DPP"): permutes src0 across lanes by dpp_ctrl into temp rows and runs the plain
/// semantics `op.base` on a copy of the Op whose src0 reads them. A lane is written only if its row and bank are
/// enabled by row_mask/bank_mask and its source lane is valid (in range and active in EXEC); with BOUND_CTRL = 1
/// (LLVM prints `bound_ctrl:1`; older LLVM spelled the same bit `bound_ctrl:0`) a lane with an invalid source is
/// written using 0 as src0 (MI300 ISA "DPP": "BOUND_CTRL ... 1 = zero is used when the source is invalid"; GPUOpen
/// "Cross-Lane Operations"). Lanes not written keep vdst (the tied `old` operand). Source modifiers apply to the
/// permuted value (the base semantics apply them). 64-bit DPP (gfx90a+ DP ALU DPP, v_mov_b64_dpp) moves both dwords.
inline void dpp_exec(Wave& w, const Op& op) {
  using namespace detail::lane;
  const u32 ctrl = static_cast<u32>(op.imm(Name::dpp_ctrl));
  const DppTable& table = dpp_table();
  if (ctrl >= table.defined.size() || !table.defined[ctrl]) {
    w.stop_with(Stop::Kind::unsupported, op, "DPP control " + std::to_string(ctrl) + " is not defined on gfx9 targets");
    return;
  }
  if (op.imm(Name::fi) != 0) {
    w.stop_with(Stop::Kind::unsupported, op, "DPP fi (fetch inactive) is not emulated");
    return;
  }
  const std::uint8_t p0 = slot_pos(op, Name::src0);
  if (p0 == Op::none || op.slots[p0].kind != Slot::Kind::vgpr) {
    w.stop_with(Stop::Kind::illegal, op, "a DPP src0 must be a VGPR");
    return;
  }
  const Slot& s0 = op.slots[p0];
  const std::int8_t* src = table.src[ctrl].data();
  const unsigned dwords = s0.dwords ? s0.dwords : 1;
  if (dwords > temp_rows) {
    w.stop_with(Stop::Kind::unsupported, op, "DPP src0 wider than " + std::to_string(temp_rows) + " dwords");
    return;
  }
  const LaneMask exec = w.exec();
  const bool bound_zero = op.imm(Name::bound_ctrl) != 0;
  LaneMask valid = 0;
  for (unsigned l = 0; l < wave_lanes; ++l)
    if (src[l] >= 0 && active(exec, static_cast<unsigned>(src[l]))) valid |= LaneMask{1} << l;
  for (unsigned d = 0; d < dwords; ++d) {
    const u32* in = w.row(s0.index + d);
    u32* t = w.row(temp_row0 + d);
    for (unsigned l = 0; l < wave_lanes; ++l) t[l] = active(valid, l) ? in[src[l]] : 0u;
  }
  const LaneMask write = exec & dpp_write_mask(static_cast<u32>(op.imm(Name::row_mask)), static_cast<u32>(op.imm(Name::bank_mask))) &
                         (bound_zero ? ~LaneMask{0} : valid);
  Op copy = op;
  copy.fn = op.base;
  copy.base = nullptr;
  copy.slots[p0].index = temp_row0;
  w.set_exec(write);
  op.base(w, copy);
  // v_cmpx writes EXEC itself (LLVM: implicit def of EXEC); every other VALU leaves it to be restored.
  const bool writes_exec = op.info && (op.info->implicit_defs & isa::reg::exec);
  if (!writes_exec) w.set_exec(exec);
}

namespace detail::lane {

/// SDWA operand select (LLVM SIDefines.h SdwaSel: BYTE_0..3 = 0..3, WORD_0 = 4, WORD_1 = 5, DWORD = 6): the
/// selected byte/word moved to bit 0, zero- or (sext) sign-extended (MI300 ISA "SDWA": SRC0_SEL/SRC1_SEL, SRC0_SEXT).
[[nodiscard]] inline u32 sdwa_select(u32 v, u32 sel, bool sext) noexcept {
  unsigned shift = 0, width = 32;
  if (sel <= 3) { shift = 8 * sel; width = 8; }
  else if (sel <= 5) { shift = 16 * (sel - 4); width = 16; }
  if (width == 32) return v;
  const u32 x = (v >> shift) & ((1u << width) - 1);
  if (!sext) return x;
  const unsigned sh = 32 - width;
  return static_cast<u32>(static_cast<std::int32_t>(x << sh) >> sh);
}

/// SDWA destination: the low bits of result `r` placed at dst_sel; the other bits are 0 (UNUSED_PAD = 0), the
/// field's sign bit above it and 0 below (UNUSED_SEXT = 1), or vdst's previous bits (UNUSED_PRESERVE = 2)
/// (MI300 ISA "SDWA": DST_SEL, DST_UNUSED).
[[nodiscard]] inline u32 sdwa_place(u32 r, u32 old, u32 sel, u32 unused) noexcept {
  unsigned shift = 0, width = 32;
  if (sel <= 3) { shift = 8 * sel; width = 8; }
  else if (sel <= 5) { shift = 16 * (sel - 4); width = 16; }
  if (width == 32) return r;
  const u32 field_mask = ((1u << width) - 1) << shift;
  const u32 field = (r << shift) & field_mask;
  if (unused == 2) return (old & ~field_mask) | field;
  if (unused == 1 && ((r >> (width - 1)) & 1)) {
    const unsigned top = shift + width;
    return field | (top >= 32 ? 0u : ~0u << top);
  }
  return field;
}

}  // namespace detail::lane

/// SDWA wrapper (gfx9 "VOP_SDWA"): rewrites src0/src1 through temp rows holding the selected byte/word (zero- or
/// sign-extended), runs `op.base` on a copy of the Op, and for VOP1/VOP2 merges the result into vdst by
/// dst_sel/dst_unused. VOPC SDWA writes its mask (vcc or the named SGPR pair) through the base semantics. Float
/// neg/abs apply to the selected value; clamp/omod are applied by the base semantics before the dst_sel placement.
inline void sdwa_exec(Wave& w, const Op& op) {
  using namespace detail::lane;
  Op copy = op;
  copy.fn = op.base;
  copy.base = nullptr;
  const Name srcs[2] = {Name::src0, Name::src1};
  const Name sels[2] = {Name::src0_sel, Name::src1_sel};
  for (unsigned k = 0; k < 2; ++k) {
    const std::uint8_t p = slot_pos(op, srcs[k]);
    if (p == Op::none || !op.slots[p].present()) continue;
    const Slot& s = op.slots[p];
    const u32 sel = op.has(sels[k]) ? static_cast<u32>(op.imm(sels[k])) : 6u;
    if (sel > 6) {
      w.stop_with(Stop::Kind::illegal, op, "SDWA source select " + std::to_string(sel) + " is not defined");
      return;
    }
    const bool sext = (s.mods & 4) != 0;
    copy.slots[p].mods = static_cast<std::uint8_t>(s.mods & ~4u);
    if (sel == 6) continue;
    alignas(64) u32 tmp[wave_lanes];
    const u32* in = w.lanes(s, tmp);
    u32* t = w.row(temp_row0 + k);
    for (unsigned l = 0; l < wave_lanes; ++l) t[l] = sdwa_select(in[l], sel, sext);
    Slot& c = copy.slots[p];
    c.kind = Slot::Kind::vgpr;
    c.index = temp_row0 + k;
    c.dwords = 1;
  }
  const bool vopc = op.info && op.info->format == isa::Format::VOPC;
  const std::uint8_t pd = slot_pos(op, Name::vdst);
  const u32 dst_sel = op.has(Name::dst_sel) ? static_cast<u32>(op.imm(Name::dst_sel)) : 6u;
  if (vopc || pd == Op::none || op.slots[pd].kind != Slot::Kind::vgpr || dst_sel == 6) {
    op.base(w, copy);
    return;
  }
  if (dst_sel > 6) {
    w.stop_with(Stop::Kind::illegal, op, "SDWA dst_sel " + std::to_string(dst_sel) + " is not defined");
    return;
  }
  const u32 unused = op.has(Name::dst_unused) ? static_cast<u32>(op.imm(Name::dst_unused)) : 2u;
  const unsigned tdst = temp_row0 + 2;
  copy.slots[pd].index = tdst;
  // The plain semantics write the whole result into the temp row; ops whose addend is vdst (v_mac_*, v_fmac_*,
  // v_pk_fmac_f16: src2 tied to vdst) read it there too, so it starts as vdst's value.
  std::memcpy(w.row(tdst), w.row(op.slots[pd].index), sizeof(u32) * wave_lanes);
  op.base(w, copy);
  if (w.ended) return;
  const LaneMask e = w.exec();
  const u32* r = w.row(tdst);
  u32* d = w.row(op.slots[pd].index);
  for (unsigned l = 0; l < wave_lanes; ++l)
    if (active(e, l)) d[l] = sdwa_place(r[l], d[l], dst_sel, unused);
}

namespace detail::lane {

/// v_accvgpr_write_b32 / v_accvgpr_read_b32 / v_accvgpr_mov_b32 (MI300 ISA V_ACCVGPR_*: D = S0 between the VGPR
/// and AGPR files, lanes in EXEC) and v_mov-like copies: the source may be a register or an inline constant.
inline void v_copy_b32(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::vdst);
  if (d.kind != Slot::Kind::vgpr) { w.stop_with(Stop::Kind::illegal, op, std::string(op.mnemonic()) + ": vdst must be a VGPR or AGPR"); return; }
  alignas(64) u32 tmp[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), tmp);
  u32* out = w.row(d.index);
  const LaneMask e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l)
    if (active(e, l)) out[l] = a[l];
}

/// v_swap_b32 (MI300 ISA V_SWAP_B32: tmp = D; D = S0; S0 = tmp, lanes in EXEC).
inline void v_swap_b32(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::vdst);
  const Slot& s0 = op.at(Name::src0);
  if (d.kind != Slot::Kind::vgpr || s0.kind != Slot::Kind::vgpr) {
    w.stop_with(Stop::Kind::illegal, op, "v_swap_b32: both operands must be VGPRs");
    return;
  }
  u32* a = w.row(d.index);
  u32* b = w.row(s0.index);
  const LaneMask e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l)
    if (active(e, l)) std::swap(a[l], b[l]);
}

inline void v_nop(Wave&, const Op&) {}

}  // namespace detail::lane

/// The cross-lane semantics.
[[nodiscard]] inline std::span<const Semantics> lane_semantics() {
  using namespace detail::lane;
  static constexpr Semantics table[] = {
      {op::v_readlane_b32, v_readlane_b32},
      {op::v_readfirstlane_b32, v_readfirstlane_b32},
      {op::v_writelane_b32, v_writelane_b32},
      {op::v_mbcnt_lo_u32_b32, v_mbcnt<false>},
      {op::v_mbcnt_hi_u32_b32, v_mbcnt<true>},
      {op::ds_bpermute_b32, ds_bpermute_b32},
      {op::ds_permute_b32, ds_permute_b32},
      {op::ds_swizzle_b32, ds_swizzle_b32},
      {op::v_permlane16_swap_b32, v_permlane_swap<false>},
      {op::v_permlane32_swap_b32, v_permlane_swap<true>},
      {op::v_accvgpr_write_b32, v_copy_b32},
      {op::v_accvgpr_read_b32, v_copy_b32},
      {op::v_accvgpr_mov_b32, v_copy_b32},
      {op::v_swap_b32, v_swap_b32},
      {op::v_nop, v_nop},
  };
  return table;
}

}  // namespace asmevo::emu
