// Assembly text to IR: matches each instruction line against the target's generated forms, as LLVM's
// AMDGPU assembler does, and keeps labels, directives, kernel-descriptor blocks and metadata.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/ir/constants.hpp"
#include "asmevo/ir/detail/asm_template.hpp"
#include "asmevo/ir/detail/line_parser.hpp"
#include "asmevo/ir/detail/operand_check.hpp"
#include "asmevo/ir/gen/form_traits.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo {

namespace detail {

/// reg:: bit of a register (for matching against OperandInfo::regs); one table for parser and builders.
[[nodiscard]] inline std::uint32_t reg_bit(const Reg& r) noexcept { return reg_file_bit(r.file, r.index); }

/// Why a register does not fit an operand slot; empty if it fits.
[[nodiscard]] inline std::string reg_mismatch(Target t, const Reg& r, const isa::OperandInfo& op) {
  const std::uint32_t bit = reg_bit(r);
  if (!(op.regs & bit)) return "register file not accepted";
  const unsigned want = op.dwords();
  // src_shared_base and the other constant-like sources read as a value of the operand's width.
  const bool constant_like = r.file == RegFile::special && r.index >= special::src_shared_base;
  if (want && r.dwords != want && !constant_like) {
    // A 16-bit or 32-bit slot takes one register; special 64-bit pairs (vcc, exec) count as 2.
    return "expected a " + std::to_string(want) + "-dword register, got " + std::to_string(r.dwords);
  }
  if (r.file != RegFile::special) {
    // Range only: alignment is the operand's own rule (some gfx950 operands are `_Align1`).
    auto p = range_problem(t, r.file, r.index, 1);
    if (p.empty() && r.index + r.dwords > 0) p = range_problem(t, r.file, r.index + r.dwords - 1, 1);
    if (!p.empty()) return std::string(p);
    const unsigned align = (r.file == RegFile::vgpr || r.file == RegFile::agpr) ? op.valign : op.salign;
    if (align > 1 && r.index % align != 0)
      return "misaligned register tuple: " + std::string(prefix(r.file)) + " tuples here must start at a multiple of " +
             std::to_string(align);
  }
  return {};
}

struct MatchCtx {
  Target target;
  const syntax::Line* line;
  std::vector<const syntax::Atom*> atoms;  ///< flattened positional atoms
  /// Apply the assembler's usage rules (validate_rules, constant bus). A decoder turns them off: bytes that
  /// exist are described as they are, even where LLVM's assembler would refuse to produce them.
  bool usage_rules = true;
};

/// Numeric value of an integer-like named modifier, with symbolic spellings of SDWA selects.
[[nodiscard]] inline std::optional<std::int64_t> sdwa_sel_value(std::string_view w) {
  constexpr std::string_view names[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
  for (std::size_t i = 0; i < 7; ++i)
    if (names[i] == w) return static_cast<std::int64_t>(i);
  return std::nullopt;
}
[[nodiscard]] inline std::optional<std::int64_t> dst_unused_value(std::string_view w) {
  constexpr std::string_view names[] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};
  for (std::size_t i = 0; i < 3; ++i)
    if (names[i] == w) return static_cast<std::int64_t>(i);
  return std::nullopt;
}

/// DPP control as LLVM's DppCtrl encodes it (SIDefines.h DppCtrl; MI300 ISA guide "DPP_CTRL").
[[nodiscard]] inline std::optional<std::int64_t> dpp_ctrl_value(const syntax::Named& n) {
  auto in = [&](std::int64_t lo, std::int64_t hi) { return n.kind == syntax::Named::Kind::integer && n.value >= lo && n.value <= hi; };
  if (n.name == "quad_perm" && n.kind == syntax::Named::Kind::list && n.list.size() == 4) {
    std::int64_t v = 0;
    for (int i = 0; i < 4; ++i) {
      if (n.list[i] < 0 || n.list[i] > 3) return std::nullopt;
      v |= n.list[i] << (2 * i);
    }
    return v;
  }
  if (n.name == "row_shl" && in(1, 15)) return 0x100 + n.value;
  if (n.name == "row_shr" && in(1, 15)) return 0x110 + n.value;
  if (n.name == "row_ror" && in(1, 15)) return 0x120 + n.value;
  if (n.name == "wave_shl" && in(1, 1)) return 0x130;
  if (n.name == "wave_rol" && in(1, 1)) return 0x134;
  if (n.name == "wave_shr" && in(1, 1)) return 0x138;
  if (n.name == "wave_ror" && in(1, 1)) return 0x13C;
  if (n.name == "row_mirror" && n.kind == syntax::Named::Kind::flag) return 0x140;
  if (n.name == "row_half_mirror" && n.kind == syntax::Named::Kind::flag) return 0x141;
  if (n.name == "row_bcast" && in(15, 15)) return 0x142;
  if (n.name == "row_bcast" && in(31, 31)) return 0x143;
  if (n.name == "row_newbcast" && in(0, 15)) return 0x150 + n.value;
  return std::nullopt;
}
[[nodiscard]] inline bool is_dpp_ctrl_name(std::string_view s) {
  for (auto n : {"quad_perm", "row_shl", "row_shr", "row_ror", "wave_shl", "wave_rol", "wave_shr", "wave_ror",
                 "row_mirror", "row_half_mirror", "row_bcast", "row_newbcast"})
    if (s == n) return true;
  return false;
}

/// Cache-policy bits (LLVM CPol: GLC=1, SLC=2, DLC=4, SCC=16). gfx940+ spells them sc0 (GLC), nt (SLC), sc1 (SCC)
/// on vector memory; scalar memory keeps `glc` on every gfx9 target (AMDGPUInstPrinter::printCPol).
[[nodiscard]] inline int cpol_bit(Target t, std::string_view w, bool smem = false) {
  const bool g940 = t != Target::gfx90a && !smem;
  if (g940) {
    if (w == "sc0") return 1;
    if (w == "nt") return 2;
    if (w == "sc1") return 16;
  } else {
    if (w == "glc") return 1;
    if (w == "slc") return 2;
    if (w == "scc") return 16;
  }
  return 0;
}

/// Parses the operand of s_waitcnt: `vmcnt(N) expcnt(N) lgkmcnt(N)` separated by spaces, `&` or `,`, or an integer.
[[nodiscard]] inline Expected<std::int64_t> parse_waitcnt_operand(Target t, std::string_view s, const syntax::Line& l) {
  s = trim(s);
  auto bad = [&](std::string msg) {
    return fail(DiagCode::invalid_operand, std::move(msg), Loc{{}, l.number, l.operand_col, {}}, l.source,
                "write vmcnt(N) expcnt(N) lgkmcnt(N) (any subset, separated by spaces, '&' or ','), or a 16-bit integer");
  };
  if (s.empty()) return bad("s_waitcnt needs an operand");
  if (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-') {
    syntax::Line tmp;
    OperandReader rd(s, l.operand_col, l.number, l.source);
    if (auto r = rd.read(tmp); !r || tmp.groups.size() != 1 || tmp.groups[0].size() != 1 ||
                               tmp.groups[0][0].kind != syntax::Atom::Kind::integer || !tmp.named.empty())
      return bad("malformed s_waitcnt operand");
    const auto v = tmp.groups[0][0].value;
    if (v < -32768 || v > 0xffff) return bad("s_waitcnt immediate does not fit 16 bits");
    return v & 0xffff;
  }
  Waitcnt w = Waitcnt::none(t);
  std::size_t i = 0;
  bool any = false;
  while (i < s.size()) {
    while (i < s.size() && (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == '&' || s[i] == ',')) ++i;
    if (i >= s.size()) break;
    std::size_t b = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    std::string name = lower(s.substr(b, i - b));
    if (i >= s.size() || s[i] != '(') return bad("expected '(' after '" + name + "'");
    ++i;
    std::size_t nb = i;
    while (i < s.size() && s[i] != ')') ++i;
    if (i >= s.size()) return bad("missing ')' after " + name);
    std::string_view num = trim(s.substr(nb, i - nb));
    ++i;
    std::int64_t v = 0;
    syntax::Line tmp;
    OperandReader rd(num, l.operand_col, l.number, l.source);
    if (auto r = rd.read(tmp); !r || tmp.groups.size() != 1 || tmp.groups[0].size() != 1 ||
                               tmp.groups[0][0].kind != syntax::Atom::Kind::integer)
      return bad("malformed count in " + name + "(...)");
    v = tmp.groups[0][0].value;
    Counter c;
    bool sat = false;
    if (name == "vmcnt") c = Counter::vm;
    else if (name == "expcnt") c = Counter::exp;
    else if (name == "lgkmcnt") c = Counter::lgkm;
    else if (name == "vmcnt_sat") c = Counter::vm, sat = true;
    else if (name == "expcnt_sat") c = Counter::exp, sat = true;
    else if (name == "lgkmcnt_sat") c = Counter::lgkm, sat = true;
    else return bad("unknown counter '" + name + "'");
    const auto mx = static_cast<std::int64_t>(max_count(t, c));
    if (v < 0 || (v > mx && !sat)) return bad(name + "(" + std::to_string(v) + ") is out of range: the field holds 0.." + std::to_string(mx));
    w.set(c, static_cast<unsigned>(std::min(v, mx)));
    any = true;
  }
  if (!any) return bad("s_waitcnt needs an operand");
  return encode_waitcnt(t, w);
}

/// Result of trying one form.
struct Attempt {
  bool ok = false;
  int score = 0;          ///< how far the match got (for choosing which failure to report)
  std::string why;        ///< reason of failure
  std::uint32_t col = 0;  ///< column of the offending operand
  Inst inst;
};

/// Converts an atom to an Operand for a source/register slot, or explains why it does not fit.
[[nodiscard]] inline std::string fill_value(Target t, const isa::FormInfo& f, const isa::OperandInfo& op,
                                            const syntax::Atom& a, Operand& out) {
  using K = isa::Kind;
  using AK = syntax::Atom::Kind;
  // Modifiers allowed by the slot.
  if (a.mods) {
    const bool fp_ok = op.mods == isa::Mods::fp && !(a.mods & syntax::mod_sext);
    const bool int_ok = op.mods == isa::Mods::int_ && a.mods == syntax::mod_sext;
    if (!fp_ok && !int_ok) return "source modifiers are not allowed here";
  }
  auto mods = static_cast<std::uint8_t>((a.mods & syntax::mod_neg ? src_neg : 0) | (a.mods & syntax::mod_abs ? src_abs : 0) |
                                        (a.mods & syntax::mod_sext ? src_sext : 0));
  switch (op.kind) {
    case K::reg:
      if (a.kind != AK::reg) return "expected a register";
      if (auto m = reg_mismatch(t, a.reg, op); !m.empty()) return m;
      out = Operand::make_reg(a.reg, mods);
      return {};
    case K::src: {
      if (a.kind == AK::reg) {
        if (auto m = reg_mismatch(t, a.reg, op); !m.empty()) return m;
        out = Operand::make_reg(a.reg, mods);
        return {};
      }
      const bool lit_ok = (op.regs & isa::reg::literal) &&
                          // gfx9 has no FeatureVOP3Literal: VOP3/VOP3P encodings take inline constants only
                          // (AMDGPUAsmParser::validateVOPLiteral).
                          !(f.variant == isa::Variant::e64 || f.format == isa::Format::VOP3 || f.format == isa::Format::VOP3P);
      const bool inl_ok = op.regs & isa::reg::inline_const;
      const unsigned bits = value_bits(op.type);
      if (a.kind == AK::integer) {
        // In a 32-bit operand 0xffffffff is -1, an inline constant (AMDGPU::isInlinableLiteral32 on the low bits).
        const std::int64_t v32 = bits == 32 && a.value >= 0x80000000ll && a.value <= 0xffffffffll
                                     ? static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(a.value)))
                                     : a.value;
        const bool inl = is_inline_int(v32) || is_inline_bits(a.value, bits);
        if (inl ? !(inl_ok || lit_ok) : !lit_ok) return inl ? "constants are not allowed here" : "a literal constant is not allowed here";
        if (bits <= 32 && (a.value > 0xffffffffll || a.value < -0x80000000ll)) return "constant does not fit 32 bits";
        out = Operand::make_imm(a.value, mods);
        out.hex = a.hex;
        return {};
      }
      if (a.kind == AK::real) {
        if (!std::isfinite(a.real)) return "floating-point constant out of range";
        const bool inl = is_inline_real(a.real, op.type);
        if (inl ? !(inl_ok || lit_ok) : !lit_ok) return inl ? "constants are not allowed here" : "a literal constant is not allowed here";
        out = Operand::make_real(a.real, mods);
        return {};
      }
      // `lit(N)` forces a literal dword where N would fit an inline constant. LLVM's disassembler prints it for
      // such literals (`s_addc_u32 s1, s1, lit(0x0)`, the high half of a PC-relative offset; see llvm-mc's test
      // MC/AMDGPU/literals.s). Kept verbatim, like a symbolic literal, so that it re-encodes as a literal.
      const bool forced_literal = a.kind == AK::call && !a.mods && lower(a.text).rfind("lit(", 0) == 0;
      if (a.kind == AK::expr || a.kind == AK::word || forced_literal) {
        if (!lit_ok) return "a symbolic literal is not allowed here";
        out = Operand::make_expr(a.text);
        return {};
      }
      return "expected a register or a constant";
    }
    case K::imm:
    case K::endpgm_imm:
      if (a.mods) return "modifiers are not allowed here";
      if (a.kind == AK::integer) {
        // 16-bit SOPP/SOPK immediates (i16imm, u16imm ...), written signed or unsigned. Some SOPP operands are
        // i32imm (s_sethalt): LLVM takes wider values there, and so does asmevo.
        if ((f.format == isa::Format::SOPP || f.format == isa::Format::SOPK) && op.cls.find("16") != std::string_view::npos &&
            (a.value < -32768 || a.value > 0xffff))
          return "immediate does not fit 16 bits";
        out = Operand::make_imm(a.value);
        out.hex = a.hex;
        return {};
      }
      if (a.kind == AK::expr || a.kind == AK::word) { out = Operand::make_expr(a.text); return {}; }
      return "expected an integer";
    case K::kimm:
      if (a.mods) return "modifiers are not allowed here";
      if (a.kind == AK::integer) {
        if (a.value > 0xffffffffll || a.value < -0x80000000ll) return "constant does not fit 32 bits";
        out = Operand::make_imm(a.value);
        out.hex = a.hex;
        return {};
      }
      if (a.kind == AK::real) {
        if (!std::isfinite(a.real)) return "floating-point constant out of range";
        out = Operand::make_real(a.real);
        return {};
      }
      if (a.kind == AK::expr || a.kind == AK::word) { out = Operand::make_expr(a.text); return {}; }
      return "expected a constant";
    case K::label:
      if (a.kind == AK::integer) {
        if (a.value < -32768 || a.value > 0xffff) return "branch offset does not fit 16 bits";
        out = Operand::make_imm(a.value);
        return {};
      }
      if (a.kind == AK::expr || a.kind == AK::word) { out = Operand::make_expr(a.text); return {}; }
      return "expected a label";
    case K::hwreg:
    case K::sendmsg:
    case K::gpr_idx: {
      const std::string_view want = op.kind == K::hwreg ? "hwreg(" : op.kind == K::sendmsg ? "sendmsg(" : "gpr_idx(";
      if (a.kind == AK::integer) { out = Operand::make_imm(a.value); out.hex = a.hex; return {}; }
      if (a.kind == AK::call && a.text.rfind(want, 0) == 0) { out = Operand::make_text(a.text); return {}; }
      return "expected " + std::string(want) + "...) or an integer";
    }
    default:
      return "unexpected operand";
  }
}

