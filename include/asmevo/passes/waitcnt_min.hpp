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
//  - A wait followed by s_barrier in its block (before any other memory instruction) is kept as written: across the
//    barrier other waves may read what this wave wrote, or overwrite what it still reads (LDS WAR).
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
#include "asmevo/passes/pass.hpp"

namespace asmevo::passes {

namespace detail {

using FindingKey = std::tuple<std::string, std::uint32_t, std::uint32_t>;

/// The findings of `f` as comparable keys (rule, at, other).
[[nodiscard]] inline std::set<FindingKey> finding_keys(const analysis::Findings& f) {
  std::set<FindingKey> s;
  for (const auto& x : f) s.emplace(x.rule, x.at.value, x.other ? x.other->value : ~0u);
  return s;
}

/// True if every key of `after` is in `before` (nothing new was found).
[[nodiscard]] inline bool no_new(const std::set<FindingKey>& before, const std::set<FindingKey>& after) {
  return std::includes(before.begin(), before.end(), after.begin(), after.end());
}

[[nodiscard]] inline std::set<FindingKey> waitcnt_keys(const Program& p, const analysis::Cfg& g,
                                                      const std::vector<std::uint32_t>& entries) {
  std::set<FindingKey> s;
  for (const auto e : entries) s.merge(finding_keys(analysis::check_waitcnt(p, g, e, p.target)));
  return s;
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
          // Retired only when the count proves it: in order for vmcnt, or a count of 0 on any counter.
          if (s[c] != none8 && s[c] >= n && (n == 0 || c == ci(Counter::vm))) s[c] = none8;
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

/// True if the wait at `item` is followed by s_barrier in its block before any memory instruction.
[[nodiscard]] inline bool guards_barrier(const Program& p, const analysis::Cfg& g, std::size_t item) {
  const auto b = g.block_of[item];
  if (b == analysis::Cfg::none) return false;
  const auto& insts = g.blocks[b].insts;
  for (auto it = std::find(insts.begin(), insts.end(), item) + 1; it != insts.end(); ++it) {
    const Inst& in = p.items[*it].inst;
    const auto& f = isa::forms(in.target)[in.form];
    if (f.mnemonic == "s_barrier") return true;
    if (f.has(isa::prop::vm_cnt) || f.has(isa::prop::lgkm_cnt) || f.mnemonic == "s_waitcnt") return false;
  }
  return false;
}

[[nodiscard]] inline bool is_waitcnt(const Inst& in) { return isa::forms(in.target)[in.form].mnemonic == "s_waitcnt"; }

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
    Program& p = r.program();
    const Target t = p.target;
    bool changed = false;
    {
      const analysis::Cfg g = analysis::build_cfg(p);
      auto entries = kernel_entries(g, c);
      if (!entries) return unexpected(std::move(entries).error());
      const auto live = reachable_blocks(g, *entries);
      const auto base = detail::waitcnt_keys(p, g, *entries);
      const auto fence = detail::fence_distances(p, g, *entries);
      // set_waitcnt changes items in place, so `g` stays valid through this loop.
      for (std::size_t i = 0; i < p.items.size(); ++i) {
        if (p.items[i].kind != Item::Kind::inst || !detail::is_waitcnt(p.items[i].inst)) continue;
        if (g.block_of[i] == analysis::Cfg::none || !live[g.block_of[i]]) continue;
        if (detail::guards_barrier(p, g, i)) continue;
        const auto x = analysis::waitcnt_detail::facts_of(p.items[i].inst, t);
        if (!x.wait) continue;
        const Waitcnt orig = *x.wait;
        Waitcnt cur = orig;
        const InstId id = p.items[i].inst.id;
        for (const Counter k : {Counter::vm, Counter::lgkm, Counter::exp}) {
          const auto ck = static_cast<unsigned>(k);
          const unsigned o = orig.get(k), top = max_count(t, k);
          unsigned hi = top;  // the weakest count memory order allows
          if (fence[i][ck] != 0xff && o <= fence[i][ck]) hi = k == Counter::vm ? fence[i][ck] : o;
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
          // Findings grow monotonically as a count rises, so binary search for the largest good count.
          auto top_ok = ok(hi);
          if (!top_ok) return unexpected(std::move(top_ok).error());
          unsigned best = o;
          if (*top_ok) {
            best = hi;
          } else {
            unsigned lo = o, up = hi;  // lo good, up bad
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
    auto entries = kernel_entries(g, c);
    if (!entries) return unexpected(std::move(entries).error());
    std::vector<analysis::WaitcntAnalysis> an;
    for (const auto e : *entries) an.push_back(analysis::analyze_waitcnt(p, g, e, t));
    std::vector<InstId> drop;
    for (std::size_t i = 0; i < p.items.size(); ++i) {
      if (p.items[i].kind != Item::Kind::inst || !detail::is_waitcnt(p.items[i].inst)) continue;
      const auto x = analysis::waitcnt_detail::facts_of(p.items[i].inst, t);
      bool reached = false, redundant = true;
      for (const auto& a : an)
        if (a.reachable(i)) reached = true, redundant = redundant && a.wait_is_redundant(i);
      if (!reached) continue;
      if ((x.wait && x.wait->waits_for_nothing(t)) || redundant) drop.push_back(p.items[i].inst.id);
    }
    for (const InstId id : drop) {
      if (auto e = r.erase(id, "waitcnt-min"); !e) return unexpected(std::move(e).error());
      changed = true;
    }
    if (!drop.empty()) st.notes.push_back("dropped " + std::to_string(drop.size()) + " wait(s) that wait for nothing");
    return changed;
  }
};

}  // namespace asmevo::passes
