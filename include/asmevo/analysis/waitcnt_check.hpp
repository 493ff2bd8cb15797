// Static s_waitcnt checker: a forward dataflow analysis of the gfx9 wait counters over a kernel's CFG that finds
// every register read (or overwritten) while the memory operation that writes it may still be outstanding.
//
// The model is LLVM's (llvm/lib/Target/AMDGPU/SIInsertWaitcnts.cpp, class WaitcntBrackets), for gfx90a/gfx942/gfx950:
//  - Counters vmcnt, lgkmcnt and expcnt; an instruction increments those its table entry says (prop::vm_cnt /
//    prop::lgkm_cnt, from LLVM's VM_CNT / LGKM_CNT TSFlags), with these exceptions taken from SIInsertWaitcnts:
//    MUBUF/MTBUF carry EXP_CNT in the table for SI only (GCNSubtarget::vmemWriteNeedsExpWaitcnt), so on gfx9 expcnt
//    counts only exports and GDS (updateEventWaitcntAfter); s_sendmsg* counts in lgkmcnt (SQ_MESSAGE) although its
//    table entry does not say so; loads to LDS (`... lds`, global_load_lds_*) count in vmcnt only, as the emulator
//    (emu/sem_mem.hpp bload_lds) and LLVM ("LDS DMA loads ... On the VMEM side these should use VM_CNT") do.
//  - A counted instruction with register definitions (loads, atomics with return, ds_permute/ds_bpermute/ds_swizzle,
//    s_memtime) writes them when it completes: the same registers the emulator's scoreboard marks pending
//    (emu/machine.hpp MemOp::dst).
//  - vmcnt completes in order (MI300 ISA (CDNA3) §4.4 "S_WAITCNT"). lgkmcnt completes in order only while nothing but
//    LDS is outstanding: a pending SMEM operation ("scalar memory reads can return out of order", §4.4), a mix of
//    LDS/GDS/message events (WaitcntBrackets::counterOutOfOrder, hasMixedPendingEvents), or a pending FLAT operation
//    (which counts in vmcnt and lgkmcnt and may be serviced by either: WaitcntBrackets::hasPendingFlat) make the counter
//    out of order: a register it writes then needs that counter at 0, and a nonzero wait on it retires nothing
//    (WaitcntBrackets::applyWaitcnt). FLAT results are pending on both counters, as LLVM scores them.
//  - At a join the states merge conservatively (WaitcntBrackets::merge): the larger outstanding count, and per
//    register the pending write that needs the stronger wait (fewer events after it).
//  - Paths that no execution takes are left out, where analysis/scalar_values.hpp proves it from the scalar code:
//    an edge whose s_cbranch_scc0/scc1 cannot go that way, and, at a join block that ends in such a branch, the
//    combination "entered from predecessor P, then leaves to successor S". For the latter the join keeps, besides
//    the merged state its own instructions are checked with, one state per predecessor, and each goes on only to
//    the successors the scalar facts of its edge allow (a loop unrolled by two whose epilogue branches on the parity
//    of the trip count: each exit reaches only the epilogue half that matches it). Sound because every execution
//    entering the join from P has scalar values the edge's facts describe; when nothing is proven, every edge stays.
//  - A counter never holds more operations than its field counts (vmcnt 63, lgkmcnt 15, expcnt 7 on gfx9: the
//    MI300/MI200 ISA S_WAITCNT field widths): an instruction that would overflow it waits at issue, so an operation
//    with that many counted events after it has completed. LLVM's output relies on this (Triton's
//    gemm_a8w8_blockscale_fp8.gfx942 reads v24 of `global_load_ubyte v24` after 98 more global loads and no vmcnt
//    wait), while SIInsertWaitcnts itself caps only expcnt (WaitcntBrackets::setScoreUB). This also keeps the lattice
//    finite. It holds only while the counter completes in order: with SMEM or FLAT outstanding (or LDS mixed with
//    messages), the stall at the cap proves that some operation completed, not which, so nothing expires then.
//  - A call (s_swappc_b64 / s_call_b64) completes nothing. LLVM's callees wait for everything on entry
//    (SIInsertWaitcnts), but one kernel's analysis cannot tell that a callee does, and a stub that returns at once
//    would let a K1 call it in place of a wait: a load's result read after a call needs a wait of its own
//    (conservative for LLVM's code). s_endpgm and the end of the kernel need no wait.
//
// Checked: reads of VGPRs, AGPRs and scalar registers (s0..s101, vcc, m0, exec, flat_scratch, xnack_mask, ttmp —
// explicit operands and the form's implicit vcc/m0/exec uses and defs), and overwrites (WAW) by a non-memory
// instruction or by a load whose completion is not ordered after the pending one (anything but VMEM after VMEM or
// LDS after LDS). An overwrite is reported once: from then on the register holds the new value (later reads of it are
// not reported again for the same load). Not checked: LDS *memory* written by loads to LDS (buffer_load ... lds): the emulator checks those
// bytes dynamically (sem_mem.hpp lds_dma_read_ok); statically the LDS addresses are not known, and a wait for them is
// not a register dependency. Also not checked: memory ordering between stores and loads (a fence matter, not a
// register one), and expcnt write-after-read hazards of exports (compute kernels export nothing; GDS is tracked).
//
// Performance: the lattice is finite (counts bounded by the field maxima), so the fixed point is reached in a few
// sweeps in reverse post-order; a state is ~10 KiB, one per block, plus one per predecessor of a split join (at most
// 16 predecessors are split). The scalar facts cost less than the counters (2 ms of at most 25 ms per kernel over
// the 32 aiter objects, measured on the CI-class machine).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/findings.hpp"
#include "asmevo/analysis/scalar_values.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/reg.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::analysis {

