// The built-in passes by name, for pipelines chosen at run time (`asmevo apply --pass a,b`, edit scripts' "pass"
// edits, the optimizer's proposers), and the parser of a pass list with arguments (`schedule:window=64,dce`).
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/passes/batch_loads.hpp"
#include "asmevo/passes/dce.hpp"
#include "asmevo/passes/hazard_fix.hpp"
#include "asmevo/passes/load_widen.hpp"
#include "asmevo/passes/nop_min.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/peephole.hpp"
#include "asmevo/passes/schedule.hpp"
#include "asmevo/passes/software_pipeline.hpp"
#include "asmevo/passes/specialize.hpp"
#include "asmevo/passes/unroll.hpp"
#include "asmevo/passes/vgpr_compact.hpp"
#include "asmevo/passes/waitcnt_min.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::passes {

/// One registered pass: its name and summary (as `asmevo passes` prints them) and a type-erased runner.
struct PassInfo {
  std::string_view name;
  std::string_view summary;
  bool idempotent = false;
  Expected<PassStats> (*run)(Rewriter&, const PassContext&) = nullptr;
};

namespace detail {
template <Pass P>
[[nodiscard]] constexpr PassInfo info_of() {
  return PassInfo{P::name, P::summary, P::idempotent, [](Rewriter& r, const PassContext& c) { return run_pass(P{}, r, c); }};
}
}  // namespace detail

/// Every built-in pass, in the order `asmevo passes` lists them.
[[nodiscard]] ASMEVO_OUTLINE std::span<const PassInfo> builtin_passes()
#if ASMEVO_BODY_PASSES
{
  static const std::array<PassInfo, 12> all{
      detail::info_of<WaitcntMin>(),
      detail::info_of<NopMin>(),
      detail::info_of<HazardFix>(),
      detail::info_of<Dce>(),
      detail::info_of<VgprCompact>(),
      detail::info_of<LoadWiden>(),
      detail::info_of<Peephole>(),
      detail::info_of<Schedule>(),
      detail::info_of<Unroll>(),
      detail::info_of<SoftwarePipeline>(),
      detail::info_of<BatchLoads>(),
      detail::info_of<Specialize>(),
  };
  return all;
}
#else
;
#endif

/// The built-in pass called `name`, or nullptr.
[[nodiscard]] inline const PassInfo* find_pass(std::string_view name) {
  for (const auto& p : builtin_passes())
    if (p.name == name) return &p;
  return nullptr;
}

/// One entry of a pass list: a registered pass and its arguments.
struct PassCall {
  const PassInfo* pass = nullptr;
  std::map<std::string, std::string> args;
};

/// Parses `a,b:key=value:key2=value2,c`. Every unknown name and malformed argument is reported (all at once).
[[nodiscard]] inline Expected<std::vector<PassCall>> parse_pass_list(std::string_view text) {
  std::vector<PassCall> out;
  std::string errors;
  auto split = [](std::string_view s, char sep) {
    std::vector<std::string_view> v;
    for (std::size_t at = 0;;) {
      const auto k = s.find(sep, at);
      v.push_back(s.substr(at, k == std::string_view::npos ? std::string_view::npos : k - at));
      if (k == std::string_view::npos) break;
      at = k + 1;
    }
    return v;
  };
  std::string known;
  for (const auto& p : builtin_passes()) known += (known.empty() ? "" : ", ") + std::string(p.name);
  for (const auto entry : split(text, ',')) {
    const auto parts = split(entry, ':');
    PassCall call;
    call.pass = find_pass(parts[0]);
    if (!call.pass) {
      errors += (errors.empty() ? "" : "; ") + std::string("unknown pass '") + std::string(parts[0]) + "'";
      continue;
    }
    for (std::size_t k = 1; k < parts.size(); ++k) {
      const auto eq = parts[k].find('=');
      if (eq == std::string_view::npos || eq == 0) {
        errors += (errors.empty() ? "" : "; ") + std::string("pass '") + std::string(parts[0]) + "': argument '" +
                  std::string(parts[k]) + "' is not key=value";
        continue;
      }
      call.args[std::string(parts[k].substr(0, eq))] = std::string(parts[k].substr(eq + 1));
    }
    out.push_back(std::move(call));
  }
  if (!errors.empty()) return fail(DiagCode::usage, errors, {}, std::string(text), "passes: " + known);
  return out;
}

/// Runs a parsed pass list in order; stops at the first error.
[[nodiscard]] inline Expected<std::vector<PassStats>> run_pass_list(const std::vector<PassCall>& calls, Rewriter& r,
                                                                    PassContext c) {
  std::vector<PassStats> out;
  for (const auto& call : calls) {
    c.args = call.args;
    auto s = call.pass->run(r, c);
    if (!s) {
      Diag d = std::move(s).error();
      d.message = "pass '" + std::string(call.pass->name) + "': " + d.message;
      return unexpected(std::move(d));
    }
    out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace asmevo::passes
