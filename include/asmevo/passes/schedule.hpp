// schedule: latency-aware list scheduling of each basic block between barriers, over the dependence DAG of
// analysis/dependence.hpp, so that loads issue early and independent ALU, MFMA and memory instructions interleave.
//
// Regions: the maximal runs of a reachable block's instructions that hold no barrier (dependence.hpp's
// barrier_reason: s_waitcnt, s_nop, s_barrier, branches ...) and no directive line between two of them, cut into
// pieces of at most `window` instructions (argument `window`, default 256). Instructions only move within their region.
// The first instruction of a block a branch targets never moves (the verifier matches branch targets by it).
// Arguments `from` and `to` (instruction ids, `i12` or `12`) restrict the pass to a hot window: only instructions
// from `from` through `to` in program order are scheduled (the cost model's hot windows name such ranges).
//
// Within a region the scheduler issues one instruction per step at a modelled cycle. A node is ready when its
// predecessors are issued, and available when its operands are (predecessor issue + its result latency on RAW edges)
// and, for an MFMA, the matrix pipe is free. Among the available it picks, in this order: a memory load (so loads
// issue as early as their dependences allow), then the longest latency path to the region's end (critical path),
// then the original order. When nothing is available the clock advances. Latencies are the cost model's
// (model/params.hpp, each with its source): VALU, transcendental, SALU, SMEM, LDS, L2-hit VMEM, and MFMA
// passes + write-back (analysis/mfma_info.hpp); the MFMA pipe stays busy for its passes, which is what lets
// independent ALU fill the gap between two MFMAs.
//
// Each region's result is kept only if the kernel's s_waitcnt and wait-state checks (analysis/waitcnt_check.hpp,
// analysis/hazard_check.hpp) find nothing new: the set of (rule, at, other) findings after is a subset of the set
// before. All regions are first tried at once and checked once; if that adds a finding, they are undone and tried one
// by one, each checked against the state the previous ones left, and a region that adds a finding is undone
// (Rewriter::undo); rounds repeat while one keeps a region, and the regions left are named in the notes.
//
// Invariants: the pass never adds or removes instructions (only move_before/move_after, `why` = "schedule"); a
// region already in the order the scheduler would choose gets no edit, so a second run makes no edits (ties keep the
// current order, and the DAG and the priorities do not depend on the order of independent instructions). Pipelines
// run waitcnt-min (passes/waitcnt_min.hpp) after it: the schedule leaves every s_waitcnt where it was and with its
// count, and moving loads away from their waits can make smaller waits possible.
#pragma once

#include <algorithm>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/dependence.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/mfma_info.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/model/params.hpp"
#include "asmevo/passes/findings.hpp"
#include "asmevo/passes/pass.hpp"

