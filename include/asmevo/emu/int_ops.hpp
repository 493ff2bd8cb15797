// The VALU's integer helpers, bit-exact: saturating add/sub, high multiplies, bit-field extract/insert/mask, align,
// sums of absolute differences, lerp, byte permute, bit scans and counts. Not here: anything with a float operand
// (emu/fp_valu.hpp, emu/fp_convert.hpp). In namespace emu::fp with the float helpers, where the VALU semantics
// have always found them.
#pragma once

// Source: [ISA] AMD Instinct MI300 ISA (CDNA3), chapter "Vector ALU instructions" and its per-opcode pseudo-code.
//
// Every function is total (no UB, no assert) for every input: the emulator feeds it arbitrary register contents.

#include <algorithm>
#include <bit>
#include <cstdint>

namespace asmevo::emu::fp {

// ---------------------------------------------------------------------------------------------------------------
// Integer helpers
// ---------------------------------------------------------------------------------------------------------------

/// Saturating add/sub: the VOP3 clamp bit on v_add_u32 / v_sub_u32 / v_add_i32 / v_add_u16 ... [ISA "Supports
/// saturation (unsigned 32-bit integer domain)"].
[[nodiscard]] inline constexpr std::uint32_t add_sat_u32(std::uint32_t a, std::uint32_t b) noexcept {
  const std::uint32_t r = a + b;
  return r < a ? 0xffffffffu : r;
}
[[nodiscard]] inline constexpr std::uint32_t sub_sat_u32(std::uint32_t a, std::uint32_t b) noexcept {
  return a < b ? 0u : a - b;
}
[[nodiscard]] inline constexpr std::int32_t add_sat_i32(std::int32_t a, std::int32_t b) noexcept {
  const std::int64_t r = static_cast<std::int64_t>(a) + b;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX));
}
[[nodiscard]] inline constexpr std::int32_t sub_sat_i32(std::int32_t a, std::int32_t b) noexcept {
  const std::int64_t r = static_cast<std::int64_t>(a) - b;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX));
}
[[nodiscard]] inline constexpr std::uint16_t add_sat_u16(std::uint16_t a, std::uint16_t b) noexcept {
  const std::uint32_t r = std::uint32_t{a} + b;
  return static_cast<std::uint16_t>(r > 0xffffu ? 0xffffu : r);
}
[[nodiscard]] inline constexpr std::uint16_t sub_sat_u16(std::uint16_t a, std::uint16_t b) noexcept {
  return static_cast<std::uint16_t>(a < b ? 0 : a - b);
}
[[nodiscard]] inline constexpr std::int16_t add_sat_i16(std::int16_t a, std::int16_t b) noexcept {
  return static_cast<std::int16_t>(std::clamp<std::int32_t>(std::int32_t{a} + b, INT16_MIN, INT16_MAX));
}
[[nodiscard]] inline constexpr std::int16_t sub_sat_i16(std::int16_t a, std::int16_t b) noexcept {
  return static_cast<std::int16_t>(std::clamp<std::int32_t>(std::int32_t{a} - b, INT16_MIN, INT16_MAX));
}

/// v_mul_hi_u32 / v_mul_hi_i32 [ISA]: high 32 bits of the 64-bit product.
[[nodiscard]] inline constexpr std::uint32_t mul_hi_u32(std::uint32_t a, std::uint32_t b) noexcept {
  return static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32);
}
[[nodiscard]] inline constexpr std::int32_t mul_hi_i32(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint64_t>(std::int64_t{a} * b) >> 32);
}

