// The Executor concept: something that runs one launch of a kernel of a code object and hands back every buffer
// argument, and that can time launches. Two models: the CPU emulator (verify/emu_executor.hpp) and a HIP device
// (verify/hip/executor.hpp, in the separate asmevo::hip target so that no HIP header reaches the core).
//
// The differential verifier (verify/differential.hpp) is written against this concept only.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/launch/buffer_init.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::emu {
struct Watch;     // emu/watch.hpp
struct WatchLog;
}  // namespace asmevo::emu

namespace asmevo::verify {

/// A code object as an executor needs it: the parsed ELF (a HIP device loads `elf.bytes()` as they are) and the
/// recovered module (the emulator runs the module's program; both read the metadata from it).
struct CodeObject {
  std::string path;                ///< where it came from, for messages and receipts
  codeobject::ElfFile elf;
  codeobject::Module module;
};

/// How an executor that chooses the wave schedule (the emulator) interleaves the waves of a workgroup.
enum class ScheduleKind : std::uint8_t {
  random,         ///< seeded random interleaving
  hold_one_wave,  ///< the adversarial one: per barrier phase, one seeded wave held back until every other wave has
                  ///< reached its next s_barrier or ended (emu/machine.hpp run_workgroup)
};

[[nodiscard]] constexpr std::string_view to_string(ScheduleKind k) noexcept {
  return k == ScheduleKind::hold_one_wave ? "hold-one-wave" : "random";
}

/// What to run: one input draw of a launch.
struct RunRequest {
  std::uint32_t trial = 0;         ///< random buffer inits use seed + trial (launch/buffer_init.hpp materialize)
  std::uint64_t schedule_seed = 1; ///< emulator: wave interleaving and completion order; a device ignores it
  /// Registers to record at chosen instructions (the state check); an executor that cannot observe registers (a
  /// device) ignores it and leaves RunOutcome::watched empty.
  const emu::Watch* watch = nullptr;
  /// The schedule kind; a device ignores it (the hardware schedules) and says so (RunOutcome::schedule empty).
  ScheduleKind schedule = ScheduleKind::random;
  /// Report the wave-uniform operands of the compares that ran (RunOutcome::compared); a device ignores it.
  bool log_compares = false;
};

/// One wave the hold-one-wave schedule held back, in the first workgroup of the launch.
struct HeldWave {
  std::uint32_t phase = 0;  ///< barrier phase: 0 before the first s_barrier, n after the n-th
  std::uint32_t wave = 0;   ///< wave index in the workgroup
  std::string released;     ///< why it went on, in the user's terms
};

/// The schedule a run had, as an executor that chooses it reports it.
struct ScheduleReport {
  ScheduleKind kind = ScheduleKind::random;
  std::vector<HeldWave> held;  ///< hold_one_wave: the holds of workgroup (0,0,0), in order
};

/// How a run ended when it did not end cleanly.
enum class StopKind : std::uint8_t {
  none,         ///< every wave ended
  fault,        ///< memory access outside every buffer or into a guard
  waitcnt,      ///< a register read before the s_waitcnt that covers its pending load (emulator only)
  hazard,       ///< an instruction closer to its producer than a hazard rule allows (emulator only)
  illegal,      ///< something the hardware would not run (a register beyond the allocation, s_trap, ...)
  unsupported,  ///< an instruction the executor cannot run (emulator only)
  limit,        ///< the instruction budget or a timeout ran out (a hang)
  device,       ///< the device or runtime reported an error during the run
};

[[nodiscard]] constexpr std::string_view to_string(StopKind k) noexcept {
  switch (k) {
    case StopKind::none: return "none";
    case StopKind::fault: return "fault";
    case StopKind::waitcnt: return "waitcnt";
    case StopKind::hazard: return "hazard";
    case StopKind::illegal: return "illegal";
    case StopKind::unsupported: return "unsupported";
    case StopKind::limit: return "limit";
    case StopKind::device: return "device";
  }
  return "?";
}

/// One buffer argument after the run.
struct OutBuffer {
  std::size_t arg = 0;                     ///< explicit argument index (launch spec order)
  std::vector<std::byte> bytes;            ///< its contents after the run
  /// A write that landed in the guard bytes around it (a device cannot trap it; the executor finds the pattern
  /// changed after the run): the first changed byte's offset from the buffer start (negative: before it).
  std::optional<std::int64_t> guard_hit;
};

/// What one run did.
struct RunOutcome {
  StopKind stop = StopKind::none;
  std::string message;                     ///< why it stopped, in the user's terms
  std::optional<InstId> inst;              ///< the instruction that stopped it, when known
  std::optional<InstId> other;             ///< waitcnt: the load; hazard: the producer
  std::int32_t lane = -1;
  std::optional<std::uint64_t> address;
  std::vector<std::byte> kernarg;          ///< the kernarg segment it ran with (explicit and hidden arguments)
  std::vector<OutBuffer> buffers;          ///< every buffer argument, in argument order
  /// One past the highest LDS byte the run touched, when the executor can tell (the emulator can; a device cannot).
  std::optional<std::uint64_t> lds_extent;
  /// The instructions the run issued with an effect (a vector one with some lane enabled), when the executor can
  /// tell (the emulator can; a device cannot).
  std::optional<std::vector<InstId>> executed;
  /// The branches the run took, and the conditional branches it did not take, when the executor can tell.
  std::optional<std::vector<InstId>> taken, fell_through;
  /// What RunRequest::watch asked to record, when the executor can (the emulator); null otherwise.
  std::shared_ptr<const emu::WatchLog> watched;
  /// The schedule the run had, when the executor chooses it (the emulator); empty when the hardware schedules.
  std::optional<ScheduleReport> schedule;
  /// With RunRequest::log_compares, where the executor can tell (the emulator): the values compared against data.
  std::vector<std::uint32_t> compared;
  [[nodiscard]] bool ok() const noexcept { return stop == StopKind::none; }
};

/// How to time.
struct TimeRequest {
  std::uint32_t warmup = 3;
  std::uint32_t runs = 20;                 ///< timed launches; the result is their median
  std::uint32_t rotate = 4;                ///< input buffer sets rotated between launches (defeats warm caches)
};

/// Timings of one launch configuration.
struct TimeOutcome {
  bool modeled = false;                    ///< true: cost-model cycles (emulator); false: measured microseconds
  double median = 0;                       ///< cycles when modeled, else microseconds
  std::vector<double> samples;             ///< every timed launch (one value when modeled)
};

/// An executor: `run` gives every buffer after one launch (a kernel that stops is an outcome, not an error;
/// errors are bad input or an unusable executor), `time` measures or models the launch.
template <class E>
concept Executor = requires(E& e, const CodeObject& co, const LaunchSpec& spec, const RunRequest& rr,
                            const TimeRequest& tr) {
  { e.name() } -> std::convertible_to<std::string_view>;
  { e.run(co, spec, rr) } -> std::same_as<Expected<RunOutcome>>;
  { e.time(co, spec, tr) } -> std::same_as<Expected<TimeOutcome>>;
};

}  // namespace asmevo::verify
