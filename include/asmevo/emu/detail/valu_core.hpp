// Shared machinery of the VALU semantics: operand preparation (modifiers, op_sel, denormal flushing), the generic
// per-lane handler template, result post-processing (NaN rule, omod, clamp) and exec-masked stores.
#pragma once

// Hardware rules used throughout, with their sources:
//  [MODE]  AMD Instinct MI300 ISA (CDNA3) §3.3 "MODE register": FP_ROUND bits 3:0 ([1:0] f32, [3:2] f16/f64),
//          FP_DENORM bits 7:4 ([5:4] f32, [7:6] f16/f64; per precision bit0 = input denormals kept, bit1 = output
//          denormals kept, a cleared bit flushes to a zero of the same sign), DX10_CLAMP bit 8, IEEE bit 9.
//  [MODS]  MI300 ISA §6 "Vector ALU operations", VOP3 fields: ABS/NEG source modifiers apply to floating-point
//          operands only, abs before neg; OMOD (1 = *2, 2 = *4, 3 = /2) is applied to the result before CLAMP;
//          CLAMP of a float result clamps to [0, 1]. LLVM SIFoldOperands::isOMod: "If output denormals are
//          enabled, omod is ignored".
//  [OPSEL] MI300 ISA VOP3 OPSEL field (gfx9 VOP3A): bit i selects the high half of 16-bit source i, bit 3 writes the
//          16-bit result to the high half of the destination (the low half is kept).
//  [HI16]  LLVM GCNSubtarget::zeroesHigh16BitsOfDest (AMDGPUSubtarget.cpp): on gfx9 most 16-bit VALU results zero
//          bits 31:16 of the destination ("legacy behavior"); v_mac_f16 / v_madak_f16 / v_madmk_f16 and the
//          mix ops keep them.
//  [NAN]   NaN results. Hardware returns quiet NaNs. An operation with a NaN input returns that input quieted (the
//          first NaN among src0, src1, src2, after source modifiers); an invalid operation on non-NaN inputs
//          (inf - inf, 0 * inf, ...) returns the default NaN of fp.hpp (0xffc00000 / 0xfe00 / 0xfff8...). The
//          operand order of the propagated NaN is an ASSUMPTION (the ISA guide does not say which NaN wins);
//          results differ from hardware only when two different NaNs meet in one lane.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "asmevo/emu/fp_valu.hpp"
#include "asmevo/emu/machine.hpp"

