// The emulator's run-time core: workgroups of waves, outstanding memory operations with s_waitcnt semantics,
// the seeded wave scheduler and barrier, and the per-instruction scoreboard check.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/emu/memory.hpp"
#include "asmevo/emu/state.hpp"

namespace asmevo::emu {

/// A small deterministic generator (splitmix64): the same seed gives the same schedule on every platform.
struct Rng {
  std::uint64_t state = 0;
  explicit Rng(std::uint64_t seed = 0) : state(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint32_t below(std::uint32_t n) noexcept { return n ? static_cast<std::uint32_t>(next() % n) : 0; }
};

/// When outstanding memory operations complete.
enum class Completion : std::uint8_t {
  adversarial,  ///< as late as the ISA permits (at the s_waitcnt that forces them, or at s_endpgm), in any order
                ///< the ISA permits: the default for verification
  eager,        ///< at issue, as if memory had no latency (what a test of pure semantics wants)
};

/// How the waves of a workgroup are interleaved (see run_workgroup).
enum class Schedule : std::uint8_t {
  random,         ///< a seeded random wave and quantum at every switch
  hold_one_wave,  ///< random, except that one seeded wave per barrier phase is held back until every other wave
                  ///< has reached its next s_barrier or ended
};

[[nodiscard]] constexpr std::string_view to_string(Schedule s) noexcept {
  return s == Schedule::hold_one_wave ? "hold-one-wave" : "random";
}

struct RunOptions {
  std::uint64_t seed = 1;              ///< wave interleaving and out-of-order completion choices
  Completion completion = Completion::adversarial;
  std::uint64_t instruction_limit = 1ull << 28;  ///< per wave; a hang guard (about half a minute of emulation)
  unsigned threads = 1;                ///< workgroups run on this many host threads (1: fully deterministic)
  unsigned max_quantum = 24;           ///< a wave runs 1..max_quantum instructions before the scheduler switches
  Schedule schedule = Schedule::random;
  /// Schedule::hold_one_wave: the held wave is also released once the other waves have run this many instructions
  /// (together) since the hold began or since one of them last reached a barrier or ended: they are spinning,
  /// perhaps on a flag the held wave sets. 2^16 keeps a spin per phase far below the instruction limit.
  std::uint64_t hold_patience = std::uint64_t{1} << 16;
  /// Record the wave-uniform operand (an SGPR, a literal or an inline constant) of every 16- and 32-bit VALU compare
  /// that runs, in Machine::compared: the values a compare of data against a constant tests, including constants the
  /// kernel computes (x == (c1 ^ c2)), which the verifier's constants probe then draws into the inputs.
  bool log_compares = false;
};

/// One hold of Schedule::hold_one_wave: which wave (its index in the workgroup) was held in which barrier phase (0
/// before the first s_barrier, n after the n-th), and why it went on.
struct Hold {
  enum class Release : std::uint8_t {
    others_waiting,  ///< every other wave had reached its next s_barrier or ended (the intended case)
    patience,        ///< the others ran RunOptions::hold_patience instructions without reaching one (a spin)
    stopped,         ///< the run stopped while it was held
  };
  std::uint32_t phase = 0;
  std::uint32_t wave = 0;
  Release release = Release::stopped;
};

[[nodiscard]] constexpr std::string_view to_string(Hold::Release r) noexcept {
  switch (r) {
    case Hold::Release::others_waiting: return "the other waves reached the barrier or ended";
    case Hold::Release::patience: return "the other waves made no progress (a spin): released early";
    case Hold::Release::stopped: return "the run stopped while it was held";
  }
  return "?";
}

/// Functions run around every instruction when set (one predictable test each when not): `before` after the
/// waitcnt scoreboard check and before the instruction executes (hazard checking; false means it stopped the
/// wave), `after` once it has executed (timing traces: the pc, the last MemOp issued and EXEC are visible).
struct StepHooks {
  bool (*before)(Wave&, const Op&) = nullptr;
  void (*after)(Wave&, const Op&) = nullptr;
  /// Per Op index: nonzero where `watch` runs, after `before` let the instruction issue and before it runs (the
  /// verifier's state check, watch.hpp). Null: off, at the cost of one test per instruction.
  const std::uint8_t* watched = nullptr;
  void (*watch)(Wave&, const Op&) = nullptr;
  void* watch_state = nullptr;
};

/// An outstanding memory operation: everything it needs was captured at issue (addresses, store data), the
/// access itself happens at completion, which also writes its destination registers.
struct MemOp {
  enum class Counter : std::uint8_t { vm, lgkm, both };  ///< FLAT counts in both (MI300 ISA §4.4 "S_WAITCNT")
  Counter counter = Counter::vm;
  bool out_of_order = false;  ///< SMEM returns out of order (MI300 ISA §4.4: "scalar memory reads can return out of order")
  const Op* op = nullptr;
  std::uint64_t seq = 0;
  LaneMask exec = 0;          ///< lanes taking part
  LaneMask mask = 0;          ///< handler-defined lane set (e.g. buffer lanes in range)
  std::array<std::uint64_t, wave_lanes> addr{};
  std::array<std::array<std::uint32_t, wave_lanes>, 4> data{};  ///< data[dword][lane] captured at issue
  std::array<std::uint64_t, 4> aux{};
  RegRange dst{};             ///< registers written at completion (count 0: none)
  void (*complete)(Wave&, MemOp&) = nullptr;
  /// LDS accesses of a DS instruction, for the cross-wave race check (sem_mem.hpp lds_race_ok): which way it
  /// touches LDS (lds_read / lds_write / lds_atomic bits; 0 for every other op), and where: lane l in `exec`
  /// accesses `lds_bytes` at addr[l] + aux[h] for h < lds_noffs.
  static constexpr std::uint8_t lds_read = 1, lds_write = 2, lds_atomic = 4;
  std::uint8_t lds = 0;
  std::uint8_t lds_noffs = 0;
  std::uint16_t lds_bytes = 0;
};

/// A workgroup in flight: its LDS, its waves and their scheduler.
struct Workgroup {
  std::array<std::uint32_t, 3> id{};
  std::vector<std::byte> lds;
  /// Bytes [0, lds_dirty) of `lds` may have been written (every LDS write goes through detail::lds_ptr): what a
  /// new workgroup on the same host thread must clear, which is far less than the allocation for most kernels.
  std::uint64_t lds_dirty = 0;
  /// One past the highest LDS byte any access (read or write) touched, over every workgroup this host thread ran.
  std::uint64_t lds_extent = 0;
  std::vector<std::unique_ptr<Wave>> waves;
  Rng rng;
  Stop stop;                  ///< the first stop of this workgroup (kind none while it runs cleanly)
  std::uint64_t seq = 0;      ///< MemOp sequence numbers
  /// Outstanding DS operations of all waves that write (lds_writes) or read (lds_reads) LDS (MemOp::lds; an atomic
  /// counts in both): zero in both is the fast path of the cross-wave LDS race check (sem_mem.hpp lds_race_ok).
  /// Maintained by issue() and detail::finish(); reset with `seq` when the workgroup starts.
  std::uint32_t lds_writes = 0, lds_reads = 0;
  /// Device address of each wave's private (scratch) slot, by wave index (empty: the launch maps no private
  /// memory). Set when the workgroup starts; see detail/mem_private.hpp.
  std::vector<std::uint64_t> private_base;
  /// Schedule::hold_one_wave: the holds of the last run_workgroup, in order (cleared when it starts).
  std::vector<Hold> holds;
};

/// The loaded kernel code: every instruction of the code object predecoded, in address order, plus a sentinel
/// that stops a wave running off the end.
struct Code {
  std::vector<Op> ops;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> by_addr;  ///< (ELF address, Op index), sorted
  std::uint64_t load_base = 0;  ///< device address of ELF virtual address 0

