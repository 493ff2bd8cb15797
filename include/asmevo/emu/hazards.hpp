// Checks the wait-state rules of analysis/hazard_rules.hpp as instructions run: a per-wave history of recent
// producers and the Machine::hooks.before hook that stops a wave whose instruction issues too close to one.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "asmevo/analysis/hazard_rules.hpp"
#include "asmevo/emu/machine.hpp"
#include "asmevo/ir/op.hpp"

// The rules live in analysis/ (a static checker applies them too); the emulator and its tests keep naming them
// verify::.
namespace asmevo::verify {
namespace hz = analysis::hz;
namespace role = analysis::role;
namespace tg = analysis::tg;
using analysis::class_matches;
using analysis::consumer_matches;
using analysis::hazard_class;
using analysis::hazard_passes;
using analysis::hazard_rules;
using analysis::hazard_rules_not_covered;
using analysis::HazardFacts;
using analysis::HazardMatch;
using analysis::HazardRef;
using analysis::HazardRule;
using analysis::max_wait_states;
using analysis::Overlap;
using analysis::producer_matches;
using analysis::RegSel;
using analysis::relate;
using analysis::required_wait_states;
using analysis::SameOp;
using analysis::target_bit;
using analysis::target_rules;
using analysis::TargetRules;
}  // namespace asmevo::verify