namespace waitcnt_detail {

// Register slots: v0..v255 -> 0..255, a0..a255 -> 256..511, scalar operand codes 0..127 (s0..s101, flat_scratch,
// xnack_mask, vcc, ttmp0..15 at 108.., m0, exec) -> 512..639; then one marker per event kind, whose distance says
// whether an event of that kind is still outstanding on the counter.
inline constexpr unsigned vector_slots = 512, scalar_base = 512, scalar_codes = 128;
inline constexpr unsigned marker_base = scalar_base + scalar_codes;
enum Kind : std::uint8_t { k_vmem, k_smem, k_lds, k_gds, k_msg, k_flat, k_exp, num_kinds };
inline constexpr unsigned num_slots = marker_base + num_kinds;
inline constexpr std::uint8_t none = 0xff;  // not pending
inline constexpr std::uint32_t ttmp_code0 = 108;  // ttmp0's scalar operand code on gfx9 (MI300 ISA SSRC table)

inline constexpr unsigned ci(Counter c) noexcept { return static_cast<unsigned>(c); }  // vm 0, exp 1, lgkm 2

/// A register range as slots [first, first + count), or count 0 when the register is not tracked.
struct SlotRange {
  std::uint16_t first = 0, count = 0;
};

[[nodiscard]] inline SlotRange slots_of(const Reg& r) noexcept {
  switch (r.file) {
    case RegFile::vgpr: return r.index + r.dwords <= 256 ? SlotRange{r.index, r.dwords} : SlotRange{};
    case RegFile::agpr:
      return r.index + r.dwords <= 256 ? SlotRange{static_cast<std::uint16_t>(256 + r.index), r.dwords} : SlotRange{};
    case RegFile::sgpr:
      return r.index + r.dwords <= 102 ? SlotRange{static_cast<std::uint16_t>(scalar_base + r.index), r.dwords}
                                       : SlotRange{};
    case RegFile::ttmp:
      return ttmp_code0 + r.index + r.dwords <= 124
                 ? SlotRange{static_cast<std::uint16_t>(scalar_base + ttmp_code0 + r.index), r.dwords}
                 : SlotRange{};
    case RegFile::special:
      return r.index + r.dwords <= scalar_codes ? SlotRange{static_cast<std::uint16_t>(scalar_base + r.index), r.dwords}
                                                : SlotRange{};
  }
  return {};
}

/// The register a slot stands for, as LLVM prints it.
[[nodiscard]] inline std::string slot_name(unsigned s) {
  if (s < 256) return "v" + std::to_string(s);
  if (s < vector_slots) return "a" + std::to_string(s - 256);
  const unsigned c = s - scalar_base;
  if (c < 102) return "s" + std::to_string(c);
  if (c >= ttmp_code0 && c < 124) return "ttmp" + std::to_string(c - ttmp_code0);
  const auto n = special_name(Reg{RegFile::special, static_cast<std::uint16_t>(c), 1});
  return n.empty() ? "scalar code " + std::to_string(c) : std::string(n);
}

/// What the analysis needs of one instruction, decided once.
struct InstFacts {
  std::vector<std::pair<SlotRange, std::uint8_t>> reads;   // (range, operand index or 0xff for implicit)
  std::vector<std::pair<SlotRange, std::uint8_t>> writes;  // written at issue (non-memory defs)
  std::vector<SlotRange> async_defs;                       // written when the memory operation completes
  bool vm = false, lgkm = false, exp = false;              // counters it increments
  Kind lgkm_kind = k_lds, vm_kind = k_vmem;
  std::vector<SlotRange> exp_srcs;                         // sources an export/GDS op holds until expcnt
  std::optional<Waitcnt> wait;                             // an s_waitcnt: its counts
};

[[nodiscard]] inline bool operand_set(const Inst& in, std::span<const isa::OperandInfo> ops, std::string_view name) {
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].name == name) return in.ops[k].kind == Operand::Kind::imm && in.ops[k].imm != 0;
  return false;
}

