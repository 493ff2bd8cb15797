// The built-in proposer: offline, deterministic for a seed. Each attempt it proposes one edit script for the hot
// window the search points it at, by one of six strategies (ProposalRequest::strategy):
//
//  - "diagnose": one of the transformations agent/diagnosis.hpp suggests -- first `specialize` where the launch
//                file fixes kernargs the code computes with (diagnose_launch), then for the focused window: a wait
//                inside a counted loop: `software-pipeline` to depth 8 or 4, or `unroll` by 4, 8 or 2 with
//                `batch-loads` and waitcnt-min; a wait elsewhere: `batch-loads`; a dependency or resource stall: the
//                schedule. Of a finding's suggestions it takes the first (the most promising) this lineage has not
//                tried on its current program; when no finding has one left (a barrier stall: nothing built-in
//                rewrites cross-wave reductions yet), it falls through to the next strategy.
//  - "schedule": the schedule pass over the window (a random region size), then waitcnt-min and nop-min.
//  - "hoist":    move one memory load of the window's blocks earlier, past the independent instructions above it and past the
//                s_waitcnts in between (a vmcnt(N) wait becomes vmcnt(N+1), so it still retires exactly what it
//                did: VMEM returns in issue order, MI300 ISA (CDNA3) §4.4 "S_WAITCNT"; a wait on lgkmcnt, which
//                SMEM retires out of order, is crossed only when it waits for nothing there), then waitcnt-min. Loads issued earlier hide their latency behind more work.
//  - "sink":     move one s_waitcnt of the window's blocks (weighted by its modeled stall) later, past instructions that read nothing it retires, so that
//                independent work runs while the memory operations complete; then waitcnt-min.
//  - "passes":   one of the cleanup passes or pipelines (waitcnt-min, nop-min, peephole, dce, load-widen,
//                vgpr-compact, batch-loads, and their combinations).
//  - "shuffle":  move one instruction of the window to another place its dependences allow (analysis/dependence.hpp),
//                then waitcnt-min: a random local step that lets later steps find what the list scheduler misses.
//
// Every move it proposes keeps the instruction's register and memory dependences within the block; whether the whole
// candidate is right is not its business: the search's gate (static checks, differential verification) decides.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/diagnosis.hpp"
#include "asmevo/agent/proposer.hpp"
#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/dependence.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/inst_form.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/passes/pass.hpp"

