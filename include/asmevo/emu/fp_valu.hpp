// The VALU's float rules, bit-exact: denormal flushing, min/max/med3, fract/frexp/ldexp/class, the division macro
// helpers and the transcendentals, as the emulator's VALU semantics apply them. Not here: the storage formats and
// their conversions (support/float_formats.hpp), the saturating float-to-integer and packing conversions of the
// v_cvt_* instructions (emu/fp_convert.hpp), and integer helpers (emu/int_ops.hpp); emu/fp.hpp includes all three.
#pragma once

// Sources, cited below by short name:
//  [ISA]      AMD Instinct MI300 ISA (CDNA3), chapter "Vector ALU instructions" and its per-opcode pseudo-code. The
//             pseudo-code of these opcodes is identical in the CDNA4 guide, which is the copy that was read.
//  [LLVM-DIV] LLVM SIISelLowering.cpp LowerFDIV32 / LowerFDIV64 (the sequence clang-22 emits for gfx942 is quoted in
//             tests/verify/fp_test.cpp and used as this file's strongest oracle).
//  [LLVM-IC]  LLVM AMDGPUInstCombineIntrinsic.cpp (constant folding of amdgcn.rcp/exp2/log/frexp/class/fmed3).
//  [TG]       tinygrad's RDNA3 emulator (extra/assembly/amd), whose authors recorded where the ISA PDF pseudo-code
//             disagrees with hardware (V_DIV_FMAS scale direction).
//
// Every function is total (no UB, no assert) for every input bit pattern: the emulator feeds it arbitrary register
// contents. Nothing allocates; everything is branch-light enough for the per-lane loops of a VALU op.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "asmevo/support/float_formats.hpp"

