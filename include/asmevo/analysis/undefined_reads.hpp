// Reads of registers that hold no defined value: a forward "may be undefined" dataflow over the CFG from a kernel's
// entry, which reports every instruction that reads a register some path reaches without writing it first.
//
// What the launch defines is the caller's to say (verify/static_checks.hpp derives it from the kernel descriptor:
// AMDGPUUsage "Initial Kernel Execution State" sets the enabled user and system SGPRs, EXEC, MODE and the work-item
// id VGPRs, and FLAT_SCRATCH on targets with architected flat scratch). Everything else -- other SGPRs and VGPRs,
// every AGPR, VCC, M0, SCC, the trap temporaries, XNACK_MASK -- holds whatever the previous wave left, so a kernel
// whose result depends on it is wrong on hardware even when an emulator that zeroes them agrees with it.
//
// Register-granular, like analysis/liveness.hpp, and deliberately on the side of reporting only real reads:
//  - any write defines the whole register (an exec-masked VALU write, a 16-bit or SDWA result, a d16 load): the
//    lanes or bits such a write keeps stay undefined, and a later read of them is not reported (the emulator's
//    seeded garbage still makes the run differ);
//  - a destination the instruction keeps in part (analysis/detail/reg_units.hpp partial_def) is not a read unless
//    the form ties a hidden input to it (the accumulator of v_mac_f32/v_fmac_f32, the `old` value of a DPP move
//    whose masks or bound_ctrl leave some enabled lane without a source): a d16 load into a fresh register is fine;
//  - a call (isa::prop::call) may define anything, so nothing is undefined after it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/forward_union.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/findings.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::analysis {

namespace detail {

/// Whether a DPP form reads its `old` destination in some enabled lane: unless row_mask and bank_mask enable every
/// row and bank and bound_ctrl makes a lane without a source read zero (MI300 ISA, DPP: with BOUND_CTRL set an
/// invalid source lane reads 0; a disabled row or bank keeps the old value), it does. Not a DPP form: false.
[[nodiscard]] inline bool is_dpp(const isa::FormInfo& f) { return f.variant == isa::Variant::dpp || f.has(isa::prop::dpp); }

[[nodiscard]] inline bool dpp_reads_old(const Inst& in) {
  const auto& f = form_of(in);
  if (!is_dpp(f)) return false;
  const auto ops = isa::operands(f);
  bool full_rows = true, full_banks = true, bound = false;
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const Operand& o = in.ops[k];
    const bool given = o.present() && o.kind == Operand::Kind::imm;
    if (ops[k].name == "row_mask") full_rows = !given || (o.imm & 0xf) == 0xf;  // absent: the default 0xf
    else if (ops[k].name == "bank_mask") full_banks = !given || (o.imm & 0xf) == 0xf;
    // Written at all, bound_ctrl sets BOUND_CTRL before gfx11: the legacy spelling bound_ctrl:0 sets it too (LLVM
    // AMDGPUAsmParser cvtDPP; the emulator's decoder reads it the same way).
    else if (ops[k].name == "bound_ctrl") bound = o.present();
  }
  return !(full_rows && full_banks && bound);
}

/// The units `in` reads as inputs: explicit use operands, implicit uses, and the register a hidden tied input
/// stands for (an accumulator, a DPP `old`) when the instruction really reads it (see the file comment).
inline void input_units(const Inst& in, std::vector<unsigned>& rd) {
  const auto& f = form_of(in);
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].role != isa::Role::use) continue;
    const bool given = k < in.ops.size() && in.ops[k].is_reg();
    if (given) {
      // A DPP `old` the parser kept explicitly is still only read where dpp_reads_old says.
      if (ops[k].tied >= 0 && !ops[k].is_printed() && is_dpp(f) && !dpp_reads_old(in)) continue;
      for (unsigned u : units_of(in.ops[k].reg)) rd.push_back(u);
      continue;
    }
    // A hidden input tied to a destination that the parser leaves empty: it is that destination's old value.
    const auto t = ops[k].tied;
    if (ops[k].is_printed() || t < 0 || static_cast<std::size_t>(t) >= in.ops.size() || !in.ops[t].is_reg()) continue;
    if (is_dpp(f) && !dpp_reads_old(in)) continue;
    for (unsigned u : units_of(in.ops[t].reg)) rd.push_back(u);
  }
  for (unsigned u : implicit_units(real_implicit_uses(in))) rd.push_back(u);
}

}  // namespace detail

/// Every instruction of the kernel entered at block `entry` of `g` (built from `p`) that reads a unit which, on some
/// path from the entry, nothing wrote before it and `defined_at_entry` does not hold. One finding per instruction
/// (rule "undef:read", severity warning: production code is known to read garbage on purpose where the result is
/// masked off later, and a static check cannot see that), naming the registers; `kernel` goes into the message.
/// At most `max` findings, the first in program order.
[[nodiscard]] inline Findings check_undefined_reads(const Program& p, const Cfg& g, std::uint32_t entry,
                                                    const UnitSet& defined_at_entry, std::string_view kernel,
                                                    std::size_t max = 32) {
  Findings out;
  // Transfer of one block: `u` is the may-be-undefined set at its start; reports when `report` is set.
  std::vector<unsigned> rd, rd_all, wr;
  auto transfer = [&](std::uint32_t b, UnitSet u, bool report) {
    for (const std::uint32_t item : g.blocks[b].insts) {
      const Inst& in = p.items[item].inst;
      const auto& f = detail::form_of(in);
      rd.clear();
      detail::input_units(in, rd);
      if (report && out.size() < max) {
        std::vector<unsigned> bad;
        for (const unsigned x : rd)
          if (x < detail::num_units && u.test(x) && std::find(bad.begin(), bad.end(), x) == bad.end()) bad.push_back(x);
        if (!bad.empty()) {
          std::sort(bad.begin(), bad.end());
          std::string regs;
          for (const unsigned x : bad) regs += (regs.empty() ? "" : ", ") + detail::unit_name(x);
          Finding fd;
          fd.rule = "undef:read";
          fd.severity = Severity::warning;
          fd.at = in.id;
          fd.message = "kernel '" + std::string(kernel) + "': i" + std::to_string(in.id.value) + " (" +
                       std::string(f.mnemonic) + ") reads " + regs +
                       ", which no instruction writes before it on some path from the entry and the launch does not "
                       "set: on hardware it holds whatever an earlier wave left";
          out.push_back(std::move(fd));
        }
      }
      if (f.has(isa::prop::call)) {
        u.reset();
        continue;
      }
      rd_all.clear();
      wr.clear();
      detail::unit_rw(in, rd_all, wr);
      for (const unsigned x : wr)
        if (x < detail::num_units) u.reset(x);
    }
    return u;
  };

  // Forward to a fixed point over the reachable blocks (union at joins), then one reporting pass.
  detail::forward_union(g, entry, ~defined_at_entry, transfer);
  return out;
}

}  // namespace asmevo::analysis
