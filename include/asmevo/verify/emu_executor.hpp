// The CPU emulator as a verify::Executor: one launch run on emu::emulate with adversarial completion order and
// hazard checking on, its stop mapped to a RunOutcome, and "timing" as the cost model's modeled cycles.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <memory>
#include <utility>

#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/verify/executor.hpp"
#include "asmevo/verify/timed_emulation.hpp"

namespace asmevo::verify {

/// How the emulator runs what the verifier asks for.
struct EmuExecutorOptions {
  /// Adversarial: memory operations complete in a seeded order that differs from issue order wherever the ISA
  /// allows it, so an edit that reads a load's register before the s_waitcnt covering it stops the run; eager
  /// completes each operation at issue (what a permissive machine would do).
  emu::Completion completion = emu::Completion::adversarial;
  /// Check the wait-state rules as instructions run (emu/hazards.hpp): a hazard stops the run.
  bool hazards = true;
  /// Per wave: a run past it stops with StopKind::limit (a hang). 2^24 is about two seconds of emulation: far more
  /// than the corpus launches need, little enough that a mutant with a broken loop bound fails fast.
  std::uint64_t instruction_limit = std::uint64_t{1} << 24;
  unsigned threads = 1;  ///< host threads running workgroups (1: deterministic for a given schedule seed)
};

/// An emu::Stop as the executor-neutral StopKind.
[[nodiscard]] constexpr StopKind stop_kind_of(emu::Stop::Kind k) noexcept {
  switch (k) {
    case emu::Stop::Kind::none: return StopKind::none;
    case emu::Stop::Kind::fault: return StopKind::fault;
    case emu::Stop::Kind::waitcnt: return StopKind::waitcnt;
    case emu::Stop::Kind::unsupported: return StopKind::unsupported;
    case emu::Stop::Kind::illegal: return StopKind::illegal;
    case emu::Stop::Kind::limit: return StopKind::limit;
    case emu::Stop::Kind::hazard: return StopKind::hazard;
  }
  return StopKind::device;
}

/// The emulator executor. Every buffer sits between unbacked guard zones (emu/memory.hpp), so a stray access stops
/// the run as a fault instead of landing in a guard: OutBuffer::guard_hit stays empty.
class EmuExecutor {
 public:
  EmuExecutor() = default;
  explicit EmuExecutor(EmuExecutorOptions o) : opt_(o) {}

  [[nodiscard]] std::string_view name() const noexcept { return "emu"; }
  /// Runs evaluate instructions with the emulator's semantics (emu/semantics.hpp), some of them only approximately:
  /// the differential verifier then refuses a K1 that adds or changes such an instruction (approximate_changes).
  static constexpr bool emulated_semantics = true;
  [[nodiscard]] const EmuExecutorOptions& options() const noexcept { return opt_; }

  /// One launch: the spec's inputs for `rr.trial`, scheduled by `rr.schedule` and `rr.schedule_seed` (the outcome's
  /// `schedule` says which waves a hold-one-wave schedule held in workgroup (0,0,0)). Bad input (an unknown kernel,
  /// arguments that do not match the metadata) is an error; a kernel that stops is an outcome.
  [[nodiscard]] Expected<RunOutcome> run(const CodeObject& co, const LaunchSpec& spec, const RunRequest& rr) {
    emu::EmulateOptions eo = options_for(rr.trial, rr.schedule_seed);
    eo.watch = rr.watch;
    eo.run.log_compares = rr.log_compares;
    eo.run.schedule = rr.schedule == ScheduleKind::hold_one_wave ? emu::Schedule::hold_one_wave : emu::Schedule::random;
    auto res = emu::emulate(co.module, co.elf, spec, eo);
    if (!res) return unexpected(std::move(res).error());
    RunOutcome out;
    ScheduleReport sr;
    sr.kind = rr.schedule;
    for (const emu::Hold& h : res->holds) sr.held.push_back({h.phase, h.wave, std::string(emu::to_string(h.release))});
    out.schedule = std::move(sr);
    if (res->watched) out.watched = std::make_shared<const emu::WatchLog>(std::move(*res->watched));
    out.stop = stop_kind_of(res->stop.kind);
    if (!res->ok()) {
      out.message = res->stop.message;
      out.inst = res->stop.inst;
      if (res->stop.has_other) out.other = res->stop.other;
      out.lane = res->stop.lane;
      if (res->stop.kind == emu::Stop::Kind::fault) out.address = res->stop.address;
    }
    out.compared = std::move(res->compared);
    out.kernarg = std::move(res->kernarg);
    out.lds_extent = res->lds_extent;
    out.executed = std::move(res->executed);
    out.taken = std::move(res->taken);
    out.fell_through = std::move(res->fell_through);
    out.buffers.reserve(res->buffers.size());
    for (auto& b : res->buffers) out.buffers.push_back(OutBuffer{b.arg, std::move(b.bytes), std::nullopt});
    return out;
  }

  /// Modeled cycles of the launch (trial 0, schedule seed 1): TimeOutcome::modeled is true and the one sample is
  /// the cost model's cycles (model/timing.hpp), not a measurement; `tr` does not apply. A run that stops is an
  /// error: a candidate that fails is never timed.
  [[nodiscard]] Expected<TimeOutcome> time(const CodeObject& co, const LaunchSpec& spec, const TimeRequest& tr) {
    (void)tr;
    auto res = verify::emulate_timed(co.module, co.elf, spec, options_for(0, 1));
    if (!res) return unexpected(std::move(res).error());
    if (!res->ok())
      return fail(DiagCode::usage, "cannot time " + co.path + ": the run stopped (" +
                                       std::string(to_string(stop_kind_of(res->stop.kind))) + " at i" +
                                       std::to_string(res->stop.inst.value) + ": " + res->stop.message + ")");
    if (!res->timing) return fail(DiagCode::internal, "the emulator returned no timing report");
    TimeOutcome t;
    t.modeled = true;
    t.median = static_cast<double>(res->timing->modeled_cycles);
    t.samples = {t.median};
    return t;
  }

 private:
  [[nodiscard]] emu::EmulateOptions options_for(std::uint32_t trial, std::uint64_t seed) const {
    emu::EmulateOptions o;
    o.run.seed = seed;
    o.run.completion = opt_.completion;
    o.run.instruction_limit = opt_.instruction_limit;
    o.run.threads = opt_.threads == 0 ? 1 : opt_.threads;
    o.trial = trial;
    o.hazards = opt_.hazards;
    return o;
  }

  EmuExecutorOptions opt_;
};

static_assert(Executor<EmuExecutor>);

}  // namespace asmevo::verify
