// The read-modify-write kernels shared by every memory atomic of the emulator (DS, buffer, global, flat, scalar).
#pragma once

#include <cstdint>
#include <cstring>

#include "asmevo/emu/fp_valu.hpp"

namespace asmevo::emu::detail {

/// What an atomic computes from the old memory value and its operands. Integer pseudo-code from the MI300 ISA
/// (CDNA3) opcode descriptions (DS_ADD_U32 … DS_WRAP_RTN_B32, BUFFER_ATOMIC_*): `src` is DATA, `cmp` is the compare
/// value (cmpswap/cmpst) or DATA2 (mskor: the OR value, wrap: the add value).
enum class Atom : std::uint8_t {
  swap, cmpswap, add, sub, rsub, smin, smax, umin, umax, and_, or_, xor_,
  inc,      ///< tmp >= src ? 0 : tmp + 1 (unsigned)
  dec,      ///< tmp == 0 || tmp > src ? src : tmp - 1 (unsigned)
  mskor,    ///< (tmp & ~src) | cmp
  wrap,     ///< tmp >= src ? tmp - src : tmp + cmp (DS_WRAP_RTN_B32)
  add_f32, pk_add_f16, pk_add_bf16, add_f64,
  min_f32, max_f32, min_f64, max_f64,
  cmpst_f32, cmpst_f64,  ///< swap when tmp == cmp as floats (no NaN, +0 == -0)
};

/// Denormal handling of float atomics. LDS follows MODE.FP_DENORM; the L2 cache has fixed rules
/// (MI300 ISA §9.2.2 "Denorm Handling Rules for Memory Ops", table of LDS vs L2 handling).
struct AtomFp {
  bool f32_in = true, f32_out = true;  ///< allow f32 input / output denormals
  bool f16_in = true, f16_out = true;  ///< allow f16/bf16/f64 input / output denormals (MODE's "double" field)
  bool f64_add_keep = true;            ///< ADD_F64 never flushes (LDS and L2)
};

/// MODE.FP_DENORM as seen by LDS float atomics (MI300 ISA §3.3 MODE: bits 5:4 f32, 7:6 f64/f16; per field
/// bit 0 = allow input denormals, bit 1 = allow output denormals).
[[nodiscard]] inline AtomFp lds_fp(std::uint32_t mode) noexcept {
  AtomFp e;
  e.f32_in = (mode >> 4) & 1;
  e.f32_out = (mode >> 5) & 1;
  e.f16_in = (mode >> 6) & 1;
  e.f16_out = (mode >> 7) & 1;
  return e;
}

/// The L2 cache's rules (MI300 ISA §9.2.2 table: PK_ADD_F16/BF16, MIN/MAX_F64, ADD_F64 "Do not Flush Denorms").
/// ADD_F32: the table says "Flush Denorms"; LLVM models gfx940+ (FeatureMemoryAtomicFAddF32DenormalSupport in
/// AMDGPU.td, used by SIISelLowering shouldExpandAtomicRMWInIR) as keeping f32 denormals and gfx90a as flushing.
/// We follow LLVM, which decides what compiled code relies on: `flush_f32` is true on gfx90a only.
[[nodiscard]] inline AtomFp l2_fp(bool flush_f32) noexcept {
  AtomFp e;
  e.f32_in = e.f32_out = !flush_f32;
  return e;
}

namespace atom {
inline constexpr std::uint32_t qnan_f32 = 0x7fc00000u;  ///< "-INF + INF = QNAN (mantissa is all zeros except MSB)"
inline constexpr std::uint64_t qnan_f64 = 0x7ff8000000000000ull;

/// Float add of the memory atomics (MI300 ISA §9.2.3 "Float Add rules"): RNE; a NaN input is returned quieted (the
/// first input, the memory value, wins when both are NaN); inf - inf gives the positive default QNaN; -0 + +0 = +0.
[[nodiscard]] inline std::uint32_t add_f32(std::uint32_t a, std::uint32_t b, bool in, bool out) noexcept {
  if (fp::is_nan_f32(a)) return fp::quiet_f32(a);
  if (fp::is_nan_f32(b)) return fp::quiet_f32(b);
  float x = fp::f32(a), y = fp::f32(b);
  if (!in) { x = fp::flush_denorm_f32(x); y = fp::flush_denorm_f32(y); }
  float r = x + y;
  if (r != r) return qnan_f32;
  if (!out) r = fp::flush_denorm_f32(r);
  return fp::bits(r);
}
[[nodiscard]] inline std::uint64_t add_f64(std::uint64_t a, std::uint64_t b) noexcept {
  if (fp::is_nan_f64(a)) return fp::quiet_f64(a);
  if (fp::is_nan_f64(b)) return fp::quiet_f64(b);
  const double r = fp::f64(a) + fp::f64(b);
  return r != r ? qnan_f64 : fp::bits64(r);
}
/// One f16 half: the exact sum (two f16 add exactly in f64) rounded once to f16 (RNE).
[[nodiscard]] inline std::uint16_t add_f16(std::uint16_t a, std::uint16_t b, bool in, bool out) noexcept {
  if (fp::is_nan_f16(a)) return fp::quiet_f16(a);
  if (fp::is_nan_f16(b)) return fp::quiet_f16(b);
  if (!in) { a = fp::flush_denorm_f16(a); b = fp::flush_denorm_f16(b); }
  const double s = static_cast<double>(fp::f16_to_f32(a)) + static_cast<double>(fp::f16_to_f32(b));
  if (s != s) return 0x7e00u;
  std::uint16_t r = fp::f64_to_f16(s);
  if (!out) r = fp::flush_denorm_f16(r);
  return r;
}
/// One bf16 half: f32 sum (exact or, when the exponents are far apart, off by less than a bf16 half-ulp so that
/// the single RNE rounding to bf16 is still correct), then RNE to bf16.
[[nodiscard]] inline std::uint16_t add_bf16(std::uint16_t a, std::uint16_t b, bool in, bool out) noexcept {
  const auto nan = [](std::uint16_t h) { return (h & 0x7fffu) > 0x7f80u; };
  const auto flush = [](std::uint16_t h) { return (h & 0x7f80u) == 0 ? static_cast<std::uint16_t>(h & 0x8000u) : h; };
  if (nan(a)) return static_cast<std::uint16_t>(a | 0x40u);
  if (nan(b)) return static_cast<std::uint16_t>(b | 0x40u);
  if (!in) { a = flush(a); b = flush(b); }
  const float s = fp::bf16_to_f32(a) + fp::bf16_to_f32(b);
  if (s != s) return 0x7fc0u;
  std::uint16_t r = fp::f32_to_bf16(s);
  if (!out) r = flush(r);
  return r;
}

/// FP min/max of the memory atomics (MI300 ISA §9.2.3 "FP Max/Min Selection Rules"): an sNaN input (memory value
/// first) is returned quieted; otherwise a qNaN loses; -0 < +0; with input flushing the comparison sees denormals
/// as zero but the selected input is returned unmodified. `Bits` is std::uint32_t (f32) or std::uint64_t (f64).
template <class Bits>
[[nodiscard]] inline Bits minmax(Bits a, Bits b, bool is_max, bool flush_in) noexcept {
  constexpr bool wide = sizeof(Bits) == 8;
  const auto is_nan = [](Bits x) { if constexpr (wide) return fp::is_nan_f64(x); else return fp::is_nan_f32(x); };
  const auto is_snan = [](Bits x) { if constexpr (wide) return fp::is_snan_f64(x); else return fp::is_snan_f32(x); };
  const auto quiet = [](Bits x) -> Bits { if constexpr (wide) return fp::quiet_f64(x); else return fp::quiet_f32(x); };
  if (is_snan(a)) return quiet(a);
  if (is_snan(b)) return quiet(b);
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  // Order-preserving map of non-NaN floats onto unsigned integers (-0 below +0).
  const auto key = [&](Bits x) -> Bits {
    constexpr Bits sign = Bits{1} << (wide ? 63 : 31);
    constexpr Bits expm = static_cast<Bits>(wide ? 0x7ff0000000000000ull : 0x7f800000ull);
    if (flush_in && (x & expm) == 0) x &= sign;
    return (x & sign) ? static_cast<Bits>(~x) : static_cast<Bits>(x | sign);
  };
  const Bits ka = key(a), kb = key(b);
  if (is_max) return kb > ka ? b : a;
  return kb < ka ? b : a;
}
}  // namespace atom

/// The new memory value of atomic `A` on a `Bytes`-byte (4 or 8) location holding `old`.
template <Atom A, unsigned Bytes>
[[nodiscard]] inline std::uint64_t atomic_apply(std::uint64_t old, std::uint64_t src, std::uint64_t cmp, const AtomFp& fpe) noexcept {
  constexpr std::uint64_t mask = Bytes == 8 ? ~0ull : 0xffffffffull;
  const auto sx = [](std::uint64_t v) -> std::int64_t {
    return Bytes == 8 ? static_cast<std::int64_t>(v) : static_cast<std::int64_t>(static_cast<std::int32_t>(v));
  };
  switch (A) {
    case Atom::swap: return src;
    case Atom::cmpswap: return old == cmp ? src : old;
    case Atom::add: return (old + src) & mask;
    case Atom::sub: return (old - src) & mask;
    case Atom::rsub: return (src - old) & mask;
    case Atom::smin: return sx(src) < sx(old) ? src : old;
    case Atom::smax: return sx(src) > sx(old) ? src : old;
    case Atom::umin: return src < old ? src : old;
    case Atom::umax: return src > old ? src : old;
    case Atom::and_: return old & src;
    case Atom::or_: return old | src;
    case Atom::xor_: return old ^ src;
    case Atom::inc: return old >= src ? 0 : (old + 1) & mask;
    case Atom::dec: return (old == 0 || old > src) ? src : old - 1;
    case Atom::mskor: return (old & ~src) | cmp;
    case Atom::wrap: return old >= src ? old - src : (old + cmp) & mask;
    case Atom::add_f32:
      return atom::add_f32(static_cast<std::uint32_t>(old), static_cast<std::uint32_t>(src), fpe.f32_in, fpe.f32_out);
    case Atom::pk_add_f16: {
      const auto lo = atom::add_f16(static_cast<std::uint16_t>(old), static_cast<std::uint16_t>(src), fpe.f16_in, fpe.f16_out);
      const auto hi = atom::add_f16(static_cast<std::uint16_t>(old >> 16), static_cast<std::uint16_t>(src >> 16), fpe.f16_in, fpe.f16_out);
      return static_cast<std::uint64_t>(lo) | static_cast<std::uint64_t>(hi) << 16;
    }
    case Atom::pk_add_bf16: {
      const auto lo = atom::add_bf16(static_cast<std::uint16_t>(old), static_cast<std::uint16_t>(src), fpe.f16_in, fpe.f16_out);
      const auto hi = atom::add_bf16(static_cast<std::uint16_t>(old >> 16), static_cast<std::uint16_t>(src >> 16), fpe.f16_in, fpe.f16_out);
      return static_cast<std::uint64_t>(lo) | static_cast<std::uint64_t>(hi) << 16;
    }
    case Atom::add_f64: return atom::add_f64(old, src);
    case Atom::min_f32: return atom::minmax<std::uint32_t>(static_cast<std::uint32_t>(old), static_cast<std::uint32_t>(src), false, !fpe.f32_in);
    case Atom::max_f32: return atom::minmax<std::uint32_t>(static_cast<std::uint32_t>(old), static_cast<std::uint32_t>(src), true, !fpe.f32_in);
    case Atom::min_f64: return atom::minmax<std::uint64_t>(old, src, false, !fpe.f16_in);
    case Atom::max_f64: return atom::minmax<std::uint64_t>(old, src, true, !fpe.f16_in);
    case Atom::cmpst_f32: {
      // "doSwap = (src0 != NaN) && (src1 != NaN) && (src0 == src1)" comparing the memory value with cmp; with input
      // flushing the comparison sees denormals as zero and the stored value is flushed (MI300 ISA §9.2.2/§9.2.3).
      float a = fp::f32(static_cast<std::uint32_t>(old)), c = fp::f32(static_cast<std::uint32_t>(cmp));
      float s = fp::f32(static_cast<std::uint32_t>(src));
      if (!fpe.f32_in) { a = fp::flush_denorm_f32(a); c = fp::flush_denorm_f32(c); s = fp::flush_denorm_f32(s); }
      return a == c ? fp::bits(s) : old;  // == is false for NaN and true for +0/-0
    }
    case Atom::cmpst_f64: {
      double a = fp::f64(old), c = fp::f64(cmp), s = fp::f64(src);
      if (!fpe.f16_in) { a = fp::flush_denorm_f64(a); c = fp::flush_denorm_f64(c); s = fp::flush_denorm_f64(s); }
      return a == c ? fp::bits64(s) : old;
    }
  }
  return old;
}

/// Whether the atomic's compare/second operand (`cmp`) is read from the instruction's data.
[[nodiscard]] constexpr bool atom_has_cmp(Atom a) noexcept {
  return a == Atom::cmpswap || a == Atom::mskor || a == Atom::wrap || a == Atom::cmpst_f32 || a == Atom::cmpst_f64;
}

}  // namespace asmevo::emu::detail
