// Operand: the value held by one operand slot of an instruction (register, constant, expression, modifier value).
#pragma once

#include <cstdint>
#include <string>

#include "asmevo/ir/reg.hpp"

namespace asmevo {

/// Source modifiers (VOP3 neg/abs for floats, SDWA sext for integers). Bit flags.
enum SrcMod : std::uint8_t { src_neg = 1, src_abs = 2, src_sext = 4 };

/// The value in one operand slot. Which kinds a slot accepts is given by the instruction's form.
struct Operand {
  enum class Kind : std::uint8_t {
    absent,  ///< an optional operand that is not present (prints nothing, encodes the default)
    reg,     ///< a register range
    imm,     ///< an integer (inline constant, literal, offset, modifier value, bit flag = 1)
    real,    ///< a floating-point constant as written (`0.5`); its encoding depends on the slot's type
    expr,    ///< a symbolic expression or label, kept as text (`.LBB0_3`, `sym@rel32@lo+4`)
    text,    ///< a symbolic spelling kept verbatim (`hwreg(HW_REG_MODE, 0, 2)`, `WORD_1`, `row_shl:1`)
    list,    ///< a bit list such as op_sel:[0,1]: bits in `imm`, entry count in `count`
  };
  Kind kind = Kind::absent;
  std::uint8_t mods = 0;   ///< SrcMod bits
  std::uint8_t count = 0;  ///< list length (Kind::list)
  bool hex = false;        ///< written in hex (kept so printing stays recognisable)
  Reg reg{};
  std::int64_t imm = 0;
  double real = 0;
  std::string text;

  [[nodiscard]] static Operand make_reg(Reg r, std::uint8_t m = 0) {
    Operand o;
    o.kind = Kind::reg;
    o.reg = r;
    o.mods = m;
    return o;
  }
  [[nodiscard]] static Operand make_imm(std::int64_t v, std::uint8_t m = 0) {
    Operand o;
    o.kind = Kind::imm;
    o.imm = v;
    o.mods = m;
    return o;
  }
  [[nodiscard]] static Operand make_real(double v, std::uint8_t m = 0) {
    Operand o;
    o.kind = Kind::real;
    o.real = v;
    o.mods = m;
    return o;
  }
  [[nodiscard]] static Operand make_expr(std::string t) {
    Operand o;
    o.kind = Kind::expr;
    o.text = std::move(t);
    return o;
  }
  [[nodiscard]] static Operand make_text(std::string t) {
    Operand o;
    o.kind = Kind::text;
    o.text = std::move(t);
    return o;
  }
  [[nodiscard]] static Operand make_list(std::uint64_t bits, std::uint8_t n) {
    Operand o;
    o.kind = Kind::list;
    o.imm = static_cast<std::int64_t>(bits);
    o.count = n;
    return o;
  }

  [[nodiscard]] bool present() const noexcept { return kind != Kind::absent; }
  [[nodiscard]] bool is_reg() const noexcept { return kind == Kind::reg; }

  friend bool operator==(const Operand& a, const Operand& b) {
    if (a.kind != b.kind || a.mods != b.mods) return false;
    switch (a.kind) {
      case Kind::absent: return true;
      case Kind::reg: return a.reg == b.reg;
      case Kind::imm: return a.imm == b.imm;
      case Kind::real: return a.real == b.real || (a.real != a.real && b.real != b.real);
      case Kind::expr:
      case Kind::text: return a.text == b.text;
      case Kind::list: return a.imm == b.imm && a.count == b.count;
    }
    return false;
  }
};

}  // namespace asmevo