namespace asmevo::emu {
using analysis::mfma_info;
using analysis::MfmaInfo;
using analysis::MfmaType;

/// What the hazard check needs of one instruction on every step, packed so that a step touches one cache line.
struct HazardOpInfo {
  std::uint64_t prod = 0;          ///< rules the instruction can be the producer of (bit b = TargetRules::index[b])
  std::uint64_t cons = 0;          ///< rules it can be the consumer of
  std::uint8_t wait_states = 1;    ///< wait states it counts as (s_nop N: N + 1)
  std::uint8_t max_need = 0;       ///< the largest distance any of its producer rules requires
  /// The largest distance any of its consumer rules can require from a producer of this kernel; the history walk
  /// stops there (no older producer can be too close).
  std::uint8_t cons_window = 0;
  /// It writes SGPRs that hide an older VALU write from the rows with HazardRule::any_writer_hides (set only when
  /// the kernel has a consumer of such a row): remembered in the history although it produces nothing.
  std::uint8_t hider = 0;
  /// Its soft-clause kind (analysis::ClauseKind): SMEM, VMEM/FLAT or none.
  std::uint8_t clause = 0;
};

/// The hazard facts of every instruction of a kernel, computed once per launch and shared by its waves.
struct HazardTable {
  Target target = Target::gfx942;
  verify::TargetRules rules;                ///< the rows of the target (bit b of a mask = rules.index[b])
  std::vector<verify::HazardFacts> facts;   ///< by Op index
  std::vector<HazardOpInfo> ops;            ///< by Op index
  std::uint64_t window = 0;                 ///< the largest distance any rule requires
  std::uint64_t grouped = 0;                ///< rules (bits) that belong to a group (verify::HazardRule::group)
  std::uint64_t hiding = 0;                 ///< rules (bits) with analysis::HazardRule::any_writer_hides
  /// The target id has XNACK on or "any" (analysis::xnack_enabled): soft clauses are checked
  /// (analysis::soft_clause_hazard, LLVM checkSoftClauseHazards).
  bool xnack = true;
  /// How many members of a clause, nearest first, an instruction is compared with (analysis::soft_clause_window:
  /// 19 when the code names a0, else 5).
  unsigned clause_window = 5;
};

namespace detail {
[[nodiscard]] inline std::uint16_t hazard_role_of(std::string_view name) noexcept {
  if (name == "src0") return verify::role::src0;
  if (name == "src1") return verify::role::src1;
  if (name == "src2") return verify::role::src2;
  return 0;
}
}  // namespace detail

/// The hazard facts of one predecoded instruction: classes from its form, register references with their operand
/// roles (explicit operands from the form's operand list, implicit EXEC/VCC/M0 from its implicit uses and defs), and
/// the operand-dependent classes (dst_sel, GDS, wide stores).
[[nodiscard]] inline verify::HazardFacts hazard_facts(const Op& op, Target t) {
  using namespace verify;
  HazardFacts f;
  if (!op.info) return f;
  const isa::FormInfo& form = *op.info;
  f.form = &form;
  f.op = op.opcode;
  f.cls = hazard_class(form, f.op, t);
  f.passes = hazard_passes(form, f.op, t);
  // gfx950's f8f6f4 forms: the pass count depends on the operand formats cbsz/blgp select (MfmaInfo::passes_for).
  if (f.passes && (op.has(Name::cbsz) || op.has(Name::blgp)))
    if (const MfmaInfo* mi = mfma_info(op.opcode, t); mi && mi->passes_narrow) {
      f.passes = mi->passes_for(static_cast<unsigned>(op.imm(Name::cbsz)), static_cast<unsigned>(op.imm(Name::blgp)));
      if (f.passes == 2) f.cls |= verify::hz::two_pass;
    }
  const auto infos = isa::operands(form);
  const bool store = form.has(isa::prop::store) || form.has(isa::prop::atomic);
  bool wide_data = false;
  const std::size_t n = std::min<std::size_t>({op.nslots, infos.size(), op.slots.size()});
  for (std::size_t k = 0; k < n; ++k) {
    const Slot& s = op.slots[k];
    if (s.kind != Slot::Kind::vgpr && s.kind != Slot::Kind::scalar) continue;
    if (s.kind == Slot::Kind::scalar && s.index >= 128) continue;  // apertures and other read-only sources
    const isa::OperandInfo& oi = infos[k];
    std::uint16_t roles = oi.role == isa::Role::def ? role::def : role::use;
    roles |= detail::hazard_role_of(oi.name);
    if ((f.cls & hz::mask_reader) && oi.role == isa::Role::use && oi.name == "src2") roles |= role::mask_in;
    if (store && oi.role == isa::Role::use && s.kind == Slot::Kind::vgpr &&
        (oi.name == "vdata" || oi.name == "data0" || oi.name == "data1" || oi.name == "data")) {
      roles |= role::data;
      wide_data |= oi.bits > 64;
    }
    f.add(HazardRef{s.kind == Slot::Kind::vgpr, static_cast<std::uint16_t>(s.index),
                    static_cast<std::uint16_t>(std::max<std::uint16_t>(s.dwords, 1)), roles});
  }
  auto implicit = [&](std::uint32_t bits, std::uint16_t r) {
    if (bits & isa::reg::exec) f.add(HazardRef{false, sc::exec, 2, static_cast<std::uint16_t>(r | role::implicit)});
    if (bits & isa::reg::vcc) f.add(HazardRef{false, sc::vcc, 2, static_cast<std::uint16_t>(r | role::implicit)});
    if (bits & isa::reg::m0) f.add(HazardRef{false, sc::m0, 1, static_cast<std::uint16_t>(r | role::implicit)});
  };
  // The implicit VCC of v_addc/v_subb/v_subbrev/v_cndmask e32 is their carry-in / lane mask.
  implicit(form.implicit_uses, (f.cls & hz::mask_reader) ? static_cast<std::uint16_t>(role::use | role::mask_in) : role::use);
  implicit(form.implicit_defs, role::def);

  // s_setreg/s_getreg: HW_REG id = simm16 bits 5:0 (MI300 ISA (CDNA3) §4.4 "S_GETREG/S_SETREG").
  if (f.cls & (hz::setreg | hz::getreg)) f.hwreg = static_cast<std::int32_t>(op.imm(Name::simm16) & 0x3f);
  // A DS operation with gds:1 reads M0 as the GDS base (LLVM isSendMsgTraceDataOrGDS).
  if ((f.cls & hz::ds) && op.has(Name::gds) && op.imm(Name::gds)) f.cls |= hz::m0_msg;
  // Stores of more than 64 bits of data (LLVM createsVALUHazard): FLAT/GLOBAL/SCRATCH always, MUBUF/MTBUF only
  // when soffset is not an SGPR.
  if (store && wide_data && (f.cls & hz::vmem)) {
    const bool flat = form.has(isa::prop::flat);
    if (flat || op.at(Name::soffset).kind != Slot::Kind::scalar) f.cls |= hz::wide_store;
  }
  // A VALU writing part of its destination (LLVM checkVALUHazards, hasDstSelForwardingHazard): SDWA with dst_sel
  // other than DWORD (6), or a VOP3 form whose op_sel sets the destination bit. The IR keeps op_sel as the written
  // list, one bit per source then the destination; the encoded field has the destination at bit 3 (MI300 ISA (CDNA3)
  // §12 VOP3 OPSEL): either is accepted. VOP3P op_sel has no destination bit, but a packed VALU with op_sel_hi[0]
  // set is the producer of packed_result_valu_read (analysis/hazard_rules.hpp; decode fills in the default op_sel_hi).
  if (f.cls & hz::valu) {
    if (form.format == isa::Format::VOP3P && !form.has(isa::prop::mfma) && op.has(Name::op_sel_hi) &&
        (op.imm(Name::op_sel_hi) & 1))
      f.cls |= hz::packed_hi;
    if (form.variant == isa::Variant::sdwa && op.has(Name::dst_sel) && op.imm(Name::dst_sel) != 6) f.cls |= hz::dst_sel;
    if (form.format == isa::Format::VOP3 && op.has(Name::op_sel)) {
      const unsigned nsrc = op.has(Name::src0) + op.has(Name::src1) + op.has(Name::src2);
      const std::uint64_t sel = op.imm(Name::op_sel);
      if (((sel >> nsrc) & 1) || ((sel >> 3) & 1)) f.cls |= hz::dst_sel;
    }
  }
  return f;
}

/// Builds the hazard table of `code` for `t`; `xnack`: the target id has XNACK on or "any" (analysis::xnack_enabled).
[[nodiscard]] inline HazardTable build_hazard_table(const Code& code, Target t, bool xnack = true) {
  HazardTable h;
  h.target = t;
  h.xnack = xnack;
  h.rules = verify::target_rules(t);
  h.window = static_cast<std::uint64_t>(verify::max_wait_states(t));
  const std::size_t n = code.ops.size();
  h.facts.resize(n);
  h.ops.assign(n, HazardOpInfo{});
  // A side with a register selector only takes part when it has such a register (a VALU that writes no SGPR is no
  // producer of the SGPR rules): this keeps the masks, and the work per instruction, small.
  auto has_sel = [](const verify::RegSel& sel, const verify::HazardFacts& f) {
    if (sel.file == verify::RegSel::File::none) return true;
    for (std::size_t k = 0; k < f.nrefs; ++k)
      if (analysis::detail::select(sel, f.refs[k]).count) return true;
    return false;
  };
  for (std::size_t b = 0; b < h.rules.count; ++b) {
    if (verify::hazard_rules[h.rules.index[b]].group) h.grouped |= 1ull << b;
    if (verify::hazard_rules[h.rules.index[b]].any_writer_hides) h.hiding |= 1ull << b;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Op& op = code.ops[i];
    h.facts[i] = hazard_facts(op, t);
    if (!op.info) continue;
    HazardOpInfo& hi = h.ops[i];
    hi.clause = static_cast<std::uint8_t>(analysis::soft_clause_kind(h.facts[i]));
    for (std::size_t b = 0; b < h.rules.count; ++b) {
      const verify::HazardRule& r = verify::hazard_rules[h.rules.index[b]];
      if (verify::producer_matches(r, h.facts[i]) && has_sel(r.prod, h.facts[i])) {
        hi.prod |= 1ull << b;
        hi.max_need = std::max(hi.max_need, static_cast<std::uint8_t>(verify::required_wait_states(r, h.facts[i])));
      }
      if (verify::consumer_matches(r, h.facts[i]) && has_sel(r.cons, h.facts[i])) hi.cons |= 1ull << b;
    }
    // S_NOP: SIMM16[3:0] + 1 wait states (MI300 ISA (CDNA3) §4.5 and S_NOP; LLVM SIInstrInfo::getNumWaitStates).
    if (op.opcode == op::s_nop) hi.wait_states = static_cast<std::uint8_t>((op.imm(Name::simm16) & 0xf) + 1);
  }
  bool a0 = false;
  for (const verify::HazardFacts& f : h.facts) a0 = a0 || analysis::uses_a0(f);
  h.clause_window = analysis::soft_clause_window(a0);
  // Per rule, the largest distance any producer in this kernel needs; a rule without producers here is dropped
  // from every consumer's mask.
  std::array<std::uint8_t, 64> rule_max{};
  std::uint64_t produced = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::uint64_t m = h.ops[i].prod; m; m &= m - 1) {
      const unsigned b = static_cast<unsigned>(std::countr_zero(m));
      const auto need = static_cast<std::uint8_t>(verify::required_wait_states(verify::hazard_rules[h.rules.index[b]], h.facts[i]));
      rule_max[b] = std::max(rule_max[b], need);
      produced |= 1ull << b;
    }
  bool hiding_consumers = false;
  for (HazardOpInfo& hi : h.ops) {
    hi.cons &= produced;
    hiding_consumers |= (hi.cons & h.hiding) != 0;
    for (std::uint64_t m = hi.cons; m; m &= m - 1)
      hi.cons_window = std::max(hi.cons_window, rule_max[static_cast<unsigned>(std::countr_zero(m))]);
  }
  // SGPR writers that hide older VALU writes (analysis::hazard_hiding_writer) only matter to consumers of those rows.
  if (hiding_consumers)
    for (std::size_t i = 0; i < n; ++i) h.ops[i].hider = analysis::hazard_hiding_writer(h.facts[i]);
  return h;
}