namespace asmevo::passes {

namespace schedule_detail {

/// What the scheduler assumes about one instruction, in shader clock cycles.
struct Cost {
  unsigned issue = 4;     ///< cycles before the wave's next instruction may issue
  unsigned latency = 4;   ///< issue to result usable by a dependent instruction
  unsigned pipe = 0;      ///< cycles the matrix pipe stays busy (MFMA only)
  bool load = false;      ///< reads memory into registers (issued first when available)
};

/// The cost model's figures for `in` (model::TimingParams; MfmaInfo::passes for MFMAs).
[[nodiscard]] inline Cost cost_of(const Inst& in, Target t) {
  const model::TimingParams& tp = model::timing_params(t);
  const auto& f = isa::forms(in.target)[in.form];
  Cost c;
  c.issue = tp.issue_interval.value;
  const auto mem = analysis::memory_access(in);
  std::vector<unsigned> rd, wr;
  analysis::detail::unit_rw(in, rd, wr);
  if (f.has(isa::prop::mfma)) {
    const analysis::MfmaInfo* m = analysis::mfma_info(op_of(in), t);
    const unsigned passes = m ? m->passes : 16;  // an opcode without a row: the longest common figure
    c.pipe = passes * tp.mfma_pass.value;
    c.latency = c.pipe + tp.mfma_writeback.value;
  } else if (mem.any()) {
    c.load = mem.reads != 0 && !wr.empty();
    if (f.has(isa::prop::smem)) c.latency = tp.smem_latency.value;
    else if (f.has(isa::prop::ds)) c.latency = tp.lds_latency.value;
    else c.latency = tp.l2_latency.value;
  } else if (f.has(isa::prop::valu)) {
    c.latency = f.has(isa::prop::trans) ? tp.valu_trans.value : tp.valu_latency.value;
  } else {
    c.latency = tp.salu.value;
  }
  return c;
}

/// Whether placing node `cand` right after the nodes `placed` (in that order) keeps the wait-state rules.
using HazardOk = std::function<bool(const std::vector<std::uint32_t>& placed, std::uint32_t cand)>;

/// The order the scheduler picks for the DAG of one region (no barriers inside): node indexes, a permutation. With
/// `ok`, a candidate that would be issued too close to a producer (a hazard no other order of the region forces) is
/// passed over while another available candidate keeps the rules; the clock waits for one that does before it
/// gives up and takes the best candidate anyway (the kernel-wide check after scheduling is the real guard).
[[nodiscard]] inline std::vector<std::uint32_t> list_schedule(const analysis::DepGraph& g, const std::vector<Cost>& cost,
                                                              const HazardOk& ok = {}) {
  const auto n = static_cast<std::uint32_t>(g.nodes.size());
  auto weight = [&](const analysis::DepEdge& e) -> std::uint64_t {
    return e.kind == analysis::DepKind::raw ? cost[e.from].latency : 0;
  };
  // Height: the longest latency path from a node to the region's end, counting its own latency.
  std::vector<std::uint64_t> height(n, 0);
  for (std::uint32_t i = n; i-- > 0;) {
    std::uint64_t h = cost[i].latency;
    for (const auto e : g.succ[i]) h = std::max(h, weight(g.edges[e]) + height[g.edges[e].to]);
    height[i] = h;
  }
  std::vector<std::uint32_t> waiting(n, 0), order;
  std::vector<std::uint64_t> earliest(n, 0);
  for (std::uint32_t i = 0; i < n; ++i) waiting[i] = static_cast<std::uint32_t>(g.pred[i].size());
  std::vector<std::uint32_t> ready;
  for (std::uint32_t i = 0; i < n; ++i)
    if (!waiting[i]) ready.push_back(i);
  std::uint64_t now = 0, mfma_free = 0;
  order.reserve(n);
  auto start = [&](std::uint32_t i) { return std::max(earliest[i], cost[i].pipe ? mfma_free : 0); };
  while (!ready.empty()) {
    std::optional<std::size_t> best, best_any;
    std::uint64_t soonest = ~std::uint64_t{0}, soonest_ok = ~std::uint64_t{0};
    auto better = [&](std::size_t k, const std::optional<std::size_t>& cur) {
      if (!cur) return true;
      const std::uint32_t i = ready[k], b = ready[*cur];
      return std::tuple(cost[i].load, height[i], b) > std::tuple(cost[b].load, height[b], i);
    };
    for (std::size_t k = 0; k < ready.size(); ++k) {
      const std::uint32_t i = ready[k];
      const std::uint64_t s = start(i);
      soonest = std::min(soonest, s);
      const bool fits = !ok || ok(order, i);
      if (fits) soonest_ok = std::min(soonest_ok, s);
      if (s > now) continue;
      if (better(k, best_any)) best_any = k;
      if (fits && better(k, best)) best = k;
    }
    if (!best && soonest_ok != ~std::uint64_t{0} && soonest_ok > now) {
      now = soonest_ok;  // wait for a candidate that keeps the rules rather than break one
      continue;
    }
    if (!best) best = best_any;
    if (!best) {
      now = soonest;
      continue;
    }
    const std::uint32_t i = ready[*best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(*best));
    order.push_back(i);
    if (cost[i].pipe) mfma_free = now + cost[i].pipe;
    for (const auto e : g.succ[i]) {
      const auto& ed = g.edges[e];
      earliest[ed.to] = std::max(earliest[ed.to], now + weight(ed));
      if (--waiting[ed.to] == 0) ready.push_back(ed.to);
    }
    now += cost[i].issue;
  }
  return order;
}

/// A HazardOk for one region: the candidate is checked with the hazard checker (analysis/hazard_check.hpp) on a small
/// program made of the instructions just before the region in its block, the region's instructions placed so far and
/// the candidate. A finding at the candidate that the region's original order also has (same rule and producer) does
/// not count: the scheduler need not do better than the code it was given.
[[nodiscard]] inline HazardOk local_hazards(const Program& p, const analysis::Cfg& g, std::span<const std::size_t> items,
                                            bool xnack) {
  constexpr std::size_t look_back = 20;  // more instructions than any wait-state rule spans (at most 19 for a clause)
  std::vector<Inst> before;
  if (const auto b = g.block_of[items.front()]; b != analysis::Cfg::none) {
    const auto& insts = g.blocks[b].insts;
    const auto at = static_cast<std::size_t>(std::find(insts.begin(), insts.end(), items.front()) - insts.begin());
    for (std::size_t k = at > look_back ? at - look_back : 0; k < at; ++k) before.push_back(p.items[insts[k]].inst);
  }
  std::vector<Inst> region;
  for (const auto i : items) region.push_back(p.items[i].inst);
  // `seq` is the tail of the region's order; the instructions before the region precede it only when `seq` starts
  // at the region's first instruction.
  auto findings_at = [t = p.target, xnack, before](const std::vector<const Inst*>& seq, InstId at, bool from_start) {
    Program q;
    q.target = t;
    Item l;
    l.kind = Item::Kind::label;
    l.name = "k";
    q.items.push_back(l);
    for (const Inst& in : before) {
      if (!from_start) break;
      Item it;
      it.kind = Item::Kind::inst;
      it.inst = in;
      q.items.push_back(std::move(it));
    }
    for (const Inst* in : seq) {
      Item it;
      it.kind = Item::Kind::inst;
      it.inst = *in;
      q.items.push_back(std::move(it));
    }
    const analysis::Cfg qg = analysis::build_cfg(q);
    std::set<std::pair<std::string, std::uint32_t>> out;
    for (const auto& f : analysis::check_hazards(q, qg, 0, t, xnack))
      if (f.at == at) out.emplace(f.rule, f.other ? f.other->value : ~0u);
    return out;
  };
  // What the original order already has, per instruction.
  auto allowed = std::make_shared<std::map<std::uint32_t, std::set<std::pair<std::string, std::uint32_t>>>>();
  {
    for (std::size_t k = 0; k < region.size(); ++k) {
      std::vector<const Inst*> seq;
      const std::size_t from = k > look_back ? k - look_back : 0;
      for (std::size_t j = from; j <= k; ++j) seq.push_back(&region[j]);
      auto f = findings_at(seq, region[k].id, from == 0);
      if (!f.empty()) (*allowed)[region[k].id.value] = std::move(f);
    }
  }
  return [region = std::move(region), allowed, findings_at](const std::vector<std::uint32_t>& placed, std::uint32_t cand) {
    std::vector<const Inst*> seq;
    const std::size_t from = placed.size() > look_back ? placed.size() - look_back : 0;
    for (std::size_t k = from; k < placed.size(); ++k) seq.push_back(&region[placed[k]]);
    seq.push_back(&region[cand]);
    const auto it = allowed->find(region[cand].id.value);
    for (const auto& f : findings_at(seq, region[cand].id, from == 0))
      if (it == allowed->end() || !it->second.count(f)) return false;
    return true;
  };
}

/// Positions (into `seq`) of a longest strictly increasing subsequence of `seq`; the first such in a deterministic
/// patience-sorting order. Instructions at those positions stay; the others move.
[[nodiscard]] inline std::vector<std::uint8_t> keep_mask(const std::vector<std::uint32_t>& seq) {
  const std::size_t n = seq.size();
  std::vector<std::size_t> tails, prev(n, ~std::size_t{0});
  for (std::size_t i = 0; i < n; ++i) {
    const auto it = std::lower_bound(tails.begin(), tails.end(), seq[i],
                                     [&](std::size_t t, std::uint32_t v) { return seq[t] < v; });
    if (it != tails.begin()) prev[i] = *(it - 1);
    if (it == tails.end()) tails.push_back(i);
    else *it = i;
  }
  std::vector<std::uint8_t> keep(n, 0);
  for (std::size_t i = tails.empty() ? ~std::size_t{0} : tails.back(); i != ~std::size_t{0}; i = prev[i]) keep[i] = 1;
  return keep;
}

/// One region: its instructions in the current order and the order the scheduler chose.
struct Region {
  std::vector<InstId> now, want;
};

/// The waitcnt and hazard findings of every kernel, as (rule, at, other) keys, and the first finding whose key is not
/// in `base` (when given), for the notes.
struct Checked {
  std::set<detail::FindingKey> keys;
  std::optional<analysis::Finding> fresh;
};

[[nodiscard]] inline Checked check(const Program& p, const PassContext& c, const std::vector<std::uint32_t>& entries,
                                   const std::set<detail::FindingKey>* base = nullptr) {
  const analysis::Cfg g = analysis::build_cfg(p);
  Checked out;
  auto take = [&](analysis::Findings fs) {
    for (auto& f : fs) {
      detail::FindingKey k = detail::key_of(f);
      if (base && !out.fresh && !base->count(k)) out.fresh = std::move(f);
      out.keys.insert(std::move(k));
    }
  };
  for (const auto e : entries) {
    take(analysis::check_waitcnt(p, g, e, p.target));
    take(analysis::check_hazards(p, g, e, p.target, c.xnack));
  }
  return out;
}


/// Moves the region's instructions into `want` order with the fewest moves (those outside a longest run already in
/// order), each a move_before the instruction that now follows it (move_after for the last). Returns the edits made.
inline Expected<std::size_t> apply_order(Rewriter& r, const Region& reg) {
  const std::size_t k = reg.want.size();
  std::vector<std::uint32_t> pos(k);
  for (std::size_t j = 0; j < k; ++j)
    pos[j] = static_cast<std::uint32_t>(std::find(reg.now.begin(), reg.now.end(), reg.want[j]) - reg.now.begin());
  const auto keep = keep_mask(pos);
  std::optional<InstId> last_kept;
  for (std::size_t j = 0; j < k; ++j)
    if (keep[j]) last_kept = reg.want[j];
  std::size_t edits = 0;
  for (std::size_t j = k; j-- > 0;) {
    if (keep[j]) continue;
    auto e = j + 1 < k ? r.move_before(reg.want[j], reg.want[j + 1], "schedule")
                       : r.move_after(reg.want[j], *last_kept, "schedule");
    if (!e) return unexpected(std::move(e).error());
    ++edits;
  }
  return edits;
}

}  // namespace schedule_detail

/// See the file comment.
struct Schedule {
  static constexpr std::string_view name = "schedule";
  static constexpr std::string_view summary =
      "latency-aware list scheduling within each block between barriers (loads early, ALU between MFMAs)";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    namespace sd = schedule_detail;
    PassStats st;
    auto window = c.uint_arg("window", 256);
    if (!window) return unexpected(std::move(window).error());
    if (*window == 0) return fail(DiagCode::usage, "argument 'window' must be at least 1 (instructions per region)");
    const Program& p = r.program();
    std::vector<std::uint32_t> entries;
    std::vector<sd::Region> regions;
    {
      const analysis::Cfg g = analysis::build_cfg(p);
      auto e = kernel_entries(p, g, c);
      if (!e) return unexpected(std::move(e).error());
      entries = std::move(*e);
      const auto live = editable_blocks(p, g, entries, c);
      std::vector<std::size_t> run;
      auto flush = [&] {
        for (std::size_t at = 0; at < run.size(); at += *window) {
          const std::size_t len = std::min<std::size_t>(*window, run.size() - at);
          if (len < 2) continue;
          const std::span<const std::size_t> items(run.data() + at, len);
          const analysis::DepGraph dg = analysis::build_dependences(p, items);
          std::vector<sd::Cost> cost;
          for (const std::size_t i : items) cost.push_back(sd::cost_of(p.items[i].inst, p.target));
          const auto order = sd::list_schedule(dg, cost, sd::local_hazards(p, g, items, c.xnack));
          sd::Region reg;
          for (const std::size_t i : items) reg.now.push_back(p.items[i].inst.id);
          for (const auto o : order) reg.want.push_back(dg.nodes[o].id);
          if (reg.want.size() == reg.now.size() && reg.want != reg.now) regions.push_back(std::move(reg));
        }
        run.clear();
      };
      // The hot window, as item indexes (the whole program when not given).
      std::size_t lo = 0, hi = p.items.size();
      for (const char* key : {"from", "to"}) {
        const auto a = c.args.find(key);
        if (a == c.args.end()) continue;
        std::string v = a->second;
        if (!v.empty() && v[0] == 'i') v.erase(0, 1);
        std::uint64_t n = 0;
        bool good = !v.empty() && v.size() <= 10;
        for (const char ch : v) good = good && ch >= '0' && ch <= '9', n = good ? n * 10 + static_cast<unsigned>(ch - '0') : n;
        const auto at = good && n < 0x80000000u ? r.index_of(InstId{static_cast<std::uint32_t>(n)}) : -1;
        if (at < 0)
          return fail(DiagCode::usage, std::string("argument '") + key + "': '" + a->second +
                                           "' is not the id of an instruction of the program (i<N>)");
        (std::string_view(key) == "from" ? lo : hi) = static_cast<std::size_t>(at) + (std::string_view(key) == "to" ? 1 : 0);
      }
      // Blocks some branch names as its target.
      std::vector<std::uint8_t> targeted(g.blocks.size(), 0);
      for (const auto& blk : g.blocks)
        if (blk.target)
          if (const auto t = g.block_named(*blk.target)) targeted[*t] = 1;
      for (std::uint32_t b = 0; b < g.blocks.size(); ++b) {
        if (!live[b]) continue;
        std::size_t prev = 0;
        for (const std::size_t i : g.blocks[b].insts) {
          // The first instruction of a block a branch targets stays first: a branch names its target by the instruction
          // there, and the verifier compares K1's branches with K0's that way (a branch whose target starts with a
          // different instruction counts as changed, which only runs that take it can check).
          if (i < lo || i >= hi || (i == g.blocks[b].insts.front() && targeted[b])) {
            flush();
            continue;
          }
          // A directive between two instructions (.p2align, .byte ...) pins both sides: it may lay out code or data.
          bool fenced = false;
          for (std::size_t k = prev + 1; !run.empty() && k < i; ++k)
            fenced |= p.items[k].kind != Item::Kind::comment && p.items[k].kind != Item::Kind::blank;
          if (fenced) flush();
          prev = i;
          if (!analysis::barrier_reason(p.items[i].inst).empty()) {
            flush();
            continue;
          }
          run.push_back(i);
        }
        flush();
      }
    }
    if (regions.empty()) return st;

