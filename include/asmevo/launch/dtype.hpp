// The element types of launch-spec buffers and scalars (DType): their table of facts (size, signedness, largest
// finite value, bit layout) and how a value is encoded in one (integer ranges, rounding a double to a float dtype's
// bits). Not here: the launch spec's data types (launch/spec_types.hpp), reading it from JSON (launch/spec_parser.hpp),
// filling buffers (launch/buffer_init.hpp).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "asmevo/support/float_formats.hpp"

namespace asmevo::verify {

/// Element types of buffers and scalars. The fp8 kinds are the two AMD "fnuz" formats (CDNA3 native: MI300 ISA
/// (CDNA3) §7.2 "FP8 and BF8") and the two OCP OFP8 formats (CDNA4 native).
enum class DType : std::uint8_t {
  f64, f32, f16, bf16, fp8e4m3fnuz, fp8e5m2fnuz, fp8e4m3, fp8e5m2, i64, u64, i32, u32, i16, u16, i8, u8
};

namespace detail {

struct DTypeInfo {
  DType type;
  std::string_view name;
  std::uint8_t size;      ///< bytes
  bool is_float;
  bool is_signed;         ///< integers only
  double max_finite;      ///< floats: the largest finite value; integers: unused
};

// Largest finite values: IEEE 754 binary64/binary32/binary16; bfloat16 (8 exponent bits, 7 fraction bits:
// 0x7f7f = (2 - 2^-7) * 2^127); fp8: OCP "8-bit Floating Point Specification (OFP8)" rev 1.0 table 1 (E4M3 448,
// E5M2 57344) and LLVM APFloat's Float8E4M3FNUZ (240) / Float8E5M2FNUZ (57344) semantics
// (llvm/lib/Support/APFloat.cpp, the formats of the CDNA3 FP8/BF8 instructions).
inline constexpr DTypeInfo dtype_table[] = {
    {DType::f64, "f64", 8, true, true, std::numeric_limits<double>::max()},
    {DType::f32, "f32", 4, true, true, static_cast<double>(std::numeric_limits<float>::max())},
    {DType::f16, "f16", 2, true, true, 65504.0},
    {DType::bf16, "bf16", 2, true, true, 3.3895313892515355e38},
    {DType::fp8e4m3fnuz, "fp8e4m3fnuz", 1, true, true, 240.0},
    {DType::fp8e5m2fnuz, "fp8e5m2fnuz", 1, true, true, 57344.0},
    {DType::fp8e4m3, "fp8e4m3", 1, true, true, 448.0},
    {DType::fp8e5m2, "fp8e5m2", 1, true, true, 57344.0},
    {DType::i64, "i64", 8, false, true, 0},
    {DType::u64, "u64", 8, false, false, 0},
    {DType::i32, "i32", 4, false, true, 0},
    {DType::u32, "u32", 4, false, false, 0},
    {DType::i16, "i16", 2, false, true, 0},
    {DType::u16, "u16", 2, false, false, 0},
    {DType::i8, "i8", 1, false, true, 0},
    {DType::u8, "u8", 1, false, false, 0},
};

[[nodiscard]] constexpr const DTypeInfo& dtype_info(DType t) { return dtype_table[static_cast<std::size_t>(t)]; }

}  // namespace detail

/// Bytes per element.
[[nodiscard]] constexpr std::size_t dtype_size(DType t) { return detail::dtype_info(t).size; }
/// The spelling the launch spec uses ("f32", "fp8e4m3fnuz", ...).
[[nodiscard]] constexpr std::string_view dtype_name(DType t) { return detail::dtype_info(t).name; }
[[nodiscard]] constexpr bool dtype_is_float(DType t) { return detail::dtype_info(t).is_float; }
[[nodiscard]] constexpr bool dtype_is_signed(DType t) { return detail::dtype_info(t).is_signed; }
/// The dtype of that spelling, or nullopt.
[[nodiscard]] constexpr std::optional<DType> parse_dtype(std::string_view s) {
  for (const auto& d : detail::dtype_table)
    if (d.name == s) return d.type;
  return std::nullopt;
}

/// Number of dtypes (the size of per-dtype tables).
inline constexpr std::size_t dtype_count = 16;

namespace detail {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/// The inclusive integer range of an integer dtype.
[[nodiscard]] inline std::pair<i128, i128> int_range(DType t) {
  const unsigned bits = static_cast<unsigned>(dtype_size(t)) * 8;
  if (dtype_is_signed(t)) return {-(i128{1} << (bits - 1)), (i128{1} << (bits - 1)) - 1};
  return {0, (i128{1} << bits) - 1};
}

/// double -> float rounding to odd (truncate, then set the last bit when inexact). Rounding that result once more
/// to a format with at most 22 significand bits (bf16, fp8) gives the correctly rounded result of the double,
/// which rounding through a round-to-nearest float would not always (double rounding). (Boldo & Melquiond,
/// "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008.)
[[nodiscard]] inline float f64_to_f32_odd(double d) {
  if (std::isnan(d) || std::isinf(d)) return static_cast<float>(d);
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d) || std::isinf(f))
    f = std::nextafter(f, 0.0f);  // toward zero
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) | 1u);
}

