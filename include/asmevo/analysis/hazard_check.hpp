// Static wait-state (hazard) check: the rows of analysis/hazard_rules.hpp applied over every CFG path into each
// instruction, counting wait states exactly as the emulator's run-time check does (emu/hazards.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/findings.hpp"
#include "asmevo/analysis/hazard_rules.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::analysis {

namespace hazard_detail {

/// The operand index of `form` named `name` (the first such), or -1.
[[nodiscard]] inline int operand_named(std::span<const isa::OperandInfo> infos, std::size_t n, std::string_view name) {
  for (std::size_t k = 0; k < n; ++k)
    if (infos[k].name == name) return static_cast<int>(k);
  return -1;
}

/// HW_REG id of an s_setreg/s_getreg operand: bits 5:0 of its value, or of `hwreg(HW_REG_NAME | id, ...)` (MI300 ISA
/// (CDNA3) §4.4 "S_GETREG/S_SETREG hardware register ID"; the names LLVM's AMDGPUAsmUtils accepts on gfx9). -1 when
/// the operand says nothing readable.
[[nodiscard]] inline std::int32_t hwreg_id(const Operand& o) {
  if (o.kind == Operand::Kind::imm) return static_cast<std::int32_t>(o.imm & 0x3f);
  if (o.kind != Operand::Kind::text) return -1;
  std::string_view s = o.text;
  const auto open = s.find('(');
  if (open == std::string_view::npos || s.substr(0, open).find("hwreg") == std::string_view::npos) return -1;
  s.remove_prefix(open + 1);
  s = s.substr(0, std::min(s.find(','), s.find(')')));
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  struct Named {
    std::string_view name;
    std::int32_t id;
  };
  constexpr Named ids[] = {{"HW_REG_MODE", 1},         {"HW_REG_STATUS", 2},        {"HW_REG_TRAPSTS", 3},
                           {"HW_REG_HW_ID", 4},        {"HW_REG_GPR_ALLOC", 5},     {"HW_REG_LDS_ALLOC", 6},
                           {"HW_REG_IB_STS", 7},       {"HW_REG_SH_MEM_BASES", 15}, {"HW_REG_TBA_LO", 16},
                           {"HW_REG_TBA_HI", 17},      {"HW_REG_TMA_LO", 18},       {"HW_REG_TMA_HI", 19},
                           {"HW_REG_FLAT_SCR_LO", 20}, {"HW_REG_FLAT_SCR_HI", 21},  {"HW_REG_XNACK_MASK", 22},
                           {"HW_REG_POPS_PACKER", 25}, {"HW_REG_SHADER_CYCLES", 29}};
  for (const auto& n : ids)
    if (n.name == s) return n.id;
  std::int64_t v = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return -1;
  for (const char ch : s) {
    const int d = ch >= '0' && ch <= '9'   ? ch - '0'
                  : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                  : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                           : 99;
    if (d >= base) return -1;
    v = v * base + d;
    if (v > 63) return -1;
  }
  return static_cast<std::int32_t>(v);
}

// Scalar register codes as the hazard rows number them (MI300 ISA (CDNA3) §4.1; gfx9 TTMP0 = 108).
inline constexpr std::uint16_t code_ttmp0 = 108;
inline constexpr unsigned agpr_row0 = 256;
/// Operand slots the emulator's predecoder keeps per instruction (emu::Op::slots): operands beyond are not seen by
/// its hazard facts either.
inline constexpr std::size_t max_slots = 14;

/// A register operand as a hazard reference (count 0 when it is not a GPR the rules track: SCC, VCCZ, EXECZ,
/// apertures and other read-only sources of code >= 128).
[[nodiscard]] inline HazardRef ref_of(const Reg& r) {
  HazardRef x;
  const auto dw = static_cast<std::uint16_t>(std::max<std::uint16_t>(r.dwords, 1));
  switch (r.file) {
    case RegFile::vgpr: return HazardRef{true, r.index, dw, 0};
    case RegFile::agpr: return HazardRef{true, static_cast<std::uint16_t>(agpr_row0 + r.index), dw, 0};
    case RegFile::sgpr: x = HazardRef{false, r.index, dw, 0}; break;
    case RegFile::ttmp: x = HazardRef{false, static_cast<std::uint16_t>(code_ttmp0 + r.index), dw, 0}; break;
    case RegFile::special:
      if (r.index == special::src_scc || r.index == special::scc || r.index == special::src_vccz ||
          r.index == special::src_execz || r.index == special::src_lds_direct ||
          r.index == special::src_pops_exiting_wave_id)
        return HazardRef{};
      x = HazardRef{false, r.index, dw, 0};
      break;
  }
  return x.first >= 128 ? HazardRef{} : x;
}

/// Whether a register operand is an SGPR-like scalar source (what makes a MUBUF soffset "an SGPR").
[[nodiscard]] inline bool scalar_reg(const Operand& o) {
  if (o.kind != Operand::Kind::reg) return false;
  const Reg& r = o.reg;
  if (r.file == RegFile::sgpr || r.file == RegFile::ttmp) return true;
  return r.file == RegFile::special && r.index != special::src_scc && r.index != special::scc &&
         r.index != special::src_vccz && r.index != special::src_execz && r.index != special::src_lds_direct &&
         r.index != special::src_pops_exiting_wave_id;
}

[[nodiscard]] inline std::uint16_t role_of(std::string_view name) noexcept {
  if (name == "src0") return role::src0;
  if (name == "src1") return role::src1;
  if (name == "src2") return role::src2;
  return 0;
}

}  // namespace hazard_detail