namespace asmevo::agent {

namespace builtin_detail {

using Json = nlohmann::json;

[[nodiscard]] inline std::string id_text(InstId id) { return "i" + std::to_string(id.value); }

[[nodiscard]] inline Json pass_edit(std::string_view name, Json args = Json::object()) {
  Json e{{"op", "pass"}, {"name", std::string(name)}};
  if (!args.empty()) e["args"] = std::move(args);
  return e;
}

using asmevo::form_of;

[[nodiscard]] inline bool is_wait(const Inst& in) { return op_of(in) == op::s_waitcnt; }

/// The item indexes of one block's instructions that lie in the window [lo, hi] (item indexes), with the block's.
struct Run {
  std::vector<std::size_t> items;  ///< the whole block's instructions
  std::size_t first = 0, last = 0; ///< positions in `items` of the window's first and last instruction
};

/// The blocks the window overlaps, each with the part of it inside the window. Blocks holding an instruction the
/// launch does not exercise are left out (an edit there could not be verified), and so are a versioned kernel's
/// guard and fallback.
[[nodiscard]] inline std::vector<Run> runs_of(const ProposalRequest& r, const analysis::Cfg& g) {
  const Program& p = r.module->program;
  std::size_t lo = 0, hi = p.items.size() ? p.items.size() - 1 : 0;
  if (r.focus < r.hot.size()) {
    bool a = false, b = false;
    for (std::size_t i = 0; i < p.items.size(); ++i) {
      if (p.items[i].kind != Item::Kind::inst) continue;
      if (p.items[i].inst.id == r.hot[r.focus].first) lo = i, a = true;
      if (p.items[i].inst.id == r.hot[r.focus].last) hi = i, b = true;
    }
    if (!a || !b || hi < lo) lo = 0, hi = p.items.size() ? p.items.size() - 1 : 0;
  }
  // A kernel `specialize` versioned keeps its guard and K0's code behind it as they are (passes::editable_blocks).
  std::vector<std::uint8_t> frozen(g.blocks.size(), 0);
  if (const auto e = g.block_named(r.kernel))
    for (const auto b : passes::detail::frozen_by_versioning(p, g, passes::detail::past_preload_prologue(p, g, *e)))
      frozen[b] = 1;
  std::vector<Run> out;
  for (std::size_t bi = 0; bi < g.blocks.size(); ++bi) {
    const auto& blk = g.blocks[bi];
    if (blk.insts.empty() || blk.insts.back() < lo || blk.insts.front() > hi || frozen[bi]) continue;
    bool cold = false;
    if (r.not_exercised)
      for (const std::size_t i : blk.insts) cold = cold || r.not_exercised->contains(p.items[i].inst.id.value);
    if (cold) continue;
    Run run{blk.insts, 0, blk.insts.size() - 1};
    while (run.first < run.last && run.items[run.first] < lo) ++run.first;
    while (run.last > run.first && run.items[run.last] > hi) --run.last;
    out.push_back(std::move(run));
  }
  return out;
}

/// Stall cycles the cost model attributes to instruction `id` in the focused window (0 when not listed).
[[nodiscard]] inline std::uint64_t stall_of(const ProposalRequest& r, InstId id) {
  if (r.focus >= r.hot.size()) return 0;
  for (const auto& h : r.hot[r.focus].insts)
    if (h.id == id) return h.stall_waitcnt + h.stall_dependency + h.stall_resource;
  return 0;
}

/// Picks an index in [0, weights.size()) with probability proportional to weight + 1.
template <class Rng>
[[nodiscard]] std::size_t pick_weighted(Rng& rng, const std::vector<std::uint64_t>& weights) {
  std::uint64_t total = 0;
  for (const auto w : weights) total += w + 1;
  std::uniform_int_distribution<std::uint64_t> d(0, total - 1);
  std::uint64_t x = d(rng);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (x < weights[i] + 1) return i;
    x -= weights[i] + 1;
  }
  return weights.size() - 1;
}

/// An instruction of a run a strategy may act on, and how much the cost model says acting there could save.
struct Cand {
  const Run* run = nullptr;
  std::size_t pos = 0;  ///< in run->items
  std::uint64_t weight = 0;
};

/// One of `cands` (not empty), chosen with probability proportional to weight + 1.
template <class Rng>
[[nodiscard]] Cand pick(Rng& rng, const std::vector<Cand>& cands) {
  std::vector<std::uint64_t> ws;
  for (const auto& c : cands) ws.push_back(c.weight);
  return cands[pick_weighted(rng, ws)];
}

}  // namespace builtin_detail

/// See the file comment.
class BuiltinProposer {
 public:
  /// The strategies, in the order a lineage steps through them when it stalls.
  static constexpr std::string_view strategies[] = {"diagnose", "schedule", "hoist", "sink", "passes", "shuffle"};

  [[nodiscard]] std::string_view name() const noexcept { return "builtin"; }

  [[nodiscard]] Proposal propose(const ProposalRequest& r) const {
    namespace bd = builtin_detail;
    Proposal out;
    if (!r.module) {
      out.failure = "no program to propose for";
      return out;
    }
    std::mt19937_64 rng(r.seed);
    const analysis::Cfg g = analysis::build_cfg(r.module->program);
    const auto runs = bd::runs_of(r, g);
    std::optional<bd::Json> edits;
    std::string summary;
    // A strategy that finds nothing to do here falls back to the next one, so that an attempt is rarely wasted.
    std::size_t start = 0;
    for (std::size_t i = 0; i < std::size(strategies); ++i)
      if (strategies[i] == r.strategy) start = i;
    for (std::size_t k = 0; k < std::size(strategies) && !edits; ++k) {
      const std::string_view s = strategies[(start + k) % std::size(strategies)];
      if (s == "diagnose") edits = diagnose(r, rng, summary);
      else if (s == "schedule") edits = schedule(r, rng, summary);
      else if (s == "hoist") edits = hoist(r, runs, rng, summary);
      else if (s == "sink") edits = sink(r, runs, rng, summary);
      else if (s == "passes") edits = passes(rng, summary);
      else edits = shuffle(r, runs, rng, summary);
    }
    if (!edits) {
      out.failure = "no strategy found anything to change in the window";
      return out;
    }
    out.script = bd::Json{{"kernel", r.kernel}, {"edits", std::move(*edits)}};
    out.summary = std::move(summary);
    return out;
  }