[[nodiscard]] inline InstFacts facts_of(const Inst& in, Target t) {
  InstFacts x;
  const auto forms = isa::forms(t);
  if (in.form >= forms.size()) return x;
  const isa::FormInfo& f = forms[in.form];
  const auto ops = isa::operands(f);
  const Opcode opc = op_of(t, in.form);
  const OpInfo& info = op_info(opc);
  using namespace isa::prop;
  if (opc == op::s_waitcnt) {
    // The operand is the simm16 (ir/parser.hpp stores the encoded value); decode it as LLVM's decodeWaitcnt does.
    for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
      if (ops[k].kind == isa::Kind::waitcnt && in.ops[k].kind == Operand::Kind::imm)
        x.wait = decode_waitcnt(t, static_cast<std::uint16_t>(in.ops[k].imm));
    // An operand the IR keeps symbolically is not decoded: the wait is then taken to wait for nothing, which can
    // only report more, never less.
    if (!x.wait) x.wait = Waitcnt::none(t);
    return x;
  }
  const bool is_flat = f.format == isa::Format::FLAT;  // flat_*: LDS or memory (GLOBAL/SCRATCH are separate formats)
  const bool is_ds = f.has(ds);
  const bool gds = is_ds && (f.has(gws) || operand_set(in, ops, "gds"));
  x.vm = f.has(vm_cnt);
  // Loads to LDS count in vmcnt only (see the file comment): the MUBUF `lds` forms (prop::lds_dma) and
  // global_load_lds_* / scratch_load_lds_* (LLVM's FLAT_Global_Load_LDS records, which the table does not flag with
  // prop::lds_dma; their op has opflag::lds).
  const bool lds_dma_load =
      f.has(lds_dma) || ((f.format == isa::Format::GLOBAL || f.format == isa::Format::SCRATCH) &&
                         info.has(opflag::lds) && one_of(info.base, BaseOp::global_load, BaseOp::scratch_load));
  x.lgkm = f.has(lgkm_cnt) && !lds_dma_load;
  if (info.family == Family::s_sendmsg) x.lgkm = true;  // SIInsertWaitcnts: S_SENDMSG* -> SQ_MESSAGE
  x.exp = f.format == isa::Format::EXP || gds;
  if (is_flat) x.vm_kind = k_flat, x.lgkm_kind = k_flat;
  else if (f.has(smem) || info.family == Family::s_memtime) x.lgkm_kind = k_smem;  // s_memtime, s_memrealtime
  else if (gds) x.lgkm_kind = k_gds;
  else if (is_ds) x.lgkm_kind = k_lds;
  else if (x.lgkm) x.lgkm_kind = k_msg;
  const bool async = x.vm || x.lgkm;
  auto add = [](auto& v, SlotRange r, std::uint8_t k) {
    if (r.count) v.emplace_back(r, k);
  };
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const Operand& o = in.ops[k];
    if (!o.is_reg()) continue;
    const SlotRange r = slots_of(o.reg);
    if (!r.count) continue;
    if (ops[k].role == isa::Role::use) {
      add(x.reads, r, static_cast<std::uint8_t>(k));
      if (x.exp && r.first < vector_slots) x.exp_srcs.push_back(r);
    } else if (async) {
      x.async_defs.push_back(r);
    } else {
      add(x.writes, r, static_cast<std::uint8_t>(k));
    }
  }
  // Implicit registers (the form's implicit uses and defs: e32 VOPC writes vcc, v_cndmask_b32_e32 reads it,
  // s_movrels reads m0, v_cmpx writes exec ...). SCC and the mode register are not memory results.
  auto implicit = [&](std::uint32_t bits, bool def) {
    auto one = [&](std::uint32_t bit, std::uint16_t code, std::uint16_t n) {
      if (!(bits & bit)) return;
      const SlotRange r{static_cast<std::uint16_t>(scalar_base + code), n};
      if (!def) add(x.reads, r, 0xff);
      else if (async) x.async_defs.push_back(r);
      else add(x.writes, r, 0xff);
    };
    one(isa::reg::vcc, special::vcc_lo, 2);
    one(isa::reg::m0, special::m0, 1);
    one(isa::reg::exec, special::exec_lo, 2);
  };
  implicit(f.implicit_uses, false);
  implicit(f.implicit_defs, true);
  return x;
}

}  // namespace waitcnt_detail