/// The hazard facts of one instruction on `t`: classes from its form, register references with their operand roles
/// (explicit operands in the form's order, then the implicit EXEC/VCC/M0 uses and defs), and the classes that
/// depend on operand values (gfx950 f8f6f4 pass counts, dst_sel, GDS, wide stores, the HW_REG id). The same facts
/// the emulator derives from its predecoded instruction (emu::hazard_facts), so both checks agree.
[[nodiscard]] inline HazardFacts hazard_facts(const Inst& in, Target t) {
  namespace hd = hazard_detail;
  HazardFacts f;
  const auto all = isa::forms(t);
  if (in.form >= all.size()) return f;
  const isa::FormInfo& form = all[in.form];
  f.form = &form;
  f.op = op_of(t, in.form);
  f.cls = hazard_class(form, f.op, t);
  f.passes = hazard_passes(form, f.op, t);
  const auto infos = isa::operands(form);
  const std::size_t n = std::min({in.ops.size(), infos.size(), hd::max_slots});
  auto op = [&](std::string_view name) -> const Operand* {
    const int k = hd::operand_named(infos, n, name);
    return k < 0 ? nullptr : &in.ops[static_cast<std::size_t>(k)];
  };
  auto present = [&](std::string_view name) {
    const Operand* o = op(name);
    return o && o->present();
  };
  auto imm = [&](std::string_view name) -> std::uint64_t {
    const Operand* o = op(name);
    return o && (o->kind == Operand::Kind::imm || o->kind == Operand::Kind::list) ? static_cast<std::uint64_t>(o->imm)
                                                                                  : 0;
  };
  // gfx950's f8f6f4 forms: the pass count depends on the formats cbsz/blgp select (MfmaInfo::passes_for).
  if (f.passes && (present("cbsz") || present("blgp")))
    if (const MfmaInfo* mi = mfma_info(op_of(t, in.form), t); mi && mi->passes_narrow) {
      f.passes = mi->passes_for(static_cast<unsigned>(imm("cbsz")), static_cast<unsigned>(imm("blgp")));
      if (f.passes == 2) f.cls |= hz::two_pass;
    }
  const bool store = form.has(isa::prop::store) || form.has(isa::prop::atomic);
  const bool short_form =
      form.variant == isa::Variant::e32 || form.variant == isa::Variant::dpp || form.variant == isa::Variant::sdwa;
  bool wide_data = false;
  for (std::size_t k = 0; k < n; ++k) {
    const isa::OperandInfo& oi = infos[k];
    const Operand& o = in.ops[k];
    HazardRef r;
    if (o.kind == Operand::Kind::reg) {
      r = hd::ref_of(o.reg);
    } else if (o.kind == Operand::Kind::absent && short_form &&
               ((oi.name == "sdst" && (form.implicit_defs & isa::reg::vcc)) ||
                (oi.name == "src2" && (form.implicit_uses & isa::reg::vcc)))) {
      // The implicit VCC of a VOP1/VOP2/VOPC encoding stands in an operand slot the text leaves out (as the
      // predecoder fills it).
      r = HazardRef{false, special::vcc_lo, 2, 0};
    }
    if (!r.count) continue;
    std::uint16_t roles = oi.role == isa::Role::def ? role::def : role::use;
    roles |= hd::role_of(oi.name);
    if ((f.cls & hz::mask_reader) && oi.role == isa::Role::use && oi.name == "src2") roles |= role::mask_in;
    if (store && oi.role == isa::Role::use && r.vector &&
        (oi.name == "vdata" || oi.name == "data0" || oi.name == "data1" || oi.name == "data")) {
      roles |= role::data;
      wide_data |= oi.bits > 64;
    }
    r.roles = roles;
    f.add(r);
  }
  auto implicit = [&](std::uint32_t bits, std::uint16_t r) {
    const auto ri = static_cast<std::uint16_t>(r | role::implicit);
    if (bits & isa::reg::exec) f.add(HazardRef{false, special::exec_lo, 2, ri});
    if (bits & isa::reg::vcc) f.add(HazardRef{false, special::vcc_lo, 2, ri});
    if (bits & isa::reg::m0) f.add(HazardRef{false, special::m0, 1, ri});
  };
  // The implicit VCC of v_addc/v_subb/v_subbrev/v_cndmask e32 is their carry-in / lane mask.
  implicit(form.implicit_uses,
           (f.cls & hz::mask_reader) ? static_cast<std::uint16_t>(role::use | role::mask_in) : role::use);
  implicit(form.implicit_defs, role::def);

  if (f.cls & (hz::setreg | hz::getreg))
    if (const Operand* o = op("simm16")) f.hwreg = o->present() ? hd::hwreg_id(*o) : 0;
  // A DS operation with gds:1 reads M0 as the GDS base (LLVM GCNHazardRecognizer isSendMsgTraceDataOrGDS).
  if ((f.cls & hz::ds) && imm("gds")) f.cls |= hz::m0_msg;
  // Stores of more than 64 bits of data (LLVM createsVALUHazard): FLAT/GLOBAL/SCRATCH always, MUBUF/MTBUF only
  // when soffset is not an SGPR.
  if (store && wide_data && (f.cls & hz::vmem)) {
    const Operand* so = op("soffset");
    if (form.has(isa::prop::flat) || !so || !hd::scalar_reg(*so)) f.cls |= hz::wide_store;
  }
  // A VALU writing part of its destination (LLVM checkVALUHazards, hasDstSelForwardingHazard): SDWA dst_sel other
  // than DWORD (6, the default), or a VOP3 op_sel with the destination bit (after the sources in the IR's list, bit 3
  // in the encoded field, MI300 ISA (CDNA3) §12 VOP3 OPSEL). A packed VALU with op_sel_hi[0] set is the producer of
  // the row packed_result_valu_read (absent, op_sel_hi is all ones but for the fma_mix/mad_mix forms, where it is 0:
  // LLVM AMDGPUAsmParser cvtVOP3P).
  if (f.cls & hz::valu) {
    if (const Operand* hi = op("op_sel_hi"); hi && form.format == isa::Format::VOP3P && !form.has(isa::prop::mfma)) {
      const bool mix = family_of(op_of(t, in.form)) == Family::v_mix;
      if (hi->present() ? (imm("op_sel_hi") & 1) != 0 : !mix) f.cls |= hz::packed_hi;
    }
    if (form.variant == isa::Variant::sdwa && present("dst_sel") && imm("dst_sel") != 6) f.cls |= hz::dst_sel;
    if (form.format == isa::Format::VOP3 && present("op_sel")) {
      const unsigned nsrc = present("src0") + present("src1") + present("src2");
      const std::uint64_t sel = imm("op_sel");
      if (((sel >> nsrc) & 1) || ((sel >> 3) & 1)) f.cls |= hz::dst_sel;
    }
  }
  return f;
}