namespace asmevo::emu::detail::valu {

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i16 = std::int16_t;
using i32 = std::int32_t;
using i64 = std::int64_t;
inline constexpr LaneMask all_lanes = ~0ull;

/// Operand value types of the generic handler. 16-bit values live in the low (or op_sel-selected) half of a
/// 32-bit register; 64-bit values span two rows.
enum class T : u8 { none, b32, f32, b16, f16, b64, f64 };

[[nodiscard]] constexpr bool is16(T t) { return t == T::b16 || t == T::f16; }
[[nodiscard]] constexpr bool is64(T t) { return t == T::b64 || t == T::f64; }
[[nodiscard]] constexpr bool isfloat(T t) { return t == T::f32 || t == T::f16 || t == T::f64; }

template <T t> struct StoreOf { using type = u32; };
template <> struct StoreOf<T::b16> { using type = u16; };
template <> struct StoreOf<T::f16> { using type = u16; };
template <> struct StoreOf<T::b64> { using type = u64; };
template <> struct StoreOf<T::f64> { using type = u64; };
template <T t> using S = typename StoreOf<t>::type;

/// Handler flags.
namespace fl {
inline constexpr unsigned arith = 1;        ///< [NAN] rule applied to NaN results
inline constexpr unsigned no_flush_in = 2;  ///< inputs are not flushed by MODE (the op has its own rule)
inline constexpr unsigned no_flush_out = 4; ///< the result is not flushed by MODE
inline constexpr unsigned keep_hi = 8;      ///< 16-bit result keeps bits 31:16 of vdst ([HI16])
inline constexpr unsigned no_omod = 16;     ///< omod is not defined for this op: stop if present
inline constexpr unsigned no_clamp = 32;    ///< clamp is not defined for this op: stop if present
inline constexpr unsigned flush_all = 64;   ///< always flush inputs and outputs (v_mad_f32 / v_mac_f32 family)
inline constexpr unsigned mac = 128;        ///< packed op whose addend is vdst (v_pk_fmac_f16)
}  // namespace fl

/// Where a handler's three sources come from.
enum class Layout : u8 {
  normal,  ///< src0, src1, src2
  mac,     ///< src0, src1, and the destination as the addend (v_mac_*, v_fmac_*: src2 is tied to vdst)
  ak,      ///< src0, src1, K (v_madak / v_fmaak: D = S0 * S1 + K)
  mk,      ///< src0, K, src1 (v_madmk / v_fmamk: D = S0 * K + S1)
};

/// The floating-point environment of one instruction, read once from MODE [MODE].
struct FpEnv {
  bool in32, out32, in16, out16, ieee, dx10;
  u32 round;
};
[[nodiscard]] inline FpEnv fp_env(const Wave& w) noexcept {
  const u32 m = w.mode;
  return FpEnv{(m & 0x10u) != 0, (m & 0x20u) != 0, (m & 0x40u) != 0, (m & 0x80u) != 0,
               (m & 0x200u) != 0, (m & 0x100u) != 0, m & 0xfu};
}
[[nodiscard]] constexpr bool keep_in(const FpEnv& e, T t) { return t == T::f32 ? e.in32 : e.in16; }
[[nodiscard]] constexpr bool keep_out(const FpEnv& e, T t) { return t == T::f32 ? e.out32 : e.out16; }

/// Stops unless MODE rounds to nearest even for precision `t` (other round modes are not implemented).
[[nodiscard]] inline bool round_ok(Wave& w, const Op& op, const FpEnv& e, T t) {
  const u32 r = t == T::f32 ? (e.round & 3u) : ((e.round >> 2) & 3u);
  if (r == 0) return true;
  w.stop_with(Stop::Kind::unsupported, op,
              std::string(op.mnemonic()) + ": MODE.FP_ROUND selects round mode " + std::to_string(r) + " for " +
                  (t == T::f32 ? "f32" : "f16/f64") + "; only round-to-nearest-even is implemented");
  return false;
}

inline void unsupported(Wave& w, const Op& op, std::string_view what) {
  w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + ": " + std::string(what) + " is not implemented");
}

/// The slot the destination names (vdst).
[[nodiscard]] inline const Slot& vdst(const Op& op) noexcept { return op.at(Name::vdst); }

/// Source slot `i` under a layout.
template <Layout L>
[[nodiscard]] inline const Slot& src_slot(const Op& op, unsigned i) noexcept {
  if constexpr (L == Layout::ak) {
    if (i == 2) return op.at(Name::imm);
  } else if constexpr (L == Layout::mk) {
    if (i == 1) return op.at(Name::imm);
    if (i == 2) return op.at(Name::src1);
  } else if constexpr (L == Layout::mac) {
    if (i == 2) return op.has(Name::src2) ? op.at(Name::src2) : op.at(Name::vdst);
  }
  return op.at(i == 0 ? Name::src0 : i == 1 ? Name::src1 : Name::src2);
}

// ---- source preparation ------------------------------------------------------------------------------------

/// abs then neg on the sign bit of a W-bit float held in an unsigned integer [MODS].
template <class U>
[[nodiscard]] constexpr U apply_mods(U x, unsigned mods) noexcept {
  constexpr U sign = U(U{1} << (sizeof(U) * 8 - 1));
  if (mods & 2u) x = U(x & ~sign);
  if (mods & 1u) x = U(x ^ sign);
  return x;
}
template <class U>
[[nodiscard]] constexpr U flush(U x) noexcept {
  constexpr unsigned W = sizeof(U) * 8;
  constexpr U sign = U(U{1} << (W - 1));
  constexpr U expm = W == 16 ? U(0x7c00u) : W == 32 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
  return (x & expm) == 0 ? U(x & sign) : x;
}

