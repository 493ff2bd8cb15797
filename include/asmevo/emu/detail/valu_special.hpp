// VALU handlers whose shape does not fit the generic one-result-per-lane template: carry chains, v_cndmask, VOPC
// compares, division macros, 64-bit multiply-add, VOP3P packed math, fma_mix, dot products and fp8 conversions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "asmevo/emu/detail/valu_core.hpp"
#include "asmevo/emu/detail/valu_float.hpp"
#include "asmevo/emu/detail/valu_int.hpp"
#include "asmevo/emu/fp_valu.hpp"

namespace asmevo::emu::detail::valu {

/// Runs `Ieee` or `NonIeee` by MODE.IEEE (bit 9), which changes min/max NaN handling [MODE].
template <Exec Ieee, Exec NonIeee>
inline void by_ieee(Wave& w, const Op& op) {
  if (w.mode & 0x200u) Ieee(w, op); else NonIeee(w, op);
}

/// A 64-lane mask source (VCC, an SGPR pair, or a constant).
[[nodiscard]] inline LaneMask mask_src(const Wave& w, const Slot& s) noexcept {
  if (s.kind == Slot::Kind::scalar || s.kind == Slot::Kind::constant) return w.scalar64(s);
  return w.scalar32(s) ? all_lanes : 0;
}

// ---- carry chains -----------------------------------------------------------------------------------------------

enum class Carry : u8 { add, sub, subrev, addc, subb, subbrev };

/// v_add_co_u32, v_sub_co_u32, v_subrev_co_u32 (carry/borrow out) and v_addc_co_u32, v_subb_co_u32,
/// v_subbrev_co_u32 (carry/borrow in from src2, out to sdst) [ISA "VCC = carry out", "borrow"]. The carry-out mask
/// has 0 for inactive lanes (MI300 ISA §6: VALU writes of an SGPR mask clear bits of inactive lanes). The clamp bit
/// saturates the 32-bit result (unsigned) [ISA "Supports saturation (unsigned 32-bit integer domain)"].
template <Carry K>
inline void carry_op(Wave& w, const Op& op) {
  alignas(64) u32 ta[wave_lanes], tb[wave_lanes], r[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), ta);
  const u32* b = w.lanes(op.at(Name::src1), tb);
  LaneMask cin = 0;
  if constexpr (K == Carry::addc || K == Carry::subb || K == Carry::subbrev) cin = mask_src(w, op.at(Name::src2));
  const bool clamp = op.imm(Name::clamp) != 0;
  const LaneMask exec = w.exec();
  LaneMask cout = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const u64 x = a[l], y = b[l], ci = (cin >> l) & 1u;
    u64 t = 0;
    bool c = false;
    if constexpr (K == Carry::add || K == Carry::addc) { t = x + y + ci; c = t >> 32; if (clamp && c) t = 0xffffffffu; }
    else if constexpr (K == Carry::sub || K == Carry::subb) { t = x - y - ci; c = y + ci > x; if (clamp && c) t = 0; }
    else { t = y - x - ci; c = x + ci > y; if (clamp && c) t = 0; }
    r[l] = static_cast<u32>(t);
    cout |= static_cast<LaneMask>(c) << l;
  }
  if (vdst(op).kind == Slot::Kind::vgpr) store32(w, vdst(op).index, r, exec);
  w.write_scalar(op.at(Name::sdst), cout & exec);
}

// ---- v_cndmask_b32 ------------------------------------------------------------------------------------------------

/// [ISA V_CNDMASK_B32 "D.u = VCC[laneId] ? S1.u : S0.u"]; the VOP3 form takes the mask from src2 and allows
/// abs/neg on the sources (applied to bit 31, as LLVM selects it for fneg/fabs of a select).
inline void cndmask_b32(Wave& w, const Op& op) {
  alignas(64) u32 ta[wave_lanes], tb[wave_lanes], r[wave_lanes];
  const Slot& s0 = op.at(Name::src0);
  const Slot& s1 = op.at(Name::src1);
  const u32* a = read_src<T::f32>(w, s0, ta, false, s0.mods, false);
  const u32* b = read_src<T::f32>(w, s1, tb, false, s1.mods, false);
  const LaneMask m = mask_src(w, op.at(Name::src2));
  for (unsigned l = 0; l < wave_lanes; ++l) r[l] = ((m >> l) & 1u) ? b[l] : a[l];
  if (vdst(op).kind == Slot::Kind::vgpr) store32(w, vdst(op).index, r, w.exec());
}

// ---- VOPC ---------------------------------------------------------------------------------------------------------

/// Compare predicates in the ISA's order (MI300 ISA "VOPC": F, LT, EQ, LE, GT, LG/NE, GE, O, U, NGE, NLG, NGT,
/// NLE, NEQ, NLT, TRU). The N* forms are true for unordered operands; LG and O/... false.
enum class Cmp : u8 { f, lt, eq, le, gt, lg, ge, o, u, nge, nlg, ngt, nle, neq, nlt, tru, ne_int, t };

