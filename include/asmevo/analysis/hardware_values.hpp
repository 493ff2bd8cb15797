// Where values that only the hardware decides reach: a forward taint analysis over the CFG from the instructions
// that read a clock or the wave's placement to the places where such a value changes what a kernel does.
//
// Sources (asked of the form, not of the mnemonic):
//  - SMEM forms without a memory operand (no `sbase`) that define a register: the clocks s_memtime and
//    s_memrealtime (MI300 ISA §4 "Scalar Memory Operations": they return a 64-bit counter, not memory);
//  - s_getreg of a hardware register whose value the device chooses: HW_ID (which SE/SH/CU/SIMD/slot, queue),
//    LDS_ALLOC (where and how much LDS the CU gave the workgroup), IB_STS, SHADER_CYCLES, XCC_ID (which XCD) and
//    any register id it does not know (LLVM SIDefines.h Hwreg::Id); the VGPR_BASE [5:0] and SGPR_BASE [21:16]
//    fields of GPR_ALLOC (where in the SIMD's register file the wave was placed; its SIZE fields are the
//    kernel's own); TRAPSTS, whose EXCP bits the hardware sets on floating-point exceptions the emulator does not
//    raise (MI300 ISA §3.10 "Trap and Exception Registers"). MODE and STATUS are the kernel's own state.
//  - the program counter (s_getpc_b64, and the return address s_swappc_b64/s_call_b64 write): where the loader
//    put the code object is the runtime's choice. K0's own PC-relative addressing is a finding of K0 too, so only
//    a new use of the PC is rejected.
// A value is tainted when some path carries it, through any instruction that reads a tainted register, into a
// register; a write whose inputs are all untainted cleans its destination (register-granular, as
// analysis/liveness.hpp; a destination kept in part, partial_def, keeps its taint).
// Sinks, one finding per instruction (severity warning: a kernel may use its placement on purpose, e.g. to spread
// work over XCDs, and K0's own findings are only reported):
//   hwvalue:address  a memory instruction's address, offset, resource or M0 operand is tainted;
//   hwvalue:memory   the data a store or atomic writes is tainted;
//   hwvalue:control  a branch's condition (SCC, VCCZ, EXECZ, a register target) or a write of EXEC is tainted.
// The differential verifier rejects a K1 with such a finding that K0 does not have at the same place, since no run
// of an emulator can show what another placement or clock would have done.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/forward_union.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/findings.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::analysis {

