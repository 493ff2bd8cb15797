// hazard-fix: the s_nop pass that clears hazards, judged by the hazard checker (analysis/hazard_check.hpp, whose rows
// cite the MI300/MI200 ISA guides and LLVM's GCNHazardRecognizer). nop-min (passes/nop_min.hpp) shrinks them again.
//
// hazard-fix inserts the fewest wait states that clear every hazard finding of severity error: for each offending
// instruction, in program order, it grows an `s_nop` directly before it (or inserts `s_nop 0`) one wait state at a
// time until that finding is gone, up to s_nop 15 (16 wait states, the field's maximum), then starts another s_nop.
// Findings it cannot clear that way (a rule no distance satisfies) are left and reported in its notes. Warnings
// (rows AMD's own kernels break) are left alone. Idempotent on clean code: a clean kernel gets no edit.
#pragma once

#include <set>
#include <string>

#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/op_builder.hpp"
#include "asmevo/passes/findings.hpp"
#include "asmevo/passes/nop_min.hpp"
#include "asmevo/passes/pass.hpp"

namespace asmevo::passes {

/// See the file comment.
struct HazardFix {
  static constexpr std::string_view name = "hazard-fix";
  static constexpr std::string_view summary = "insert the fewest s_nop wait states that clear every hazard the checker finds";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    const Program& p = r.program();
    std::set<detail::FindingKey> stuck;
    for (int guard = 0; guard < 4096; ++guard) {
      const auto now = detail::hazard_keys(p, c, true);
      const detail::FindingKey* todo = nullptr;
      for (const auto& k : now)
        if (!stuck.count(k)) { todo = &k; break; }
      if (!todo) break;
      const detail::FindingKey key = *todo;
      const InstId at{std::get<1>(key)};
      if (c.not_exercised && c.not_exercised->contains(at.value)) {
        stuck.insert(key);
        st.notes.push_back("left " + std::get<0>(key) + " at i" + std::to_string(at.value) +
                           ": the launch does not exercise that code, so no run could check a fix");
        continue;
      }
      bool cleared = false;
      const std::size_t mark = r.log().size();
      for (int step = 0; step < 64 && !cleared; ++step) {
        const auto idx = r.index_of(at);
        if (idx < 0) break;
        // The s_nop directly before `at` (same block), if any, and whether it has room left.
        const Item* prev = idx > 0 ? &p.items[static_cast<std::size_t>(idx) - 1] : nullptr;
        const bool grow = prev && prev->kind == Item::Kind::inst && detail::is_nop(prev->inst) &&
                          analysis::hazard_wait_states(prev->inst, p.target) < 16;
        // s_nop n-1 -> s_nop n, or a new s_nop 0.
        auto nop = build_inst<op::s_nop>(p.target, grow ? analysis::hazard_wait_states(prev->inst, p.target) : 0u);
        if (!nop) return unexpected(std::move(nop).error());
        auto e = grow ? r.replace(prev->inst.id, {std::move(*nop)}, "hazard-fix")
                      : r.insert_before(at, {std::move(*nop)}, "hazard-fix");
        if (!e) return unexpected(std::move(e).error());
        cleared = !detail::hazard_keys(p, c, true).count(key);
      }
      if (!cleared) {
        r.undo(r.log().size() - mark);
        stuck.insert(key);
        st.notes.push_back("could not clear " + std::get<0>(key) + " at i" + std::to_string(std::get<1>(key)) +
                           " with wait states");
      }
    }
    return st;
  }
};

}  // namespace asmevo::passes