/// Fills a named slot from the line's named modifiers; marks the ones it consumed.
[[nodiscard]] inline std::string fill_named(Target t, const isa::FormInfo& f, const isa::OperandInfo& op,
                                            const syntax::Line& l, std::vector<bool>& used, Operand& out) {
  using K = isa::Kind;
  using NK = syntax::Named::Kind;
  auto take = [&](auto pred) -> const syntax::Named* {
    for (std::size_t i = 0; i < l.named.size(); ++i)
      if (!used[i] && pred(l.named[i])) { used[i] = true; return &l.named[i]; }
    return nullptr;
  };
  switch (op.kind) {
    case K::flag:
    case K::r128_a16: {
      const std::string_view name = op.kind == K::r128_a16 ? std::string_view("a16") : op.prefix;
      if (auto n = take([&](const syntax::Named& x) { return x.name == name; })) {
        if (n->kind != NK::flag) return "'" + std::string(name) + "' takes no value";
        out = Operand::make_imm(1);
      }
      return {};
    }
    case K::named_int: {
      if (auto n = take([&](const syntax::Named& x) { return x.name == op.prefix; })) {
        if (n->kind == NK::integer) { out = Operand::make_imm(n->value); out.hex = n->spelling.find("0x") != std::string::npos; return {}; }
        if (n->kind == NK::word) { out = Operand::make_expr(n->text); return {}; }
        return "'" + std::string(op.prefix) + ":' needs an integer";
      }
      return {};
    }
    case K::swizzle: {
      if (auto n = take([&](const syntax::Named& x) { return x.name == "offset"; })) {
        if (n->kind == NK::integer) { out = Operand::make_imm(n->value); return {}; }
        if (n->kind == NK::call) { out = Operand::make_text(n->text); return {}; }
        return "'offset:' needs an integer or swizzle(...)";
      }
      return {};
    }
    case K::cpol:
    case K::cpol_glc:
    case K::cpol_noglc: {
      std::int64_t bits = 0;
      bool any = false;
      for (std::size_t i = 0; i < l.named.size(); ++i) {
        if (used[i] || l.named[i].kind != NK::flag) continue;
        const std::string& nm = l.named[i].name;
        if (int b = cpol_bit(t, nm, f.format == isa::Format::SMEM)) { used[i] = true; bits |= b; any = true; continue; }
        // `nosc0`, `noglc` ...: the assembler accepts an explicit "bit clear".
        if (nm.size() > 2 && nm.compare(0, 2, "no") == 0 && cpol_bit(t, std::string_view(nm).substr(2), f.format == isa::Format::SMEM)) {
          used[i] = true;
          bits &= ~cpol_bit(t, std::string_view(nm).substr(2), f.format == isa::Format::SMEM);
        }
      }
      const char* glc = t == Target::gfx90a || f.format == isa::Format::SMEM ? "glc" : "sc0";
      if (op.kind == K::cpol_glc && !(bits & 1)) return std::string("a returning atomic needs ") + glc;
      if (op.kind == K::cpol_noglc && (bits & 1)) return std::string("this form does not return (no ") + glc + ")";
      if (any) out = Operand::make_imm(bits);
      return {};
    }
    case K::omod: {
      if (auto n = take([&](const syntax::Named& x) { return x.name == "mul" || x.name == "div"; })) {
        if (n->kind != NK::integer) return "output modifier needs mul:2, mul:4 or div:2";
        if (n->name == "mul" && n->value == 2) out = Operand::make_imm(1);
        else if (n->name == "mul" && n->value == 4) out = Operand::make_imm(2);
        else if (n->name == "div" && n->value == 2) out = Operand::make_imm(3);
        // mul:1 / div:1 is no output modifier: left absent, as if not written, so that the Inst equals the one its
        // printed text (which omits it, as LLVM's printer does) reads back as.
        else if ((n->name == "mul" || n->name == "div") && n->value == 1) out = Operand{};
        else return "output modifier must be mul:2, mul:4 or div:2";
      }
      return {};
    }
    case K::bit_array: {
      if (auto n = take([&](const syntax::Named& x) { return x.name == op.prefix; })) {
        if (n->kind != NK::list || n->list.empty() || n->list.size() > 4) return "'" + std::string(op.prefix) + ":' needs a list of 1..4 bits";
        std::uint64_t bits = 0;
        for (std::size_t i = 0; i < n->list.size(); ++i) {
          if (n->list[i] != 0 && n->list[i] != 1) return "'" + std::string(op.prefix) + ":' entries must be 0 or 1";
          bits |= static_cast<std::uint64_t>(n->list[i]) << i;
        }
        out = Operand::make_list(bits, static_cast<std::uint8_t>(n->list.size()));
      }
      return {};
    }
    case K::blgp: {
      if (auto n = take([&](const syntax::Named& x) { return x.name == "blgp" || x.name == "neg"; })) {
        if (n->name == "blgp" && n->kind == NK::integer) { out = Operand::make_imm(n->value); return {}; }
        if (n->name == "neg" && n->kind == NK::list && n->list.size() == 3) {
          std::uint64_t bits = 0;
          for (std::size_t i = 0; i < 3; ++i) bits |= static_cast<std::uint64_t>(n->list[i] & 1) << i;
          out = Operand::make_list(bits, 3);
          out.text = "neg";
          return {};
        }
        return "expected blgp:N or neg:[a,b,c]";
      }
      return {};
    }
    case K::dpp_ctrl: {
      if (auto n = take([&](const syntax::Named& x) { return is_dpp_ctrl_name(x.name); })) {
        auto v = dpp_ctrl_value(*n);
        if (!v) return "invalid DPP control '" + n->spelling + "'";
        out = Operand::make_imm(*v);
      }
      return {};
    }
    case K::sdwa_sel: {
      if (auto n = take([&](const syntax::Named& x) { return x.name == op.prefix; })) {
        auto v = n->kind == NK::word ? sdwa_sel_value(n->text) : std::nullopt;
        if (!v) return "'" + std::string(op.prefix) + ":' needs BYTE_0..BYTE_3, WORD_0, WORD_1 or DWORD";
        out = Operand::make_imm(*v);
      }
      return {};
    }
    case K::sdwa_dst_unused: {
      if (auto n = take([&](const syntax::Named& x) { return x.name == "dst_unused"; })) {
        auto v = n->kind == NK::word ? dst_unused_value(n->text) : std::nullopt;
        if (!v) return "'dst_unused:' needs UNUSED_PAD, UNUSED_SEXT or UNUSED_PRESERVE";
        out = Operand::make_imm(*v);
      }
      return {};
    }
    case K::format: {
      // MTBUF formats are kept as written (format:N, format:[...], dfmt:/nfmt: pairs).
      std::string text;
      for (std::size_t i = 0; i < l.named.size(); ++i) {
        const auto& x = l.named[i];
        if (used[i] || !(x.name == "format" || x.name == "dfmt" || x.name == "nfmt")) continue;
        used[i] = true;
        if (!text.empty()) text += ' ';
        text += x.spelling;
      }
      if (!text.empty()) out = Operand::make_text(text);
      return {};
    }
    default:
      return "internal: not a named operand kind";
  }
}

