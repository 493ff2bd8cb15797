// The cost model: a trace-driven model of one compute unit turns the emulator's traces (emu/trace.hpp) into modeled
// cycles, a per-instruction issue/stall breakdown and hot windows. Its parameters, with their sources, are in
// model/params.hpp; verify/timed_emulation.hpp runs a launch on the emulator and models it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "asmevo/analysis/mfma_info.hpp"
#include "asmevo/emu/trace.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/model/params.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::model {

// The emulator's vocabulary the model reads: decoded code, operand names, register ranges and the traces.
using emu::Code;
using emu::LaunchTrace;
using emu::Name;
using emu::Op;
using emu::RegRange;
using emu::TraceConfig;
using emu::TraceMem;
using emu::TraceStep;
using emu::WaveTrace;
using emu::vector_rows;

// The MFMA facts live in analysis/ (the hazard rules need them too).
using analysis::mfma_info;
using analysis::MfmaInfo;
using analysis::MfmaType;

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
  /// Memory instructions: issue-to-data cycles summed over the executions (a load's load-to-use latency as modeled,
  /// queueing included; a store's until its acknowledgement). 0 for the rest.
  std::uint64_t mem_latency = 0;
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

/// Where the modeled accesses of the launch's CU found their data: vector lines by the level that served them, the
/// TLB, and the scalar L1.
struct MemoryStats {
  std::uint64_t l1_lines = 0, l2_lines = 0, mall_lines = 0, hbm_lines = 0;  ///< vector loads' lines, by level
  std::uint64_t store_lines = 0;                                             ///< lines written
  std::uint64_t writeback_lines = 0;  ///< distinct lines stores and atomics dirtied: each written back to HBM once
  std::uint64_t scalar_hbm_lines = 0;                                        ///< scalar misses served by HBM
  std::uint64_t tlb_misses = 0;                                              ///< vector and scalar accesses
  std::uint64_t scalar_hits = 0, scalar_misses = 0;                          ///< scalar-L1 lines
};

/// The cache capacities and bandwidths one CU gets in a launch: its share of what it shares with the other busy CUs
/// (L2 and TLB with those of its L2 domain, the Infinity Cache and HBM with every busy CU), the whole of what it
/// has alone, and never more bandwidth than its L1 can take in (TimingParams::l1_bytes_per_cycle).
struct CuShare {
  std::uint32_t busy_cus = 1;          ///< CUs with a workgroup: min(workgroups, cus)
  std::uint32_t busy_per_l2 = 1;       ///< of them in this CU's L2 domain (workgroups go round-robin over domains)
  std::uint64_t l1_lines = 0, l2_lines = 0, mall_lines = 0, scalar_lines = 0, tlb_pages = 0;
  double l2_bytes_per_cycle = 0, mall_bytes_per_cycle = 0, hbm_bytes_per_cycle = 0;
};

/// The share of one CU of a launch of `workgroups` workgroups on `cus` CUs.
[[nodiscard]] inline CuShare cu_share(const TimingParams& p, std::uint64_t workgroups, std::uint32_t cus) {
  CuShare c;
  cus = std::max<std::uint32_t>(cus, 1);
  c.busy_cus = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(workgroups, 1, cus));
  const std::uint32_t per_l2 = std::clamp<std::uint32_t>(p.cus_per_l2.value, 1, cus);
  const std::uint32_t domains = std::max<std::uint32_t>(1, cus / per_l2);
  c.busy_per_l2 = std::clamp<std::uint32_t>((c.busy_cus + domains - 1) / domains, 1, per_l2);
  const std::uint64_t line = std::max(1u, p.cache_line.value);
  c.l1_lines = p.l1_bytes.value / line;
  c.l2_lines = p.l2_bytes.value / c.busy_per_l2 / line;
  c.mall_lines = p.mall_bytes.value / c.busy_cus / line;
  c.scalar_lines = p.scalar_cache_bytes.value / (c.busy_cus > 1 ? 2 : 1) / std::max(1u, p.scalar_line.value);
  c.tlb_pages = std::max<std::uint64_t>(1, p.tlb_entries.value / c.busy_per_l2);
  const double cap = p.l1_bytes_per_cycle.value;
  c.l2_bytes_per_cycle = std::min(cap, double(p.l2_bytes_per_cycle.value) / c.busy_per_l2);
  c.mall_bytes_per_cycle = std::min(cap, double(p.mall_bytes_per_cycle.value) / c.busy_cus);
  c.hbm_bytes_per_cycle = std::min(cap, double(p.hbm_bytes_per_cycle.value) / c.busy_cus);
  return c;
}