/// Wait states one instruction counts as: 1, or N + 1 for `s_nop N` (MI300 ISA (CDNA3) §4.5 "Manually Inserted Wait
/// States (NOPs)" and S_NOP: SIMM16[3:0] + 1; LLVM SIInstrInfo::getNumWaitStates).
[[nodiscard]] inline unsigned hazard_wait_states(const Inst& in, Target t) {
  if (op_of(t, in.form) != op::s_nop) return 1;  // Opcode::invalid for a form outside the table
  const auto infos = isa::operands(isa::forms(t)[in.form]);
  const int k = hazard_detail::operand_named(infos, std::min(infos.size(), in.ops.size()), "simm16");
  if (k < 0 || in.ops[static_cast<std::size_t>(k)].kind != Operand::Kind::imm) return 1;
  return static_cast<unsigned>(in.ops[static_cast<std::size_t>(k)].imm & 0xf) + 1;
}

namespace hazard_detail {

/// Per instruction of the program (by item index): facts and rule masks, as the emulator's HazardTable holds them.
struct CheckTable {
  TargetRules rules;
  std::vector<HazardFacts> facts;
  std::vector<std::uint64_t> prod, cons;
  std::vector<std::uint8_t> wait, max_need, window;
  std::vector<std::uint8_t> hider;  ///< hazard_hiding_writer
  std::uint64_t grouped = 0;
  std::uint64_t hiding = 0;  ///< rules (bits) with HazardRule::any_writer_hides
};

/// One backward walk in progress: the block and the instruction position above which it continues, the wait states
/// issued between there and the consumer, and the per-operand search state (as emu::detail::hazard_walk keeps it).
struct Walk {
  std::uint32_t block = 0;
  std::uint32_t pos = 0;  ///< instructions of `block` below this index have not been visited yet
  std::uint32_t dist = 0;
  std::uint64_t touched = 0, done = 0;
  std::array<std::uint32_t, 8> group_refs{};
  std::array<std::uint32_t, 64> rule_refs{};
  SgprSet written;  ///< SGPRs a hiding writer set between here and the consumer (HazardRule::any_writer_hides)

