// Floating-point storage formats, bit-exact: bit casts, NaN classification, rounding, and the conversions between
// f64/f32 and f16, bf16 and the fp8 kinds. Used by the launch-spec initialisers and by the emulator's semantics.
#pragma once

// Sources, cited below by short name:
//  [ISA]      AMD Instinct MI300 ISA (CDNA3), chapter "Vector ALU instructions" and its per-opcode pseudo-code (the
//             conversion and NaN rules are identical in the CDNA4 guide).
//  [HIP-FP8]  ROCm amd_hip_fp8.h / ck_tile float8.hpp: AMD's reference fp8 conversions for gfx942 (fnuz) and OCP.
//
// Every function is total (no UB, no assert) for every input bit pattern, and nothing allocates.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace asmevo::floats {

// ---------------------------------------------------------------------------------------------------------------
// Bit casts
// ---------------------------------------------------------------------------------------------------------------

[[nodiscard]] inline constexpr float f32(std::uint32_t b) noexcept { return std::bit_cast<float>(b); }
[[nodiscard]] inline constexpr std::uint32_t bits(float f) noexcept { return std::bit_cast<std::uint32_t>(f); }
[[nodiscard]] inline constexpr double f64(std::uint64_t b) noexcept { return std::bit_cast<double>(b); }
[[nodiscard]] inline constexpr std::uint64_t bits64(double d) noexcept { return std::bit_cast<std::uint64_t>(d); }

/// Rounding modes as in the MODE register's FP_ROUND field [ISA "MODE register"].
enum class Round : std::uint8_t { nearest_even = 0, plus_inf = 1, minus_inf = 2, toward_zero = 3 };

/// NaNs the hardware generates for an invalid operation: sign set, quiet bit set, zero payload. [ISA] V_LOG_F32
/// (log(-1) => 0xffc00000), V_SQRT_F16 (sqrt(-inf) => 0xfe00), V_DIV_FIXUP_F64 (0/0 => 0xfff8000000000000).
inline constexpr std::uint32_t default_nan_f32 = 0xffc00000u;
inline constexpr std::uint16_t default_nan_f16 = 0xfe00u;
inline constexpr std::uint64_t default_nan_f64 = 0xfff8000000000000ull;

// ---------------------------------------------------------------------------------------------------------------
// Classification on bits
// ---------------------------------------------------------------------------------------------------------------

