// The operand template of a form, read once from its LLVM AsmString: which operands are positional, which
// are named modifiers, and which literal words (`off`, `vcc`, `offen`) the syntax requires.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/ir/gen/isa_tables.hpp"

namespace asmevo::detail {

/// Operand kinds written as `name`, `name:value` after the positional operands.
[[nodiscard]] constexpr bool is_named_kind(isa::Kind k) noexcept {
  using K = isa::Kind;
  switch (k) {
    case K::named_int: case K::flag: case K::r128_a16: case K::cpol: case K::cpol_glc: case K::cpol_noglc:
    case K::omod: case K::bit_array: case K::blgp: case K::dpp_ctrl: case K::sdwa_sel: case K::sdwa_dst_unused:
    case K::format: case K::swizzle:
      return true;
    default:
      return false;
  }
}

/// Index of the printed operand an AsmString `$name` refers to, or -1. An operand of exactly that name wins
/// (gfx950's scaled MFMAs print op_sel through `$src0_modifiers`); otherwise `$src0_modifiers` stands for the
/// source operand with its modifiers. Shared by the run-time template and the builders' constexpr one.
[[nodiscard]] constexpr int asm_operand_index(const isa::FormInfo& f, std::string_view name) noexcept {
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (ops[k].name == name && ops[k].is_printed()) return static_cast<int>(k);
  constexpr std::string_view mods = "_modifiers";
  if (name.size() > mods.size() && name.substr(name.size() - mods.size()) == mods) name.remove_suffix(mods.size());
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (ops[k].name == name && ops[k].is_printed()) return static_cast<int>(k);
  return -1;
}

/// One element of a template, in AsmString order.
struct TemplateElem {
  enum class Kind : std::uint8_t {
    operand,  ///< a positional operand slot (`op` = index into the form's operands)
    named,    ///< a named/optional modifier slot
    word,     ///< a literal word between commas (`off`, `vcc`): positional, must be written
    keyword,  ///< a literal word after a space (`offen`, `idxen`, `lds`): written as a flag
  };
  Kind kind;
  std::uint8_t op = 0;
  std::string_view word;
  bool comma_before = false;  ///< separated from the previous positional element by ", "
};

struct Template {
  std::string_view mnemonic_text;  ///< the AsmString's first word (VOPC e32 keeps `_e32`)
  std::vector<TemplateElem> elems;
  bool glued = false;              ///< the first operand follows the mnemonic without a space (`v_add_f32$vdst`)
  bool default_vcc_first = false;  ///< VOPC e32: LLVM prints (and accepts) an implicit `vcc, ` first
  bool default_vcc_last = false;   ///< v_cndmask_b32_e32: LLVM prints (and accepts) a trailing `, vcc`
  std::uint8_t positional = 0;     ///< number of operand + word elements
};

[[nodiscard]] inline Template make_template(const isa::FormInfo& f) {
  Template t;
  std::string_view s = f.asm_string;
  std::size_t i = 0;
  while (i < s.size() && s[i] != ' ' && s[i] != '$' && s[i] != '\t') ++i;
  t.mnemonic_text = s.substr(0, i);
  t.glued = i < s.size() && s[i] == '$';
  const auto ops = isa::operands(f);
  auto find_op = [&](std::string_view name) { return asm_operand_index(f, name); };
  bool comma = false, space = false;
  while (i < s.size()) {
    char c = s[i];
    if (c == ',') { comma = true; ++i; continue; }
    if (c == ' ' || c == '\t') { space = true; ++i; continue; }
    if (c == '$') {
      std::size_t b = ++i;
      if (i < s.size() && s[i] == '{') {  // ${name}
        ++b;
        while (i < s.size() && s[i] != '}') ++i;
        std::string_view name = s.substr(b, i - b);
        ++i;
        int k = find_op(name);
        if (k >= 0) t.elems.push_back({is_named_kind(ops[k].kind) ? TemplateElem::Kind::named : TemplateElem::Kind::operand,
                                       static_cast<std::uint8_t>(k), {}, comma});
      } else {
        while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
        std::string_view name = s.substr(b, i - b);
        int k = find_op(name);
        if (k >= 0) {
          const bool named = is_named_kind(ops[k].kind);
          t.elems.push_back({named ? TemplateElem::Kind::named : TemplateElem::Kind::operand,
                             static_cast<std::uint8_t>(k), {}, comma});
        }
      }
      comma = space = false;
      continue;
    }
    std::size_t b = i;
    while (i < s.size() && s[i] != ',' && s[i] != ' ' && s[i] != '$' && s[i] != '\t') ++i;
    std::string_view w = s.substr(b, i - b);
    // A word after a comma, or directly after the mnemonic, is positional (`off`, `vcc`); after a plain space
    // following anything else it is a keyword flag (`offen`, ds_gws's `$offset gds`).
    const bool positional = comma || t.elems.empty();
    t.elems.push_back({positional ? TemplateElem::Kind::word : TemplateElem::Kind::keyword, 0, w, comma});
    comma = space = false;
  }
  for (const auto& e : t.elems)
    t.positional += e.kind == TemplateElem::Kind::operand || e.kind == TemplateElem::Kind::word;
  bool has_vcc_word = false;
  for (const auto& e : t.elems) has_vcc_word = has_vcc_word || (e.kind == TemplateElem::Kind::word && e.word == "vcc");
  // AMDGPUInstPrinter::printOperand prints a default vcc for VOPC e32 (implicit VCC def) and for
  // v_cndmask_b32_e32 (implicit VCC use); the assembler accepts the operand written or left out.
  if (!has_vcc_word && f.variant == isa::Variant::e32) {
    if (f.format == isa::Format::VOPC && (f.implicit_defs & isa::reg::vcc)) t.default_vcc_first = true;
    if (f.format == isa::Format::VOP2 && (f.implicit_uses & isa::reg::vcc)) t.default_vcc_last = true;
  }
  return t;
}

/// Templates of all forms of a target, built once (thread-safe) and indexed like isa::forms(t).
[[nodiscard]] inline const std::vector<Template>& templates(Target t) {
  static std::vector<Template> cache[3];
  static std::once_flag once[3];
  const auto k = static_cast<std::size_t>(t);
  std::call_once(once[k], [&] {
    const auto fs = isa::forms(t);
    cache[k].reserve(fs.size());
    for (const auto& f : fs) cache[k].push_back(make_template(f));
  });
  return cache[k];
}

}  // namespace asmevo::detail