  [[nodiscard]] bool same_search(const Walk& o) const noexcept {
    if (block != o.block || pos != o.pos || dist != o.dist || touched != o.touched || done != o.done ||
        group_refs != o.group_refs || written != o.written)
      return false;
    for (std::uint64_t m = touched; m; m &= m - 1) {
      const unsigned b = static_cast<unsigned>(std::countr_zero(m));
      if (rule_refs[b] != o.rule_refs[b]) return false;
    }
    return true;
  }
};

/// The closest approach of one (rule, producer) pair to a consumer over the paths walked.
struct Hit {
  std::uint32_t dist = 0;
  int need = 0;
  HazardRef reg{};
};

[[nodiscard]] inline std::string reg_text(const HazardRef& r) {
  if (!r.count) return {};
  if (r.vector) return r.first >= agpr_row0 ? "a" + std::to_string(r.first - agpr_row0) : "v" + std::to_string(r.first);
  switch (r.first) {
    case special::vcc_lo: return "vcc_lo";
    case special::vcc_hi: return "vcc_hi";
    case special::exec_lo: return "exec_lo";
    case special::exec_hi: return "exec_hi";
    case special::m0: return "m0";
    case special::flat_scratch_lo: return "flat_scratch_lo";
    case special::flat_scratch_hi: return "flat_scratch_hi";
    case special::xnack_mask_lo: return "xnack_mask_lo";
    case special::xnack_mask_hi: return "xnack_mask_hi";
    default: break;
  }
  if (r.first >= code_ttmp0 && r.first < code_ttmp0 + 16) return "ttmp" + std::to_string(r.first - code_ttmp0);
  return "s" + std::to_string(r.first);
}

}  // namespace hazard_detail