/// A wave's recent producers (and the SGPR writers that hide them, HazardOpInfo::hider), in wait states. Every
/// issued instruction advances `clock` by its wait states; a producer is remembered with the clock after it issued,
/// so the distance to a later consumer is the number of wait states issued in between (0 when the consumer follows
/// it directly).
///
/// Wait states are counted as the ISA guide and LLVM count them: issued instructions and s_nop. Stalls are not
/// credited (an MFMA that waits for the busy matrix core does not add wait states here): the hardware may give more
/// distance than this count, never less.
struct HazardState {
  static constexpr unsigned ring_size = 32;  ///< > the largest distance of any rule (each entry is >= 1 state)
  const HazardTable* table = nullptr;
  std::uint64_t clock = 0;
  std::array<std::uint64_t, ring_size> at{};
  std::array<std::uint32_t, ring_size> op{};
  unsigned head = 0, count = 0;
  /// The soft clause the last instructions issued form (HazardTable::xnack): its kind, its members (Op indices) in a
  /// ring of the last 32 and how many there are.
  analysis::ClauseKind clause_kind = analysis::ClauseKind::none;
  std::array<std::uint32_t, 32> clause_ops{};
  unsigned clause_n = 0;

  void reset(const HazardTable* t) noexcept {
    table = t;
    clock = 0;
    head = count = 0;
    clause_kind = analysis::ClauseKind::none;
    clause_n = 0;
  }
};

