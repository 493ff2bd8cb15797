// Predecoding: turns a Program's instructions into Ops (resolved operand slots, register sets for the waitcnt
// scoreboard, and the handler that implements each one).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "asmevo/emu/constants.hpp"
#include "asmevo/emu/machine.hpp"
#include "asmevo/emu/semantics.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::emu {

/// What the decoder needs besides the program: where each instruction sits, and the bytes of the code, so that
/// symbolic literals (`sym@rel32@lo+(...)`, label differences) are read as the linker resolved them.
struct DecodeInput {
  const Program* program = nullptr;
  std::span<const std::uint64_t> inst_addr;  ///< by InstId value (~0: unknown); empty: laid out from sizes
  std::span<const std::uint8_t> text;        ///< the code bytes (optional)
  std::uint64_t text_addr = 0;               ///< ELF address of text[0]
};

namespace detail {

/// An instruction whose handler is missing: stops the run naming it.
inline void unsupported_exec(Wave& w, const Op& op) {
  w.stop_with(Stop::Kind::unsupported, op,
              "the emulator does not implement " + std::string(op.mnemonic()) + " (" +
                  std::string(op.info ? op.info->name : std::string_view{"?"}) + ")");
}
/// An operand the decoder could not resolve (kept so that the problem is reported only if the code runs).
inline void undecodable_exec(Wave& w, const Op& op) {
  w.stop_with(Stop::Kind::unsupported, op, "an operand of " + std::string(op.mnemonic()) + " could not be decoded");
}
/// The sentinel after the last instruction.
inline void fell_off_end(Wave& w, const Op& op) {
  w.stop_with(Stop::Kind::illegal, op, "execution ran past the last instruction of the code object");
}

[[nodiscard]] inline std::optional<Name> name_of(std::string_view n) {
  for (std::size_t i = 0; i < name_count; ++i)
    if (name_text[i] == n) return static_cast<Name>(i);
  return std::nullopt;
}

[[nodiscard]] inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
[[nodiscard]] inline std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim(s);
  bool neg = false;
  if (!s.empty() && s[0] == '-') { neg = true; s.remove_prefix(1); }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s.remove_prefix(2); }
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return neg ? -v : v;
}
/// Splits `name(a, b, c)` into its arguments.
[[nodiscard]] inline std::optional<std::vector<std::string_view>> call_args(std::string_view s, std::string_view fn) {
  s = trim(s);
  if (s.substr(0, fn.size()) != fn) return std::nullopt;
  s.remove_prefix(fn.size());
  s = trim(s);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<std::string_view> out;
  while (true) {
    const auto c = s.find(',');
    out.push_back(trim(s.substr(0, c)));
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return out;
}

/// `hwreg(HW_REG_MODE, 0, 2)` → the SOPK simm16: id | offset << 6 | (size - 1) << 11
/// (MI300 ISA S_GETREG_B32; register ids from LLVM SIDefines.h Hwreg::Id for gfx9).
[[nodiscard]] inline std::optional<std::uint64_t> hwreg_value(std::string_view text) {
  auto a = call_args(text, "hwreg");
  if (!a || a->empty() || a->size() == 2 || a->size() > 3) return std::nullopt;
  struct R { std::string_view n; int id; };
  constexpr R ids[] = {{"HW_REG_MODE", 1}, {"HW_REG_STATUS", 2}, {"HW_REG_TRAPSTS", 3}, {"HW_REG_HW_ID", 4},
                       {"HW_REG_GPR_ALLOC", 5}, {"HW_REG_LDS_ALLOC", 6}, {"HW_REG_IB_STS", 7},
                       {"HW_REG_SH_MEM_BASES", 15}, {"HW_REG_TBA_LO", 16}, {"HW_REG_TBA_HI", 17},
                       {"HW_REG_TMA_LO", 18}, {"HW_REG_TMA_HI", 19}, {"HW_REG_FLAT_SCR_LO", 20},
                       {"HW_REG_FLAT_SCR_HI", 21}, {"HW_REG_XNACK_MASK", 22}, {"HW_REG_POPS_PACKER", 25},
                       {"HW_REG_SHADER_CYCLES", 29}, {"HW_REG_XCC_ID", 20}};
  std::int64_t id = -1;
  for (const auto& r : ids)
    if ((*a)[0] == r.n) id = r.id;
  if (id < 0) {
    auto v = parse_int((*a)[0]);
    if (!v) return std::nullopt;
    id = *v;
  }
  std::int64_t off = 0, size = 32;
  if (a->size() == 3) {
    auto o = parse_int((*a)[1]);
    auto z = parse_int((*a)[2]);
    if (!o || !z) return std::nullopt;
    off = *o;
    size = *z;
  }
  if (id < 0 || id > 63 || off < 0 || off > 31 || size < 1 || size > 32) return std::nullopt;
  return static_cast<std::uint64_t>(id | off << 6 | (size - 1) << 11);
}

/// ds_swizzle_b32's `offset:swizzle(...)` → the 16-bit offset (MI300 ISA DS_SWIZZLE_B32; the macro forms are
/// LLVM's, AMDGPUAsmParser::parseSwizzleOperand: QUAD_PERM, BITMASK_PERM, BROADCAST, SWAP, REVERSE).
[[nodiscard]] inline std::optional<std::uint64_t> swizzle_value(std::string_view text) {
  text = trim(text);
  if (text.substr(0, 7) == "offset:") text.remove_prefix(7);
  if (auto v = parse_int(text)) return static_cast<std::uint64_t>(*v) & 0xffff;
  auto a = call_args(text, "swizzle");
  if (!a || a->empty()) return std::nullopt;
  const auto mode = (*a)[0];
  auto arg = [&](std::size_t i) -> std::optional<std::int64_t> { return i < a->size() ? parse_int((*a)[i]) : std::nullopt; };
  auto bitmask = [](unsigned and_m, unsigned or_m, unsigned xor_m) {
    return static_cast<std::uint64_t>((and_m & 31) | (or_m & 31) << 5 | (xor_m & 31) << 10);
  };
  if (mode == "QUAD_PERM" && a->size() == 5) {
    std::uint64_t v = 0x8000;
    for (int i = 0; i < 4; ++i) {
      auto l = arg(1 + i);
      if (!l || *l < 0 || *l > 3) return std::nullopt;
      v |= static_cast<std::uint64_t>(*l) << (2 * i);
    }
    return v;
  }
  if (mode == "BITMASK_PERM" && a->size() == 2) {
    std::string_view m = (*a)[1];
    if (m.size() == 7 && m.front() == '"' && m.back() == '"') m = m.substr(1, 5);
    if (m.size() != 5) return std::nullopt;
    unsigned and_m = 0, or_m = 0, xor_m = 0;
    for (int i = 0; i < 5; ++i) {
      const unsigned bit = 1u << (4 - i);
      switch (m[static_cast<std::size_t>(i)]) {
        case '0': break;
        case '1': or_m |= bit; break;
        case 'p': and_m |= bit; break;
        case 'i': and_m |= bit; xor_m |= bit; break;
        default: return std::nullopt;
      }
    }
    return bitmask(and_m, or_m, xor_m);
  }
  if (mode == "BROADCAST" && a->size() == 3) {
    auto size = arg(1), lane = arg(2);
    if (!size || !lane || *size < 2 || *size > 32 || (*size & (*size - 1)) || *lane < 0 || *lane >= *size) return std::nullopt;
    return bitmask(~static_cast<unsigned>(*size - 1), static_cast<unsigned>(*lane), 0);
  }
  if (mode == "SWAP" && a->size() == 2) {
    auto size = arg(1);
    if (!size || *size < 1 || *size > 16 || (*size & (*size - 1))) return std::nullopt;
    return bitmask(31, 0, static_cast<unsigned>(*size));
  }
  if (mode == "REVERSE" && a->size() == 2) {
    auto size = arg(1);
    if (!size || *size < 2 || *size > 32 || (*size & (*size - 1))) return std::nullopt;
    return bitmask(31, 0, static_cast<unsigned>(*size - 1));
  }
  return std::nullopt;
}

/// `gpr_idx(SRC0,SRC1,SRC2,DST)` (any subset, any order, or empty) as the 4-bit mode of s_set_gpr_idx_on/_mode:
/// bit 0 src0, 1 src1, 2 src2, 3 dst (LLVM AMDGPU operand syntax "imask"); a bare number is read as written.
[[nodiscard]] inline std::optional<std::uint64_t> gpr_idx_value(std::string_view text) {
  text = trim(text);
  if (auto n = parse_int(text)) return *n >= 0 && *n <= 15 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*n)) : std::nullopt;
  auto args = call_args(text, "gpr_idx");
  if (!args) return std::nullopt;
  std::uint64_t v = 0;
  for (std::string_view a : *args) {
    a = trim(a);
    std::uint64_t bit = 0;
    if (a == "SRC0") bit = 1;
    else if (a == "SRC1") bit = 2;
    else if (a == "SRC2") bit = 4;
    else if (a == "DST") bit = 8;
    else if (a.empty() && args->size() == 1) continue;
    if (bit == 0 || (v & bit)) return std::nullopt;
    v |= bit;
  }
  return v;
}