namespace hazard_detail {

/// The soft-clause findings (analysis::soft_clause_hazard, LLVM checkSoftClauseHazards) of the reachable blocks
/// `order` of `g`: for each SMEM or VMEM/FLAT instruction, every path backwards through the instructions issued
/// directly before it (the block above it, then the last instruction of each reachable predecessor, and so on while
/// they are of its clause kind) gives one clause; one that breaks LLVM's condition is a Finding
/// "hazard:xnack_soft_clause" at the instruction, `other` = the member it conflicts with (the nearest member that
/// writes, for a store). A clause that reaches the kernel entry ends there. As in LLVM only the nearest
/// soft_clause_window members count (19 when the kernel names a0, else 5).
inline void check_soft_clauses(const Program& p, const Cfg& g, std::span<const std::uint32_t> order,
                               const std::vector<std::uint8_t>& reachable, const std::vector<HazardFacts>& facts,
                               Findings& out) {
  bool a0 = false;
  for (const std::uint32_t blk : order)
    for (const std::size_t i : g.blocks[blk].insts) a0 = a0 || uses_a0(facts[i]);
  const std::size_t max_members = soft_clause_window(a0);
  struct Path {
    std::uint32_t block, pos;          // continue above instruction `pos` of `block`
    std::vector<std::size_t> members;  // item indices, nearest first
  };
  for (const std::uint32_t blk : order) {
    const auto& insts = g.blocks[blk].insts;
    for (std::uint32_t k = 0; k < insts.size(); ++k) {
      const std::size_t ci = insts[k];
      const HazardFacts& c = facts[ci];
      const ClauseKind kind = soft_clause_kind(c);
      if (kind == ClauseKind::none) continue;
      std::vector<Path> stack{Path{blk, k, {}}};
      std::size_t partner = ~std::size_t{0};
      std::size_t guard = 0;
      while (!stack.empty() && partner == ~std::size_t{0} && ++guard < 4096) {
        Path w = std::move(stack.back());
        stack.pop_back();
        bool open = true;
        for (std::uint32_t j = w.pos; j-- > 0;) {
          const std::size_t mi = g.blocks[w.block].insts[j];
          if (soft_clause_kind(facts[mi]) != kind || w.members.size() >= max_members) {
            open = false;
            break;
          }
          w.members.push_back(mi);
        }
        if (open && w.members.size() < max_members) {
          // The top of the block: the clause goes on into each reachable predecessor whose last instruction is of
          // its kind (a fall-through; a branch is an SALU and ends it). Only the longest paths are evaluated: a
          // clause's condition only grows with its members.
          bool more = false;
          for (const std::uint32_t pb : g.pred[w.block]) {
            if (!reachable[pb] || g.blocks[pb].insts.empty()) continue;
            const std::size_t last = g.blocks[pb].insts.back();
            if (soft_clause_kind(facts[last]) != kind || last == ci) continue;
            if (std::find(w.members.begin(), w.members.end(), last) != w.members.end()) continue;  // a cycle
            stack.push_back(Path{pb, static_cast<std::uint32_t>(g.blocks[pb].insts.size()), w.members});
            more = true;
          }
          if (more) continue;
        }
        if (w.members.empty()) continue;
        SoftClause cl;
        for (auto it = w.members.rbegin(); it != w.members.rend(); ++it) cl.add(facts[*it]);
        if (!soft_clause_hazard(cl, c)) continue;
        // The member to name: for a store the nearest member that writes; otherwise the nearest member whose
        // writes this instruction reads or whose reads it overwrites, else (a conflict of the instruction with
        // itself, or among the members) the nearest member that writes.
        const ClauseRegs cr(c);
        std::size_t writer = ~std::size_t{0};
        for (const std::size_t mi : w.members) {
          const ClauseRegs mr(facts[mi]);
          if (writer == ~std::size_t{0} && mr.defs.any()) writer = mi;
          if (!soft_clause_store(c) && (mr.defs.meets(cr.uses) || cr.defs.meets(mr.uses))) {
            partner = mi;
            break;
          }
        }
        if (partner == ~std::size_t{0}) partner = writer;
      }
      if (partner == ~std::size_t{0}) continue;
      const Inst& cin = p.items[ci].inst;
      const Inst& pin = p.items[partner].inst;
      Finding fd;
      fd.rule = "hazard:" + std::string(soft_clause_rule);
      fd.severity = soft_clause_contested.empty() ? Severity::error : Severity::warning;
      fd.at = cin.id;
      fd.other = pin.id;
      fd.message = "i" + std::to_string(cin.id.value) + " (" + std::string(c.mnemonic()) +
                   ") issues 0 wait states after i" + std::to_string(pin.id.value) + " (" +
                   std::string(facts[partner].mnemonic()) + ") on some path, in the same soft clause; rule " +
                   std::string(soft_clause_rule) + " requires 1: " + std::string(soft_clause_text) + " [" +
                   std::string(soft_clause_source) + "]" +
                   (soft_clause_contested.empty() ? std::string()
                                                  : "; a warning: AMD's production kernels do the same (" +
                                                        std::string(soft_clause_contested) + ")");
      out.push_back(std::move(fd));
    }
  }
}

}  // namespace hazard_detail

