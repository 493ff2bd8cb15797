// The VALU semantics table: VOP1, VOP2, VOPC, VOP3 and VOP3P (except MFMA) opcodes of gfx90a, gfx942 and gfx950.
#pragma once

// How to read an entry: the handler is valu_op<result type, source types..., lane function, flags, layout,
// saturating lane function> (detail/valu_core.hpp) or a special shape (detail/valu_special.hpp). Lane functions
// cite the ISA pseudo-code they implement (detail/valu_int.hpp, detail/valu_float.hpp). Opcodes absent from this
// table run as "unsupported" (v_cube*, v_mqsad*, v_qsad_pk_u16_u8, v_trig_preop_f64, v_cvt_sr_fp8/bf8_f32,
// v_cvt_pkaccum_u8_f32, v_screen_partition_4se_b32); lane-crossing and register-file moves (v_readlane,
// v_writelane, v_readfirstlane, v_mbcnt_*, v_swap_b32, v_accvgpr_*, v_nop) live in sem_lane.hpp.

#include <span>

#include "asmevo/emu/detail/valu_core.hpp"
#include "asmevo/emu/detail/valu_float.hpp"
#include "asmevo/emu/detail/valu_int.hpp"
#include "asmevo/emu/detail/valu_special.hpp"
#include "asmevo/emu/machine.hpp"

namespace asmevo::emu {

namespace detail::valu {

// Shorthands for the table: <result><arity> with b = 32-bit integer, h = 16-bit integer, f = f32, g = f16, d = f64.
template <auto Fn, auto Sat = nullptr> inline constexpr Exec b1 = &valu_op<T::b32, T::b32, T::none, T::none, Fn, 0, Layout::normal, Sat>;
template <auto Fn, auto Sat = nullptr> inline constexpr Exec b2 = &valu_op<T::b32, T::b32, T::b32, T::none, Fn, 0, Layout::normal, Sat>;
template <auto Fn, auto Sat = nullptr> inline constexpr Exec b3 = &valu_op<T::b32, T::b32, T::b32, T::b32, Fn, 0, Layout::normal, Sat>;
template <auto Fn, auto Sat = nullptr> inline constexpr Exec h2 = &valu_op<T::b16, T::b16, T::b16, T::none, Fn, 0, Layout::normal, Sat>;
template <auto Fn, auto Sat = nullptr> inline constexpr Exec h3 = &valu_op<T::b16, T::b16, T::b16, T::b16, Fn, 0, Layout::normal, Sat>;
template <auto Fn, unsigned F = fl::arith> inline constexpr Exec f1 = &valu_op<T::f32, T::f32, T::none, T::none, Fn, F>;
template <auto Fn, unsigned F = fl::arith> inline constexpr Exec f2 = &valu_op<T::f32, T::f32, T::f32, T::none, Fn, F>;
template <auto Fn, unsigned F = fl::arith, Layout L = Layout::normal> inline constexpr Exec f3 = &valu_op<T::f32, T::f32, T::f32, T::f32, Fn, F, L>;
template <auto Fn, unsigned F = fl::arith> inline constexpr Exec g1 = &valu_op<T::f16, T::f16, T::none, T::none, Fn, F>;
template <auto Fn, unsigned F = fl::arith> inline constexpr Exec g2 = &valu_op<T::f16, T::f16, T::f16, T::none, Fn, F>;
template <auto Fn, unsigned F = fl::arith, Layout L = Layout::normal> inline constexpr Exec g3 = &valu_op<T::f16, T::f16, T::f16, T::f16, Fn, F, L>;
template <auto Fn, unsigned F = fl::arith> inline constexpr Exec d1 = &valu_op<T::f64, T::f64, T::none, T::none, Fn, F>;
template <auto Fn, unsigned F = fl::arith> inline constexpr Exec d2 = &valu_op<T::f64, T::f64, T::f64, T::none, Fn, F>;
template <auto Fn, unsigned F = fl::arith, Layout L = Layout::normal> inline constexpr Exec d3 = &valu_op<T::f64, T::f64, T::f64, T::f64, Fn, F, L>;
/// min/max family: the IEEE-mode and non-IEEE-mode instantiations, chosen by MODE.IEEE at run time.
template <Exec A, Exec B> inline constexpr Exec ieee = &by_ieee<A, B>;

inline void nop_exec(Wave&, const Op&) {}

/// v_lshl_add_u64: D = (S0 << S1[2:0]) + S2 on 64 bits (MI300 ISA V_LSHL_ADD_U64). LLVM selects it only for shift
/// amounts 0..4 (review D121401; llvm/test/CodeGen/AMDGPU/lshl-add-u64.ll turns a shift of 5 into v_lshlrev_b64),
/// and what hardware does with larger ones is not documented: an active lane that shifts by more than 4 stops the
/// run as unsupported (the equivalence prover likewise leaves such a result opaque).
inline void lshl_add_u64_op(Wave& w, const Op& op) {
  alignas(64) u32 t[wave_lanes];
  const u32* s = w.lanes(op.at(Name::src1), t);
  const LaneMask e = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l)
    if (((e >> l) & 1) && s[l] > 4) {
      w.stop_with(Stop::Kind::unsupported, op,
                  "v_lshl_add_u64: lane " + std::to_string(l) + " shifts by " + std::to_string(s[l]) +
                      "; only shift amounts 0..4 are used by LLVM and relied on here",
                  static_cast<std::int32_t>(l));
      return;
    }
  valu_op<T::b64, T::b64, T::b32, T::b64, &ops::lshl_add_u64>(w, op);
}

// ---- gfx950: v_bitop3_b16/b32, v_cvt_pk_f16_f32, v_cvt_pk_bf16_f32 ----------------------------------------------

/// v_bitop3_b32 / v_bitop3_b16 (gfx950) [CDNA4 ISA V_BITOP3_B32, V_BITOP3_B16]: bit i of D is TTBL[{S0[i], S1[i],
/// S2[i]}], S0 the most significant index bit (LLVM AMDGPUISelDAGToDAG BitOp3_Op encodes src0/src1/src2 as the tables
/// 0xf0/0xcc/0xaa, the same order). TTBL is the `bitop3` operand, carried in the instruction's OMOD/ABS/NEG fields, so
/// there are no source or output modifiers; the decoder keeps it in Op::aux. Evaluated on whole words as a multiplexer
/// tree: S2 picks an entry within each pair of the table, S1 a pair within each half, S0 a half. The 16-bit form reads
/// the op_sel-selected halves of its sources ([OPSEL] bits 0..2) and writes D[15:0], or D[31:16] with op_sel[3],
/// keeping the other half of vdst (an assumption: the ISA writes only `D.b16`; see the table entry's note).
template <bool B16>
inline void bitop3(Wave& w, const Op& op) {
  const u32 t = op.aux & 0xffu;
  const auto entry = [t](unsigned k) { return 0u - ((t >> k) & 1u); };  // table entry k as a word of 0s or 1s
  const u32 t0 = entry(0), t1 = entry(1), t2 = entry(2), t3 = entry(3), t4 = entry(4), t5 = entry(5), t6 = entry(6),
            t7 = entry(7);
  const unsigned opsel = B16 ? static_cast<unsigned>(op.imm(Name::op_sel)) : 0u;
  alignas(64) u32 b0[wave_lanes], b1[wave_lanes], b2[wave_lanes], r[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), b0);
  const u32* b = w.lanes(op.at(Name::src1), b1);
  const u32* c = w.lanes(op.at(Name::src2), b2);
  const unsigned sa = (opsel & 1u) ? 16 : 0, sb = (opsel & 2u) ? 16 : 0, sc = (opsel & 4u) ? 16 : 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const u32 x = a[l] >> sa, y = b[l] >> sb, z = c[l] >> sc;
    const u32 p00 = (z & t1) | (~z & t0), p01 = (z & t3) | (~z & t2);  // S0 = 0: S1 = 0, 1
    const u32 p10 = (z & t5) | (~z & t4), p11 = (z & t7) | (~z & t6);  // S0 = 1: S1 = 0, 1
    const u32 h0 = (y & p01) | (~y & p00), h1 = (y & p11) | (~y & p10);
    r[l] = (x & h1) | (~x & h0);
  }
  const Slot& d = vdst(op);
  if (d.kind != Slot::Kind::vgpr) return;
  const LaneMask exec = w.exec();
  if constexpr (!B16) {
    store32(w, d.index, r, exec);
  } else {
    u32* dst = w.v[d.index];
    const bool hi = (opsel & 8u) != 0;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      if (!((exec >> l) & 1u)) continue;
      dst[l] = hi ? ((dst[l] & 0xffffu) | (r[l] << 16)) : ((dst[l] & 0xffff0000u) | (r[l] & 0xffffu));
    }
  }
}