/// Counts distinct scalar values a VALU instruction reads over the constant bus (SGPRs, special
/// registers, literals, implicit VCC). gfx9 allows one (AMDGPUAsmParser::getConstantBusLimit: 1 before
/// GFX10); v_readlane/v_writelane are exempt for their lane select (SIInstrInfo::verifyInstruction).
[[nodiscard]] inline bool violates_constant_bus(const isa::FormInfo& f, const Inst& in) {
  using F = isa::Format;
  if (f.format != F::VOP1 && f.format != F::VOP2 && f.format != F::VOPC && f.format != F::VOP3 && f.format != F::VOP3P)
    return false;
  if (isa::form_traits(in.target, in.form) & isa::ftrait::const_bus_exempt) return false;
  const auto ops = isa::operands(f);
  std::vector<std::pair<int, std::uint16_t>> regs;  // (file, index) of scalar sources
  std::vector<std::string> lits;
  int n = 0;
  auto add_reg = [&](const Reg& r) {
    for (auto& [file, idx] : regs)
      if (file == static_cast<int>(r.file) && idx == r.index) return;
    regs.emplace_back(static_cast<int>(r.file), r.index);
    ++n;
  };
  if (f.implicit_uses & isa::reg::vcc) add_reg(Reg{RegFile::special, special::vcc_lo, 2});
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const auto& op = ops[k];
    const auto& v = in.ops[k];
    if (op.role != isa::Role::use || !op.is_printed()) continue;
    if (op.kind != isa::Kind::src && op.kind != isa::Kind::reg && op.kind != isa::Kind::kimm) continue;
    if (v.kind == Operand::Kind::reg) {
      if (v.reg.file == RegFile::sgpr || v.reg.file == RegFile::ttmp ||
          (v.reg.file == RegFile::special && v.reg.index < 128))
        add_reg(v.reg);
    } else if (v.kind == Operand::Kind::imm || v.kind == Operand::Kind::real || v.kind == Operand::Kind::expr) {
      const unsigned bits = value_bits(op.type);
      const std::int64_t v32 = bits == 32 && v.imm >= 0x80000000ll && v.imm <= 0xffffffffll
                                   ? static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(v.imm)))
                                   : v.imm;
      const bool inl = op.kind != isa::Kind::kimm &&
                       (v.kind == Operand::Kind::imm ? (is_inline_int(v32) || is_inline_bits(v.imm, bits))
                                                     : v.kind == Operand::Kind::real && is_inline_real(v.real, op.type));
      if (inl) continue;
      std::string key = v.kind == Operand::Kind::imm ? std::to_string(v.imm) : v.kind == Operand::Kind::real ? std::to_string(v.real) : v.text;
      if (std::find(lits.begin(), lits.end(), key) == lits.end()) { lits.push_back(key); ++n; }
    }
  }
  return n > 1;
}