/// v_bfe_u32 [ISA "(S0 >> S1[4:0]) & ((1 << S2[4:0]) - 1)"]: width 0 gives 0; width is not clipped to 32-offset.
[[nodiscard]] inline constexpr std::uint32_t bfe_u32(std::uint32_t v, std::uint32_t off, std::uint32_t width) noexcept {
  const std::uint32_t w = width & 31u;
  return (v >> (off & 31u)) & ((1u << w) - 1u);
}
/// v_bfe_i32 [ISA "signext_from_bit(tmp, S2[4:0])"]: the field sign-extended from bit width-1; width 0 gives 0.
[[nodiscard]] inline constexpr std::int32_t bfe_i32(std::uint32_t v, std::uint32_t off, std::uint32_t width) noexcept {
  const std::uint32_t w = width & 31u;
  if (w == 0) return 0;
  const std::uint32_t t = static_cast<std::uint32_t>(static_cast<std::int32_t>(v) >> (off & 31u)) & ((1u << w) - 1u);
  const std::uint32_t sign = 1u << (w - 1);
  return static_cast<std::int32_t>((t ^ sign) - sign);
}
/// v_bfi_b32 [ISA]: (S0 & S1) | (~S0 & S2).
[[nodiscard]] inline constexpr std::uint32_t bfi_b32(std::uint32_t m, std::uint32_t a, std::uint32_t b) noexcept {
  return (m & a) | (~m & b);
}
/// v_bfm_b32 [ISA]: ((1 << S0[4:0]) - 1) << S1[4:0].
[[nodiscard]] inline constexpr std::uint32_t bfm_b32(std::uint32_t width, std::uint32_t off) noexcept {
  return ((1u << (width & 31u)) - 1u) << (off & 31u);
}
/// v_alignbit_b32 [ISA "({S0, S1} >> S2[4:0]) & 0xffffffff"], S0 the high word.
[[nodiscard]] inline constexpr std::uint32_t alignbit_b32(std::uint32_t hi, std::uint32_t lo, std::uint32_t s) noexcept {
  return static_cast<std::uint32_t>(((std::uint64_t{hi} << 32) | lo) >> (s & 31u));
}
/// v_alignbyte_b32 [ISA "({S0, S1} >> (S2[1:0] * 8))"].
[[nodiscard]] inline constexpr std::uint32_t alignbyte_b32(std::uint32_t hi, std::uint32_t lo, std::uint32_t s) noexcept {
  return static_cast<std::uint32_t>(((std::uint64_t{hi} << 32) | lo) >> ((s & 3u) * 8u));
}

namespace detail {
[[nodiscard]] inline constexpr std::uint32_t absdiff(std::uint32_t x, std::uint32_t y) noexcept { return x > y ? x - y : y - x; }
}  // namespace detail
/// v_sad_u8 [ISA]: S2 + sum over 4 bytes of |a_i - b_i| (wraps mod 2^32).
[[nodiscard]] inline constexpr std::uint32_t sad_u8(std::uint32_t a, std::uint32_t b, std::uint32_t acc) noexcept {
  std::uint32_t t = acc;
  for (unsigned i = 0; i < 32; i += 8) t += detail::absdiff((a >> i) & 0xffu, (b >> i) & 0xffu);
  return t;
}
/// v_sad_hi_u8 [ISA]: (sad_u8(S0, S1, 0) << 16) + S2.
[[nodiscard]] inline constexpr std::uint32_t sad_hi_u8(std::uint32_t a, std::uint32_t b, std::uint32_t acc) noexcept {
  return (sad_u8(a, b, 0) << 16) + acc;
}
/// v_sad_u16 [ISA]: S2 + |lo - lo| + |hi - hi|.
[[nodiscard]] inline constexpr std::uint32_t sad_u16(std::uint32_t a, std::uint32_t b, std::uint32_t acc) noexcept {
  return acc + detail::absdiff(a & 0xffffu, b & 0xffffu) + detail::absdiff(a >> 16, b >> 16);
}
/// v_sad_u32 [ISA]: |S0 - S1| + S2.
[[nodiscard]] inline constexpr std::uint32_t sad_u32(std::uint32_t a, std::uint32_t b, std::uint32_t acc) noexcept {
  return detail::absdiff(a, b) + acc;
}
/// v_msad_u8 [ISA]: like sad_u8 but bytes whose reference (S1) byte is 0 are skipped.
[[nodiscard]] inline constexpr std::uint32_t msad_u8(std::uint32_t a, std::uint32_t ref, std::uint32_t acc) noexcept {
  std::uint32_t t = acc;
  for (unsigned i = 0; i < 32; i += 8) {
    const std::uint32_t r = (ref >> i) & 0xffu;
    if (r != 0) t += detail::absdiff((a >> i) & 0xffu, r);
  }
  return t;
}
/// v_lerp_u8 [ISA]: per byte (a + b + S2 bit 0 of that byte) >> 1.
[[nodiscard]] inline constexpr std::uint32_t lerp_u8(std::uint32_t a, std::uint32_t b, std::uint32_t c) noexcept {
  std::uint32_t t = 0;
  for (unsigned i = 0; i < 32; i += 8) t |= ((((a >> i) & 0xffu) + ((b >> i) & 0xffu) + ((c >> i) & 1u)) >> 1) << i;
  return t;
}