template <Cmp P, class V>
[[nodiscard]] constexpr bool cmp_float(V x, V y) noexcept {
  const bool un = std::isnan(x) || std::isnan(y);
  switch (P) {
    case Cmp::f: return false;
    case Cmp::lt: return x < y;
    case Cmp::eq: return x == y;
    case Cmp::le: return x <= y;
    case Cmp::gt: return x > y;
    case Cmp::lg: return x < y || x > y;
    case Cmp::ge: return x >= y;
    case Cmp::o: return !un;
    case Cmp::u: return un;
    case Cmp::nge: return !(x >= y);
    case Cmp::nlg: return !(x < y || x > y);
    case Cmp::ngt: return !(x > y);
    case Cmp::nle: return !(x <= y);
    case Cmp::neq: return !(x == y);
    case Cmp::nlt: return !(x < y);
    default: return true;
  }
}
template <Cmp P, class V>
[[nodiscard]] constexpr bool cmp_int(V x, V y) noexcept {
  switch (P) {
    case Cmp::f: return false;
    case Cmp::lt: return x < y;
    case Cmp::eq: return x == y;
    case Cmp::le: return x <= y;
    case Cmp::gt: return x > y;
    case Cmp::ne_int: return x != y;
    case Cmp::ge: return x >= y;
    default: return true;  // t
  }
}

/// Operand kinds of compares.
enum class CT : u8 { f16, f32, f64, i16, u16, i32, u32, i64, u64, class16, class32, class64 };

/// Writes a compare result: sdst (VCC for e32) gets the mask with inactive lanes 0; v_cmpx also writes EXEC
/// (MI300 ISA "VOPC": "V_CMPX ... write the result to EXEC" — gfx9 v_cmpx also writes its SGPR destination).
inline void write_cmp(Wave& w, const Op& op, LaneMask m, bool x) {
  const LaneMask r = m & w.exec();
  w.write_scalar(op.at(Name::sdst), r);
  if (x) w.set_exec(r);
}

/// RunOptions::log_compares: the value of a compare's wave-uniform operand (lane 0 of what the compare read).
template <class U>
inline void log_uniform(Wave& w, const Slot& s, const U* v) {
  if (w.machine->options.log_compares && !s.is_vgpr()) w.machine->log_compared(static_cast<u32>(v[0]));
}

template <CT K, Cmp P, bool X>
inline void cmp_op(Wave& w, const Op& op) {
  if (op.imm(Name::clamp)) return unsupported(w, op, "the clamp modifier on a compare");
  const Slot& s0 = op.at(Name::src0);
  const Slot& s1 = op.at(Name::src1);
  LaneMask m = 0;
  const FpEnv env = fp_env(w);
  if constexpr (K == CT::f32 || K == CT::class32) {
    alignas(64) u32 ta[wave_lanes], tb[wave_lanes];
    const u32* a = read_src<T::f32>(w, s0, ta, false, s0.mods, !env.in32);
    if constexpr (K == CT::f32) {
      const u32* b = read_src<T::f32>(w, s1, tb, false, s1.mods, !env.in32);
      log_uniform(w, s0, a), log_uniform(w, s1, b);
      for (unsigned l = 0; l < wave_lanes; ++l) m |= static_cast<LaneMask>(cmp_float<P>(fp::f32(a[l]), fp::f32(b[l]))) << l;
    } else {
      // v_cmp_class does not flush: it classifies denormals [ISA V_CMP_CLASS_F32 mask bits 4/7].
      a = read_src<T::f32>(w, s0, ta, false, s0.mods, false);
      const u32* b = w.lanes(s1, tb);
      for (unsigned l = 0; l < wave_lanes; ++l) m |= static_cast<LaneMask>((fp::class_bit_f32(a[l]) & b[l]) != 0) << l;
    }
  } else if constexpr (K == CT::f64 || K == CT::class64) {
    alignas(64) u64 ta[wave_lanes];
    alignas(64) u32 tb32[wave_lanes];
    alignas(64) u64 tb[wave_lanes];
    const u64* a = read_src<T::f64>(w, s0, ta, false, s0.mods, K == CT::f64 && !env.in16);
    if constexpr (K == CT::f64) {
      const u64* b = read_src<T::f64>(w, s1, tb, false, s1.mods, !env.in16);
      for (unsigned l = 0; l < wave_lanes; ++l) m |= static_cast<LaneMask>(cmp_float<P>(fp::f64(a[l]), fp::f64(b[l]))) << l;
    } else {
      const u32* b = w.lanes(s1, tb32);
      for (unsigned l = 0; l < wave_lanes; ++l) m |= static_cast<LaneMask>((fp::class_bit_f64(a[l]) & b[l]) != 0) << l;
    }
  } else if constexpr (K == CT::f16 || K == CT::class16) {
    alignas(64) u16 ta[wave_lanes], tb[wave_lanes];
    alignas(64) u32 tb32[wave_lanes];
    const u16* a = read_src<T::f16>(w, s0, ta, false, s0.mods, K == CT::f16 && !env.in16);
    if constexpr (K == CT::f16) {
      const u16* b = read_src<T::f16>(w, s1, tb, false, s1.mods, !env.in16);
      log_uniform(w, s0, a), log_uniform(w, s1, b);
      for (unsigned l = 0; l < wave_lanes; ++l)
        m |= static_cast<LaneMask>(cmp_float<P>(fp::f16_to_f32(a[l]), fp::f16_to_f32(b[l]))) << l;
    } else {
      const u32* b = w.lanes(s1, tb32);
      for (unsigned l = 0; l < wave_lanes; ++l) m |= static_cast<LaneMask>((fp::class_bit_f16(a[l]) & b[l]) != 0) << l;
    }
  } else if constexpr (K == CT::i16 || K == CT::u16) {
    alignas(64) u16 ta[wave_lanes], tb[wave_lanes];
    const u16* a = read_src<T::b16>(w, s0, ta, false, 0, false);
    const u16* b = read_src<T::b16>(w, s1, tb, false, 0, false);
    log_uniform(w, s0, a), log_uniform(w, s1, b);
    for (unsigned l = 0; l < wave_lanes; ++l) {
      const bool c = K == CT::i16 ? cmp_int<P>(static_cast<i16>(a[l]), static_cast<i16>(b[l])) : cmp_int<P>(a[l], b[l]);
      m |= static_cast<LaneMask>(c) << l;
    }
  } else if constexpr (K == CT::i32 || K == CT::u32) {
    alignas(64) u32 ta[wave_lanes], tb[wave_lanes];
    const u32* a = w.lanes(s0, ta);
    const u32* b = w.lanes(s1, tb);
    log_uniform(w, s0, a), log_uniform(w, s1, b);
    for (unsigned l = 0; l < wave_lanes; ++l) {
      const bool c = K == CT::i32 ? cmp_int<P>(static_cast<i32>(a[l]), static_cast<i32>(b[l])) : cmp_int<P>(a[l], b[l]);
      m |= static_cast<LaneMask>(c) << l;
    }
  } else {
    alignas(64) u64 ta[wave_lanes], tb[wave_lanes];
    const u64* a = read_src<T::b64>(w, s0, ta, false, 0, false);
    const u64* b = read_src<T::b64>(w, s1, tb, false, 0, false);
    for (unsigned l = 0; l < wave_lanes; ++l) {
      const bool c = K == CT::i64 ? cmp_int<P>(static_cast<i64>(a[l]), static_cast<i64>(b[l])) : cmp_int<P>(a[l], b[l]);
      m |= static_cast<LaneMask>(c) << l;
    }
  }
  write_cmp(w, op, m, X);
}