/// Operand rules LLVM's assembler checks in C++ (AMDGPUAsmParser::validateInstruction and friends) rather than
/// in the TableGen records. Returns the problem, or empty. Each rule names the LLVM function it mirrors.
[[nodiscard]] inline std::string validate_rules(Target t, const isa::FormInfo& f, const Inst& in) {
  using K = isa::Kind;
  using F = isa::Format;
  const auto ops = isa::operands(f);
  const bool g940 = t != Target::gfx90a;
  auto find = [&](std::string_view name) -> const Operand* {
    for (std::size_t k = 0; k < ops.size(); ++k)
      if (ops[k].name == name && ops[k].is_printed() && in.ops[k].present()) return &in.ops[k];
    return nullptr;
  };
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const auto& op = ops[k];
    const Operand& v = in.ops[k];
    if (!v.present()) continue;
    // Offset ranges (validateOffset, validateFlatOffset, validateSMEMOffset).
    if (op.kind == K::named_int && v.kind == Operand::Kind::imm) {
      const std::int64_t x = v.imm;
      if (op.prefix == "offset") {
        if (f.format == F::DS && (x < 0 || x > 0xffff)) return "expected a 16-bit unsigned offset";
        if (f.format == F::FLAT && (x < 0 || x > 4095)) return "expected a 12-bit unsigned offset";
        if ((f.format == F::GLOBAL || f.format == F::SCRATCH) && (x < -4096 || x > 4095)) return "expected a 13-bit signed offset";
      }
      if ((op.prefix == "offset0" || op.prefix == "offset1") && (x < 0 || x > 255))
        return "invalid " + std::string(op.prefix) + " value: it holds 0..255";
    }
    if (op.kind == K::imm && f.format == F::SMEM && op.name == "offset" && v.kind == Operand::Kind::imm &&
        (v.imm < -(1 << 20) || v.imm >= (1 << 20)))
      return "expected a 21-bit signed offset";
    if ((op.kind == K::cpol || op.kind == K::cpol_noglc) && v.kind == Operand::Kind::imm && (v.imm & 1) &&
        f.has(isa::prop::atomic_noret) && f.format != F::SMEM)
      return std::string("instruction must not use ") + (g940 ? "sc0" : "glc");
    // GDS is gone on gfx90a and later except for the GWS instructions (validateGDS: "gds modifier is not
    // supported on this GPU").
    if (op.kind == K::flag && op.prefix == "gds" && v.imm && !f.has(isa::prop::gws))
      return "gds modifier is not supported on this GPU";
    // op_sel lists of VOP3P take one entry per source (parseOpSel: "invalid op_sel operand"); VOP3 takes up
    // to four, the last being the destination's.
    if (op.kind == K::bit_array && v.kind == Operand::Kind::list && f.format == F::VOP3P && !f.has(isa::prop::mfma)) {
      unsigned srcs = 0;
      for (const auto& o : ops)
        if (o.is_printed() && o.role == isa::Role::use && (o.kind == K::src || o.kind == K::reg)) ++srcs;
      if (srcs >= 2 && v.count > srcs)
        return "invalid " + std::string(op.prefix) + " operand: at most " + std::to_string(srcs) + " entries";
    }
  }
  // Returning atomics must ask for the pre-op value (validateCoherencyBits: "instruction must use glc").
  if (f.has(isa::prop::atomic_ret) && f.format != F::SMEM && f.format != F::MIMG) {
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].kind != K::cpol && ops[k].kind != K::cpol_glc) continue;
      const Operand& v = in.ops[k];
      if (!(v.present() && v.kind == Operand::Kind::imm && (v.imm & 1)))
        return std::string("instruction must use ") + (g940 ? "sc0" : "glc");
    }
  }
  // 64-bit (DP ALU) DPP only supports row_newbcast (validateDPP).
  if (f.variant == isa::Variant::dpp) {
    bool wide = false;
    for (std::size_t k = 0; k < ops.size(); ++k)
      if (ops[k].is_printed() && (ops[k].kind == K::reg || ops[k].kind == K::src) && ops[k].bits == 64) wide = true;
    for (std::size_t k = 0; k < ops.size(); ++k)
      if (wide && ops[k].kind == K::dpp_ctrl && in.ops[k].present() && !(in.ops[k].imm >= 0x150 && in.ops[k].imm <= 0x15f))
        return "DP ALU dpp only supports row_newbcast";
  }
  if (f.has(isa::prop::mfma)) {
    // gfx940+ double-precision MFMAs take neg:[..] instead of blgp, the others only blgp (validateBLGP).
    const bool f64 = f.mnemonic.find("f64") != std::string_view::npos;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].kind != K::blgp || !in.ops[k].present()) continue;
      const bool neg = in.ops[k].kind == Operand::Kind::list;
      if (neg && !(g940 && f64)) return "invalid modifier: neg is not supported";
      if (!neg && g940 && f64) return "invalid modifier: blgp is not supported";
    }
    // With a destination wider than 128 bits, src2 must equal it or not overlap it at all (validateMFMA).
    const Operand* d = find("vdst");
    const Operand* c = find("src2");
    // llvm-mc-22 does not apply the rule to gfx950's f8f6f4 MFMAs (checked: `v_mfma_f32_32x32x64_f8f6f4 a[0:15],
    // v[0:7], v[0:7], a[2:17]` assembles).
    const bool f8f6f4 = (isa::form_traits(t, in.form) & isa::ftrait::mfma_f8f6f4) != 0;
    if (d && c && !f8f6f4 && d->is_reg() && c->is_reg() && d->reg.dwords > 4 && d->reg.file == c->reg.file && !(d->reg == c->reg)) {
      const bool overlap = d->reg.index <= c->reg.last() && c->reg.index <= d->reg.last();
      if (overlap) return "source 2 operand must not partially overlap with dst";
    }
    // gfx950 f8f6f4 MFMAs: cbsz/blgp select the A/B formats, which fix the operand tuple sizes: fp8/bf8 = 8
    // dwords (0, 1), fp6/bf6 = 6 (2, 3), fp4 = 4 (4) (validateMFMA: "wrong register tuple size for cbsz value").
    if (f8f6f4) {
      // Reserved format codes 5..7 take the fp8 size in llvm-mc-22.
      auto dwords_for = [](std::int64_t fmt) { return fmt <= 1 || fmt >= 5 ? 8u : fmt <= 3 ? 6u : 4u; };
      const Operand* a = find("src0");
      const Operand* b = find("src1");
      const Operand* cbsz = find("cbsz");
      const Operand* blgp = find("blgp");
      const std::int64_t fa = cbsz && cbsz->kind == Operand::Kind::imm ? cbsz->imm : 0;
      const std::int64_t fb = blgp && blgp->kind == Operand::Kind::imm ? blgp->imm : 0;
      if (a && a->is_reg() && a->reg.dwords != dwords_for(fa))
        return "wrong register tuple size for cbsz value " + std::to_string(fa);
      if (b && b->is_reg() && b->reg.dwords != dwords_for(fb))
        return "wrong register tuple size for blgp value " + std::to_string(fb);
    }
  }
  return {};
}

