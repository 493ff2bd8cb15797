// Encode IR instructions and programs to bytes, and decode bytes to IR, through LLVM MC 22 in-process.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "asmevo/ir/constants.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/llvm_mc.hpp"

namespace asmevo::mc {

/// An instruction decoded from bytes.
struct DecodedInst {
  std::uint64_t offset = 0;  ///< byte offset in the input
  std::uint32_t size = 0;    ///< bytes it occupies
  Inst inst;
  /// True when printing `inst` and assembling it gives back exactly the input bytes. False only where LLVM's
  /// disassembly loses bits that asmevo cannot restore (e.g. reserved bits of gfx950's scaled MFMA prefix);
  /// `note` then says so.
  bool exact = true;
  std::string note;
};

/// The IR's bridge to LLVM MC for one target. The IR is printed in LLVM's syntax and assembled by LLVM's
/// own AMDGPU assembler, so the bytes are by construction the ones LLVM encodes; decoding runs LLVM's
/// disassembler and reads its text back with asmevo's parser, so every decoded instruction is a typed Inst.
class Encoder {
 public:
  [[nodiscard]] static Expected<std::unique_ptr<Encoder>> create(Target t, std::string_view features = {}) {
    auto c = Context::create(to_string(t), features);
    if (!c) return unexpected(std::move(c).error());
    return std::unique_ptr<Encoder>(new Encoder(t, std::move(*c)));
  }

  [[nodiscard]] Target target() const noexcept { return t_; }
  [[nodiscard]] Context& context() noexcept { return *ctx_; }

  /// Bytes of one instruction. A branch to a label is encoded with the label unresolved (offset 0).
  [[nodiscard]] Expected<std::vector<std::uint8_t>> encode(const Inst& in) {
    auto r = ctx_->encode_line(print_inst(in));
    if (!r) {
      auto d = std::move(r).error();
      d.loc.inst_id = in.id.value;
      return unexpected(std::move(d));
    }
    return r;
  }

  /// One instruction's encoding inside a program.
  struct Placed {
    std::vector<std::uint8_t> bytes;
    std::uint64_t offset = 0;  ///< byte offset in its section, after alignment and data directives
  };

  /// Bytes of every instruction of a program, in program order. The whole program is printed and assembled,
  /// directives included, so symbols (`.set`), alignment and data between instructions take part exactly as
  /// they do for llvm-mc. An error names the instruction's id and its line in the program's source.
  [[nodiscard]] Expected<std::vector<Placed>> encode_placed(const Program& p) {
    PrintOptions po;
    po.ids = false;
    po.comments = false;
    std::string text;
    std::vector<std::uint32_t> line_of;  // printed line of each instruction
    std::vector<const Item*> items;
    std::uint32_t line = 0;
    for (const auto& it : p.items) {
      Program one;
      one.target = p.target;
      one.items.push_back(it);
      const std::string chunk = print_program(one, po);
      const auto n = static_cast<std::uint32_t>(std::count(chunk.begin(), chunk.end(), '\n'));
      if (it.kind == Item::Kind::inst) {
        line_of.push_back(line + 1);
        items.push_back(&it);
      }
      text += chunk;
      line += n;
    }
    auto r = ctx_->assemble_all(text, p.file);
    auto locate = [&](Diag d) {
      for (std::size_t k = 0; k < line_of.size(); ++k)
        if (line_of[k] == d.loc.line) {
          d.loc.inst_id = items[k]->inst.id.value;
          d.loc.line = items[k]->line;
          d.loc.col = 0;
          d.text = print_inst(items[k]->inst);
          return d;
        }
      d.message += " (in the printed program, line " + std::to_string(d.loc.line) + ")";
      d.loc.line = 0;
      d.loc.col = 0;
      return d;
    };
    if (!r.errors.empty()) return unexpected(locate(r.errors.front()));
    std::vector<Placed> out(line_of.size());
    std::vector<bool> seen(line_of.size(), false);
    for (auto& e : r.instructions) {
      const auto k = std::lower_bound(line_of.begin(), line_of.end(), e.line) - line_of.begin();
      if (static_cast<std::size_t>(k) >= line_of.size() || line_of[static_cast<std::size_t>(k)] != e.line || seen[static_cast<std::size_t>(k)])
        return fail(DiagCode::internal, "LLVM produced an instruction on printed line " + std::to_string(e.line) +
                                            " that is not one of the program's instructions");
      seen[static_cast<std::size_t>(k)] = true;
      out[static_cast<std::size_t>(k)] = Placed{std::move(e.bytes), e.offset};
    }
    for (std::size_t k = 0; k < seen.size(); ++k)
      if (!seen[k]) return fail(DiagCode::internal, "LLVM produced no bytes for an instruction", Loc{p.file, items[k]->line, 0, items[k]->inst.id.value});
    return out;
  }

