// waitcnt-min: weakens every s_waitcnt to the weakest counts the waitcnt checker (analysis/waitcnt_check.hpp) proves
// sufficient for the registers it protects, and drops waits that wait for nothing. Idempotent (it iterates to a
// fixed point); never adds instructions.
//
// A wait does more than cover register reads: it orders memory. The checker models registers only, so the pass keeps
// what it cannot prove unneeded for memory order (conservative; each case gives up some weakening):
//  - Fences for operations without a register result (stores, atomics without return, LDS writes, loads to LDS,
//    messages): a forward dataflow finds, per counter, how many events were counted after the newest such operation
//    (the minimum over paths). If the wait retired it, the new vmcnt count stays at or below that distance (vmcnt
//    completes in order, MI300 ISA (CDNA3) §4.4), and the lgkmcnt/expcnt count is kept as written (those may complete
//    out of order, so a count is only trusted as written). Gives up: a vmcnt wait after a store to a buffer no later
//    instruction reads stays as strong as the store needs.
//  - A wait followed, on some path and before any memory instruction, by s_barrier or a cache invalidate/write-back
//    (buffer_inv, buffer_wbinvl1, buffer_wbl2, s_dcache_*) is kept as written: across the barrier other waves may
//    read what this wave wrote or overwrite what it still reads (LDS WAR), and an acquire's invalidate must follow
//    the load it orders (LLVM SIMemoryLegalizer). Other waits and ALU code in between are looked through.
//  - While a FLAT instruction is in the code, vmcnt may retire out of order, so a vmcnt fence is trusted only as
//    written (as lgkmcnt always is).
// Everything else is the checker's call: a count is accepted only if the kernel's waitcnt findings do not grow.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/passes/findings.hpp"
#include "asmevo/passes/pass.hpp"

namespace asmevo::passes {

namespace detail {

/// True if the kernel code holds a FLAT instruction (flat_*: it may go to LDS or memory, so vmcnt may then retire
/// out of order; analysis/waitcnt_check.hpp, LLVM WaitcntBrackets::hasPendingFlat).
[[nodiscard]] inline bool has_flat(const Program& p) {
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst && isa::forms(it.inst.target)[it.inst.form].format == isa::Format::FLAT) return true;
  return false;
}

/// Per Program item (an s_waitcnt) and counter: the events counted after the newest pending operation without a
/// register result, minimum over the paths reaching it; 0xff when none is pending. See the file comment.
[[nodiscard]] inline std::vector<std::array<std::uint8_t, 3>> fence_distances(const Program& p, const analysis::Cfg& g,
                                                                             const std::vector<std::uint32_t>& entries) {
  using namespace analysis::waitcnt_detail;
  constexpr std::uint8_t none8 = 0xff;
  using State = std::array<std::uint8_t, 3>;
  std::vector<State> at(p.items.size(), State{none8, none8, none8});
  std::vector<State> in(g.blocks.size(), State{none8, none8, none8});
  std::vector<std::uint8_t> seen(g.blocks.size(), 0);
  std::vector<InstFacts> facts(p.items.size());
  const bool flat = has_flat(p);
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst) facts[i] = facts_of(p.items[i].inst, p.target);
  auto meet = [](State& a, const State& b) {
    bool ch = false;
    for (int c = 0; c < 3; ++c)
      if (b[c] < a[c]) a[c] = b[c], ch = true;
    return ch;
  };
  std::vector<std::uint32_t> work;
  for (const auto e : entries) seen[e] = 1, work.push_back(e);
  while (!work.empty()) {
    const std::uint32_t b = work.back();
    work.pop_back();
    State s = in[b];
    for (const std::size_t i : g.blocks[b].insts) {
      const InstFacts& x = facts[i];
      meet(at[i], s);
      if (x.wait) {
        for (int c = 0; c < 3; ++c) {
          const unsigned n = x.wait->get(static_cast<Counter>(c));
          // Retired only when the count proves it: a count of 0, or vmcnt in order (no FLAT in the code).
          if (s[c] != none8 && s[c] >= n && (n == 0 || (c == ci(Counter::vm) && !flat))) s[c] = none8;
        }
        continue;
      }
      const bool fence = x.async_defs.empty();
      auto event = [&](unsigned c) {
        if (fence) s[c] = 0;
        else if (s[c] != none8 && s[c] < 0xfe) ++s[c];
      };
      if (x.vm) event(ci(Counter::vm));
      if (x.lgkm) event(ci(Counter::lgkm));
      if (x.exp) event(ci(Counter::exp));
    }
    for (const auto n : g.succ[b]) {
      const bool first = !seen[n];
      seen[n] = 1;
      if (meet(in[n], s) || first) work.push_back(n);
    }
  }
  return at;
}