// ---- division macros ------------------------------------------------------------------------------------------

/// v_div_scale_f32/f64: vdst = scaled S0, sdst (VCC) = per-lane flag (0 for inactive lanes) [ISA V_DIV_SCALE_F32].
/// Inputs are not flushed (the macro handles denormals itself; fp.hpp div_scale).
template <bool F64>
inline void div_scale(Wave& w, const Op& op) {
  using U = std::conditional_t<F64, u64, u32>;
  constexpr T t = F64 ? T::f64 : T::f32;
  const FpEnv env = fp_env(w);
  if (!round_ok(w, op, env, t)) return;
  if (op.imm(Name::omod) || op.imm(Name::clamp)) return unsupported(w, op, "omod/clamp on v_div_scale");
  alignas(64) U t0[wave_lanes], t1[wave_lanes], t2[wave_lanes], r[wave_lanes];
  const Slot &s0 = op.at(Name::src0), &s1 = op.at(Name::src1), &s2 = op.at(Name::src2);
  const U* a = read_src<t>(w, s0, t0, false, s0.mods, false);
  const U* b = read_src<t>(w, s1, t1, false, s1.mods, false);
  const U* c = read_src<t>(w, s2, t2, false, s2.mods, false);
  LaneMask vcc = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if constexpr (F64) {
      const auto d = fp::div_scale_f64(fp::f64(a[l]), fp::f64(b[l]), fp::f64(c[l]));
      r[l] = fp::bits64(d.value);
      vcc |= static_cast<LaneMask>(d.vcc) << l;
    } else {
      const auto d = fp::div_scale_f32(fp::f32(a[l]), fp::f32(b[l]), fp::f32(c[l]));
      r[l] = fp::bits(d.value);
      vcc |= static_cast<LaneMask>(d.vcc) << l;
    }
  }
  fix_nans<true, true, true>(r, a, b, c);
  const LaneMask exec = w.exec();
  if (vdst(op).kind == Slot::Kind::vgpr) {
    if constexpr (F64) store64(w, vdst(op).index, r, exec); else store32(w, vdst(op).index, r, exec);
  }
  w.write_scalar(op.at(Name::sdst), vcc & exec);
}

/// v_div_fmas_f32/f64: fma scaled by 2^+-64 (2^+-128) where VCC is set (read implicitly) [ISA V_DIV_FMAS_F32].
template <bool F64>
inline void div_fmas(Wave& w, const Op& op) {
  using U = std::conditional_t<F64, u64, u32>;
  constexpr T t = F64 ? T::f64 : T::f32;
  const FpEnv env = fp_env(w);
  if (!round_ok(w, op, env, t)) return;
  if (op.imm(Name::omod)) return unsupported(w, op, "omod on v_div_fmas");
  alignas(64) U t0[wave_lanes], t1[wave_lanes], t2[wave_lanes], r[wave_lanes];
  const Slot &s0 = op.at(Name::src0), &s1 = op.at(Name::src1), &s2 = op.at(Name::src2);
  const bool fz = !keep_in(env, t);
  const U* a = read_src<t>(w, s0, t0, false, s0.mods, fz);
  const U* b = read_src<t>(w, s1, t1, false, s1.mods, fz);
  const U* c = read_src<t>(w, s2, t2, false, s2.mods, fz);
  const LaneMask vcc = w.vcc();
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const bool v = (vcc >> l) & 1u;
    if constexpr (F64) r[l] = fp::bits64(fp::div_fmas_f64(fp::f64(a[l]), fp::f64(b[l]), fp::f64(c[l]), v));
    else r[l] = fp::bits(fp::div_fmas_f32(fp::f32(a[l]), fp::f32(b[l]), fp::f32(c[l]), v));
  }
  fix_nans<true, true, true>(r, a, b, c);
  post_float<t>(r, 0, op.imm(Name::clamp) != 0, !keep_out(env, t), env.dx10);
  if (vdst(op).kind != Slot::Kind::vgpr) return;
  if constexpr (F64) store64(w, vdst(op).index, r, w.exec()); else store32(w, vdst(op).index, r, w.exec());
}