[[nodiscard]] inline floats::Fp8 fp8_kind(DType t) {
  switch (t) {
    case DType::fp8e4m3fnuz: return floats::Fp8::e4m3fnuz;
    case DType::fp8e5m2fnuz: return floats::Fp8::e5m2fnuz;
    case DType::fp8e4m3: return floats::Fp8::e4m3;
    default: return floats::Fp8::e5m2;
  }
}

/// The bit pattern of `v` rounded (to nearest, ties to even) to a float dtype, zero-extended.
[[nodiscard]] inline std::uint64_t round_float_bits(DType t, double v) {
  switch (t) {
    case DType::f64: return std::bit_cast<std::uint64_t>(v);
    case DType::f32: return std::bit_cast<std::uint32_t>(static_cast<float>(v));  // IEEE RNE conversion
    case DType::f16: return floats::f64_to_f16(v);
    case DType::bf16: return floats::f32_to_bf16(f64_to_f32_odd(v));
    default: return floats::f32_to_fp8(f64_to_f32_odd(v), fp8_kind(t), /*saturate=*/true);
  }
}

/// The bit pattern of the integer `v` in the dtype's width (two's complement), zero-extended.
[[nodiscard]] inline std::uint64_t int_bits(DType t, i128 v) {
  const unsigned bits = static_cast<unsigned>(dtype_size(t)) * 8;
  const auto u = static_cast<std::uint64_t>(static_cast<u128>(v));
  return bits == 64 ? u : (u & ((std::uint64_t{1} << bits) - 1));
}

/// Bit layout of a float dtype: the fields of the encodings special_bits() builds.
struct FloatLayout {
  unsigned width, exp_bits, frac_bits;
  enum Flavor : std::uint8_t {
    ieee,  ///< IEEE 754 interchange layout: bias 2^(e-1)-1, all-ones exponent = inf (fraction 0) or NaN
    fnuz,  ///< "finite, NaN = unsigned zero": bias 2^(e-1), no inf, no -0; the -0 code 0x80 is the only NaN
    fn,    ///< "finite, NaN": bias 2^(e-1)-1, no inf; S.1111.111 is NaN (OCP E4M3)
  } flavor;
};

// IEEE 754-2019 §3.6 table 3.5 (binary64/32/16); bfloat16 is binary32's sign and exponent with 7 fraction bits.
// fp8: OCP "8-bit Floating Point Specification (OFP8)" rev 1.0, its E4M3/E5M2 encoding table: E5M2 is IEEE-like
// (bias 15, inf S.11111.00, NaN S.11111.{01,10,11}); E4M3 has bias 7, no infinities, NaN S.1111.111 only, and
// max S.1111.110 = 448.
// fnuz: Noune et al., "8-bit Numerical Formats for Deep Neural Networks" (arXiv 2206.02915), as LLVM APFloat's
// Float8E4M3FNUZ / Float8E5M2FNUZ (llvm/include/llvm/ADT/APFloat.h: "bias 8 / 16", "no infinity, no negative
// zero, NaN = 0x80") and AMD's CDNA3 FP8/BF8 (MI300 ISA §7.2), which support/float_formats.hpp's fp8_format agrees with.
[[nodiscard]] constexpr FloatLayout float_layout(DType t) {
  switch (t) {
    case DType::f64: return {64, 11, 52, FloatLayout::ieee};
    case DType::f32: return {32, 8, 23, FloatLayout::ieee};
    case DType::f16: return {16, 5, 10, FloatLayout::ieee};
    case DType::bf16: return {16, 8, 7, FloatLayout::ieee};
    case DType::fp8e4m3fnuz: return {8, 4, 3, FloatLayout::fnuz};
    case DType::fp8e5m2fnuz: return {8, 5, 2, FloatLayout::fnuz};
    case DType::fp8e4m3: return {8, 4, 3, FloatLayout::fn};
    default: return {8, 5, 2, FloatLayout::ieee};  // fp8e5m2
  }
}

}  // namespace detail

}  // namespace asmevo::verify