/// v_cvt_pk_f16_f32 / v_cvt_pk_bf16_f32 (gfx950) [CDNA4 ISA V_CVT_PK_F16_F32, V_CVT_PK_BF16_F32]: D[15:0] = cvt(S0),
/// D[31:16] = cvt(S1), rounded to nearest even whatever MODE.FP_ROUND holds (the pseudo-code sets
/// ROUND_MODE = ROUND_NEAREST_EVEN around the conversion). Overflow rounds to infinity; a NaN comes out quiet with its
/// sign and top payload bits (fp::f32_to_f16 / fp::f32_to_bf16). Source abs/neg apply [MODS]; denormal inputs are
/// flushed when MODE flushes f32 input denormals [MODE]. f16 results are flushed when MODE flushes f16 output
/// denormals (the V_CVT_F16_F32 rule, "Flush denorms on output if specified based on DP denorm mode", applied to the
/// packed form). A bf16 denormal result can only come from an f32 denormal input, so with f32 input flushing there is
/// none to flush; MODE with f32 input denormals kept but output denormals flushed leaves the bf16 rule undocumented and
/// stops as unsupported. The ISA defines no clamp or omod for these opcodes: either stops as unsupported.
template <bool Bf16>
inline void cvt_pk_16_f32(Wave& w, const Op& op) {
  if (op.imm(Name::clamp) || op.imm(Name::omod)) return unsupported(w, op, "the clamp or omod modifier");
  const FpEnv env = fp_env(w);
  if (Bf16 && env.in32 && !env.out32)
    return unsupported(w, op, "MODE.FP_DENORM keeping f32 input denormals while flushing output denormals (the bf16 rule)");
  alignas(64) u32 b0[wave_lanes], b1[wave_lanes], r[wave_lanes];
  const Slot& s0 = op.at(Name::src0);
  const Slot& s1 = op.at(Name::src1);
  const u32* a = read_src<T::f32>(w, s0, b0, false, s0.mods, !env.in32);
  const u32* b = read_src<T::f32>(w, s1, b1, false, s1.mods, !env.in32);
  if constexpr (Bf16) {
    for (unsigned l = 0; l < wave_lanes; ++l)
      r[l] = static_cast<u32>(fp::f32_to_bf16(fp::f32(a[l]))) | (static_cast<u32>(fp::f32_to_bf16(fp::f32(b[l]))) << 16);
  } else {
    const bool fz = !env.out16;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      u16 lo = fp::f32_to_f16(fp::f32(a[l])), hi = fp::f32_to_f16(fp::f32(b[l]));
      if (fz) { lo = flush(lo); hi = flush(hi); }
      r[l] = static_cast<u32>(lo) | (static_cast<u32>(hi) << 16);
    }
  }
  const Slot& d = vdst(op);
  if (d.kind != Slot::Kind::vgpr) return;
  store32(w, d.index, r, w.exec());
}