    // Rounds: try every pending region at once; if that adds a finding, undo it and try them one at a time against
    // the state the accepted ones leave; repeat while a round accepts something (a region refused early may fit once
    // a later one has moved). The last round accepts nothing, so every region still pending was refused in the
    // final state, alone and all together: a second run tries the same things in the same state and makes no edit.
    const std::size_t mark = r.log().size();
    auto now = sd::check(p, c, entries).keys;
    std::vector<std::uint8_t> done(regions.size(), 0);
    std::vector<std::string> refused(regions.size());
    std::size_t kept = 0, moved = 0;
    auto apply = [&](std::size_t k) -> Expected<std::size_t> {
      auto e = sd::apply_order(r, regions[k]);
      if (!e) r.undo(r.log().size() - mark);
      return e;
    };
    for (bool progress = true; progress;) {
      progress = false;
      const std::size_t round = r.log().size();
      std::size_t batch_moved = 0, batch_regions = 0;
      for (std::size_t k = 0; k < regions.size(); ++k) {
        if (done[k]) continue;
        auto e = apply(k);
        if (!e) return unexpected(std::move(e).error());
        batch_moved += *e;
        ++batch_regions;
      }
      if (!batch_regions) break;
      if (auto all = sd::check(p, c, entries); detail::no_new(now, all.keys)) {
        now = std::move(all.keys);
        kept += batch_regions;
        moved += batch_moved;
        std::fill(done.begin(), done.end(), std::uint8_t{1});
        break;
      }
      r.undo(r.log().size() - round);
      for (std::size_t k = 0; k < regions.size(); ++k) {
        if (done[k]) continue;
        const std::size_t before = r.log().size();
        auto e = apply(k);
        if (!e) return unexpected(std::move(e).error());
        auto after = sd::check(p, c, entries, &now);
        if (!after.fresh) {
          now = std::move(after.keys);
          done[k] = 1;
          progress = true;
          ++kept;
          moved += *e;
          continue;
        }
        refused[k] = after.fresh->rule + " at i" + std::to_string(after.fresh->at.value) + ": " + after.fresh->message;
        r.undo(r.log().size() - before);
      }
    }
    for (std::size_t k = 0; k < regions.size(); ++k)
      if (!done[k])
        st.notes.push_back("region i" + std::to_string(regions[k].now.front().value) + "..i" +
                           std::to_string(regions[k].now.back().value) + " left as it was: its schedule adds finding " +
                           refused[k]);
    st.notes.push_back("scheduled " + std::to_string(kept) + " of " + std::to_string(regions.size()) + " region(s), " +
                       std::to_string(moved) + " instruction(s) moved");
    return st;
  }
};

}  // namespace asmevo::passes
