// State watch: the registers chosen instructions find when a wave issues them, recorded per wave and per visit.
// The verifier's state check (verify/differential.hpp) watches the first instruction after each edited region of
// K1 and the matching one of K0, and compares what the two runs recorded there.
//
// Registers are named by "unit" as the register analyses name them (analysis/detail/reg_units.hpp): scalar codes
// 0..127, SCC 128, MODE 129, v0.. at 256, a0.. at 512. A scalar unit records its value; a vector unit records a
// hash of the lanes EXEC enables (lane number and value), so a value in a disabled lane is not compared. A unit a
// load still owes (the waitcnt scoreboard marks it) records "pending": its value depends on completion order.
#pragma once

#include <array>
#include <atomic>
#include <compare>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "asmevo/emu/machine.hpp"
#include "asmevo/emu/state.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::emu {

/// Units as the register analyses number them (analysis/detail/reg_units.hpp), repeated here so that the emulator
/// does not include the analyses.
namespace watch_unit {
inline constexpr unsigned scc = 128, mode = 129, v0 = 256, a0 = 512, end = 768;
}

/// One watched instruction and the units to record when a wave issues it.
struct WatchPoint {
  InstId at{};
  std::vector<std::uint16_t> units;
};

/// What to watch. `max_values` bounds the recorded values of one run (past it, WatchLog::truncated is set and
/// nothing more is recorded).
struct Watch {
  std::vector<WatchPoint> points;
  std::uint64_t max_values = std::uint64_t{1} << 23;
};

/// The state one wave found at one visit of a watched instruction.
struct WatchVisit {
  std::uint64_t exec = 0;
  std::vector<std::uint64_t> values;  ///< per unit of the point: value (scalar) or hash of the enabled lanes (vector)
  std::vector<std::uint8_t> pending;  ///< per unit: 1 when a load still owed it
};

/// Which point, workgroup and wave (index within its workgroup) a list of visits belongs to.
struct WatchKey {
  std::uint32_t point = 0;
  std::array<std::uint32_t, 3> group{};
  std::uint32_t wave = 0;
  friend auto operator<=>(const WatchKey&, const WatchKey&) = default;
};

/// What a run recorded: every visit of every wave to every point, in the order the wave made them.
struct WatchLog {
  std::map<WatchKey, std::vector<WatchVisit>> visits;
  std::uint64_t values = 0;
  bool truncated = false;
};

namespace detail {

/// The recorder a launch installs as Machine::hooks.watch_state.
struct WatchRecorder {
  const Watch* watch = nullptr;
  std::vector<std::uint32_t> point_of;  ///< per Op index: its point, or ~0u
  std::vector<std::uint8_t> watched;    ///< per Op index: nonzero when watched (StepHooks::watched)
  WatchLog log;
  std::mutex mu;
  std::atomic<bool> full{false};        ///< log.truncated, readable without the lock
};

[[nodiscard]] inline std::uint64_t watch_mix(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Machine::hooks.watch: records the units of the point `op` is for.
inline void watch_step(Wave& w, const Op& op) {
  auto& rec = *static_cast<WatchRecorder*>(w.machine->hooks.watch_state);
  if (rec.full.load(std::memory_order_relaxed)) return;
  const WatchPoint& pt = rec.watch->points[rec.point_of[op.index]];
  WatchVisit v;
  v.exec = w.exec();
  v.values.reserve(pt.units.size());
  v.pending.reserve(pt.units.size());
  for (const std::uint16_t u : pt.units) {
    std::uint64_t val = 0;
    bool pending = false;
    if (u < 128) {
      val = w.s[u];
      pending = (w.spending[u / 64] >> (u % 64)) & 1;
    } else if (u == watch_unit::scc) {
      val = w.scc ? 1 : 0;
    } else if (u == watch_unit::mode) {
      val = w.mode;
    } else if (u >= watch_unit::v0 && u < watch_unit::end) {
      const unsigned row = u < watch_unit::a0 ? u - watch_unit::v0 : agpr_row0 + (u - watch_unit::a0);
      pending = (w.vpending[row / 64] >> (row % 64)) & 1;
      const std::uint32_t* r = w.row(row);
      std::uint64_t h = 0x6a09e667f3bcc908ull;
      for (unsigned l = 0; l < wave_lanes; ++l)
        if ((v.exec >> l) & 1) h = watch_mix(h ^ (std::uint64_t{l} << 32 | r[l]));
      val = h;
    }
    v.values.push_back(val);
    v.pending.push_back(pending ? 1 : 0);
  }
  const std::lock_guard<std::mutex> lock(rec.mu);
  if (rec.log.truncated) return;
  if (rec.log.values + v.values.size() > rec.watch->max_values) {
    rec.log.truncated = true;
    rec.full.store(true, std::memory_order_relaxed);
    return;
  }
  rec.log.values += v.values.size();
  rec.log.visits[WatchKey{rec.point_of[op.index], w.group->id, w.wave_id}].push_back(std::move(v));
}

/// Sets up `rec` for `watch` over `code` and installs it in `m`. Points whose instruction is not in the code are
/// never visited.
inline void install_watch(WatchRecorder& rec, const Watch& watch, const Code& code, Machine& m) {
  rec.watch = &watch;
  rec.point_of.assign(code.ops.size(), ~0u);
  rec.watched.assign(code.ops.size(), 0);
  std::unordered_map<std::uint32_t, std::uint32_t> point_at;  // instruction id value -> point
  for (std::uint32_t p = 0; p < watch.points.size(); ++p) point_at.emplace(watch.points[p].at.value, p);
  for (std::uint32_t k = 0; k < code.ops.size(); ++k)
    if (const auto it = point_at.find(code.ops[k].id.value); code.ops[k].info && it != point_at.end()) {
      rec.point_of[k] = it->second;
      rec.watched[k] = 1;
    }
  m.hooks.watched = rec.watched.data();
  m.hooks.watch = &watch_step;
  m.hooks.watch_state = &rec;
}

}  // namespace detail
}  // namespace asmevo::emu
