// Syntax layer of the assembly parser: one source line split into label, mnemonic, operands and modifiers,
// before any instruction table is consulted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/ir/reg.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::syntax {

/// Source modifiers written around an operand: `-x`, `|x|`, `abs(x)`, `neg(x)`, `sext(x)`.
enum Mod : std::uint8_t { mod_none = 0, mod_neg = 1, mod_abs = 2, mod_sext = 4 };

/// One operand as written, before it is matched to an instruction's operand slot.
struct Atom {
  enum class Kind : std::uint8_t {
    reg,      ///< a register or register range (`v1`, `s[0:1]`, `vcc`, `src_scc`)
    integer,  ///< an integer constant expression, evaluated
    real,     ///< a floating-point literal (`0.5`, `-1e3`)
    expr,     ///< a symbolic expression kept as text (`.LBB0_1`, `sym@rel32@lo+4`)
    word,     ///< a bare keyword that is not a register (`off`, `mrt0`)
    call,     ///< `name(args)` such as `hwreg(HW_REG_MODE, 0, 2)`; text kept whole
  };
  Kind kind = Kind::integer;
  Reg reg{};
  std::int64_t value = 0;  ///< integer value; for `real`, unused
  double real = 0;
  bool hex = false;        ///< integer was written in hex (printing keeps the style where it matters)
  std::string text;        ///< the source spelling (always set; normalised for expr)
  std::uint8_t mods = mod_none;
  std::uint32_t col = 0;   ///< 1-based column in the line
};

/// A named modifier: `glc`, `offset:16`, `op_sel:[0,1]`, `row_shl:1`, `dst_sel:WORD_1`, `swizzle(...)`.
struct Named {
  std::string name;                 ///< lower-case name (`offset`, `op_sel`, `glc`)
  enum class Kind : std::uint8_t { flag, integer, list, word, call } kind = Kind::flag;
  std::int64_t value = 0;           ///< for integer
  std::vector<std::int64_t> list;   ///< for list
  std::string text;                 ///< for word / call (the value part), and the full source spelling in `spelling`
  std::string spelling;
  std::uint32_t col = 0;
};

/// One logical line of assembly text.
struct Line {
  std::uint32_t number = 0;         ///< 1-based line number
  std::string source;               ///< the line as written (without the newline)
  std::vector<std::string> labels;  ///< labels defined on the line (`foo:`)
  std::string directive;            ///< `.p2align` etc. when the line is a directive
  std::string directive_args;       ///< the rest of a directive line, verbatim (trimmed)
  std::string mnemonic;             ///< lower-case instruction mnemonic, with any `_e32/_e64/_sdwa/_dpp` suffix
  std::uint32_t mnemonic_col = 0;
  std::string operand_text;         ///< everything after the mnemonic, trimmed, comment removed
  std::uint32_t operand_col = 0;
  std::vector<std::vector<Atom>> groups;  ///< comma-separated groups; each holds one or more atoms
  std::vector<Named> named;         ///< trailing named modifiers, in order
  std::string comment;              ///< trailing comment text after `;` or `//` (without the marker)
  std::optional<std::uint32_t> id;  ///< a stable id found in the comment (`; i42`)
};

}  // namespace asmevo::syntax