// ---- 64-bit multiply-add with carry out -----------------------------------------------------------------------

/// [ISA V_MAD_U64_U32 "{vcc_out, D.u64} = S0.u32 * S1.u32 + S2.u64"], V_MAD_I64_I32 likewise signed; the carry
/// out is bit 64 of the 65-bit sum (0 for inactive lanes).
template <bool Signed>
inline void mad64(Wave& w, const Op& op) {
  if (op.imm(Name::clamp)) return unsupported(w, op, "the clamp modifier");
  alignas(64) u32 ta[wave_lanes], tb[wave_lanes];
  alignas(64) u64 tc[wave_lanes], r[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), ta);
  const u32* b = w.lanes(op.at(Name::src1), tb);
  const u64* c = read_src<T::b64>(w, op.at(Name::src2), tc, false, 0, false);
  LaneMask cout = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if constexpr (Signed) {
      const __int128 s = static_cast<__int128>(static_cast<i64>(static_cast<i32>(a[l])) * static_cast<i32>(b[l])) +
                         static_cast<i64>(c[l]);
      r[l] = static_cast<u64>(s);
      cout |= static_cast<LaneMask>((static_cast<unsigned __int128>(s) >> 64) & 1u) << l;
    } else {
      const unsigned __int128 s = static_cast<unsigned __int128>(static_cast<u64>(a[l]) * b[l]) + c[l];
      r[l] = static_cast<u64>(s);
      cout |= static_cast<LaneMask>(static_cast<u64>(s >> 64) & 1u) << l;
    }
  }
  const LaneMask exec = w.exec();
  if (vdst(op).kind == Slot::Kind::vgpr) store64(w, vdst(op).index, r, exec);
  w.write_scalar(op.at(Name::sdst), cout & exec);
}

// ---- VOP3P packed 16-bit ------------------------------------------------------------------------------------------

/// Packed 16-bit ops [ISA §"VOP3P"]: for each source i, the low-half operation reads half op_sel[i] and the
/// high-half operation reads half op_sel_hi[i]; neg_lo[i] / neg_hi[i] negate the f16 value read for the low / high
/// operation (float ops only). Clamp: float results to [0, 1]; integer results saturate (FnSat).
/// src0, src1, src2.
[[nodiscard]] inline const Name* names3() noexcept {
  static constexpr Name n[3] = {Name::src0, Name::src1, Name::src2};
  return n;
}

template <unsigned N, bool Float, auto Fn, auto FnSat = nullptr, unsigned Fl = 0>
inline void pk16(Wave& w, const Op& op) {
  const FpEnv env = fp_env(w);
  if constexpr (Float) if (!round_ok(w, op, env, T::f16)) return;
  const unsigned sel = static_cast<unsigned>(op.imm(Name::op_sel));
  // Forms without an op_sel_hi operand (v_pk_fmac_f16's VOP2 encoding) read the high halves for the high result.
  const unsigned selhi = op.has(Name::op_sel_hi) ? static_cast<unsigned>(op.imm(Name::op_sel_hi)) : 7u;
  const unsigned nlo = static_cast<unsigned>(op.imm(Name::neg_lo));
  const unsigned nhi = static_cast<unsigned>(op.imm(Name::neg_hi));
  const bool clamp = op.imm(Name::clamp) != 0;
  // The VOP3 (e64) and DPP encodings of v_pk_fmac_f16 carry VOP3-style abs/neg source modifiers and omod, whose
  // meaning for a packed operand the ISA guide does not spell out: refuse them rather than guess.
  if (op.imm(Name::omod)) return unsupported(w, op, "the omod output modifier on a packed op");
  for (unsigned i = 0; i < N; ++i)
    if (op.at(names3()[i]).mods & 3u) return unsupported(w, op, "abs/neg source modifiers on a packed operand");
  if constexpr (!Float) {
    if (nlo | nhi) return unsupported(w, op, "neg_lo/neg_hi on an integer packed op");
    if constexpr (std::is_same_v<decltype(FnSat), std::nullptr_t>) if (clamp) return unsupported(w, op, "the clamp modifier");
  }
  alignas(64) u16 lo[3][wave_lanes], hi[3][wave_lanes];
  static constexpr Name names[3] = {Name::src0, Name::src1, Name::src2};
  const bool fz = Float && !keep_in(env, T::f16);
  for (unsigned i = 0; i < N; ++i) {
    alignas(64) u32 t[wave_lanes];
    // v_pk_fmac_f16 (VOP2): the addend is the destination register.
    const Slot& src = ((Fl & fl::mac) && i == 2 && !op.has(Name::src2)) ? op.at(Name::vdst) : op.at(names[i]);
    const u32* p = w.lanes(src, t);
    const unsigned sl = ((sel >> i) & 1u) * 16, sh = ((selhi >> i) & 1u) * 16;
    const u16 ml = ((nlo >> i) & 1u) ? u16{0x8000} : u16{0}, mh = ((nhi >> i) & 1u) ? u16{0x8000} : u16{0};
    for (unsigned l = 0; l < wave_lanes; ++l) {
      u16 x = static_cast<u16>(p[l] >> sl), y = static_cast<u16>(p[l] >> sh);
      if constexpr (Float) { x ^= ml; y ^= mh; if (fz) { x = flush(x); y = flush(y); } }
      lo[i][l] = x;
      hi[i][l] = y;
    }
  }
  alignas(64) u16 rl[wave_lanes], rh[wave_lanes];
  auto run = [&](auto fn) {
    for (unsigned l = 0; l < wave_lanes; ++l) {
      rl[l] = fn(lo[0][l], N > 1 ? lo[1][l] : u16{0}, N > 2 ? lo[2][l] : u16{0});
      rh[l] = fn(hi[0][l], N > 1 ? hi[1][l] : u16{0}, N > 2 ? hi[2][l] : u16{0});
    }
  };
  if constexpr (!Float && !std::is_same_v<decltype(FnSat), std::nullptr_t>) { if (clamp) run(FnSat); else run(Fn); }
  else run(Fn);
  if constexpr (Float) {
    if constexpr ((Fl & fl::arith) != 0) {
      fix_nans<true, N >= 2, N >= 3>(rl, lo[0], lo[1], lo[2]);
      fix_nans<true, N >= 2, N >= 3>(rh, hi[0], hi[1], hi[2]);
    }
    post_float<T::f16>(rl, 0, clamp, !keep_out(env, T::f16), env.dx10);
    post_float<T::f16>(rh, 0, clamp, !keep_out(env, T::f16), env.dx10);
  }
  alignas(64) u32 r[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) r[l] = static_cast<u32>(rl[l]) | (static_cast<u32>(rh[l]) << 16);
  if (vdst(op).kind == Slot::Kind::vgpr) store32(w, vdst(op).index, r, w.exec());
}