/// Reads source `s` as 64 lane values of type `t` into `buf` (or returns the register row itself when nothing
/// changes). `hi` selects the high half of a 16-bit operand; `mods` are float source modifiers; `fz` flushes
/// denormal inputs.
template <T t>
[[nodiscard]] inline const S<t>* read_src(const Wave& w, const Slot& s, S<t>* buf, bool hi, unsigned mods, bool fz) noexcept {
  using U = S<t>;
  if constexpr (t == T::b32 || t == T::f32) {
    alignas(64) u32 tmp[wave_lanes];
    const u32* p = w.lanes(s, tmp);
    if (p == tmp) {  // broadcast: transform one value
      u32 v = tmp[0];
      if constexpr (t == T::f32) { v = apply_mods(v, mods); if (fz) v = flush(v); }
      for (unsigned l = 0; l < wave_lanes; ++l) buf[l] = v;
      return buf;
    }
    if (t == T::b32 || (!mods && !fz)) return p;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      u32 v = apply_mods(p[l], mods);
      buf[l] = fz ? flush(v) : v;
    }
    return buf;
  } else if constexpr (t == T::b16 || t == T::f16) {
    alignas(64) u32 tmp[wave_lanes];
    const u32* p = w.lanes(s, tmp);
    const unsigned sh = hi ? 16 : 0;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      U v = static_cast<U>(p[l] >> sh);
      if constexpr (t == T::f16) { v = apply_mods(v, mods); if (fz) v = flush(v); }
      buf[l] = v;
    }
    return buf;
  } else {
    if (s.kind == Slot::Kind::vgpr) {
      const u32* lo = w.v[s.index];
      const u32* hi32 = w.v[s.index + 1];
      for (unsigned l = 0; l < wave_lanes; ++l) {
        U v = static_cast<U>(lo[l]) | static_cast<U>(hi32[l]) << 32;
        if constexpr (t == T::f64) { v = apply_mods(v, mods); if (fz) v = flush(v); }
        buf[l] = v;
      }
    } else {
      U v = w.scalar64(s);
      if (s.kind != Slot::Kind::scalar && s.kind != Slot::Kind::constant) v = w.scalar32(s);
      if constexpr (t == T::f64) { v = apply_mods(v, mods); if (fz) v = flush(v); }
      for (unsigned l = 0; l < wave_lanes; ++l) buf[l] = v;
    }
    return buf;
  }
}

// ---- stores ---------------------------------------------------------------------------------------------------

inline void store32(Wave& w, unsigned row, const u32* r, LaneMask exec) noexcept {
  u32* d = w.v[row];
  if (exec == all_lanes) { std::memcpy(d, r, wave_lanes * 4); return; }
  for (unsigned l = 0; l < wave_lanes; ++l)
    if ((exec >> l) & 1u) d[l] = r[l];
}
inline void store64(Wave& w, unsigned row, const u64* r, LaneMask exec) noexcept {
  u32* lo = w.v[row];
  u32* hi = w.v[row + 1];
  for (unsigned l = 0; l < wave_lanes; ++l)
    if ((exec >> l) & 1u) { lo[l] = static_cast<u32>(r[l]); hi[l] = static_cast<u32>(r[l] >> 32); }
}
/// A 16-bit result: into the high half (keeping the low) when `to_hi`, else into the low half, zeroing or keeping
/// the high half [OPSEL] [HI16].
inline void store16(Wave& w, unsigned row, const u16* r, LaneMask exec, bool to_hi, bool keep_hi) noexcept {
  u32* d = w.v[row];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if (!((exec >> l) & 1u)) continue;
    if (to_hi) d[l] = (d[l] & 0xffffu) | (static_cast<u32>(r[l]) << 16);
    else d[l] = keep_hi ? ((d[l] & 0xffff0000u) | r[l]) : r[l];
  }
}

// ---- result post-processing -----------------------------------------------------------------------------------

