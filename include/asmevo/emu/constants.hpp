// The bits an instruction reads for an inline constant or literal, by the operand's value type.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>

#include "asmevo/ir/isa_info.hpp"
#include "asmevo/ir/operand.hpp"

namespace asmevo::emu {

/// A resolved constant operand.
struct ConstantBits {
  std::uint64_t bits = 0;  ///< what the ALU reads (64 bits for 64-bit operands)
  bool literal = false;    ///< needs a literal dword after the instruction
};

namespace detail {

[[nodiscard]] constexpr bool is_64(isa::ValueType t) noexcept {
  return t == isa::ValueType::i64 || t == isa::ValueType::f64 || t == isa::ValueType::v2i32 || t == isa::ValueType::v2f32;
}
[[nodiscard]] constexpr bool is_16(isa::ValueType t) noexcept {
  return t == isa::ValueType::i16 || t == isa::ValueType::f16 || t == isa::ValueType::bf16;
}

/// f16 bits of the inline float constants (MI300 ISA §3.6.2 "Inline constants": 0.5, 1.0, 2.0, 4.0, their
/// negations, and 1/(2*pi)); nullopt for other values.
[[nodiscard]] inline std::optional<std::uint16_t> inline_f16(double v) {
  struct E { double v; std::uint16_t b; };
  constexpr E t[] = {{0.5, 0x3800}, {-0.5, 0xb800}, {1.0, 0x3c00}, {-1.0, 0xbc00}, {2.0, 0x4000},
                     {-2.0, 0xc000}, {4.0, 0x4400}, {-4.0, 0xc400}};
  for (const auto& e : t)
    if (e.v == v) return e.b;
  return std::nullopt;
}
[[nodiscard]] inline std::optional<std::uint16_t> inline_bf16(double v) {
  struct E { double v; std::uint16_t b; };
  constexpr E t[] = {{0.5, 0x3f00}, {-0.5, 0xbf00}, {1.0, 0x3f80}, {-1.0, 0xbf80}, {2.0, 0x4000},
                     {-2.0, 0xc000}, {4.0, 0x4080}, {-4.0, 0xc080}};
  for (const auto& e : t)
    if (e.v == v) return e.b;
  return std::nullopt;
}
/// 1/(2*pi) as LLVM prints it (AMDGPUInstPrinter::printImmediate32: 0.15915494) and its bits per type
/// (MI300 ISA §3.6.2: f32 0x3e22f983, f16 0x3118, f64 0x3fc45f306dc9c882, bf16 0x3e22).
[[nodiscard]] inline bool is_inv_2pi(double v) { return std::fabs(v - 0.15915494309189535) < 1e-7; }

}  // namespace detail

/// The bits of an `imm` or `real` operand in a source slot of value type `t`.
///
/// Inline constants (MI300 ISA §3.6.2 "Inline constants"; the hardware behaviour for 16-bit and packed operands as
/// LLVM records it in AMDGPUBaseInfo.cpp getInlineEncodingV216: "the Instruction Set Architecture Reference Guide
/// is misleading about how the inline operands work for (packed) 16-bit instructions"):
///  - integers -16..64 are sign-extended to the full register width: 32 bits for 32-bit, 16-bit and packed 16-bit
///    operands (so -1 is 0xffffffff in both halves, 5 is 0x00000005: only the low half holds 5), 64 bits for 64-bit
///    and packed-f32 operands;
///  - the float constants (+-0.5, +-1, +-2, +-4, 1/(2*pi)) are, for f16/v2f16 operands, the f16 bits in the low half
///    and 0 in the high half (op_sel_hi:1 therefore reads 0; LLVM SIFoldOperands::tryFoldImmWithOpSel clears
///    op_sel_hi to splat one); for bf16 operands the bf16 bits; for integer 16-bit and v2i16 operands the *f32*
///    bits ("for UI16 instructions: corresponding single-precision float value"); for f64 the f64 bits; for 32-bit
///    operands the f32 bits; for packed-f32 (v2f32/v2i32) operands the f32 bits in the low dword and 0 in the high
///    one — an inference: LLVM folds only the splats 0 and -1 into packed-f32 operands
///    (SIFoldOperands::tryFoldRegSeqSplat), the only values whose two dwords read the same either way.
/// Anything else is a 32-bit literal (MI300 ISA §3.6.2 "Literal constants"; LLVM
/// AMDGPUDisassembler::decodeLiteralConstant): for f64 operands it is the high dword (low dword zero); for 64-bit
/// integer and packed-f32 operands it is zero-extended; for 16-bit operands its low 16 bits are what the ALU reads.
/// `bits` holds 32 bits for 16-bit inline constants (the high half matters only under op_sel).
[[nodiscard]] inline std::optional<ConstantBits> constant_bits(const Operand& o, isa::ValueType t) {
  using isa::ValueType;
  ConstantBits c;
  const bool w64 = detail::is_64(t);
  if (o.kind == Operand::Kind::imm) {
    const std::int64_t v = o.imm;
    if (v >= -16 && v <= 64) {
      c.bits = w64 ? static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(static_cast<std::uint32_t>(v));
      return c;
    }
    if (v < -0x80000000ll || v > 0xffffffffll) return std::nullopt;
    const std::uint32_t lit = static_cast<std::uint32_t>(v);
    c.literal = true;
    if (t == ValueType::f64) c.bits = static_cast<std::uint64_t>(lit) << 32;
    else if (detail::is_16(t)) c.bits = lit & 0xffff;
    else c.bits = lit;
    return c;
  }
  if (o.kind != Operand::Kind::real) return std::nullopt;
  const double v = o.real;
  const bool inv2pi = detail::is_inv_2pi(v);
  const bool is_inline = inv2pi || detail::inline_f16(v).has_value();
  switch (t) {
    case ValueType::f16: case ValueType::v2f16: case ValueType::v2f16_splat: {
      if (inv2pi) { c.bits = 0x3118; return c; }
      if (auto b = detail::inline_f16(v)) { c.bits = *b; return c; }
      return std::nullopt;
    }
    case ValueType::bf16: case ValueType::v2bf16: {
      if (inv2pi) { c.bits = 0x3e22; return c; }
      if (auto b = detail::inline_bf16(v)) { c.bits = *b; return c; }
      return std::nullopt;
    }
    case ValueType::i16: case ValueType::v2i16: {
      if (!is_inline) return std::nullopt;  // a 16-bit integer operand takes no float literal
      c.bits = inv2pi ? 0x3e22f983u : std::bit_cast<std::uint32_t>(static_cast<float>(v));
      return c;
    }
    case ValueType::f64: case ValueType::i64: {
      if (inv2pi) { c.bits = 0x3fc45f306dc9c882ull; return c; }
      c.bits = std::bit_cast<std::uint64_t>(v);
      // A non-inline f64 written as a real is a literal holding the high dword.
      if (!is_inline) { c.literal = true; c.bits &= 0xffffffff00000000ull; }
      return c;
    }
    case ValueType::v2f32: case ValueType::v2i32: {
      c.bits = inv2pi ? 0x3e22f983u : std::bit_cast<std::uint32_t>(static_cast<float>(v));
      c.literal = !is_inline;
      return c;
    }
    default: {
      if (inv2pi) { c.bits = 0x3e22f983u; return c; }
      const float f = static_cast<float>(v);
      c.bits = std::bit_cast<std::uint32_t>(f);
      c.literal = !is_inline;
      return c;
    }
  }
}

/// The bits of a literal dword read from the instruction stream, for value type `t` (see constant_bits).
[[nodiscard]] inline std::uint64_t literal_bits(std::uint32_t lit, isa::ValueType t) {
  if (t == isa::ValueType::f64) return static_cast<std::uint64_t>(lit) << 32;
  if (detail::is_16(t)) return lit & 0xffff;
  return lit;
}

}  // namespace asmevo::emu
