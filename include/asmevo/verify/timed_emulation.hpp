// A launch on the emulator, timed by the cost model: the emulator traces one CU's share of the workgroups with the
// model's line sizes and LDS geometry, and the model turns the traces into modeled cycles. It sits in verify/, above
// both (the emulator executor's time() is one of its users), so that neither emu/ nor model/ needs the other's driver.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/model/params.hpp"
#include "asmevo/model/timing.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::verify {

/// An emulator run with its modeled timing.
struct TimedResult : emu::EmulateResult {
  std::optional<model::TimingReport> timing;  ///< for a run that ended cleanly
};

/// Runs `spec` on `module` as emu::emulate does, tracing at most `max_groups` workgroups of one CU's share, and
/// models their timing with the target's parameters (model/params.hpp). Errors are emulate's.
[[nodiscard]] inline Expected<TimedResult> emulate_timed(const codeobject::Module& module, const codeobject::ElfFile& elf,
                                                         const verify::LaunchSpec& spec, emu::EmulateOptions opt = {},
                                                         std::uint32_t max_groups = 64) {
  const model::TimingParams& p = model::timing_params(module.target);
  const emu::TraceConfig cfg = model::trace_config(p, max_groups);
  opt.trace = &cfg;
  auto r = emu::emulate(module, elf, spec, opt);
  if (!r) return unexpected(r.error());
  TimedResult out;
  static_cast<emu::EmulateResult&>(out) = std::move(*r);
  if (out.trace) {
    out.timing = model::model_timing(model::timing_input(*out.trace), p);
    out.trace.reset();  // the traces are large; the report is what callers read
  }
  return out;
}

}  // namespace asmevo::verify
