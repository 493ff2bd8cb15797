// batch-loads: puts more vector loads in flight by hoisting each global or buffer load, together with the address
// arithmetic it needs, above the s_waitcnt instructions that precede it in its block, raising their vmcnt by one for
// each load that crosses them.
//
// Why the counts stay exact: vmcnt counts the wave's outstanding vector memory operations, and on gfx9 they retire in
// the order they were issued (MI300 ISA (CDNA3) §4.4, "vector memory operations return in the order they were
// issued"; FLAT ones excepted, which is why only GLOBAL and MUBUF loads move and nothing moves across a FLAT, MUBUF or
// GLOBAL instruction). `s_waitcnt vmcnt(c)` waits until the c youngest operations issued before it are the only ones
// left. One more load issued before it makes vmcnt(c + 1) wait for exactly the same older operations; a wait with no
// vmcnt (the field at its maximum) is left alone, and a wait whose count would overflow the field stops the load.
//
// A load moves as one group with the instructions of its block it depends on (RAW on any register unit, EXEC and SCC
// included) that lie between its new place and its old one, keeping their order. A group member must be SALU or VALU
// without memory access, counters, side effects or an EXEC write, and the group never crosses an instruction that
// writes what the group reads, reads or writes what the group writes, another vector memory instruction, a memory
// write, or any barrier of analysis/dependence.hpp other than s_waitcnt. A load never crosses a wait that might order
// an earlier store before it: a wait is crossed only if no instruction that writes global memory runs before it
// (earlier in its block, or in any block from which its block can be reached). A load that would cross no wait is
// left where it is (`schedule` orders instructions between waits).
//
// A group never crosses a wait while it reads or writes a register that a memory operation above the wait in the
// block writes (what the wait may protect); each move is also kept only if the kernel's waitcnt and hazard findings
// (analysis/waitcnt_check.hpp, analysis/hazard_check.hpp) stay a subset of what they were. The pass repeats its walk
// until nothing moves (at most 8 rounds), so a second run finds every load as high as it can go.
//
// Not yet: hoisting across blocks (a load above the branch that guards it, which needs the speculation rules of
// software pipelining), and widening stores.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/dependence.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/passes/findings.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/rewriter.hpp"

