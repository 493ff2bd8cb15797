// Pipelines of passes: composed at compile time with Boost.Hana (a tuple of plain pass structs, run in order, stopping
// at the first error), or at run time by name from the registry (passes/registry.hpp).
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>

#include "asmevo/passes/pass.hpp"

namespace asmevo::passes {

/// A compile-time sequence of passes. A pipeline is itself a Pass (its stats sum those of its passes), so pipelines
/// nest; `run_each` gives each pass's own stats.
template <Pass... Ps>
struct Pipeline {
  static constexpr std::string_view name = "pipeline";
  static constexpr std::string_view summary = "passes run in order, stopping at the first error";
  /// Not claimed: a later pass can open work for an earlier one even when each is idempotent.
  static constexpr bool idempotent = false;
  boost::hana::tuple<Ps...> passes;

  /// Runs every pass in order on `r`; on the first error, stops and returns it (the edits made so far stay in the
  /// Rewriter's log, where the caller may undo them).
  [[nodiscard]] Expected<std::vector<PassStats>> run_each(Rewriter& r, const PassContext& c) const {
    std::vector<PassStats> out;
    std::optional<Diag> err;
    boost::hana::for_each(passes, [&](const auto& p) {
      if (err) return;
      auto s = run_pass(p, r, c);
      if (!s) err = std::move(s).error();
      else out.push_back(std::move(*s));
    });
    if (err) return unexpected(std::move(*err));
    return out;
  }

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    auto each = run_each(r, c);
    if (!each) return unexpected(std::move(each).error());
    PassStats sum;
    for (auto& s : *each) {
      sum.edits += s.edits;
      sum.insts_delta += s.insts_delta;
      sum.shrinks_resources = sum.shrinks_resources || s.shrinks_resources;
      for (auto& n : s.notes) sum.notes.push_back(s.pass + ": " + n);
    }
    return sum;
  }
};

/// `pipeline(WaitcntMin{}, Dce{})`: the passes, by value, in the order they run.
template <Pass... Ps>
[[nodiscard]] constexpr Pipeline<Ps...> pipeline(Ps... ps) {
  return Pipeline<Ps...>{boost::hana::make_tuple(std::move(ps)...)};
}

}  // namespace asmevo::passes
