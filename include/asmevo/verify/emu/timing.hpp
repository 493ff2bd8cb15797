// The emulator's cost model: a step hook records each wave's executed instruction stream (with what the model needs
// from its memory accesses), and a trace-driven model of one compute unit turns the traces into modeled cycles, a
// per-instruction issue/stall breakdown and hot windows.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "asmevo/analysis/mfma_info.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/verify/emu/machine.hpp"
#include "asmevo/verify/emu/timing_params.hpp"

namespace asmevo::emu {

// The MFMA facts live in analysis/ (the hazard rules need them too); the emulator names them emu::.
using analysis::mfma_info;
using analysis::MfmaInfo;
using analysis::MfmaType;

// ---- traces ------------------------------------------------------------------------------------------------------

/// What one executed memory instruction did, as far as the cost model cares.
struct TraceMem {
  std::uint32_t first_line = 0;  ///< into WaveTrace::lines: the distinct cache lines a vector memory op touched
  std::uint32_t nlines = 0;
  std::uint16_t lanes = 0;       ///< lanes that accessed memory
  std::uint16_t lds_cycles = 0;  ///< LDS: cycles of the LDS pipeline (bandwidth and bank conflicts)
};

/// One executed instruction of a wave: its Op index and, for a memory instruction, its TraceMem.
struct TraceStep {
  std::uint32_t op = 0;
  std::uint32_t mem = ~0u;  ///< index into WaveTrace::mems, or ~0u
};

/// A wave's executed instruction stream in program order (independent of how the emulator interleaved waves).
struct WaveTrace {
  std::vector<TraceStep> steps;
  std::vector<TraceMem> mems;
  std::vector<std::uint64_t> lines;  ///< cache-line numbers (address / cache_line)
  std::uint64_t last_seq = 0;        ///< sequence number of the last MemOp recorded
  void clear() noexcept {
    steps.clear();
    mems.clear();
    lines.clear();
    last_seq = 0;
  }
};

namespace detail {

/// The MemOp `op` issued in the step that just ran, or nullptr: the newest op of the wave's queue, or (eager
/// completion, or completed at once) the most recently recycled one, provided it carries the workgroup's newest
/// sequence number.
[[nodiscard]] inline const MemOp* issued_memop(const Wave& w, const Op& op, std::uint64_t last_seq) noexcept {
  const std::uint64_t seq = w.group ? w.group->seq : 0;
  auto is_new = [&](const MemOp& m) { return m.op == &op && m.seq == seq && m.seq > last_seq; };
  if (!w.queue.empty() && is_new(*w.queue.back())) return w.queue.back().get();
  if (!w.free_ops.empty() && is_new(*w.free_ops.back())) return w.free_ops.back().get();
  return nullptr;
}

[[nodiscard]] inline unsigned data_dwords(const Op& op) noexcept {
  unsigned d = 0;
  for (Name n : {Name::vdst, Name::vdata, Name::data0})
    if (op.has(n)) d = std::max<unsigned>(d, op.at(n).dwords);
  return std::max(d, 1u);
}

/// LDS pipeline cycles of one DS access: lanes are served in groups that fit the LDS width (128 bytes per clock);
/// a group takes as many cycles as the most-used bank has distinct dwords (MI300 ISA Data Share Operations: 32 dword banks; lanes
/// reading the same dword are a broadcast, not a conflict).
[[nodiscard]] inline unsigned lds_cycles(const MemOp& m, const Op& op, unsigned banks, unsigned bytes_per_cycle) {
  const std::string_view mn = op.mnemonic();
  const LaneMask act = m.exec;
  const unsigned dw = data_dwords(op);
  if (mn.starts_with("ds_swizzle") || mn.starts_with("ds_permute") || mn.starts_with("ds_bpermute") || !op.has(Name::addr))
    return std::max(1u, (static_cast<unsigned>(std::popcount(act)) * 4 + bytes_per_cycle - 1) / bytes_per_cycle);
  const unsigned per_group = std::max(1u, bytes_per_cycle / (4 * dw));
  // The byte offset of single-address forms shifts every lane alike; read2/write2 offsets (in elements) are left
  // out, so their banks are judged from the base addresses only (an approximation).
  const std::uint64_t off = op.has(Name::offset) ? op.imm(Name::offset) : 0;
  unsigned cycles = 0;
  std::array<std::uint32_t, 128> dwords{};
  std::array<std::uint16_t, 64> per_bank{};
  for (unsigned g0 = 0; g0 < wave_lanes; g0 += per_group) {
    unsigned n = 0;
    for (unsigned l = g0; l < std::min(wave_lanes, g0 + per_group); ++l) {
      if (!((act >> l) & 1)) continue;
      const std::uint32_t a = static_cast<std::uint32_t>((m.addr[l] + off) >> 2);
      for (unsigned k = 0; k < dw && n < dwords.size(); ++k) dwords[n++] = a + k;
    }
    if (!n) continue;
    std::sort(dwords.begin(), dwords.begin() + n);
    const unsigned u = static_cast<unsigned>(std::unique(dwords.begin(), dwords.begin() + n) - dwords.begin());
    std::fill(per_bank.begin(), per_bank.begin() + std::min<unsigned>(banks, 64), 0);
    unsigned worst = 1;
    for (unsigned i = 0; i < u; ++i) worst = std::max<unsigned>(worst, ++per_bank[dwords[i] % std::min<unsigned>(banks, 64)]);
    cycles += worst;
  }
  // ds_read2 / ds_write2: two accesses per lane.
  if (op.has(Name::offset1)) cycles *= 2;
  return std::max(cycles, 1u);
}

}  // namespace detail

/// The `after` step hook (Machine::hooks.after): appends the executed instruction to the wave's trace, with its
/// memory access for a memory instruction. Does nothing for a wave without a trace (w.trace null). Cache lines are
/// taken from MemOp::addr; for scratch_* that holds the wave's private offset rather than an address, so two waves'
/// private lines count as the same line (an approximation: their second touch is modeled as an L2 hit).
inline void trace_step(Wave& w, const Op& op) {
  WaveTrace* t = w.trace;
  if (!t) return;
  TraceStep s{op.index, ~0u};
  constexpr std::uint64_t memory = isa::prop::vmem | isa::prop::flat | isa::prop::ds | isa::prop::smem;
  if (op.info && (op.info->props & memory)) {
    if (const MemOp* m = detail::issued_memop(w, op, t->last_seq)) {
      t->last_seq = m->seq;
      TraceMem tm;
      const TimingParams& p = timing_params(w.machine->target);
      if (op.info->props & isa::prop::ds) {
        tm.lanes = static_cast<std::uint16_t>(std::popcount(m->exec));
        tm.lds_cycles = static_cast<std::uint16_t>(
            std::min(65535u, detail::lds_cycles(*m, op, p.lds_banks.value, p.lds_bytes_per_cycle.value)));
      } else if (op.info->props & (isa::prop::vmem | isa::prop::flat)) {
        const bool buffer = op.info->format == isa::Format::MUBUF || op.info->format == isa::Format::MTBUF;
        const LaneMask act = buffer ? m->mask : m->exec;
        tm.lanes = static_cast<std::uint16_t>(std::popcount(act));
        const unsigned shift = static_cast<unsigned>(std::countr_zero(p.cache_line.value));
        const std::uint64_t bytes = 4ull * detail::data_dwords(op);
        std::array<std::uint64_t, 2 * wave_lanes> ls{};
        unsigned n = 0;
        for (LaneMask e = act; e; e &= e - 1) {
          const unsigned l = static_cast<unsigned>(std::countr_zero(e));
          ls[n++] = m->addr[l] >> shift;
          ls[n++] = (m->addr[l] + bytes - 1) >> shift;
        }
        std::sort(ls.begin(), ls.begin() + n);
        n = static_cast<unsigned>(std::unique(ls.begin(), ls.begin() + n) - ls.begin());
        tm.first_line = static_cast<std::uint32_t>(t->lines.size());
        tm.nlines = n;
        t->lines.insert(t->lines.end(), ls.begin(), ls.begin() + n);
      } else {
        tm.lanes = 1;
      }
      s.mem = static_cast<std::uint32_t>(t->mems.size());
      t->mems.push_back(tm);
    }
  }
  t->steps.push_back(s);
}

// ---- the report --------------------------------------------------------------------------------------------------

/// Modeled wave-cycles spent on one instruction, summed over every modeled execution of it (all waves). Stalls
/// are the cycles the wave waited before the instruction could issue: for s_waitcnt (and s_endpgm's implicit
/// wait) on outstanding memory, on registers an earlier instruction had not yet produced, at s_barrier for the
/// rest of the workgroup, and on a unit another wave held (resource).
struct InstTiming {
  InstId id{};
  std::uint32_t op_index = 0;
  std::string_view mnemonic;
  std::uint64_t executions = 0;
  std::uint64_t issue = 0;             ///< cycles the wave was held by the instruction itself
  std::uint64_t stall_waitcnt = 0;
  std::uint64_t stall_dependency = 0;
  std::uint64_t stall_barrier = 0;
  std::uint64_t stall_resource = 0;
  [[nodiscard]] std::uint64_t stalls() const noexcept { return stall_waitcnt + stall_dependency + stall_barrier + stall_resource; }
  [[nodiscard]] std::uint64_t total() const noexcept { return issue + stalls(); }
};

/// A stretch of consecutive instructions (in address order) where modeled time concentrates.
struct HotWindow {
  InstId first{}, last{};
  std::uint32_t first_op = 0, last_op = 0;  ///< Op indexes (inclusive)
  std::uint64_t cycles = 0;                 ///< wave-cycles attributed to the window's instructions
  double share = 0;                         ///< of all attributed wave-cycles
};

/// One modeled wave's life. It starts when the wave may first issue (its workgroup's launch cost paid) and ends
/// when its last instruction's issue hold is over; every cycle in between is attributed to exactly one of its
/// executed instructions, as issue or as one kind of stall, so `attributed == end - start`.
struct WaveTiming {
  std::uint32_t group = 0;       ///< index into TimingInput::groups
  std::uint32_t wave = 0;        ///< index of the wave's trace in its group
  std::uint64_t start = 0, end = 0;
  std::uint64_t attributed = 0;  ///< InstTiming::issue + stalls, summed over this wave's executed instructions
};

/// What the cost model says about a launch. All cycle counts are *modeled* shader-clock cycles.
struct TimingReport {
  Target target = Target::gfx942;
  std::string device;
  std::uint64_t modeled_cycles = 0;    ///< the launch: the time the busiest CU needs for its share of workgroups
  std::uint64_t simulated_cycles = 0;  ///< the modeled workgroups on one CU (equal to modeled_cycles unless a subset)
  double modeled_us = 0;               ///< modeled_cycles at the device's peak clock
  std::uint64_t workgroups = 0;        ///< in the launch
  std::uint32_t cus = 0;
  std::uint64_t cu_share = 0;          ///< workgroups one CU runs (ceil(workgroups / cus))
  std::uint64_t modeled_groups = 0;    ///< workgroups actually simulated (== cu_share unless `subset`)
  bool subset = false;                 ///< modeled_cycles scaled from a subset of the CU's share
  unsigned waves_per_simd = 0;         ///< occupancy limit
  unsigned groups_per_cu = 0;          ///< resident workgroups limit
  std::string occupancy_limiter;       ///< "vgprs", "sgprs", "lds", "waves", "workgroups"
  std::uint64_t wave_cycles = 0;       ///< sum of InstTiming::total over all instructions
  std::vector<InstTiming> instructions;  ///< executed instructions, by Op index (per-instruction figures are
                                         ///< those of the modeled workgroups, not scaled)
  std::vector<HotWindow> hot_windows;    ///< ranked, hottest first
  std::vector<WaveTiming> waves;         ///< the modeled waves, in launch order (their attributed cycles add up
                                         ///< to wave_cycles)
  std::string note;                      ///< how the launch was modeled (subset, assumptions)
};

/// What the model runs on.
struct TimingInput {
  Target target = Target::gfx942;
  const Code* code = nullptr;
  std::uint32_t vgprs = 0, agprs = 0, sgprs = 0;  ///< allocated per wave (descriptor granules)
  std::uint32_t lds_bytes = 0;                    ///< LDS per workgroup
  std::uint32_t waves_per_group = 1;
  std::uint64_t workgroups = 1;                   ///< in the launch
  std::uint32_t cus = 0;                          ///< 0: the target's (TimingParams::cus)
  /// The modeled workgroups of one CU's share, in dispatch order; each holds its waves' traces.
  std::span<const std::vector<WaveTrace>> groups;
};

namespace detail {

enum class TUnit : std::uint8_t { none, valu, mfma, salu, vmem, lds, smem, branch, count_ };
enum class TKind : std::uint8_t { normal, nop, sleep, waitcnt, barrier, endpgm };

/// Static cost of one Op.
struct OpCost {
  TUnit unit = TUnit::none;
  TKind kind = TKind::normal;
  std::uint32_t busy = 0;     ///< cycles the unit is held
  std::uint32_t latency = 0;  ///< result registers ready this long after issue
  std::uint32_t hold = 0;     ///< cycles before the wave's next issue
  bool store = false, flat = false, mfma = false;
  Waitcnt wc{};
  std::uint32_t srcc_first = 0, srcc_count = 0;  ///< MFMA srcC rows
};

/// MFMA passes: from mfma_info when it knows the opcode, else by block shape as LLVM SISchedule.td
/// (SIDPFullSpeedModel / SIDPGFX940FullSpeedModel InstRW) classes them: 4x4 -> 2, 16x16 -> 8, 32x32 -> 16 (a
/// labelled fallback: gfx940's 4-pass 16x16x16/x32 and 8-pass 32x32x8 forms come out twice too slow).
/// `cbsz`/`blgp` pick the operand formats of gfx950's f8f6f4 forms, whose pass count depends on them
/// (MfmaInfo::passes_for).
[[nodiscard]] inline unsigned mfma_passes(std::string_view mn, Target t, unsigned cbsz = 0, unsigned blgp = 0) noexcept {
  if (const MfmaInfo* i = mfma_info(mn, t); i && i->passes) return i->passes_for(cbsz, blgp);
  if (mn.find("_4x4x") != std::string_view::npos) return 2;
  if (mn.find("_16x16x") != std::string_view::npos) return 8;
  if (mn.find("_32x32x") != std::string_view::npos) return 16;
  return 8;
}

[[nodiscard]] inline OpCost op_cost(const Op& op, const TimingParams& p, Target t) {
  OpCost c;
  c.hold = p.issue_interval.value;
  if (!op.info) return c;
  const auto& f = *op.info;
  const std::string_view mn = f.mnemonic;
  namespace pr = isa::prop;
  if (mn == "s_nop") {
    c.kind = TKind::nop;
    c.hold = std::max<std::uint32_t>(c.hold, static_cast<std::uint32_t>((op.imm(Name::simm16) & 0xf) + 1) * p.wait_state.value);
  } else if (mn == "s_sleep") {
    c.kind = TKind::sleep;
    c.hold = std::max<std::uint32_t>(c.hold, static_cast<std::uint32_t>(op.imm(Name::simm16) & 0x7f) * p.sleep_unit.value);
  } else if (mn == "s_waitcnt") {
    c.kind = TKind::waitcnt;
    c.wc = decode_waitcnt(t, static_cast<std::uint16_t>(op.imm(Name::simm16)));
  } else if (mn == "s_barrier") {
    c.kind = TKind::barrier;
  } else if (mn == "s_endpgm") {
    c.kind = TKind::endpgm;
  } else if (f.has(pr::mfma)) {
    c.unit = TUnit::mfma;
    c.mfma = true;
    c.busy = mfma_passes(mn, t, static_cast<unsigned>(op.imm(Name::cbsz)), static_cast<unsigned>(op.imm(Name::blgp))) *
             p.mfma_pass.value;
    c.latency = c.busy + p.mfma_writeback.value;
    if (op.has(Name::src2) && op.at(Name::src2).is_vgpr()) {
      c.srcc_first = op.at(Name::src2).index;
      c.srcc_count = op.at(Name::src2).dwords;
    }
  } else if (f.has(pr::smem)) {
    c.unit = TUnit::smem;
  } else if (f.has(pr::ds)) {
    c.unit = TUnit::lds;
  } else if (f.props & (pr::vmem | pr::flat)) {
    c.unit = TUnit::vmem;
    c.flat = f.format == isa::Format::FLAT;
    c.store = f.has(pr::store) || f.has(pr::atomic_noret);
  } else if (f.has(pr::valu)) {
    c.unit = TUnit::valu;
    const bool f64 = mn.find("_f64") != std::string_view::npos;
    c.busy = f.has(pr::trans) ? (f64 ? p.valu_trans_f64.value : p.valu_trans.value) : f64 ? p.valu_f64.value : p.valu.value;
    c.latency = std::max(c.busy, p.valu_latency.value);
  } else if (f.has(pr::branch)) {
    c.unit = TUnit::branch;
    c.busy = p.issue_interval.value;
  } else if (f.has(pr::salu)) {
    c.unit = TUnit::salu;
    c.busy = p.issue_interval.value;
    c.latency = p.salu.value;
  }
  if (c.unit == TUnit::smem || c.unit == TUnit::lds || c.unit == TUnit::vmem) c.busy = p.issue_interval.value;
  return c;
}

struct SimWave {
  const WaveTrace* tr = nullptr;
  std::size_t k = 0;
  unsigned simd = 0, slot = 0;
  std::uint64_t ready = 0;
  std::uint64_t start = 0, end = 0, attributed = 0;
  std::uint32_t group = 0, index = 0;
  std::uint32_t barrier_op = 0;
  bool done = true, at_barrier = false;
  std::vector<std::uint64_t> vmq, lgq;  ///< completion times of outstanding ops per counter, ascending
  std::vector<std::uint64_t> vready, sready;
  std::vector<bool> by_mfma;
};

struct SimGroup {
  std::vector<unsigned> waves;
  unsigned alive = 0, arrived = 0;
  std::uint64_t max_arrival = 0;
  bool live = false;
};

inline void insert_sorted(std::vector<std::uint64_t>& q, std::uint64_t t) { q.insert(std::upper_bound(q.begin(), q.end(), t), t); }

/// The time at which at most `n` of `q`'s operations are outstanding.
[[nodiscard]] inline std::uint64_t wait_until(const std::vector<std::uint64_t>& q, unsigned n) noexcept {
  return q.size() <= n ? 0 : q[q.size() - n - 1];
}
inline void retire(std::vector<std::uint64_t>& q, unsigned n) {
  if (q.size() > n) q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(q.size() - n));
}

/// Hot windows: runs of executed instructions (in address order) whose cost is above the mean, joined across gaps
/// of at most two cooler instructions, ranked by cycles.
[[nodiscard]] inline std::vector<HotWindow> hot_windows(const std::vector<InstTiming>& rows, std::uint64_t total,
                                                        std::size_t keep = 10) {
  std::vector<HotWindow> out;
  if (rows.empty() || total == 0) return out;
  const double mean = static_cast<double>(total) / static_cast<double>(rows.size());
  std::size_t i = 0;
  while (i < rows.size()) {
    if (static_cast<double>(rows[i].total()) <= mean) { ++i; continue; }
    std::size_t j = i, last_hot = i;
    while (j + 1 < rows.size()) {
      std::size_t n = j + 1;
      if (rows[n].op_index > rows[j].op_index + 3) break;  // not consecutive code
      if (static_cast<double>(rows[n].total()) > mean) last_hot = n;
      else if (n - last_hot > 2) break;
      j = n;
    }
    HotWindow h;
    h.first = rows[i].id;
    h.first_op = rows[i].op_index;
    h.last = rows[last_hot].id;
    h.last_op = rows[last_hot].op_index;
    for (std::size_t k = i; k <= last_hot; ++k) h.cycles += rows[k].total();
    h.share = static_cast<double>(h.cycles) / static_cast<double>(total);
    out.push_back(h);
    i = last_hot + 1;
  }
  if (out.empty()) {  // every instruction costs the same: the whole executed range
    HotWindow h{rows.front().id, rows.back().id, rows.front().op_index, rows.back().op_index, total, 1.0};
    out.push_back(h);
  }
  std::stable_sort(out.begin(), out.end(), [](const HotWindow& a, const HotWindow& b) { return a.cycles > b.cycles; });
  if (out.size() > keep) out.resize(keep);
  return out;
}

}  // namespace detail

