// The static findings a pass must not add, as comparable keys: (rule, instruction id, other instruction id). Ids
// survive edits, so a finding that moves with its instructions keeps its key and a finding a pass creates has a new
// one. Passes that remove or move instructions take the keys before an edit and check after it that nothing is new
// (waitcnt-min, nop-min, dce, schedule; tests/passes/pass_findings_test.cpp holds every pass to it on the corpus).
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/findings.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/passes/pass.hpp"

namespace asmevo::passes::detail {

using FindingKey = std::tuple<std::string, std::uint32_t, std::uint32_t>;

[[nodiscard]] inline FindingKey key_of(const analysis::Finding& f) {
  return {f.rule, f.at.value, f.other ? f.other->value : ~0u};
}

/// The findings of `f` as keys.
[[nodiscard]] inline std::set<FindingKey> finding_keys(const analysis::Findings& f) {
  std::set<FindingKey> s;
  for (const auto& x : f) s.insert(key_of(x));
  return s;
}

/// True if every key of `after` is in `before` (nothing new was found).
[[nodiscard]] inline bool no_new(const std::set<FindingKey>& before, const std::set<FindingKey>& after) {
  return std::includes(before.begin(), before.end(), after.begin(), after.end());
}

/// The waitcnt findings of the kernels entered at `entries`.
[[nodiscard]] inline std::set<FindingKey> waitcnt_keys(const Program& p, const analysis::Cfg& g,
                                                      const std::vector<std::uint32_t>& entries) {
  std::set<FindingKey> s;
  for (const auto e : entries) s.merge(finding_keys(analysis::check_waitcnt(p, g, e, p.target)));
  return s;
}

/// The hazard findings of the kernels `c` names (only errors when `errors_only`); none when they cannot be found.
[[nodiscard]] inline std::set<FindingKey> hazard_keys(const Program& p, const PassContext& c, bool errors_only = false) {
  const analysis::Cfg g = analysis::build_cfg(p);
  auto entries = kernel_entries(p, g, c);
  std::set<FindingKey> s;
  if (!entries) return s;
  for (const auto e : *entries)
    for (const auto& f : analysis::check_hazards(p, g, e, p.target, c.xnack))
      if (!errors_only || f.severity == analysis::Severity::error) s.insert(key_of(f));
  return s;
}

}  // namespace asmevo::passes::detail