/// Tries to match the line against one form.
[[nodiscard]] inline Attempt try_form(const MatchCtx& c, std::size_t form_index) {
  Attempt at;
  const Target t = c.target;
  const isa::FormInfo& f = isa::forms(t)[form_index];
  const Template& tp = templates(t)[form_index];
  const auto ops = isa::operands(f);
  const syntax::Line& l = *c.line;
  at.inst.target = t;
  at.inst.form = static_cast<std::uint16_t>(form_index);
  at.inst.ops.assign(ops.size(), Operand{});

  // Positional operands (optionally preceded by VOPC's implicit vcc or followed by cndmask's vcc).
  std::size_t ai = 0;
  auto atoms = c.atoms;
  auto is_vcc = [](const syntax::Atom* a) {
    return a->kind == syntax::Atom::Kind::reg && a->reg == Reg{RegFile::special, special::vcc_lo, 2} && !a->mods;
  };
  std::size_t expected = tp.positional;
  if (tp.default_vcc_first && atoms.size() == expected + 1 && is_vcc(atoms[0])) ai = 1;
  if (tp.default_vcc_last && atoms.size() == ai + expected + 1 && is_vcc(atoms.back())) atoms.pop_back();
  for (const auto& e : tp.elems) {
    if (e.kind == TemplateElem::Kind::word) {
      if (ai >= atoms.size()) { at.why = "missing operand '" + std::string(e.word) + "'"; return at; }
      const auto* a = atoms[ai];
      const bool match = (a->kind == syntax::Atom::Kind::word && lower(a->text) == e.word) ||
                         (e.word == "vcc" && is_vcc(a));
      if (!match) { at.why = "expected '" + std::string(e.word) + "'"; at.col = a->col; return at; }
      ++ai;
      ++at.score;
      continue;
    }
    if (e.kind != TemplateElem::Kind::operand) continue;
    const auto& op = ops[e.op];
    if (op.kind == isa::Kind::waitcnt) {
      auto v = parse_waitcnt_operand(t, l.operand_text, l);
      if (!v) { at.why = v.error().message; at.col = l.operand_col; return at; }
      at.inst.ops[e.op] = Operand::make_imm(*v);
      ai = atoms.size();
      // Counters after the first are read as named modifiers by the line reader; they are consumed here.
      continue;
    }
    if (ai >= atoms.size()) {
      if (op.is_optional()) continue;
      at.why = "missing operand '" + std::string(op.name) + "'";
      at.col = l.operand_col + static_cast<std::uint32_t>(l.operand_text.size());
      return at;
    }
    Operand v;
    if (auto why = fill_value(t, f, op, *atoms[ai], v); !why.empty()) {
      at.why = why + " for operand '" + std::string(op.name) + "' (" + std::string(op.cls) + ")";
      at.col = atoms[ai]->col;
      return at;
    }
    at.inst.ops[e.op] = std::move(v);
    ++ai;
    at.score += 2;
  }
  if (ai < atoms.size()) {
    at.why = "too many operands";
    at.col = atoms[ai]->col;
    return at;
  }
  // Named modifiers and required keywords.
  std::vector<bool> used(l.named.size(), false);
  const bool waitcnt = !ops.empty() && ops[0].kind == isa::Kind::waitcnt;
  if (waitcnt) std::fill(used.begin(), used.end(), true);
  for (const auto& e : tp.elems) {
    if (e.kind == TemplateElem::Kind::keyword) {
      bool found = false;
      for (std::size_t i = 0; i < l.named.size(); ++i)
        if (!used[i] && l.named[i].name == e.word && l.named[i].kind == syntax::Named::Kind::flag) { used[i] = true; found = true; break; }
      if (!found) { at.why = "missing '" + std::string(e.word) + "'"; return at; }
      ++at.score;
      continue;
    }
    if (e.kind != TemplateElem::Kind::named) continue;
    Operand v;
    if (auto why = fill_named(t, f, ops[e.op], l, used, v); !why.empty()) { at.why = why; at.col = l.operand_col; at.score += 1; return at; }
    // A named integer the record does not mark optional must be written (SMEM `_SGPR_IMM` needs `offset:`,
    // which is how LLVM tells it from the `_SGPR` form).
    if (!v.present() && ops[e.op].kind == isa::Kind::named_int && !ops[e.op].is_optional()) {
      at.why = "missing '" + std::string(ops[e.op].prefix) + ":'";
      return at;
    }
    at.inst.ops[e.op] = std::move(v);
  }
  for (std::size_t i = 0; i < l.named.size(); ++i)
    if (!used[i]) {
      at.why = "'" + l.named[i].spelling + "' is not accepted by this instruction";
      at.col = l.named[i].col;
      return at;
    }
  // Unprinted operands tied to a printed one carry its value (vdst_in = vdst).
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (!ops[k].is_printed() && ops[k].tied >= 0 && static_cast<std::size_t>(ops[k].tied) < ops.size())
      at.inst.ops[k] = at.inst.ops[static_cast<std::size_t>(ops[k].tied)];
  if (!c.usage_rules) {
    at.ok = true;
    return at;
  }
  if (auto why = validate_rules(t, f, at.inst); !why.empty()) {
    at.why = why;
    at.score += 1;
    return at;
  }
  if (violates_constant_bus(f, at.inst)) {
    at.why = "invalid operand (violates constant bus restrictions: gfx9 VALU reads at most one SGPR or literal)";
    at.score += 1;
    return at;
  }
  at.ok = true;
  return at;
}