namespace detail {
[[nodiscard]] inline std::string hazard_reg_text(const verify::HazardRef& r) {
  if (!r.count) return {};
  if (r.vector) return r.first >= agpr_row0 ? "a" + std::to_string(r.first - agpr_row0) : "v" + std::to_string(r.first);
  return reg_text(false, r.first);
}

/// Stops `w` for `rule` between producer `p` (Op index pi) and consumer `op`.
inline void hazard_stop(Wave& w, const Op& op, const Op& p, const verify::HazardRule& rule,
                        const verify::HazardMatch& m, std::uint64_t dist, int need, unsigned passes) {
  Stop s;
  s.kind = Stop::Kind::hazard;
  s.inst = op.id;
  s.other = p.id;
  s.has_other = true;
  std::string what = hazard_reg_text(m.reg);
  s.message = "i" + std::to_string(op.id.value) + " (" + std::string(op.mnemonic()) + ") issues " +
              std::to_string(dist) + " wait state" + (dist == 1 ? "" : "s") + " after i" + std::to_string(p.id.value) +
              " (" + std::string(p.mnemonic()) + (passes ? ", " + std::to_string(passes) + " passes" : std::string()) +
              ")" + (what.empty() ? std::string() : " through " + what) + "; rule " + std::string(rule.name) +
              " requires " + std::to_string(need) + ": " + std::string(rule.text) + " [" + std::string(rule.source) +
              "]";
  w.stop_with(std::move(s));
}
}  // namespace detail