namespace asmevo::passes {

namespace batch_detail {

[[nodiscard]] inline const isa::FormInfo& form(const Inst& in) { return isa::forms(in.target)[in.form]; }

/// A load the pass may move: GLOBAL or MUBUF, counted by vmcnt only (as the waitcnt checker counts it on the target:
/// the tables' expcnt flag of MUBUF loads is an SI-era one), no store, atomic or LDS write, and no cache-policy bits
/// (glc/slc/sc0/sc1/nt: a volatile or ordered access keeps its place).
[[nodiscard]] inline bool batchable_load(const Inst& in) {
  const auto& f = form(in);
  using namespace isa::prop;
  if (!f.has(load) || f.has(store) || f.has(atomic) || f.has(lds_dma) || f.has(side_effects)) return false;
  const auto c = analysis::waitcnt_detail::facts_of(in, in.target);
  if (!c.vm || c.lgkm || c.exp) return false;
  const auto m = analysis::memory_access(in);
  if (m.writes != 0 || m.reads != analysis::space::global) return false;
  for (const char* bits : {"cpol", "glc", "slc", "sc0", "sc1", "nt"})
    if (const Operand* o = analysis::dep_detail::operand_named(in, bits); o && o->kind == Operand::Kind::imm && o->imm != 0)
      return false;
  return f.format == isa::Format::GLOBAL || f.format == isa::Format::MUBUF;
}

/// The register units the memory operations among `insts` (program items) write when they complete: what a wait
/// after them may be protecting.
[[nodiscard]] inline std::vector<unsigned> pending_writes(const std::vector<const Inst*>& insts) {
  std::vector<unsigned> out;
  for (const Inst* in : insts) {
    const auto c = analysis::waitcnt_detail::facts_of(*in, in->target);
    if (!c.vm && !c.lgkm) continue;
    std::vector<unsigned> rd, wr;
    analysis::detail::unit_rw(*in, rd, wr);
    out.insert(out.end(), wr.begin(), wr.end());
  }
  return out;
}

/// An instruction that may move with a load: scalar or vector ALU, no memory, counters, side effects or EXEC write.
[[nodiscard]] inline bool movable_alu(const Inst& in, const std::vector<unsigned>& writes) {
  const auto& f = form(in);
  using namespace isa::prop;
  if (!(f.has(salu) || f.has(valu)) || f.has(vm_cnt) || f.has(lgkm_cnt) || f.has(exp_cnt)) return false;
  if (!analysis::barrier_reason(in).empty() || analysis::memory_access(in).any()) return false;
  return std::find(writes.begin(), writes.end(), analysis::detail::unit_exec) == writes.end() &&
         std::find(writes.begin(), writes.end(), analysis::detail::unit_exec + 1) == writes.end();
}

[[nodiscard]] inline bool meets(const std::vector<unsigned>& a, const std::vector<unsigned>& b) {
  for (const unsigned x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

/// Per block: some instruction that writes global memory may run before the block starts (in a block from which
/// this one can be reached, itself included when it lies on a cycle).
[[nodiscard]] inline std::vector<std::uint8_t> store_before(const Program& p, const analysis::Cfg& g) {
  const std::size_t n = g.blocks.size();
  std::vector<std::uint8_t> has(n, 0), out(n, 0);
  for (std::uint32_t b = 0; b < n; ++b)
    for (const std::size_t i : g.blocks[b].insts)
      if (analysis::memory_access(p.items[i].inst).writes & analysis::space::global) has[b] = 1;
  std::vector<std::uint32_t> work;
  for (std::uint32_t b = 0; b < n; ++b)
    if (has[b])
      for (const auto s : g.succ[b])
        if (!out[s]) out[s] = 1, work.push_back(s);
  while (!work.empty()) {
    const auto b = work.back();
    work.pop_back();
    for (const auto s : g.succ[b])
      if (!out[s]) out[s] = 1, work.push_back(s);
  }
  return out;
}

}  // namespace batch_detail

struct BatchLoads {
  static constexpr std::string_view name = "batch-loads";
  static constexpr std::string_view summary =
      "hoist global/buffer loads with their address arithmetic above earlier s_waitcnt in the block (vmcnt raised "
      "to match), so more loads are in flight";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    const Program& p = r.program();
    const Target t = p.target;
    const unsigned vm_max = max_count(t, Counter::vm);
    std::size_t moved = 0, crossed_total = 0, refused = 0;
    const analysis::Cfg g0 = analysis::build_cfg(p);
    auto entries0 = kernel_entries(p, g0, c);
    if (!entries0) return unexpected(std::move(entries0).error());
    const auto base = detail::waitcnt_keys(p, g0, *entries0);
    auto base_h = detail::hazard_keys(p, c);
    // Each editable block as the ids of its instructions in order (moves stay inside a block).
    std::vector<std::pair<std::uint32_t, std::vector<InstId>>> blocks;
    {
      const auto live = editable_blocks(p, g0, *entries0, c);
      for (std::uint32_t b = 0; b < g0.blocks.size(); ++b) {
        if (!live[b] || g0.blocks[b].insts.empty()) continue;
        std::vector<InstId> ids;
        for (const auto i : g0.blocks[b].insts) ids.push_back(p.items[i].inst.id);
        blocks.emplace_back(b, std::move(ids));
      }
    }
    const auto tainted = batch_detail::store_before(p, g0);
    std::vector<std::size_t> index;
    std::size_t index_stamp = 0;
    // Rounds until nothing moves: a load refused in one round (its move added a finding) may go once others moved.
    for (std::size_t round = 0, before = ~std::size_t{0}; round < 8 && moved != before; ++round) {
      before = moved;
      refused = 0;  // what the last round could not move
      for (auto& [b0, seq] : blocks) {
        for (std::size_t pos = 0; pos < seq.size(); ++pos) {
          const auto& items = r.program().items;
          // Item index per instruction id, rebuilt only after the program changed.
          if (index_stamp != r.log().size() || index.empty()) {
            index.assign(r.program().next_id, ~std::size_t{0});
            for (std::size_t i = 0; i < items.size(); ++i)
              if (items[i].kind == Item::Kind::inst && items[i].inst.id.value < index.size()) index[items[i].inst.id.value] = i;
            index_stamp = r.log().size();
          }
          auto inst_at = [&](std::size_t k) -> const Inst& { return items[index[seq[k].value]].inst; };
          if (!batch_detail::batchable_load(inst_at(pos))) continue;
          // Walk up from the load, growing the group and listing the waits it crosses.
          std::vector<std::size_t> group{pos};
          std::vector<unsigned> g_rd, g_wr;
          analysis::detail::unit_rw(inst_at(pos), g_rd, g_wr);
          std::vector<std::size_t> waits;
          bool store_seen_above = tainted[b0] != 0;
          for (std::size_t k = 0; k < pos; ++k)
            if (analysis::memory_access(inst_at(k)).writes & analysis::space::global) store_seen_above = true;
          std::size_t top = pos;
          std::vector<unsigned> pend;
          std::size_t pend_upto = ~std::size_t{0};
          for (std::size_t k = pos; k-- > 0;) {
            const Inst& x = inst_at(k);
            std::vector<unsigned> rd, wr;
            analysis::detail::unit_rw(x, rd, wr);
            if (batch_detail::meets(wr, g_rd)) {  // the group needs x
              // It keeps its order with the group's members (no check against them); what it crosses is checked
              // against the whole group from here on.
              if (!batch_detail::movable_alu(x, wr)) break;
              group.insert(group.begin(), k);
              g_rd.insert(g_rd.end(), rd.begin(), rd.end());
              g_wr.insert(g_wr.end(), wr.begin(), wr.end());
              top = k;
              continue;
            }
            if (batch_detail::meets(rd, g_wr) || batch_detail::meets(wr, g_wr)) break;
            const auto facts = analysis::waitcnt_detail::facts_of(x, t);
            if (facts.wait) {
              if (store_seen_above) break;
              // The wait may protect a register a memory operation above it writes: the group must not touch one.
              if (pend_upto != k) {  // the memory results written above position k (the walk only goes up)
                std::vector<const Inst*> above;
                for (std::size_t q = 0; q < k; ++q) above.push_back(&inst_at(q));
                pend = batch_detail::pending_writes(above);
                pend_upto = k;
              }
              if (batch_detail::meets(pend, g_rd) || batch_detail::meets(pend, g_wr)) break;
              const unsigned vm = facts.wait->get(Counter::vm);
              if (vm != vm_max && vm + 1 >= vm_max) break;
              waits.push_back(k);
              top = k;
              continue;
            }
            const auto& f = batch_detail::form(x);
            if (!analysis::barrier_reason(x).empty() || f.has(isa::prop::vm_cnt) ||
                (analysis::memory_access(x).writes & analysis::space::global))
              break;
            top = k;
          }
          // Only a load that crosses a wait that really waits on vmcnt gains anything.
          bool gain = false;
          for (const auto k : waits) gain |= analysis::waitcnt_detail::facts_of(inst_at(k), t).wait->get(Counter::vm) != vm_max;
          if (!gain) continue;
          // The group's members go, in order, just before the first instruction at or after `top` outside the group.
          std::size_t anchor_pos = top;
          while (std::find(group.begin(), group.end(), anchor_pos) != group.end()) ++anchor_pos;
          const InstId anchor = seq[anchor_pos];
          const std::size_t mark = r.log().size();
          // The crossed waits' new counts, read before anything moves (`inst_at` indexes the unedited program).
          std::vector<std::pair<InstId, Waitcnt>> recount;
          for (const auto k : waits) {
            Waitcnt w = *analysis::waitcnt_detail::facts_of(inst_at(k), t).wait;
            if (w.get(Counter::vm) == vm_max) continue;
            w.set(Counter::vm, w.get(Counter::vm) + 1);
            recount.emplace_back(seq[k], w);
          }
          bool ok = true;
          for (const auto k : group)
            if (k > anchor_pos && !r.move_before(seq[k], anchor, std::string(name))) ok = false;
          for (const auto& [id, w] : recount)
            if (!r.set_waitcnt(id, w, std::string(name))) ok = false;
          if (ok) {
            const Program& q = r.program();
            const analysis::Cfg g = analysis::build_cfg(q);
            auto entries = kernel_entries(q, g, c);
            ok = entries && detail::no_new(base, detail::waitcnt_keys(q, g, *entries)) &&
                 detail::no_new(base_h, detail::hazard_keys(q, c));
          }
          if (!ok) {
            r.undo(r.log().size() - mark);
            ++refused;
            continue;
          }
          ++moved;
          crossed_total += waits.size();
          // Keep `seq` in program order.
          std::vector<InstId> now;
          for (const auto k : group)
            if (k > anchor_pos) now.push_back(seq[k]);
          std::vector<InstId> rest;
          for (std::size_t k = anchor_pos; k < seq.size(); ++k)
            if (std::find(group.begin(), group.end(), k) == group.end()) rest.push_back(seq[k]);
          seq.resize(anchor_pos);
          seq.insert(seq.end(), now.begin(), now.end());
          seq.insert(seq.end(), rest.begin(), rest.end());
          pos = anchor_pos + now.size() - 1;
        }
      }
    }
    if (moved)
      st.notes.push_back("hoisted " + std::to_string(moved) + " load(s) with their address arithmetic across " +
                         std::to_string(crossed_total) + " s_waitcnt(s)");
    if (refused)
      st.notes.push_back(std::to_string(refused) + " hoist(s) undone: they added a waitcnt or hazard finding");
    return st;
  }
};

}  // namespace asmevo::passes
