// How launch/'s readers (the launch-spec parser, the kernarg layout) report what they gathered: every problem
// joined into the one Diag the API returns. Not here: finding the problems.
#pragma once

#include <string>
#include <utility>

#include "asmevo/support/diag.hpp"

namespace asmevo::verify::detail {

/// Joins gathered problems into the one Diag the API returns; every problem goes to `all` when given.
[[nodiscard]] inline Unexpected gathered(Diags&& problems, Diags* all, const std::string& what) {
  if (all) all->insert(all->end(), problems.begin(), problems.end());
  if (problems.size() == 1) return unexpected(std::move(problems.front()));
  Diag d = problems.front();
  d.message = std::to_string(problems.size()) + " problems in the " + what + ":";
  d.text.clear();
  d.hint.clear();
  for (const auto& p : problems) {
    d.message += "\n  " + p.message;
    if (!p.hint.empty()) d.message += " (" + p.hint + ")";
  }
  return unexpected(std::move(d));
}

}  // namespace asmevo::verify::detail