/// Packed f32 ops on register pairs (v_pk_add_f32, v_pk_mul_f32, v_pk_fma_f32; gfx90a+) [ISA VOP3P]: op_sel[i]
/// picks the dword of source i for the low result, op_sel_hi[i] for the high one; neg_lo/neg_hi negate.
template <unsigned N, auto Fn>
inline void pk32(Wave& w, const Op& op) {
  const FpEnv env = fp_env(w);
  if (!round_ok(w, op, env, T::f32)) return;
  const unsigned sel = static_cast<unsigned>(op.imm(Name::op_sel));
  const unsigned selhi = static_cast<unsigned>(op.imm(Name::op_sel_hi));
  const unsigned nlo = static_cast<unsigned>(op.imm(Name::neg_lo));
  const unsigned nhi = static_cast<unsigned>(op.imm(Name::neg_hi));
  alignas(64) u32 lo[3][wave_lanes], hi[3][wave_lanes];
  static constexpr Name names[3] = {Name::src0, Name::src1, Name::src2};
  const bool fz = !keep_in(env, T::f32);
  for (unsigned i = 0; i < N; ++i) {
    alignas(64) u64 t[wave_lanes];
    const u64* p = read_src<T::b64>(w, op.at(names[i]), t, false, 0, false);
    const unsigned sl = ((sel >> i) & 1u) * 32, sh = ((selhi >> i) & 1u) * 32;
    const u32 ml = ((nlo >> i) & 1u) ? 0x80000000u : 0u, mh = ((nhi >> i) & 1u) ? 0x80000000u : 0u;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      u32 x = static_cast<u32>(p[l] >> sl) ^ ml, y = static_cast<u32>(p[l] >> sh) ^ mh;
      if (fz) { x = flush(x); y = flush(y); }
      lo[i][l] = x;
      hi[i][l] = y;
    }
  }
  alignas(64) u32 rl[wave_lanes], rh[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    rl[l] = Fn(lo[0][l], lo[1][l], N > 2 ? lo[2][l] : 0u);
    rh[l] = Fn(hi[0][l], hi[1][l], N > 2 ? hi[2][l] : 0u);
  }
  fix_nans<true, true, N >= 3>(rl, lo[0], lo[1], lo[2]);
  fix_nans<true, true, N >= 3>(rh, hi[0], hi[1], hi[2]);
  const bool clamp = op.imm(Name::clamp) != 0;
  post_float<T::f32>(rl, 0, clamp, !keep_out(env, T::f32), env.dx10);
  post_float<T::f32>(rh, 0, clamp, !keep_out(env, T::f32), env.dx10);
  alignas(64) u64 r[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) r[l] = rl[l] | (static_cast<u64>(rh[l]) << 32);
  if (vdst(op).kind == Slot::Kind::vgpr) store64(w, vdst(op).index, r, w.exec());
}

/// v_pk_mov_b32 [ISA V_PK_MOV_B32 (gfx90a+): "D.b32[0] = S0.b32[OPSEL[0]]; D.b32[1] = S1.b32[OPSEL[1]]"].
inline void pk_mov_b32(Wave& w, const Op& op) {
  if (op.imm(Name::neg_lo) || op.imm(Name::neg_hi) || op.imm(Name::clamp))
    return unsupported(w, op, "neg_lo/neg_hi/clamp on v_pk_mov_b32");
  const unsigned sel = static_cast<unsigned>(op.imm(Name::op_sel));
  alignas(64) u64 ta[wave_lanes], tb[wave_lanes], r[wave_lanes];
  const u64* a = read_src<T::b64>(w, op.at(Name::src0), ta, false, 0, false);
  const u64* b = read_src<T::b64>(w, op.at(Name::src1), tb, false, 0, false);
  const unsigned s0 = (sel & 1u) * 32, s1 = ((sel >> 1) & 1u) * 32;
  for (unsigned l = 0; l < wave_lanes; ++l) r[l] = static_cast<u32>(a[l] >> s0) | (static_cast<u64>(static_cast<u32>(b[l] >> s1)) << 32);
  if (vdst(op).kind == Slot::Kind::vgpr) store64(w, vdst(op).index, r, w.exec());
}