  /// Bytes of every instruction of a program, in program order (see encode_placed).
  [[nodiscard]] Expected<std::vector<std::vector<std::uint8_t>>> encode(const Program& p) {
    auto r = encode_placed(p);
    if (!r) return unexpected(std::move(r).error());
    std::vector<std::vector<std::uint8_t>> out;
    out.reserve(r->size());
    for (auto& x : *r) out.push_back(std::move(x.bytes));
    return out;
  }

  /// Decodes a run of instructions. Stops with a Diag at the first word the disassembler rejects.
  ///
  /// LLVM's disassembler names the record it decoded; the text it prints is read with that record only, so
  /// ambiguous text (`v_nop` for V_NOP_e64) keeps its encoding. Every result is re-encoded and compared with
  /// the input; fields whose value LLVM's text does not carry (spare s_waitcnt bits, a 16-bit literal's upper
  /// half, ds_swizzle offsets printed as swizzle macros) are restored from the bytes.
  [[nodiscard]] Expected<std::vector<DecodedInst>> decode(std::span<const std::uint8_t> bytes, std::uint64_t address = 0) {
    auto d = ctx_->disassemble(bytes, address);
    if (!d) return unexpected(std::move(d).error());
    std::vector<DecodedInst> out;
    out.reserve(d->size());
    const auto all = isa::forms(t_);
    for (const auto& x : *d) {
      auto line = ::asmevo::detail::parse_line(x.text, 1);
      Expected<Inst> in = line ? Expected<Inst>(fail(DiagCode::internal, "unset")) : unexpected(line.error());
      if (line) {
        if (const isa::FormInfo* f = isa::find_form(t_, x.opcode_name))
          in = match_line_as(*line, t_, static_cast<std::size_t>(f - all.data()), /*usage_rules=*/false);
        if (!in) in = match_line(*line, t_);
      }
      if (!in) {
        auto e = std::move(in).error();
        e.code = DiagCode::decode_error;
        e.message = "decoded '" + x.text + "' (" + x.opcode_name + ") at offset " + std::to_string(x.offset) +
                    " but cannot read it back: " + e.message;
        return unexpected(std::move(e));
      }
      out.push_back(DecodedInst{x.offset, x.size, std::move(*in), true, {}});
    }
    // Check every result by re-encoding it: all of them in one assembly run (one MCContext for the whole span,
    // which is what makes decoding a whole .text affordable), then, for the few that do not match, one by one
    // with the fields LLVM's text does not carry restored.
    std::string text;
    text.reserve(out.size() * 40);
    for (const auto& di : out) text += print_inst(di.inst) + '\n';
    const AssembleReport batch = ctx_->assemble_all(text, "<decode>");
    std::vector<const Encoded*> by_line(out.size() + 1, nullptr);
    for (const auto& e : batch.instructions)
      if (e.line >= 1 && e.line <= out.size()) by_line[e.line] = by_line[e.line] ? nullptr : &e;
    for (std::size_t k = 0; k < out.size(); ++k) {
      DecodedInst& di = out[k];
      const std::span<const std::uint8_t> mine = bytes.subspan(di.offset, di.size);
      const Encoded* e = by_line[k + 1];
      if (e != nullptr && e->bytes.size() == mine.size() && std::equal(e->bytes.begin(), e->bytes.end(), mine.begin())) continue;
      if (reencodes_to(di.inst, mine)) continue;
      restore_fields(di.inst, mine);
      if (!reencodes_to(di.inst, mine)) {
        di.exact = false;
        auto why = ctx_->encode_line(print_inst(di.inst));
        di.note = why ? "LLVM's disassembly of these bytes does not re-encode to them (bits its syntax cannot express)"
                      : "LLVM's assembler refuses this instruction: " + why.error().message;
      }
    }
    return out;
  }

 private:
  Encoder(Target t, std::unique_ptr<Context> c) : t_(t), ctx_(std::move(c)) {}

