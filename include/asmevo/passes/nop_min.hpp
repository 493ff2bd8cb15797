// nop-min: shrinks the s_nops, judged by the hazard checker (analysis/hazard_check.hpp, whose rows cite the
// MI300/MI200 ISA guides and LLVM's GCNHazardRecognizer). Its companion hazard-fix, which inserts them, is in
// passes/hazard_fix.hpp.
//
// nop-min shrinks every reachable `s_nop N` to the smallest N (or drops it) that adds no hazard finding to its
// kernel. Idempotent: a second run finds every s_nop already at its smallest count. The s_nop's cost is N + 1 wait
// states (ISA §4.5), so it never adds instructions or cycles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/op_builder.hpp"
#include "asmevo/passes/findings.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/waitcnt_min.hpp"

namespace asmevo::passes {

namespace detail {

[[nodiscard]] inline bool is_nop(const Inst& in) { return op_of(in) == op::s_nop; }

}  // namespace detail

/// See the file comment.
struct NopMin {
  static constexpr std::string_view name = "nop-min";
  static constexpr std::string_view summary = "shrink or drop each s_nop to the fewest wait states no hazard rule needs";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    const Program& p = r.program();
    const auto base = detail::hazard_keys(p, c);
    std::vector<InstId> nops;
    {
      const analysis::Cfg g = analysis::build_cfg(p);
      auto entries = kernel_entries(p, g, c);
      if (!entries) return unexpected(std::move(entries).error());
      const auto live = editable_blocks(p, g, *entries, c);
      for (std::size_t i = 0; i < p.items.size(); ++i)
        if (p.items[i].kind == Item::Kind::inst && detail::is_nop(p.items[i].inst) && g.block_of[i] != analysis::Cfg::none &&
            live[g.block_of[i]])
          nops.push_back(p.items[i].inst.id);
    }
    for (const InstId id : nops) {
      const unsigned have = analysis::hazard_wait_states(*p.find(id), p.target);
      // Try dropping it, then each smaller count from the smallest up: the first that adds no finding wins.
      if (auto e = r.erase(id, "nop-min"); !e) return unexpected(std::move(e).error());
      if (detail::no_new(base, detail::hazard_keys(p, c))) continue;
      r.undo(1);
      for (unsigned n = 0; n + 1 < have; ++n) {
        auto nop = build_inst<op::s_nop>(p.target, n);
        if (!nop) return unexpected(std::move(nop).error());
        if (auto e = r.replace(id, {std::move(*nop)}, "nop-min"); !e) return unexpected(std::move(e).error());
        if (detail::no_new(base, detail::hazard_keys(p, c))) break;
        r.undo(1);
      }
    }
    return st;
  }
};

}  // namespace asmevo::passes