namespace detail {
/// The history walk of hazard_check for consumer `op` (Op index i, which consumes some rule): false when it stopped
/// the wave. Kept out of line so that the common step (no consumer, or nothing remembered) stays a few loads.
[[gnu::noinline]] inline bool hazard_walk(Wave& w, const Op& op, HazardState& hs, const HazardTable& t,
                                          const HazardOpInfo& ci) {
  const verify::HazardFacts& c = t.facts[op.index];
  // Each rule (group 0) or group searches, per consumer operand, for the nearest producer that overlaps it; an
  // operand whose nearest producer has been seen is left out of older ones (LLVM checks each use separately).
  const std::uint32_t all_refs = c.nrefs >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << c.nrefs) - 1;
  std::array<std::uint32_t, 64> rule_refs;  // by rule bit; valid where `touched` has the bit
  std::uint64_t touched = 0;
  std::uint64_t done = 0;                   // rules every operand of which has found its nearest producer
  std::array<std::uint32_t, 8> group_refs{};
  analysis::SgprSet written;                // SGPRs written by nearer hiding writers (HazardRule::any_writer_hides)
  const bool hides = (ci.cons & t.hiding) != 0;
  for (unsigned k = 0; k < hs.count; ++k) {
    const unsigned slot = (hs.head + HazardState::ring_size - 1 - k) % HazardState::ring_size;
    const std::uint64_t dist = hs.clock - hs.at[slot];
    if (dist >= ci.cons_window) break;
    const std::uint32_t pi = hs.op[slot];
    const HazardOpInfo& pinfo = t.ops[pi];
    std::uint64_t m = ci.cons & pinfo.prod & ~done;
    // Past the largest distance its rules require, a producer can no longer be violated; it only still matters as
    // the nearest producer of a grouped search, hiding older ones. This keeps the common case to a few loads per
    // remembered producer.
    if (dist >= pinfo.max_need) m &= t.grouped;
    std::array<std::uint32_t, 8> seen{};  // group operands this producer is the nearest of
    while (m) {
      const unsigned b = static_cast<unsigned>(std::countr_zero(m));
      m &= m - 1;
      const verify::HazardRule& r = verify::hazard_rules[t.rules.index[b]];
      const unsigned g = r.group & 7u;
      std::uint32_t skip;
      if (g) {
        skip = group_refs[g];
      } else {
        if (!((touched >> b) & 1)) rule_refs[b] = 0;
        touched |= 1ull << b;
        skip = rule_refs[b];
      }
      if ((skip & all_refs) == all_refs && c.nrefs) continue;
      const verify::HazardFacts& p = t.facts[pi];
      const verify::HazardMatch rel = verify::relate(r, p, c, skip, &written);
      if (!rel.overlaps) continue;
      if (g) {
        seen[g] |= rel.cons_refs;
      } else {
        rule_refs[b] |= rel.cons_refs;
        if ((rule_refs[b] & all_refs) == all_refs) done |= 1ull << b;
      }
      if (!rel.related) continue;
      const int need = verify::required_wait_states(r, p);
      if (dist < static_cast<std::uint64_t>(need)) {
        hazard_stop(w, op, w.ops[pi], r, rel, dist, need, p.passes);
        return false;
      }
    }
    for (unsigned g = 1; g < 8; ++g) group_refs[g] |= seen[g];
    if (hides && pinfo.hider) analysis::add_hiding_writes(written, t.facts[pi]);
  }
  return true;
}
}  // namespace detail