 private:
  using Json = nlohmann::json;

  template <class Rng>
  [[nodiscard]] static std::optional<Json> schedule(const ProposalRequest& r, Rng& rng, std::string& summary) {
    namespace bd = builtin_detail;
    static constexpr unsigned sizes[] = {8, 16, 32, 64, 128, 256};
    const unsigned w = sizes[std::uniform_int_distribution<std::size_t>(0, std::size(sizes) - 1)(rng)];
    Json args{{"window", w}};
    const bool whole = r.focus >= r.hot.size() || std::uniform_int_distribution<int>(0, 3)(rng) == 0;
    if (!whole) args["from"] = bd::id_text(r.hot[r.focus].first), args["to"] = bd::id_text(r.hot[r.focus].last);
    summary = "schedule (regions of " + std::to_string(w) + ") " +
              (whole ? std::string("over the kernel")
                     : "over " + bd::id_text(r.hot[r.focus].first) + ".." + bd::id_text(r.hot[r.focus].last)) +
              ", then waitcnt-min, nop-min";
    return Json::array({bd::pass_edit("schedule", std::move(args)), bd::pass_edit("waitcnt-min"), bd::pass_edit("nop-min")});
  }

  /// "diagnose" (see the file comment): the most promising untried suggestion for the focused window.
  template <class Rng>
  [[nodiscard]] static std::optional<Json> diagnose(const ProposalRequest& r, Rng& rng, std::string& summary) {
    std::vector<Diagnosis> ds;
    // The launch finding first (it concerns the whole kernel), then the focused window's.
    if (auto l = agent::diagnose_launch(r.module->program, r.kernel, r.launches)) ds.push_back(std::move(*l));
    if (r.focus < r.hot.size()) {
      const std::vector<HotSpot> one{r.hot[r.focus]};
      for (auto& d : agent::diagnose(r.module->program, r.kernel, one)) ds.push_back(std::move(d));
    }
    // The first finding with suggestions this lineage has not tried on its current program (its history since the
    // last acceptance).
    std::vector<const Json*> fresh;
    const Diagnosis* found = nullptr;
    for (const auto& d : ds) {
      for (const auto& sug : d.suggestions) {
        const Json script{{"kernel", r.kernel}, {"edits", sug}};
        bool tried = false;
        for (auto it = r.history.rbegin(); it != r.history.rend() && it->outcome != "accepted"; ++it) tried |= it->script == script;
        if (!tried) fresh.push_back(&sug);
      }
      if (!fresh.empty()) {
        found = &d;
        break;
      }
    }
    if (!found) return std::nullopt;
    const Diagnosis& d = *found;
    (void)rng;  // deterministic by design: the diagnosis orders its suggestions
    const Json& edits = *fresh.front();
    for (const auto& e : edits) {
      summary += (summary.empty() ? "" : ", ") + e["name"].get<std::string>();
      if (e.contains("args"))
        for (const auto& [k, v] : e["args"].items()) summary += ":" + k + "=" + (v.is_string() ? v.template get<std::string>() : v.dump());
    }
    summary += " (" + d.cause + ")";
    return edits;
  }

