// Registers as "units" (one per 32-bit register, plus SCC and MODE), and which units an instruction reads and
// writes: the vocabulary of the register analyses (liveness.hpp, the equivalence prover, the state check).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/inst_form.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/reg.hpp"

namespace asmevo::analysis::detail {

// ---- register units ----------------------------------------------------------------------------------------------
// Scalar operand codes 0..127 (s0..s101, flat_scratch 102/103, xnack_mask 104/105, vcc 106/107, ttmp0.. at 108, m0
// 124, exec 126/127: MI300 ISA SSRC table), SCC, then v0..v255 and a0..a255.
inline constexpr unsigned unit_scc = 128, unit_v0 = 256, unit_a0 = 512, num_units = 768;
/// The MODE register (float rounding and denormal modes, IEEE, DX10 clamp): not a register operand, but every
/// floating-point result depends on it, so opaque results name its value (written by s_setreg*).
inline constexpr unsigned unit_mode = 129;
inline constexpr unsigned unit_vcc = special::vcc_lo, unit_exec = special::exec_lo, unit_m0 = special::m0;

/// The units of a register range, or empty when it has none (inline specials read by value, e.g. src_execz).
[[nodiscard]] inline std::vector<unsigned> units_of(const Reg& r) {
  std::vector<unsigned> u;
  for (unsigned k = 0; k < r.dwords; ++k) {
    const unsigned i = r.index + k;
    switch (r.file) {
      case RegFile::sgpr: u.push_back(i); break;
      case RegFile::ttmp: u.push_back(108 + i); break;
      case RegFile::vgpr: u.push_back(unit_v0 + i); break;
      case RegFile::agpr: u.push_back(unit_a0 + i); break;
      case RegFile::special:
        // Inline reads of SCC, EXECZ and VCCZ depend on the registers they summarise.
        if (r.index == special::scc || r.index == special::src_scc) u.push_back(unit_scc);
        else if (r.index == special::src_execz) u.insert(u.end(), {unit_exec, unit_exec + 1});
        else if (r.index == special::src_vccz) u.insert(u.end(), {unit_vcc, unit_vcc + 1});
        else if (i < 128) u.push_back(i);
        break;
    }
  }
  return u;
}

[[nodiscard]] inline std::string unit_name(unsigned u) {
  if (u == unit_scc) return "scc";
  if (u == unit_mode) return "mode";
  if (u >= unit_a0) return "a" + std::to_string(u - unit_a0);
  if (u >= unit_v0) return "v" + std::to_string(u - unit_v0);
  if (u <= 101) return "s" + std::to_string(u);
  if (u >= 108 && u <= 123) return "ttmp" + std::to_string(u - 108);
  const auto n = special_name(Reg{RegFile::special, static_cast<std::uint16_t>(u), 1});
  return n.empty() ? "special" + std::to_string(u) : std::string(n);
}

/// Units implied by a form's implicit use/def bits (isa::reg::*).
[[nodiscard]] inline std::vector<unsigned> implicit_units(std::uint32_t bits) {
  std::vector<unsigned> u;
  if (bits & isa::reg::vcc) u.insert(u.end(), {unit_vcc, unit_vcc + 1});
  if (bits & isa::reg::exec) u.insert(u.end(), {unit_exec, unit_exec + 1});
  if (bits & isa::reg::m0) u.push_back(unit_m0);
  if (bits & isa::reg::scc) u.push_back(unit_scc);
  if (bits & isa::reg::flat_scratch) u.insert(u.end(), {special::flat_scratch_lo, special::flat_scratch_hi});
  return u;
}

// ---- instruction helpers ---------------------------------------------------------------------------------------

using asmevo::form_of;

/// The implicit uses of `in` that the target's hardware really reads (isa::reg bits). LLVM keeps two records of
/// many DS instructions with one encoding: the pre-gfx9 one lists M0 (the LDS bound) and the `_gfx9` one does not,
/// because from gfx9 on "LDS instructions no longer use M0" (LLVM DSInstructions.td, the gfx9 variants without
/// M0 in Uses); which record a parsed or decoded instruction names is an accident of table order. So M0 counts for
/// a DS form only when every form of its mnemonic on the target reads it (ds_gws_*, ds_*_addtid still do).
[[nodiscard]] inline std::uint32_t real_implicit_uses(const Inst& in) {
  const auto& f = form_of(in);
  std::uint32_t u = f.implicit_uses;
  if ((u & isa::reg::m0) && f.format == isa::Format::DS)
    for (const auto& g : forms_of(in.target, op_of(in)))
      if (g.format == isa::Format::DS && !(g.implicit_uses & isa::reg::m0)) return u & ~isa::reg::m0;
  return u;
}

[[nodiscard]] inline bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

/// SDWA with dst_sel:DWORD writes the whole destination dword (dst_unused applies to the other selections only;
/// GCN3/Vega/CDNA3 ISA, VOP_SDWA field DST_SEL, 6 = DWORD). Absent counts as partial: nothing is assumed.
[[nodiscard]] inline bool sdwa_full_dword(const Inst& in) {
  const auto ops = isa::operands(form_of(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].name == "dst_sel")
      return in.ops[k].present() && (in.ops[k].kind == Operand::Kind::imm || in.ops[k].kind == Operand::Kind::list) &&
             in.ops[k].imm == 6;
  return false;
}

/// The destination of a VALU/memory instruction may keep some of its old bits in an active lane: SDWA other than
/// dst_sel:DWORD, 16-bit results (whether the upper half is kept or zeroed is not relied on), mixlo/mixhi, d16
/// loads, lane writes, and conditional SALU writes. Such results are opaque functions of the old destination too.
[[nodiscard]] inline bool partial_def(const Inst& in) {
  const auto& f = form_of(in);
  const Opcode o = op_of(in);
  const OpInfo& info = op_info(o);
  if ((f.variant == isa::Variant::sdwa || f.has(isa::prop::sdwa)) && !sdwa_full_dword(in)) return true;
  // Conditional moves, bit sets, hardware-register field writes, v_writelane (one lane), d16 halves and the f16
  // mixes (one half).
  if (one_of(info.family, Family::s_cmov, Family::s_setreg) ||
      one_of(info.base, BaseOp::s_bitset0, BaseOp::s_bitset1) || o == op::v_writelane_b32 || info.has(opflag::d16) ||
      one_of(o, op::v_fma_mixlo_f16, op::v_fma_mixhi_f16))
    return true;
  // Accumulators into the destination (v_mac, v_fmac, v_pk_fmac, v_dot*c, v_smfmac): D is also a source, and some
  // forms (V_PK_FMAC_F16 SDWA) list no tied input for it.
  if (info.has(opflag::accum)) return true;
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (ops[k].role == isa::Role::use && !ops[k].is_printed() && (k >= in.ops.size() || !in.ops[k].present()))
      return true;  // a hidden input (sdst_in, vdst_in) the parser leaves empty: the old destination
  if (f.has(isa::prop::valu)) {
    using B = BaseOp;
    // Conversions write whole dwords when packed (v_cvt_pk*) or when their result is 32/64-bit (v_cvt_f32_*,
    // v_cvt_i32_*, v_cvt_u32_*, v_cvt_f64_*, v_cvt_f32_ubyteN, v_cvt_off_f32_i4); the others (v_cvt_flr_*,
    // v_cvt_rpi_*, v_cvt_norm_*, v_cvt_sr_*, v_cvt_scalef32_*) count as partial, conservatively.
    if (info.family == Family::v_cvt)
      return !(one_of(info.base, B::v_cvt_pk, B::v_cvt_pkaccum, B::v_cvt_pknorm, B::v_cvt_pkrtz) ||
               (one_of(info.base, B::v_cvt, B::v_cvt_off, B::v_cvt_ubyte0, B::v_cvt_ubyte1, B::v_cvt_ubyte2,
                       B::v_cvt_ubyte3) &&
                bits(info.type) >= 32));
    if (info.family == Family::v_pk || o == op::v_pack_b32_f16) return false;
    // A 16-bit result, as the mnemonic's last data type word says (memory ops with prop::valu, the LDS DMA loads,
    // are not VALU results). The gfx90a MFMA spellings glue the type to the shape (v_mfma_f32_16x16x16f16,
    // opflag::legacy_name) and so never counted, while their gfx942/gfx950 names (v_mfma_f32_16x16x16_f16) do,
    // although every MFMA writes whole f32/i32/f64 results; kept as it was.
    if (info.unit == OpUnit::v && bits(info.src2_type) == 16 && !info.has(opflag::legacy_name)) return true;
  }
  return false;
}

/// Registers an instruction reads and writes, as units (explicit operands by role, implicit ones from the form;
/// destinations that may be kept in part count as read).
inline void unit_rw(const Inst& in, std::vector<unsigned>& rd, std::vector<unsigned>& wr) {
  const auto& f = form_of(in);
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    if (!in.ops[k].is_reg()) continue;
    auto us = units_of(in.ops[k].reg);
    (ops[k].role == isa::Role::def ? wr : rd).insert((ops[k].role == isa::Role::def ? wr : rd).end(), us.begin(), us.end());
  }
  for (unsigned u : implicit_units(f.implicit_uses)) rd.push_back(u);
  for (unsigned u : implicit_units(f.implicit_defs)) wr.push_back(u);
  if (partial_def(in)) rd.insert(rd.end(), wr.begin(), wr.end());
}

}  // namespace asmevo::analysis::detail
