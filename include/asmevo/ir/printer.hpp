// IR to assembly text in LLVM's AMDGPU syntax: instructions with their stable ids, and whole programs.
#pragma once

#include <charconv>
#include <cstdio>
#include <string>

#include "asmevo/ir/detail/asm_template.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/waitcnt.hpp"

namespace asmevo {

namespace detail {

inline std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// Integers as LLVM prints them: inline constants and negatives in decimal, other values in hex.
inline std::string int_text(std::int64_t v) {
  if ((v >= -16 && v <= 64) || v < 0) return std::to_string(v);
  return hex(static_cast<std::uint64_t>(v));
}

/// The shortest decimal that reads back as the same double, always with a '.' or exponent so that it
/// lexes as a floating-point literal.
inline std::string real_text(double d) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, p);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

/// Source modifiers around an operand. On a constant, a lone neg is written `neg(c)`: `-c` would be read back
/// as a negative constant (another inline code), not as the neg modifier. `-|c|` is read as neg+abs.
inline std::string with_mods(std::string s, std::uint8_t mods, bool constant = false) {
  if (mods & src_sext) s = "sext(" + s + ")";
  if (mods & src_abs) s = "|" + s + "|";
  if (mods & src_neg) s = constant && !(mods & src_abs) ? "neg(" + s + ")" : "-" + s;
  return s;
}

inline std::string value_text(const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::reg: return with_mods(to_string(o.reg), o.mods);
    case Operand::Kind::imm: return with_mods(int_text(o.imm), o.mods, true);
    case Operand::Kind::real: return with_mods(real_text(o.real), o.mods, true);
    case Operand::Kind::expr:
    case Operand::Kind::text: return o.text;
    default: return {};
  }
}

inline std::string dpp_ctrl_text(std::int64_t v) {
  if (v >= 0 && v <= 0xff) {
    return "quad_perm:[" + std::to_string(v & 3) + "," + std::to_string((v >> 2) & 3) + "," + std::to_string((v >> 4) & 3) +
           "," + std::to_string((v >> 6) & 3) + "]";
  }
  if (v >= 0x101 && v <= 0x10f) return "row_shl:" + std::to_string(v - 0x100);
  if (v >= 0x111 && v <= 0x11f) return "row_shr:" + std::to_string(v - 0x110);
  if (v >= 0x121 && v <= 0x12f) return "row_ror:" + std::to_string(v - 0x120);
  switch (v) {
    case 0x130: return "wave_shl:1";
    case 0x134: return "wave_rol:1";
    case 0x138: return "wave_shr:1";
    case 0x13c: return "wave_ror:1";
    case 0x140: return "row_mirror";
    case 0x141: return "row_half_mirror";
    case 0x142: return "row_bcast:15";
    case 0x143: return "row_bcast:31";
    default: break;
  }
  if (v >= 0x150 && v <= 0x15f) return "row_newbcast:" + std::to_string(v - 0x150);
  return "dpp_ctrl(" + std::to_string(v) + ")";
}