/// A register whose pending write has not been waited for at some program point.
struct PendingWrite {
  Reg reg;                      ///< one register (dwords = 1)
  Counter counter = Counter::vm;
  unsigned events_after = 0;    ///< events counted on `counter` since it issued (below the field's maximum)
  unsigned needed = 0;          ///< the count that covers it: events_after, or 0 while the counter is out of order
  std::size_t load_item = 0;    ///< Program::items index of the instruction that writes it
};

/// The counter state at one program point, merged over every path that reaches it.
struct CounterState {
  std::array<std::uint8_t, 3> outstanding{};  ///< per Counter: the most operations that may be outstanding
  std::array<bool, 3> out_of_order{};         ///< per Counter: a nonzero wait on it may retire the wrong ones
  bool reached = false;                       ///< some path from the entry reaches this point
  [[nodiscard]] unsigned get(Counter c) const noexcept { return outstanding[waitcnt_detail::ci(c)]; }
};

/// The full dataflow state at one program point (what the fixed point stores per block).
class WaitState {
 public:
  using Facts = waitcnt_detail::InstFacts;

  explicit WaitState(Target t = Target::gfx942) : t_(t) {
    for (auto& a : d_) a.fill(waitcnt_detail::none);
    for (auto& a : by_) a.fill(0);
  }

  [[nodiscard]] unsigned max_of(unsigned c) const noexcept {
    return max_count(t_, static_cast<Counter>(c));
  }
  [[nodiscard]] bool pending_kind(unsigned c, waitcnt_detail::Kind k) const noexcept {
    return d_[c][waitcnt_detail::marker_base + k] != waitcnt_detail::none;
  }
  /// LLVM's counterOutOfOrder plus its pending-FLAT rule (see the file comment).
  [[nodiscard]] bool out_of_order(unsigned c) const noexcept {
    using namespace waitcnt_detail;
    if (c == ci(Counter::vm)) return pending_kind(c, k_flat);
    if (c == ci(Counter::lgkm)) {
      if (pending_kind(c, k_smem) || pending_kind(c, k_flat)) return true;
      int kinds = 0;
      for (Kind k : {k_lds, k_gds, k_msg}) kinds += pending_kind(c, k);
      return kinds > 1;
    }
    return false;
  }
  [[nodiscard]] std::uint8_t distance(unsigned c, unsigned slot) const noexcept { return d_[c][slot]; }
  [[nodiscard]] std::uint32_t writer(unsigned c, unsigned slot) const noexcept { return by_[c][slot]; }
  [[nodiscard]] std::uint8_t outstanding(unsigned c) const noexcept { return p_[c]; }
  [[nodiscard]] bool reached() const noexcept { return reached_; }
  void set_reached() noexcept { reached_ = true; }