  /// The Op index at device address `a`, or ~0u when no instruction starts there.
  [[nodiscard]] std::uint32_t index_at(std::uint64_t device_addr) const noexcept {
    const std::uint64_t a = device_addr - load_base;
    auto it = std::lower_bound(by_addr.begin(), by_addr.end(), std::pair<std::uint64_t, std::uint32_t>{a, 0});
    return it != by_addr.end() && it->first == a ? it->second : ~0u;
  }
};

/// Launch-wide state shared by every workgroup.
struct Machine {
  Target target = Target::gfx942;
  const Code* code = nullptr;
  Memory memory;
  RunOptions options;
  StepHooks hooks;
  /// Aperture bases (high 32 bits) of the flat address space: a flat address whose high half is one of
  /// these maps to LDS / private memory (MI300 ISA §9.5 "Flat addressing": SH_MEM_BASES apertures).
  std::uint32_t shared_aperture_hi = 0x0001'0000u, private_aperture_hi = 0x0002'0000u;
  std::uint64_t private_size = 0;  ///< bytes of private memory per lane
  /// Private (scratch) slots mapped before any workgroup runs (Memory::map is not thread-safe): one per wave that
  /// can be resident at once, each `private_size * 64` bytes in the swizzled layout (detail/mem_private.hpp).
  std::vector<std::uint64_t> private_slots;
  std::uint64_t private_scratch_base = 0;  ///< the "queue scratch base": slots sit at wave offsets from it
  std::uint64_t private_guard = 0;         ///< unbacked bytes around each slot
  /// What s_getreg of LDS_ALLOC reports as the workgroup's allocation: the launch's own LDS when the launch says
  /// how much dynamic LDS it passes, otherwise a seeded size from the fixed segment up to the most a workgroup can
  /// have (the emulator gives such a kernel all of it, a real launcher passes what it chose), so that a kernel
  /// that reads the field sees a value the launch does not fix. Bytes.
  std::uint32_t lds_alloc_reported = 0;
  /// Serializes read-modify-write atomics on shared memory when workgroups run on several host threads.
  std::mutex atomics;
  /// RunOptions::log_compares: the distinct values, in the order first seen, at most max_compared of them.
  std::vector<std::uint32_t> compared;
  std::mutex compared_mu;
  static constexpr std::size_t max_compared = 64;
  void log_compared(std::uint32_t v) {
    const std::lock_guard<std::mutex> g(compared_mu);
    if (compared.size() < max_compared && std::find(compared.begin(), compared.end(), v) == compared.end())
      compared.push_back(v);
  }
};

/// Holds Machine::atomics for one atomic's read-modify-write when workgroups run on several host threads (one
/// thread needs no lock: waves interleave only between instructions).
class AtomicGuard {
 public:
  explicit AtomicGuard(Machine& m) : mu_(m.options.threads > 1 ? &m.atomics : nullptr) { if (mu_) mu_->lock(); }
  ~AtomicGuard() { if (mu_) mu_->unlock(); }
  AtomicGuard(const AtomicGuard&) = delete;
  AtomicGuard& operator=(const AtomicGuard&) = delete;

