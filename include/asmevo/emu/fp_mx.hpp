// Decoders of the OCP microscaling element and scale formats gfx950's f8f6f4 matrix instructions read: fp6 E2M3,
// bf6 E3M2, fp4 E2M1 and the E8M0 block scale.
#pragma once

// Source for every format: OCP Microscaling Formats (MX) Specification v1.0 §5.3 (element data types: FP6 E2M3 bias 1
// and E3M2 bias 3, FP4 E2M1 bias 1; none of them has Inf or NaN, exponent field 0 is subnormal with the same
// scale as exponent field 1) and §5.4 (E8M0 scale: 2^(e - 127), 0xFF is NaN, no zero, no sign). The gfx950 format
// numbers (cbsz/blgp of v_mfma_*_f8f6f4: 0 fp8 E4M3, 1 bf8 E5M2, 2 fp6 E2M3, 3 bf6 E3M2, 4 fp4 E2M1) are LLVM's
// AMDGPU::MFMAScaleFormats (test/CodeGen/AMDGPU/llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.ll header comment).

#include <array>
#include <cmath>
#include <cstdint>

namespace asmevo::emu::fp {

/// gfx950 f8f6f4 operand formats as CBSZ (A) and BLGP (B) encode them.
enum class MxFormat : std::uint8_t { fp8 = 0, bf8 = 1, fp6 = 2, bf6 = 3, fp4 = 4 };

/// Bits per element of a format.
[[nodiscard]] constexpr unsigned mx_bits(MxFormat f) noexcept {
  return f == MxFormat::fp4 ? 4u : (f == MxFormat::fp6 || f == MxFormat::bf6) ? 6u : 8u;
}

namespace detail {
/// A sign/exponent/mantissa code with no Inf/NaN and subnormals at exponent 0 (OCP MX §5.3): `mbits` mantissa
/// bits, `ebits` exponent bits, `bias`.
[[nodiscard]] constexpr float mx_small_float(unsigned v, unsigned ebits, unsigned mbits, int bias) noexcept {
  const unsigned m = v & ((1u << mbits) - 1u);
  const unsigned e = (v >> mbits) & ((1u << ebits) - 1u);
  const bool neg = (v >> (ebits + mbits)) & 1u;
  // value = (e == 0 ? m : 2^mbits + m) * 2^(max(e, 1) - bias - mbits): exact in float (at most 4 significant bits).
  const int exp = (e == 0 ? 1 : static_cast<int>(e)) - bias - static_cast<int>(mbits);
  float mag = static_cast<float>(e == 0 ? m : (1u << mbits) + m);
  // Scale by 2^exp with exact multiplications (|exp| <= 6 here).
  if (exp >= 0) mag *= static_cast<float>(1u << exp);
  else mag /= static_cast<float>(1u << -exp);
  return neg ? -mag : mag;
}
}  // namespace detail

/// fp6 E2M3 (OCP MX FP6 E2M3: bias 1, max 7.5): the low 6 bits of `v`.
[[nodiscard]] constexpr float fp6_e2m3_to_f32(unsigned v) noexcept { return detail::mx_small_float(v & 63u, 2, 3, 1); }
/// bf6 E3M2 (OCP MX FP6 E3M2: bias 3, max 28): the low 6 bits of `v`.
[[nodiscard]] constexpr float fp6_e3m2_to_f32(unsigned v) noexcept { return detail::mx_small_float(v & 63u, 3, 2, 3); }
/// fp4 E2M1 (OCP MX FP4 E2M1: bias 1, max 6): the low 4 bits of `v`.
[[nodiscard]] constexpr float fp4_e2m1_to_f32(unsigned v) noexcept { return detail::mx_small_float(v & 15u, 2, 1, 1); }

/// The E8M0 scale 2^(e - 127) as a power of two exponent; 0xFF (NaN) is reported through `nan`.
struct E8m0 {
  int exp;   ///< e - 127
  bool nan;  ///< e == 0xFF
};
[[nodiscard]] constexpr E8m0 e8m0_decode(std::uint8_t e) noexcept { return {static_cast<int>(e) - 127, e == 0xffu}; }

/// 16- or 64-entry decode table of a 4- or 6-bit format (fp8/bf8 use fp.hpp's fp8_to_f32 with Fp8::e4m3/e5m2).
[[nodiscard]] constexpr std::array<float, 64> mx_table(MxFormat f) noexcept {
  std::array<float, 64> t{};
  for (unsigned v = 0; v < 64; ++v) {
    if (f == MxFormat::fp6) t[v] = fp6_e2m3_to_f32(v);
    else if (f == MxFormat::bf6) t[v] = fp6_e3m2_to_f32(v);
    else if (f == MxFormat::fp4) t[v] = fp4_e2m1_to_f32(v & 15u);
  }
  return t;
}

}  // namespace asmevo::emu::fp