namespace detail {

/// The HW_REG id an s_getreg operand names (`hwreg(HW_REG_HW_ID, 8, 4)`, `hwreg(4)` or the raw simm16), or -1 when
/// the text names a register this table does not know (treated as a source).
[[nodiscard]] inline int hwreg_id(const Operand& o) {
  if (o.kind == Operand::Kind::imm) return static_cast<int>(o.imm & 0x3f);
  if (o.kind != Operand::Kind::text) return -1;
  const std::string_view t = o.text;
  // LLVM's spellings (AMDGPUAsmUtils.cpp Hwreg::Opr) of the registers that are not sources, and their ids.
  struct Named { std::string_view name; int id; };
  static constexpr Named names[] = {{"HW_REG_MODE", 1}, {"HW_REG_STATUS", 2}, {"HW_REG_TRAPSTS", 3},
                                    {"HW_REG_HW_ID", 4}, {"HW_REG_GPR_ALLOC", 5}, {"HW_REG_LDS_ALLOC", 6},
                                    {"HW_REG_IB_STS", 7}, {"HW_REG_XCC_ID", 20}};
  const auto open = t.find('(');
  if (open == std::string_view::npos) return -1;
  std::string_view first = t.substr(open + 1);
  first = first.substr(0, std::min(first.find(','), first.find(')')));
  while (!first.empty() && first.front() == ' ') first.remove_prefix(1);
  while (!first.empty() && first.back() == ' ') first.remove_suffix(1);
  for (const auto& n : names)
    if (first == n.name) return n.id;
  int v = 0;
  if (first.empty()) return -1;
  for (const char c : first) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v & 0x3f;
}

/// The bit field [offset, offset + size) an s_getreg operand reads: `hwreg(ID, OFFSET, SIZE)` or the raw simm16
/// (id[5:0] | offset[10:6] | (size - 1)[15:11], MI300 ISA S_GETREG_B32); the whole register when the text gives
/// no field.
[[nodiscard]] inline std::pair<unsigned, unsigned> hwreg_field(const Operand& o) {
  if (o.kind == Operand::Kind::imm) return {static_cast<unsigned>(o.imm >> 6) & 0x1f, (static_cast<unsigned>(o.imm >> 11) & 0x1f) + 1};
  if (o.kind != Operand::Kind::text) return {0, 32};
  const std::string_view t = o.text;
  const auto c1 = t.find(',');
  if (c1 == std::string_view::npos) return {0, 32};
  const auto c2 = t.find(',', c1 + 1);
  auto number = [](std::string_view x, unsigned& v) {
    while (!x.empty() && (x.front() == ' ' || x.front() == '\t')) x.remove_prefix(1);
    while (!x.empty() && (x.back() == ' ' || x.back() == ')' || x.back() == '\t')) x.remove_suffix(1);
    if (x.empty() || x.size() > 2) return false;
    v = 0;
    for (const char c : x) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return true;
  };
  unsigned off = 0, size = 32;
  if (c2 == std::string_view::npos || !number(t.substr(c1 + 1, c2 - c1 - 1), off) || !number(t.substr(c2 + 1), size))
    return {0, 32};  // unreadable: the whole register, the cautious answer
  return {off, size};
}

/// Whether `in` reads a value only the hardware decides (see the file comment).
[[nodiscard]] inline bool reads_hardware_value(const Inst& in) {
  const auto& f = form_of(in);
  const auto ops = isa::operands(f);
  // The PC: a SOP1 that defines a register and reads none (s_getpc_b64), or one that branches through a register
  // and writes the return address (s_swappc_b64; s_call_b64 is SOPK).
  if ((f.format == isa::Format::SOP1 || f.format == isa::Format::SOPK) &&
      (f.has(isa::prop::call) || f.format == isa::Format::SOP1)) {
    bool def = false, use = false;
    for (const auto& o : ops) {
      def |= o.role == isa::Role::def && o.kind == isa::Kind::reg;
      use |= o.role == isa::Role::use;
    }
    if (def && (!use || f.has(isa::prop::call))) return true;
  }
  if (f.format == isa::Format::SMEM) {
    bool sbase = false, def = false;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      sbase |= ops[k].name == "sbase";
      def |= ops[k].role == isa::Role::def;
    }
    return def && !sbase;
  }
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    if (ops[k].kind != isa::Kind::hwreg || ops[k].role != isa::Role::use) continue;
    bool def = false;
    for (const auto& o : ops) def |= o.role == isa::Role::def && o.kind == isa::Kind::reg;
    if (!def) return false;  // s_setreg: writes the register, reads nothing from the hardware
    const int id = hwreg_id(in.ops[k]);
    if (id == 5) {  // GPR_ALLOC: only its BASE fields are placement
      const auto [off, size] = hwreg_field(in.ops[k]);
      const std::uint64_t read = (size >= 32 ? 0xffffffffull : ((1ull << size) - 1)) << off;
      return (read & 0x003f003full) != 0;
    }
    return !(id == 1 || id == 2);
  }
  return false;
}

}  // namespace detail