namespace asmevo::emu::fp {

// The storage formats and their conversions (support/float_formats.hpp) are part of the emulator's fp vocabulary.
using namespace ::asmevo::floats;

// ---------------------------------------------------------------------------------------------------------------
// Denormal flushing (MODE FP_DENORM: per precision, bit0 = allow input denormals, bit1 = allow output denormals;
// [ISA "MODE register"]. The VALU implementer decides when to call these.)
// ---------------------------------------------------------------------------------------------------------------

/// A denormal becomes a zero of the same sign; everything else is unchanged.
[[nodiscard]] inline float flush_denorm_f32(float f) noexcept {
  const std::uint32_t b = bits(f);
  return (b & 0x7f800000u) == 0 ? f32(b & 0x80000000u) : f;
}
[[nodiscard]] inline std::uint16_t flush_denorm_f16(std::uint16_t h) noexcept {
  return (h & 0x7c00u) == 0 ? static_cast<std::uint16_t>(h & 0x8000u) : h;
}
[[nodiscard]] inline double flush_denorm_f64(double d) noexcept {
  const std::uint64_t b = bits64(d);
  return (b & 0x7ff0000000000000ull) == 0 ? f64(b & 0x8000000000000000ull) : d;
}

// ---------------------------------------------------------------------------------------------------------------
// min / max / med3 [ISA V_MIN_F32, V_MAX_F32, V_MIN_F16, V_MAX_F16, V_MIN_F64, V_MAX_F64, V_MED3_F32/F16]
// ---------------------------------------------------------------------------------------------------------------
// IEEE mode: an sNaN input (S0 checked first) gives that sNaN quieted. Otherwise (or with IEEE mode off) a NaN
// loses to the other operand (two NaNs: S1 is returned unchanged). -0 orders below +0. Equal values: min returns S1,
// max returns S0 in IEEE mode (">=") and S1 otherwise (">") — only visible for -0/+0, which is handled first.

namespace detail {
template <class F, class B>
[[nodiscard]] inline F minmax_impl(F a, F b, bool ieee_mode, bool is_max) noexcept {
  const B ab = std::bit_cast<B>(a);
  const B bb = std::bit_cast<B>(b);
  constexpr int W = static_cast<int>(sizeof(B) * 8);
  constexpr B sign = B{1} << (W - 1);
  constexpr B qbit = W == 32 ? B(0x00400000u) : B(0x0008000000000000ull);
  const bool a_nan = std::isnan(a);
  const bool b_nan = std::isnan(b);
  if (ieee_mode && a_nan && (ab & qbit) == 0) return std::bit_cast<F>(static_cast<B>(ab | qbit));
  if (ieee_mode && b_nan && (bb & qbit) == 0) return std::bit_cast<F>(static_cast<B>(bb | qbit));
  if (a_nan) return b;
  if (b_nan) return a;
  if ((ab | bb) == sign && ab != bb) {  // one +0 and one -0
    const bool a_neg = ab == sign;
    return is_max ? (a_neg ? b : a) : (a_neg ? a : b);
  }
  if (is_max) return (ieee_mode ? a >= b : a > b) ? a : b;
  return a < b ? a : b;
}
}  // namespace detail

[[nodiscard]] inline float min_f32(float a, float b, bool ieee_mode) noexcept {
  return detail::minmax_impl<float, std::uint32_t>(a, b, ieee_mode, false);
}
[[nodiscard]] inline float max_f32(float a, float b, bool ieee_mode) noexcept {
  return detail::minmax_impl<float, std::uint32_t>(a, b, ieee_mode, true);
}
[[nodiscard]] inline double min_f64(double a, double b, bool ieee_mode) noexcept {
  return detail::minmax_impl<double, std::uint64_t>(a, b, ieee_mode, false);
}
[[nodiscard]] inline double max_f64(double a, double b, bool ieee_mode) noexcept {
  return detail::minmax_impl<double, std::uint64_t>(a, b, ieee_mode, true);
}

namespace detail {
/// f16 min/max on bits; comparisons go through f32, which is exact.
[[nodiscard]] inline std::uint16_t minmax_f16(std::uint16_t a, std::uint16_t b, bool ieee_mode, bool is_max) noexcept {
  if (ieee_mode && is_snan_f16(a)) return quiet_f16(a);
  if (ieee_mode && is_snan_f16(b)) return quiet_f16(b);
  if (is_nan_f16(a)) return b;
  if (is_nan_f16(b)) return a;
  if ((a | b) == 0x8000u && a != b) {
    const bool a_neg = a == 0x8000u;
    return is_max ? (a_neg ? b : a) : (a_neg ? a : b);
  }
  const float fa = f16_to_f32(a);
  const float fb = f16_to_f32(b);
  if (is_max) return (ieee_mode ? fa >= fb : fa > fb) ? a : b;
  return fa < fb ? a : b;
}
}  // namespace detail

[[nodiscard]] inline std::uint16_t min_f16(std::uint16_t a, std::uint16_t b, bool ieee_mode) noexcept {
  return detail::minmax_f16(a, b, ieee_mode, false);
}
[[nodiscard]] inline std::uint16_t max_f16(std::uint16_t a, std::uint16_t b, bool ieee_mode) noexcept {
  return detail::minmax_f16(a, b, ieee_mode, true);
}

/// v_med3_f32 [ISA V_MED3_F32]: any NaN -> min3 (min(min(a,b),c)); else the max of the two that are not the max3.
[[nodiscard]] inline float med3_f32(float a, float b, float c, bool ieee_mode) noexcept {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return min_f32(min_f32(a, b, ieee_mode), c, ieee_mode);
  const float m = max_f32(max_f32(a, b, ieee_mode), c, ieee_mode);
  if (m == a) return max_f32(b, c, ieee_mode);
  if (m == b) return max_f32(a, c, ieee_mode);
  return max_f32(a, b, ieee_mode);
}
/// v_med3_f16 [ISA V_MED3_F16], same rule on f16 bits.
[[nodiscard]] inline std::uint16_t med3_f16(std::uint16_t a, std::uint16_t b, std::uint16_t c, bool ieee_mode) noexcept {
  if (is_nan_f16(a) || is_nan_f16(b) || is_nan_f16(c)) return min_f16(min_f16(a, b, ieee_mode), c, ieee_mode);
  const std::uint16_t m = max_f16(max_f16(a, b, ieee_mode), c, ieee_mode);
  const float fm = f16_to_f32(m);
  if (fm == f16_to_f32(a)) return max_f16(b, c, ieee_mode);
  if (fm == f16_to_f32(b)) return max_f16(a, c, ieee_mode);
  return max_f16(a, b, ieee_mode);
}

// ---------------------------------------------------------------------------------------------------------------
// fract / frexp / ldexp / class
// ---------------------------------------------------------------------------------------------------------------

/// v_fract_f32 [ISA V_FRACT_F32]: S0 + -floor(S0) in RNE, "result clamped to 0x3f7fffff" (largest float below 1,
/// reached by tiny negative inputs). inf -> inf - inf = invalid -> default NaN; NaN -> quieted.
[[nodiscard]] inline float fract_f32(float x) noexcept {
  if (std::isnan(x)) return quiet(x);
  if (std::isinf(x)) return f32(default_nan_f32);
  const float r = x + -std::floor(x);  // x and floor(x) are floats; the sum is rounded once (RNE)
  return std::min(r, f32(0x3f7fffffu));
}
/// v_fract_f64 [ISA V_FRACT_F64]: clamp to 0x3fefffffffffffff.
[[nodiscard]] inline double fract_f64(double x) noexcept {
  if (std::isnan(x)) return quiet(x);
  if (std::isinf(x)) return f64(default_nan_f64);
  const double r = x + -std::floor(x);
  return std::min(r, f64(0x3fefffffffffffffull));
}
/// v_fract_f16 [ISA V_FRACT_F16]. x - floor(x) is exact in f32 for every f16 x, so one rounding to f16 happens. The
/// f16 notes do not mention the 1.0 clamp the f32/f64 ones do; we apply it (largest f16 below 1, 0x3bff) for the
/// same DX fract contract — an assumption, visible only for negative inputs within 2^-12 of an integer.
[[nodiscard]] inline std::uint16_t fract_f16(std::uint16_t h) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  if ((h & 0x7fffu) == 0x7c00u) return default_nan_f16;
  const float x = f16_to_f32(h);
  const std::uint16_t r = f32_to_f16(x - std::floor(x));
  return r == 0x3c00u ? std::uint16_t{0x3bffu} : r;
}