[[nodiscard]] inline std::string_view strip_variant_suffix(std::string_view m, isa::Variant& forced) {
  struct S { std::string_view s; isa::Variant v; };
  for (auto [s, v] : {S{"_e32", isa::Variant::e32}, S{"_e64", isa::Variant::e64}, S{"_sdwa", isa::Variant::sdwa},
                      S{"_dpp", isa::Variant::dpp}}) {
    if (m.size() > s.size() && m.substr(m.size() - s.size()) == s) {
      forced = v;
      return m.substr(0, m.size() - s.size());
    }
  }
  forced = isa::Variant::none;
  return m;
}

/// Candidate form indexes for a mnemonic as written, in matcher preference order.
[[nodiscard]] inline std::vector<std::size_t> candidates(Target t, std::string_view written, isa::Variant& forced) {
  std::vector<std::size_t> out;
  const auto all = isa::forms(t);
  auto add_all = [&](std::string_view m, bool filter) {
    const auto fs = isa::find_mnemonic(t, m);
    for (const auto& f : fs) {
      if (!f.has(isa::prop::asm_matchable)) continue;
      if (filter && forced != isa::Variant::none && f.variant != forced) continue;
      out.push_back(static_cast<std::size_t>(&f - all.data()));
    }
  };
  // Exact mnemonic first (VOPC e32 mnemonics keep `_e32` in the AsmString but the table key has none).
  isa::Variant none = isa::Variant::none;
  (void)none;
  std::string_view base = strip_variant_suffix(written, forced);
  add_all(base, true);
  if (out.empty()) {
    std::string_view to;
    for (const auto& a : isa::mnemonic_aliases(t))
      if (a.from == written || a.from == base) { to = a.to; break; }
    if (to.empty())
      for (const auto& a : isa::rename_aliases(t))
        if (a.from == written || a.from == base) { to = a.to; break; }
    if (!to.empty()) {
      isa::Variant f2;
      std::string_view b2 = strip_variant_suffix(to, f2);
      if (forced == isa::Variant::none) forced = f2;
      add_all(b2, true);
    }
  }
  return out;
}

}  // namespace detail