/// Text of a named operand including its leading space; empty when absent.
inline std::string named_text(Target t, const isa::FormInfo& f, const isa::OperandInfo& op, const Operand& o) {
  using K = isa::Kind;
  if (!o.present()) return {};
  switch (op.kind) {
    case K::flag: return o.imm ? " " + std::string(op.prefix) : std::string();
    case K::r128_a16: return o.imm ? std::string(" a16") : std::string();
    case K::named_int: {
      const bool hexy = op.prefix == "row_mask" || op.prefix == "bank_mask";
      if (o.kind == Operand::Kind::expr) return " " + std::string(op.prefix) + ":" + o.text;
      return " " + std::string(op.prefix) + ":" + (hexy ? hex(static_cast<std::uint64_t>(o.imm)) : std::to_string(o.imm));
    }
    case K::swizzle:
      return " offset:" + (o.kind == Operand::Kind::text ? o.text : std::to_string(o.imm));
    case K::cpol:
    case K::cpol_glc:
    case K::cpol_noglc: {
      std::string s;
      const bool g940 = t != Target::gfx90a && f.format != isa::Format::SMEM;
      if (o.imm & 1) s += g940 ? " sc0" : " glc";
      if (o.imm & 2) s += g940 ? " nt" : " slc";
      if (o.imm & 16) s += g940 ? " sc1" : " scc";
      return s;
    }
    case K::omod:
      switch (o.imm) {
        case 1: return " mul:2";
        case 2: return " mul:4";
        case 3: return " div:2";
        default: return {};
      }
    case K::bit_array:
    case K::blgp: {
      if (op.kind == K::blgp && o.kind == Operand::Kind::imm) return " blgp:" + std::to_string(o.imm);
      std::string s = " " + std::string(op.kind == K::blgp ? std::string_view("neg") : op.prefix) + ":[";
      for (unsigned i = 0; i < o.count; ++i) s += (i ? "," : "") + std::to_string((o.imm >> i) & 1);
      return s + "]";
    }
    case K::dpp_ctrl: return " " + dpp_ctrl_text(o.imm);
    case K::sdwa_sel: {
      constexpr const char* names[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
      return " " + std::string(op.prefix) + ":" + (o.imm >= 0 && o.imm < 7 ? names[o.imm] : std::to_string(o.imm));
    }
    case K::sdwa_dst_unused: {
      constexpr const char* names[] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};
      return std::string(" dst_unused:") + (o.imm >= 0 && o.imm < 3 ? names[o.imm] : std::to_string(o.imm));
    }
    case K::format: return " " + o.text;
    default: return {};
  }
}

/// Text of a positional operand value.
inline std::string positional_text(Target t, const isa::OperandInfo& op, const Operand& o) {
  if (op.kind == isa::Kind::waitcnt && o.kind == Operand::Kind::imm) {
    const auto imm = static_cast<std::uint16_t>(o.imm);
    const Waitcnt w = decode_waitcnt(t, imm);
    // Symbolic only when it re-encodes to the same bits (LLVM's printer drops unused bits).
    if (encode_waitcnt(t, w) == imm) return to_string(t, w);
    return hex(imm);
  }
  // A negative value prints in decimal even where it was written in hex (`-0x4`, `~0x3`): as 32-bit hex it would
  // read back as another value, which a 16-bit SOPK/SOPP slot refuses (`s_movk_i32 s0, 0xfffffffc`).
  if ((op.kind == isa::Kind::hwreg || op.kind == isa::Kind::sendmsg || op.kind == isa::Kind::gpr_idx ||
       op.kind == isa::Kind::imm || op.kind == isa::Kind::endpgm_imm) && o.kind == Operand::Kind::imm)
    return o.imm >= 0 && (o.hex || o.imm > 64) ? hex(static_cast<std::uint64_t>(o.imm)) : std::to_string(o.imm);
  return value_text(o);
}

}  // namespace detail

/// The printed mnemonic of an instruction's form (with LLVM's `_e32/_e64/_sdwa/_dpp` suffix).
[[nodiscard]] inline std::string mnemonic_text(const Inst& in) {
  const auto& f = isa::forms(in.target)[in.form];
  const auto& tp = detail::templates(in.target)[in.form];
  std::string s(tp.mnemonic_text);
  // LLVM prints the encoding suffix through the vdst printer (printVOPDst); forms without a vdst (v_nop_e64,
  // v_clrexcp_sdwa) need it spelled out too, or the assembler would pick the e32 form.
  isa::Variant suffix = f.suffix;
  if (suffix == isa::Variant::none && f.has(isa::prop::has_e32) &&
      (f.variant == isa::Variant::e64 || f.variant == isa::Variant::sdwa || f.variant == isa::Variant::dpp))
    suffix = f.variant;
  switch (suffix) {
    case isa::Variant::e32: s += "_e32"; break;
    case isa::Variant::e64: s += "_e64"; break;
    case isa::Variant::sdwa: s += "_sdwa"; break;
    case isa::Variant::dpp: s += "_dpp"; break;
    case isa::Variant::none: break;
  }
  return s;
}

