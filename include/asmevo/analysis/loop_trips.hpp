// Concrete trip counts under a launch: for each loop whose trip count analysis/loops.hpp recognises, the induction
// variable's entry value, its step and the bound as analysis/known_bits.hpp knows them where the loop is entered
// (the end of the one block outside that enters it), run through TripCount::evaluate. A loop entered from several
// places, or whose values the launch does not fix, has none.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "asmevo/analysis/known_bits.hpp"
#include "asmevo/analysis/loops.hpp"

namespace asmevo::analysis {

/// Per loop of `li` (found on kb's program and kernel): its header's executions per entry under kb's launch, or
/// nullopt (see the file comment).
[[nodiscard]] inline std::vector<std::optional<std::uint64_t>> concrete_trip_counts(const LoopInfo& li,
                                                                                     const KnownBits& kb) {
  std::vector<std::optional<std::uint64_t>> out(li.loops.size());
  const Program& p = kb.program();
  const Cfg& g = kb.cfg();
  for (std::size_t k = 0; k < li.loops.size(); ++k) {
    const Loop& l = li.loops[k];
    if (!l.trip || !l.entered_from) continue;
    // The state at the end of the entering block.
    const auto& insts = g.blocks[*l.entered_from].insts;
    detail::KbState s;
    if (insts.empty()) {
      s = kb.block_in(*l.entered_from);
      s.A = &kb.alg();
    } else {
      s = kb.state_before(insts.back());
      kb.step(s, p.items[insts.back()].inst);
    }
    if (!s.reached) continue;
    const TripCount& t = *l.trip;
    const Induction& v = l.ivs[t.iv];
    auto value = [&](const LoopValue& x) { return x.is_const ? std::optional<std::uint32_t>(x.value) : known_value(s, x.unit); };
    const auto init = known_value(s, v.unit);
    auto step = value(v.step);
    const auto bound = value(t.bound);
    if (!init || !step || !bound) continue;
    if (v.negate_step) *step = 0u - *step;
    out[k] = t.evaluate(*init, *step, *bound);
  }
  return out;
}

}  // namespace asmevo::analysis
