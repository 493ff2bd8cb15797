// Diagnosis: what the cost model's hot windows say to try, read the way a kernel engineer reads a profile. Both
// proposers use it: the built-in one draws its "diagnose" attempts from the suggestions, and the LLM prompt prints
// the findings with the speed-of-light bound so that a model can call a transformation by name.
//
// Per hot window, the cause that holds most of its stall cycles (HotInst: waitcnt, dependency, barrier, resource),
// and where it sits:
//  - waitcnt stalls inside a counted single-block loop (analysis/loops.hpp: a trip count is known, the induction
//    variable an SGPR with a constant step, as `unroll` needs): the next
//    iterations' loads could be in flight while this one waits. Suggested, most promising first: `software-pipeline`
//    to depth 8 and 4 (verified only where the launch also runs loops shorter than the depth: its trip tests must be
//    taken both ways), then `unroll` by 4, 8 and 2 with `batch-loads` and waitcnt-min.
//  - waitcnt stalls elsewhere: loads issued too late in their block. Suggested: `batch-loads`, then the schedule.
//  - barrier stalls: waves wait for each other, usually a cross-wave reduction through LDS. Nothing is suggested yet:
//    no built-in pass rewrites such a reduction.
//  - dependency or resource stalls: an instruction waits on a result or a busy unit. Suggested: the schedule.
//  - waitcnt stalls at s_endpgm: the stores draining at the end; nothing is suggested.
// And, apart from the windows, when the launch file is known (diagnose_launch): code that depends on kernargs every
// shape fixes -- a branch, an address computation, a load of a size -- which `specialize` folds in a guarded copy.
// Suggested: `specialize`, then waitcnt-min (the copy's waits for loads it no longer makes).
// A suggestion is an edit-script "pass" entry list, as a proposer sends it; a finding lists its suggestions most
// promising first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/proposer.hpp"
#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/passes/specialize.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::agent {

/// One finding about one hot window.
struct Diagnosis {
  std::size_t window = 0;  ///< index into the hot windows
  std::string cause;       ///< "waitcnt-in-loop", "waitcnt", "store-drain", "barrier", "dependency", "resource",
                           ///< "launch-constant"
  std::string text;        ///< one line: what the model sees and what would address it
  std::uint64_t stall = 0; ///< the window's stall cycles of that cause
  std::string loop;        ///< the loop's header label, for a stall inside a loop
  /// Each suggestion: the edits of one script (edit-script "pass" entries).
  std::vector<nlohmann::json> suggestions;
};

namespace diagnosis_detail {

[[nodiscard]] inline nlohmann::json pass_entry(std::string_view name, nlohmann::json args = nlohmann::json::object()) {
  nlohmann::json e{{"op", "pass"}, {"name", std::string(name)}};
  if (!args.empty()) e["args"] = std::move(args);
  return e;
}

}  // namespace diagnosis_detail

/// The findings for `hot` (the hot windows of `p`, kernel `kernel`), hottest window first (see the file comment).
[[nodiscard]] ASMEVO_OUTLINE std::vector<Diagnosis> diagnose(const Program& p, const std::string& kernel,
                                                     const std::vector<HotSpot>& hot)