namespace detail {
/// The soft-clause step of hazard_check (HazardTable::xnack): stops `w` when `op` would join the clause of the
/// instructions issued right before it against LLVM's condition (analysis::soft_clause_hazard), else adds it (or
/// ends the clause). False when it stopped the wave.
inline bool soft_clause_step(Wave& w, const Op& op, HazardState& hs, const HazardTable& t, const HazardOpInfo& ci) {
  using analysis::ClauseKind;
  const auto kind = static_cast<ClauseKind>(ci.clause);
  if (kind != hs.clause_kind) {
    hs.clause_kind = kind;
    hs.clause_n = 0;
  }
  if (kind == ClauseKind::none) return true;
  const verify::HazardFacts& f = t.facts[op.index];
  const unsigned ring = static_cast<unsigned>(hs.clause_ops.size());
  const unsigned n = std::min({hs.clause_n, t.clause_window, ring});
  auto member = [&](unsigned k) {  // k = 0: the nearest
    return hs.clause_ops[(hs.clause_n - 1 - k) % ring];
  };
  if (n) {
    analysis::SoftClause cl;
    for (unsigned k = n; k-- > 0;) cl.add(t.facts[member(k)]);
    if (analysis::soft_clause_hazard(cl, f)) {
      // Name the nearest member this one reads from or overwrites; for a store (or a conflict with itself), the
      // nearest member that writes.
      const analysis::ClauseRegs cr(f);
      std::uint32_t partner = member(0), writer = ~0u;
      bool found = false;
      for (unsigned k = 0; k < n; ++k) {
        const analysis::ClauseRegs mr(t.facts[member(k)]);
        if (writer == ~0u && mr.defs.any()) writer = member(k);
        if (!analysis::soft_clause_store(f) && (mr.defs.meets(cr.uses) || cr.defs.meets(mr.uses))) {
          partner = member(k);
          found = true;
          break;
        }
      }
      if (!found && writer != ~0u) partner = writer;
      const Op& p = w.ops[partner];
      Stop s;
      s.kind = Stop::Kind::hazard;
      s.inst = op.id;
      s.other = p.id;
      s.has_other = true;
      s.message = "i" + std::to_string(op.id.value) + " (" + std::string(op.mnemonic()) +
                  ") issues 0 wait states after i" + std::to_string(p.id.value) + " (" + std::string(p.mnemonic()) +
                  "), in the same soft clause; rule " + std::string(analysis::soft_clause_rule) + " requires 1: " +
                  std::string(analysis::soft_clause_text) + " [" + std::string(analysis::soft_clause_source) + "]";
      w.stop_with(std::move(s));
      return false;
    }
  }
  hs.clause_ops[hs.clause_n % ring] = op.index;
  ++hs.clause_n;
  return true;
}
}  // namespace detail

/// Machine::hooks.before: checks `op` against the wave's recent producers, stops the wave with a hazard violation
/// naming both instructions and the rule when one is closer than the rule allows, then records `op`. Returns false
/// when it stopped the wave. A wave without a HazardState is not checked.
inline bool hazard_check(Wave& w, const Op& op) {
  HazardState* hs = w.hazards;
  if (!hs || !hs->table) return true;
  const HazardTable& t = *hs->table;
  if (op.index >= t.ops.size()) return true;
  const HazardOpInfo& ci = t.ops[op.index];
  if (ci.cons && hs->count && !detail::hazard_walk(w, op, *hs, t, ci)) return false;
  if (t.xnack && !detail::soft_clause_step(w, op, *hs, t, ci)) return false;
  hs->clock += ci.wait_states;
  if (ci.prod || ci.hider) {
    hs->at[hs->head] = hs->clock;
    hs->op[hs->head] = op.index;
    hs->head = (hs->head + 1) % HazardState::ring_size;
    hs->count += hs->count < HazardState::ring_size;
  }
  return true;
}

}  // namespace asmevo::emu
