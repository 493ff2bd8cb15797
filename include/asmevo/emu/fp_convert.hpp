// The v_cvt_* conversions with hardware saturation, bit-exact: float to i32/u32 (truncating, flooring, rounding),
// packed f16/snorm/unorm/u8 results, the clamp modifier on a float result, and bytes to float. Not here: the storage
// formats and their rounding conversions (f32 <-> f16, bf16, fp8: support/float_formats.hpp), the VALU's float rules
// (emu/fp_valu.hpp), integer helpers (emu/int_ops.hpp).
#pragma once

// Source: [ISA] AMD Instinct MI300 ISA (CDNA3), chapter "Vector ALU instructions" and its per-opcode pseudo-code.
//
// Every function is total (no UB, no assert) for every input bit pattern: the emulator feeds it arbitrary register
// contents. Nothing allocates.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "asmevo/support/float_formats.hpp"

namespace asmevo::emu::fp {

// The storage formats and their conversions (support/float_formats.hpp) are part of the emulator's fp vocabulary.
using namespace ::asmevo::floats;

// ---------------------------------------------------------------------------------------------------------------
// Conversions with hardware saturation
// ---------------------------------------------------------------------------------------------------------------

/// v_cvt_i32_f32 / v_cvt_i32_f64: truncation toward zero; "out-of-range floating point values (including infinity)
/// saturate. NAN is converted to 0" [ISA V_CVT_I32_F32, V_CVT_I32_F64].
[[nodiscard]] inline std::int32_t cvt_i32_f64(double x) noexcept {
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0) return std::numeric_limits<std::int32_t>::max();
  if (x <= -2147483649.0) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(x);  // in range after truncation
}
[[nodiscard]] inline std::int32_t cvt_i32_f32(float x) noexcept { return cvt_i32_f64(static_cast<double>(x)); }
/// v_cvt_u32_f32 / v_cvt_u32_f64: negatives (and -inf) -> 0, above 2^32-1 -> 0xffffffff, NaN -> 0 [ISA].
[[nodiscard]] inline std::uint32_t cvt_u32_f64(double x) noexcept {
  if (std::isnan(x) || x <= -1.0) return 0;
  if (x >= 4294967296.0) return std::numeric_limits<std::uint32_t>::max();
  return static_cast<std::uint32_t>(x);  // (-1, 2^32): truncation is in range
}
[[nodiscard]] inline std::uint32_t cvt_u32_f32(float x) noexcept { return cvt_u32_f64(static_cast<double>(x)); }
/// v_cvt_rpi_i32_f32 [ISA "f32_to_i32(floor(S0.f32 + 0.5F))"]: the +0.5 is an f32 add (rounded), as written.
[[nodiscard]] inline std::int32_t cvt_rpi_i32_f32(float x) noexcept { return cvt_i32_f32(std::floor(x + 0.5f)); }
/// v_cvt_flr_i32_f32 [ISA "f32_to_i32(floor(S0.f32))"].
[[nodiscard]] inline std::int32_t cvt_flr_i32_f32(float x) noexcept { return cvt_i32_f32(std::floor(x)); }

/// v_cvt_pkrtz_f16_f32 [ISA: ROUND_TOWARD_ZERO regardless of MODE]; low half = a, high half = b.
[[nodiscard]] inline std::uint32_t cvt_pkrtz_f16_f32(float a, float b) noexcept {
  return static_cast<std::uint32_t>(f32_to_f16(a, Round::toward_zero)) |
         (static_cast<std::uint32_t>(f32_to_f16(b, Round::toward_zero)) << 16);
}