  template <class Rng>
  [[nodiscard]] static std::optional<Json> passes(Rng& rng, std::string& summary) {
    namespace bd = builtin_detail;
    static constexpr std::string_view lists[][3] = {
        {"waitcnt-min", "", ""}, {"nop-min", "", ""},      {"peephole", "waitcnt-min", ""},
        {"dce", "nop-min", ""},  {"load-widen", "waitcnt-min", ""}, {"vgpr-compact", "", ""},
        {"peephole", "dce", "waitcnt-min"}, {"batch-loads", "waitcnt-min", ""},
    };
    const auto& l = lists[std::uniform_int_distribution<std::size_t>(0, std::size(lists) - 1)(rng)];
    Json e = Json::array();
    for (const auto n : l)
      if (!n.empty()) {
        e.push_back(bd::pass_edit(n));
        summary += (summary.empty() ? "" : ", ") + std::string(n);
      }
    return e;
  }

  template <class Rng>
  [[nodiscard]] static std::optional<Json> hoist(const ProposalRequest& r, const std::vector<builtin_detail::Run>& runs,
                                                 Rng& rng, std::string& summary) {
    namespace bd = builtin_detail;
    const Program& p = r.module->program;
    // Candidates: loads with something above them in the block, weighted by the stall of the 32 instructions below
    // them (what their latency costs).
    std::vector<bd::Cand> cands;
    for (const auto& run : runs)
      for (std::size_t k = 1; k < run.items.size(); ++k) {  // the whole block: a load above the window feeds it
        const Inst& in = p.items[run.items[k]].inst;
        const auto props = bd::form_of(in).props;
        using namespace isa::prop;
        if (!(props & load) || (props & (store | atomic | lds_dma))) continue;
        // SMEM returns out of order: an lgkmcnt wait above it would not keep meaning the same with one more
        // outstanding operation unless it waits for zero; keep to VMEM/FLAT/LDS loads.
        if (props & smem) continue;
        std::uint64_t w = 0;
        for (std::size_t j = k + 1; j < run.items.size() && j <= k + 32; ++j) w += bd::stall_of(r, p.items[run.items[j]].inst.id);
        cands.push_back({&run, k, w});
      }
    if (cands.empty()) return std::nullopt;
    const bd::Cand c = bd::pick(rng, cands);
    const Inst& ld = p.items[c.run->items[c.pos]].inst;
    const auto props = bd::form_of(ld).props;
    const bool vm = (props & isa::prop::vm_cnt) != 0, lgkm = (props & isa::prop::lgkm_cnt) != 0;
    // Walk up: stop at an instruction the load depends on (registers, memory order, a same-counter memory operation
    // whose order the waits below rely on) or at a barrier other than an s_waitcnt. An s_waitcnt is crossed only if
    // its counts have room for one more outstanding operation, and only if the load depends on no memory operation
    // above it (the wait may be what makes that operation's result readable).
    std::size_t top = c.pos;
    std::vector<std::size_t> waits;  // positions of the s_waitcnts crossed, nearest first
    const unsigned vm_max = max_count(p.target, Counter::vm), lgkm_max = max_count(p.target, Counter::lgkm);
    for (std::size_t j = c.pos; j-- > 0;) {
      const Inst& above = p.items[c.run->items[j]].inst;
      if (bd::is_wait(above)) {
        const Waitcnt w = decode_waitcnt(p.target, static_cast<std::uint16_t>(above.ops.empty() ? 0 : above.ops[0].imm));
        // lgkmcnt also counts SMEM, which returns out of order, and FLAT counts in both counters: a wait that
        // counts them is crossed only when it waits for nothing on them. vmcnt retires VMEM in issue order, so a
        // VMEM load crosses a vmcnt(N) wait that becomes vmcnt(N+1).
        if ((lgkm && w.get(Counter::lgkm) != lgkm_max) || (lgkm && vm && w.get(Counter::vm) != vm_max) ||
            (vm && w.get(Counter::vm) != vm_max && w.get(Counter::vm) + 1 >= vm_max))
          break;
        waits.push_back(j);
        top = j;
        continue;
      }
      const std::size_t pair[] = {c.run->items[j], c.run->items[c.pos]};
      const auto dg = analysis::build_dependences(p, pair);
      if (!dg.nodes[0].barrier.empty() || dg.edge(0, 1)) break;
      top = j;
    }
    // A crossed wait may be what makes some memory operation's result readable by the load (issued above it, in this
    // block or before it): cross none if any memory operation of the program writes a register the load touches.
    if (!waits.empty()) {
      const std::size_t self[] = {c.run->items[c.pos]};
      const auto mine = analysis::build_dependences(p, self);
      std::vector<unsigned> units = mine.nodes[0].reads;
      units.insert(units.end(), mine.nodes[0].writes.begin(), mine.nodes[0].writes.end());
      std::sort(units.begin(), units.end());
      bool touched = false;
      for (std::size_t i = 0; i < p.items.size() && !touched; ++i) {
        if (p.items[i].kind != Item::Kind::inst || i == c.run->items[c.pos]) continue;
        using namespace isa::prop;
        if (!(bd::form_of(p.items[i].inst).props & (vm_cnt | lgkm_cnt | exp_cnt))) continue;
        const std::size_t one[] = {i};
        for (const unsigned u : analysis::build_dependences(p, one).nodes[0].writes)
          touched = touched || std::binary_search(units.begin(), units.end(), u);
      }
      if (touched) {
        top = waits.front() + 1;
        waits.clear();
      }
    }
    if (top == c.pos) return std::nullopt;
    // Somewhere between the top and one place up.
    const std::size_t dest = std::uniform_int_distribution<std::size_t>(top, c.pos - 1)(rng);
    Json e = Json::array();
    e.push_back({{"op", "move"}, {"at", bd::id_text(ld.id)}, {"before", bd::id_text(p.items[c.run->items[dest]].inst.id)}});
    for (const std::size_t j : waits) {
      if (j < dest) continue;
      const Inst& wi = p.items[c.run->items[j]].inst;
      Waitcnt w = decode_waitcnt(p.target, static_cast<std::uint16_t>(wi.ops.empty() ? 0 : wi.ops[0].imm));
      for (const auto& [on, ctr] : {std::pair{vm, Counter::vm}, std::pair{lgkm, Counter::lgkm}})
        if (on && w.get(ctr) != max_count(p.target, ctr)) w.set(ctr, w.get(ctr) + 1);
      e.push_back({{"op", "set_waitcnt"}, {"at", bd::id_text(wi.id)}, {"vmcnt", w.get(Counter::vm)},
                   {"expcnt", w.get(Counter::exp)}, {"lgkmcnt", w.get(Counter::lgkm)}});
    }
    e.push_back(bd::pass_edit("waitcnt-min"));
    summary = "hoist " + bd::id_text(ld.id) + " `" + std::string(bd::form_of(ld).mnemonic) + "` " +
              std::to_string(c.pos - dest) + " instruction(s) earlier" +
              (waits.empty() ? std::string() : ", past " + std::to_string(waits.size()) + " s_waitcnt(s)") +
              ", then waitcnt-min";
    return e;
  }