  /// One event on counter `c` of kind `k` by item `item`, writing `defs` when it completes.
  void event(unsigned c, waitcnt_detail::Kind k, std::uint32_t item, std::span<const waitcnt_detail::SlotRange> defs) {
    using namespace waitcnt_detail;
    for (auto& x : d_[c])
      if (x != none && x + 1u < none) x = static_cast<std::uint8_t>(x + 1);
    p_[c] = static_cast<std::uint8_t>(std::min<unsigned>(p_[c] + 1u, max_of(c)));
    d_[c][marker_base + k] = 0;
    by_[c][marker_base + k] = item;
    for (const SlotRange& r : defs)
      for (unsigned s = r.first; s < r.first + r.count; ++s) d_[c][s] = 0, by_[c][s] = item;
    // At most max_of(c) operations are ever outstanding on a counter (see the file comment), so one with that many
    // events after it has completed -- but only when the counter completes in order: out of order, the stall at
    // the cap proves that SOME operation completed, not which one.
    if (!out_of_order(c)) {
      const unsigned cap = max_of(c);
      for (auto& x : d_[c])
        if (x != none && x >= cap) x = none;
    }
  }

  /// s_waitcnt with count `n` on counter `c` (LLVM WaitcntBrackets::applyWaitcnt).
  void wait(unsigned c, unsigned n) {
    using namespace waitcnt_detail;
    if (n >= p_[c]) return;  // at most n are outstanding already: nothing to retire
    if (n != 0 && out_of_order(c)) return;
    for (auto& x : d_[c])
      if (x != none && x >= n) x = none;
    p_[c] = static_cast<std::uint8_t>(n);
  }

  /// Drops the pending writes of the registers in `r` on every counter.
  void forget(waitcnt_detail::SlotRange r) {
    for (auto& a : d_)
      for (unsigned s = r.first; s < r.first + r.count; ++s) a[s] = waitcnt_detail::none;
  }

  void clear() {
    for (auto& a : d_) a.fill(waitcnt_detail::none);
    p_.fill(0);
  }

  /// Joins `o` into this state; true if this state changed (grew more conservative).
  bool merge(const WaitState& o) {
    if (!o.reached_) return false;
    bool changed = !reached_;
    reached_ = true;
    for (unsigned c = 0; c < 3; ++c) {
      if (o.p_[c] > p_[c]) p_[c] = o.p_[c], changed = true;
      auto& d = d_[c];
      const auto& od = o.d_[c];
      for (unsigned s = 0; s < waitcnt_detail::num_slots; ++s)
        if (od[s] < d[s]) d[s] = od[s], by_[c][s] = o.by_[c][s], changed = true;
    }
    return changed;
  }

  [[nodiscard]] CounterState summary() const {
    CounterState s;
    s.reached = reached_;
    for (unsigned c = 0; c < 3; ++c) s.outstanding[c] = p_[c], s.out_of_order[c] = out_of_order(c);
    return s;
  }

 private:
  Target t_;
  bool reached_ = false;
  std::array<std::uint8_t, 3> p_{};
  std::array<std::array<std::uint8_t, waitcnt_detail::num_slots>, 3> d_{};
  std::array<std::array<std::uint32_t, waitcnt_detail::num_slots>, 3> by_{};
};

/// The waitcnt dataflow of one kernel: the state at each block's entry and a summary before each instruction.
struct WaitcntAnalysis {
  const Program* program = nullptr;
  const Cfg* cfg = nullptr;
  Target target = Target::gfx942;
  std::uint32_t entry = Cfg::none;
  std::vector<std::uint32_t> order;           ///< reachable blocks in reverse post-order
  std::vector<WaitState> block_in;            ///< per Cfg block (reached() false: not reachable from the entry)
  std::vector<CounterState> before;           ///< per Program item: the counters before that instruction
  std::vector<waitcnt_detail::InstFacts> facts;  ///< per Program item (empty for non-instructions)
  unsigned sweeps = 0;                        ///< passes over the blocks until the fixed point
  /// (block, successor) edges, and (predecessor, join, successor) paths, that the scalar facts prove no execution
  /// takes and the dataflow therefore left out (diagnostics).
  std::size_t refuted_edges = 0, refuted_paths = 0;

  /// The registers with a pending write just before item `item` (an instruction in a reachable block).
  [[nodiscard]] std::vector<PendingWrite> pending_before(std::size_t item) const;
  /// True iff `item` is an instruction in a block that some path from the kernel's entry reaches (in this CFG).
  [[nodiscard]] bool reachable(std::size_t item) const noexcept {
    return item < before.size() && before[item].reached;
  }
  /// True iff the s_waitcnt at `item` is reachable and waits for nothing on any path: every counter is already at
  /// or below the count it names wherever the instruction is reached. False for an unreachable wait: "no path
  /// reaches it" is a fact about this CFG (which cannot follow a branch to an unknown label, and sees only this
  /// kernel's entry), not a proof that the wait is a no-op, so callers that treat the answer as an equivalence proof
  /// (tools/mutate) must not get one from it.
  [[nodiscard]] bool wait_is_redundant(std::size_t item) const;
};