/// v_frexp_mant_f32 [ISA V_FREXP_MANT_F32]: inf/NaN returned unchanged (the pseudo-code passes S0 through; it
/// is not quieted), else the significand in [0.5, 1) with S0's sign (denormals normalised, +-0 -> +-0).
[[nodiscard]] inline float frexp_mant_f32(float x) noexcept {
  if (!std::isfinite(x)) return x;
  int e = 0;
  return std::frexp(x, &e);
}
/// v_frexp_exp_i32_f32 [ISA V_FREXP_EXP_I32_F32]: 0 for inf/NaN (also [LLVM-IC] "Match instruction special case
/// behavior"), else the exponent with S0 = mant * 2^exp; 0 for +-0.
[[nodiscard]] inline std::int32_t frexp_exp_f32(float x) noexcept {
  if (!std::isfinite(x)) return 0;
  int e = 0;
  (void)std::frexp(x, &e);
  return e;
}
[[nodiscard]] inline double frexp_mant_f64(double x) noexcept {
  if (!std::isfinite(x)) return x;
  int e = 0;
  return std::frexp(x, &e);
}
[[nodiscard]] inline std::int32_t frexp_exp_f64(double x) noexcept {
  if (!std::isfinite(x)) return 0;
  int e = 0;
  (void)std::frexp(x, &e);
  return e;
}
/// v_frexp_mant_f16 / v_frexp_exp_i16_f16 [ISA]; f16 denormals are accepted.
[[nodiscard]] inline std::uint16_t frexp_mant_f16(std::uint16_t h) noexcept {
  if ((h & 0x7c00u) == 0x7c00u) return h;
  int e = 0;
  return f32_to_f16(std::frexp(f16_to_f32(h), &e));  // exact: the mantissa keeps h's 11 significant bits
}
[[nodiscard]] inline std::int16_t frexp_exp_f16(std::uint16_t h) noexcept {
  if ((h & 0x7c00u) == 0x7c00u) return 0;
  int e = 0;
  (void)std::frexp(f16_to_f32(h), &e);
  return static_cast<std::int16_t>(e);
}

/// v_ldexp_f32 [ISA V_LDEXP_F32 "S0.f32 * 2.0F ** S1.i32"]: one rounding (RNE), denormal results kept, overflow to
/// inf, sNaN quieted (it is a multiplication). Any i32 exponent is valid.
[[nodiscard]] inline float ldexp_f32(float x, std::int32_t e) noexcept {
  if (std::isnan(x)) return quiet(x);
  const int ec = static_cast<int>(std::clamp<std::int32_t>(e, -400, 400));  // beyond +-400 the result is 0 or inf
  return std::ldexp(x, ec);
}
[[nodiscard]] inline double ldexp_f64(double x, std::int32_t e) noexcept {
  if (std::isnan(x)) return quiet(x);
  const int ec = static_cast<int>(std::clamp<std::int32_t>(e, -2200, 2200));
  return std::ldexp(x, ec);
}
/// v_ldexp_f16 [ISA V_LDEXP_F16 "S0.f16 * 16'F(2.0F ** 32'I(S1.i16))"]: pass the sign-extended low 16 bits of S1.
/// Exact in f64 then one rounding to f16.
[[nodiscard]] inline std::uint16_t ldexp_f16(std::uint16_t h, std::int32_t e) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  const int ec = static_cast<int>(std::clamp<std::int32_t>(e, -100, 100));
  return f64_to_f16(std::ldexp(static_cast<double>(f16_to_f32(h)), ec));
}