[[nodiscard]] inline bool is_async_load(const isa::FormInfo& f) {
  using namespace isa::prop;
  const bool mem = (f.props & (smem | vmem | flat | ds)) != 0;
  return mem && (f.props & (load | atomic_ret)) != 0;
}

/// Op::aux of a MUBUF/MTBUF form: its addressing mode from the LLVM record name (BUFFER_LOAD_DWORD_OFFEN_gfx90a,
/// _IDXEN, _BOTHEN, _OFFSET), decided once here rather than on every execution: bit 0 offen, bit 1 idxen.
[[nodiscard]] inline std::uint32_t vmem_addressing(std::string_view record) {
  if (record.find("_BOTHEN") != std::string_view::npos) return 3;
  if (record.find("_OFFEN") != std::string_view::npos) return 1;
  if (record.find("_IDXEN") != std::string_view::npos) return 2;
  return 0;
}

}  // namespace detail

/// Decodes every instruction of `in.program` into `Code::ops` (in program order, plus a sentinel), resolving
/// labels to Op indexes and constants to the bits the hardware reads. An instruction without semantics, or with
/// an operand the emulator cannot resolve, decodes to a handler that stops the run when (and only when) it
/// executes, naming the instruction. Errors are returned only for a malformed program (an unknown label).
[[nodiscard]] ASMEVO_OUTLINE Expected<Code> decode_program(const DecodeInput& in)
#if ASMEVO_BODY_EMU
{
  using K = Operand::Kind;
  const Program& p = *in.program;
  const auto forms = isa::forms(p.target);
  Code code;

  // Pass 1: instruction order, addresses and labels.
  std::vector<const Inst*> insts;
  std::unordered_map<std::string, std::uint32_t> label_index;
  std::vector<std::string> pending_labels;
  for (const auto& it : p.items) {
    if (it.kind == Item::Kind::label) pending_labels.push_back(it.name);
    if (it.kind != Item::Kind::inst) continue;
    for (auto& l : pending_labels) label_index.emplace(std::move(l), static_cast<std::uint32_t>(insts.size()));
    pending_labels.clear();
    insts.push_back(&it.inst);
  }
  for (auto& l : pending_labels) label_index.emplace(std::move(l), static_cast<std::uint32_t>(insts.size()));

  auto encoded_size = [&](const Inst& inst) {
    const auto& f = forms[inst.form];
    const auto ops = isa::operands(f);
    unsigned extra = 0;
    for (std::size_t k = 0; k < inst.ops.size() && k < ops.size(); ++k) {
      const auto& o = inst.ops[k];
      if (ops[k].kind != isa::Kind::src) continue;
      if (o.kind == K::expr) extra = 4;
      else if ((o.kind == K::imm || o.kind == K::real)) {
        auto c = constant_bits(o, ops[k].type);
        if (!c || c->literal) extra = 4;
      }
    }
    return static_cast<unsigned>(f.size) + extra;
  };

  code.ops.resize(insts.size() + 1);
  std::uint64_t next_addr = in.text_addr;
  for (std::size_t i = 0; i < insts.size(); ++i) {
    const Inst& inst = *insts[i];
    Op& op = code.ops[i];
    op.index = static_cast<std::uint32_t>(i);
    op.id = inst.id;
    op.info = &forms[inst.form];
    op.opcode = op_of(p.target, inst.form);
    op.size = static_cast<std::uint8_t>(encoded_size(inst));
    if (op.info->has(isa::prop::vmem)) op.aux = detail::vmem_addressing(op.info->name);
    std::uint64_t a = ~0ull;
    if (inst.id.value < in.inst_addr.size()) a = in.inst_addr[inst.id.value];
    if (a == ~0ull) a = next_addr;
    op.addr = a;
    next_addr = a + op.size;
    code.by_addr.emplace_back(a, static_cast<std::uint32_t>(i));
  }
  std::sort(code.by_addr.begin(), code.by_addr.end());
  {
    Op& end = code.ops.back();
    end.index = static_cast<std::uint32_t>(insts.size());
    end.fn = detail::fell_off_end;
    end.addr = next_addr;
    end.pos.fill(Op::none);
  }

  auto read_literal = [&](const Op& op) -> std::optional<std::uint32_t> {
    if (in.text.empty() || op.addr < in.text_addr) return std::nullopt;
    const std::uint64_t off = op.addr - in.text_addr + op.info->size;
    if (off + 4 > in.text.size()) return std::nullopt;
    return static_cast<std::uint32_t>(in.text[off]) | static_cast<std::uint32_t>(in.text[off + 1]) << 8 |
           static_cast<std::uint32_t>(in.text[off + 2]) << 16 | static_cast<std::uint32_t>(in.text[off + 3]) << 24;
  };

  // Pass 2: operands.
  for (std::size_t i = 0; i < insts.size(); ++i) {
    const Inst& inst = *insts[i];
    Op& op = code.ops[i];
    const isa::FormInfo& f = *op.info;
    const auto infos = isa::operands(f);
    op.pos.fill(Op::none);
    bool ok = true;
    const bool async = detail::is_async_load(f);
    auto add_range = [&](bool write, const Slot& s) {
      if (s.kind != Slot::Kind::vgpr && s.kind != Slot::Kind::scalar) return;
      if (s.kind == Slot::Kind::scalar && s.index >= 128) return;
      RegRange r{s.kind == Slot::Kind::vgpr, static_cast<std::uint16_t>(s.index), s.dwords};
      auto& arr = write ? op.writes : op.reads;
      auto& n = write ? op.nwrites : op.nreads;
      if (n < arr.size()) arr[n++] = r;
    };
    const std::size_t nops = std::min(inst.ops.size(), infos.size());
    for (std::size_t k = 0; k < nops && k < op.slots.size(); ++k) {
      const auto& oi = infos[k];
      const Operand& o = inst.ops[k];
      Slot s;
      switch (o.kind) {
        case K::absent: break;
        case K::reg: {
          const Reg r = o.reg;
          s.mods = o.mods;
          s.dwords = r.dwords;
          switch (r.file) {
            case RegFile::vgpr: s.kind = Slot::Kind::vgpr; s.index = r.index; break;
            case RegFile::agpr: s.kind = Slot::Kind::vgpr; s.index = agpr_row0 + r.index; break;
            case RegFile::sgpr: s.kind = Slot::Kind::scalar; s.index = r.index; break;
            case RegFile::ttmp: s.kind = Slot::Kind::scalar; s.index = sc::ttmp0 + r.index; break;
            case RegFile::special:
              if (r.index == special::src_scc || r.index == special::scc) s.kind = Slot::Kind::scc;
              else if (r.index == special::src_vccz) s.kind = Slot::Kind::vccz;
              else if (r.index == special::src_execz) s.kind = Slot::Kind::execz;
              else if (r.index == special::src_lds_direct || r.index == special::src_pops_exiting_wave_id) ok = false;
              else { s.kind = Slot::Kind::scalar; s.index = r.index; }
              break;
          }
          break;
        }
        case K::imm:
        case K::real:
          if (oi.kind == isa::Kind::src || oi.kind == isa::Kind::kimm) {
            auto c = constant_bits(o, oi.type);
            if (!c) { ok = false; break; }
            s.kind = Slot::Kind::constant;
            s.value = c->bits;
            s.mods = o.mods;
          } else if (oi.kind == isa::Kind::label) {
            // A numeric branch offset: PC + 4 + simm16 * 4 (MI300 ISA S_BRANCH).
            const std::uint64_t target = op.addr + 4 + static_cast<std::uint64_t>(static_cast<std::int64_t>(o.imm) * 4);
            const auto it = std::lower_bound(code.by_addr.begin(), code.by_addr.end(), std::pair<std::uint64_t, std::uint32_t>{target, 0});
            s.kind = Slot::Kind::label;
            s.index = it != code.by_addr.end() && it->first == target ? it->second : static_cast<std::uint32_t>(insts.size());
          } else {
            s.kind = Slot::Kind::constant;
            s.value = static_cast<std::uint64_t>(o.imm);
          }
          break;
        case K::expr:
          if (oi.kind == isa::Kind::label) {
            auto it = label_index.find(o.text);
            if (it == label_index.end())
              return fail(DiagCode::invalid_operand, "branch to unknown label '" + o.text + "'",
                          Loc{p.file, 0, 0, inst.id.value}, o.text);
            s.kind = Slot::Kind::label;
            s.index = it->second;
          } else if (auto lit = read_literal(op)) {
            s.kind = Slot::Kind::constant;
            s.value = literal_bits(*lit, oi.type);
          } else {
            ok = false;
          }
          break;
        case K::text:
          s.kind = Slot::Kind::constant;
          if (oi.kind == isa::Kind::hwreg) {
            auto v = detail::hwreg_value(o.text);
            if (!v) ok = false; else s.value = *v;
          } else if (oi.kind == isa::Kind::swizzle) {
            auto v = detail::swizzle_value(o.text);
            if (!v) ok = false; else s.value = *v;
          } else if (oi.kind == isa::Kind::gpr_idx) {
            auto v = detail::gpr_idx_value(o.text);
            if (!v) ok = false; else s.value = *v;
          } else {
            ok = false;
          }
          break;
        case K::list:
          s.kind = Slot::Kind::constant;
          s.value = static_cast<std::uint64_t>(o.imm);
          break;
      }
      // DPP `bound_ctrl:0` and `bound_ctrl:1` both encode BOUND_CTRL = 1 before gfx11 (LLVM AMDGPUAsmParser
      // cvtDPP: the legacy spelling bound_ctrl:0 sets the bit; llvm-mc-22 gives the same bytes for both), so a
      // written bound_ctrl means "write zero for an invalid source lane", whatever its number.
      if (oi.name == "bound_ctrl" && s.kind == Slot::Kind::constant) s.value = 1;
      op.slots[k] = s;
      if (auto n = detail::name_of(oi.name); n && op.pos[static_cast<std::size_t>(*n)] == Op::none)
        op.pos[static_cast<std::size_t>(*n)] = static_cast<std::uint8_t>(k);
      // v_bitop3_b16/b32 (gfx950): the 8-bit truth table, kept in Op::aux for the handler (sem_valu.hpp bitop3).
      if (oi.name == "bitop3" && s.kind == Slot::Kind::constant) op.aux = static_cast<std::uint32_t>(s.value & 0xffu);
      if (oi.role == isa::Role::use) add_range(false, s);
      else if (!async) add_range(true, s);  // a load's destination is marked pending by its MemOp instead
    }
    op.nslots = static_cast<std::uint8_t>(std::min(nops, op.slots.size()));
    if (f.format == isa::Format::MIMG) op.aux = detail::mimg_fields(f, op);  // dmask, unorm, da, ... (sem_image.hpp)

    // Hardware defaults of modifiers the text leaves out (LLVM AMDGPUAsmParser cvtVOP3P / cvtSDWA / cvtDPP).
    auto set_default = [&](Name n, std::uint64_t v) {
      auto& p_ = op.pos[static_cast<std::size_t>(n)];
      if (p_ != Op::none) {
        Slot& s = op.slots[p_];
        if (!s.present()) { s.kind = Slot::Kind::constant; s.value = v; }
        return;
      }
      if (op.nslots >= op.slots.size()) return;
      p_ = op.nslots;
      op.slots[op.nslots++] = Slot{Slot::Kind::constant, 0, 0, 0, v};
    };
    // op_sel_hi defaults to all ones, except on v_fma_mix* (Family::v_mix), where it picks f16 sources and defaults to 0.
    const bool mix = family_of(op.opcode) == Family::v_mix;
    if (f.format == isa::Format::VOP3P && !f.has(isa::prop::mfma) && !mix) set_default(Name::op_sel_hi, 7);
    if (f.variant == isa::Variant::dpp) {
      set_default(Name::row_mask, 0xf);
      set_default(Name::bank_mask, 0xf);
    }
    if (f.variant == isa::Variant::sdwa) {
      set_default(Name::dst_sel, 6);
      set_default(Name::dst_unused, 2);
      set_default(Name::src0_sel, 6);
      set_default(Name::src1_sel, 6);
    }
    // Implicit vcc operands of VOP1/VOP2/VOPC encodings (the e64 forms name them).
    const bool short_form = f.variant == isa::Variant::e32 || f.variant == isa::Variant::dpp || f.variant == isa::Variant::sdwa;
    const Slot vcc_slot{Slot::Kind::scalar, 0, 2, sc::vcc, 0};
    auto synthesize = [&](Name n, bool write) {
      auto& p_ = op.pos[static_cast<std::size_t>(n)];
      if (p_ != Op::none && op.slots[p_].present()) return;
      if (p_ == Op::none) {
        if (op.nslots >= op.slots.size()) return;
        p_ = op.nslots++;
      }
      op.slots[p_] = vcc_slot;
      add_range(write, vcc_slot);
    };
    if (short_form && (f.implicit_defs & isa::reg::vcc)) synthesize(Name::sdst, true);
    if (short_form && (f.implicit_uses & isa::reg::vcc)) synthesize(Name::src2, false);
    if (f.implicit_uses & isa::reg::vcc && !short_form) add_range(false, vcc_slot);
    if (f.implicit_uses & isa::reg::m0) add_range(false, Slot{Slot::Kind::scalar, 0, 1, sc::m0, 0});
    if (f.implicit_defs & isa::reg::exec) add_range(true, Slot{Slot::Kind::scalar, 0, 2, sc::exec, 0});

    // Semantics.
    const Semantics* sem = find_semantics(op.opcode);
    if (!ok) op.fn = detail::undecodable_exec;
    else if (!sem) op.fn = detail::unsupported_exec;
    else if (f.variant == isa::Variant::dpp) { op.fn = dpp_exec; op.base = sem->fn; }
    else if (f.variant == isa::Variant::sdwa) { op.fn = sdwa_exec; op.base = sem->fn; }
    else op.fn = sem->fn;
  }
  return code;
}
#else
;
#endif

}  // namespace asmevo::emu