#if ASMEVO_BODY_AGENT
{
  namespace dd = diagnosis_detail;
  std::vector<Diagnosis> out;
  const analysis::Cfg g = analysis::build_cfg(p);
  const auto entry = g.block_named(kernel);
  analysis::LoopInfo li;
  if (entry) li = analysis::find_loops(p, g, *entry);
  // Item index per instruction id, to find a stalled instruction's block.
  std::vector<std::size_t> item_of;
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst) {
      const auto v = p.items[i].inst.id.value;
      if (v >= item_of.size()) item_of.resize(v + 1, ~std::size_t{0});
      item_of[v] = i;
    }
  for (std::size_t w = 0; w < hot.size(); ++w) {
    std::uint64_t wait = 0, dep = 0, bar = 0, res = 0;
    const HotInst* worst = nullptr;
    for (const auto& h : hot[w].insts) {
      wait += h.stall_waitcnt, dep += h.stall_dependency, bar += h.stall_barrier, res += h.stall_resource;
      if (!worst || h.stall_waitcnt > worst->stall_waitcnt) worst = &h;
    }
    const std::uint64_t top = std::max({wait, dep, bar, res});
    if (top == 0) continue;
    Diagnosis d;
    d.window = w;
    d.stall = top;
    const std::string where = "window i" + std::to_string(hot[w].first.value) + "..i" + std::to_string(hot[w].last.value);
    const bool at_end = worst && worst->id.value < item_of.size() && item_of[worst->id.value] != ~std::size_t{0} &&
                        isa::forms(p.target)[p.items[item_of[worst->id.value]].inst.form].has(isa::prop::terminator);
    if (top == wait && at_end) {
      d.cause = "store-drain";
      d.text = where + ": " + std::to_string(wait) + " wave-cycles at the end of the kernel, waiting for its stores "
               "to drain; nothing to move there";
    } else if (top == wait) {
      // The loop around the instruction that waits longest.
      const analysis::Loop* loop = nullptr;
      if (worst && worst->id.value < item_of.size() && item_of[worst->id.value] != ~std::size_t{0}) {
        const auto b = g.block_of[item_of[worst->id.value]];
        for (const auto& l : li.loops)
          if (b != analysis::Cfg::none && l.contains(b) && (!loop || l.depth > loop->depth)) loop = &l;
      }
      // What `unroll` takes: one block, a known trip count, a scalar induction variable with a constant step.
      const auto* iv = loop && loop->trip ? &loop->ivs[loop->trip->iv] : nullptr;
      const bool unrollable = iv && !iv->vector && iv->unit < 102 && iv->step.is_const;
      if (loop && loop->blocks.size() == 1 && unrollable && !g.blocks[loop->header].labels.empty()) {
        d.cause = "waitcnt-in-loop";
        d.loop = g.blocks[loop->header].labels.front();
        const auto& v = loop->ivs[loop->trip->iv];
        d.text = where + ": " + std::to_string(wait) + " wave-cycles waiting on memory in the counted loop at " + d.loop +
                 " (trip count " + loop->trip->symbolic(v) + "): the next iterations' loads could be in flight; try "
                 "software-pipeline with loop=" + d.loop + " and depth 8 or 4 (the launch must then run loops "
                 "shorter than the depth), or unroll with loop=" + d.loop + " and factor 4, 8 or 2, then batch-loads";
        // Most promising first: a pipeline keeps its loads in flight across the back edge, where unrolled groups
        // drain between groups; deeper hides more latency (the gate decides what the registers cost).
        for (const unsigned depth : {8u, 4u})
          d.suggestions.push_back(nlohmann::json::array(
              {dd::pass_entry("software-pipeline", {{"depth", depth}, {"loop", d.loop}}), dd::pass_entry("waitcnt-min")}));
        for (const unsigned f : {4u, 8u, 2u})
          d.suggestions.push_back(nlohmann::json::array(
              {dd::pass_entry("unroll", {{"factor", f}, {"loop", d.loop}}), dd::pass_entry("batch-loads"),
               dd::pass_entry("waitcnt-min")}));
      } else {
        d.cause = "waitcnt";
        d.text = where + ": " + std::to_string(wait) + " wave-cycles waiting on memory" +
                 (loop ? std::string(" in a loop unroll cannot take (") +
                             (loop->blocks.size() != 1 ? std::string("several blocks")
                              : !loop->no_trip.empty() ? loop->no_trip
                              : !unrollable ? std::string("its induction variable is not an SGPR with a constant step")
                                            : std::string("its header has no label")) + ")"
                       : std::string()) +
                 ": issue loads earlier; try batch-loads, then the schedule";
        d.suggestions.push_back(nlohmann::json::array({dd::pass_entry("batch-loads"), dd::pass_entry("waitcnt-min")}));
      }
    } else if (top == bar) {
      d.cause = "barrier";
      d.text = where + ": " + std::to_string(bar) + " wave-cycles at s_barrier (waves waiting for each other, often a "
               "reduction across waves through LDS); no built-in pass rewrites that yet";
    } else {
      d.cause = top == dep ? "dependency" : "resource";
      d.text = where + ": " + std::to_string(top) + " wave-cycles " +
               (top == dep ? "waiting on a result" : "waiting for a unit another wave holds") +
               ": interleave independent work; try the schedule";
      d.suggestions.push_back(nlohmann::json::array({dd::pass_entry("schedule"), dd::pass_entry("waitcnt-min")}));
    }
    out.push_back(std::move(d));
  }
  return out;
}
#else
;
#endif

/// What `specialize` would do to kernel `kernel` of `p` under `launches` (one entry per shape), as a finding: it runs
/// the pass on a copy and reports its note when the guarded copy folds something. Nothing when no launch is known,
/// the kernel reads nothing every shape fixes, or the copy would fold nothing.
[[nodiscard]] inline std::optional<Diagnosis> diagnose_launch(
    const Program& p, const std::string& kernel, const std::shared_ptr<const std::vector<analysis::LaunchFacts>>& launches) {
  if (!launches || launches->empty()) return std::nullopt;
  Program work = p;
  passes::Rewriter r(work);
  passes::PassContext c;
  c.kernels = {kernel};
  c.launches = launches;
  auto st = passes::run_pass(passes::Specialize{}, r, c);
  if (!st || st->edits == 0 || st->notes.empty()) return std::nullopt;
  Diagnosis d;
  d.cause = "launch-constant";
  d.text = "every shape of the launch file fixes kernargs the code computes with: " + st->notes.front() +
           " (an instruction count, not cycles); try specialize";
  d.suggestions.push_back(nlohmann::json::array({diagnosis_detail::pass_entry("specialize"),
                                                 diagnosis_detail::pass_entry("waitcnt-min")}));
  d.suggestions.push_back(nlohmann::json::array({diagnosis_detail::pass_entry("specialize")}));
  return d;
}

}  // namespace asmevo::agent