/// A lower bound on the modeled cycles of a launch (its speed of light for the same CU share) and what binds it.
struct Bound {
  std::uint64_t memory = 0;   ///< the CU's compulsory HBM bytes at its bandwidth share; its vector memory and LDS pipes
  std::uint64_t issue = 0;    ///< the busiest unit's cycles (VALU, MFMA passes, SALU, ...), spread over the SIMDs
  std::uint64_t latency = 0;  ///< the longest dependent chain of one wave alone (unloaded latencies)
  std::uint64_t launch = 0;   ///< launching the CU's workgroups, round after round
  std::uint64_t cycles = 0;   ///< the largest of the four
  std::string kind;           ///< which: "memory", "issue", "latency", "launch"
  double headroom = 0;        ///< modeled_cycles / cycles (>= 1)
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
  CuShare share;                       ///< the caches and bandwidths the modeled CU gets
  MemoryStats memory;                  ///< where its accesses found their data
  /// After the last wave ended, until the stores' write-back reached HBM and every SIMD unit finished (an MFMA's
  /// passes outlast its issue).
  std::uint64_t drain_cycles = 0;
  Bound bound;                         ///< speed of light for the same CU share
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
  bool atomic = false;        ///< performed at L2: bypasses the vector L1
  Waitcnt wc{};
  std::uint32_t srcc_first = 0, srcc_count = 0;  ///< MFMA srcC rows
};

/// MFMA passes: from mfma_info when it knows the opcode, else by block shape (OpInfo::mfma_m) as LLVM SISchedule.td
/// (SIDPFullSpeedModel / SIDPGFX940FullSpeedModel InstRW) classes them: 4x4 -> 2, 16x16 -> 8, 32x32 -> 16 (a
/// labelled fallback: gfx940's 4-pass 16x16x16/x32 and 8-pass 32x32x8 forms come out twice too slow).
/// `cbsz`/`blgp` pick the operand formats of gfx950's f8f6f4 forms, whose pass count depends on them
/// (MfmaInfo::passes_for).
[[nodiscard]] inline unsigned mfma_passes(asmevo::Opcode o, Target t, unsigned cbsz = 0, unsigned blgp = 0) noexcept {
  if (const MfmaInfo* i = mfma_info(o, t); i && i->passes) return i->passes_for(cbsz, blgp);
  switch (op_info(o).mfma_m) {
    case 4: return 2;
    case 16: return 8;
    case 32: return 16;
    default: return 8;
  }
}