namespace waitcnt_detail {

/// Applies one instruction's effect to `s` (after its checks).
inline void transfer(WaitState& s, const InstFacts& x, std::uint32_t item) {
  if (x.wait) {
    s.wait(ci(Counter::vm), x.wait->vm);
    s.wait(ci(Counter::lgkm), x.wait->lgkm);
    s.wait(ci(Counter::exp), x.wait->exp);
    return;
  }
  // A register written at issue holds the new value from here on; if its load was still pending, that overwrite is
  // reported once (check_waitcnt) rather than again at every later read.
  for (const auto& [r, k] : x.writes) s.forget(r);
  if (x.vm) s.event(ci(Counter::vm), x.vm_kind, item, x.async_defs);
  if (x.lgkm) s.event(ci(Counter::lgkm), x.lgkm_kind, item, x.async_defs);
  if (x.exp) s.event(ci(Counter::exp), k_exp, item, x.exp_srcs);
}

}  // namespace waitcnt_detail

/// Runs the dataflow to its fixed point for the kernel entered at block `entry_block`.
[[nodiscard]] inline WaitcntAnalysis analyze_waitcnt(const Program& p, const Cfg& g, std::uint32_t entry_block,
                                                     Target t) {
  using namespace waitcnt_detail;
  WaitcntAnalysis a;
  a.program = &p;
  a.cfg = &g;
  a.target = t;
  a.entry = entry_block;
  a.before.assign(p.items.size(), CounterState{});
  a.facts.assign(p.items.size(), InstFacts{});
  a.block_in.assign(g.blocks.size(), WaitState(t));
  if (entry_block >= g.blocks.size()) return a;
  a.order = g.reverse_post_order(entry_block);
  for (const std::uint32_t b : a.order)
    for (const std::size_t i : g.blocks[b].insts) a.facts[i] = facts_of(p.items[i].inst, t);
  a.block_in[entry_block].set_reached();  // nothing outstanding at the kernel's entry

  // Path refinement (see the file comment): the successors each block may go on to, and for join blocks whose
  // successors depend on the predecessor, one entry state per predecessor with its own successor mask.
  const ScalarValues sv = ScalarValues::analyze(p, g, entry_block, t);
  constexpr std::size_t max_split_preds = 16;
  std::vector<std::uint64_t> out_mask(g.blocks.size(), ~std::uint64_t{0});
  std::vector<std::vector<std::uint64_t>> split_mask(g.blocks.size());
  std::vector<std::vector<WaitState>> split_in(g.blocks.size());
  for (const std::uint32_t b : a.order) {
    const auto& su = g.succ[b];
    for (std::size_t k = 0; k < su.size() && k < 64; ++k)
      if (!sv.edge_feasible(b, su[k])) out_mask[b] &= ~(std::uint64_t{1} << k), ++a.refuted_edges;
    if (b == entry_block || g.pred[b].size() < 2 || g.pred[b].size() > max_split_preds || su.size() < 2 ||
        su.size() >= 64)
      continue;
    std::vector<std::uint64_t> m(g.pred[b].size());
    bool narrower = false;
    for (std::size_t k = 0; k < m.size(); ++k) {
      m[k] = sv.successors_from(g.pred[b][k], b) & out_mask[b];
      if (m[k] != 0 && m[k] != (out_mask[b] & ((std::uint64_t{1} << su.size()) - 1)))
        narrower = true, a.refuted_paths += static_cast<std::size_t>(std::popcount(out_mask[b] & ~m[k] &
                                                                                  ((std::uint64_t{1} << su.size()) - 1)));
    }
    if (!narrower) continue;
    split_mask[b] = std::move(m);
    split_in[b].assign(g.pred[b].size(), WaitState(t));
  }
  std::vector<std::uint8_t> dirty(g.blocks.size(), 0);
  dirty[entry_block] = 1;
  bool any = true;
  WaitState s(t);
  auto propagate = [&](std::uint32_t b, const WaitState& st, std::uint64_t mask) {
    const auto& su = g.succ[b];
    for (std::size_t k = 0; k < su.size(); ++k) {
      if (k < 64 && !(mask >> k & 1)) continue;
      const std::uint32_t n = su[k];
      bool changed = a.block_in[n].merge(st);
      if (!split_in[n].empty()) {
        const auto& pr = g.pred[n];
        const auto at = static_cast<std::size_t>(std::find(pr.begin(), pr.end(), b) - pr.begin());
        if (at < pr.size()) changed = split_in[n][at].merge(st) || changed;
      }
      if (changed) dirty[n] = 1, any = true;
    }
  };
  while (any) {
    any = false;
    ++a.sweeps;
    for (const std::uint32_t b : a.order) {
      if (!dirty[b]) continue;
      dirty[b] = 0;
      if (split_in[b].empty()) {
        s = a.block_in[b];
        for (const std::size_t i : g.blocks[b].insts) transfer(s, a.facts[i], static_cast<std::uint32_t>(i));
        propagate(b, s, out_mask[b]);
        continue;
      }
      for (std::size_t k = 0; k < split_in[b].size(); ++k) {
        if (!split_in[b][k].reached()) continue;
        s = split_in[b][k];
        for (const std::size_t i : g.blocks[b].insts) transfer(s, a.facts[i], static_cast<std::uint32_t>(i));
        propagate(b, s, split_mask[b][k]);
      }
    }
  }
  for (const std::uint32_t b : a.order) {
    s = a.block_in[b];
    for (const std::size_t i : g.blocks[b].insts) {
      a.before[i] = s.summary();
      transfer(s, a.facts[i], static_cast<std::uint32_t>(i));
    }
  }
  return a;
}