/// Checks the wait-state rules of `t` over every path from block `entry_block` of `g` (the CFG of `p`) into each
/// reachable instruction. For each instruction that can be the consumer of a rule, every backward path (through
/// CFG predecessors, loop back edges included, up to the largest distance any of its rules requires) is searched
/// for the nearest producer of each consumer operand -- per rule, or per group of rules (HazardRule::group) -- and
/// the wait states issued in between are counted as the hardware counts them (each instruction 1, `s_nop N` N + 1).
/// For the rows with HazardRule::any_writer_hides a nearer writer of a consumer SGPR, of any kind, hides older
/// producers of it. A path that starts at the kernel entry has no earlier producer. Fewer wait states than the rule
/// requires on some path is a Finding "hazard:<row name>" at the consumer, `other` = the producer, with the
/// smallest count found: Severity::warning for a row AMD's own kernels break (HazardRule::contested; the message
/// says so), Severity::error otherwise. The same search as the emulator's run-time check (emu::detail::hazard_walk)
/// applied to all paths at once.
[[nodiscard]] ASMEVO_OUTLINE Findings check_hazards(const Program& p, const Cfg& g, std::uint32_t entry_block, Target t,
                                           bool xnack = true)
#if ASMEVO_BODY_ANALYSIS
{
  namespace hd = hazard_detail;
  Findings out;
  if (entry_block >= g.blocks.size()) return out;
  const std::vector<std::uint32_t> order = g.reverse_post_order(entry_block);
  std::vector<std::uint8_t> reachable(g.blocks.size(), 0);
  for (const std::uint32_t b : order) reachable[b] = 1;

  // Facts and rule masks of every reachable instruction.
  hd::CheckTable tb;
  tb.rules = target_rules(t);
  const std::size_t nitems = p.items.size();
  tb.facts.resize(nitems);
  tb.prod.assign(nitems, 0);
  tb.cons.assign(nitems, 0);
  tb.wait.assign(nitems, 1);
  tb.max_need.assign(nitems, 0);
  tb.window.assign(nitems, 0);
  tb.hider.assign(nitems, 0);
  for (std::size_t b = 0; b < tb.rules.count; ++b) {
    if (hazard_rules[tb.rules.index[b]].group) tb.grouped |= 1ull << b;
    if (hazard_rules[tb.rules.index[b]].any_writer_hides) tb.hiding |= 1ull << b;
  }
  auto has_sel = [](const RegSel& sel, const HazardFacts& f) {
    if (sel.file == RegSel::File::none) return true;
    for (std::size_t k = 0; k < f.nrefs; ++k)
      if (detail::select(sel, f.refs[k]).count) return true;
    return false;
  };
  std::array<std::uint8_t, 64> rule_max{};
  std::uint64_t produced = 0;
  for (const std::uint32_t blk : order)
    for (const std::size_t i : g.blocks[blk].insts) {
      const Inst& in = p.items[i].inst;
      const HazardFacts& f = tb.facts[i] = hazard_facts(in, t);
      tb.wait[i] = static_cast<std::uint8_t>(hazard_wait_states(in, t));
      tb.hider[i] = hazard_hiding_writer(f);
      if (!f.form) continue;
      for (std::size_t b = 0; b < tb.rules.count; ++b) {
        const HazardRule& r = hazard_rules[tb.rules.index[b]];
        if (producer_matches(r, f) && has_sel(r.prod, f)) {
          tb.prod[i] |= 1ull << b;
          const auto need = static_cast<std::uint8_t>(required_wait_states(r, f));
          tb.max_need[i] = std::max(tb.max_need[i], need);
          rule_max[b] = std::max(rule_max[b], need);
          produced |= 1ull << b;
        }
        if (consumer_matches(r, f) && has_sel(r.cons, f)) tb.cons[i] |= 1ull << b;
      }
    }
  for (const std::uint32_t blk : order)
    for (const std::size_t i : g.blocks[blk].insts) {
      tb.cons[i] &= produced;
      for (std::uint64_t m = tb.cons[i]; m; m &= m - 1)
        tb.window[i] = std::max(tb.window[i], rule_max[static_cast<unsigned>(std::countr_zero(m))]);
    }

  std::vector<hd::Walk> stack, seen;
  std::map<std::tuple<std::uint32_t, std::size_t>, hd::Hit> hits;  // (rule bit, producer item) -> closest
  for (const std::uint32_t blk : order) {
    const auto& insts = g.blocks[blk].insts;
    for (std::uint32_t k = 0; k < insts.size(); ++k) {
      const std::size_t ci = insts[k];
      const std::uint64_t cmask = tb.cons[ci];
      if (!cmask) continue;
      const HazardFacts& c = tb.facts[ci];
      const std::uint32_t window = tb.window[ci];
      const bool hides = (cmask & tb.hiding) != 0;
      const std::uint32_t all_refs = c.nrefs >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << c.nrefs) - 1;
      hits.clear();
      seen.clear();
      stack.clear();
      hd::Walk start;
      start.block = blk;
      start.pos = k;
      stack.push_back(start);
      while (!stack.empty()) {
        hd::Walk w = stack.back();
        stack.pop_back();
        const auto& bi = g.blocks[w.block].insts;
        bool open = true;  // the walk has not yet passed the window
        for (std::uint32_t j = w.pos; j-- > 0;) {
          if (w.dist >= window) {
            open = false;
            break;
          }
          const std::size_t pi = bi[j];
          std::uint64_t m = cmask & tb.prod[pi] & ~w.done;
          // As the emulator: past the largest distance its rules require, a producer only still matters as the
          // nearest producer of a grouped search (hiding older ones).
          if (w.dist >= tb.max_need[pi]) m &= tb.grouped;
          std::array<std::uint32_t, 8> seen_refs{};
          while (m) {
            const unsigned b = static_cast<unsigned>(std::countr_zero(m));
            m &= m - 1;
            const HazardRule& r = hazard_rules[tb.rules.index[b]];
            const unsigned gr = r.group & 7u;
            std::uint32_t skip;
            if (gr) {
              skip = w.group_refs[gr];
            } else {
              if (!((w.touched >> b) & 1)) w.rule_refs[b] = 0;
              w.touched |= 1ull << b;
              skip = w.rule_refs[b];
            }
            if ((skip & all_refs) == all_refs && c.nrefs) continue;
            const HazardFacts& pf = tb.facts[pi];
            const HazardMatch rel = relate(r, pf, c, skip, &w.written);
            if (!rel.overlaps) continue;
            if (gr) {
              seen_refs[gr] |= rel.cons_refs;
            } else {
              w.rule_refs[b] |= rel.cons_refs;
              if ((w.rule_refs[b] & all_refs) == all_refs) w.done |= 1ull << b;
            }
            if (!rel.related) continue;
            const int need = required_wait_states(r, pf);
            if (w.dist < static_cast<std::uint32_t>(need)) {
              auto [it, fresh] = hits.try_emplace({b, pi}, hd::Hit{w.dist, need, rel.reg});
              if (!fresh && w.dist < it->second.dist) it->second = hd::Hit{w.dist, need, rel.reg};
            }
          }
          for (unsigned gr = 1; gr < 8; ++gr) w.group_refs[gr] |= seen_refs[gr];
          if (hides && tb.hider[pi]) add_hiding_writes(w.written, tb.facts[pi]);
          w.dist += tb.wait[pi];
        }
        if (!open || w.dist >= window) continue;
        // The top of the block: the kernel entry ends this path (no earlier producer); every reachable predecessor
        // continues it (a loop's back edge included), once per distinct search state.
        for (const std::uint32_t pb : g.pred[w.block]) {
          if (!reachable[pb]) continue;
          hd::Walk next = w;
          next.block = pb;
          next.pos = static_cast<std::uint32_t>(g.blocks[pb].insts.size());
          bool dup = false;
          for (const hd::Walk& s : seen)
            if (s.same_search(next)) {
              dup = true;
              break;
            }
          if (dup) continue;
          seen.push_back(next);
          stack.push_back(next);
        }
      }
      // Report, nearest first per consumer.
      std::vector<std::pair<std::tuple<std::uint32_t, std::size_t>, hd::Hit>> sorted(hits.begin(), hits.end());
      std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.second.dist < b.second.dist;
      });
      const Inst& cin = p.items[ci].inst;
      for (const auto& [key, h] : sorted) {
        const auto [b, pi] = key;
        const HazardRule& r = hazard_rules[tb.rules.index[b]];
        const Inst& pin = p.items[pi].inst;
        const HazardFacts& pf = tb.facts[pi];
        Finding fd;
        fd.rule = "hazard:" + std::string(r.name);
        // Rows AMD's own production kernels break are warnings (HazardRule::contested), all others errors.
        fd.severity = r.contested.empty() ? Severity::error : Severity::warning;
        fd.at = cin.id;
        fd.other = pin.id;
        const std::string what = hd::reg_text(h.reg);
        fd.message = "i" + std::to_string(cin.id.value) + " (" + std::string(c.mnemonic()) + ") issues " +
                     std::to_string(h.dist) + " wait state" + (h.dist == 1 ? "" : "s") + " after i" +
                     std::to_string(pin.id.value) + " (" + std::string(pf.mnemonic()) +
                     (pf.passes ? ", " + std::to_string(pf.passes) + " passes" : std::string()) + ")" +
                     (what.empty() ? std::string() : " through " + what) + " on some path; rule " +
                     std::string(r.name) + " requires " + std::to_string(h.need) + ": " + std::string(r.text) +
                     " [" + std::string(r.source) + "]" +
                     (r.contested.empty() ? std::string()
                                          : "; a warning: AMD's production kernels do the same (" +
                                                std::string(r.contested) + ")");
        out.push_back(std::move(fd));
      }
    }
  }
  if (xnack) hazard_detail::check_soft_clauses(p, g, order, reachable, tb.facts, out);
  return out;
}
#else
;
#endif