inline constexpr Semantics valu_table[] = {
    {op::v_add3_u32, b3<&ops::add3_u32>},
    {op::v_add_co_u32, &carry_op<Carry::add>},
    {op::v_add_f16, g2<&ops::add_f16>},
    {op::v_add_f32, f2<&ops::add_f32>},
    {op::v_add_f64, d2<&ops::add_f64>},
    {op::v_add_i16, h2<&ops::add_u16, &ops::add_i16_sat>},
    {op::v_add_i32, b2<&ops::add_u32, &ops::add_i32_sat>},
    {op::v_add_lshl_u32, b3<&ops::add_lshl_u32>},
    {op::v_add_u16, h2<&ops::add_u16, &ops::add_u16_sat>},
    {op::v_add_u32, b2<&ops::add_u32, &ops::add_u32_sat>},
    {op::v_addc_co_u32, &carry_op<Carry::addc>},
    {op::v_alignbit_b32, b3<&ops::alignbit_b32>},
    {op::v_alignbyte_b32, b3<&ops::alignbyte_b32>},
    {op::v_and_b32, b2<&ops::and_b32>},
    {op::v_and_or_b32, b3<&ops::and_or_b32>},
    {op::v_ashrrev_i16, h2<&ops::ashrrev_i16>},
    {op::v_ashrrev_i32, b2<&ops::ashrrev_i32>},
    {op::v_ashrrev_i64, &valu_op<T::b64, T::b32, T::b64, T::none, &ops::ashrrev_i64>},
    {op::v_bcnt_u32_b32, b2<&ops::bcnt_u32_b32>},
    {op::v_bfe_i32, b3<&ops::bfe_i32>},
    {op::v_bfe_u32, b3<&ops::bfe_u32>},
    {op::v_bfi_b32, b3<&ops::bfi_b32>},
    {op::v_bfm_b32, b2<&ops::bfm_b32>},
    {op::v_bfrev_b32, b1<&ops::bfrev_b32>},
    {op::v_bitop3_b16, &bitop3<true>, Exactness::approximate, "bits 31:16 (15:0 with op_sel[3]) of vdst are assumed kept; the ISA writes only D.b16 and LLVM zeroesHigh16BitsOfDest does not list the opcode"},
    {op::v_bitop3_b32, &bitop3<false>},
    {op::v_ceil_f16, g1<&ops::ceil_f16>},
    {op::v_ceil_f32, f1<&ops::ceil_f32>},
    {op::v_ceil_f64, d1<&ops::ceil_f64>},
    {op::v_clrexcp, &nop_exec},
    {op::v_cndmask_b32, &cndmask_b32},
    {op::v_cos_f16, g1<&ops::cos_f16, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_cos_f32, f1<&ops::cos_f32, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_cvt_f16_f32, &valu_op<T::f16, T::f32, T::none, T::none, &ops::cvt_f16_f32, 0>},
    {op::v_cvt_f16_i16, &valu_op<T::f16, T::b16, T::none, T::none, &ops::cvt_f16_i16, 0>},
    {op::v_cvt_f16_u16, &valu_op<T::f16, T::b16, T::none, T::none, &ops::cvt_f16_u16, 0>},
    {op::v_cvt_f32_bf8, &cvt_f32_fp8<true>},
    {op::v_cvt_f32_f16, &valu_op<T::f32, T::f16, T::none, T::none, &ops::cvt_f32_f16, fl::no_flush_in>},
    {op::v_cvt_f32_f64, &valu_op<T::f32, T::f64, T::none, T::none, &ops::cvt_f32_f64, 0>},
    {op::v_cvt_f32_fp8, &cvt_f32_fp8<false>},
    {op::v_cvt_f32_i32, &valu_op<T::f32, T::b32, T::none, T::none, &ops::cvt_f32_i32, 0>},
    {op::v_cvt_f32_u32, &valu_op<T::f32, T::b32, T::none, T::none, &ops::cvt_f32_u32, 0>},
    {op::v_cvt_f32_ubyte0, &valu_op<T::f32, T::b32, T::none, T::none, &ops::cvt_f32_ubyte<0>, 0>},
    {op::v_cvt_f32_ubyte1, &valu_op<T::f32, T::b32, T::none, T::none, &ops::cvt_f32_ubyte<1>, 0>},
    {op::v_cvt_f32_ubyte2, &valu_op<T::f32, T::b32, T::none, T::none, &ops::cvt_f32_ubyte<2>, 0>},
    {op::v_cvt_f32_ubyte3, &valu_op<T::f32, T::b32, T::none, T::none, &ops::cvt_f32_ubyte<3>, 0>},
    {op::v_cvt_f64_f32, &valu_op<T::f64, T::f32, T::none, T::none, &ops::cvt_f64_f32, 0>},
    {op::v_cvt_f64_i32, &valu_op<T::f64, T::b32, T::none, T::none, &ops::cvt_f64_i32, 0>},
    {op::v_cvt_f64_u32, &valu_op<T::f64, T::b32, T::none, T::none, &ops::cvt_f64_u32, 0>},
    {op::v_cvt_flr_i32_f32, &valu_op<T::b32, T::f32, T::none, T::none, &ops::cvt_flr_i32_f32, 0>},
    {op::v_cvt_i16_f16, &valu_op<T::b16, T::f16, T::none, T::none, &ops::cvt_i16_f16, 0>},
    {op::v_cvt_i32_f32, &valu_op<T::b32, T::f32, T::none, T::none, &ops::cvt_i32_f32, 0>},
    {op::v_cvt_i32_f64, &valu_op<T::b32, T::f64, T::none, T::none, &ops::cvt_i32_f64, 0>},
    {op::v_cvt_norm_i16_f16, &valu_op<T::b16, T::f16, T::none, T::none, &ops::cvt_norm_i16_f16>, Exactness::approximate, "rounding of the normalised/byte conversion (RNE) assumed; the ISA names the function without defining it"},
    {op::v_cvt_norm_u16_f16, &valu_op<T::b16, T::f16, T::none, T::none, &ops::cvt_norm_u16_f16>, Exactness::approximate, "rounding of the normalised/byte conversion (RNE) assumed; the ISA names the function without defining it"},
    {op::v_cvt_off_f32_i4, &valu_op<T::f32, T::b32, T::none, T::none, &ops::cvt_off_f32_i4, 0>},
    {op::v_cvt_pk_bf16_f32, &cvt_pk_16_f32<true>},
    {op::v_cvt_pk_bf8_f32, &cvt_pk_fp8_f32<true>},
    {op::v_cvt_pk_f32_bf8, &cvt_pk_f32_fp8<true>},
    {op::v_cvt_pk_f16_f32, &cvt_pk_16_f32<false>},
    {op::v_cvt_pk_f32_fp8, &cvt_pk_f32_fp8<false>},
    {op::v_cvt_pk_fp8_f32, &cvt_pk_fp8_f32<false>},
    {op::v_cvt_pk_i16_i32, b2<&ops::cvt_pk_i16_i32>},
    {op::v_cvt_pk_u16_u32, b2<&ops::cvt_pk_u16_u32>},
    {op::v_cvt_pk_u8_f32, &valu_op<T::b32, T::f32, T::b32, T::b32, &ops::cvt_pk_u8_f32>, Exactness::approximate, "rounding of the normalised/byte conversion (RNE) assumed; the ISA names the function without defining it"},
    {op::v_cvt_pknorm_i16_f16, &valu_op<T::b32, T::f16, T::f16, T::none, &ops::cvt_pknorm_i16_f16>, Exactness::approximate, "rounding of the normalised/byte conversion (RNE) assumed; the ISA names the function without defining it"},
    {op::v_cvt_pknorm_i16_f32, &valu_op<T::b32, T::f32, T::f32, T::none, &ops::cvt_pknorm_i16_f32>, Exactness::approximate, "rounding of the normalised/byte conversion (RNE) assumed; the ISA names the function without defining it"},
    {op::v_cvt_pknorm_u16_f16, &valu_op<T::b32, T::f16, T::f16, T::none, &ops::cvt_pknorm_u16_f16>, Exactness::approximate, "rounding of the normalised/byte conversion (RNE) assumed; the ISA names the function without defining it"},
    {op::v_cvt_pknorm_u16_f32, &valu_op<T::b32, T::f32, T::f32, T::none, &ops::cvt_pknorm_u16_f32>, Exactness::approximate, "rounding of the normalised/byte conversion (RNE) assumed; the ISA names the function without defining it"},
    {op::v_cvt_pkrtz_f16_f32, &valu_op<T::b32, T::f32, T::f32, T::none, &ops::cvt_pkrtz_f16_f32>},
    {op::v_cvt_rpi_i32_f32, &valu_op<T::b32, T::f32, T::none, T::none, &ops::cvt_rpi_i32_f32, 0>},
    {op::v_cvt_u16_f16, &valu_op<T::b16, T::f16, T::none, T::none, &ops::cvt_u16_f16, 0>},
    {op::v_cvt_u32_f32, &valu_op<T::b32, T::f32, T::none, T::none, &ops::cvt_u32_f32, 0>},
    {op::v_cvt_u32_f64, &valu_op<T::b32, T::f64, T::none, T::none, &ops::cvt_u32_f64, 0>},
    {op::v_div_fixup_f16, g3<&ops::div_fixup_f16, 0>},
    {op::v_div_fixup_f32, f3<&ops::div_fixup_f32, 0>},
    {op::v_div_fixup_f64, d3<&ops::div_fixup_f64, 0>},
    {op::v_div_fixup_legacy_f16, g3<&ops::div_fixup_f16, 0>},
    {op::v_div_fmas_f32, &div_fmas<false>},
    {op::v_div_fmas_f64, &div_fmas<true>},
    {op::v_div_scale_f32, &div_scale<false>},
    {op::v_div_scale_f64, &div_scale<true>},
    {op::v_dot2_f32_f16, &dot2_f32_f16<false>, Exactness::approximate, "three-term sum rounded once from f64; the hardware's internal rounding is not documented"},
    {op::v_dot2_i32_i16, &dot_int<16, true, false>},
    {op::v_dot2_u32_u16, &dot_int<16, false, false>},
    {op::v_dot2c_f32_f16, &dot2_f32_f16<true>, Exactness::approximate, "three-term sum rounded once from f64; the hardware's internal rounding is not documented"},
    {op::v_dot2c_i32_i16, &dot_int<16, true, true>},
    {op::v_dot4_i32_i8, &dot_int<8, true, false>},
    {op::v_dot4_u32_u8, &dot_int<8, false, false>},
    {op::v_dot4c_i32_i8, &dot_int<8, true, true>},
    {op::v_dot8_i32_i4, &dot_int<4, true, false>},
    {op::v_dot8_u32_u4, &dot_int<4, false, false>},
    {op::v_dot8c_i32_i4, &dot_int<4, true, true>},
    {op::v_exp_f16, g1<&ops::exp_f16, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_exp_f32, f1<&ops::exp_f32, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_exp_legacy_f32, f1<&ops::exp_f32, 0>, Exactness::approximate, "evaluated as v_exp_f32; the legacy opcode's special cases and precision are not documented"},
    {op::v_ffbh_i32, b1<&ops::ffbh_i32>},
    {op::v_ffbh_u32, b1<&ops::ffbh_u32>},
    {op::v_ffbl_b32, b1<&ops::ffbl_b32>},
    {op::v_floor_f16, g1<&ops::floor_f16>},
    {op::v_floor_f32, f1<&ops::floor_f32>},
    {op::v_floor_f64, d1<&ops::floor_f64>},
    {op::v_fma_f16, g3<&ops::fma_f16>},
    {op::v_fma_f32, f3<&ops::fma_f32>},
    {op::v_fma_f64, d3<&ops::fma_f64>},
    {op::v_fma_legacy_f16, g3<&ops::fma_f16>},
    {op::v_fma_mix_f32, &fma_mix<0>},
    {op::v_fma_mixhi_f16, &fma_mix<2>},
    {op::v_fma_mixlo_f16, &fma_mix<1>},
    {op::v_fmaak_f32, f3<&ops::fma_f32, fl::arith, Layout::ak>},
    {op::v_fmac_f32, f3<&ops::fma_f32, fl::arith, Layout::mac>},
    {op::v_fmac_f64, d3<&ops::fma_f64, fl::arith, Layout::mac>},
    {op::v_fmamk_f32, f3<&ops::fma_f32, fl::arith, Layout::mk>},
    {op::v_fract_f16, g1<&ops::fract_f16, 0>},
    {op::v_fract_f32, f1<&ops::fract_f32, 0>},
    {op::v_fract_f64, d1<&ops::fract_f64, 0>},
    {op::v_frexp_exp_i16_f16, &valu_op<T::b16, T::f16, T::none, T::none, &ops::frexp_exp_i16_f16>},
    {op::v_frexp_exp_i32_f32, &valu_op<T::b32, T::f32, T::none, T::none, &ops::frexp_exp_i32_f32>},
    {op::v_frexp_exp_i32_f64, &valu_op<T::b32, T::f64, T::none, T::none, &ops::frexp_exp_i32_f64>},
    {op::v_frexp_mant_f16, g1<&ops::frexp_mant_f16, 0>},
    {op::v_frexp_mant_f32, f1<&ops::frexp_mant_f32, 0>},
    {op::v_frexp_mant_f64, d1<&ops::frexp_mant_f64, 0>},
    {op::v_ldexp_f16, &valu_op<T::f16, T::f16, T::b16, T::none, &ops::ldexp_f16, fl::arith>},
    {op::v_ldexp_f32, &valu_op<T::f32, T::f32, T::b32, T::none, &ops::ldexp_f32, fl::arith>},
    {op::v_ldexp_f64, &valu_op<T::f64, T::f64, T::b32, T::none, &ops::ldexp_f64, fl::arith>},
    {op::v_lerp_u8, b3<&ops::lerp_u8>},
    {op::v_log_f16, g1<&ops::log_f16, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_log_f32, f1<&ops::log_f32, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_log_legacy_f32, f1<&ops::log_f32, 0>, Exactness::approximate, "evaluated as v_log_f32; the legacy opcode's special cases and precision are not documented"},
    {op::v_lshl_add_u32, b3<&ops::lshl_add_u32>},
    {op::v_lshl_add_u64, &lshl_add_u64_op},
    {op::v_lshl_or_b32, b3<&ops::lshl_or_b32>},
    {op::v_lshlrev_b16, h2<&ops::lshlrev_b16>},
    {op::v_lshlrev_b32, b2<&ops::lshlrev_b32>},
    {op::v_lshlrev_b64, &valu_op<T::b64, T::b32, T::b64, T::none, &ops::lshlrev_b64>},
    {op::v_lshrrev_b16, h2<&ops::lshrrev_b16>},
    {op::v_lshrrev_b32, b2<&ops::lshrrev_b32>},
    {op::v_lshrrev_b64, &valu_op<T::b64, T::b32, T::b64, T::none, &ops::lshrrev_b64>},
    {op::v_mac_f16, g3<&ops::mad_f16, fl::arith | fl::keep_hi, Layout::mac>, Exactness::approximate, "unfused multiply-add assumed (product rounded to f16, then sum)"},
    {op::v_mac_f32, f3<&ops::mad_f32, fl::arith | fl::flush_all, Layout::mac>},
    {op::v_mad_f16, g3<&ops::mad_f16>, Exactness::approximate, "unfused multiply-add assumed (product rounded to f16, then sum)"},
    {op::v_mad_f32, f3<&ops::mad_f32, fl::arith | fl::flush_all>},
    {op::v_mad_i16, h3<&ops::mad_i16, &ops::mad_i16_sat>},
    {op::v_mad_i32_i16, &valu_op<T::b32, T::b16, T::b16, T::b32, &ops::mad_i32_i16>},
    {op::v_mad_i32_i24, b3<&ops::mad_i32_i24>},
    {op::v_mad_i64_i32, &mad64<true>},
    {op::v_mad_legacy_f16, g3<&ops::mad_f16>, Exactness::approximate, "unfused multiply-add assumed (product rounded to f16, then sum)"},
    {op::v_mad_legacy_f32, f3<&ops::mad_legacy_f32, fl::arith | fl::flush_all>},
    {op::v_mad_legacy_i16, h3<&ops::mad_i16, &ops::mad_i16_sat>},
    {op::v_mad_legacy_u16, h3<&ops::mad_u16, &ops::mad_u16_sat>},
    {op::v_mad_u16, h3<&ops::mad_u16, &ops::mad_u16_sat>},
    {op::v_mad_u32_u16, &valu_op<T::b32, T::b16, T::b16, T::b32, &ops::mad_u32_u16>},
    {op::v_mad_u32_u24, b3<&ops::mad_u32_u24>},
    {op::v_mad_u64_u32, &mad64<false>},
    {op::v_madak_f16, g3<&ops::mad_f16, fl::arith | fl::keep_hi, Layout::ak>, Exactness::approximate, "unfused multiply-add assumed (product rounded to f16, then sum)"},
    {op::v_madak_f32, f3<&ops::mad_f32, fl::arith | fl::flush_all, Layout::ak>},
    {op::v_madmk_f16, g3<&ops::mad_f16, fl::arith | fl::keep_hi, Layout::mk>, Exactness::approximate, "unfused multiply-add assumed (product rounded to f16, then sum)"},
    {op::v_madmk_f32, f3<&ops::mad_f32, fl::arith | fl::flush_all, Layout::mk>},
    {op::v_max3_f16, ieee<g3<&ops::max3_f16<true>, 0>, g3<&ops::max3_f16<false>, 0>>},
    {op::v_max3_f32, ieee<f3<&ops::max3_f32<true>, 0>, f3<&ops::max3_f32<false>, 0>>},
    {op::v_max3_i16, h3<&ops::max3_i16>},
    {op::v_max3_i32, b3<&ops::max3_i32>},
    {op::v_max3_u16, h3<&ops::max3_u16>},
    {op::v_max3_u32, b3<&ops::max3_u32>},
    {op::v_max_f16, ieee<g2<&ops::max_f16<true>, 0>, g2<&ops::max_f16<false>, 0>>},
    {op::v_max_f32, ieee<f2<&ops::max_f32<true>, 0>, f2<&ops::max_f32<false>, 0>>},
    {op::v_max_f64, ieee<d2<&ops::max_f64<true>, 0>, d2<&ops::max_f64<false>, 0>>},
    {op::v_max_i16, h2<&ops::max_i16>},
    {op::v_max_i32, b2<&ops::max_i32>},
    {op::v_max_u16, h2<&ops::max_u16>},
    {op::v_max_u32, b2<&ops::max_u32>},
    {op::v_med3_f16, ieee<g3<&ops::med3_f16<true>, 0>, g3<&ops::med3_f16<false>, 0>>},
    {op::v_med3_f32, ieee<f3<&ops::med3_f32<true>, 0>, f3<&ops::med3_f32<false>, 0>>},
    {op::v_med3_i16, h3<&ops::med3_i16>},
    {op::v_med3_i32, b3<&ops::med3_i32>},
    {op::v_med3_u16, h3<&ops::med3_u16>},
    {op::v_med3_u32, b3<&ops::med3_u32>},
    {op::v_min3_f16, ieee<g3<&ops::min3_f16<true>, 0>, g3<&ops::min3_f16<false>, 0>>},
    {op::v_min3_f32, ieee<f3<&ops::min3_f32<true>, 0>, f3<&ops::min3_f32<false>, 0>>},
    {op::v_min3_i16, h3<&ops::min3_i16>},
    {op::v_min3_i32, b3<&ops::min3_i32>},
    {op::v_min3_u16, h3<&ops::min3_u16>},
    {op::v_min3_u32, b3<&ops::min3_u32>},
    {op::v_min_f16, ieee<g2<&ops::min_f16<true>, 0>, g2<&ops::min_f16<false>, 0>>},
    {op::v_min_f32, ieee<f2<&ops::min_f32<true>, 0>, f2<&ops::min_f32<false>, 0>>},
    {op::v_min_f64, ieee<d2<&ops::min_f64<true>, 0>, d2<&ops::min_f64<false>, 0>>},
    {op::v_min_i16, h2<&ops::min_i16>},
    {op::v_min_i32, b2<&ops::min_i32>},
    {op::v_min_u16, h2<&ops::min_u16>},
    {op::v_min_u32, b2<&ops::min_u32>},
    {op::v_mov_b32, b1<&ops::mov_b32>},
    {op::v_mov_b64, &valu_op<T::b64, T::b64, T::none, T::none, &ops::mov_b64>},
    {op::v_msad_u8, b3<&ops::msad_u8>},
    {op::v_mul_f16, g2<&ops::mul_f16>},
    {op::v_mul_f32, f2<&ops::mul_f32>},
    {op::v_mul_f64, d2<&ops::mul_f64>},
    {op::v_mul_hi_i32, b2<&ops::mul_hi_i32>},
    {op::v_mul_hi_i32_i24, b2<&ops::mul_hi_i32_i24>},
    {op::v_mul_hi_u32, b2<&ops::mul_hi_u32>},
    {op::v_mul_hi_u32_u24, b2<&ops::mul_hi_u32_u24>},
    {op::v_mul_i32_i24, b2<&ops::mul_i32_i24>},
    {op::v_mul_legacy_f32, f2<&ops::mul_legacy_f32>},
    {op::v_mul_lo_i32, b2<&ops::mul_lo_u32>},
    {op::v_mul_lo_u16, h2<&ops::mul_lo_u16>},
    {op::v_mul_lo_u32, b2<&ops::mul_lo_u32>},
    {op::v_mul_u32_u24, b2<&ops::mul_u32_u24>},
    {op::v_not_b32, b1<&ops::not_b32>},
    {op::v_or3_b32, b3<&ops::or3_b32>},
    {op::v_or_b32, b2<&ops::or_b32>},
    {op::v_pack_b32_f16, &valu_op<T::b32, T::f16, T::f16, T::none, &ops::pack_b32_f16, fl::no_flush_in>},
    {op::v_perm_b32, b3<&ops::perm_b32>},
    {op::v_pk_add_f16, &pk16<2, true, &ops::add_f16, nullptr, fl::arith>},
    {op::v_pk_add_f32, &pk32<2, &ops::add_f32>},
    {op::v_pk_add_i16, &pk16<2, false, &ops::add_u16, &ops::add_i16_sat, 0>},
    {op::v_pk_add_u16, &pk16<2, false, &ops::add_u16, &ops::add_u16_sat, 0>},
    {op::v_pk_ashrrev_i16, &pk16<2, false, &ops::ashrrev_i16, nullptr, 0>},
    {op::v_pk_fma_f16, &pk16<3, true, &ops::fma_f16, nullptr, fl::arith>},
    {op::v_pk_fma_f32, &pk32<3, &ops::fma_f32>},
    {op::v_pk_fmac_f16, &pk16<3, true, &ops::fma_f16, nullptr, fl::arith | fl::mac>},
    {op::v_pk_lshlrev_b16, &pk16<2, false, &ops::lshlrev_b16, nullptr, 0>},
    {op::v_pk_lshrrev_b16, &pk16<2, false, &ops::lshrrev_b16, nullptr, 0>},
    {op::v_pk_mad_i16, &pk16<3, false, &ops::mad_i16, &ops::mad_i16_sat, 0>},
    {op::v_pk_mad_u16, &pk16<3, false, &ops::mad_u16, &ops::mad_u16_sat, 0>},
    {op::v_pk_max_f16, ieee<&pk16<2, true, &ops::max_f16<true>>, &pk16<2, true, &ops::max_f16<false>>>},
    {op::v_pk_max_i16, &pk16<2, false, &ops::max_i16, nullptr, 0>},
    {op::v_pk_max_u16, &pk16<2, false, &ops::max_u16, nullptr, 0>},
    {op::v_pk_min_f16, ieee<&pk16<2, true, &ops::min_f16<true>>, &pk16<2, true, &ops::min_f16<false>>>},
    {op::v_pk_min_i16, &pk16<2, false, &ops::min_i16, nullptr, 0>},
    {op::v_pk_min_u16, &pk16<2, false, &ops::min_u16, nullptr, 0>},
    {op::v_pk_mov_b32, &pk_mov_b32},
    {op::v_pk_mul_f16, &pk16<2, true, &ops::mul_f16, nullptr, fl::arith>},
    {op::v_pk_mul_f32, &pk32<2, &ops::mul_f32>},
    {op::v_pk_mul_lo_u16, &pk16<2, false, &ops::mul_lo_u16, nullptr, 0>},
    {op::v_pk_sub_i16, &pk16<2, false, &ops::sub_u16, &ops::sub_i16_sat, 0>},
    {op::v_pk_sub_u16, &pk16<2, false, &ops::sub_u16, &ops::sub_u16_sat, 0>},
    {op::v_rcp_f16, g1<&ops::rcp_f16, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_rcp_f32, f1<&ops::rcp_f32, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_rcp_f64, d1<&ops::rcp_f64, 0>, Exactness::approximate, "correctly rounded; hardware documents 2^29 ulp accuracy for f64 rcp/rsq/sqrt"},
    {op::v_rcp_iflag_f32, f1<&ops::rcp_f32, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_rndne_f16, g1<&ops::rndne_f16>},
    {op::v_rndne_f32, f1<&ops::rndne_f32>},
    {op::v_rndne_f64, d1<&ops::rndne_f64>},
    {op::v_rsq_f16, g1<&ops::rsq_f16, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_rsq_f32, f1<&ops::rsq_f32, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_rsq_f64, d1<&ops::rsq_f64, 0>, Exactness::approximate, "correctly rounded; hardware documents 2^29 ulp accuracy for f64 rcp/rsq/sqrt"},
    {op::v_sad_hi_u8, b3<&ops::sad_hi_u8>},
    {op::v_sad_u16, b3<&ops::sad_u16>},
    {op::v_sad_u32, b3<&ops::sad_u32>},
    {op::v_sad_u8, b3<&ops::sad_u8>},
    {op::v_sat_pk_u8_i16, b1<&ops::sat_pk_u8_i16>},
    {op::v_sin_f16, g1<&ops::sin_f16, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_sin_f32, f1<&ops::sin_f32, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_sqrt_f16, g1<&ops::sqrt_f16, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_sqrt_f32, f1<&ops::sqrt_f32, 0>, Exactness::approximate, "transcendental: correctly rounded / f64-evaluated; hardware documents 1 ulp (f32, f16) and may differ in the last bit"},
    {op::v_sqrt_f64, d1<&ops::sqrt_f64, 0>, Exactness::approximate, "correctly rounded; hardware documents 2^29 ulp accuracy for f64 rcp/rsq/sqrt"},
    {op::v_sub_co_u32, &carry_op<Carry::sub>},
    {op::v_sub_f16, g2<&ops::sub_f16>},
    {op::v_sub_f32, f2<&ops::sub_f32>},
    {op::v_sub_i16, h2<&ops::sub_u16, &ops::sub_i16_sat>},
    {op::v_sub_i32, b2<&ops::sub_u32, &ops::sub_i32_sat>},
    {op::v_sub_u16, h2<&ops::sub_u16, &ops::sub_u16_sat>},
    {op::v_sub_u32, b2<&ops::sub_u32, &ops::sub_u32_sat>},
    {op::v_subb_co_u32, &carry_op<Carry::subb>},
    {op::v_subbrev_co_u32, &carry_op<Carry::subbrev>},
    {op::v_subrev_co_u32, &carry_op<Carry::subrev>},
    {op::v_subrev_f16, g2<&ops::subrev_f16>},
    {op::v_subrev_f32, f2<&ops::subrev_f32>},
    {op::v_subrev_u16, h2<&ops::subrev_u16, &ops::subrev_u16_sat>},
    {op::v_subrev_u32, b2<&ops::subrev_u32, &ops::subrev_u32_sat>},
    {op::v_trunc_f16, g1<&ops::trunc_f16>},
    {op::v_trunc_f32, f1<&ops::trunc_f32>},
    {op::v_trunc_f64, d1<&ops::trunc_f64>},
    {op::v_xad_u32, b3<&ops::xad_u32>},
    {op::v_xnor_b32, b2<&ops::xnor_b32>},
    {op::v_xor_b32, b2<&ops::xor_b32>},
    {op::v_cmp_class_f16, &cmp_op<CT::class16, Cmp::t, false>},
    {op::v_cmp_class_f32, &cmp_op<CT::class32, Cmp::t, false>},
    {op::v_cmp_class_f64, &cmp_op<CT::class64, Cmp::t, false>},
    {op::v_cmp_eq_f16, &cmp_op<CT::f16, Cmp::eq, false>},
    {op::v_cmp_eq_f32, &cmp_op<CT::f32, Cmp::eq, false>},
    {op::v_cmp_eq_f64, &cmp_op<CT::f64, Cmp::eq, false>},
    {op::v_cmp_eq_i16, &cmp_op<CT::i16, Cmp::eq, false>},
    {op::v_cmp_eq_i32, &cmp_op<CT::i32, Cmp::eq, false>},
    {op::v_cmp_eq_i64, &cmp_op<CT::i64, Cmp::eq, false>},
    {op::v_cmp_eq_u16, &cmp_op<CT::u16, Cmp::eq, false>},
    {op::v_cmp_eq_u32, &cmp_op<CT::u32, Cmp::eq, false>},
    {op::v_cmp_eq_u64, &cmp_op<CT::u64, Cmp::eq, false>},
    {op::v_cmp_f_f16, &cmp_op<CT::f16, Cmp::f, false>},
    {op::v_cmp_f_f32, &cmp_op<CT::f32, Cmp::f, false>},
    {op::v_cmp_f_f64, &cmp_op<CT::f64, Cmp::f, false>},
    {op::v_cmp_f_i16, &cmp_op<CT::i16, Cmp::f, false>},
    {op::v_cmp_f_i32, &cmp_op<CT::i32, Cmp::f, false>},
    {op::v_cmp_f_i64, &cmp_op<CT::i64, Cmp::f, false>},
    {op::v_cmp_f_u16, &cmp_op<CT::u16, Cmp::f, false>},
    {op::v_cmp_f_u32, &cmp_op<CT::u32, Cmp::f, false>},
    {op::v_cmp_f_u64, &cmp_op<CT::u64, Cmp::f, false>},
    {op::v_cmp_ge_f16, &cmp_op<CT::f16, Cmp::ge, false>},
    {op::v_cmp_ge_f32, &cmp_op<CT::f32, Cmp::ge, false>},
    {op::v_cmp_ge_f64, &cmp_op<CT::f64, Cmp::ge, false>},
    {op::v_cmp_ge_i16, &cmp_op<CT::i16, Cmp::ge, false>},
    {op::v_cmp_ge_i32, &cmp_op<CT::i32, Cmp::ge, false>},
    {op::v_cmp_ge_i64, &cmp_op<CT::i64, Cmp::ge, false>},
    {op::v_cmp_ge_u16, &cmp_op<CT::u16, Cmp::ge, false>},
    {op::v_cmp_ge_u32, &cmp_op<CT::u32, Cmp::ge, false>},
    {op::v_cmp_ge_u64, &cmp_op<CT::u64, Cmp::ge, false>},
    {op::v_cmp_gt_f16, &cmp_op<CT::f16, Cmp::gt, false>},
    {op::v_cmp_gt_f32, &cmp_op<CT::f32, Cmp::gt, false>},
    {op::v_cmp_gt_f64, &cmp_op<CT::f64, Cmp::gt, false>},
    {op::v_cmp_gt_i16, &cmp_op<CT::i16, Cmp::gt, false>},
    {op::v_cmp_gt_i32, &cmp_op<CT::i32, Cmp::gt, false>},
    {op::v_cmp_gt_i64, &cmp_op<CT::i64, Cmp::gt, false>},
    {op::v_cmp_gt_u16, &cmp_op<CT::u16, Cmp::gt, false>},
    {op::v_cmp_gt_u32, &cmp_op<CT::u32, Cmp::gt, false>},
    {op::v_cmp_gt_u64, &cmp_op<CT::u64, Cmp::gt, false>},
    {op::v_cmp_le_f16, &cmp_op<CT::f16, Cmp::le, false>},
    {op::v_cmp_le_f32, &cmp_op<CT::f32, Cmp::le, false>},
    {op::v_cmp_le_f64, &cmp_op<CT::f64, Cmp::le, false>},
    {op::v_cmp_le_i16, &cmp_op<CT::i16, Cmp::le, false>},
    {op::v_cmp_le_i32, &cmp_op<CT::i32, Cmp::le, false>},
    {op::v_cmp_le_i64, &cmp_op<CT::i64, Cmp::le, false>},
    {op::v_cmp_le_u16, &cmp_op<CT::u16, Cmp::le, false>},
    {op::v_cmp_le_u32, &cmp_op<CT::u32, Cmp::le, false>},
    {op::v_cmp_le_u64, &cmp_op<CT::u64, Cmp::le, false>},
    {op::v_cmp_lg_f16, &cmp_op<CT::f16, Cmp::lg, false>},
    {op::v_cmp_lg_f32, &cmp_op<CT::f32, Cmp::lg, false>},
    {op::v_cmp_lg_f64, &cmp_op<CT::f64, Cmp::lg, false>},
    {op::v_cmp_lt_f16, &cmp_op<CT::f16, Cmp::lt, false>},
    {op::v_cmp_lt_f32, &cmp_op<CT::f32, Cmp::lt, false>},
    {op::v_cmp_lt_f64, &cmp_op<CT::f64, Cmp::lt, false>},
    {op::v_cmp_lt_i16, &cmp_op<CT::i16, Cmp::lt, false>},
    {op::v_cmp_lt_i32, &cmp_op<CT::i32, Cmp::lt, false>},
    {op::v_cmp_lt_i64, &cmp_op<CT::i64, Cmp::lt, false>},
    {op::v_cmp_lt_u16, &cmp_op<CT::u16, Cmp::lt, false>},
    {op::v_cmp_lt_u32, &cmp_op<CT::u32, Cmp::lt, false>},
    {op::v_cmp_lt_u64, &cmp_op<CT::u64, Cmp::lt, false>},
    {op::v_cmp_ne_i16, &cmp_op<CT::i16, Cmp::ne_int, false>},
    {op::v_cmp_ne_i32, &cmp_op<CT::i32, Cmp::ne_int, false>},
    {op::v_cmp_ne_i64, &cmp_op<CT::i64, Cmp::ne_int, false>},
    {op::v_cmp_ne_u16, &cmp_op<CT::u16, Cmp::ne_int, false>},
    {op::v_cmp_ne_u32, &cmp_op<CT::u32, Cmp::ne_int, false>},
    {op::v_cmp_ne_u64, &cmp_op<CT::u64, Cmp::ne_int, false>},
    {op::v_cmp_neq_f16, &cmp_op<CT::f16, Cmp::neq, false>},
    {op::v_cmp_neq_f32, &cmp_op<CT::f32, Cmp::neq, false>},
    {op::v_cmp_neq_f64, &cmp_op<CT::f64, Cmp::neq, false>},
    {op::v_cmp_nge_f16, &cmp_op<CT::f16, Cmp::nge, false>},
    {op::v_cmp_nge_f32, &cmp_op<CT::f32, Cmp::nge, false>},
    {op::v_cmp_nge_f64, &cmp_op<CT::f64, Cmp::nge, false>},
    {op::v_cmp_ngt_f16, &cmp_op<CT::f16, Cmp::ngt, false>},
    {op::v_cmp_ngt_f32, &cmp_op<CT::f32, Cmp::ngt, false>},
    {op::v_cmp_ngt_f64, &cmp_op<CT::f64, Cmp::ngt, false>},
    {op::v_cmp_nle_f16, &cmp_op<CT::f16, Cmp::nle, false>},
    {op::v_cmp_nle_f32, &cmp_op<CT::f32, Cmp::nle, false>},
    {op::v_cmp_nle_f64, &cmp_op<CT::f64, Cmp::nle, false>},
    {op::v_cmp_nlg_f16, &cmp_op<CT::f16, Cmp::nlg, false>},
    {op::v_cmp_nlg_f32, &cmp_op<CT::f32, Cmp::nlg, false>},
    {op::v_cmp_nlg_f64, &cmp_op<CT::f64, Cmp::nlg, false>},
    {op::v_cmp_nlt_f16, &cmp_op<CT::f16, Cmp::nlt, false>},
    {op::v_cmp_nlt_f32, &cmp_op<CT::f32, Cmp::nlt, false>},
    {op::v_cmp_nlt_f64, &cmp_op<CT::f64, Cmp::nlt, false>},
    {op::v_cmp_o_f16, &cmp_op<CT::f16, Cmp::o, false>},
    {op::v_cmp_o_f32, &cmp_op<CT::f32, Cmp::o, false>},
    {op::v_cmp_o_f64, &cmp_op<CT::f64, Cmp::o, false>},
    {op::v_cmp_t_i16, &cmp_op<CT::i16, Cmp::t, false>},
    {op::v_cmp_t_i32, &cmp_op<CT::i32, Cmp::t, false>},
    {op::v_cmp_t_i64, &cmp_op<CT::i64, Cmp::t, false>},
    {op::v_cmp_t_u16, &cmp_op<CT::u16, Cmp::t, false>},
    {op::v_cmp_t_u32, &cmp_op<CT::u32, Cmp::t, false>},
    {op::v_cmp_t_u64, &cmp_op<CT::u64, Cmp::t, false>},
    {op::v_cmp_tru_f16, &cmp_op<CT::f16, Cmp::tru, false>},
    {op::v_cmp_tru_f32, &cmp_op<CT::f32, Cmp::tru, false>},
    {op::v_cmp_tru_f64, &cmp_op<CT::f64, Cmp::tru, false>},
    {op::v_cmp_u_f16, &cmp_op<CT::f16, Cmp::u, false>},
    {op::v_cmp_u_f32, &cmp_op<CT::f32, Cmp::u, false>},
    {op::v_cmp_u_f64, &cmp_op<CT::f64, Cmp::u, false>},
    {op::v_cmpx_class_f16, &cmp_op<CT::class16, Cmp::t, true>},
    {op::v_cmpx_class_f32, &cmp_op<CT::class32, Cmp::t, true>},
    {op::v_cmpx_class_f64, &cmp_op<CT::class64, Cmp::t, true>},
    {op::v_cmpx_eq_f16, &cmp_op<CT::f16, Cmp::eq, true>},
    {op::v_cmpx_eq_f32, &cmp_op<CT::f32, Cmp::eq, true>},
    {op::v_cmpx_eq_f64, &cmp_op<CT::f64, Cmp::eq, true>},
    {op::v_cmpx_eq_i16, &cmp_op<CT::i16, Cmp::eq, true>},
    {op::v_cmpx_eq_i32, &cmp_op<CT::i32, Cmp::eq, true>},
    {op::v_cmpx_eq_i64, &cmp_op<CT::i64, Cmp::eq, true>},
    {op::v_cmpx_eq_u16, &cmp_op<CT::u16, Cmp::eq, true>},
    {op::v_cmpx_eq_u32, &cmp_op<CT::u32, Cmp::eq, true>},
    {op::v_cmpx_eq_u64, &cmp_op<CT::u64, Cmp::eq, true>},
    {op::v_cmpx_f_f16, &cmp_op<CT::f16, Cmp::f, true>},
    {op::v_cmpx_f_f32, &cmp_op<CT::f32, Cmp::f, true>},
    {op::v_cmpx_f_f64, &cmp_op<CT::f64, Cmp::f, true>},
    {op::v_cmpx_f_i16, &cmp_op<CT::i16, Cmp::f, true>},
    {op::v_cmpx_f_i32, &cmp_op<CT::i32, Cmp::f, true>},
    {op::v_cmpx_f_i64, &cmp_op<CT::i64, Cmp::f, true>},
    {op::v_cmpx_f_u16, &cmp_op<CT::u16, Cmp::f, true>},
    {op::v_cmpx_f_u32, &cmp_op<CT::u32, Cmp::f, true>},
    {op::v_cmpx_f_u64, &cmp_op<CT::u64, Cmp::f, true>},
    {op::v_cmpx_ge_f16, &cmp_op<CT::f16, Cmp::ge, true>},
    {op::v_cmpx_ge_f32, &cmp_op<CT::f32, Cmp::ge, true>},
    {op::v_cmpx_ge_f64, &cmp_op<CT::f64, Cmp::ge, true>},
    {op::v_cmpx_ge_i16, &cmp_op<CT::i16, Cmp::ge, true>},
    {op::v_cmpx_ge_i32, &cmp_op<CT::i32, Cmp::ge, true>},
    {op::v_cmpx_ge_i64, &cmp_op<CT::i64, Cmp::ge, true>},
    {op::v_cmpx_ge_u16, &cmp_op<CT::u16, Cmp::ge, true>},
    {op::v_cmpx_ge_u32, &cmp_op<CT::u32, Cmp::ge, true>},
    {op::v_cmpx_ge_u64, &cmp_op<CT::u64, Cmp::ge, true>},
    {op::v_cmpx_gt_f16, &cmp_op<CT::f16, Cmp::gt, true>},
    {op::v_cmpx_gt_f32, &cmp_op<CT::f32, Cmp::gt, true>},
    {op::v_cmpx_gt_f64, &cmp_op<CT::f64, Cmp::gt, true>},
    {op::v_cmpx_gt_i16, &cmp_op<CT::i16, Cmp::gt, true>},
    {op::v_cmpx_gt_i32, &cmp_op<CT::i32, Cmp::gt, true>},
    {op::v_cmpx_gt_i64, &cmp_op<CT::i64, Cmp::gt, true>},
    {op::v_cmpx_gt_u16, &cmp_op<CT::u16, Cmp::gt, true>},
    {op::v_cmpx_gt_u32, &cmp_op<CT::u32, Cmp::gt, true>},
    {op::v_cmpx_gt_u64, &cmp_op<CT::u64, Cmp::gt, true>},
    {op::v_cmpx_le_f16, &cmp_op<CT::f16, Cmp::le, true>},
    {op::v_cmpx_le_f32, &cmp_op<CT::f32, Cmp::le, true>},
    {op::v_cmpx_le_f64, &cmp_op<CT::f64, Cmp::le, true>},
    {op::v_cmpx_le_i16, &cmp_op<CT::i16, Cmp::le, true>},
    {op::v_cmpx_le_i32, &cmp_op<CT::i32, Cmp::le, true>},
    {op::v_cmpx_le_i64, &cmp_op<CT::i64, Cmp::le, true>},
    {op::v_cmpx_le_u16, &cmp_op<CT::u16, Cmp::le, true>},
    {op::v_cmpx_le_u32, &cmp_op<CT::u32, Cmp::le, true>},
    {op::v_cmpx_le_u64, &cmp_op<CT::u64, Cmp::le, true>},
    {op::v_cmpx_lg_f16, &cmp_op<CT::f16, Cmp::lg, true>},
    {op::v_cmpx_lg_f32, &cmp_op<CT::f32, Cmp::lg, true>},
    {op::v_cmpx_lg_f64, &cmp_op<CT::f64, Cmp::lg, true>},
    {op::v_cmpx_lt_f16, &cmp_op<CT::f16, Cmp::lt, true>},
    {op::v_cmpx_lt_f32, &cmp_op<CT::f32, Cmp::lt, true>},
    {op::v_cmpx_lt_f64, &cmp_op<CT::f64, Cmp::lt, true>},
    {op::v_cmpx_lt_i16, &cmp_op<CT::i16, Cmp::lt, true>},
    {op::v_cmpx_lt_i32, &cmp_op<CT::i32, Cmp::lt, true>},
    {op::v_cmpx_lt_i64, &cmp_op<CT::i64, Cmp::lt, true>},
    {op::v_cmpx_lt_u16, &cmp_op<CT::u16, Cmp::lt, true>},
    {op::v_cmpx_lt_u32, &cmp_op<CT::u32, Cmp::lt, true>},
    {op::v_cmpx_lt_u64, &cmp_op<CT::u64, Cmp::lt, true>},
    {op::v_cmpx_ne_i16, &cmp_op<CT::i16, Cmp::ne_int, true>},
    {op::v_cmpx_ne_i32, &cmp_op<CT::i32, Cmp::ne_int, true>},
    {op::v_cmpx_ne_i64, &cmp_op<CT::i64, Cmp::ne_int, true>},
    {op::v_cmpx_ne_u16, &cmp_op<CT::u16, Cmp::ne_int, true>},
    {op::v_cmpx_ne_u32, &cmp_op<CT::u32, Cmp::ne_int, true>},
    {op::v_cmpx_ne_u64, &cmp_op<CT::u64, Cmp::ne_int, true>},
    {op::v_cmpx_neq_f16, &cmp_op<CT::f16, Cmp::neq, true>},
    {op::v_cmpx_neq_f32, &cmp_op<CT::f32, Cmp::neq, true>},
    {op::v_cmpx_neq_f64, &cmp_op<CT::f64, Cmp::neq, true>},
    {op::v_cmpx_nge_f16, &cmp_op<CT::f16, Cmp::nge, true>},
    {op::v_cmpx_nge_f32, &cmp_op<CT::f32, Cmp::nge, true>},
    {op::v_cmpx_nge_f64, &cmp_op<CT::f64, Cmp::nge, true>},
    {op::v_cmpx_ngt_f16, &cmp_op<CT::f16, Cmp::ngt, true>},
    {op::v_cmpx_ngt_f32, &cmp_op<CT::f32, Cmp::ngt, true>},
    {op::v_cmpx_ngt_f64, &cmp_op<CT::f64, Cmp::ngt, true>},
    {op::v_cmpx_nle_f16, &cmp_op<CT::f16, Cmp::nle, true>},
    {op::v_cmpx_nle_f32, &cmp_op<CT::f32, Cmp::nle, true>},
    {op::v_cmpx_nle_f64, &cmp_op<CT::f64, Cmp::nle, true>},
    {op::v_cmpx_nlg_f16, &cmp_op<CT::f16, Cmp::nlg, true>},
    {op::v_cmpx_nlg_f32, &cmp_op<CT::f32, Cmp::nlg, true>},
    {op::v_cmpx_nlg_f64, &cmp_op<CT::f64, Cmp::nlg, true>},
    {op::v_cmpx_nlt_f16, &cmp_op<CT::f16, Cmp::nlt, true>},
    {op::v_cmpx_nlt_f32, &cmp_op<CT::f32, Cmp::nlt, true>},
    {op::v_cmpx_nlt_f64, &cmp_op<CT::f64, Cmp::nlt, true>},
    {op::v_cmpx_o_f16, &cmp_op<CT::f16, Cmp::o, true>},
    {op::v_cmpx_o_f32, &cmp_op<CT::f32, Cmp::o, true>},
    {op::v_cmpx_o_f64, &cmp_op<CT::f64, Cmp::o, true>},
    {op::v_cmpx_t_i16, &cmp_op<CT::i16, Cmp::t, true>},
    {op::v_cmpx_t_i32, &cmp_op<CT::i32, Cmp::t, true>},
    {op::v_cmpx_t_i64, &cmp_op<CT::i64, Cmp::t, true>},
    {op::v_cmpx_t_u16, &cmp_op<CT::u16, Cmp::t, true>},
    {op::v_cmpx_t_u32, &cmp_op<CT::u32, Cmp::t, true>},
    {op::v_cmpx_t_u64, &cmp_op<CT::u64, Cmp::t, true>},
    {op::v_cmpx_tru_f16, &cmp_op<CT::f16, Cmp::tru, true>},
    {op::v_cmpx_tru_f32, &cmp_op<CT::f32, Cmp::tru, true>},
    {op::v_cmpx_tru_f64, &cmp_op<CT::f64, Cmp::tru, true>},
    {op::v_cmpx_u_f16, &cmp_op<CT::f16, Cmp::u, true>},
    {op::v_cmpx_u_f32, &cmp_op<CT::f32, Cmp::u, true>},
    {op::v_cmpx_u_f64, &cmp_op<CT::f64, Cmp::u, true>},
};

}  // namespace detail::valu

/// Every VALU opcode this emulator implements, with its handler.
[[nodiscard]] inline std::span<const Semantics> valu_semantics() { return detail::valu::valu_table; }

}  // namespace asmevo::emu