/// The VOP3 clamp modifier on a float result: clamp to [0, 1]; a NaN becomes 0 (MODE.DX10_CLAMP, set by the HSA
/// runtime by default [ISA "MODE register"]) — pass dx10_clamp=false to keep NaNs.
[[nodiscard]] inline float clamp01_f32(float x, bool dx10_clamp = true) noexcept {
  if (std::isnan(x)) return dx10_clamp ? 0.0f : x;
  return std::clamp(x, 0.0f, 1.0f);  // -0 stays -0: clamp keeps it (-0 is not < 0)
}
/// f32 -> f16 followed by the clamp modifier (v_cvt_f16_f32 ... clamp).
[[nodiscard]] inline std::uint16_t f32_to_f16_clamp(float f, Round r = Round::nearest_even, bool dx10_clamp = true) noexcept {
  const std::uint16_t h = f32_to_f16(f, r);
  if (is_nan_f16(h)) return dx10_clamp ? std::uint16_t{0} : h;
  if ((h & 0x8000u) && (h & 0x7fffu)) return 0;  // negative non-zero -> +0
  return f16_to_f32(h) > 1.0f ? std::uint16_t{0x3c00u} : h;
}

namespace detail {
/// Round to nearest, ties to even, of a finite double to an integer-valued double.
[[nodiscard]] inline double rne(double x) noexcept {
  const double r = std::floor(x);
  const double d = x - r;
  if (d > 0.5) return r + 1.0;
  if (d < 0.5) return r;
  return std::fmod(r, 2.0) == 0.0 ? r : r + 1.0;
}
}  // namespace detail

/// f32_to_snorm of v_cvt_pknorm_i16_f32: clamp to [-1, 1], scale by 32767, round to nearest even; NaN -> 0.
/// The ISA names the function without defining its rounding; RNE (the D3D10 float->SNORM rule) is an assumption.
[[nodiscard]] inline std::int16_t f32_to_snorm16(float x) noexcept {
  if (std::isnan(x)) return 0;
  const double c = std::clamp(static_cast<double>(x), -1.0, 1.0);
  return static_cast<std::int16_t>(detail::rne(c * 32767.0));
}
/// f32_to_unorm of v_cvt_pknorm_u16_f32: clamp to [0, 1], scale by 65535, RNE; NaN -> 0 (same caveat).
[[nodiscard]] inline std::uint16_t f32_to_unorm16(float x) noexcept {
  if (std::isnan(x)) return 0;
  const double c = std::clamp(static_cast<double>(x), 0.0, 1.0);
  return static_cast<std::uint16_t>(detail::rne(c * 65535.0));
}
[[nodiscard]] inline std::uint32_t cvt_pknorm_i16_f32(float a, float b) noexcept {
  return static_cast<std::uint16_t>(f32_to_snorm16(a)) | (static_cast<std::uint32_t>(static_cast<std::uint16_t>(f32_to_snorm16(b))) << 16);
}
[[nodiscard]] inline std::uint32_t cvt_pknorm_u16_f32(float a, float b) noexcept {
  return f32_to_unorm16(a) | (static_cast<std::uint32_t>(f32_to_unorm16(b)) << 16);
}

/// f32_to_u8 of v_cvt_pk_u8_f32: round to nearest even, saturate to [0, 255], NaN -> 0. The ISA names the function
/// without defining its rounding; RNE with saturation is an assumption (it is what the DX "float to UINT8" rule
/// and the instruction's graphics use want).
[[nodiscard]] inline std::uint32_t f32_to_u8(float x) noexcept {
  if (std::isnan(x)) return 0;
  const double c = std::clamp(static_cast<double>(x), 0.0, 255.0);
  return static_cast<std::uint32_t>(detail::rne(c));
}
/// v_cvt_pk_u8_f32 [ISA]: byte S1[1:0] of S2 replaced by f32_to_u8(S0).
[[nodiscard]] inline std::uint32_t cvt_pk_u8_f32(float s0, std::uint32_t s1, std::uint32_t s2) noexcept {
  const unsigned sh = (s1 & 3u) * 8u;
  return (s2 & ~(0xffu << sh)) | (f32_to_u8(s0) << sh);
}
/// v_cvt_f32_ubyteN [ISA]: byte N of the input as a float (exact).
[[nodiscard]] inline float cvt_f32_ubyte(std::uint32_t v, unsigned n) noexcept {
  return static_cast<float>((v >> ((n & 3u) * 8u)) & 0xffu);
}

}  // namespace asmevo::emu::fp
