// Constant-expression versions of the operand rules the parser applies at run time (register file, width,
// alignment, range, inline constants), and of the positional part of a form's operand template; the typed
// builders evaluate them over the constexpr instruction tables to choose a form at compile time.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "asmevo/ir/constants.hpp"
#include "asmevo/ir/detail/asm_template.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/reg.hpp"

namespace asmevo::detail {

/// Why an argument does not fit an operand slot. `ok` fits; the others name the rule, and each has one
/// compile-time message (builder.hpp, operand_error) and one run-time wording (rule_text).
enum class Rule : std::uint8_t {
  ok,
  operand_count,      ///< no form takes this many positional operands
  reg_file,           ///< the slot does not accept a register of this file
  reg_width,          ///< the slot wants a register range of another width (dwords)
  misaligned,         ///< the tuple's first register is not a multiple of the slot's alignment
  out_of_range,       ///< a register index past the target's register file
  need_register,      ///< a constant where only a register is accepted
  no_constant,        ///< the slot accepts no constants at all
  no_literal,         ///< the constant is not an inline constant and the form has no literal dword (VOP3 on gfx9)
  constant_too_wide,  ///< the constant does not fit 32 bits
  need_off,           ///< the form spells `off` here
  need_vcc,           ///< the form spells `vcc` here
  need_integer,       ///< the slot is an integer (SOPP simm16, offsets, counts)
  need_waitcnt,       ///< a wait (vmcnt<N> ...) given to an operand that is not s_waitcnt's
  no_modifier,        ///< no named modifier of this name on the form
  need_keyword,       ///< the form is selected by a keyword (offen, idxen, lds, gds) that was not given
  glc_required,       ///< a returning atomic needs glc (sc0 on gfx940+)
  glc_forbidden,      ///< a non-returning form does not take glc (sc0)
  constant_bus,       ///< gfx9 VALU reads at most one SGPR or literal over the constant bus
  mfma_overlap,       ///< an MFMA's src2 partially overlaps a vdst wider than 4 dwords (LLVM validateMFMA)
  f8f6f4_width,       ///< gfx950 f8f6f4 MFMA: src0/src1 tuple size does not match the cbsz/blgp format
};

/// The run-time wording of a rule (the Diag message adds the instruction, the operand and the value).
[[nodiscard]] constexpr std::string_view rule_text(Rule r) noexcept {
  switch (r) {
    case Rule::ok: return "ok";
    case Rule::operand_count: return "wrong number of operands";
    case Rule::reg_file: return "register file not accepted";
    case Rule::reg_width: return "wrong register width (dwords)";
    case Rule::misaligned: return "misaligned register tuple";
    case Rule::out_of_range: return "register index out of range for the target";
    case Rule::need_register: return "expected a register";
    case Rule::no_constant: return "constants are not allowed here";
    case Rule::no_literal: return "a literal constant is not allowed here (gfx9 VOP3 encodings take inline constants only)";
    case Rule::constant_too_wide: return "constant does not fit 32 bits";
    case Rule::need_off: return "expected 'off' here";
    case Rule::need_vcc: return "expected 'vcc' here";
    case Rule::need_integer: return "expected an integer";
    case Rule::need_waitcnt: return "a wait count is only accepted by s_waitcnt";
    case Rule::no_modifier: return "this instruction has no such modifier";
    case Rule::need_keyword: return "this form needs a keyword (offen, idxen, lds or gds)";
    case Rule::glc_required: return "a returning atomic needs glc (sc0 on gfx940+)";
    case Rule::glc_forbidden: return "this form does not return (no glc / sc0)";
    case Rule::constant_bus: return "violates the constant bus limit (gfx9 VALU reads at most one SGPR or literal)";
    case Rule::mfma_overlap: return "source 2 operand must not partially overlap with dst";
    case Rule::f8f6f4_width: return "wrong register tuple size for the cbsz/blgp format";
  }
  return "?";
}

/// reg:: bit of a register of `file` at `index` (special registers by hardware code); usable in constant expressions.
[[nodiscard]] constexpr std::uint32_t reg_file_bit(RegFile file, unsigned index) noexcept {
  using namespace isa::reg;
  switch (file) {
    case RegFile::sgpr: return sgpr;
    case RegFile::vgpr: return vgpr;
    case RegFile::agpr: return agpr;
    case RegFile::ttmp: return ttmp;
    case RegFile::special: break;
  }
  switch (index) {
    case special::vcc_lo: case special::vcc_hi: return vcc;
    case special::exec_lo: case special::exec_hi: return exec;
    case special::m0: return m0;
    case special::flat_scratch_lo: case special::flat_scratch_hi: return flat_scratch;
    case special::xnack_mask_lo: case special::xnack_mask_hi: return xnack_mask;
    case special::src_shared_base: return src_shared_base;
    case special::src_shared_limit: return src_shared_limit;
    case special::src_private_base: return src_private_base;
    case special::src_private_limit: return src_private_limit;
    case special::src_pops_exiting_wave_id: return src_pops_exiting_wave_id;
    case special::src_execz: return src_execz;
    case special::src_vccz: return src_vccz;
    case special::src_scc: return src_scc;
    case special::src_lds_direct: return lds_direct;
    case special::scc: return scc;
    default: return 0;
  }
}

/// The rule a register breaks in an operand slot, in the order parser.hpp's reg_mismatch checks them
/// (file, width, range, alignment). tests/ir/builder_test.cpp checks the two agree on every slot.
[[nodiscard]] constexpr Rule reg_rule(Target t, RegFile file, unsigned index, unsigned dwords,
                                      const isa::OperandInfo& op) noexcept {
  if (!(op.regs & reg_file_bit(file, index))) return Rule::reg_file;
  const unsigned want = op.dwords();
  const bool constant_like = file == RegFile::special && index >= special::src_shared_base;
  if (want && dwords != want && !constant_like) return Rule::reg_width;
  if (file != RegFile::special) {
    if (!range_problem(t, file, index, 1).empty() || !range_problem(t, file, index + dwords - 1, 1).empty())
      return Rule::out_of_range;
    const unsigned align = (file == RegFile::vgpr || file == RegFile::agpr) ? op.valign : op.salign;
    if (align > 1 && index % align != 0) return Rule::misaligned;
  }
  return Rule::ok;
}

/// Whether a constant operand slot takes a literal dword: gfx9 has no FeatureVOP3Literal, so VOP3/VOP3P
/// encodings take inline constants only (AMDGPUAsmParser::validateVOPLiteral); as parser.hpp's fill_value.
[[nodiscard]] constexpr bool literal_ok(const isa::FormInfo& f, const isa::OperandInfo& op) noexcept {
  return (op.regs & isa::reg::literal) &&
         !(f.variant == isa::Variant::e64 || f.format == isa::Format::VOP3 || f.format == isa::Format::VOP3P);
}

/// The rule an integer constant breaks in a register-or-constant (`src`) slot; as fill_value.
[[nodiscard]] constexpr Rule int_src_rule(const isa::FormInfo& f, const isa::OperandInfo& op, std::int64_t v) noexcept {
  const bool lit = literal_ok(f, op);
  const bool inl_ok = op.regs & isa::reg::inline_const;
  const unsigned bits = value_bits(op.type);
  const bool inl = is_inline_int(v) || is_inline_bits(v, bits);
  if (!inl_ok && !lit) return Rule::no_constant;
  if (!inl && !lit) return Rule::no_literal;
  if (bits <= 32 && (v > 0xffffffffll || v < -0x80000000ll)) return Rule::constant_too_wide;
  return Rule::ok;
}

/// A cache-policy keyword and the CPol bit it sets.
struct CpolWord {
  std::string_view word;
  int bit;
};

/// The cache-policy keywords of a target (LLVM CPol: GLC=1, SLC=2, SCC=16; gfx940+ vector memory spells them sc0,
/// nt, sc1), for spelling a cpol operand's bits as the modifiers a builder takes.
[[nodiscard]] constexpr std::array<CpolWord, 3> cpol_words(Target t, bool smem) noexcept {
  if (t != Target::gfx90a && !smem) return {{{"sc0", 1}, {"nt", 2}, {"sc1", 16}}};
  return {{{"glc", 1}, {"slc", 2}, {"scc", 16}}};
}

/// Cache-policy bit of a keyword, as parser.hpp's cpol_bit. 0 if the keyword is not a cache-policy bit on the target.
[[nodiscard]] constexpr int cpol_bit_ce(Target t, std::string_view w, bool smem) noexcept {
  for (const CpolWord& c : cpol_words(t, smem))
    if (c.word == w) return c.bit;
  return 0;
}

/// One positional element of a form's syntax: an operand slot, or a literal word (`off`, `vcc`).
struct PosElem {
  bool word = false;
  std::uint8_t op = 0;    ///< index into the form's operands (operand elements)
  std::string_view text;  ///< the word (word elements)
};

/// The positional elements of a form, in AsmString order, as make_template (asm_template.hpp) reads them,
/// its keywords, plus the implicit `vcc` LLVM accepts first on VOPC e32 and last on v_cndmask_b32_e32.
struct PosTemplate {
  std::array<PosElem, 12> elems{};
  std::uint8_t count = 0;
  std::uint8_t required = 0;  ///< elements before the first optional operand (all later ones are optional)
  std::array<std::string_view, 4> keywords{};  ///< words that select the form: offen, idxen, lds, gds
  std::uint8_t keyword_count = 0;
  bool vcc_first = false;
  bool vcc_last = false;
};

[[nodiscard]] constexpr bool ident_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Reads the positional part of a form's AsmString in a constant expression (same rules as make_template).
[[nodiscard]] constexpr PosTemplate positional_template(const isa::FormInfo& f) noexcept {
  PosTemplate t;
  const std::string_view s = f.asm_string;
  const auto ops = isa::operands(f);
  std::size_t i = 0;
  while (i < s.size() && s[i] != ' ' && s[i] != '$' && s[i] != '\t') ++i;
  auto find_op = [&](std::string_view name) { return asm_operand_index(f, name); };
  bool comma = false, saw_positional = false, optional_seen = false;
  auto push = [&](PosElem e, bool optional) {
    if (t.count == t.elems.size()) return;
    optional_seen = optional_seen || optional;
    if (!optional_seen) ++t.required;
    t.elems[t.count++] = e;
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == ',') { comma = true; ++i; continue; }
    if (c == ' ' || c == '\t') { ++i; continue; }
    if (c == '$') {
      std::size_t b = ++i;
      std::string_view name;
      if (i < s.size() && s[i] == '{') {
        ++b;
        while (i < s.size() && s[i] != '}') ++i;
        name = s.substr(b, i - b);
        ++i;
      } else {
        while (i < s.size() && ident_char(s[i])) ++i;
        name = s.substr(b, i - b);
      }
      if (const int k = find_op(name); k >= 0 && !is_named_kind(ops[static_cast<std::size_t>(k)].kind)) {
        push(PosElem{false, static_cast<std::uint8_t>(k), {}}, ops[static_cast<std::size_t>(k)].is_optional());
        saw_positional = true;
      }
      comma = false;
      continue;
    }
    const std::size_t b = i;
    while (i < s.size() && s[i] != ',' && s[i] != ' ' && s[i] != '$' && s[i] != '\t') ++i;
    const std::string_view w = s.substr(b, i - b);
    // `off` and `vcc` stand for an operand; other words (ds_gws_* `gds`) only select the form: keywords here,
    // although make_template reads a leading one as positional.
    if ((comma || !saw_positional) && (w == "off" || w == "vcc")) {
      push(PosElem{true, 0, w}, false);
      saw_positional = true;
    } else if (t.keyword_count < t.keywords.size()) {
      t.keywords[t.keyword_count++] = w;
    }
    comma = false;
  }
  bool has_vcc_word = false;
  for (std::size_t k = 0; k < t.count; ++k) has_vcc_word = has_vcc_word || (t.elems[k].word && t.elems[k].text == "vcc");
  if (!has_vcc_word && f.variant == isa::Variant::e32) {
    t.vcc_first = f.format == isa::Format::VOPC && (f.implicit_defs & isa::reg::vcc);
    t.vcc_last = f.format == isa::Format::VOP2 && (f.implicit_uses & isa::reg::vcc);
  }
  return t;
}

}  // namespace asmevo::detail