// ---- fma_mix ------------------------------------------------------------------------------------------------------

/// v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 [ISA V_FMA_MIX_F32]: for each source i, op_sel_hi[i] = 1 reads
/// an f16 (the half chosen by op_sel[i]) converted exactly to f32, op_sel_hi[i] = 0 reads the f32 register; the
/// abs/neg modifiers apply to the value read. The fma is fused with one rounding: to f32 for mix_f32, to f16 for
/// mixlo (result in bits 15:0) and mixhi (bits 31:16); the other half of vdst is kept ([HI16]: mix ops preserve).
template <int Out>  // 0: f32, 1: lo f16, 2: hi f16
inline void fma_mix(Wave& w, const Op& op) {
  const FpEnv env = fp_env(w);
  if (!round_ok(w, op, env, Out == 0 ? T::f32 : T::f16)) return;
  const unsigned sel = static_cast<unsigned>(op.imm(Name::op_sel));
  const unsigned selhi = static_cast<unsigned>(op.imm(Name::op_sel_hi));
  const unsigned nlo = static_cast<unsigned>(op.imm(Name::neg_lo));
  const unsigned nhi = static_cast<unsigned>(op.imm(Name::neg_hi));
  static constexpr Name names[3] = {Name::src0, Name::src1, Name::src2};
  alignas(64) u32 buf[3][wave_lanes];  // f32 bits of each operand after modifiers (when they differ from the row)
  const u32* v[3];
  // The VOP3P encoding stores neg in neg_lo and abs in neg_hi for the mix ops (LLVM VOP3PInstructions.td
  // VOP3_VOP3PInst: "VOP3 neg/abs ... modifiers are allowed"); the decoder may give them as Slot::mods.
  const auto mods_of = [&](unsigned i) { return op.at(names[i]).mods | ((nlo >> i) & 1u) | (((nhi >> i) & 1u) << 1); };
  const auto view_of = [&](unsigned i) { return ((selhi >> i) & 1u) | (((sel >> i) & 1u) << 1) | (mods_of(i) << 2); };
  for (unsigned i = 0; i < 3; ++i) {
    const Slot& s = op.at(names[i]);
    const unsigned mods = mods_of(i);
    // The same register read the same way as the previous source (x * x in a sum of squares): converted once.
    if (const Slot& q = i > 0 ? op.at(names[i - 1]) : s;
        i > 0 && s.kind == Slot::Kind::vgpr && q.kind == s.kind && q.index == s.index && view_of(i) == view_of(i - 1)) {
      v[i] = v[i - 1];
      continue;
    }
    alignas(64) u32 t[wave_lanes];
    const u32* p = w.lanes(s, t);
    u32* out = buf[i];
    if ((selhi >> i) & 1u) {  // an f16 half, converted exactly
      const unsigned sh = ((sel >> i) & 1u) * 16;
      if (env.in16)  // the usual MODE: no input flushing, no per-lane test for it
        for (unsigned l = 0; l < wave_lanes; ++l) out[l] = fp::bits(fp::f16_to_f32(static_cast<u16>(p[l] >> sh)));
      else
        for (unsigned l = 0; l < wave_lanes; ++l) out[l] = fp::bits(fp::f16_to_f32(flush(static_cast<u16>(p[l] >> sh))));
      if (mods)
        for (unsigned l = 0; l < wave_lanes; ++l) out[l] = apply_mods(out[l], mods);
      v[i] = out;
    } else if (mods == 0 && env.in32) {  // the register as it is
      v[i] = p == t ? (std::memcpy(out, t, sizeof t), out) : p;
    } else {
      for (unsigned l = 0; l < wave_lanes; ++l) out[l] = apply_mods(env.in32 ? p[l] : flush(p[l]), mods);
      v[i] = out;
    }
  }
  const bool clamp = op.imm(Name::clamp) != 0;
  if constexpr (Out == 0) {
    alignas(64) u32 r[wave_lanes];
    for (unsigned l = 0; l < wave_lanes; ++l) r[l] = fp::bits(fp::fma_f32_odd(fp::f32(v[0][l]), fp::f32(v[1][l]), fp::f32(v[2][l])));
    fix_nans<true, true, true>(r, v[0], v[1], v[2]);
    post_float<T::f32>(r, 0, clamp, !env.out32, env.dx10);
    if (vdst(op).kind == Slot::Kind::vgpr) store32(w, vdst(op).index, r, w.exec());
  } else {
    alignas(64) u16 r[wave_lanes];
    alignas(64) double s[wave_lanes];  // the fused sums rounded to odd (a vectorisable loop), then each to f16
    for (unsigned l = 0; l < wave_lanes; ++l)
      s[l] = fp::add_round_odd(static_cast<double>(fp::f32(v[0][l])) * fp::f32(v[1][l]), fp::f32(v[2][l]));
    fp::f64_to_f16_lanes(s, r, wave_lanes);
    u32 nan_lanes = 0;  // bit 31 set by a NaN code (magnitude above 0x7c00); an OR of integers vectorises
    for (unsigned l = 0; l < wave_lanes; ++l) nan_lanes |= 0x7c00u - (r[l] & 0x7fffu);
    const bool any_nan = (nan_lanes >> 31) != 0;
    if (any_nan) {  // [NAN] on the f16 result: the NaN operands narrowed to f16
      alignas(64) u16 q[3][wave_lanes];
      for (unsigned i = 0; i < 3; ++i)
        for (unsigned l = 0; l < wave_lanes; ++l)
          q[i][l] = fp::is_nan_f32(v[i][l]) ? fp::f32_to_f16(fp::f32(v[i][l])) : u16{0};
      fix_nans<true, true, true>(r, q[0], q[1], q[2]);
    }
    post_float<T::f16>(r, 0, clamp, !env.out16, env.dx10);
    if (vdst(op).kind == Slot::Kind::vgpr) store16(w, vdst(op).index, r, w.exec(), Out == 2, true);
  }
}