/// Whether `p`'s `.amdgcn_target` id has XNACK on or "any" (xnack_enabled); true when it declares none.
[[nodiscard]] inline bool program_xnack(const Program& p) {
  for (const Item& it : p.items)
    if (it.kind == Item::Kind::directive && it.name == ".amdgcn_target") return xnack_enabled(it.text);
  return true;
}

/// Checks every kernel of `p` (each `.amdhsa_kernel` whose name labels a block; the first block when there is
/// none) on the program's target. Findings of code shared by several kernels are reported once.
[[nodiscard]] inline Findings check_hazards(const Program& p) {
  const Cfg g = build_cfg(p);
  std::vector<std::uint32_t> entries;
  for (const Item& it : p.items)
    if (it.kind == Item::Kind::kernel)
      if (const auto b = g.block_named(it.kernel.name)) entries.push_back(*b);
  if (entries.empty() && !g.blocks.empty()) entries.push_back(0);
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  Findings out;
  const bool xnack = program_xnack(p);
  for (const std::uint32_t e : entries)
    for (Finding& f : check_hazards(p, g, e, p.target, xnack)) {
      const bool dup = std::any_of(out.begin(), out.end(), [&](const Finding& o) {
        return o.rule == f.rule && o.at == f.at && o.other == f.other;
      });
      if (!dup) out.push_back(std::move(f));
    }
  return out;
}

}  // namespace asmevo::analysis