/// Class mask bits of v_cmp_class_* [ISA V_CMP_CLASS_F32]: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0,
/// 6 +0, 7 +denormal, 8 +normal, 9 +inf. Returns the one bit that describes the value; the instruction's result is
/// (class_bit(x) & S1) != 0.
/// The class bit of an IEEE binary value with an E-bit exponent and an M-bit mantissa (the quiet bit is the
/// mantissa's top bit).
template <int E, int M>
[[nodiscard]] constexpr std::uint32_t class_bit_ieee(std::uint64_t b) noexcept {
  const bool neg = ((b >> (E + M)) & 1u) != 0;
  const std::uint64_t e = (b >> M) & ((std::uint64_t{1} << E) - 1);
  const std::uint64_t m = b & ((std::uint64_t{1} << M) - 1);
  if (e == (std::uint64_t{1} << E) - 1) {
    if (m == 0) return neg ? 1u << 2 : 1u << 9;
    return ((m >> (M - 1)) & 1u) != 0 ? 1u << 1 : 1u << 0;
  }
  if (e != 0) return neg ? 1u << 3 : 1u << 8;
  if (m != 0) return neg ? 1u << 4 : 1u << 7;
  return neg ? 1u << 5 : 1u << 6;
}
[[nodiscard]] inline constexpr std::uint32_t class_bit_f32(std::uint32_t b) noexcept { return class_bit_ieee<8, 23>(b); }
[[nodiscard]] inline constexpr std::uint32_t class_bit_f16(std::uint16_t h) noexcept { return class_bit_ieee<5, 10>(h); }
[[nodiscard]] inline constexpr std::uint32_t class_bit_f64(std::uint64_t b) noexcept { return class_bit_ieee<11, 52>(b); }
[[nodiscard]] inline constexpr bool class_f32(float x, std::uint32_t mask) noexcept {
  return (class_bit_f32(bits(x)) & mask) != 0;
}
[[nodiscard]] inline constexpr bool class_f64(double x, std::uint32_t mask) noexcept {
  return (class_bit_f64(bits64(x)) & mask) != 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Division macro helpers [ISA V_DIV_SCALE_F32/F64, V_DIV_FMAS_F32/F64, V_DIV_FIXUP_F32/F64/F16]
// ---------------------------------------------------------------------------------------------------------------
// The PDF pseudo-code has four defects that this code corrects; each correction is what makes the LLVM division
// sequence [LLVM-DIV] return the correctly rounded quotient for every input class (checked by the tests):
//  1. V_DIV_FMAS: the PDF says "2.0F ** 32 * fma(...)". Hardware scales by 2^+64 when exponent(S2) > 127 (the
//     quotient estimate is >= 2: the denominator was scaled up) and by 2^-64 otherwise (the numerator was scaled
//     up, or the denominator down); f64: 2^+-128, threshold 1023. [TG] records this from RDNA3 hardware.
//  2. V_DIV_SCALE "1.0 / 64'F(S1.f32) == DENORM.f64": a double reciprocal of an f32 is never a double denormal;
//     read as "1/S1 is below the f32 normal range" (|S1| > 2^126), the only reading under which the branch does
//     anything. f64: |S1| > 2^1022.
//  3. V_DIV_SCALE, branch "1/S1 denormal and S2/S1 denormal": the PDF scales the denominator by 2^+64, which makes
//     its reciprocal smaller still (and overflows d for f64). The consistent action, used here, scales it by 2^-64
//     (f64: 2^-128); with VCC set, V_DIV_FMAS then rescales the quotient by 2^-64.
//  4. V_DIV_FIXUP: the PDF returns +-|S0| when no special case applies, even when S0 is NaN. Hardware returns
//     +-inf (OVERFLOW) then [TG]; that is the case of a quotient that overflows inside the macro.
// An unscaled result is S0 itself (the PDF leaves D0 unassigned on those paths; [TG] passes S0 through).
// [TG] also reports VCC=1 for zero inputs and tiny numerators, and NaN for denormal denominators; those were
// observed with f32 denormals flushed and contradict correction 1 with denormals on, so they are not applied.

/// Result of v_div_scale_*: the scaled S0 and this lane's VCC bit.
struct DivScale {
  float value;
  bool vcc;
};
struct DivScale64 {
  double value;
  bool vcc;
};

namespace detail {
/// Biased exponent field ("exponent(x)" in the ISA pseudo-code).
[[nodiscard]] inline constexpr int exp_field(float x) noexcept { return static_cast<int>((bits(x) >> 23) & 0xff); }
[[nodiscard]] inline constexpr int exp_field(double x) noexcept { return static_cast<int>((bits64(x) >> 52) & 0x7ff); }

/// |n / d| < 2^lim for finite non-zero n, d, decided exactly (no rounding of the quotient): with n = mn * 2^en,
/// d = md * 2^ed (frexp), |n/d| = (|mn|/|md|) * 2^(en-ed) and |mn|/|md| lies in (0.5, 2).
template <class F>
[[nodiscard]] inline bool quotient_below(F n, F d, int lim) noexcept {
  int en = 0;
  int ed = 0;
  const F mn = std::fabs(std::frexp(n, &en));
  const F md = std::fabs(std::frexp(d, &ed));
  const int k = lim - (en - ed);  // need mn/md < 2^k  <=>  mn < md * 2^k (md * 2^k exact: a power-of-two scale)
  if (k >= 2) return true;
  if (k <= -2) return false;
  return mn < std::ldexp(md, k);
}

template <class F, class Out>
[[nodiscard]] inline Out div_scale_impl(F s0, F s1, F s2, int big_diff, int scale, int tiny_num_exp, int rcp_lim_exp,
                                        int denorm_exp) noexcept {
  const int e1 = exp_field(s1);
  const int e2 = exp_field(s2);
  // Hot path: normal operands far from every case below (denominator not near the top of the range, numerator not
  // tiny, quotient neither huge nor near the denormal range) are returned unscaled. Each bound leaves a margin of
  // several binades to the exact tests that follow.
  {
    constexpr int bias = std::numeric_limits<F>::max_exponent - 1;
    const int d = e2 - e1;
    if (e1 >= 1 && e1 + 2 <= rcp_lim_exp + bias && e2 > tiny_num_exp && e2 < 2 * bias + 1 && d < big_diff &&
        d >= denorm_exp + 6)
      return {s0, false};
  }
  if (s2 == F(0) || s1 == F(0)) return {std::numeric_limits<F>::quiet_NaN(), false};
  // NaN/inf operands fall through every test below (fixup handles them): comparisons with NaN are false.
  const bool finite = std::isfinite(s1) && std::isfinite(s2);
  if (e2 - e1 >= big_diff) {  // N/D near the format's max: scale the denominator up
    return {s0 == s1 ? std::ldexp(s0, scale) : s0, true};
  }
  if (std::fpclassify(s1) == FP_SUBNORMAL) return {std::ldexp(s0, scale), false};
  const bool rcp_denorm = finite && std::fabs(s1) > std::ldexp(F(1), rcp_lim_exp);  // correction 2
  const bool quo_denorm = finite && quotient_below(s2, s1, denorm_exp);
  if (rcp_denorm && quo_denorm) return {s0 == s1 ? std::ldexp(s0, -scale) : s0, true};  // correction 3
  if (rcp_denorm) return {std::ldexp(s0, -scale), false};
  if (quo_denorm) return {s0 == s2 ? std::ldexp(s0, scale) : s0, true};
  if (e2 <= tiny_num_exp) return {std::ldexp(s0, scale), false};  // numerator tiny
  return {s0, false};
}
}  // namespace detail

/// v_div_scale_f32 (S0 = value to scale, S1 = denominator, S2 = numerator). ldexp here is exact or overflows as
/// hardware does; zero operands give NaN (the macro's fixup produces the IEEE result).
[[nodiscard]] inline DivScale div_scale_f32(float s0, float s1, float s2) noexcept {
  return detail::div_scale_impl<float, DivScale>(s0, s1, s2, 96, 64, 23, 126, -126);
}
[[nodiscard]] inline DivScale64 div_scale_f64(double s0, double s1, double s2) noexcept {
  return detail::div_scale_impl<double, DivScale64>(s0, s1, s2, 768, 128, 53, 1022, -1022);
}

namespace detail {
/// Round-to-odd of p + c in the wide type W (round-to-nearest sum, corrected with the exact TwoSum error): when the
/// sum is inexact the result is the truncated value with its last bit set. A later round-to-nearest into a format
/// with at least 2 fewer significant bits (also after an exact power-of-two scaling, even into the denormal range)
/// is then the correctly rounded value of the exact sum (Boldo & Melquiond, "Emulation of FMA and correctly rounded
/// sums: proved algorithms using rounding to odd", IEEE TC 2008).
template <class W, class U>
[[nodiscard]] inline W round_odd_sum(W p, W c) noexcept {
  const W s = p + c;
  const W bp = s - c;  // TwoSum (Knuth): err = (p - bp) + (c - (s - bp)), exact in round-to-nearest
  const W err = (p - bp) + (c - (s - bp));
  if (err == W(0) || s != s || s - s != W(0)) return s;  // exact, NaN or infinite: nothing to correct
  U u;
  std::memcpy(&u, &s, sizeof u);
  // Round-toward-zero value: s overshot |exact| when err points back toward zero.
  const bool s_pos = s > W(0);
  const bool overshoot = s_pos ? err < W(0) : err > W(0);
  if (overshoot) u -= 1;  // one ulp toward zero (|s| >= the smallest normal here, or s is exactly representable)
  u |= 1;                 // sticky: inexact -> odd
  W out;
  std::memcpy(&out, &u, sizeof out);
  return out;
}
}  // namespace detail

/// p + c in f64 rounded to odd, without branches (lanes of one instruction take both ways at random): the
/// round-to-nearest sum corrected by the exact TwoSum error (Knuth): an inexact result is moved to the value
/// truncated toward zero, with its last bit set. Infinities and NaNs pass through. Rounding the result once more to
/// a format with at least two fewer significand bits is correctly rounded (Boldo & Melquiond, above).
[[nodiscard]] inline double add_round_odd(double p, double c) noexcept {
  const double s = p + c;
  const double bp = s - c;
  const double err = (p - bp) + (c - (s - bp));
  // Integer shifts, adds and masks only (no compares, which a baseline x86-64 vectoriser cannot do on 64-bit lanes):
  // inexact = err is not +-0 and s is finite; overshoot = err and s have opposite signs.
  const std::uint64_t u = bits64(s), eb = bits64(err), e2 = eb << 1;
  const std::uint64_t nonzero = (e2 | (0 - e2)) >> 63;
  const std::uint64_t finite = 1 - ((((u >> 52) & 0x7ffu) + 1) >> 11);
  const std::uint64_t inexact = nonzero & finite;
  const std::uint64_t overshoot = ((eb ^ u) >> 63) & inexact;
  return f64((u - overshoot) | inexact);
}

/// f32 fused multiply-add without a libm call: a*b is exact in f64 (48-bit product), the sum is rounded to odd in
/// f64 and then rounded once to f32, which gives the correctly rounded fma (Boldo & Melquiond 2008, above). Signed
/// zeros, infinities and NaNs come out as IEEE fma gives them (the f64 operations see the same special values).
[[nodiscard]] inline float fma_f32(float a, float b, float c) noexcept {
  const double p = static_cast<double>(a) * static_cast<double>(b), cc = static_cast<double>(c);
  // Fast path: s = RN53(exact). Rounding s to f32 differs from rounding the exact value only when s is exactly
  // halfway between two floats (f32 midpoints are f64 values and RN53 is monotonic, so the exact value lies on the
  // same side of every other midpoint as s). Normal f32 range only; the rest takes the round-to-odd path. With f32
  // data the branch is almost never taken; fma_f32_odd is the branch-free form for data that often lands on
  // halfway points (sources widened from f16: v_fma_mix_f32).
  const double s = p + cc;
  const std::uint64_t u = bits64(s) & 0x7fffffffffffffffull;
  if (u >= 0x3810000000000000ull && u < 0x47f0000000000000ull && (u & 0x1fffffffull) != 0x10000000ull)
    return static_cast<float>(s);
  return static_cast<float>(add_round_odd(p, cc));
}
/// The same fused multiply-add always through the round-to-odd sum: no branch, so a loop over lanes vectorises.
[[nodiscard]] inline float fma_f32_odd(float a, float b, float c) noexcept {
  return static_cast<float>(add_round_odd(static_cast<double>(a) * static_cast<double>(b), static_cast<double>(c)));
}

/// v_div_fmas_f32: fma(a, b, c), then scaled by 2^+-64 when this lane's VCC is set (correction 1 above). Rounded
/// once: the scaling is applied to the exact fma result (it is "a scale of the exponent"), which matters when the
/// scaled quotient is denormal. Input denormals are not flushed [ISA notes].
[[nodiscard]] inline float div_fmas_f32(float a, float b, float c, bool vcc) noexcept {
  if (!vcc) return fma_f32(a, b, c);
  const int k = detail::exp_field(c) > 127 ? 64 : -64;
  // a*b is exact in double; round-to-odd of the sum in double (53 >= 24 + 2 bits), exact scaling, one RNE to f32.
  const double p = static_cast<double>(a) * static_cast<double>(b);
  const double s = detail::round_odd_sum<double, std::uint64_t>(p, static_cast<double>(c));
  return static_cast<float>(std::ldexp(s, k));
}
/// v_div_fmas_f64: as div_fmas_f32 with 2^+-128 (threshold exponent(S2) > 1023). The single rounding of a denormal
/// scaled result needs a wider type: __float128 where the compiler has it (GCC, Clang on x86-64); elsewhere the fma
/// and the scaling round separately, which can be 1 ulp off for quotients below 2^-1022.
[[nodiscard]] inline double div_fmas_f64(double a, double b, double c, bool vcc) noexcept {
  if (!vcc) return std::fma(a, b, c);
  const int k = detail::exp_field(c) > 1023 ? 128 : -128;
#if defined(__SIZEOF_FLOAT128__) && defined(__SIZEOF_INT128__)
  __extension__ typedef unsigned __int128 U128;  // __extension__: no -Wpedantic noise in users' builds
  __extension__ typedef __float128 F128;
  const F128 p = static_cast<F128>(a) * static_cast<F128>(b);  // exact: 106 <= 113 bits
  F128 s = detail::round_odd_sum<F128, U128>(p, static_cast<F128>(c));
  // Exact power-of-two scaling of a binary128 (no libquadmath): multiply by 2^k built from its bits.
  const U128 scale_bits = static_cast<U128>(16383 + k) << 112;
  F128 scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  s *= scale;
  return static_cast<double>(s);
#else
  return std::ldexp(std::fma(a, b, c), k);
#endif
}

namespace detail {
template <class F>
[[nodiscard]] inline F div_fixup_impl(F s0, F s1, F s2, int underflow_diff, int max_exp_field, F nan_default) noexcept {
  const bool sign_out = std::signbit(s1) != std::signbit(s2);
  constexpr F inf = std::numeric_limits<F>::infinity();
  if (std::isnan(s2)) return quiet(s2);
  if (std::isnan(s1)) return quiet(s1);
  if (s1 == F(0) && s2 == F(0)) return nan_default;                      // 0/0
  if (std::isinf(s1) && std::isinf(s2)) return nan_default;              // inf/inf
  if (s1 == F(0) || std::isinf(s2)) return sign_out ? -inf : inf;        // x/0, inf/y
  if (std::isinf(s1) || s2 == F(0)) return sign_out ? -F(0) : F(0);      // x/inf, 0/y
  if (exp_field(s2) - exp_field(s1) < underflow_diff) return sign_out ? -F(0) : F(0);  // UNDERFLOW: rounds to 0
  if (exp_field(s1) == max_exp_field) return sign_out ? -inf : inf;      // OVERFLOW (unreachable: s1 inf/NaN above)
  // Correction 4 ([TG], RDNA3 hardware): a NaN quotient estimate with finite non-zero operands means the macro
  // overflowed (q' = inf, then inf - inf in the Newton step): the result is OVERFLOW, i.e. +-inf.
  if (std::isnan(s0)) return sign_out ? -inf : inf;
  return sign_out ? -std::fabs(s0) : std::fabs(s0);
}
}  // namespace detail

/// v_div_fixup_f32 (S0 = quotient, S1 = denominator, S2 = numerator) [ISA V_DIV_FIXUP_F32]. UNDERFLOW_F32 is taken
/// as a zero of the result's sign (an exponent difference below -150 always rounds to zero).
[[nodiscard]] inline float div_fixup_f32(float s0, float s1, float s2) noexcept {
  return detail::div_fixup_impl<float>(s0, s1, s2, -150, 255, f32(default_nan_f32));
}
[[nodiscard]] inline double div_fixup_f64(double s0, double s1, double s2) noexcept {
  return detail::div_fixup_impl<double>(s0, s1, s2, -1075, 2047, f64(default_nan_f64));
}
/// v_div_fixup_f16 on bits [ISA V_DIV_FIXUP_F16] (no underflow/overflow arms in the f16 pseudo-code).
[[nodiscard]] inline std::uint16_t div_fixup_f16(std::uint16_t s0, std::uint16_t s1, std::uint16_t s2) noexcept {
  const std::uint16_t sign_out = static_cast<std::uint16_t>((s1 ^ s2) & 0x8000u);
  const std::uint16_t a1 = s1 & 0x7fffu;
  const std::uint16_t a2 = s2 & 0x7fffu;
  if (is_nan_f16(s2)) return quiet_f16(s2);
  if (is_nan_f16(s1)) return quiet_f16(s1);
  if (a1 == 0 && a2 == 0) return default_nan_f16;
  if (a1 == 0x7c00u && a2 == 0x7c00u) return default_nan_f16;
  if (a1 == 0 || a2 == 0x7c00u) return static_cast<std::uint16_t>(sign_out | 0x7c00u);
  if (a1 == 0x7c00u || a2 == 0) return sign_out;
  return static_cast<std::uint16_t>(sign_out | (s0 & 0x7fffu));
}

// ---------------------------------------------------------------------------------------------------------------
// Transcendentals and square roots
// ---------------------------------------------------------------------------------------------------------------
// APPROXIMATE. Hardware documents 1 ulp (f32/f16) and 2^29 ulp (v_rcp_f64/v_rsq_f64/v_sqrt_f64) accuracy without
// publishing the exact function, so these return the correctly rounded (rcp, sqrt) or double-evaluated value. A
// result can differ from hardware by up to the documented ulp bound; the emulator reports these opcodes as
// "approximate". Special cases (inf, NaN, zeros, negatives, denormal flushing) follow [ISA] exactly:
//  - f32 v_exp/v_log/v_rcp/v_rsq/v_sqrt "denormals are flushed": a denormal input acts as a zero of its sign, a
//    denormal result becomes a zero of its sign ([LLVM-IC]: "f32 instruction doesn't handle denormals, f16 does";
//    "The instruction always flushes denormal results (except for f16)"). f16 versions keep denormals.
//  - NaN input -> the input quieted; invalid operation -> the default NaN (0xffc00000 / 0xfe00).
//  - v_sin/v_cos take revolutions: sin(S0 * 2pi), "Full range input is supported": reduced exactly mod 1.

namespace detail {
[[nodiscard]] inline float out_flush_f32(double r) noexcept { return flush_denorm_f32(static_cast<float>(r)); }

/// sin(2*pi*x) / cos(2*pi*x) for finite x, reducing exactly: x - nearbyint(x) is exact for a float or double
/// input, then quadrant selection makes multiples of 1/4 revolution exact (cos(0.25) = 0 as the ISA example shows).
[[nodiscard]] inline double sincos_rev(double x, bool want_cos) noexcept {
  const double r = x - std::nearbyint(x);        // [-0.5, 0.5], exact
  const double n = std::nearbyint(r * 4.0);      // quadrant -2..2 (r*4 exact)
  const double t = r - n * 0.25;                  // [-1/8, 1/8], exact
  const double a = t * 6.283185307179586476925286766559;
  const double s = std::sin(a);
  const double c = std::cos(a);
  int q = static_cast<int>(n) & 3;
  if (want_cos) q = (q + 1) & 3;                  // cos(x) = sin(x + 1/4 rev)
  double v = 0.0;
  switch (q) {
    case 0: v = s; break;
    case 1: v = c; break;
    case 2: v = -s; break;
    default: v = -c; break;
  }
  return v == 0.0 ? 0.0 : v;  // zero results are +0 (ISA: sin(-MaxFloat) = 0x00000000); +-0 inputs handled by callers
}
}  // namespace detail

/// v_exp_f32: 2^x. exp(-inf) = 0, exp(+-0) = 1, exp(+inf) = +inf [ISA examples]; denormal in -> 1, out -> 0.
[[nodiscard]] inline float exp2_f32(float x) noexcept {
  if (std::isnan(x)) return quiet(x);
  x = flush_denorm_f32(x);
  return detail::out_flush_f32(std::exp2(static_cast<double>(x)));
}
/// v_log_f32: log2(x). log(+-0) = -inf, log(negative or -inf) = default NaN, log(+inf) = +inf, log(1) = 0.
[[nodiscard]] inline float log2_f32(float x) noexcept {
  if (std::isnan(x)) return quiet(x);
  x = flush_denorm_f32(x);
  if (x == 0.0f) return -std::numeric_limits<float>::infinity();
  if (x < 0.0f) return f32(default_nan_f32);
  return static_cast<float>(std::log2(static_cast<double>(x)));
}
/// v_rcp_f32: 1/x correctly rounded (hardware: 1 ulp). rcp(+-0) = +-inf, rcp(+-inf) = +-0.
[[nodiscard]] inline float rcp_f32(float x) noexcept {
  if (std::isnan(x)) return quiet(x);
  x = flush_denorm_f32(x);
  return flush_denorm_f32(1.0f / x);
}
/// v_rsq_f32: 1/sqrt(x). rsq(+-0) = +-inf, rsq(+inf) = +0, rsq(negative or -inf) = default NaN.
[[nodiscard]] inline float rsq_f32(float x) noexcept {
  if (std::isnan(x)) return quiet(x);
  x = flush_denorm_f32(x);
  if (x == 0.0f) return std::signbit(x) ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  if (x < 0.0f) return f32(default_nan_f32);
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
}
/// v_sqrt_f32: sqrt(x) correctly rounded (hardware: 1 ulp). sqrt(-0) = -0, sqrt(negative) = default NaN.
[[nodiscard]] inline float sqrt_f32(float x) noexcept {
  if (std::isnan(x)) return quiet(x);
  x = flush_denorm_f32(x);
  if (x < 0.0f) return f32(default_nan_f32);
  return std::sqrt(x);
}
/// v_sin_f32: sin(x * 2pi). sin(+-inf) = default NaN, sin(+-0) = +-0, sin(0.25) = 1 [ISA examples].
[[nodiscard]] inline float sin_f32(float x) noexcept {
  if (std::isnan(x)) return quiet(x);
  if (std::isinf(x)) return f32(default_nan_f32);
  if (x == 0.0f) return x;
  return static_cast<float>(detail::sincos_rev(static_cast<double>(x), false));
}
/// v_cos_f32: cos(x * 2pi). cos(+-inf) = default NaN, cos(+-0) = 1, cos(0.25) = 0.
[[nodiscard]] inline float cos_f32(float x) noexcept {
  if (std::isnan(x)) return quiet(x);
  if (std::isinf(x)) return f32(default_nan_f32);
  return static_cast<float>(detail::sincos_rev(static_cast<double>(x), true));
}

/// f16 versions on bits: evaluated in f64 and rounded once to f16; f16 denormals supported in and out [ISA].
[[nodiscard]] inline std::uint16_t exp2_f16(std::uint16_t h) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  return f64_to_f16(std::exp2(static_cast<double>(f16_to_f32(h))));
}
[[nodiscard]] inline std::uint16_t log2_f16(std::uint16_t h) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  const double x = f16_to_f32(h);
  if (x == 0.0) return 0xfc00u;
  if (x < 0.0) return default_nan_f16;
  return f64_to_f16(std::log2(x));
}
[[nodiscard]] inline std::uint16_t rcp_f16(std::uint16_t h) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  return f64_to_f16(1.0 / static_cast<double>(f16_to_f32(h)));  // 1/x in f64 then f16: no double-rounding error
}
[[nodiscard]] inline std::uint16_t rsq_f16(std::uint16_t h) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  const double x = f16_to_f32(h);
  if (x == 0.0) return static_cast<std::uint16_t>((h & 0x8000u) | 0x7c00u);
  if (x < 0.0) return default_nan_f16;
  return f64_to_f16(1.0 / std::sqrt(x));
}
[[nodiscard]] inline std::uint16_t sqrt_f16(std::uint16_t h) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  const double x = f16_to_f32(h);
  if (x < 0.0) return default_nan_f16;
  return f64_to_f16(std::sqrt(x));  // sqrt(-0) = -0
}
[[nodiscard]] inline std::uint16_t sin_f16(std::uint16_t h) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  if ((h & 0x7fffu) == 0x7c00u) return default_nan_f16;
  if ((h & 0x7fffu) == 0) return h;
  return f64_to_f16(detail::sincos_rev(f16_to_f32(h), false));
}
[[nodiscard]] inline std::uint16_t cos_f16(std::uint16_t h) noexcept {
  if (is_nan_f16(h)) return quiet_f16(h);
  if ((h & 0x7fffu) == 0x7c00u) return default_nan_f16;
  return f64_to_f16(detail::sincos_rev(f16_to_f32(h), true));
}

/// f64: v_rcp_f64 / v_rsq_f64 / v_sqrt_f64 ("2**29 ULP accuracy and supports denormals" [ISA]); correctly rounded
/// here, so they are at least as accurate as hardware but not bit-identical to it.
[[nodiscard]] inline double rcp_f64(double x) noexcept {
  if (std::isnan(x)) return quiet(x);
  return 1.0 / x;
}
[[nodiscard]] inline double rsq_f64(double x) noexcept {
  if (std::isnan(x)) return quiet(x);
  if (x == 0.0) return std::signbit(x) ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (x < 0.0) return f64(default_nan_f64);
  return 1.0 / std::sqrt(x);
}
[[nodiscard]] inline double sqrt_f64(double x) noexcept {
  if (std::isnan(x)) return quiet(x);
  if (x < 0.0) return f64(default_nan_f64);
  return std::sqrt(x);
}

}  // namespace asmevo::emu::fp
