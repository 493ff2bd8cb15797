// Inline constants of gfx9-family operands: which values encode without a literal dword.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "asmevo/ir/isa_info.hpp"

namespace asmevo {

/// Operand width class of a value type: 16, 32 or 64 bits.
[[nodiscard]] constexpr unsigned value_bits(isa::ValueType t) noexcept {
  using T = isa::ValueType;
  switch (t) {
    case T::i16: case T::f16: case T::bf16: case T::v2i16: case T::v2f16: case T::v2bf16: case T::v2f16_splat:
      return 16;
    case T::i64: case T::f64: case T::v2i32: case T::v2f32:
      return 64;
    default:
      return 32;
  }
}

/// Integer inline constants are -16..64 on every gfx9 operand (ISA guide 3.6 / chapter 12 "Scalar and vector
/// source operands": codes 128..208).
[[nodiscard]] constexpr bool is_inline_int(std::int64_t v) noexcept { return v >= -16 && v <= 64; }

/// The floating-point inline constants: ±0.5, ±1.0, ±2.0, ±4.0 and 1/(2*pi) (codes 240..248; 1/(2*pi) is
/// FeatureInv2PiInlineImm, present on all gfx9 targets). Compared after rounding to the operand's precision.
[[nodiscard]] inline bool is_inline_real(double d, isa::ValueType t) noexcept {
  constexpr double inv2pi = 0.15915494309189532;
  const unsigned bits = value_bits(t);
  for (double c : {0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 0.0}) {
    if (d == c) return true;
  }
  if (bits == 64) return d == inv2pi;
  if (bits == 32) return static_cast<float>(d) == static_cast<float>(inv2pi);
  // f16: 1/(2*pi) is 0x3118 = 0.1591796875; LLVM also takes the f32-precision spelling (0.15915494) in
  // 16-bit and packed bf16 operands as the inline constant.
  return d == 0.1591796875 || static_cast<float>(d) == static_cast<float>(inv2pi);
}

/// Bit patterns of the fp inline constants written as integers (`0x3f800000` in an f32 operand is 1.0).
[[nodiscard]] constexpr bool is_inline_bits(std::int64_t v, unsigned bits) noexcept {
  if (bits == 32) {
    const auto u = static_cast<std::uint32_t>(v);
    if (static_cast<std::int64_t>(u) != v && static_cast<std::int32_t>(u) != v) return false;
    for (std::uint32_t c : {0x3f000000u, 0xbf000000u, 0x3f800000u, 0xbf800000u, 0x40000000u, 0xc0000000u,
                            0x40800000u, 0xc0800000u, 0x3e22f983u})
      if (u == c) return true;
    return false;
  }
  if (bits == 16) {
    const auto u = static_cast<std::uint64_t>(v) & 0xffffffffu;
    for (std::uint32_t c : {0x3800u, 0xb800u, 0x3c00u, 0xbc00u, 0x4000u, 0xc000u, 0x4400u, 0xc400u, 0x3118u})
      if (u == c) return true;
    return false;
  }
  const auto u = static_cast<std::uint64_t>(v);
  for (std::uint64_t c : {0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
                          0x4000000000000000ull, 0xc000000000000000ull, 0x4010000000000000ull, 0xc010000000000000ull,
                          0x3fc45f306dc9c882ull})
    if (u == c) return true;
  return false;
}

}  // namespace asmevo