[[nodiscard]] inline constexpr bool is_nan_f32(std::uint32_t b) noexcept { return (b & 0x7fffffffu) > 0x7f800000u; }
[[nodiscard]] inline constexpr bool is_nan_f16(std::uint16_t h) noexcept { return (h & 0x7fffu) > 0x7c00u; }
[[nodiscard]] inline constexpr bool is_nan_f64(std::uint64_t b) noexcept {
  return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
/// Signaling NaN: quiet bit (top mantissa bit) clear [ISA V_CMP_CLASS "isSignalNAN"; IEEE 754-2008 §6.2.1].
[[nodiscard]] inline constexpr bool is_snan_f32(std::uint32_t b) noexcept {
  return is_nan_f32(b) && (b & 0x00400000u) == 0;
}
[[nodiscard]] inline constexpr bool is_snan_f16(std::uint16_t h) noexcept { return is_nan_f16(h) && (h & 0x0200u) == 0; }
[[nodiscard]] inline constexpr bool is_snan_f64(std::uint64_t b) noexcept {
  return is_nan_f64(b) && (b & 0x0008000000000000ull) == 0;
}
/// cvtToQuietNAN [ISA]: set the quiet bit, keep sign and payload.
[[nodiscard]] inline constexpr std::uint32_t quiet_f32(std::uint32_t b) noexcept { return b | 0x00400000u; }
[[nodiscard]] inline constexpr std::uint16_t quiet_f16(std::uint16_t h) noexcept {
  return static_cast<std::uint16_t>(h | 0x0200u);
}
[[nodiscard]] inline constexpr std::uint64_t quiet_f64(std::uint64_t b) noexcept { return b | 0x0008000000000000ull; }
[[nodiscard]] inline float quiet(float f) noexcept { return f32(quiet_f32(bits(f))); }
[[nodiscard]] inline double quiet(double d) noexcept { return f64(quiet_f64(bits64(d))); }

// ---------------------------------------------------------------------------------------------------------------
// Generic rounding to a small binary format (used by f16, fp8 and the f16 side of f64_to_f16)
// ---------------------------------------------------------------------------------------------------------------

namespace detail {

/// Rounds |x| (given as a finite non-zero double's bits) to a format with `mbits` stored mantissa bits and minimum
/// normal exponent `emin`, with an unbounded exponent range. Returns the magnitude code ((exponent field) << mbits |
/// mantissa) computed as if the exponent field had no maximum; the caller compares it with its largest finite code.
/// Rounding carries into the exponent field naturally because the code is built as ((te - emin) << mbits) + q, where
/// q keeps the implicit bit (IEEE 754-2008 §4.3 rounding of the infinitely precise value; one rounding only).
[[nodiscard]] inline std::uint64_t round_magnitude(std::uint64_t xbits, int mbits, int emin, Round r) noexcept {
  const bool neg = (xbits >> 63) != 0;
  const int efield = static_cast<int>((xbits >> 52) & 0x7ff);
  std::uint64_t m = xbits & 0x000fffffffffffffull;
  int e;  // value = m * 2^(e - 52), m with its implicit bit
  if (efield == 0) {
    // f64 denormal: normalise so that bit 52 is the leading one.
    const int lz = std::countl_zero(m) - 11;  // m != 0 (caller excludes zero)
    m <<= lz;
    e = -1022 - lz;
  } else {
    m |= 0x0010000000000000ull;
    e = efield - 1023;
  }
  const int te = e < emin ? emin : e;
  const int shift = (52 - mbits) + (te - e);
  std::uint64_t q;
  bool above_half;
  bool at_half;
  bool inexact;
  if (shift >= 64) {
    q = 0;
    inexact = true;
    above_half = false;
    at_half = false;
  } else {
    q = m >> shift;
    const std::uint64_t rem = m & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t half = std::uint64_t{1} << (shift - 1);  // shift >= 52 - mbits >= 1 for every caller
    inexact = rem != 0;
    above_half = rem > half;
    at_half = rem == half;
  }
  bool up = false;
  switch (r) {
    case Round::nearest_even: up = above_half || (at_half && (q & 1)); break;
    case Round::toward_zero: up = false; break;
    case Round::plus_inf: up = inexact && !neg; break;
    case Round::minus_inf: up = inexact && neg; break;
  }
  q += up ? 1 : 0;
  return (static_cast<std::uint64_t>(te - emin) << mbits) + q;
}

/// True when rounding mode `r` sends an overflowing value of this sign to the largest finite value rather than to
/// infinity (IEEE 754-2008 §7.4).
[[nodiscard]] inline constexpr bool overflow_to_max(bool neg, Round r) noexcept {
  return r == Round::toward_zero || (r == Round::plus_inf && neg) || (r == Round::minus_inf && !neg);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// f16
// ---------------------------------------------------------------------------------------------------------------

/// Exact decode (every f16 is an f32), denormals kept [ISA V_CVT_F32_F16 "0ULP accuracy, FP16 denormal inputs are
/// accepted"]. NaN payload is shifted into the top of the f32 payload, as an exact widening does.
[[nodiscard]] inline float f16_to_f32(std::uint16_t h) noexcept {
  // Branch-free, so that loops over a wave's lanes vectorise: the exponent/significand field moved to f32's place
  // and rebiased by 112 (normal) or 224 (inf/NaN, giving exponent 255 and the payload in the top bits); a zero or
  // denormal is m * 2^-24, which int->float conversion and a power-of-two scaling give exactly (m < 2^10).
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t em = h & 0x7fffu;
  const std::uint32_t e = em & 0x7c00u;
  const std::uint32_t normal = (em << 13) + (112u << 23);
  const std::uint32_t special = (em << 13) + (224u << 23);
  const std::uint32_t tiny = bits(static_cast<float>(static_cast<std::int32_t>(em)) * 0x1p-24f);
  // Selection by masks, not ?: (which compilers turn into branches that stop vectorisation): e + 0x400 reaches
  // bit 15 only for e = 0x7c00, e - 1 wraps to bit 31 only for e = 0.
  const std::uint32_t is_special = 0u - ((e + 0x400u) >> 15), is_tiny = 0u - ((e - 1u) >> 31);
  const std::uint32_t mag = (normal & ~(is_special | is_tiny)) | (special & is_special) | (tiny & is_tiny);
  return f32(sign | mag);
}

namespace detail {
/// f64 value (any) -> f16 bits with one rounding in mode `r`. NaN: quiet, sign and the top 9 payload bits kept
/// (IEEE 754-2008 §6.2.3 recommends keeping the payload; the ISA does not say which bits survive — see f32_to_f16).
[[nodiscard, gnu::noinline]] inline std::uint16_t f64_to_f16_general(double d, Round r) noexcept {
  const std::uint64_t b = bits64(d);
  const std::uint16_t sign = static_cast<std::uint16_t>((b >> 48) & 0x8000u);
  const std::uint64_t a = b & 0x7fffffffffffffffull;
  if (a > 0x7ff0000000000000ull)
    return static_cast<std::uint16_t>(sign | 0x7e00u | static_cast<std::uint16_t>((a >> 42) & 0x1ffu));
  if (a == 0x7ff0000000000000ull) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (a == 0) return sign;
  const std::uint64_t code = round_magnitude(b, 10, -14, r);
  if (code >= 0x7c00u) return static_cast<std::uint16_t>(sign | (overflow_to_max(sign != 0, r) ? 0x7bffu : 0x7c00u));
  return static_cast<std::uint16_t>(sign | code);
}
/// The same, with the hot case inline: round to nearest even of a value that neither overflows nor is a NaN.
[[nodiscard, gnu::always_inline]] inline std::uint16_t f64_to_f16_mode(double d, Round r) noexcept {
  const std::uint64_t b = bits64(d);
  const std::uint16_t sign = static_cast<std::uint16_t>((b >> 48) & 0x8000u);
  const std::uint64_t a = b & 0x7fffffffffffffffull;
  if (r != Round::nearest_even || a >= 0x40effe0000000000ull) return f64_to_f16_general(d, r);  // |d| >= 65520, NaN
  if (a >= 0x3f10000000000000ull) {  // |d| >= 2^-14: a normal f16; rebias the exponent, round 42 bits away
    const std::uint64_t m = a & 0x000fffffffffffffull;
    std::uint64_t h = (((a >> 52) - 1008u) << 10) | (m >> 42);
    const std::uint64_t rem = m & 0x3ffffffffffull, half = 0x20000000000ull;
    h += static_cast<std::uint64_t>((rem > half) | ((rem == half) & (h & 1u)));  // a carry into the exponent is right
    return static_cast<std::uint16_t>(sign | h);
  }
  // Subnormal (or zero): the f16 code is |d| * 2^24 rounded to an integer, ties to even; adding 2^52 makes the FPU
  // do that rounding (|d| * 2^24 < 1024 is exact, and the host runs in its default round-to-nearest-even mode).
  const double scaled = f64(a) * 16777216.0 + 4503599627370496.0;
  return static_cast<std::uint16_t>(sign | (bits64(scaled) & 0x7ffu));
}
}  // namespace detail

/// v_cvt_f16_f32: one rounding in mode `r`, f16 denormals produced, overflow to inf or max per IEEE rounding
/// direction [ISA V_CVT_F16_F32 "0.5ULP accuracy ... creates FP16 denormals"]. Output flushing (MODE FP_DENORM for
/// f16/f64 without output denormals) is the caller's job: flush_denorm_f16. NaN: quieted with its sign and top 9
/// payload bits — an assumption (IEEE 754 recommendation, also what LLVM's APFloat folding does); the ISA does not
/// specify which payload bits survive, so a kernel whose output depends on NaN payloads may differ from hardware.
[[nodiscard]] inline std::uint16_t f32_to_f16(float f, Round r = Round::nearest_even) noexcept {
  return detail::f64_to_f16_mode(static_cast<double>(f), r);
}

/// f64 -> f16 in one rounding (RNE), unlike f64->f32->f16 which can double-round. Used for buffer initialisation.
[[nodiscard, gnu::always_inline]] inline std::uint16_t f64_to_f16(double d) noexcept { return detail::f64_to_f16_mode(d, Round::nearest_even); }

/// f64_to_f16 over an array, in two passes so that the first vectorises: round to nearest even of the values below
/// the overflow threshold with integer shifts and masks only (the same normal/subnormal computation as
/// f64_to_f16_mode, no compares), then the rare lanes at or above it (|d| >= 65520, infinities, NaNs) one by one.
inline void f64_to_f16_lanes(const double* in, std::uint16_t* out, unsigned n) noexcept {
  std::uint64_t big = 0;
  for (unsigned l = 0; l < n; ++l) {
    const std::uint64_t b = bits64(in[l]);
    const std::uint64_t a = b & 0x7fffffffffffffffull;
    const std::uint64_t m = a & 0x000fffffffffffffull;
    std::uint64_t h = (((a >> 52) - 1008u) << 10) | (m >> 42);
    const std::uint64_t round = (m >> 41) & 1u, rest = m & 0x1ffffffffffull;
    const std::uint64_t sticky = (rest | (0 - rest)) >> 63;
    h += round & (sticky | (h & 1u));
    const std::uint64_t sub = bits64(f64(a) * 16777216.0 + 4503599627370496.0) & 0x7ffu;  // valid when subnormal
    const std::uint64_t is_sub = 0 - ((a - 0x3f10000000000000ull) >> 63);                // a < 2^-14
    big |= ((0x40effe0000000000ull - 1 - a) >> 63);                                      // a >= 65520 or inf/NaN
    out[l] = static_cast<std::uint16_t>(((b >> 48) & 0x8000u) | ((h & ~is_sub) | (sub & is_sub)));
  }
  if (big)
    for (unsigned l = 0; l < n; ++l)
      if ((bits64(in[l]) & 0x7fffffffffffffffull) >= 0x40effe0000000000ull) out[l] = f64_to_f16(in[l]);
}


// ---------------------------------------------------------------------------------------------------------------
// bf16
// ---------------------------------------------------------------------------------------------------------------

/// Exact: bf16 is the top half of an f32 [ISA V_CVT_F32_BF16 "D0.f32 = 32'F({ S0.b16, 16'0U })"].
[[nodiscard]] inline float bf16_to_f32(std::uint16_t b) noexcept { return f32(static_cast<std::uint32_t>(b) << 16); }

/// f32 -> bf16, round to nearest even; NaN -> quiet NaN keeping sign and top payload bits (the rule of
/// V_CVT_PK_BF16_F32 on gfx950, [ISA] "ROUND_MODE = ROUND_NEAREST_EVEN"; gfx942 has no such opcode, kernels there
/// do it with integer ops, so this is also the buffer-initialisation conversion).
[[nodiscard]] inline std::uint16_t f32_to_bf16(float f) noexcept {
  const std::uint32_t b = bits(f);
  if (is_nan_f32(b)) return static_cast<std::uint16_t>((b >> 16) | 0x0040u);
  const std::uint32_t rounded = b + 0x7fffu + ((b >> 16) & 1u);  // ties to even; carries into exponent, inf on overflow
  return static_cast<std::uint16_t>(rounded >> 16);
}

// ---------------------------------------------------------------------------------------------------------------
// fp8
// ---------------------------------------------------------------------------------------------------------------

/// fp8 flavours. fnuz (gfx942 V_CVT_*_FP8/BF8): bias 8 / 16, no infinities, no negative zero, 0x80 is the only NaN.
/// OCP (gfx950): e4m3 bias 7, no infinities, S.1111.111 is NaN; e5m2 bias 15, IEEE-like (inf S.11111.00, NaNs
/// S.11111.{01,10,11}). [HIP-FP8] table in ck_tile float8.hpp; OCP 8-bit Floating Point Specification v1.0.
enum class Fp8 : std::uint8_t { e4m3fnuz, e5m2fnuz, e4m3, e5m2 };

namespace detail {
struct Fp8Format {
  int mbits;
  int bias;
  std::uint8_t max_code;  // largest finite magnitude code
  bool fnuz;
  bool has_inf;
};
[[nodiscard]] inline constexpr Fp8Format fp8_format(Fp8 k) noexcept {
  switch (k) {
    case Fp8::e4m3fnuz: return {3, 8, 0x7f, true, false};   // max 1.875 * 2^7 = 240
    case Fp8::e5m2fnuz: return {2, 16, 0x7f, true, false};  // max 1.75 * 2^15 = 57344
    case Fp8::e4m3: return {3, 7, 0x7e, false, false};      // max 1.75 * 2^8 = 448 (0x7f is NaN)
    case Fp8::e5m2: return {2, 15, 0x7b, false, true};      // max 1.75 * 2^15 = 57344, 0x7c inf
  }
  return {3, 8, 0x7f, true, false};
}
}  // namespace detail

/// Exact decode of one fp8 byte [ISA V_CVT_F32_FP8 / V_CVT_F32_BF8]. NaN encodings decode to the default NaN.
[[nodiscard]] inline float fp8_to_f32(std::uint8_t v, Fp8 k) noexcept {
  const detail::Fp8Format fm = detail::fp8_format(k);
  const bool neg = (v & 0x80u) != 0;
  const std::uint32_t mag = v & 0x7fu;
  if (fm.fnuz) {
    if (v == 0x80u) return f32(default_nan_f32);
  } else if (mag > fm.max_code) {
    if (fm.has_inf && mag == 0x7cu) return neg ? -std::numeric_limits<float>::infinity()
                                               : std::numeric_limits<float>::infinity();
    return f32(default_nan_f32);
  }
  const std::uint32_t e = mag >> fm.mbits;
  const std::uint32_t m = mag & ((1u << fm.mbits) - 1);
  // value = (e ? 2^mbits + m : m) * 2^(max(e,1) - bias - mbits); exact in f32.
  const float sig = static_cast<float>(e != 0 ? (1u << fm.mbits) + m : m);
  const int ex = static_cast<int>(e != 0 ? e : 1) - fm.bias - fm.mbits;
  const float val = std::ldexp(sig, ex);
  return neg ? -val : val;
}

/// f32 -> fp8, round to nearest even [ISA V_CVT_PK_FP8_F32 "ROUND_MODE = ROUND_NEAREST_EVEN"]. Rules (from
/// [HIP-FP8] cast_to_f8 / cast_to_f8_from_f32, which AMD ships as the host twin of the gfx942 instruction):
///  - NaN -> NaN (fnuz 0x80; OCP S.1111.111 / S.11111.11 with the input sign).
///  - +-inf -> fnuz: NaN 0x80; OCP e4m3: NaN; OCP e5m2: +-inf. `saturate` never changes infinities: HIP's
///    __HIP_SATFINITE clamps only finite values ("propagate NAN/INF, no clipping").
///  - a finite value that rounds above the largest finite -> +-max when `saturate`, else fnuz NaN 0x80 / OCP e4m3
///    NaN / OCP e5m2 +-inf.
///  - fnuz has no -0: negative values that round to zero give 0x00.
/// Uncertain: gfx942's clamp bit on V_CVT_PK_FP8_F32 (the CDNA4 guide says "Ignores OMOD and clamp"); `saturate`
/// models the med3 pre-clamp that HIP emits, which is what compiled kernels contain.
[[nodiscard]] inline std::uint8_t f32_to_fp8(float f, Fp8 k, bool saturate) noexcept {
  const detail::Fp8Format fm = detail::fp8_format(k);
  const std::uint32_t b = bits(f);
  const std::uint8_t sign = static_cast<std::uint8_t>((b >> 24) & 0x80u);
  const std::uint32_t a = b & 0x7fffffffu;
  const std::uint8_t nan_code = fm.fnuz ? std::uint8_t{0x80} : static_cast<std::uint8_t>(sign | 0x7fu);
  if (a > 0x7f800000u) return nan_code;
  if (a == 0x7f800000u) return fm.has_inf ? static_cast<std::uint8_t>(sign | 0x7cu) : nan_code;
  if (a == 0) return fm.fnuz ? std::uint8_t{0} : sign;
  const std::uint64_t code =
      detail::round_magnitude(bits64(static_cast<double>(f)), fm.mbits, 1 - fm.bias, Round::nearest_even);
  if (code > fm.max_code) {
    if (saturate) return static_cast<std::uint8_t>(sign | fm.max_code);
    return fm.has_inf ? static_cast<std::uint8_t>(sign | 0x7cu) : nan_code;
  }
  if (code == 0 && fm.fnuz) return 0;
  return static_cast<std::uint8_t>(sign | code);
}

}  // namespace asmevo::floats