[[nodiscard]] inline OpCost op_cost(const Op& op, const TimingParams& p, Target t) {
  OpCost c;
  c.hold = p.issue_interval.value;
  if (!op.info) return c;
  const auto& f = *op.info;
  const asmevo::Opcode id = op.opcode;
  namespace pr = isa::prop;
  if (id == op::s_nop) {
    c.kind = TKind::nop;
    c.hold = std::max<std::uint32_t>(c.hold, static_cast<std::uint32_t>((op.imm(Name::simm16) & 0xf) + 1) * p.wait_state.value);
  } else if (id == op::s_sleep) {
    c.kind = TKind::sleep;
    c.hold = std::max<std::uint32_t>(c.hold, static_cast<std::uint32_t>(op.imm(Name::simm16) & 0x7f) * p.sleep_unit.value);
  } else if (id == op::s_waitcnt) {
    c.kind = TKind::waitcnt;
    c.wc = decode_waitcnt(t, static_cast<std::uint16_t>(op.imm(Name::simm16)));
  } else if (id == op::s_barrier) {
    c.kind = TKind::barrier;
  } else if (id == op::s_endpgm) {
    c.kind = TKind::endpgm;
  } else if (f.has(pr::mfma)) {
    c.unit = TUnit::mfma;
    c.mfma = true;
    c.busy = mfma_passes(id, t, static_cast<unsigned>(op.imm(Name::cbsz)), static_cast<unsigned>(op.imm(Name::blgp))) *
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
    // LLVM marks every atomic mayStore (returning ones too); the model's store is a plain write, and an atomic,
    // returning or not, reads and changes its line at L2 (the read path, then a write-back).
    c.atomic = f.has(pr::atomic) || f.has(pr::atomic_noret);
    c.store = f.has(pr::store) && !c.atomic;
  } else if (f.has(pr::valu)) {
    c.unit = TUnit::valu;
    const bool f64 = op_info(id).mentions(DataType::f64);
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

/// A fully associative least-recently-used set of lines with a capacity: the model's stand-in for a set-associative
/// cache (conflict misses are not modeled). A capacity of 0 holds nothing.
class LruLines {
 public:
  explicit LruLines(std::uint64_t capacity = 0) : cap_(capacity) {}
  /// Whether `line` was held. Either way it is the most recently used line afterwards: a miss inserts it, and evicts
  /// the least recently used line when the set is full.
  bool touch(std::uint64_t line) {
    if (cap_ == 0) return false;
    if (const auto it = where_.find(line); it != where_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return true;
    }
    order_.push_front(line);
    where_.emplace(line, order_.begin());
    if (order_.size() > cap_) {
      where_.erase(order_.back());
      order_.pop_back();
    }
    return false;
  }

 private:
  std::uint64_t cap_;
  std::list<std::uint64_t> order_;  ///< most recent first
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where_;
};

/// The cache hierarchy of one modeled CU: its L1 and scalar L1, and its shares of L2, the Infinity Cache and the
/// TLB, all empty at launch; the bandwidth queues of L2, the Infinity Cache and HBM (the cycle each is free again).
struct Hierarchy {
  LruLines l1, l2, mall, scalar, tlb;
  std::uint64_t l2_free = 0, mall_free = 0, dram_free = 0;
  explicit Hierarchy(const CuShare& s)
      : l1(s.l1_lines), l2(s.l2_lines), mall(s.mall_lines), scalar(s.scalar_lines), tlb(s.tlb_pages) {}
};

/// Cycles `bytes` hold a queue that moves `per_cycle` bytes a cycle (at least one).
[[nodiscard]] inline std::uint64_t transfer_cycles(std::uint64_t bytes, double per_cycle) noexcept {
  if (per_cycle <= 0) return bytes;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(bytes) / per_cycle + 0.999999));
}

inline void insert_sorted(std::vector<std::uint64_t>& q, std::uint64_t t) { q.insert(std::upper_bound(q.begin(), q.end(), t), t); }

/// The time at which at most `n` of `q`'s operations are outstanding.
[[nodiscard]] inline std::uint64_t wait_until(const std::vector<std::uint64_t>& q, unsigned n) noexcept {
  return q.size() <= n ? 0 : q[q.size() - n - 1];
}
inline void retire(std::vector<std::uint64_t>& q, unsigned n) {
  if (q.size() > n) q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(q.size() - n));
}

/// The same wave alone on the CU: no other wave to share a unit, a queue or a barrier with, every memory access at
/// the latency of the level the full model found it in without queueing. Replayed step by step beside the wave; its
/// life is the wave's longest dependent chain (TimingReport::bound, latency), never longer than the wave's modeled life.
struct Shadow {
  std::uint64_t ready = 0, end = 0;
  std::vector<std::uint64_t> vmq, lgq, vready, sready;
  std::vector<bool> by_mfma;
};

/// When the registers `op` reads are ready for wave state `w` (a SimWave or a Shadow): the latest producer, except
/// an MFMA's srcC that an MFMA wrote (forwarded).
template <class W>
[[nodiscard]] std::uint64_t operands_ready(const W& w, const Op& op, const OpCost& c) {
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
  return dep;
}

/// When the wait of `c` (s_waitcnt, or s_endpgm's implicit wait for everything) is satisfied for wave state `w`.
template <class W>
[[nodiscard]] std::uint64_t waits_done(const W& w, const OpCost& c) {
  if (c.kind == TKind::waitcnt) return std::max({w.ready, wait_until(w.vmq, c.wc.vm), wait_until(w.lgq, c.wc.lgkm)});
  if (c.kind == TKind::endpgm)
    return std::max({w.ready, w.vmq.empty() ? 0 : w.vmq.back(), w.lgq.empty() ? 0 : w.lgq.back()});
  return w.ready;
}