  [[nodiscard]] bool reencodes_to(const Inst& in, std::span<const std::uint8_t> want) {
    auto b = ctx_->encode_line(print_inst(in));
    return b && b->size() == want.size() && std::equal(b->begin(), b->end(), want.begin());
  }

  /// Puts back the raw field values that LLVM's printed text does not carry. Field positions: SOPP simm16 is
  /// bits 15:0 of the word; DS offset (offset0/offset1) is bits 15:0 (7:0, 15:8); a literal is the dword after
  /// the instruction word (MI300 ISA guide, chapter 12 "Instruction formats").
  void restore_fields(Inst& in, std::span<const std::uint8_t> b) {
    const auto& f = isa::forms(t_)[in.form];
    const auto ops = isa::operands(f);
    const auto u16 = [&](std::size_t at) { return static_cast<std::int64_t>(b[at] | (b[at + 1] << 8)); };
    for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
      Operand& o = in.ops[k];
      switch (ops[k].kind) {
        case isa::Kind::waitcnt:
          if (b.size() >= 2) o = Operand::make_imm(u16(0));
          break;
        case isa::Kind::swizzle:
          if (f.format == isa::Format::DS && b.size() >= 2) o = Operand::make_imm(u16(0));
          break;
        case isa::Kind::src:
          // A literal in a 16-bit operand: LLVM prints the low half only (0x8000 for 0xffff8000).
          if ((o.kind == Operand::Kind::imm || o.kind == Operand::Kind::real) && b.size() == f.size + 4u) {
            const std::uint32_t lit = b[f.size] | (b[f.size + 1] << 8) | (b[f.size + 2] << 16) | (static_cast<std::uint32_t>(b[f.size + 3]) << 24);
            const auto as_signed = static_cast<std::int64_t>(static_cast<std::int32_t>(lit));
            if (value_bits(ops[k].type) == 16 && o.kind == Operand::Kind::imm && (o.imm & 0xffff) == (lit & 0xffff))
              o.imm = as_signed;
          }
          break;
        default: break;
      }
    }
  }

  Target t_;
  std::unique_ptr<Context> ctx_;
};

/// Parses "0x7e020280", "80 02 02 7e", "0x80,0x02,0x02,0x7e" or "[0x80,0x02]" into bytes. A single 0x-prefixed
/// word longer than two digits is one little-endian dword (as llvm-objdump prints words).
[[nodiscard]] inline Expected<std::vector<std::uint8_t>> parse_hex_bytes(std::string_view s) {
  std::vector<std::uint8_t> out;
  std::size_t i = 0;
  auto hexval = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == ',' || c == '[' || c == ']' || c == '\t' || c == '\n') { ++i; continue; }
    std::size_t b = i;
    bool prefixed = false;
    if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) { i += 2; prefixed = true; }
    std::size_t db = i;
    while (i < s.size() && hexval(s[i]) >= 0) ++i;
    std::string_view digits = s.substr(db, i - db);
    if (digits.empty() || (i < s.size() && !(s[i] == ' ' || s[i] == ',' || s[i] == ']' || s[i] == '\t' || s[i] == '\n')))
      return fail(DiagCode::parse_error, "malformed hex byte '" + std::string(s.substr(b, std::max<std::size_t>(i - b + 1, 1))) + "'",
                  Loc{{}, 1, static_cast<std::uint32_t>(b + 1), {}}, std::string(s), "write bytes like 0x7e or 7e, or dwords like 0x7e020280");
    if (digits.size() <= 2) {
      out.push_back(static_cast<std::uint8_t>(std::stoul(std::string(digits), nullptr, 16)));
    } else if (prefixed && digits.size() <= 8) {
      auto v = static_cast<std::uint32_t>(std::stoul(std::string(digits), nullptr, 16));
      for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
    } else if (digits.size() % 2 == 0) {
      for (std::size_t k = 0; k < digits.size(); k += 2) out.push_back(static_cast<std::uint8_t>(hexval(digits[k]) * 16 + hexval(digits[k + 1])));
    } else {
      return fail(DiagCode::parse_error, "odd number of hex digits in '" + std::string(digits) + "'",
                  Loc{{}, 1, static_cast<std::uint32_t>(b + 1), {}}, std::string(s));
    }
  }
  if (out.empty()) return fail(DiagCode::parse_error, "no bytes given", {}, std::string(s));
  return out;
}

}  // namespace asmevo::mc