inline std::vector<PendingWrite> WaitcntAnalysis::pending_before(std::size_t item) const {
  using namespace waitcnt_detail;
  std::vector<PendingWrite> out;
  if (cfg == nullptr || item >= facts.size() || cfg->block_of[item] == Cfg::none) return out;
  const std::uint32_t b = cfg->block_of[item];
  WaitState s = block_in[b];
  if (!s.reached()) return out;
  for (const std::size_t i : cfg->blocks[b].insts) {
    if (i == item) break;
    transfer(s, facts[i], static_cast<std::uint32_t>(i));
  }
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned sl = 0; sl < marker_base; ++sl) {
      const auto d = s.distance(c, sl);
      if (d == none) continue;
      PendingWrite w;
      if (sl < 256) w.reg = Reg{RegFile::vgpr, static_cast<std::uint16_t>(sl), 1};
      else if (sl < vector_slots) w.reg = Reg{RegFile::agpr, static_cast<std::uint16_t>(sl - 256), 1};
      else if (sl - scalar_base < 102) w.reg = Reg{RegFile::sgpr, static_cast<std::uint16_t>(sl - scalar_base), 1};
      else w.reg = Reg{RegFile::special, static_cast<std::uint16_t>(sl - scalar_base), 1};
      w.counter = static_cast<Counter>(c);
      w.events_after = d;
      w.needed = s.out_of_order(c) ? 0 : d;
      w.load_item = s.writer(c, sl);
      out.push_back(w);
    }
  return out;
}

inline bool WaitcntAnalysis::wait_is_redundant(std::size_t item) const {
  if (item >= facts.size() || !facts[item].wait) return false;
  const CounterState& c = before[item];
  if (!c.reached) return false;
  const Waitcnt& w = *facts[item].wait;
  return c.get(Counter::vm) <= w.vm && c.get(Counter::lgkm) <= w.lgkm && c.get(Counter::exp) <= w.exp;
}