template <class U> [[nodiscard]] constexpr bool is_nan_bits(U x) noexcept {
  if constexpr (sizeof(U) == 2) return fp::is_nan_f16(x);
  else if constexpr (sizeof(U) == 4) return fp::is_nan_f32(x);
  else return fp::is_nan_f64(x);
}
template <class U> [[nodiscard]] constexpr U quiet_bits(U x) noexcept {
  if constexpr (sizeof(U) == 2) return fp::quiet_f16(x);
  else if constexpr (sizeof(U) == 4) return fp::quiet_f32(x);
  else return fp::quiet_f64(x);
}
template <class U> [[nodiscard]] constexpr U default_nan() noexcept {
  if constexpr (sizeof(U) == 2) return fp::default_nan_f16;
  else if constexpr (sizeof(U) == 4) return fp::default_nan_f32;
  else return fp::default_nan_f64;
}

/// [NAN]: rewrites NaN results. Only sources flagged as floats of the result's width take part.
template <bool UA, bool UB, bool UC, class U, class A, class B, class C>
inline void fix_nans(U* r, const A* a, const B* b, const C* c) noexcept {
  bool any = false;
  for (unsigned l = 0; l < wave_lanes; ++l) any |= is_nan_bits(r[l]);
  if (!any) return;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if (!is_nan_bits(r[l])) continue;
    U v = default_nan<U>();
    if constexpr (UC) if (is_nan_bits(static_cast<U>(c[l]))) v = quiet_bits(static_cast<U>(c[l]));
    if constexpr (UB) if (is_nan_bits(static_cast<U>(b[l]))) v = quiet_bits(static_cast<U>(b[l]));
    if constexpr (UA) if (is_nan_bits(static_cast<U>(a[l]))) v = quiet_bits(static_cast<U>(a[l]));
    r[l] = v;
  }
}

/// omod, clamp and output flushing of a float result [MODS] [MODE].
template <T t>
inline void post_float(S<t>* r, unsigned omod, bool clamp, bool fz_out, bool dx10) noexcept {
  using U = S<t>;
  if (omod) {
    const int e = omod == 1 ? 1 : omod == 2 ? 2 : -1;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      if constexpr (t == T::f32) r[l] = fp::bits(std::ldexp(fp::f32(r[l]), e));
      else if constexpr (t == T::f64) r[l] = fp::bits64(std::ldexp(fp::f64(r[l]), e));
      else r[l] = fp::f64_to_f16(std::ldexp(static_cast<double>(fp::f16_to_f32(r[l])), e));
    }
  }
  if (clamp) {
    for (unsigned l = 0; l < wave_lanes; ++l) {
      U x = r[l];
      if (is_nan_bits(x)) { r[l] = dx10 ? U(0) : x; continue; }
      constexpr unsigned W = sizeof(U) * 8;
      constexpr U sign = U(U{1} << (W - 1));
      constexpr U one = W == 16 ? U(0x3c00u) : W == 32 ? U(0x3f800000u) : U(0x3ff0000000000000ull);
      if ((x & sign) && (x & ~sign)) x = 0;       // negative non-zero -> +0
      else if (!(x & sign) && x > one) x = one;   // above 1 (and +inf) -> 1; ordered as integers for positives
      r[l] = x;
    }
  }
  if (fz_out)
    for (unsigned l = 0; l < wave_lanes; ++l) r[l] = flush(r[l]);
}

// ---- the generic handler -------------------------------------------------------------------------------------