/// v_perm_b32 [ISA V_PERM_B32 BYTE_PERMUTE]: data = {S0 (high), S1 (low)}; per selector byte: 0..7 pick data byte,
/// 8/9/10/11 replicate the sign bit of data byte 1/3/5/7, 12 gives 0x00, 13 and above give 0xff.
[[nodiscard]] inline constexpr std::uint32_t perm_b32(std::uint32_t s0, std::uint32_t s1, std::uint32_t sel) noexcept {
  const std::uint64_t data = (std::uint64_t{s0} << 32) | s1;
  std::uint32_t out = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint32_t s = (sel >> (8 * i)) & 0xffu;
    std::uint32_t byte;
    if (s >= 13) byte = 0xffu;
    else if (s == 12) byte = 0x00u;
    else if (s >= 8) byte = ((data >> ((s - 8) * 16 + 15)) & 1u) ? 0xffu : 0x00u;  // bit 7 of byte 1,3,5,7
    else byte = static_cast<std::uint32_t>((data >> (s * 8)) & 0xffu);
    out |= byte << (8 * i);
  }
  return out;
}

/// v_ffbh_u32 [ISA]: leading zeros, or 0xffffffff (-1) for 0.
[[nodiscard]] inline constexpr std::uint32_t ffbh_u32(std::uint32_t v) noexcept {
  return v == 0 ? 0xffffffffu : static_cast<std::uint32_t>(std::countl_zero(v));
}
/// v_ffbl_b32 [ISA]: trailing zeros, or 0xffffffff for 0.
[[nodiscard]] inline constexpr std::uint32_t ffbl_b32(std::uint32_t v) noexcept {
  return v == 0 ? 0xffffffffu : static_cast<std::uint32_t>(std::countr_zero(v));
}
/// v_ffbh_i32 [ISA]: number of leading bits equal to the sign bit (counting from bit 30, so the result is >= 1),
/// or 0xffffffff when all 32 bits are equal (0 and -1).
[[nodiscard]] inline constexpr std::uint32_t ffbh_i32(std::uint32_t v) noexcept {
  const std::uint32_t x = (v & 0x80000000u) ? ~v : v;
  return x == 0 ? 0xffffffffu : static_cast<std::uint32_t>(std::countl_zero(x));
}
/// v_bcnt_u32_b32 [ISA]: popcount(S0) + S1.
[[nodiscard]] inline constexpr std::uint32_t bcnt_u32(std::uint32_t v, std::uint32_t acc = 0) noexcept {
  return static_cast<std::uint32_t>(std::popcount(v)) + acc;
}
/// v_bfrev_b32 [ISA]: bit reverse.
[[nodiscard]] inline constexpr std::uint32_t brev_b32(std::uint32_t v) noexcept {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
  return (v >> 16) | (v << 16);
}

}  // namespace asmevo::emu::fp