namespace detail {

/// Tries the candidate forms in order; the first that accepts the line wins, else the closest failure is reported.
[[nodiscard]] ASMEVO_OUTLINE Expected<Inst> match_candidates(const syntax::Line& l, Target t, const std::vector<std::size_t>& cands,
                                                    bool usage_rules = true)
#if ASMEVO_BODY_IR
{
  detail::MatchCtx c{t, &l, {}, usage_rules};
  for (const auto& g : l.groups)
    for (const auto& a : g) c.atoms.push_back(&a);
  detail::Attempt best;
  best.score = -1;
  syntax::Line alt;  // the line with surplus trailing bare words read as flags (`buffer_inv sc0 sc1`)
  for (std::size_t k : cands) {
    const auto& tp = detail::templates(t)[k];
    detail::MatchCtx ck = c;
    if (c.atoms.size() > tp.positional + (tp.default_vcc_first || tp.default_vcc_last ? 1u : 0u)) {
      std::size_t n = c.atoms.size();
      while (n > tp.positional && c.atoms[n - 1]->kind == syntax::Atom::Kind::word && !c.atoms[n - 1]->mods) --n;
      if (n == tp.positional && n < c.atoms.size()) {
        alt = l;
        for (std::size_t i = n; i < c.atoms.size(); ++i) {
          syntax::Named nm;
          nm.name = detail::lower(c.atoms[i]->text);
          nm.spelling = c.atoms[i]->text;
          nm.col = c.atoms[i]->col;
          alt.named.insert(alt.named.begin() + static_cast<std::ptrdiff_t>(i - n), std::move(nm));
        }
        ck.line = &alt;
        ck.atoms.resize(n);
      }
    }
    auto at = detail::try_form(ck, k);
    if (at.ok) {
      at.inst.comment = l.comment;
      if (l.id) at.inst.id = InstId{*l.id};
      return std::move(at.inst);
    }
    if (at.score > best.score) best = std::move(at);
  }
  Loc eloc{{}, l.number, best.col ? best.col : l.operand_col, l.id};
  return fail(DiagCode::invalid_operand, best.why + " in '" + l.mnemonic + "'", eloc, l.source);
}
#else
;
#endif

}  // namespace detail

/// Matches one parsed line that holds an instruction to the best form of the target.
[[nodiscard]] inline Expected<Inst> match_line(const syntax::Line& l, Target t) {
  isa::Variant forced;
  auto cands = detail::candidates(t, l.mnemonic, forced);
  Loc loc{{}, l.number, l.mnemonic_col, l.id};
  if (cands.empty()) {
    // Is it known elsewhere? Then say "not on this target" instead of "unknown".
    for (Target o : all_targets) {
      if (o == t) continue;
      isa::Variant f2;
      if (!detail::candidates(o, l.mnemonic, f2).empty())
        return fail(DiagCode::unsupported, "'" + l.mnemonic + "' is not supported on " + std::string(to_string(t)), loc,
                    l.source, "it exists on " + std::string(to_string(o)));
    }
    return fail(DiagCode::unknown_mnemonic, "unknown instruction '" + l.mnemonic + "'", loc, l.source);
  }
  return detail::match_candidates(l, t, cands);
}

/// Matches a line against one given form only (a decoder knows the LLVM record; the text alone may be ambiguous,
/// e.g. LLVM disassembles V_NOP_e64 as `v_nop`). With `usage_rules` false, operand shapes are checked but not
/// the assembler's usage rules (src2 overlap, constant bus ...): decoded bytes are described as they are.
[[nodiscard]] ASMEVO_OUTLINE Expected<Inst> match_line_as(const syntax::Line& l, Target t, std::size_t form_index,
                                                  bool usage_rules = true)
#if ASMEVO_BODY_IR
{
  if (form_index >= isa::forms(t).size())
    return fail(DiagCode::internal, "form index out of range", Loc{{}, l.number, l.mnemonic_col, l.id}, l.source);
  return detail::match_candidates(l, t, {form_index}, usage_rules);
}
#else
;
#endif