/// The LLVM record name of an instruction's form (`V_ADD_F32_e32_vi`).
[[nodiscard]] inline std::string_view form_name(const Inst& in) { return isa::forms(in.target)[in.form].name; }

/// Prints one instruction (without its id comment), in a syntax LLVM's assembler reads back to the same bytes.
[[nodiscard]] inline std::string print_inst(const Inst& in) {
  const auto& f = isa::forms(in.target)[in.form];
  const auto& tp = detail::templates(in.target)[in.form];
  const auto ops = isa::operands(f);
  std::string s = mnemonic_text(in);
  std::string args;
  std::string deferred;  // named operands printed after everything else
  bool first_pos = true;
  auto sep = [&](bool comma) {
    if (first_pos) { first_pos = false; return; }
    args += comma ? ", " : " ";
  };
  if (tp.default_vcc_first) { args += "vcc"; first_pos = false; }
  for (const auto& e : tp.elems) {
    switch (e.kind) {
      case detail::TemplateElem::Kind::word:
        sep(true);
        args += e.word;
        break;
      case detail::TemplateElem::Kind::keyword:
        args += " ";
        args += e.word;
        break;
      case detail::TemplateElem::Kind::operand: {
        const auto& op = ops[e.op];
        const Operand& o = in.ops[e.op];
        if (!o.present()) break;  // optional positional operand left out
        if (op.kind == isa::Kind::endpgm_imm) { args += " " + detail::positional_text(in.target, op, o); break; }
        sep(true);
        args += detail::positional_text(in.target, op, o);
        break;
      }
      case detail::TemplateElem::Kind::named:
        // MTBUF's format sits between srsrc and soffset in the AsmString; LLVM prints it after the operands,
        // where its assembler also reads symbolic formats reliably.
        if (ops[e.op].kind == isa::Kind::format) deferred += detail::named_text(in.target, f, ops[e.op], in.ops[e.op]);
        else args += detail::named_text(in.target, f, ops[e.op], in.ops[e.op]);
        break;
    }
  }
  if (tp.default_vcc_last) args += ", vcc";
  args += deferred;
  if (!args.empty() && args.front() != ' ') s += ' ';
  s += args;
  return s;
}

/// Printing options for whole programs.
struct PrintOptions {
  bool ids = true;       ///< append `; iN` to every instruction
  bool comments = true;  ///< keep comments
};

/// Prints a program: directives and labels as read, `.amdhsa_kernel` blocks field by field, metadata verbatim.
[[nodiscard]] inline std::string print_program(const Program& p, PrintOptions opt = {}) {
  std::string out;
  for (const auto& it : p.items) {
    switch (it.kind) {
      case Item::Kind::blank: out += '\n'; break;
      case Item::Kind::comment:
        if (opt.comments) out += it.text + '\n';
        break;
      case Item::Kind::label:
        out += it.name + ":";
        if (opt.comments && !it.comment.empty()) out += " ; " + it.comment;
        out += '\n';
        break;
      case Item::Kind::directive:
        out += '\t' + it.name;
        if (!it.text.empty()) out += ' ' + it.text;
        if (opt.comments && !it.comment.empty()) out += " ; " + it.comment;
        out += '\n';
        break;
      case Item::Kind::kernel:
        out += "\t.amdhsa_kernel " + it.kernel.name + '\n';
        for (const auto& [k, v] : it.kernel.fields) out += "\t\t" + k + ' ' + v + '\n';
        out += "\t.end_amdhsa_kernel\n";
        break;
      case Item::Kind::metadata:
        out += "\t.amdgpu_metadata\n" + it.text + "\t.end_amdgpu_metadata\n";
        break;
      case Item::Kind::inst: {
        out += '\t' + print_inst(it.inst);
        if (opt.ids) out += " ; i" + std::to_string(it.inst.id.value);
        if (opt.comments && !it.inst.comment.empty()) out += (opt.ids ? " " : " ; ") + it.inst.comment;
        out += '\n';
        break;
      }
    }
  }
  return out;
}

}  // namespace asmevo