/// Records the results of a non-memory instruction issued at `t` (a load's destination is covered by s_waitcnt).
template <class W>
void write_results(W& w, const Op& op, const OpCost& c, std::uint64_t t) {
  if (c.unit != TUnit::valu && c.unit != TUnit::mfma && c.unit != TUnit::salu) return;
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
  Shadow alone;
};

struct SimGroup {
  std::vector<unsigned> waves;
  unsigned alive = 0, arrived = 0;
  std::uint64_t max_arrival = 0;
  bool live = false;
};

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
/// allows), by s_barrier, s_nop and MFMA passes. A memory access takes the latency of the level that holds its data
/// (L1, L2, Infinity Cache, HBM; the scalar L1 for scalar loads; a TLB miss adds its cost) plus a queueing term per
/// level (LDS cycles, vector L1 lines, the CU's share of L2, Infinity Cache and HBM bandwidth, CuShare). So the
/// bandwidth a wave gets rises with the loads it keeps in flight until the CU's share binds. Deterministic.
[[nodiscard]] ASMEVO_OUTLINE TimingReport model_timing(const TimingInput& in, const TimingParams& p)
#if ASMEVO_BODY_MODEL
{
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
  std::uint64_t vmem_free = 0, lds_free = 0;
  r.share = cu_share(p, in.workgroups, r.cus);
  Hierarchy mem(r.share);
  // For the bound: the busy cycles of each unit, of the CU's vector memory and LDS pipes, the lines whose first touch
  // was a read (vector or scalar: the caches start empty, so each came from HBM; a line first written is allocated
  // in L2 without a read), the distinct lines written (stores and atomics: each is written back to HBM once), and the
  // longest chain of one wave alone.
  std::array<std::uint64_t, static_cast<std::size_t>(TUnit::count_)> unit_busy{};
  std::uint64_t vmem_service = 0, lds_pipe = 0, chain = 0, first_reads = 0;
  std::unordered_set<std::uint64_t> touched, dirty;
  const std::uint64_t line_bytes = std::max(1u, p.cache_line.value);
  const std::uint64_t page_lines = std::max<std::uint64_t>(1, p.page_bytes.value / line_bytes);
  // The TLB: one translation per page an access touches; a miss adds tlb_miss once per instruction (the walks of
  // one access overlap).
  auto translate = [&](std::uint64_t page) {
    if (mem.tlb.touch(page)) return false;
    ++r.memory.tlb_misses;
    return true;
  };
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
        w.alone.ready = w.ready;
        w.alone.vready.assign(vector_rows, 0);
        w.alone.sready.assign(128, 0);
        w.alone.by_mfma.assign(vector_rows, false);
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
      const std::uint64_t dep = operands_ready(w, op, c);
      const std::uint64_t wait = waits_done(w, c);
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
    write_results(w, op, c, t);
    // The wave alone (Shadow): the same step with no contention.
    Shadow& sh = w.alone;
    const std::uint64_t ts = std::max(operands_ready(sh, op, c), waits_done(sh, c));
    write_results(sh, op, c, ts);
    std::uint64_t unloaded = 0;  // this step's memory access: issue to data at idle, at the level the model found
    const TraceMem* tm = s.mem != ~0u && s.mem < w.tr->mems.size() ? &w.tr->mems[s.mem] : nullptr;
    switch (c.unit) {
      case TUnit::vmem: {
        // The CU's vector memory pipe takes the addresses and one L1 access per line; each line is then found in the
        // nearest level that holds it (atomics are performed at L2 and skip L1; stores write through to L2, which
        // allocates them, and their write-back takes HBM bandwidth when the line was not in L2). A level's lines
        // queue for its bandwidth share; the data is there when the slowest level has delivered.
        const unsigned nlines = tm ? tm->nlines : 1;
        const std::uint64_t service = std::max<std::uint64_t>(
            p.vmem_issue.value, transfer_cycles(std::uint64_t{nlines} * line_bytes, p.l1_bytes_per_cycle.value));
        const std::uint64_t t0 = std::max(t, vmem_free);
        vmem_free = t0 + service;
        unsigned n1 = 0, n2 = 0, nm = 0, nh = 0, nwb = 0;  // lines from L1, L2, MALL, HBM; lines to write back
        bool tlb_missed = false;
        std::uint64_t last_page = ~0ull;
        for (std::uint32_t q = 0; tm && q < tm->nlines; ++q) {
          const std::uint64_t ln = w.tr->lines[tm->first_line + q];
          if (const std::uint64_t pg = ln / page_lines; pg != last_page) {
            tlb_missed |= translate(pg);
            last_page = pg;
          }
          if (c.store) {
            // Write-allocate in L2 (a full-line write needs no read); the line is written back to HBM once, when it
            // is first dirtied, whether or not it was in L2 (an in-place kernel's store to a line it read still moves
            // the line's bytes back).
            ++r.memory.store_lines;
            ++n2;
            (void)mem.l2.touch(ln);
            touched.insert(ln);
            if (dirty.insert(ln).second) ++nwb;
            continue;
          }
          if (!c.atomic && mem.l1.touch(ln)) ++n1;
          else if (mem.l2.touch(ln)) ++n2;
          else if (mem.mall.touch(ln)) ++nm;
          else ++nh;
          // An atomic changes the line in L2: it is written back once too.
          if (c.atomic && dirty.insert(ln).second) ++nwb;
        }
        if (!c.store) {
          r.memory.l1_lines += n1;
          r.memory.l2_lines += n2;
          r.memory.mall_lines += nm;
          r.memory.hbm_lines += nh;
        }
        // Everything L1 did not serve crosses L2; lines L2 lacks come from the Infinity Cache or HBM. Each level's lines
        // queue for its bandwidth share, and the data is there when the slowest level has delivered (`done`), or, on
        // an idle CU with every queue empty (`idle`, the wave-alone replay's figure), after the slowest transfer.
        // Write-backs take their turn in HBM's queue without delaying the access (L2 acknowledges a store).
        struct Level {
          unsigned lines;
          std::uint64_t* free;
          double bytes_per_cycle;
          std::uint64_t latency;
        };
        const Level levels[] = {{n2 + nm + nh, &mem.l2_free, r.share.l2_bytes_per_cycle, p.l2_latency.value},
                                {nm, &mem.mall_free, r.share.mall_bytes_per_cycle, p.mall_latency.value},
                                {nh, &mem.dram_free, r.share.hbm_bytes_per_cycle, p.hbm_latency.value}};
        const std::uint64_t first = service + (c.store || c.atomic ? p.l2_latency.value : p.l1_latency.value);
        std::uint64_t done = t0 + first, idle = first;
        for (const Level& l : levels) {
          if (!l.lines) continue;
          const std::uint64_t xfer = transfer_cycles(std::uint64_t{l.lines} * line_bytes, l.bytes_per_cycle);
          *l.free = std::max(t0, *l.free) + xfer;
          done = std::max(done, *l.free + l.latency);
          idle = std::max(idle, xfer + l.latency);
        }
        r.memory.writeback_lines += nwb;
        if (nwb)
          mem.dram_free = std::max(t0, mem.dram_free) + transfer_cycles(std::uint64_t{nwb} * line_bytes, r.share.hbm_bytes_per_cycle);
        if (tlb_missed) done += p.tlb_miss.value, idle += p.tlb_miss.value;
        row.mem_latency += done - t;
        unloaded = idle;
        vmem_service += service;
        if (tm && !c.store)
          for (std::uint32_t q = 0; q < tm->nlines; ++q)
            first_reads += touched.insert(w.tr->lines[tm->first_line + q]).second;
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
        row.mem_latency += t0 + cyc + p.lds_latency.value - t;
        insert_sorted(w.lgq, t0 + cyc + p.lds_latency.value);
        unloaded = cyc + p.lds_latency.value;
        lds_pipe += cyc;
        break;
      }
      case TUnit::smem: {
        // The scalar L1; a missed line comes from L2 (smem_miss more), or from further down at that level's
        // latency beyond L2's.
        std::uint64_t extra = 0, idle_extra = 0;
        bool tlb_missed = false;
        const std::uint64_t per_line = std::max<std::uint64_t>(1, line_bytes / std::max(1u, p.scalar_line.value));
        for (std::uint32_t q = 0; tm && q < tm->nlines; ++q) {
          const std::uint64_t sl = w.tr->lines[tm->first_line + q];
          if (mem.scalar.touch(sl)) {
            ++r.memory.scalar_hits;
            continue;
          }
          ++r.memory.scalar_misses;
          const std::uint64_t ln = sl / per_line;
          tlb_missed |= translate(ln / page_lines);
          first_reads += touched.insert(ln).second;
          std::uint64_t miss = p.smem_miss.value;
          // The scalar L1 fills from L2 like the vector L1 does: a line L2 lacks takes its turn in the bandwidth
          // queue of the level that has it (Infinity Cache or HBM), and arrives no sooner than that queue allows.
          mem.l2_free = std::max(t, mem.l2_free) + transfer_cycles(line_bytes, r.share.l2_bytes_per_cycle);
          std::uint64_t arrive = 0, idle_arrive = 0;
          if (!mem.l2.touch(ln)) {
            const bool in_mall = mem.mall.touch(ln);
            r.memory.scalar_hbm_lines += !in_mall;
            const std::uint64_t below = in_mall ? p.mall_latency.value : p.hbm_latency.value;
            miss += below > p.l2_latency.value ? below - p.l2_latency.value : 0;
            std::uint64_t& q = in_mall ? mem.mall_free : mem.dram_free;
            const std::uint64_t xfer =
                transfer_cycles(line_bytes, in_mall ? r.share.mall_bytes_per_cycle : r.share.hbm_bytes_per_cycle);
            q = std::max(t, q) + xfer;
            arrive = q + below;
            idle_arrive = xfer + below;
          }
          extra = std::max({extra, miss, arrive > t + p.smem_latency.value ? arrive - t - p.smem_latency.value : 0});
          // On an idle CU (the wave-alone replay): the miss penalty, or the line's transfer and latency below L2.
          const std::uint64_t smem = p.smem_latency.value;
          idle_extra = std::max({idle_extra, miss, idle_arrive > smem ? idle_arrive - smem : 0});
        }
        const std::uint64_t done = t + p.smem_latency.value + extra + (tlb_missed ? p.tlb_miss.value : 0);
        row.mem_latency += done - t;
        unloaded = p.smem_latency.value + idle_extra + (tlb_missed ? p.tlb_miss.value : 0);
        insert_sorted(w.lgq, done);
        break;
      }
      default:
        break;
    }
    if (c.unit == TUnit::vmem) {
      const std::uint64_t d = std::max(ts + unloaded, sh.vmq.empty() ? 0 : sh.vmq.back());
      sh.vmq.push_back(d);
      if (c.flat) insert_sorted(sh.lgq, d);
    } else if (c.unit == TUnit::lds || c.unit == TUnit::smem) {
      insert_sorted(sh.lgq, ts + unloaded);
    }
    if (c.unit != TUnit::none) unit_busy[static_cast<std::size_t>(c.unit)] += std::max<std::uint64_t>(c.busy, 1);
    switch (c.kind) {
      case TKind::waitcnt:
        retire(w.vmq, c.wc.vm);
        retire(w.lgq, c.wc.lgkm);
        retire(sh.vmq, c.wc.vm);
        retire(sh.lgq, c.wc.lgkm);
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
    sh.ready = ts + hold;
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
      chain = std::max(chain, ts + hold > w.start ? ts + hold - w.start : 0);
      sh = Shadow{};
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

  // The launch ends when its stores have reached HBM too: the end-of-kernel release writes L2 back (on MI300X the
  // XCDs' L2s are not coherent with each other, so the next kernel could not see the data otherwise).
  // Nor does it end before every SIMD unit has finished what it issued (an MFMA's passes outlast its issue).
  std::uint64_t tail = std::max(end, mem.dram_free);
  for (const auto& u : unit_free)
    for (const std::uint64_t f : u) tail = std::max(tail, f);
  r.drain_cycles = tail - end;
  end = tail;
  const double scale = r.subset && r.modeled_groups
                           ? static_cast<double>(r.cu_share) / static_cast<double>(r.modeled_groups)
                           : 1.0;
  r.simulated_cycles = end;
  r.modeled_cycles = static_cast<std::uint64_t>(static_cast<double>(end) * scale + 0.5);
  r.modeled_us = p.clock_mhz.value ? static_cast<double>(r.modeled_cycles) / p.clock_mhz.value : 0;
  // The speed-of-light bound for the same CU share (scaled like modeled_cycles). Each term is a floor the
  // simulation above cannot go under, so bound <= modeled:
  //  memory:  every line the CU reads (vector or scalar) starts in HBM (the caches start empty) and crosses the CU's
  //           share of HBM bandwidth at least once, and every line it writes crosses it once more on its way back;
  //           the CU's vector memory pipe and its LDS serve every access in turn;
  //  issue:   each unit of a SIMD (VALU, MFMA passes, SALU, ...) is busy for its instructions' cycles, at best spread
  //           evenly over the SIMDs;
  //  latency: the longest dependent chain of one wave alone (Shadow: no contention, no queueing);
  //  launch:  the CU launches its workgroups in rounds of as many as fit, each round after the last ended.
  {
    Bound& b = r.bound;
    const double hbm = std::max(r.share.hbm_bytes_per_cycle, 1e-9);
    b.memory = std::max({static_cast<std::uint64_t>(static_cast<double>((first_reads + dirty.size()) * line_bytes) / hbm),
                         vmem_service, lds_pipe});
    std::uint64_t issue = 0;
    for (std::size_t u = 0; u < unit_busy.size(); ++u)
      if (u != static_cast<std::size_t>(TUnit::vmem) && u != static_cast<std::size_t>(TUnit::lds) &&
          u != static_cast<std::size_t>(TUnit::smem))
        issue = std::max(issue, unit_busy[u] / std::max(1u, simds));
    b.issue = issue;
    b.latency = chain;
    b.launch = (in.groups.size() + gpc - 1) / gpc * std::uint64_t{p.workgroup_launch.value};
    const std::pair<std::uint64_t, const char*> terms[] = {
        {b.memory, "memory"}, {b.issue, "issue"}, {b.latency, "latency"}, {b.launch, "launch"}};
    std::uint64_t top = 0;
    for (const auto& [v, k] : terms)
      if (v >= top) {
        top = v;
        b.kind = k;
      }
    for (std::uint64_t* v : {&b.memory, &b.issue, &b.latency, &b.launch})
      *v = static_cast<std::uint64_t>(static_cast<double>(*v) * scale);
    b.cycles = std::max({b.memory, b.issue, b.latency, b.launch});
    b.headroom = b.cycles ? static_cast<double>(r.modeled_cycles) / static_cast<double>(b.cycles) : 0;
  }
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
  r.note += "; every other busy CU is assumed equally loaded: this CU gets 1/" + std::to_string(r.share.busy_cus) +
            " of the Infinity Cache and HBM bandwidth and 1/" + std::to_string(r.share.busy_per_l2) +
            " of its L2 and TLB; the caches start empty, and a line is found in the nearest level that holds it "
            "(L1, L2, Infinity Cache, HBM), each level a least-recently-used set of the CU's share of its capacity";
  return r;
}
#else
;
#endif

/// model_timing with the target's own parameters (model/params.hpp).
[[nodiscard]] inline TimingReport model_timing(const TimingInput& in) { return model_timing(in, timing_params(in.target)); }

/// The model's input for a traced launch (EmulateOptions::trace): `t` must outlive the returned value.
[[nodiscard]] inline TimingInput timing_input(const LaunchTrace& t) noexcept {
  TimingInput in;
  in.target = t.target;
  in.code = &t.code;
  in.vgprs = t.vgprs;
  in.agprs = t.agprs;
  in.sgprs = t.sgprs;
  in.lds_bytes = t.lds_bytes;
  in.waves_per_group = t.waves_per_group;
  in.workgroups = t.workgroups;
  in.cus = t.cus;
  in.groups = t.groups;
  return in;
}

/// What the emulator must record for this model: the CU count, line sizes and LDS geometry of `p`.
[[nodiscard]] inline TraceConfig trace_config(const TimingParams& p, std::uint32_t max_groups = 64) noexcept {
  TraceConfig c;
  c.cus = p.cus.value;
  c.max_groups = max_groups;
  c.cache_line = p.cache_line.value;
  c.scalar_line = p.scalar_line.value;
  c.lds_banks = p.lds_banks.value;
  c.lds_bytes_per_cycle = p.lds_bytes_per_cycle.value;
  return c;
}

}  // namespace asmevo::model