// ---- dot products ---------------------------------------------------------------------------------------------

/// Integer dot products [ISA V_DOT2_I32_I16, V_DOT2_U32_U16, V_DOT4_I32_I8, V_DOT4_U32_U8, V_DOT8_I32_I4,
/// V_DOT8_U32_U4 and the accumulating VOP2 "c" forms]: D = S2 + sum of element products; clamp saturates the
/// 32-bit result (signed / unsigned). For VOP3P forms op_sel/op_sel_hi other than the defaults and neg are not
/// implemented.
template <unsigned Bits, bool Signed, bool Acc>
inline void dot_int(Wave& w, const Op& op) {
  const unsigned sel = static_cast<unsigned>(op.imm(Name::op_sel));
  const unsigned selhi = op.has(Name::op_sel_hi) ? static_cast<unsigned>(op.imm(Name::op_sel_hi)) : 7u;
  if (sel != 0 || (selhi & 3u) != 3u || op.imm(Name::neg_lo) || op.imm(Name::neg_hi))
    return unsupported(w, op, "op_sel/op_sel_hi/neg modifiers on an integer dot product");
  alignas(64) u32 ta[wave_lanes], tb[wave_lanes], tc[wave_lanes], r[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), ta);
  const u32* b = w.lanes(op.at(Name::src1), tb);
  const u32* c = w.lanes(Acc ? (op.has(Name::src2) ? op.at(Name::src2) : op.at(Name::vdst)) : op.at(Name::src2), tc);
  const bool clamp = op.imm(Name::clamp) != 0;
  constexpr unsigned n = 32 / Bits;
  constexpr u32 mask = Bits == 32 ? ~0u : (1u << Bits) - 1u;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    i64 s = Signed ? static_cast<i64>(static_cast<i32>(c[l])) : static_cast<i64>(c[l]);
    for (unsigned k = 0; k < n; ++k) {
      const u32 x = (a[l] >> (k * Bits)) & mask, y = (b[l] >> (k * Bits)) & mask;
      if constexpr (Signed) {
        const i64 sx = static_cast<i64>(x ^ (1u << (Bits - 1))) - (1ll << (Bits - 1));
        const i64 sy = static_cast<i64>(y ^ (1u << (Bits - 1))) - (1ll << (Bits - 1));
        s += sx * sy;
      } else {
        s += static_cast<i64>(x) * y;
      }
    }
    if (clamp) s = Signed ? std::clamp<i64>(s, INT32_MIN, INT32_MAX) : std::clamp<i64>(s, 0, UINT32_MAX);
    r[l] = static_cast<u32>(s);
  }
  if (vdst(op).kind == Slot::Kind::vgpr) store32(w, vdst(op).index, r, w.exec());
}

/// v_dot2_f32_f16 / v_dot2c_f32_f16 [ISA: D.f32 = S0.f16[0] * S1.f16[0] + S0.f16[1] * S1.f16[1] + S2.f32].
/// APPROXIMATE: the products are exact in f64 and the sum is rounded once to f32 from an f64 sum; the hardware's
/// internal rounding of the three-term sum is not documented.
template <bool Acc>
inline void dot2_f32_f16(Wave& w, const Op& op) {
  const FpEnv env = fp_env(w);
  if (!round_ok(w, op, env, T::f32)) return;
  const unsigned sel = static_cast<unsigned>(op.imm(Name::op_sel));
  const unsigned selhi = op.has(Name::op_sel_hi) ? static_cast<unsigned>(op.imm(Name::op_sel_hi)) : 7u;
  if (sel != 0 || (selhi & 3u) != 3u) return unsupported(w, op, "op_sel/op_sel_hi on v_dot2_f32_f16");
  const unsigned nlo = static_cast<unsigned>(op.imm(Name::neg_lo));
  const unsigned nhi = static_cast<unsigned>(op.imm(Name::neg_hi));
  alignas(64) u32 ta[wave_lanes], tb[wave_lanes], tc[wave_lanes], r[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), ta);
  const u32* b = w.lanes(op.at(Name::src1), tb);
  const u32* c = w.lanes(Acc ? (op.has(Name::src2) ? op.at(Name::src2) : op.at(Name::vdst)) : op.at(Name::src2), tc);
  auto h = [&](u32 x, unsigned i, bool high) {
    u16 v = static_cast<u16>(high ? x >> 16 : x);
    if (((high ? nhi : nlo) >> i) & 1u) v ^= 0x8000u;
    if (!env.in16) v = flush(v);
    return static_cast<double>(fp::f16_to_f32(v));
  };
  for (unsigned l = 0; l < wave_lanes; ++l) {
    u32 cc = c[l];
    if ((nlo >> 2) & 1u) cc ^= 0x80000000u;
    if (!env.in32) cc = flush(cc);
    const double s = h(a[l], 0, false) * h(b[l], 1, false) + h(a[l], 0, true) * h(b[l], 1, true) + static_cast<double>(fp::f32(cc));
    r[l] = fp::bits(static_cast<float>(s));
    if (fp::is_nan_f32(r[l])) r[l] = fp::is_nan_f32(cc) ? fp::quiet_f32(cc) : fp::default_nan_f32;
  }
  post_float<T::f32>(r, 0, op.imm(Name::clamp) != 0, !env.out32, env.dx10);
  if (vdst(op).kind == Slot::Kind::vgpr) store32(w, vdst(op).index, r, w.exec());
}