/// One VALU op whose result in each lane is Fn(source values of that lane). O and I0..I2 are the result and source
/// types (T::none for absent sources); Fn takes and returns the storage types (raw bits). FnSat, when not null,
/// gives the integer result under the clamp bit (saturating arithmetic).
template <T O, T I0, T I1, T I2, auto Fn, unsigned F = 0, Layout L = Layout::normal, auto FnSat = nullptr>
inline void valu_op(Wave& w, const Op& op) {
  constexpr bool out_float = isfloat(O);
  constexpr bool any_float = isfloat(I0) || isfloat(I1) || isfloat(I2) || out_float;
  const FpEnv env = fp_env(w);
  if constexpr (any_float) {
    constexpr T prec = out_float ? O : I0;  // the precision whose FP_ROUND field governs the op
    if (!round_ok(w, op, env, prec)) return;
  }
  const unsigned omod = static_cast<unsigned>(op.imm(Name::omod)) & 3u;
  const bool clamp = op.imm(Name::clamp) != 0;
  const unsigned opsel = static_cast<unsigned>(op.imm(Name::op_sel));
  if (omod && (!out_float || (F & fl::no_omod))) return unsupported(w, op, "the omod output modifier");
  if (clamp) {
    if constexpr (!out_float) {
      if constexpr (std::is_same_v<decltype(FnSat), std::nullptr_t>) return unsupported(w, op, "the clamp modifier");
    }
    if (F & fl::no_clamp) return unsupported(w, op, "the clamp modifier");
  }

  alignas(64) S<I0> b0[wave_lanes];
  alignas(64) S<I1> b1[wave_lanes];
  alignas(64) S<I2> b2[wave_lanes];
  const S<I0>* a = nullptr;
  const S<I1>* b = nullptr;
  const S<I2>* c = nullptr;
  auto fz = [&](T t) { return isfloat(t) && !(F & fl::no_flush_in) && ((F & fl::flush_all) || !keep_in(env, t)); };
  if constexpr (I0 != T::none) {
    const Slot& s = src_slot<L>(op, 0);
    a = read_src<I0>(w, s, b0, opsel & 1u, isfloat(I0) ? s.mods : 0, fz(I0));
  }
  if constexpr (I1 != T::none) {
    const Slot& s = src_slot<L>(op, 1);
    b = read_src<I1>(w, s, b1, opsel & 2u, isfloat(I1) ? s.mods : 0, fz(I1));
  }
  if constexpr (I2 != T::none) {
    const Slot& s = src_slot<L>(op, 2);
    c = read_src<I2>(w, s, b2, opsel & 4u, isfloat(I2) ? s.mods : 0, fz(I2));
  }

  alignas(64) S<O> r[wave_lanes];
  constexpr S<I0> z0{};
  constexpr S<I1> z1{};
  constexpr S<I2> z2{};
  auto run = [&](auto fn) {
    for (unsigned l = 0; l < wave_lanes; ++l)
      r[l] = fn(I0 != T::none ? a[l] : z0, I1 != T::none ? b[l] : z1, I2 != T::none ? c[l] : z2);
  };
  if constexpr (!out_float && !std::is_same_v<decltype(FnSat), std::nullptr_t>) {
    if (clamp) run(FnSat); else run(Fn);
  } else {
    run(Fn);
  }

  if constexpr (out_float) {
    if constexpr ((F & fl::arith) != 0) {
      constexpr bool ua = isfloat(I0) && sizeof(S<I0>) == sizeof(S<O>);
      constexpr bool ub = isfloat(I1) && sizeof(S<I1>) == sizeof(S<O>);
      constexpr bool uc = isfloat(I2) && sizeof(S<I2>) == sizeof(S<O>);
      fix_nans<ua, ub, uc>(r, a, b, c);
    }
    const bool keep = keep_out(env, O) && !(F & fl::flush_all);
    const bool fz_out = !(F & fl::no_flush_out) && !keep;
    // [MODS] omod is ignored when output denormals are enabled for the result's precision.
    post_float<O>(r, keep ? 0u : omod, clamp, fz_out, env.dx10);
  }

  const Slot& d = vdst(op);
  if (d.kind != Slot::Kind::vgpr) return;
  const LaneMask exec = w.exec();
  if constexpr (is16(O)) store16(w, d.index, r, exec, (opsel & 8u) != 0, (F & fl::keep_hi) != 0);
  else if constexpr (is64(O)) store64(w, d.index, r, exec);
  else store32(w, d.index, r, exec);
}

}  // namespace asmevo::emu::detail::valu