  template <class Rng>
  [[nodiscard]] static std::optional<Json> sink(const ProposalRequest& r, const std::vector<builtin_detail::Run>& runs,
                                                Rng& rng, std::string& summary) {
    namespace bd = builtin_detail;
    const Program& p = r.module->program;
    std::vector<bd::Cand> cands;
    for (const auto& run : runs)
      for (std::size_t k = 0; k + 1 < run.items.size(); ++k)  // the whole block, weighted by stall
        if (bd::is_wait(p.items[run.items[k]].inst)) cands.push_back({&run, k, bd::stall_of(r, p.items[run.items[k]].inst.id)});
    if (cands.empty()) return std::nullopt;
    const bd::Cand c = bd::pick(rng, cands);
    // How far down: past instructions that are not memory operations, waits or barriers, and that read and write no
    // register a memory operation above the wait in this block, or anywhere in another block, writes (what the wait
    // may retire). The static checker and the verifier still decide.
    std::vector<unsigned> pending;
    const std::size_t wait_item = c.run->items[c.pos], block_end = c.run->items.back();
    for (std::size_t i = 0; i < p.items.size(); ++i) {
      using namespace isa::prop;
      if (p.items[i].kind != Item::Kind::inst || (i > wait_item && i <= block_end)) continue;  // not below it here
      if (!(bd::form_of(p.items[i].inst).props & (vm_cnt | lgkm_cnt | exp_cnt))) continue;
      const std::size_t one[] = {i};
      const auto w = analysis::build_dependences(p, one).nodes[0].writes;
      pending.insert(pending.end(), w.begin(), w.end());
    }
    std::sort(pending.begin(), pending.end());
    std::size_t bottom = c.pos;
    for (std::size_t j = c.pos + 1; j < c.run->items.size(); ++j) {
      const Inst& in = p.items[c.run->items[j]].inst;
      const auto props = bd::form_of(in).props;
      using namespace isa::prop;
      if (props & (sopp | branch | terminator | vm_cnt | lgkm_cnt | exp_cnt | side_effects)) break;
      if (!analysis::barrier_reason(in).empty()) break;  // s_getpc_b64, PC-relative literals, ...
      const std::size_t one[] = {c.run->items[j]};
      const auto dn = analysis::build_dependences(p, one).nodes[0];
      bool touches = false;
      for (const auto* units : {&dn.reads, &dn.writes})
        for (const unsigned u : *units) touches = touches || std::binary_search(pending.begin(), pending.end(), u);
      if (touches) break;
      bottom = j;
    }
    if (bottom == c.pos) return std::nullopt;
    const std::size_t dest = std::uniform_int_distribution<std::size_t>(c.pos + 1, bottom)(rng);
    const Inst& w = p.items[c.run->items[c.pos]].inst;
    summary = "sink s_waitcnt " + bd::id_text(w.id) + " " + std::to_string(dest - c.pos) + " instruction(s) later, then waitcnt-min";
    return Json::array({Json{{"op", "move"}, {"at", bd::id_text(w.id)}, {"after", bd::id_text(p.items[c.run->items[dest]].inst.id)}},
                        bd::pass_edit("waitcnt-min")});
  }