/// Models one compute unit running `in.groups` (the workgroups one CU gets of the launch): workgroups are made
/// resident as occupancy allows (VGPR/AGPR, SGPR and LDS counts, wave and workgroup slots), their waves spread over
/// the SIMDs; each cycle the earliest-ready wave issues (oldest first on ties), held by the issue cadence of its
/// instruction class, by register dependencies on earlier results, by s_waitcnt against the modeled completion
/// times of its outstanding memory operations (vector memory returns in order; LDS and SMEM as the lgkm counter
/// allows), by s_barrier, s_nop and MFMA passes. Memory completion adds a queueing term per CU (LDS cycles, vector
/// L1 lines, the CU's share of HBM bandwidth for lines not seen before). Deterministic.
[[nodiscard]] inline TimingReport model_timing(const TimingInput& in, const TimingParams& p) {
  using namespace detail;
  TimingReport r;
  r.target = in.target;
  r.device = std::string(p.device);
  r.workgroups = in.workgroups;
  r.cus = in.cus ? in.cus : p.cus.value;
  r.cu_share = (in.workgroups + r.cus - 1) / std::max<std::uint32_t>(r.cus, 1);
  r.modeled_groups = in.groups.size();
  r.subset = r.modeled_groups < r.cu_share;
  if (!in.code || in.groups.empty()) {
    r.note = "nothing to model";
    return r;
  }
  const auto& ops = in.code->ops;
  std::vector<OpCost> cost(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) cost[i] = op_cost(ops[i], p, in.target);

  // Occupancy.
  const unsigned simds = p.simds_per_cu.value;
  const unsigned alloc = std::max(1u, (in.vgprs + in.agprs + p.vgpr_granule.value - 1) / p.vgpr_granule.value) * p.vgpr_granule.value;
  const unsigned by_vgpr = p.vgprs_per_simd.value / alloc;
  const unsigned by_sgpr = sgpr_limited_waves(in.sgprs);
  unsigned wps = p.max_waves_per_simd.value;
  r.occupancy_limiter = "waves";
  if (by_vgpr < wps) { wps = by_vgpr; r.occupancy_limiter = "vgprs"; }
  if (by_sgpr < wps) { wps = by_sgpr; r.occupancy_limiter = "sgprs"; }
  wps = std::max(wps, 1u);
  const unsigned wpg = std::max<std::uint32_t>(in.waves_per_group, 1);
  unsigned gpc = std::max(1u, simds * wps / wpg);
  // A workgroup holds its LDS in whole allocation granules (AMDGPUUsage compute_pgm_rsrc2 GRANULATED_LDS_SIZE:
  // 512 bytes on gfx90a/gfx942, 1280 on gfx950; TimingParams::lds_granule).
  const std::uint64_t granule = std::max(1u, p.lds_granule.value);
  const std::uint64_t lds_alloc = (std::uint64_t{in.lds_bytes} + granule - 1) / granule * granule;
  if (lds_alloc && p.lds_per_cu.value / lds_alloc < gpc) {
    gpc = std::max(1u, static_cast<unsigned>(p.lds_per_cu.value / lds_alloc));
    r.occupancy_limiter = "lds";
  }
  if (wpg > 1 && gpc > p.max_workgroups_per_cu.value) {
    gpc = p.max_workgroups_per_cu.value;
    r.occupancy_limiter = "workgroups";
  }
  r.waves_per_simd = wps;
  r.groups_per_cu = gpc;

  // Simulation state.
  std::vector<std::array<std::uint64_t, static_cast<std::size_t>(TUnit::count_)>> unit_free(simds);
  for (auto& u : unit_free) u.fill(0);
  std::vector<unsigned> simd_waves(simds, 0);
  std::uint64_t vmem_free = 0, lds_free = 0, dram_free = 0;
  std::unordered_set<std::uint64_t> seen_lines;
  std::vector<InstTiming> rows(ops.size());
  std::vector<SimWave> waves;
  std::vector<SimGroup> groups;
  std::size_t next_group = 0;
  unsigned resident = 0;
  std::uint64_t end = 0;
  std::vector<unsigned> active;  ///< waves not yet ended, oldest first

  auto launch = [&](std::uint64_t at) {
    while (next_group < in.groups.size() && resident < gpc) {
      unsigned free_slots = 0;
      for (unsigned s = 0; s < simds; ++s) free_slots += wps > simd_waves[s] ? wps - simd_waves[s] : 0;
      if (resident > 0 && free_slots < wpg) break;
      const auto& traces = in.groups[next_group];
      SimGroup g;
      g.live = true;
      for (std::size_t i = 0; i < traces.size(); ++i) {
        unsigned best = 0;
        for (unsigned s = 1; s < simds; ++s)
          if (simd_waves[s] < simd_waves[best]) best = s;
        ++simd_waves[best];
        SimWave w;
        w.tr = &traces[i];
        w.simd = best;
        w.slot = static_cast<unsigned>(groups.size());
        w.ready = at + p.workgroup_launch.value;
        w.start = w.ready;
        w.group = static_cast<std::uint32_t>(next_group);
        w.index = static_cast<std::uint32_t>(i);
        w.done = traces[i].steps.empty();
        w.vready.assign(vector_rows, 0);
        w.sready.assign(128, 0);
        w.by_mfma.assign(vector_rows, false);
        if (w.done) { --simd_waves[best]; continue; }
        g.waves.push_back(static_cast<unsigned>(waves.size()));
        ++g.alive;
        active.push_back(static_cast<unsigned>(waves.size()));
        waves.push_back(std::move(w));
      }
      ++next_group;
      if (g.alive == 0) continue;
      ++resident;
      groups.push_back(std::move(g));
    }
  };

  auto release_barrier = [&](SimGroup& g) {
    if (g.arrived == 0 || g.arrived < g.alive) return;
    const std::uint64_t at = g.max_arrival + p.barrier.value;
    for (unsigned wi : g.waves) {
      SimWave& w = waves[wi];
      if (!w.at_barrier) continue;
      // The s_barrier's issue hold is already charged as its issue (w.ready is its end): the stall is what remains.
      const std::uint64_t stall = at > w.ready ? at - w.ready : 0;
      rows[w.barrier_op].stall_barrier += stall;
      w.attributed += stall;
      w.ready = std::max(w.ready, at);
      w.at_barrier = false;
    }
    g.arrived = 0;
    g.max_arrival = 0;
  };

  launch(0);
  for (;;) {
    // Pick the wave that can issue first (oldest on ties).
    std::size_t pick = waves.size();
    std::uint64_t best = ~0ull, pick_dep = 0, pick_wait = 0;
    for (const unsigned wi : active) {
      SimWave& w = waves[wi];
      if (w.at_barrier) continue;
      const TraceStep& s = w.tr->steps[w.k];
      const OpCost& c = cost[s.op];
      const Op& op = ops[s.op];
      std::uint64_t dep = w.ready;
      for (unsigned q = 0; q < op.nreads; ++q) {
        const RegRange& rr = op.reads[q];
        for (unsigned x = 0; x < rr.count; ++x) {
          const unsigned reg = rr.first + x;
          if (rr.vector) {
            if (reg >= vector_rows) continue;
            if (c.mfma && reg >= c.srcc_first && reg < c.srcc_first + c.srcc_count && w.by_mfma[reg]) continue;  // srcC forwarding
            dep = std::max(dep, w.vready[reg]);
          } else if (reg < 128) {
            dep = std::max(dep, w.sready[reg]);
          }
        }
      }
      std::uint64_t wait = w.ready;
      if (c.kind == TKind::waitcnt)
        wait = std::max({wait, wait_until(w.vmq, c.wc.vm), wait_until(w.lgq, c.wc.lgkm)});
      else if (c.kind == TKind::endpgm)
        wait = std::max({wait, w.vmq.empty() ? 0 : w.vmq.back(), w.lgq.empty() ? 0 : w.lgq.back()});
      std::uint64_t t = std::max({w.ready, dep, wait});
      if (c.unit != TUnit::none) t = std::max(t, unit_free[w.simd][static_cast<std::size_t>(c.unit)]);
      if (t < best) { best = t; pick = wi; pick_dep = dep; pick_wait = wait; }
    }
    if (pick == waves.size()) break;
    SimWave& w = waves[pick];
    const std::uint64_t t = best;
    const TraceStep s = w.tr->steps[w.k];
    const OpCost& c = cost[s.op];
    const Op& op = ops[s.op];
    InstTiming& row = rows[s.op];
    ++row.executions;
    const std::uint64_t wait_stall = pick_wait > w.ready ? pick_wait - w.ready : 0;
    const std::uint64_t after_wait = std::max(w.ready, pick_wait);
    const std::uint64_t dep_stall = pick_dep > after_wait ? pick_dep - after_wait : 0;
    const std::uint64_t resource_stall = t - std::max(after_wait, pick_dep);
    row.stall_waitcnt += wait_stall;
    row.stall_dependency += dep_stall;
    row.stall_resource += resource_stall;
    w.attributed += wait_stall + dep_stall + resource_stall;
    std::uint64_t hold = c.hold;
    if (c.unit != TUnit::none) unit_free[w.simd][static_cast<std::size_t>(c.unit)] = t + std::max<std::uint64_t>(c.busy, 1);
    // Results of non-memory instructions (a load's destination is covered by s_waitcnt instead).
    if (c.unit == TUnit::valu || c.unit == TUnit::mfma || c.unit == TUnit::salu) {
      for (unsigned q = 0; q < op.nwrites; ++q) {
        const RegRange& rr = op.writes[q];
        for (unsigned x = 0; x < rr.count; ++x) {
          const unsigned reg = rr.first + x;
          if (rr.vector && reg < vector_rows) {
            w.vready[reg] = t + c.latency;
            w.by_mfma[reg] = c.mfma;
          } else if (!rr.vector && reg < 128) {
            w.sready[reg] = t + c.latency;
          }
        }
      }
    }
    const TraceMem* tm = s.mem != ~0u && s.mem < w.tr->mems.size() ? &w.tr->mems[s.mem] : nullptr;
    switch (c.unit) {
      case TUnit::vmem: {
        // The CU's vector memory pipe: address processing, then one line per L1 access; lines this CU has not
        // touched before come from HBM at the CU's share of its bandwidth, the rest hit in L2.
        const unsigned nlines = tm ? tm->nlines : 1;
        const std::uint64_t service = std::max<std::uint64_t>(
            p.vmem_issue.value, (std::uint64_t{nlines} * p.cache_line.value + p.l1_bytes_per_cycle.value - 1) / p.l1_bytes_per_cycle.value);
        const std::uint64_t t0 = std::max(t, vmem_free);
        vmem_free = t0 + service;
        unsigned cold = 0;
        if (tm)
          for (std::uint32_t q = 0; q < tm->nlines; ++q) cold += seen_lines.insert(w.tr->lines[tm->first_line + q]).second;
        std::uint64_t done = t0 + service + p.l2_latency.value;
        if (cold) {
          const std::uint64_t d0 = std::max(t0, dram_free);
          dram_free = d0 + (std::uint64_t{cold} * p.cache_line.value + p.hbm_bytes_per_cycle_per_cu.value - 1) / p.hbm_bytes_per_cycle_per_cu.value;
          // A store's data is acknowledged by L2; only its write-back consumes HBM bandwidth.
          if (!c.store) done = std::max(done, dram_free + p.hbm_latency.value);
        }
        // Vector memory returns in order (MI300 ISA §4.4 S_WAITCNT: vector memory counts down in issue order).
        if (!w.vmq.empty()) done = std::max(done, w.vmq.back());
        w.vmq.push_back(done);
        if (c.flat) insert_sorted(w.lgq, done);
        break;
      }
      case TUnit::lds: {
        const std::uint64_t cyc = tm ? std::max<std::uint16_t>(tm->lds_cycles, 1) : 2;
        const std::uint64_t t0 = std::max(t, lds_free);
        lds_free = t0 + cyc;
        insert_sorted(w.lgq, t0 + cyc + p.lds_latency.value);
        break;
      }
      case TUnit::smem:
        insert_sorted(w.lgq, t + p.smem_latency.value);
        break;
      default:
        break;
    }
    switch (c.kind) {
      case TKind::waitcnt:
        retire(w.vmq, c.wc.vm);
        retire(w.lgq, c.wc.lgkm);
        break;
      case TKind::barrier: {
        SimGroup& g = groups[w.slot];
        w.at_barrier = true;
        w.barrier_op = s.op;
        ++g.arrived;
        g.max_arrival = std::max(g.max_arrival, t);
        break;
      }
      default:
        break;
    }
    // A taken branch: the next executed instruction is not the next one in memory.
    if (c.unit == TUnit::branch && w.k + 1 < w.tr->steps.size() && w.tr->steps[w.k + 1].op != s.op + 1)
      hold += p.branch_taken.value;
    row.issue += hold;
    w.attributed += hold;
    w.ready = t + hold;
    ++w.k;
    if (c.kind == TKind::barrier) release_barrier(groups[w.slot]);
    if (c.kind == TKind::endpgm || w.k >= w.tr->steps.size()) {
      w.done = true;
      w.vmq = {};
      w.lgq = {};
      w.vready = {};
      w.sready = {};
      w.by_mfma = {};
      std::erase(active, static_cast<unsigned>(pick));
      const std::uint64_t fin = t + hold;
      w.end = fin;
      end = std::max(end, fin);
      --simd_waves[w.simd];
      SimGroup& g = groups[w.slot];
      --g.alive;
      if (g.alive == 0) {
        g.live = false;
        --resident;
        launch(fin);
      } else {
        release_barrier(g);
      }
    }
  }

  r.simulated_cycles = end;
  r.modeled_cycles = r.subset && r.modeled_groups
                         ? static_cast<std::uint64_t>(static_cast<double>(end) * static_cast<double>(r.cu_share) /
                                                      static_cast<double>(r.modeled_groups) + 0.5)
                         : end;
  r.modeled_us = p.clock_mhz.value ? static_cast<double>(r.modeled_cycles) / p.clock_mhz.value : 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!rows[i].executions) continue;
    rows[i].id = ops[i].id;
    rows[i].op_index = static_cast<std::uint32_t>(i);
    rows[i].mnemonic = ops[i].mnemonic();
    r.wave_cycles += rows[i].total();
    r.instructions.push_back(rows[i]);
  }
  r.hot_windows = hot_windows(r.instructions, r.wave_cycles);
  r.waves.reserve(waves.size());
  for (const SimWave& w : waves) r.waves.push_back({w.group, w.index, w.start, w.end, w.attributed});
  r.note = "one CU (of " + std::to_string(r.cus) + " on " + r.device + ") runs workgroups 0, " + std::to_string(r.cus) +
           ", 2*" + std::to_string(r.cus) + ", ... of the launch: " + std::to_string(r.cu_share) + " workgroup(s)";
  if (r.subset)
    r.note += "; " + std::to_string(r.modeled_groups) + " of them were modeled and the time scaled by " +
              std::to_string(r.cu_share) + "/" + std::to_string(r.modeled_groups);
  r.note += "; every other CU is assumed equally loaded (HBM bandwidth shared evenly); a cache line is an L2 hit when "
            "this CU touched it before, else an HBM access";
  return r;
}

/// model_timing with the target's own parameters (timing_params.hpp).
[[nodiscard]] inline TimingReport model_timing(const TimingInput& in) { return model_timing(in, timing_params(in.target)); }

}  // namespace asmevo::emu