/// Every read or overwrite of a register whose pending write is not covered, on every path from the entry, by an
/// s_waitcnt with a small enough count: one Finding{rule "waitcnt", at = the reader, other = the load} per reader
/// and load, whose message names both (id and mnemonic), the register, and the wait that would cover it.
[[nodiscard]] ASMEVO_OUTLINE Findings check_waitcnt(const WaitcntAnalysis& a)
#if ASMEVO_BODY_ANALYSIS
{
  using namespace waitcnt_detail;
  Findings out;
  if (a.program == nullptr || a.cfg == nullptr) return out;
  const Program& p = *a.program;
  const Cfg& g = *a.cfg;
  const Target t = a.target;
  const auto forms = isa::forms(t);
  auto mnem = [&](std::size_t i) -> std::string {
    const Inst& in = p.items[i].inst;
    return in.form < forms.size() ? std::string(forms[in.form].mnemonic) : std::string("?");
  };
  auto id = [&](std::size_t i) { return "i" + std::to_string(p.items[i].inst.id.value); };
  struct Need {
    Waitcnt wait;
    std::string reg;
    bool overwrite = false;
  };
  WaitState s(t);
  for (const std::uint32_t b : a.order) {
    s = a.block_in[b];
    if (!s.reached()) continue;  // every path to it was proven infeasible
    for (const std::size_t i : g.blocks[b].insts) {
      const InstFacts& x = a.facts[i];
      std::map<std::uint32_t, Need> needs;  // by load item, in item order
      auto need = [&](unsigned c, unsigned slot, bool overwrite) {
        const std::uint32_t by = s.writer(c, slot);
        const unsigned n = s.out_of_order(c) ? 0u : s.distance(c, slot);
        auto [it, fresh] = needs.try_emplace(by, Need{Waitcnt::none(t), slot_name(slot), overwrite});
        const auto cur = it->second.wait.get(static_cast<Counter>(c));
        it->second.wait.set(static_cast<Counter>(c), std::min(cur, n));
        (void)fresh;
      };
      if (!x.wait) {
        for (const auto& [r, k] : x.reads)
          for (unsigned sl = r.first; sl < r.first + r.count; ++sl)
            for (const unsigned c : {ci(Counter::vm), ci(Counter::lgkm)})
              if (s.distance(c, sl) != none) need(c, sl, false);
        for (const auto& [r, k] : x.writes)
          for (unsigned sl = r.first; sl < r.first + r.count; ++sl)
            for (unsigned c = 0; c < 3; ++c)
              if (s.distance(c, sl) != none) need(c, sl, true);
        // A memory result overwriting a pending one is ordered only when both complete in order on one counter:
        // VMEM after VMEM (vmcnt is in order, and LLVM's hasOtherPendingVmemTypes needs no wait between BUF
        // loads), LDS after LDS. Anything else (SMEM, FLAT, a different counter) may land in either order.
        for (const SlotRange& r : x.async_defs)
          for (unsigned sl = r.first; sl < r.first + r.count; ++sl) {
            if (s.distance(ci(Counter::exp), sl) != none) need(ci(Counter::exp), sl, true);
            for (const unsigned c : {ci(Counter::vm), ci(Counter::lgkm)}) {
              if (s.distance(c, sl) == none) continue;
              const bool ordered =
                  (c == ci(Counter::vm) && x.vm && x.vm_kind == k_vmem && !x.lgkm && !s.pending_kind(c, k_flat)) ||
                  (c == ci(Counter::lgkm) && x.lgkm && x.lgkm_kind == k_lds && !x.vm && sl < vector_slots &&
                   !s.pending_kind(c, k_flat) && !s.pending_kind(c, k_gds));
              if (!ordered) need(c, sl, true);
            }
          }
      }
      for (const auto& [by, n] : needs) {
        Finding f;
        f.rule = "waitcnt";
        f.at = p.items[i].inst.id;
        f.other = p.items[by].inst.id;
        std::string why;
        for (const Counter c : {Counter::vm, Counter::lgkm})
          if (n.wait.get(c) == 0 && s.out_of_order(ci(c)) && why.empty())
            why = c == Counter::vm ? " (a FLAT operation is outstanding, so vmcnt may retire out of order)"
                                   : " (an SMEM, FLAT or mixed LDS/GDS/message operation is outstanding, so lgkmcnt "
                                     "may retire out of order)";
        f.message = id(i) + " (" + mnem(i) + ") " + (n.overwrite ? "overwrites " : "reads ") + n.reg + " while " +
                    id(by) + " (" + mnem(by) + ") that writes it may still be outstanding on some path: needs s_waitcnt " +
                    to_string(t, n.wait) + " or lower" + (n.overwrite ? " before it" : "") + why;
        out.push_back(std::move(f));
      }
      transfer(s, x, static_cast<std::uint32_t>(i));
    }
  }
  return out;
}
#else
;
#endif

/// check_waitcnt of the kernel entered at block `entry_block` (see the file comment for the model).
[[nodiscard]] inline Findings check_waitcnt(const Program& p, const Cfg& g, std::uint32_t entry_block, Target t) {
  return check_waitcnt(analyze_waitcnt(p, g, entry_block, t));
}

}  // namespace asmevo::analysis