/// Parses a single instruction line (no labels or directives expected).
[[nodiscard]] inline Expected<Inst> parse_inst(std::string_view line, Target t) {
  auto l = detail::parse_line(line, 1);
  if (!l) return unexpected(std::move(l).error());
  if (l->mnemonic.empty())
    return fail(DiagCode::parse_error, "expected an instruction", Loc{{}, 1, 1, {}}, std::string(line));
  return match_line(*l, t);
}

/// A parsed program plus every problem found (the program holds what did parse).
struct ParseResult {
  Program program;
  Diags diags;
};

/// Parses a whole assembly file. Gathers every error (one per bad line) rather than stopping at the first.
[[nodiscard]] ASMEVO_OUTLINE ParseResult parse_program_all(std::string_view text, Target t, std::string file = "<input>")
#if ASMEVO_BODY_IR
{
  ParseResult r;
  Program& p = r.program;
  p.target = t;
  p.file = file;
  std::vector<std::string_view> lines;
  for (std::size_t b = 0; b <= text.size();) {
    std::size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    std::string_view ln = text.substr(b, e - b);
    if (!ln.empty() && ln.back() == '\r') ln.remove_suffix(1);
    if (!(e == text.size() && ln.empty())) lines.push_back(ln);
    b = e + 1;
  }
  std::set<std::uint32_t> used_ids;
  std::vector<std::size_t> needs_id;
  // Whether `l` is directive `name`: the whole word, as the line reader splits it (`.amdhsa_kernel~k` is
  // `.amdhsa_kernel` too, and `.amdgpu_metadataX` is another directive), so that a block is recognised the same
  // way in a text and in its printed form.
  auto is_directive = [](std::string_view l, std::string_view name) {
    return l.rfind(name, 0) == 0 && (l.size() == name.size() || !detail::is_ident_char(l[name.size()]));
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto no = static_cast<std::uint32_t>(i + 1);
    std::string_view raw = lines[i];
    std::string_view tr = detail::trim(raw);
    Item it;
    it.line = no;
    if (tr.empty()) { it.kind = Item::Kind::blank; p.items.push_back(std::move(it)); continue; }
    // Whole-line comments.
    if (tr.front() == ';' || tr.rfind("//", 0) == 0 || tr.front() == '#') {
      it.kind = Item::Kind::comment;
      it.text = std::string(tr);
      p.items.push_back(std::move(it));
      continue;
    }
    // Blocks kept whole: metadata (YAML) and kernel descriptors.
    if (is_directive(tr, ".amdgpu_metadata")) {
      it.kind = Item::Kind::metadata;
      std::size_t j = i + 1;
      for (; j < lines.size() && !is_directive(detail::trim(lines[j]), ".end_amdgpu_metadata"); ++j) {
        it.text += lines[j];
        it.text += '\n';
      }
      if (j == lines.size()) {
        r.diags.push_back(make_diag(DiagCode::parse_error, "'.amdgpu_metadata' is not closed by '.end_amdgpu_metadata'",
                                    Loc{file, no, 1, {}}, std::string(raw)));
        break;
      }
      i = j;
      p.items.push_back(std::move(it));
      continue;
    }
    if (is_directive(tr, ".amdhsa_kernel")) {
      it.kind = Item::Kind::kernel;
      it.kernel.name = std::string(detail::trim(tr.substr(14)));
      std::size_t j = i + 1;
      for (; j < lines.size(); ++j) {
        std::string_view f = lines[j];
        if (auto c = detail::comment_start(f); c != std::string_view::npos) f = f.substr(0, c);
        f = detail::trim(f);
        if (is_directive(f, ".end_amdhsa_kernel")) break;
        if (f.empty()) continue;
        std::size_t sp = 0;
        while (sp < f.size() && !std::isspace(static_cast<unsigned char>(f[sp]))) ++sp;
        it.kernel.fields.emplace_back(std::string(f.substr(0, sp)), std::string(detail::trim(f.substr(sp))));
      }
      if (j == lines.size()) {
        r.diags.push_back(make_diag(DiagCode::parse_error, "'.amdhsa_kernel' is not closed by '.end_amdhsa_kernel'",
                                    Loc{file, no, 1, {}}, std::string(raw)));
        break;
      }
      i = j;
      p.items.push_back(std::move(it));
      continue;
    }
    auto l = detail::parse_line(raw, no);
    if (!l) {
      auto d = std::move(l).error();
      d.loc.file = file;
      r.diags.push_back(std::move(d));
      continue;
    }
    for (auto& lab : l->labels) {
      Item li;
      li.kind = Item::Kind::label;
      li.name = lab;
      li.line = no;
      if (l->mnemonic.empty() && l->directive.empty()) li.comment = l->comment;
      p.items.push_back(std::move(li));
    }
    if (!l->directive.empty()) {
      it.kind = Item::Kind::directive;
      it.name = l->directive;
      it.text = l->directive_args;
      it.comment = l->comment;
      p.items.push_back(std::move(it));
      continue;
    }
    if (l->mnemonic.empty()) continue;
    auto in = match_line(*l, t);
    if (!in) {
      auto d = std::move(in).error();
      d.loc.file = file;
      r.diags.push_back(std::move(d));
      continue;
    }
    it.kind = Item::Kind::inst;
    it.inst = std::move(*in);
    if (l->id && used_ids.insert(*l->id).second) {
      it.inst.id = InstId{*l->id};
    } else {
      needs_id.push_back(p.items.size());
    }
    p.items.push_back(std::move(it));
  }
  std::uint32_t next = used_ids.empty() ? 0 : *used_ids.rbegin() + 1;
  for (std::size_t k : needs_id) p.items[k].inst.id = InstId{next++};
  p.next_id = next;
  return r;
}
#else
;
#endif

/// Parses a whole assembly file; the error is the first problem (use parse_program_all to see them all).
[[nodiscard]] ASMEVO_OUTLINE Expected<Program> parse_program(std::string_view text, Target t, std::string file = "<input>")
#if ASMEVO_BODY_IR
{
  auto r = parse_program_all(text, t, std::move(file));
  if (!r.diags.empty()) return unexpected(std::move(r.diags.front()));
  return std::move(r.program);
}
#else
;
#endif

}  // namespace asmevo
