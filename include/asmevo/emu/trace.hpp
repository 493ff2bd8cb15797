// Traces of executed instructions, recorded by the emulator for the cost model (model/timing.hpp): a step hook
// appends each wave's executed instruction and, for a memory instruction, the cache lines it touched and the LDS
// cycles it took. The emulator records; the model, which owns the parameters, says what to record and reads it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "asmevo/emu/machine.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"

namespace asmevo::emu {

/// What a trace needs to know about the device: line sizes and LDS geometry (model::trace_config fills it from the
/// model's parameters), which workgroups are traced, and how many at most.
struct TraceConfig {
  std::uint32_t cus = 1;                   ///< workgroups with flat id % cus == 0 are traced (one CU's share)
  std::uint32_t max_groups = 64;           ///< at most this many of them
  std::uint32_t cache_line = 128;          ///< bytes per vector-memory line (a power of two)
  std::uint32_t scalar_line = 64;          ///< bytes per scalar-memory line (a power of two)
  std::uint32_t lds_banks = 32;            ///< dword-wide LDS banks
  std::uint32_t lds_bytes_per_cycle = 128; ///< LDS bandwidth of one CU
};

// ---- traces ------------------------------------------------------------------------------------------------------

/// What one executed memory instruction did, as far as the cost model cares.
struct TraceMem {
  std::uint32_t first_line = 0;  ///< into WaveTrace::lines: the distinct lines the op touched (vector memory: L2
                                 ///< lines, TraceConfig::cache_line; scalar memory: scalar-L1 lines, scalar_line)
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
  std::vector<std::uint64_t> lines;  ///< line numbers (address / line size)
  std::uint64_t last_seq = 0;        ///< sequence number of the last MemOp recorded
  /// The line sizes and LDS geometry the trace is recorded with; null: TraceConfig's defaults (MI300X's figures).
  const TraceConfig* config = nullptr;
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

/// Dwords a scalar memory instruction reads (its sdst), at least one.
[[nodiscard]] inline unsigned data_dwords_scalar(const Op& op) noexcept {
  return op.has(Name::sdst) ? std::max<unsigned>(op.at(Name::sdst).dwords, 1u) : 1u;
}

/// LDS pipeline cycles of one DS access: lanes are served in groups that fit the LDS width (128 bytes per clock);
/// a group takes as many cycles as the most-used bank has distinct dwords (MI300 ISA Data Share Operations: 32 dword banks; lanes
/// reading the same dword are a broadcast, not a conflict).
[[nodiscard]] inline unsigned lds_cycles(const MemOp& m, const Op& op, unsigned banks, unsigned bytes_per_cycle) {
  const LaneMask act = m.exec;
  // ds_read2*: the destination holds both accesses; each lane's access is half of it (ds_write2's data0 is one).
  const bool read2 = op.has(Name::offset1) && op.has(Name::vdst);
  const unsigned dw = read2 ? std::max(1u, data_dwords(op) / 2) : data_dwords(op);
  // Lane shuffles (ds_swizzle, ds_permute, ds_bpermute) and address-less forms: a dword per active lane.
  if (family_of(op.opcode) == Family::ds_lane || !op.has(Name::addr))
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
      static constexpr TraceConfig defaults{};
      const TraceConfig& p = t->config ? *t->config : defaults;
      if (op.info->props & isa::prop::ds) {
        tm.lanes = static_cast<std::uint16_t>(std::popcount(m->exec));
        tm.lds_cycles = static_cast<std::uint16_t>(
            std::min(65535u, detail::lds_cycles(*m, op, p.lds_banks, p.lds_bytes_per_cycle)));
      } else if (op.info->props & (isa::prop::vmem | isa::prop::flat)) {
        const bool buffer = op.info->format == isa::Format::MUBUF || op.info->format == isa::Format::MTBUF;
        const LaneMask act = buffer ? m->mask : m->exec;
        tm.lanes = static_cast<std::uint16_t>(std::popcount(act));
        const unsigned shift = static_cast<unsigned>(std::countr_zero(p.cache_line));
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
        // Scalar memory: the lines of the one address (MemOp::addr[0]) the op reads.
        tm.lanes = 1;
        const unsigned shift = static_cast<unsigned>(std::countr_zero(p.scalar_line));
        const std::uint64_t a = m->addr[0], last = a + 4ull * detail::data_dwords_scalar(op) - 1;
        tm.first_line = static_cast<std::uint32_t>(t->lines.size());
        for (std::uint64_t l = a >> shift; l <= last >> shift; ++l) t->lines.push_back(l);
        tm.nlines = static_cast<std::uint32_t>(t->lines.size() - tm.first_line);
      }
      s.mem = static_cast<std::uint32_t>(t->mems.size());
      t->mems.push_back(tm);
    }
  }
  t->steps.push_back(s);
}

/// What a traced launch hands to the cost model: the decoded code the traces index, the occupancy inputs, and the
/// traced workgroups of one CU's share, in dispatch order.
struct LaunchTrace {
  Target target = Target::gfx942;
  Code code;
  std::uint32_t vgprs = 0, agprs = 0, sgprs = 0;  ///< allocated per wave (descriptor granules)
  std::uint32_t lds_bytes = 0;                    ///< LDS per workgroup
  std::uint32_t waves_per_group = 1;
  std::uint64_t workgroups = 1;                   ///< in the launch
  std::uint32_t cus = 1;                          ///< TraceConfig::cus the launch was traced with
  TraceConfig config;                             ///< what the traces were recorded with (theirs is cleared)
  std::vector<std::vector<WaveTrace>> groups;
};

}  // namespace asmevo::emu