/// The hwvalue:* findings (see the file comment) of the kernel entered at block `entry` of `g` (built from `p`), in
/// program order, at most `max`; `kernel` goes into the messages.
[[nodiscard]] inline Findings check_hardware_values(const Program& p, const Cfg& g, std::uint32_t entry,
                                                    std::string_view kernel, std::size_t max = 32) {
  Findings out;
  const std::vector<std::uint32_t> order = g.reverse_post_order(entry);
  if (order.empty()) return out;
  bool any_source = false;
  for (const auto b : order)
    for (const auto item : g.blocks[b].insts) any_source |= detail::reads_hardware_value(p.items[item].inst);
  if (!any_source) return out;

  std::vector<unsigned> rd, wr;

  auto transfer = [&](std::uint32_t b, UnitSet t, bool report) {
    for (const std::uint32_t item : g.blocks[b].insts) {
      const Inst& in = p.items[item].inst;
      const auto& f = detail::form_of(in);
      const auto ops = isa::operands(f);
      rd.clear();
      wr.clear();
      detail::unit_rw(in, rd, wr);
      if ((f.implicit_uses & isa::reg::m0) && !(detail::real_implicit_uses(in) & isa::reg::m0))
        rd.erase(std::remove(rd.begin(), rd.end(), detail::unit_m0), rd.end());  // gfx9 DS: no M0 (reg_units.hpp)
      bool tainted_input = false;
      for (const unsigned u : rd) tainted_input |= u < detail::num_units && t.test(u);
      if (report && out.size() < max) {
        // Which sink: memory operands other than store data, store data, or control.
        std::string what, rule;
        const bool memory = f.has(isa::prop::load) || f.has(isa::prop::store) || f.has(isa::prop::atomic);
        for (std::size_t k = 0; k < ops.size() && k < in.ops.size() && rule.empty(); ++k) {
          if (ops[k].role != isa::Role::use || !in.ops[k].is_reg()) continue;
          bool hit = false;
          for (const unsigned u : detail::units_of(in.ops[k].reg)) hit |= u < detail::num_units && t.test(u);
          if (!hit) continue;
          const std::string_view nm = ops[k].name;
          if (memory && (nm == "vdata" || nm == "data0" || nm == "data1" || nm == "sdata")) {
            rule = "hwvalue:memory";
            what = "stores a value";
          } else if (memory) {
            rule = "hwvalue:address";
            what = "addresses memory (" + std::string(nm) + ") with a value";
          } else if (f.has(isa::prop::branch)) {
            rule = "hwvalue:control";
            what = "branches on a value";
          }
        }
        if (rule.empty() && tainted_input) {
          const auto imp = detail::implicit_units(detail::real_implicit_uses(in));
          bool imp_hit = false;
          for (const unsigned u : imp) imp_hit |= t.test(u);
          if (imp_hit && memory) rule = "hwvalue:address", what = "addresses memory (M0) with a value";
          else if (imp_hit && f.has(isa::prop::branch)) rule = "hwvalue:control", what = "branches on a value";
          else
            for (const unsigned u : wr)
              if (u == detail::unit_exec || u == detail::unit_exec + 1) rule = "hwvalue:control", what = "sets EXEC from a value";
        }
        if (!rule.empty()) {
          Finding fd;
          fd.rule = rule;
          fd.severity = Severity::warning;
          fd.at = in.id;
          fd.message = "kernel '" + std::string(kernel) + "': i" + std::to_string(in.id.value) + " (" +
                       std::string(f.mnemonic) + ") " + what +
                       " derived from a clock, the wave's hardware placement or the PC (s_memtime, s_memrealtime, s_getreg "
                       "of HW_ID/LDS_ALLOC/XCC_ID/GPR_ALLOC bases/TRAPSTS, s_getpc_b64): it differs between dispatches "
                       "on hardware";
          out.push_back(std::move(fd));
        }
      }
      const bool source = detail::reads_hardware_value(in);
      const bool keep = detail::partial_def(in);
      for (const unsigned u : wr) {
        if (u >= detail::num_units) continue;
        if (source || tainted_input) t.set(u);
        else if (!keep) t.reset(u);
      }
    }
    return t;
  };

  detail::forward_union(g, entry, UnitSet{}, transfer);
  return out;
}

}  // namespace asmevo::analysis