 private:
  std::mutex* mu_;
};

inline void Wave::stop_with(Stop why) {
  if (stop && stop->kind == Stop::Kind::none) *stop = std::move(why);
  ended = true;
}
inline void Wave::stop_with(Stop::Kind k, const Op& op, std::string message, std::int32_t lane, std::uint64_t address) {
  Stop s;
  s.kind = k;
  s.inst = op.id;
  s.lane = lane;
  s.address = address;
  s.message = std::move(message);
  stop_with(std::move(s));
}

namespace detail {
[[nodiscard]] inline bool test_bit(const std::uint64_t* bits, unsigned i) noexcept { return (bits[i / 64] >> (i % 64)) & 1; }
inline void set_bit(std::uint64_t* bits, unsigned i, bool on) noexcept {
  if (on) bits[i / 64] |= 1ull << (i % 64); else bits[i / 64] &= ~(1ull << (i % 64));
}
[[nodiscard]] inline std::string reg_text(bool vector, unsigned i) {
  if (!vector) {
    if (i <= 101) return "s" + std::to_string(i);
    if (i == sc::vcc || i == sc::vcc + 1) return i == sc::vcc ? "vcc_lo" : "vcc_hi";
    if (i == sc::exec || i == sc::exec + 1) return i == sc::exec ? "exec_lo" : "exec_hi";
    if (i == sc::m0) return "m0";
    if (i >= sc::ttmp0 && i < sc::ttmp0 + 16) return "ttmp" + std::to_string(i - sc::ttmp0);
    return "scalar code " + std::to_string(i);
  }
  if (i >= agpr_row0 && i < temp_row0) return "a" + std::to_string(i - agpr_row0);
  return "v" + std::to_string(i);
}
}  // namespace detail

// ---- outstanding memory operations --------------------------------------------------------------------------

namespace detail {
inline void complete_one(Wave& w, bool lgkm);
}  // namespace detail

/// A fresh MemOp for `op`; fill it, then call `issue`.
///
/// A counter never holds more operations than its s_waitcnt field counts (vmcnt 63, lgkmcnt 15 on gfx90a/gfx942/
/// gfx950: the MI200/MI300 ISA S_WAITCNT field widths): the instruction that would overflow it waits at issue until
/// one completes, as analysis/waitcnt_check.hpp models it. LLVM's code relies on it (Triton's gemm_a8w8_blockscale_fp8
/// reads a global_load_ubyte result 98 loads later with no vmcnt wait), so without it a run could stop on a read the
/// hardware makes safe, depending only on where s_waitcnt instructions happen to be. The completion happens before
/// the new op takes its sequence number, so the timing hooks still find it as the newest (trace.hpp issued_memop).
[[nodiscard]] inline MemOp& begin_memop(Wave& w, const Op& op, MemOp::Counter c, bool out_of_order = false) {
  constexpr unsigned vm_max = 63, lgkm_max = 15;
  for (std::uint32_t n = w.vm_count; c != MemOp::Counter::lgkm && n >= vm_max && (detail::complete_one(w, false), w.vm_count < n);)
    n = w.vm_count;
  for (std::uint32_t n = w.lgkm_count; c != MemOp::Counter::vm && n >= lgkm_max && (detail::complete_one(w, true), w.lgkm_count < n);)
    n = w.lgkm_count;
  std::unique_ptr<MemOp> m;
  if (!w.free_ops.empty()) {
    m = std::move(w.free_ops.back());
    w.free_ops.pop_back();
  } else {
    m = std::make_unique<MemOp>();
  }
  m->counter = c;
  m->out_of_order = out_of_order;
  m->op = &op;
  m->seq = ++w.group->seq;
  m->exec = 0;
  m->mask = 0;
  m->dst = {};
  m->complete = nullptr;
  m->lds = 0;
  w.queue.push_back(std::move(m));
  return *w.queue.back();
}

namespace detail {
/// Marks a destination pending in the scoreboard under sequence number `seq`.
inline void mark_dst(Wave& w, const RegRange& dst, std::uint32_t seq) {
  for (unsigned k = 0; k < dst.count; ++k) {
    const unsigned r = dst.first + k;
    if (dst.vector) {
      set_bit(w.vpending.data(), r, true);
      w.vpending_by[r] = InstId{seq};
    } else if (r < 128) {
      set_bit(w.spending.data(), r, true);
      w.spending_by[r] = InstId{seq};
    }
  }
}
inline void finish(Wave& w, std::size_t qi) {
  std::unique_ptr<MemOp> m = std::move(w.queue[qi]);
  w.queue.erase(w.queue.begin() + static_cast<std::ptrdiff_t>(qi));
  --w.outstanding;
  w.vm_count -= m->counter != MemOp::Counter::lgkm;
  w.lgkm_count -= m->counter != MemOp::Counter::vm;
  if (m->lds) {
    w.group->lds_writes -= (m->lds & MemOp::lds_write) != 0;
    w.group->lds_reads -= (m->lds & MemOp::lds_read) != 0;
  }
  // The destination becomes readable; a later op to the same registers keeps its own mark.
  for (unsigned k = 0; k < m->dst.count; ++k) {
    const unsigned r = m->dst.first + k;
    if (m->dst.vector) {
      if (w.vpending_by[r].value == m->seq) set_bit(w.vpending.data(), r, false);
    } else if (r < 128 && w.spending_by[r].value == m->seq) {
      set_bit(w.spending.data(), r, false);
    }
  }
  if (m->complete && (!w.stop || w.stop->kind == Stop::Kind::none)) m->complete(w, *m);
  w.free_ops.push_back(std::move(m));
}
}  // namespace detail

/// Makes the op most recently begun outstanding (or completes it now in eager mode).
inline void issue(Wave& w) {
  MemOp& m = *w.queue.back();
  ++w.outstanding;
  w.vm_count += m.counter != MemOp::Counter::lgkm;
  w.lgkm_count += m.counter != MemOp::Counter::vm;
  if (m.lds) {
    w.group->lds_writes += (m.lds & MemOp::lds_write) != 0;
    w.group->lds_reads += (m.lds & MemOp::lds_read) != 0;
  }
  // vpending_by/spending_by hold the low 32 bits of the op's sequence number (InstId is a 32-bit value).
  detail::mark_dst(w, m.dst, static_cast<std::uint32_t>(m.seq));
  if (w.machine->options.completion == Completion::eager) detail::finish(w, w.queue.size() - 1);
}

namespace detail {
/// Settles the uncertain completions of one counter once it has reached zero.
inline void settle(Wave& w, bool lgkm) {
  std::erase_if(w.uncertain, [&](const Wave::Uncertain& u) {
    if (u.lgkm != lgkm) return false;
    for (unsigned k = 0; k < u.dst.count; ++k) {
      const unsigned r = u.dst.first + k;
      if (u.dst.vector) {
        if (w.vpending_by[r].value == u.seq) set_bit(w.vpending.data(), r, false);
      } else if (r < 128 && w.spending_by[r].value == u.seq) {
        set_bit(w.spending.data(), r, false);
      }
    }
    return true;
  });
}
/// Completes one operation of a counter (vm or lgkm). Candidates: the oldest in-order operation of the counter, and
/// every operation that may complete out of order with it (SMEM for lgkm: MI300 ISA §4.4 "scalar memory reads can
/// return out of order"; FLAT for both counters, since it may be serviced by LDS or memory: LLVM SIInsertWaitcnts
/// counts FLAT in both and treats a mix as out of order). With several candidates the choice is seeded, and the
/// chosen op's destination stays "uncertain" in the scoreboard until the counter drains: any read of it before then
/// depends on an order the ISA does not promise.
inline void complete_one(Wave& w, bool lgkm) {
  std::array<std::size_t, 64> cand{};
  unsigned nc = 0;
  bool have_in_order = false;
  const MemOp::Counter mine = lgkm ? MemOp::Counter::lgkm : MemOp::Counter::vm;
  for (std::size_t i = 0; i < w.queue.size() && nc < cand.size(); ++i) {
    const MemOp& m = *w.queue[i];
    if (m.counter != mine && m.counter != MemOp::Counter::both) continue;
    const bool ooo = m.counter == MemOp::Counter::both || (lgkm && m.out_of_order);
    if (ooo) cand[nc++] = i;
    else if (!have_in_order) { cand[nc++] = i; have_in_order = true; }
  }
  if (nc == 0) return;
  const std::size_t pick = cand[nc > 1 ? w.group->rng.below(nc) : 0];
  const RegRange dst = w.queue[pick]->dst;
  const InstId load = w.queue[pick]->op->id;
  finish(w, pick);
  if (nc > 1 && dst.count) {
    const std::uint32_t seq = static_cast<std::uint32_t>(++w.group->seq);
    mark_dst(w, dst, seq);
    w.uncertain.push_back({seq, load, dst, lgkm});
  }
}
}  // namespace detail

/// s_waitcnt: completes outstanding operations until at most `vm` vector-memory and `lgkm` LDS/GDS/scalar/message
/// operations remain (see detail::complete_one for which ones).
inline void wait_counts(Wave& w, unsigned vm, unsigned lgkm) {
  while (w.vm_count > vm) detail::complete_one(w, false);
  while (w.lgkm_count > lgkm) detail::complete_one(w, true);
  if (!w.uncertain.empty()) {
    if (w.vm_count == 0) detail::settle(w, false);
    if (w.lgkm_count == 0) detail::settle(w, true);
  }
}

/// Completes everything (s_endpgm, or the end of a run), in an order the ISA permits.
inline void drain(Wave& w) { wait_counts(w, 0, 0); }

/// Checks one register range that `op` reads (or writes) against outstanding loads. Returns false (and stops the
/// wave with a waitcnt violation naming both instructions) when one of its registers is still pending.
[[nodiscard]] inline bool range_ready(Wave& w, const Op& op, const RegRange& r, bool write) {
  for (unsigned k = 0; k < r.count; ++k) {
    const unsigned i = r.first + k;
    const bool pend = r.vector ? detail::test_bit(w.vpending.data(), i) : (i < 128 && detail::test_bit(w.spending.data(), i));
    if (!pend) continue;
    const std::uint32_t seq = r.vector ? w.vpending_by[i].value : w.spending_by[i].value;
    InstId load{};
    bool found = false;
    for (const auto& m : w.queue)
      if (static_cast<std::uint32_t>(m->seq) == seq) { load = m->op->id; found = true; break; }
    if (!found)
      for (const auto& u : w.uncertain)
        if (u.seq == seq) { load = u.load; found = true; break; }
    Stop s;
    s.kind = Stop::Kind::waitcnt;
    s.inst = op.id;
    s.other = load;
    s.has_other = true;
    s.message = "i" + std::to_string(op.id.value) + " (" + std::string(op.mnemonic()) + ") " +
                (write ? "overwrites " : "reads ") + detail::reg_text(r.vector, i) + " while i" +
                std::to_string(load.value) + " that loads it is still outstanding: no s_waitcnt covers it";
    w.stop_with(std::move(s));
    return false;
  }
  return true;
}

/// Checks an instruction's register reads and writes against outstanding loads. Returns false (and stops the
/// wave) on a waitcnt violation.
[[nodiscard]] inline bool scoreboard_ok(Wave& w, const Op& op) {
  for (unsigned k = 0; k < op.nreads; ++k)
    if (!range_ready(w, op, op.reads[k], false)) return false;
  for (unsigned k = 0; k < op.nwrites; ++k)
    if (!range_ready(w, op, op.writes[k], true)) return false;
  return true;
}

/// Prepares `w` to start at Op `entry`: a zeroed register file (rows 0..vector_rows-1), empty scoreboard.
/// Only the first `vrows` VGPR rows and `arows` AGPR rows are cleared (the rest of the file is never read by an
/// instruction that passed the launch's register-limit check).
inline void init_wave(Wave& w, Machine& m, Workgroup& g, std::uint32_t entry, std::uint32_t wave_id,
                      std::uint32_t vrows = 256, std::uint32_t arows = 256) {
  if (!w.v) {
    w.v.reset(new std::uint32_t[vector_rows][wave_lanes]);
    std::memset(w.v.get(), 0, sizeof(std::uint32_t) * vector_rows * wave_lanes);
  }
  std::memset(w.v[0], 0, sizeof(std::uint32_t) * wave_lanes * std::min<std::uint32_t>(vrows, 256));
  std::memset(w.v[agpr_row0], 0, sizeof(std::uint32_t) * wave_lanes * std::min<std::uint32_t>(arows, 256));
  w.s.fill(0);
  w.scc = false;
  w.mode = 0;
  w.vector_mode = 0;
  w.trapsts = 0;
  w.pc = entry;
  w.wave_id = wave_id;
  w.ended = w.at_barrier = false;
  w.machine = &m;
  w.group = &g;
  w.ops = m.code->ops.data();
  w.nops = static_cast<std::uint32_t>(m.code->ops.size());
  w.outstanding = w.vm_count = w.lgkm_count = 0;
  w.uncertain.clear();
  w.vpending.fill(0);
  w.spending.fill(0);
  // vpending_by/spending_by are only read where the pending bit is set, and every bit is clear now.
  if (w.vpending_by.size() != vector_rows) w.vpending_by.assign(vector_rows, InstId{});
  if (w.spending_by.size() != 128) w.spending_by.assign(128, InstId{});
  for (auto& q : w.queue) w.free_ops.push_back(std::move(q));
  w.queue.clear();
  w.executed = 0;
  w.stop = &g.stop;
  w.s[sc::shared_base] = m.shared_aperture_hi;
  w.s[sc::private_base] = m.private_aperture_hi;
  w.s[sc::shared_limit] = m.shared_aperture_hi;
  w.s[sc::private_limit] = m.private_aperture_hi;
}

// ---- execution -----------------------------------------------------------------------------------------------

/// Runs one instruction of `w`.
namespace detail {
/// Issues `op` (the instruction at w.pc, or its register-indexed copy): scoreboard, hooks, semantics.
/// False when the scoreboard or a hook stopped the wave before the instruction ran.
inline bool issue_op(Wave& w, const Op& op) {
  if (w.outstanding && !scoreboard_ok(w, op)) return false;
  const StepHooks& hooks = w.machine->hooks;
  if (hooks.before && !hooks.before(w, op)) return false;
  if (hooks.watched && hooks.watched[op.index]) hooks.watch(w, op);
  ++w.pc;
  op.fn(w, op);
  if (hooks.after) hooks.after(w, op);
  return true;
}

[[nodiscard]] inline bool is_vector_op(const Op& op) noexcept {
  using namespace isa::prop;
  return op.info && (op.info->props & (valu | vmem | flat | ds | mfma)) != 0;
}

/// Step under s_setvskip or GPR indexing (rare; kept out of step's fast path).
/// VSKIP: "no VOP*/M*BUF/MIMG/DS/FLAT/EXP instructions are issued" while it is set (MI300 ISA S_SETVSKIP); a
/// skipped instruction still advances the program counter.
/// GPR indexing (MODE.GPR_IDX_EN, set by s_set_gpr_idx_on): a VALU instruction's VGPR operands named by
/// M0[15:12] (bit 12 src0, 13 src1, 14 src2, 15 vdst) are offset by M0[7:0] (MI300 ISA S_SET_GPR_IDX_ON; LLVM
/// AMDGPU operand syntax "imask"). The ISA leaves an offset register beyond the wave's allocation to the
/// hardware's discretion; the emulator stops there as illegal rather than guess.
inline bool step_special(Wave& w, const Op& op) {
  if ((w.vector_mode & Wave::vskip_on) && is_vector_op(op)) {
    ++w.pc;
    return true;
  }
  const std::uint32_t m0 = w.s[sc::m0];
  const unsigned sel = (m0 >> 12) & 0xfu;
  if (!(w.vector_mode & Wave::gpr_idx_on) || sel == 0 || !op.info || !op.info->has(isa::prop::valu) ||
      (op.info->props & (isa::prop::vmem | isa::prop::flat | isa::prop::ds)))
    return issue_op(w, op);
  Op x = op;
  const unsigned idx = m0 & 0xffu;
  static constexpr Name fields[4] = {Name::src0, Name::src1, Name::src2, Name::vdst};
  for (unsigned f = 0; f < 4; ++f) {
    if (!((sel >> f) & 1u)) continue;
    const auto p = x.pos[static_cast<std::size_t>(fields[f])];
    if (p == Op::none) continue;
    Slot& s = x.slots[p];
    if (s.kind != Slot::Kind::vgpr || s.index >= agpr_row0) continue;  // SGPRs, constants and AGPRs are not indexed
    const unsigned from = s.index, to = s.index + idx, n = std::max<unsigned>(1, s.dwords);
    if (to + n > w.vgpr_limit) {
      w.stop_with(Stop::Kind::illegal, op, std::string(op.mnemonic()) + ": GPR indexing moves v" + std::to_string(from) +
                                               " by M0[7:0] = " + std::to_string(idx) + " beyond the kernel's " +
                                               std::to_string(w.vgpr_limit) + " VGPRs");
      return false;
    }
    s.index = to;
    for (unsigned k = 0; k < x.nreads; ++k)
      if (x.reads[k].vector && x.reads[k].first == from && f < 3) x.reads[k].first = static_cast<std::uint16_t>(to);
    for (unsigned k = 0; k < x.nwrites; ++k)
      if (x.writes[k].vector && x.writes[k].first == from && f == 3) x.writes[k].first = static_cast<std::uint16_t>(to);
  }
  return issue_op(w, x);
}
}  // namespace detail

/// Bits of Wave::ran (per Op index, ORed over every issue).
namespace ran_bit {
inline constexpr std::uint8_t effect = 1;   ///< issued with an effect: a scalar op, or a vector op with EXEC != 0 and no VSKIP
inline constexpr std::uint8_t jumped = 2;   ///< the next PC was not the following Op (a branch taken, a call, a return)
inline constexpr std::uint8_t fell = 4;     ///< the next PC was the following Op (a conditional branch not taken)
}  // namespace ran_bit

inline void step(Wave& w) {
  const Op& op = w.ops[w.pc];
  const std::uint32_t at = w.pc;
  // A vector op issued with no lane enabled (or under VSKIP) changes no VGPR or memory, so a run through it says
  // nothing about it: it does not count as run (the gate's coverage check, differential.hpp, asks for an effect).
  const bool effect = !w.ran || !detail::is_vector_op(op) || (w.exec() != 0 && !(w.vector_mode & Wave::vskip_on));
  if (!(w.vector_mode ? detail::step_special(w, op) : detail::issue_op(w, op))) return;
  if (w.ran) w.ran[at] |= static_cast<std::uint8_t>((effect ? ran_bit::effect : 0) | (w.pc == at + 1 ? ran_bit::fell : ran_bit::jumped));
  if (++w.executed >= w.machine->options.instruction_limit)
    w.stop_with(Stop::Kind::limit, op, "wave " + std::to_string(w.wave_id) + " ran " + std::to_string(w.executed) +
                                           " instructions without ending (limit " +
                                           std::to_string(w.machine->options.instruction_limit) + "); a hang?");
}

namespace detail {
/// Whether `w` has a DS operation outstanding (MemOp::lds).
[[nodiscard]] inline bool has_lds_outstanding(const Wave& w) noexcept {
  if (w.lgkm_count == 0) return false;
  for (const auto& q : w.queue)
    if (q->lds) return true;
  return false;
}
}  // namespace detail

/// Runs a workgroup's waves to completion with a seeded interleaving: the scheduler picks a runnable wave at
/// random and runs it for a random quantum; s_barrier parks a wave until every wave that has not ended arrives.
/// Under adversarial completion, a wave that leaves a barrier with LDS operations still outstanding (no s_waitcnt
/// lgkmcnt before the s_barrier) is held back until every other wave has ended or reached a barrier again (when
/// every wave has some outstanding, one seeded choice goes first): the legal schedule in which its LDS writes land,
/// and its LDS reads sample, as late as possible, so that another wave touching those bytes meets them outstanding
/// (sem_mem.hpp lds_race_ok) instead of the wave's next s_waitcnt hiding the race.
///
/// Schedule::hold_one_wave adds a priority change in the manner of PCT (Burckhardt, Kothari, Musuvathi and
/// Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010): at the start of
/// each barrier phase (the workgroup's start, and each release of s_barrier) one wave, a seeded choice among those
/// that have not ended, gets the lowest priority: it runs only once every other wave has reached its next s_barrier
/// or ended. Random interleavings almost never starve one wave that long -- with two waves and quanta of about 12
/// instructions, a race whose window is 160 instructions wide shows about once in 2^13 schedules -- while a held
/// wave meets every access of the others' whole phase before its own first one, whatever the window: a load moved
/// below the s_barrier that protected its bytes reads what another wave wrote there later in the phase. Each phase
/// is one priority change point at the phase's start (PCT's change points at chosen instruction counts are not
/// drawn: the phase start is where a moved load waits). The schedule is legal, so a correct kernel computes what it
/// computes under any other: the waves only run in another order. A held wave also goes on when the others make no
/// progress for RunOptions::hold_patience instructions (a wave spinning on a flag the held one would set), so no
/// kernel that terminates under some schedule hangs under this one. The holds are recorded in Workgroup::holds.
/// Without it, a wave spinning on a flag that a wave held for its LDS operations would set hits the instruction
/// limit (no compiled kernel of the corpus does that).
inline void run_workgroup(Workgroup& g, const Machine& m) {
  std::vector<Wave*> live;
  for (auto& w : g.waves) {
    w->stop = &g.stop;
    live.push_back(w.get());
  }
  const bool hold = m.options.completion == Completion::adversarial;
  std::uint32_t held = 0;  // bit i: live[i] is held back after a barrier
  // Schedule::hold_one_wave: the wave held this phase (none: npos), the phase, and the instructions the other waves
  // ran since the hold began or one of them last reached a barrier or ended.
  constexpr std::size_t none = ~std::size_t{0};
  const bool hold_one = m.options.schedule == Schedule::hold_one_wave && live.size() > 1;
  std::size_t victim = none;
  std::uint32_t phase = 0;
  std::uint64_t idle = 0;
  g.holds.clear();
  auto hold_a_wave = [&] {
    unsigned n = 0;
    for (const Wave* w : live) n += !w->ended;
    if (n < 2) return;  // holding the only wave left delays nothing
    unsigned pick = g.rng.below(n);
    for (std::size_t i = 0; i < live.size(); ++i)
      if (!live[i]->ended && pick-- == 0) victim = i;
    idle = 0;
    g.holds.push_back({phase, static_cast<std::uint32_t>(victim), Hold::Release::stopped});
  };
  auto release_held_wave = [&](Hold::Release why) {
    g.holds.back().release = why;
    victim = none;
  };
  if (hold_one) hold_a_wave();
  while (g.stop.kind == Stop::Kind::none) {
    std::array<Wave*, 16> runnable{};
    unsigned nr = 0, alive = 0, nheld = 0;
    for (std::size_t i = 0; i < live.size(); ++i) {
      Wave* w = live[i];
      if (w->ended) continue;
      ++alive;
      if (w->at_barrier || i == victim) continue;
      if ((held >> i) & 1) ++nheld;
      else if (nr < runnable.size()) runnable[nr++] = w;
    }
    if (alive == 0) break;
    if (nr == 0 && nheld) {  // every other wave has ended or waits at a barrier: the held waves go on
      held = 0;
      continue;
    }
    if (nr == 0 && victim != none) {  // the phase's held wave goes last
      release_held_wave(Hold::Release::others_waiting);
      continue;
    }
    if (nr == 0) {  // everyone still running waits at the barrier: release it
      for (std::size_t i = 0; i < live.size(); ++i) {
        live[i]->at_barrier = false;
        if (hold && i < 32 && !live[i]->ended && detail::has_lds_outstanding(*live[i])) held |= 1u << i;
      }
      if (held && std::popcount(held) == static_cast<int>(alive)) {  // all of them: one (seeded) goes first
        std::uint32_t pick = g.rng.below(alive), rest = held;
        while (pick--) rest &= rest - 1;
        held &= ~(rest & (0u - rest));
      }
      ++phase;
      if (hold_one) hold_a_wave();
      continue;
    }
    Wave& w = *runnable[g.rng.below(nr)];
    unsigned quantum = 1 + g.rng.below(m.options.max_quantum);
    std::uint64_t ran = 0;
    while (quantum-- && !w.ended && !w.at_barrier) step(w), ++ran;
    if (victim != none) {
      if (w.ended || w.at_barrier) idle = 0;
      else if ((idle += ran) >= m.options.hold_patience) release_held_wave(Hold::Release::patience);
    }
  }
  // Whatever is still outstanding completes (a wave that stopped early leaves memory as it was at the stop).
  if (g.stop.kind == Stop::Kind::none)
    for (Wave* w : live) drain(*w);
}

}  // namespace asmevo::emu