/// True if `o` synchronises with other waves or the caches: s_barrier, or a cache invalidate/write-back (buffer_inv,
/// buffer_invl2, buffer_wbinvl1*, buffer_wbl2, s_dcache_*). A wait before one of them orders memory the register
/// checker cannot see (LLVM's SIMemoryLegalizer puts `s_waitcnt vmcnt(0)` before the invalidate of an acquire).
[[nodiscard]] inline bool is_sync(Opcode o) {
  return o == op::s_barrier || one_of(family_of(o), Family::buffer_cache, Family::s_dcache);
}

/// True if, on some path from the wait at `item`, a synchronising instruction (is_sync) comes before any memory
/// instruction. Other waits and ALU instructions are looked through; the walk follows the CFG across blocks.
[[nodiscard]] inline bool guards_sync(const Program& p, const analysis::Cfg& g, std::size_t item) {
  const auto b0 = g.block_of[item];
  if (b0 == analysis::Cfg::none) return false;
  std::vector<std::uint8_t> seen(g.blocks.size(), 0);
  // (block, first position to look at)
  std::vector<std::pair<std::uint32_t, std::size_t>> work;
  {
    const auto& insts = g.blocks[b0].insts;
    work.emplace_back(b0, static_cast<std::size_t>(std::find(insts.begin(), insts.end(), item) - insts.begin()) + 1);
  }
  while (!work.empty()) {
    const auto [b, from] = work.back();
    work.pop_back();
    const auto& insts = g.blocks[b].insts;
    bool stopped = false;
    for (std::size_t k = from; k < insts.size() && !stopped; ++k) {
      const Inst& in = p.items[insts[k]].inst;
      const auto& f = isa::forms(in.target)[in.form];
      if (is_sync(op_of(in))) return true;
      if (f.has(isa::prop::vm_cnt) || f.has(isa::prop::lgkm_cnt) || f.has(isa::prop::exp_cnt)) stopped = true;
    }
    if (stopped) continue;
    for (const auto s : g.succ[b])
      if (!seen[s]) seen[s] = 1, work.emplace_back(s, 0);
  }
  return false;
}

[[nodiscard]] inline bool is_waitcnt(const Inst& in) { return op_of(in) == op::s_waitcnt; }

}  // namespace detail