// ---- fp8 / bf8 (gfx940+) ----------------------------------------------------------------------------------------

/// The fp8 flavour of the target: gfx942 uses the FNUZ formats, gfx950 the OCP ones (support/float_formats.hpp Fp8).
template <bool Bf8>
[[nodiscard]] inline fp::Fp8 fp8_kind(const Wave& w) {
  const bool ocp = w.machine && w.machine->target == Target::gfx950;
  if constexpr (Bf8) return ocp ? fp::Fp8::e5m2 : fp::Fp8::e5m2fnuz;
  else return ocp ? fp::Fp8::e4m3 : fp::Fp8::e4m3fnuz;
}

/// v_cvt_f32_fp8 / v_cvt_f32_bf8 [ISA V_CVT_F32_FP8]: byte 0 of S0 (the SDWA wrapper moves the selected byte there).
template <bool Bf8>
inline void cvt_f32_fp8(Wave& w, const Op& op) {
  if (op.imm(Name::omod) || op.imm(Name::clamp)) return unsupported(w, op, "omod/clamp on an fp8 conversion");
  alignas(64) u32 t[wave_lanes], r[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), t);
  const fp::Fp8 k = fp8_kind<Bf8>(w);
  const unsigned sh = (static_cast<unsigned>(op.imm(Name::op_sel)) & 3u) * 8;  // VOP3 op_sel byte select (gfx950)
  for (unsigned l = 0; l < wave_lanes; ++l) r[l] = fp::bits(fp::fp8_to_f32(static_cast<u8>(a[l] >> sh), k));
  if (vdst(op).kind == Slot::Kind::vgpr) store32(w, vdst(op).index, r, w.exec());
}
/// v_cvt_pk_f32_fp8 / v_cvt_pk_f32_bf8: bytes 0 and 1 of S0 (word 1 with op_sel[0]) to two f32 in vdst[0:1].
template <bool Bf8>
inline void cvt_pk_f32_fp8(Wave& w, const Op& op) {
  if (op.imm(Name::omod) || op.imm(Name::clamp)) return unsupported(w, op, "omod/clamp on an fp8 conversion");
  alignas(64) u32 t[wave_lanes];
  alignas(64) u64 r[wave_lanes];
  const u32* a = w.lanes(op.at(Name::src0), t);
  const fp::Fp8 k = fp8_kind<Bf8>(w);
  const unsigned sh = (static_cast<unsigned>(op.imm(Name::op_sel)) & 1u) * 16;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const u32 x = a[l] >> sh;
    r[l] = fp::bits(fp::fp8_to_f32(static_cast<u8>(x), k)) | (static_cast<u64>(fp::bits(fp::fp8_to_f32(static_cast<u8>(x >> 8), k))) << 32);
  }
  if (vdst(op).kind == Slot::Kind::vgpr) store64(w, vdst(op).index, r, w.exec());
}
/// v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 [ISA V_CVT_PK_FP8_F32]: two f32 (source modifiers allowed) rounded to
/// nearest even into bytes {S1, S0} of word op_sel[3] of vdst; the other word is kept. No saturation: the form has
/// no clamp operand (support/float_formats.hpp f32_to_fp8 documents the overflow rule).
template <bool Bf8>
inline void cvt_pk_fp8_f32(Wave& w, const Op& op) {
  const FpEnv env = fp_env(w);
  if (!round_ok(w, op, env, T::f32)) return;
  alignas(64) u32 ta[wave_lanes], tb[wave_lanes];
  const Slot &s0 = op.at(Name::src0), &s1 = op.at(Name::src1);
  const u32* a = read_src<T::f32>(w, s0, ta, false, s0.mods, false);
  const u32* b = read_src<T::f32>(w, s1, tb, false, s1.mods, false);
  const fp::Fp8 k = fp8_kind<Bf8>(w);
  const bool hi = (op.imm(Name::op_sel) >> 3) & 1u;
  const Slot& d = vdst(op);
  if (d.kind != Slot::Kind::vgpr) return;
  u32* row = w.v[d.index];
  const LaneMask exec = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const u32 pk = fp::f32_to_fp8(fp::f32(a[l]), k, false) | (static_cast<u32>(fp::f32_to_fp8(fp::f32(b[l]), k, false)) << 8);
    row[l] = hi ? ((row[l] & 0xffffu) | (pk << 16)) : ((row[l] & 0xffff0000u) | pk);
  }
}

}  // namespace asmevo::emu::detail::valu