  template <class Rng>
  [[nodiscard]] static std::optional<Json> shuffle(const ProposalRequest& r, const std::vector<builtin_detail::Run>& runs,
                                                   Rng& rng, std::string& summary) {
    namespace bd = builtin_detail;
    const Program& p = r.module->program;
    if (runs.empty()) return std::nullopt;
    const auto& run = runs[std::uniform_int_distribution<std::size_t>(0, runs.size() - 1)(rng)];
    if (run.last <= run.first) return std::nullopt;
    // At most 64 instructions around the window's part of the block: the graph is quadratic.
    const std::size_t lo = run.first, hi = std::min(run.last, run.first + 63);
    const std::vector<std::size_t> items(run.items.begin() + static_cast<std::ptrdiff_t>(lo),
                                         run.items.begin() + static_cast<std::ptrdiff_t>(hi) + 1);
    const auto dg = analysis::build_dependences(p, items);
    const auto n = static_cast<std::uint32_t>(items.size());
    for (int tries = 0; tries < 8; ++tries) {
      const std::uint32_t a = std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
      if (!dg.nodes[a].barrier.empty()) continue;
      // The legal range: after its last predecessor, before its first successor (edges in the DAG), and not past a
      // barrier.
      std::uint32_t up = a, down = a;
      while (up > 0 && dg.nodes[up - 1].barrier.empty() && !dg.ordered(up - 1, a)) --up;
      while (down + 1 < n && dg.nodes[down + 1].barrier.empty() && !dg.ordered(a, down + 1)) ++down;
      if (up == a && down == a) continue;
      std::uint32_t to = a;
      while (to == a) to = std::uniform_int_distribution<std::uint32_t>(up, down)(rng);
      const InstId me = dg.nodes[a].id, there = dg.nodes[to].id;
      summary = "move " + bd::id_text(me) + " `" + std::string(bd::form_of(p.items[items[a]].inst).mnemonic) + "` " +
                (to < a ? "up " + std::to_string(a - to) : "down " + std::to_string(to - a)) + ", then waitcnt-min";
      return Json::array({Json{{"op", "move"}, {"at", bd::id_text(me)}, {to < a ? "before" : "after", bd::id_text(there)}},
                          bd::pass_edit("waitcnt-min")});
    }
    return std::nullopt;
  }
};

static_assert(Proposer<BuiltinProposer>);

}  // namespace asmevo::agent