/// See the file comment.
struct WaitcntMin {
  static constexpr std::string_view name = "waitcnt-min";
  static constexpr std::string_view summary =
      "weaken each s_waitcnt to the weakest counts the waitcnt checker proves enough; drop waits for nothing";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    for (int round = 0; round < 8; ++round) {
      auto changed = one_round(r, c, st);
      if (!changed) return unexpected(std::move(changed).error());
      if (!*changed) break;
    }
    return st;
  }

 private:
  static Expected<bool> one_round(Rewriter& r, const PassContext& c, PassStats& st) {
    const Program& p = r.program();
    const Target t = p.target;
    bool changed = false;
    {
      const analysis::Cfg g = analysis::build_cfg(p);
      auto entries = kernel_entries(p, g, c);
      if (!entries) return unexpected(std::move(entries).error());
      const auto live = editable_blocks(p, g, *entries, c);
      const auto base = detail::waitcnt_keys(p, g, *entries);
      const auto fence = detail::fence_distances(p, g, *entries);
      const bool flat = detail::has_flat(p);
      // set_waitcnt changes items in place, so `g` stays valid through this loop.
      for (std::size_t i = 0; i < p.items.size(); ++i) {
        if (p.items[i].kind != Item::Kind::inst || !detail::is_waitcnt(p.items[i].inst)) continue;
        if (g.block_of[i] == analysis::Cfg::none || !live[g.block_of[i]]) continue;
        if (detail::guards_sync(p, g, i)) continue;
        const auto x = analysis::waitcnt_detail::facts_of(p.items[i].inst, t);
        if (!x.wait) continue;
        const Waitcnt orig = *x.wait;
        Waitcnt cur = orig;
        const InstId id = p.items[i].inst.id;
        for (const Counter k : {Counter::vm, Counter::lgkm, Counter::exp}) {
          const auto ck = static_cast<unsigned>(k);
          const unsigned o = orig.get(k), top = max_count(t, k);
          unsigned hi = top;  // the weakest count memory order allows
          // In order, the pending fence stays retired by any count up to its distance; out of order (lgkmcnt,
          // expcnt, or vmcnt while a FLAT access may be pending) only the count as written is trusted.
          if (fence[i][ck] != 0xff && o <= fence[i][ck]) hi = k == Counter::vm && !flat ? fence[i][ck] : o;
          hi = std::max(hi, o);
          if (hi == o) continue;
          auto ok = [&](unsigned n) -> Expected<bool> {
            Waitcnt w = cur;
            w.set(k, n);
            if (auto e = r.set_waitcnt(id, w, "waitcnt-min"); !e) return unexpected(std::move(e).error());
            const bool good = detail::no_new(base, detail::waitcnt_keys(p, g, *entries));
            r.undo(1);
            return good;
          };
          // Findings grow monotonically as a count rises, so search for the largest good count: one step first
          // (most waits in compiled code are already tight, and this settles them with one check), then the top,
          // then a binary search between.
          auto step_ok = ok(o + 1);
          if (!step_ok) return unexpected(std::move(step_ok).error());
          if (!*step_ok) continue;
          auto top_ok = hi == o + 1 ? step_ok : ok(hi);
          if (!top_ok) return unexpected(std::move(top_ok).error());
          unsigned best = o + 1;
          if (*top_ok) {
            best = hi;
          } else {
            unsigned lo = o + 1, up = hi;  // lo good, up bad
            while (up - lo > 1) {
              const unsigned mid = lo + (up - lo) / 2;
              auto m = ok(mid);
              if (!m) return unexpected(std::move(m).error());
              (*m ? lo : up) = mid;
            }
            best = lo;
          }
          cur.set(k, best);
        }
        if (!(cur == orig)) {
          if (auto e = r.set_waitcnt(id, cur, "waitcnt-min"); !e) return unexpected(std::move(e).error());
          changed = true;
        }
      }
    }
    // Drop waits that wait for nothing, or for nothing outstanding on any path (they retire nothing, so removing them
    // changes no state the checker or the hardware sees).
    const analysis::Cfg g = analysis::build_cfg(p);
    auto entries = kernel_entries(p, g, c);
    if (!entries) return unexpected(std::move(entries).error());
    std::vector<analysis::WaitcntAnalysis> an;
    for (const auto e : *entries) an.push_back(analysis::analyze_waitcnt(p, g, e, t));
    const auto editable = editable_blocks(p, g, *entries, c);
    std::vector<InstId> drop;
    for (std::size_t i = 0; i < p.items.size(); ++i) {
      if (p.items[i].kind != Item::Kind::inst || !detail::is_waitcnt(p.items[i].inst)) continue;
      if (g.block_of[i] == analysis::Cfg::none || !editable[g.block_of[i]]) continue;
      const auto x = analysis::waitcnt_detail::facts_of(p.items[i].inst, t);
      bool reached = false, redundant = true;
      for (const auto& a : an)
        if (a.reachable(i)) reached = true, redundant = redundant && a.wait_is_redundant(i);
      if (!reached) continue;
      if ((x.wait && x.wait->waits_for_nothing(t)) || redundant) drop.push_back(p.items[i].inst.id);
    }
    // A wait takes an issue slot, so it counts as a wait state for the hazard rules: dropping one can leave a
    // hazard's reader too close to its writer (a VALU write, a wait for nothing, then a DPP read of the same VGPR).
    // Keep the drops only while the hazard checker finds nothing new; otherwise retry one wait at a time.
    if (drop.empty()) return changed;
    const auto hazards = detail::hazard_keys(p, c);
    const std::size_t mark = r.log().size();
    for (const InstId id : drop)
      if (auto e = r.erase(id, "waitcnt-min"); !e) return unexpected(std::move(e).error());
    std::size_t dropped = drop.size();
    if (!detail::no_new(hazards, detail::hazard_keys(p, c))) {
      r.undo(r.log().size() - mark);
      dropped = 0;
      for (const InstId id : drop) {
        if (auto e = r.erase(id, "waitcnt-min"); !e) return unexpected(std::move(e).error());
        if (detail::no_new(hazards, detail::hazard_keys(p, c))) ++dropped;
        else r.undo(1);
      }
      st.notes.push_back("kept " + std::to_string(drop.size() - dropped) +
                         " wait(s) for nothing: each is a wait state a hazard needs");
    }
    if (dropped) st.notes.push_back("dropped " + std::to_string(dropped) + " wait(s) that wait for nothing");
    return changed || dropped > 0;
  }
};

}  // namespace asmevo::passes
