// The memory-model check of differential verification: which other waves and agents see a store, and when, depends on
// the order of a kernel's synchronising memory operations and on their cache-scope bits, which no single-dispatch run
// can show, so K1 must keep them as K0 has them, in the same order.
//
// What is compared, per kernel (the code reachable from its entry label over analysis::Cfg, in program order):
//  1. Ordering events, as one sequence that must be equal (kind, address space, scope bits, bytes per lane, and the
//     instruction's operands: which address and data a release store or an atomic uses is what the other side
//     synchronises on, and a run cannot tell a flag store from a data store that swapped registers):
//     - every memory instruction with a scope bit set (below), every atomic (a read-modify-write: LLVM mayLoad &&
//       mayStore, so ds_wrxchg2*, ds_append, ds_consume too, and ds_write_b* not), every GDS/GWS operation;
//     - cache maintenance: buffer_wbl2, buffer_inv, buffer_invl2, buffer_wbinvl1*, s_dcache_*, s_icache_*;
//     - s_barrier;
//     - calls (s_swappc_b64, s_call_b64): a call clears no fence state (what the callee waits for is its own code's
//       business, compared as code no kernel entry reaches), so a K1 that calls where K0 waited is caught.
//     The sequence is program order; a branch can defeat it. So the events' must-precede relations over the CFG
//     (dominators and post-dominators, and which events every path from the entry to the end passes) must hold in K1
//     wherever they hold in K0: an always-true conditional branch around a buffer_wbl2 breaks one.
//  2. Plain stores (no scope bit, not atomic; loads to LDS count as stores, they write LDS) may be reordered among
//     themselves but not across an event: the multiset of plain stores between consecutive events must be equal.
//  3. The fences, by effect: s_waitcnt is not compared as an instruction (AMDGPUUsage "Memory Model": s_waitcnt and the
//     cache instructions "are defined with respect to other memory instructions executed by the same thread", and a
//     load K1 widens or deletes changes every vmcnt after it). Instead, a dataflow of the wait counters over the CFG
//     (the same counting rules as analysis/waitcnt_check.hpp: vmcnt in order, lgkmcnt out of order with SMEM or FLAT
//     outstanding, merges taking the weaker state) finds, at each event, which earlier events and plain stores may
//     still be outstanding, and at each plain store which events may be. K1 may wait more than K0, never less: each of
//     these sets in K1 must be a subset of K0's. So a release (`buffer_wbl2 sc1; s_waitcnt vmcnt(0); global_store
//     ... sc1`, AMDGPUUsage "Memory Model GFX942") keeps its wait for the data stores and the write-back, and an
//     acquire (`global_load ... sc1; s_waitcnt vmcnt(0); buffer_inv sc1`) keeps its wait for the load.
//  4. Plain loads (no scope bit, not atomic) stay between the same two events too, but may be deleted, widened,
//     merged and reordered there, as load-widen, dce and schedule do. In a kernel whose only events are s_barrier and
//     calls, at least one an s_barrier, what K1 reads in each segment (the code between two consecutive events, as in
//     2) must be read by K0 in the same segment: per segment and address space, each plain load covers byte offsets
//     from its address operands as printed (detail::load_pieces: `ds_read_b32 v1, v0 offset:4` covers [4, 8) from addr=v0,
//     `ds_read2_b32 v[2:3], v0 offset1:1` [0, 4) and [4, 8), `global_load_dwordx2 v[2:3], v[0:1], off offset:8`
//     [8, 16) from vaddr=v[0:1]; buffer and image loads are also keyed by their form), and every byte a K1 load covers
//     must be covered by K0's loads of the same segment and address operands. So two ds_read_b32 merged into a
//     ds_read2_b32 or ds_read_b64, loads reordered or deleted within a segment pass; a ds_read moved below the
//     s_barrier that protects its bytes from being reused (another wave overwrites them later in the next phase, by
//     any distance), or a global load moved across one, is rejected, naming the load and the barrier it crossed
//     ("plain_load_moved"), and so is a load of bytes K0 does not read in that segment ("plain_load_added"). When K1
//     is K0 with its registers renamed and nothing else (vgpr-compact), K1's address operands are read by K0's names
//     (detail::register_renaming). In a kernel with any other event (a scoped access, an atomic, a cache instruction,
//     GDS), where a load moved above an acquire reads stale data, plain loads are compared like plain stores instead
//     (2 and 3 above). Private memory (scratch_* plain loads and stores) is free everywhere: no other work-item can see
//     it (AMDGPUUsage "Address Spaces": private is per work-item); nothing else is taken for private (an LDS slot only
//     one wave touches is compared like any other).
// Code that no kernel entry reaches (callees reached through s_swappc_b64, dead code) is compared as one more
// sequence, conservatively: there every s_waitcnt is an event too, compared by its counts, and the events' path
// relations hold from each place control may enter that code (detail::region_entries).
//
// Which cpol bits are scope and which are hints, from LLVM's SIMemoryLegalizer.cpp:
//  - gfx940+ (gfx942, gfx950) vector memory: SC0 and SC1 encode the scope (SIGfx940CacheControl::
//    enableLoadCacheBypass / enableStoreCacheBypass: workgroup SC0, agent SC1, system SC0|SC1; for atomics SC1 is the
//    scope and SC0 says whether it returns, enableRMWCacheBypass); NT is the non-temporal hint
//    (enableVolatileAndOrNonTemporal sets only NT for a nontemporal access).
//  - gfx90a vector memory: GLC bypasses the L1 for agent/system-scope loads (SIGfx90ACacheControl::
//    enableLoadCacheBypass; for atomics it says whether it returns), SCC is the system-coherence bit (the "scc"
//    spelling of CPol::SCC); SLC only selects the L2 STREAM policy (enableVolatileAndOrNonTemporal: "Setting both
//    GLC and SLC configures ... the L2 cache policy to STREAM"), a hint.
//  - scalar memory (every gfx9 target spells it glc, AMDGPUInstPrinter::printCPol): GLC counts as scope.
// So NT (gfx940+) and SLC (gfx90a) are neither events nor compared: a plain store that gains `nt` stays plain.
//
// Not seen (the relaxations above, stated exactly): in a kernel whose only events are s_barrier, a plain load moved
// into a segment where K0 reads the same offsets through the same register names while those registers hold another
// value there (a base register advanced between the two loads: names are compared, not values), and a plain load
// left outstanding at an s_barrier (K1 waits less before the barrier than K0: loads are not in the fence sets of 3,
// so a ds_read whose s_waitcnt moved below the barrier samples LDS late) -- both left to the runs, where the
// emulator holds a wave that leaves a barrier with LDS operations outstanding, and the hold-one-wave schedule
// (emu/machine.hpp run_workgroup, the last K1 schedule of each trial) holds one wave back through every phase; two
// plain stores of the same kind, space and width in one segment swapped across an s_waitcnt that completes one of
// them before an event (they are interchangeable to this check); an s_waitcnt the IR keeps symbolically in K0 (taken
// as waiting for nothing, which makes K0 look weaker than it is). Conservative (false rejections): a plain store, or
// a plain load in a kernel with events other than s_barrier, widened, merged or deleted; in a kernel with an
// s_barrier, a plain load whose address registers K1 renames while changing anything else too (vgpr-compact after
// another pass), or whose address K1 computes otherwise (an add folded into the offset: `v_add_u32 v1, 16, v0;
// ds_read_b32 v2, v1` -> `ds_read_b32 v2, v0 offset:16`, other registers holding the same address), and a buffer
// or image load widened (a kernel without an s_barrier leaves its plain loads to the runs); blocks
// reordered; a dead plain store deleted; the registers of an event renamed. (What is outstanding when the wave ends
// is not compared: the end of the dispatch completes it.)
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/isa_info.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/waitcnt.hpp"

namespace asmevo::verify {

/// One memory instruction (or s_barrier, or an s_waitcnt in code no kernel reaches) as the memory model sees it.
struct MemoryAccess {
  std::string kind;       ///< "load", "store", "load_to_lds", "atomic", "cache", "other"; "barrier", "call", "wait"
  std::string space;      ///< "global", "flat", "scratch", "buffer", "image", "lds", "gds", "scalar"; "" for the last two
  std::uint32_t scope = 0;  ///< the scope bits of cpol (LLVM CPol: GLC/SC0 = 1, SCC/SC1 = 16), hints masked out
  std::uint32_t bytes = 0;  ///< bytes per lane (scalar memory: per wave); 0 when the mnemonic does not say
  std::string mnemonic;   ///< kept only where bytes is 0 (then the mnemonic is part of the identity); a wait's text
  friend auto operator<=>(const MemoryAccess&, const MemoryAccess&) = default;
};

/// "store global sc0 sc1 4B" (gfx940 spelling of the scope bits), "load global glc 4B" (gfx90a), "s_barrier".
[[nodiscard]] inline std::string describe(const MemoryAccess& a, Target t) {
  if (a.kind == "barrier") return "s_barrier";
  if (a.kind == "wait" || a.kind == "call") return a.mnemonic;
  if (a.kind == "kernel") return "kernel " + a.mnemonic;
  std::string s = a.kind + " " + a.space;
  const bool g940 = t != Target::gfx90a && a.space != "scalar";
  if (a.scope & 1) s += g940 ? " sc0" : " glc";
  if (a.scope & 16) s += g940 ? " sc1" : " scc";
  if (!(a.scope & 17)) s += " (no scope bits)";
  if (a.bytes) s += " " + std::to_string(a.bytes) + "B";
  else if (!a.mnemonic.empty()) s += " " + a.mnemonic;
  return s;
}

namespace detail {

/// Bytes per lane a memory op moves (scalar memory: per wave): OpInfo::mem_bytes, the width its mnemonic names
/// (MI300 ISA (CDNA3) §9 "Vector Memory Operations", §10 "Flat Memory Instructions", §11 "Data Share Operations":
/// dword, dwordx2..x16, ubyte/sbyte/byte, ushort/sshort/short, b8..b128, u8/i8/u16/i16, _x2 for 64-bit atomics,
/// f64/u64/i64; ds_read_b64_tr_b8 moves 8, its b8 is the element the transpose works on); 0 when it names none
/// (format and image ops, ds_append ...). `rmw`: the op is a read-modify-write.
/// A 32-bit read-modify-write whose mnemonic names no data type (buffer_atomic_add, global_atomic_cmpswap,
/// s_atomic_or, image_atomic_xor ...: the generated attributes give it type b32, count 1) counts 0 as well, as it
/// did when this width was read from the mnemonic's suffix, so that its mnemonic stays part of its identity
/// (MemoryAccess::mnemonic). Every DS one names its type; buffer_store_lds_dword (LDS to memory) keeps its 4.
[[nodiscard]] inline std::uint32_t access_bytes(const OpInfo& i, bool rmw) {
  if (rmw && i.unit != OpUnit::ds && !i.has(opflag::lds) && i.type == DataType::b32 && i.count == 1) return 0;
  return i.mem_bytes;
}

/// The value of a named immediate operand of `in` (0 when absent or not an immediate).
[[nodiscard]] inline std::int64_t named_imm(const Inst& in, std::span<const isa::OperandInfo> ops, std::string_view name) {
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].name == name && in.ops[k].kind == Operand::Kind::imm) return in.ops[k].imm;
  return 0;
}

}  // namespace detail

/// The memory access `in` makes, or an empty kind when it makes none. "other" is a memory-format instruction that
/// LLVM says neither loads nor stores (ds_permute_b32, s_memtime, image_get_resinfo ...): no memory access.
[[nodiscard]] inline MemoryAccess memory_access(const Inst& in) {
  MemoryAccess a;
  const auto forms = isa::forms(in.target);
  if (in.form >= forms.size()) return a;
  const auto& f = forms[in.form];
  const OpInfo& info = op_info(in);
  const bool cache_op = one_of(info.family, Family::buffer_cache, Family::s_dcache, Family::s_icache);
  const bool mem = f.has(isa::prop::vmem) || f.has(isa::prop::flat) || f.has(isa::prop::ds) ||
                   f.has(isa::prop::smem) || cache_op;
  if (!mem) return a;
  const auto ops = isa::operands(f);
  // LLVM's lds_dma bit is missing on global_load_lds_* and scratch_load_lds_*: their opflag::lds says it.
  const bool lds_dma = f.has(isa::prop::lds_dma) ||
                       (info.has(opflag::lds) && one_of(info.base, BaseOp::global_load, BaseOp::scratch_load));
  const bool loads = f.has(isa::prop::load), stores = f.has(isa::prop::store);
  // Atomic means read-modify-write: LLVM mayLoad && mayStore. Not the table's atomic flags: the generated table
  // (LLVM's IsAtomicNoRet bit) has them on ds_write_b32 and its siblings, which only store (mayLoad 0), and not on
  // ds_wrxchg2_rtn_*, ds_append, ds_consume, which are read-modify-writes.
  if (cache_op) a.kind = "cache";
  else if (lds_dma) a.kind = "load_to_lds";
  else if (loads && stores) a.kind = "atomic";
  else if (stores) a.kind = "store";
  else if (loads) a.kind = "load";
  else a.kind = "other";
  if (f.has(isa::prop::smem) || info.unit == OpUnit::s) a.space = "scalar";
  else if (f.has(isa::prop::ds))
    a.space = f.has(isa::prop::gws) || info.family == Family::ds_gws || detail::named_imm(in, ops, "gds") != 0 ? "gds" : "lds";
  else if (info.unit == OpUnit::global) a.space = "global";
  else if (info.unit == OpUnit::scratch) a.space = "scratch";
  else if (info.unit == OpUnit::flat) a.space = "flat";
  else if (info.unit == OpUnit::image) a.space = "image";
  else a.space = "buffer";
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const auto kind = ops[k].kind;
    if (kind != isa::Kind::cpol && kind != isa::Kind::cpol_glc && kind != isa::Kind::cpol_noglc) continue;
    if (in.ops[k].kind == Operand::Kind::imm) a.scope |= static_cast<std::uint32_t>(in.ops[k].imm) & (1u | 16u);
  }
  a.bytes = a.kind == "cache" ? 0 : detail::access_bytes(info, a.kind == "atomic");
  if (a.bytes == 0) a.mnemonic = std::string(f.mnemonic);
  return a;
}

/// How the memory model treats one instruction (see the file comment).
enum class OrderingRole : std::uint8_t {
  none,         ///< not a memory access, or one no other work-item can observe (plain scratch)
  event,        ///< an ordering event: compared in sequence
  plain_store,  ///< a plain store (or load to LDS): kept between the same two events
  plain_load,   ///< a plain load: compared by its byte coverage per segment, or kept like a store in kernels with
                ///< events other than s_barrier
  wait,         ///< s_waitcnt: compared by effect (or as an event in code no kernel reaches)
};

/// The role of `in`, and what it accesses (kind empty for `none` and `wait`).
[[nodiscard]] inline std::pair<OrderingRole, MemoryAccess> ordering_role(const Inst& in) {
  const auto forms = isa::forms(in.target);
  if (in.form >= forms.size()) return {OrderingRole::none, {}};
  const Opcode o = op_of(in);
  if (o == op::s_waitcnt) return {OrderingRole::wait, {}};
  if (o == op::s_barrier) {
    MemoryAccess b;
    b.kind = "barrier";
    return {OrderingRole::event, b};
  }
  if (forms[in.form].has(isa::prop::call)) {
    MemoryAccess c;
    c.kind = "call";
    c.mnemonic = std::string(forms[in.form].mnemonic);
    return {OrderingRole::event, c};
  }
  MemoryAccess a = memory_access(in);
  if (a.kind.empty() || a.kind == "other") return {OrderingRole::none, {}};
  if (a.kind == "cache" || a.kind == "atomic" || a.space == "gds" || a.scope != 0) return {OrderingRole::event, a};
  if (a.kind == "load") return {a.space == "scratch" ? OrderingRole::none : OrderingRole::plain_load, a};
  if (a.kind == "store" && a.space == "scratch") return {OrderingRole::none, a};
  return {OrderingRole::plain_store, a};  // store, load_to_lds
}

/// One way K1's memory ordering differs from K0's (the first one found in a kernel).
struct MemoryModelDifference {
  MemoryAccess access;            ///< the access at the difference (K1's when it has one there, else K0's)
  std::size_t k0_count = 0, k1_count = 0;  ///< how often `access` occurs where it was compared (the kernel's events,
                                           ///< or the plain accesses between two events) in K0 and in K1
  std::optional<InstId> example;  ///< the instruction at the difference (in K1 when it has one, else in K0)
  std::string example_text;       ///< that instruction printed
  std::string kernel;             ///< the kernel (or "(code no kernel entry reaches)")
  std::string rule;               ///< "event_order", "event_path", "plain_access_moved", "plain_load_moved",
                                  ///< "plain_load_added", "fence", "kernel_missing"
  std::optional<InstId> k0_inst, k1_inst;  ///< the instructions the message names, in K0 and in K1
  std::string message;            ///< one sentence naming the kernel, the event and the K0/K1 instruction ids
};

namespace detail {

/// One instruction of a kernel's ordering skeleton.
struct OrderOp {
  std::size_t item = 0;        ///< Program item index
  InstId id{};
  MemoryAccess access;
  std::uint32_t segment = 0;   ///< events before it in program order (an event: its own index)
  std::uint32_t ordinal = 0;   ///< plain op: how many plain ops of the same access come before it in its segment
  std::string text;            ///< an event: the instruction printed (its operands are part of its identity)
};

/// A kernel's (or the unreached code's) ordering skeleton and, when computed, its fence sets.
struct Skeleton {
  std::vector<OrderOp> events;
  std::vector<OrderOp> plain;                          ///< plain ops that keep their segment, program order
  /// Plain loads when loads are not pinned (the only events are s_barrier and calls): compared by their byte
  /// coverage per segment (compare_skeletons step 2b), program order.
  std::vector<OrderOp> loads;
  bool loads_pinned = false;
  bool fences = false;                                 ///< event_out / plain_out are computed
  bool paths = false;                                  ///< before / after / always are computed
  /// Must-precede relations of the events over the CFG, as bitsets over event indexes (64 per word): before[a] has b
  /// when every path from the entry to b passes a first (a dominates b); after[a] has b when every path from a to the
  /// end passes b later (b post-dominates a); always has b when every path from the entry to the end passes b.
  std::vector<std::vector<std::uint64_t>> before, after;
  std::vector<std::uint64_t> always;
  std::vector<std::vector<std::uint32_t>> event_out;   ///< per event: identities outstanding when it issues
                                                       ///< (event e -> e, plain op p -> events.size() + p)
  std::vector<std::vector<std::uint32_t>> plain_out;   ///< per plain op: events outstanding when it issues
};

// ---- the fence dataflow -------------------------------------------------------------------------------------------

namespace wd = analysis::waitcnt_detail;

/// Counter state over identities (the skeleton's events and plain ops) plus one marker per event kind, laid out as
/// WaitState's slots are (analysis/waitcnt_check.hpp): the distance of each from the newest event on a counter.
class FenceState {
 public:
  FenceState(Target t, std::uint32_t ids) : t_(t), ids_(ids), width_(ids + wd::num_kinds) {
    d_.assign(3 * static_cast<std::size_t>(width_), wd::none);
  }
  [[nodiscard]] bool reached() const noexcept { return reached_; }
  void set_reached() noexcept { reached_ = true; }

  [[nodiscard]] bool out_of_order(unsigned c) const noexcept {
    auto pending = [&](wd::Kind k) { return at(c, ids_ + k) != wd::none; };
    if (c == wd::ci(Counter::vm)) return pending(wd::k_flat);
    if (c == wd::ci(Counter::lgkm)) {
      if (pending(wd::k_smem) || pending(wd::k_flat)) return true;
      return pending(wd::k_lds) + pending(wd::k_gds) + pending(wd::k_msg) > 1;
    }
    return false;
  }

  /// One operation counted on `c`; `id` is its identity or ~0u for an anonymous one (a free plain load).
  void event(unsigned c, wd::Kind k, std::uint32_t id) {
    for (std::uint32_t s = 0; s < width_; ++s) {
      std::uint8_t& x = at(c, s);
      if (x != wd::none && x + 1u < wd::none) x = static_cast<std::uint8_t>(x + 1);
    }
    p_[c] = static_cast<std::uint8_t>(std::min<unsigned>(p_[c] + 1u, max_count(t_, static_cast<Counter>(c))));
    at(c, ids_ + k) = 0;
    if (id != ~0u) at(c, id) = 0;
    // At most max_count operations are outstanding on a counter; in order, the oldest beyond that has completed.
    if (!out_of_order(c)) {
      const unsigned cap = max_count(t_, static_cast<Counter>(c));
      for (std::uint32_t s = 0; s < width_; ++s)
        if (at(c, s) != wd::none && at(c, s) >= cap) at(c, s) = wd::none;
    }
  }

  /// s_waitcnt with count `n` on `c` (WaitcntBrackets::applyWaitcnt, as WaitState::wait).
  void wait(unsigned c, unsigned n) {
    if (n >= p_[c]) return;
    if (n != 0 && out_of_order(c)) return;
    for (std::uint32_t s = 0; s < width_; ++s)
      if (at(c, s) != wd::none && at(c, s) >= n) at(c, s) = wd::none;
    p_[c] = static_cast<std::uint8_t>(n);
  }

  void clear() {
    std::fill(d_.begin(), d_.end(), wd::none);
    p_.fill(0);
  }

  bool merge(const FenceState& o) {
    if (!o.reached_) return false;
    bool changed = !reached_;
    reached_ = true;
    for (unsigned c = 0; c < 3; ++c)
      if (o.p_[c] > p_[c]) p_[c] = o.p_[c], changed = true;
    for (std::size_t i = 0; i < d_.size(); ++i)
      if (o.d_[i] < d_[i]) d_[i] = o.d_[i], changed = true;
    return changed;
  }

  /// The identities that may be outstanding on some counter, ascending; only those below `limit`.
  [[nodiscard]] std::vector<std::uint32_t> outstanding(std::uint32_t limit) const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t s = 0; s < std::min(ids_, limit); ++s)
      for (unsigned c = 0; c < 3; ++c)
        if (at(c, s) != wd::none) {
          out.push_back(s);
          break;
        }
    return out;
  }

 private:
  [[nodiscard]] std::uint8_t& at(unsigned c, std::uint32_t s) { return d_[c * static_cast<std::size_t>(width_) + s]; }
  [[nodiscard]] std::uint8_t at(unsigned c, std::uint32_t s) const {
    return d_[c * static_cast<std::size_t>(width_) + s];
  }

  Target t_;
  std::uint32_t ids_ = 0, width_ = 0;
  bool reached_ = false;
  std::array<std::uint8_t, 3> p_{};
  std::vector<std::uint8_t> d_;
};

inline void fence_transfer(FenceState& s, const wd::InstFacts& x, std::uint32_t id) {
  if (x.wait) {
    s.wait(wd::ci(Counter::vm), x.wait->vm);
    s.wait(wd::ci(Counter::lgkm), x.wait->lgkm);
    s.wait(wd::ci(Counter::exp), x.wait->exp);
    return;
  }
  if (x.vm) s.event(wd::ci(Counter::vm), x.vm_kind, id);
  if (x.lgkm) s.event(wd::ci(Counter::lgkm), x.lgkm_kind, id);
  if (x.exp) s.event(wd::ci(Counter::exp), wd::k_exp, id);
  // A call clears nothing: LLVM's callees wait for everything on entry (SIInsertWaitcnts), but K1 may call a callee
  // that does not, and the callee's code is compared as code no kernel entry reaches, not as this kernel's fences.
}

namespace bits {
[[nodiscard]] inline bool test(const std::vector<std::uint64_t>& s, std::size_t i) { return s[i >> 6] >> (i & 63) & 1; }
inline void set(std::vector<std::uint64_t>& s, std::size_t i) { s[i >> 6] |= std::uint64_t{1} << (i & 63); }
}  // namespace bits

/// Fills sk.before / sk.after / sk.always from block dominators and post-dominators over the blocks `nodes` (each
/// once; an order close to reverse post-order converges fastest), entered only at `entries` (a subset of `nodes`):
/// iterative bit-vector dataflow; edges leaving `nodes` are ignored; a block with no successor -- s_endpgm, an
/// indirect branch -- leads to the end; a block that cannot reach the end post-dominates vacuously, and a run that
/// loops forever stops anyway. An event is "always" when its block post-dominates every entry that reaches it.
/// `indirect_returns`: an indirect branch leaves the region (a callee's return) rather than reaching every labelled
/// block of it, so its edges are no predecessors of dominance (see indirect_branches_return).
inline void compute_paths(Skeleton& sk, const analysis::Cfg& g, std::span<const std::uint32_t> nodes,
                          std::span<const std::uint32_t> entries, bool indirect_returns = false) {
  const std::size_t nb = nodes.size(), w = (nb + 63) / 64;
  std::vector<std::uint32_t> pos(g.blocks.size(), ~0u);
  for (std::uint32_t k = 0; k < nb; ++k) pos[nodes[k]] = k;
  std::vector<std::uint8_t> is_entry(nb, 0);
  for (const std::uint32_t e : entries)
    if (pos[e] != ~0u) is_entry[pos[e]] = 1;
  const std::vector<std::uint64_t> all(w, ~std::uint64_t{0});
  std::vector<std::vector<std::uint64_t>> dom(nb, all), pdom(nb, all);
  auto meet = [&](std::vector<std::vector<std::uint64_t>>& sets, std::uint32_t k,
                  const std::vector<std::uint32_t>& from) {
    std::vector<std::uint64_t> v(w, 0);
    bool first = true;
    for (const std::uint32_t b : from) {
      const std::uint32_t q = pos[b];
      if (q == ~0u) continue;
      if (first) v = sets[q], first = false;
      else
        for (std::size_t i = 0; i < w; ++i) v[i] &= sets[q][i];
    }
    bits::set(v, k);
    if (v == sets[k]) return false;
    sets[k] = std::move(v);
    return true;
  };
  if (nb == 0) return;
  for (std::uint32_t k = 0; k < nb; ++k)
    if (is_entry[k]) {  // only itself dominates an entry
      dom[k].assign(w, 0);
      bits::set(dom[k], k);
    }
  std::vector<std::vector<std::uint32_t>> direct_pred;  // predecessors other than indirect branches
  if (indirect_returns) {
    direct_pred.resize(nb);
    for (std::uint32_t k = 0; k < nb; ++k)
      for (const std::uint32_t q : g.pred[nodes[k]])
        if (!g.indirect[q]) direct_pred[k].push_back(q);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t k = 0; k < nb; ++k)
      if (!is_entry[k]) changed |= meet(dom, k, indirect_returns ? direct_pred[k] : g.pred[nodes[k]]);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t k = static_cast<std::uint32_t>(nb); k-- > 0;) {
      const auto& su = g.succ[nodes[k]];
      bool leaves = false;  // an edge out of `nodes` leads to the end as far as this region can tell
      for (const std::uint32_t b : su) leaves = leaves || pos[b] == ~0u;
      if (su.empty() || g.indirect[nodes[k]] || leaves) {
        std::vector<std::uint64_t> v(w, 0);
        bits::set(v, k);
        if (v != pdom[k]) pdom[k] = std::move(v), changed = true;
      } else {
        changed |= meet(pdom, k, su);
      }
    }
  }
  // Per block: the entries that reach it (as bits over the entries' positions in `entries`).
  std::vector<std::vector<std::uint64_t>> reached_from(nb, std::vector<std::uint64_t>((entries.size() + 63) / 64, 0));
  for (std::size_t ei = 0; ei < entries.size(); ++ei) {
    if (pos[entries[ei]] == ~0u) continue;
    std::vector<std::uint32_t> stack{pos[entries[ei]]};
    while (!stack.empty()) {
      const std::uint32_t k = stack.back();
      stack.pop_back();
      if (bits::test(reached_from[k], ei)) continue;
      bits::set(reached_from[k], ei);
      if (g.indirect[nodes[k]]) continue;  // a return or computed jump: an exit here, as for pdom
      for (const std::uint32_t s : g.succ[nodes[k]])
        if (pos[s] != ~0u) stack.push_back(pos[s]);
    }
  }
  auto post_dominates_entries = [&](std::uint32_t k) {
    for (std::size_t ei = 0; ei < entries.size(); ++ei)
      if (bits::test(reached_from[k], ei) && !bits::test(pdom[pos[entries[ei]]], k)) return false;
    return true;
  };
  const std::size_t ne = sk.events.size(), we = (ne + 63) / 64;
  std::vector<std::uint32_t> blk(ne);
  for (std::size_t e = 0; e < ne; ++e) blk[e] = pos[g.block_of[sk.events[e].item]];
  sk.before.assign(ne, std::vector<std::uint64_t>(we, 0));
  sk.after.assign(ne, std::vector<std::uint64_t>(we, 0));
  sk.always.assign(we, 0);
  for (std::size_t a = 0; a < ne; ++a) {
    if (blk[a] == ~0u) continue;
    if (post_dominates_entries(blk[a])) bits::set(sk.always, a);
    for (std::size_t b = 0; b < ne; ++b) {
      if (a == b || blk[b] == ~0u) continue;
      const bool same = blk[a] == blk[b], earlier = sk.events[a].item < sk.events[b].item;
      if (same ? earlier : bits::test(dom[blk[b]], blk[a])) bits::set(sk.before[a], b);
      if (same ? earlier : bits::test(pdom[blk[a]], blk[b])) bits::set(sk.after[a], b);
    }
  }
  sk.paths = true;
}

/// Fills sk.event_out / sk.plain_out by a forward dataflow from `entry` to its fixed point.
inline void compute_fences(Skeleton& sk, const Program& p, const analysis::Cfg& g, std::uint32_t entry, Target t) {
  const auto ne = static_cast<std::uint32_t>(sk.events.size());
  const auto ids = ne + static_cast<std::uint32_t>(sk.plain.size());
  std::vector<std::uint32_t> id_of(p.items.size(), ~0u);
  for (std::uint32_t e = 0; e < ne; ++e) id_of[sk.events[e].item] = e;
  for (std::uint32_t q = 0; q < sk.plain.size(); ++q) id_of[sk.plain[q].item] = ne + q;
  const std::vector<std::uint32_t> order = g.reverse_post_order(entry);
  std::vector<wd::InstFacts> facts(p.items.size());
  for (const std::uint32_t b : order)
    for (const std::size_t i : g.blocks[b].insts) facts[i] = wd::facts_of(p.items[i].inst, t);
  std::vector<FenceState> in(g.blocks.size(), FenceState(t, ids));
  in[entry].set_reached();
  std::vector<std::uint8_t> dirty(g.blocks.size(), 0);
  dirty[entry] = 1;
  for (bool any = true; any;) {
    any = false;
    for (const std::uint32_t b : order) {
      if (!dirty[b]) continue;
      dirty[b] = 0;
      FenceState s = in[b];
      for (const std::size_t i : g.blocks[b].insts) fence_transfer(s, facts[i], id_of[i]);
      for (const std::uint32_t n : g.succ[b])
        if (in[n].merge(s)) dirty[n] = 1, any = true;
    }
  }
  sk.event_out.assign(ne, {});
  sk.plain_out.assign(sk.plain.size(), {});
  for (const std::uint32_t b : order) {
    FenceState s = in[b];
    for (const std::size_t i : g.blocks[b].insts) {
      const std::uint32_t id = id_of[i];
      if (id != ~0u && id < ne) sk.event_out[id] = s.outstanding(ids);
      else if (id != ~0u) sk.plain_out[id - ne] = s.outstanding(ne);
      fence_transfer(s, facts[i], id);
    }
  }
  sk.fences = true;
}

/// The skeleton of the code in `blocks` (block indexes, ascending = program order). `waits_are_events`: the
/// conservative mode for code no kernel reaches.
[[nodiscard]] inline Skeleton skeleton_of(const Program& p, const analysis::Cfg& g, const std::vector<std::uint32_t>& blocks,
                                          bool waits_are_events) {
  Skeleton sk;
  struct Plain { OrderOp op; bool load; };
  std::vector<Plain> plain;
  for (const std::uint32_t b : blocks)
    for (const std::size_t i : g.blocks[b].insts) {
      const Inst& in = p.items[i].inst;
      auto [role, a] = ordering_role(in);
      if (role == OrderingRole::wait && waits_are_events) {
        a.kind = "wait";
        a.mnemonic = print_inst(in);
        role = OrderingRole::event;
      }
      if (role == OrderingRole::event) {
        OrderOp op{i, in.id, std::move(a), static_cast<std::uint32_t>(sk.events.size()), 0, print_inst(in)};
        if (op.access.kind != "barrier" && op.access.kind != "wait" && op.access.kind != "call") sk.loads_pinned = true;
        sk.events.push_back(std::move(op));
      } else if (role == OrderingRole::plain_store || role == OrderingRole::plain_load) {
        plain.push_back({OrderOp{i, in.id, std::move(a), static_cast<std::uint32_t>(sk.events.size()), 0, {}},
                         role == OrderingRole::plain_load});
      }
    }
  std::map<std::pair<std::uint32_t, MemoryAccess>, std::uint32_t> seen;
  for (auto& q : plain) {
    if (q.load && !sk.loads_pinned) {
      sk.loads.push_back(std::move(q.op));
      continue;
    }
    q.op.ordinal = seen[{q.op.segment, q.op.access}]++;
    sk.plain.push_back(std::move(q.op));
  }
  return sk;
}

/// K1's registers by K0's names, when K1 is K0 with registers renamed and nothing else changed (what vgpr-compact
/// does): per register file, K1 index -> K0 index of each dword.
struct RegRename {
  std::map<std::pair<RegFile, std::uint16_t>, std::uint16_t> to0;
  [[nodiscard]] Reg operator()(Reg r) const {
    const auto it = to0.find({r.file, r.index});
    if (it != to0.end()) r.index = it->second;
    return r;
  }
};

/// The renaming that turns `k1` into `k0`, when the two have the same instructions in the same order, the same
/// forms and the same operands but register indexes, and the indexes correspond one to one (each dword of a tuple
/// on its own); nullopt when they differ otherwise, or do not differ at all.
[[nodiscard]] inline std::optional<RegRename> register_renaming(const Program& k0, const Program& k1) {
  RegRename rn;
  std::map<std::pair<RegFile, std::uint16_t>, std::uint16_t> to1;
  bool renamed = false;
  std::size_t i0 = 0, i1 = 0;
  auto next = [](const Program& p, std::size_t& i) {
    while (i < p.items.size() && p.items[i].kind != Item::Kind::inst) ++i;
    return i < p.items.size() ? &p.items[i++].inst : nullptr;
  };
  for (;;) {
    const Inst* a = next(k0, i0);
    const Inst* b = next(k1, i1);
    if (!a || !b) {
      if (a || b) return std::nullopt;
      break;
    }
    if (a->form != b->form || a->ops.size() != b->ops.size()) return std::nullopt;
    for (std::size_t k = 0; k < a->ops.size(); ++k) {
      const Operand &x = a->ops[k], &y = b->ops[k];
      if (x.kind != y.kind || x.mods != y.mods) return std::nullopt;
      if (x.kind != Operand::Kind::reg) {
        if (x.imm != y.imm || x.real != y.real || x.text != y.text || x.count != y.count) return std::nullopt;
        continue;
      }
      if (x.reg.file != y.reg.file || x.reg.dwords != y.reg.dwords) return std::nullopt;
      for (std::uint16_t d = 0; d < x.reg.dwords; ++d) {
        const auto r0 = static_cast<std::uint16_t>(x.reg.index + d), r1 = static_cast<std::uint16_t>(y.reg.index + d);
        const auto [f, new1] = rn.to0.emplace(std::pair(y.reg.file, r1), r0);
        const auto [g, new0] = to1.emplace(std::pair(x.reg.file, r0), r1);
        if (f->second != r0 || g->second != r1) return std::nullopt;
        renamed = renamed || r0 != r1;
      }
    }
  }
  if (!renamed) return std::nullopt;
  return rn;
}

/// What a plain load reads, as the load-coverage rule compares it: `key`, the address operands as printed (with
/// their operand names: `addr=v4`, `vaddr=v[0:1]`, `vaddr=v0 saddr=s[2:3]`, `sbase=s[0:1]`; K1's registers renamed
/// by `rn` when given), after the space and, where the width is not in the mnemonic or the addressing mode is not
/// in the operands (buffer, image), the form's name; `bytes`, the byte offsets from that address each lane reads
/// (ds_read2*: offset0 and offset1 in elements, times 64 for st64; everything else: offset + [0, width)).
struct LoadPieces {
  std::string key;
  std::vector<std::pair<std::int64_t, std::int64_t>> bytes;  ///< [begin, end)
};

[[nodiscard]] inline LoadPieces load_pieces(const Inst& in, const MemoryAccess& a, const RegRename* rn) {
  LoadPieces lp;
  const auto& f = isa::forms(in.target)[in.form];
  const auto ops = isa::operands(f);
  lp.key = a.space;
  const std::uint32_t width = a.bytes ? a.bytes : 1;
  if (a.bytes == 0 || a.space == "buffer" || a.space == "image") lp.key += " " + std::string(f.name);
  bool two = false;
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const Operand& o = in.ops[k];
    const auto& op = ops[k];
    if (!op.is_printed() || op.role != isa::Role::use || !o.present()) continue;
    if (op.name == "offset" || op.name == "offset0" || op.name == "offset1") {
      two = two || op.name != "offset";
      continue;
    }
    if (op.kind == isa::Kind::cpol || op.kind == isa::Kind::cpol_glc || op.kind == isa::Kind::cpol_noglc) continue;
    lp.key += " " + std::string(op.name) + "=";
    if (o.kind == Operand::Kind::reg) lp.key += to_string(rn ? (*rn)(o.reg) : o.reg);
    else if (o.kind == Operand::Kind::imm) lp.key += std::to_string(o.imm);
    else lp.key += o.text;
  }
  if (two) {
    const std::int64_t stride =
        std::int64_t{width} * (op_info(in).has(opflag::st64) ? 64 : 1);
    for (const std::string_view name : {"offset0", "offset1"}) {
      const std::int64_t at = named_imm(in, ops, name) * stride;
      lp.bytes.emplace_back(at, at + width);
    }
  } else {
    const std::int64_t at = named_imm(in, ops, "offset");
    lp.bytes.emplace_back(at, at + width);
  }
  return lp;
}

/// Whether the union of `have` (sorted by begin) holds all of [b, e).
[[nodiscard]] inline bool covers(const std::vector<std::pair<std::int64_t, std::int64_t>>& have, std::int64_t b,
                                 std::int64_t e) {
  for (const auto& [x, y] : have) {
    if (x > b) return false;
    if (y > b) b = y;
    if (b >= e) return true;
  }
  return b >= e;
}

/// The kernels of a program: the names of its `.amdhsa_kernel` blocks; without any, its first label.
[[nodiscard]] inline std::vector<std::string> kernel_names(const Program& p) {
  std::vector<std::string> out;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::kernel) out.push_back(it.kernel.name);
  if (out.empty())
    for (const auto& it : p.items)
      if (it.kind == Item::Kind::label) {
        out.push_back(it.name);
        break;
      }
  return out;
}

[[nodiscard]] inline std::string id_str(InstId id) { return "i" + std::to_string(id.value); }

/// The first difference between two skeletons of the same kernel, if any.
/// `rn1`: K1's registers by K0's names, when K1 only renames registers (register_renaming).
[[nodiscard]] inline std::optional<MemoryModelDifference> compare_skeletons(const std::string& kernel,
                                                                            const Program& p0, const Skeleton& s0,
                                                                            const Program& p1, const Skeleton& s1,
                                                                            const RegRename* rn1 = nullptr) {
  const Target t = p1.target;
  auto text = [](const Program& p, std::size_t item) { return print_inst(p.items[item].inst); };
  auto count_events = [](const Skeleton& s, const MemoryAccess& a) {
    return static_cast<std::size_t>(std::count_if(s.events.begin(), s.events.end(),
                                                  [&](const OrderOp& o) { return o.access == a; }));
  };
  MemoryModelDifference d;
  d.kernel = kernel;
  auto where = [&](const Skeleton& s, std::uint32_t seg, bool k1) -> std::string {
    const std::string side = k1 ? "K1 " : "K0 ";
    const std::string before = seg < s.events.size() ? "before event " + std::to_string(seg) + " (" + side +
                                                           id_str(s.events[seg].id) + ")"
                                                     : "after the last event";
    const std::string after = seg > 0 ? "after event " + std::to_string(seg - 1) + " (" + side +
                                            id_str(s.events[seg - 1].id) + ")"
                                      : "from the kernel's entry";
    return after + ", " + before;
  };

  // 1. The events, in order.
  const std::size_t n = std::min(s0.events.size(), s1.events.size());
  std::size_t i = 0;
  while (i < n && s0.events[i].access == s1.events[i].access && s0.events[i].text == s1.events[i].text) ++i;
  if (i < s0.events.size() || i < s1.events.size()) {
    const OrderOp* e0 = i < s0.events.size() ? &s0.events[i] : nullptr;
    const OrderOp* e1 = i < s1.events.size() ? &s1.events[i] : nullptr;
    d.rule = "event_order";
    d.access = e1 ? e1->access : e0->access;
    d.k0_count = count_events(s0, d.access);
    d.k1_count = count_events(s1, d.access);
    if (e0) d.k0_inst = e0->id;
    if (e1) d.k1_inst = e1->id;
    const OrderOp* ex = e1 ? e1 : e0;
    d.example = ex->id;
    d.example_text = text(e1 ? p1 : p0, ex->item);
    d.message = "kernel '" + kernel + "': the ordering events (scoped or atomic accesses, cache write-back/invalidate, "
                "s_barrier) differ at event " + std::to_string(i) + ": K0 has " +
                (e0 ? id_str(e0->id) + " (" + describe(e0->access, t) + ": " + text(p0, e0->item) + ")"
                    : std::string("no more events")) +
                ", K1 has " +
                (e1 ? id_str(e1->id) + " (" + describe(e1->access, t) + ": " + text(p1, e1->item) + ")"
                    : std::string("no more events"));
    return d;
  }

  // 1b. The events' must-precede relations over the CFG: the sequence above is program order, which a branch can
  // defeat (a conditional branch whose condition always holds, around a buffer_wbl2). Whatever order K0 guarantees
  // on every path, K1 must guarantee too.
  if (s0.paths && s1.paths) {
    const auto ne = s0.events.size();
    auto skipped = [&](std::size_t b, std::optional<std::size_t> a, const char* how) {
      d.rule = "event_path";
      d.access = s1.events[b].access;
      d.k0_count = count_events(s0, d.access);
      d.k1_count = count_events(s1, d.access);
      d.k0_inst = s0.events[b].id;
      d.k1_inst = s1.events[b].id;
      d.example = s1.events[b].id;
      d.example_text = text(p1, s1.events[b].item);
      auto ev = [&](std::size_t e) {
        return "event " + std::to_string(e) + " (K0 " + id_str(s0.events[e].id) + ", K1 " + id_str(s1.events[e].id) +
               ": " + text(p1, s1.events[e].item) + ")";
      };
      d.message = "kernel '" + kernel + "': in K0 every path " +
                  (a ? std::string(how) + " " + ev(*a) : std::string("from the entry to the end")) + " passes " +
                  ev(b) + ", in K1 some path does not: K1's control flow lets a wave skip or reorder an ordering event";
      return d;
    };
    for (std::size_t b = 0; b < ne; ++b)
      if (bits::test(s0.always, b) && !bits::test(s1.always, b)) return skipped(b, std::nullopt, "");
    for (std::size_t a = 0; a < ne; ++a)
      for (std::size_t b = 0; b < ne; ++b) {
        if (bits::test(s0.before[a], b) && !bits::test(s1.before[a], b)) return skipped(a, b, "to");
        if (bits::test(s0.after[a], b) && !bits::test(s1.after[a], b)) return skipped(b, a, "onward from");
      }
  }

  // 2. The plain accesses between consecutive events, as multisets.
  std::map<std::pair<std::uint32_t, MemoryAccess>, std::pair<std::size_t, std::size_t>> counts;
  std::map<std::pair<std::uint32_t, MemoryAccess>, std::pair<const OrderOp*, const OrderOp*>> first;
  for (int side = 0; side < 2; ++side)
    for (const OrderOp& o : (side ? s1 : s0).plain) {
      auto key = std::make_pair(o.segment, o.access);
      (side ? counts[key].second : counts[key].first) += 1;
      auto& f = first[key];
      if (!(side ? f.second : f.first)) (side ? f.second : f.first) = &o;
    }
  for (const auto& [key, c] : counts) {
    if (c.first == c.second) continue;
    const auto& [o0, o1] = first[key];
    d.rule = "plain_access_moved";
    d.access = key.second;
    d.k0_count = c.first;
    d.k1_count = c.second;
    if (o0) d.k0_inst = o0->id;
    if (o1) d.k1_inst = o1->id;
    const bool k1_more = c.second > c.first;
    const OrderOp* ex = k1_more ? o1 : o0;
    d.example = ex->id;
    d.example_text = text(k1_more ? p1 : p0, ex->item);
    d.message = "kernel '" + kernel + "': between " + where(s1, key.first, true) + ", K0 has " +
                std::to_string(c.first) + " and K1 has " + std::to_string(c.second) + " plain " +
                describe(key.second, t) + " (" + (k1_more ? "K1 " : "K0 ") + id_str(ex->id) + ": " + d.example_text +
                "): a plain " + (key.second.kind == "load" ? "load" : "store") +
                " may not move across an ordering event, nor be added or removed there";
    return d;
  }

  // 2b. Plain loads, where the only events are s_barrier (and calls): what K1 reads between two events, K0 reads
  // between the same two, through the same address operands. Without an s_barrier there is nothing for a load to
  // cross that another wave orders by (a call is the same wave's code), so the loads are left to the runs: a K1
  // that folds an address computation into a load's offset is then no memory-model question.
  const bool barriers = std::any_of(s0.events.begin(), s0.events.end(),
                                    [](const OrderOp& e) { return e.access.kind == "barrier"; });
  if (barriers && !s1.loads.empty()) {
    struct Cover {
      std::vector<std::pair<std::int64_t, std::int64_t>> bytes;  // sorted by begin
      const OrderOp* first = nullptr;
      std::size_t loads = 0;
    };
    using Key = std::pair<std::uint32_t, std::string>;  // (segment, address key)
    std::map<Key, Cover> cover0;
    for (const OrderOp& o : s0.loads) {
      LoadPieces lp = load_pieces(p0.items[o.item].inst, o.access, nullptr);
      Cover& c = cover0[{o.segment, std::move(lp.key)}];
      c.bytes.insert(c.bytes.end(), lp.bytes.begin(), lp.bytes.end());
      if (!c.first) c.first = &o;
      ++c.loads;
    }
    for (auto& [k, c] : cover0) std::sort(c.bytes.begin(), c.bytes.end());
    std::map<Key, std::size_t> loads1;
    std::vector<LoadPieces> pieces1;
    for (const OrderOp& o : s1.loads) {
      pieces1.push_back(load_pieces(p1.items[o.item].inst, o.access, rn1));
      ++loads1[{o.segment, pieces1.back().key}];
    }
    for (std::size_t q = 0; q < s1.loads.size(); ++q) {
      const OrderOp& o = s1.loads[q];
      const LoadPieces& lp = pieces1[q];
      for (const auto& [b, e] : lp.bytes) {
        const auto here = cover0.find({o.segment, lp.key});
        if (here != cover0.end() && covers(here->second.bytes, b, e)) continue;
        // Not read there in K0. Where else, nearest first: then the load moved across the events in between.
        const Cover* elsewhere = nullptr;
        std::uint32_t seg0 = 0;
        for (const auto& [k, c] : cover0) {
          if (k.second != lp.key || k.first == o.segment || !covers(c.bytes, b, e)) continue;
          const auto dist = [&](std::uint32_t sg) { return sg > o.segment ? sg - o.segment : o.segment - sg; };
          if (!elsewhere || dist(k.first) < dist(seg0)) elsewhere = &c, seg0 = k.first;
        }
        d.access = o.access;
        d.k0_count = here == cover0.end() ? 0 : here->second.loads;
        d.k1_count = loads1[{o.segment, lp.key}];
        d.k1_inst = o.id;
        d.example = o.id;
        d.example_text = text(p1, o.item);
        const std::string what = "K1 " + id_str(o.id) + " (" + d.example_text + ")";
        const std::size_t ops_at = std::min(lp.key.find(' '), lp.key.size());
        const std::string bytes = o.access.space + " bytes [" + std::to_string(b) + ", " + std::to_string(e) +
                                  ") from" + lp.key.substr(ops_at);
        if (elsewhere) {
          // The event crossed nearest the load's place in K0: the first after it (moved down), the last before it
          // (moved up).
          const bool down = o.segment > seg0;
          const std::uint32_t ev = down ? seg0 : seg0 - 1;
          const OrderOp& crossed = s1.events[ev];
          d.rule = "plain_load_moved";
          d.k0_inst = elsewhere->first->id;
          d.message = "kernel '" + kernel + "': " + what + " reads " + bytes + " " + (down ? "after" : "before") +
                      " event " + std::to_string(ev) + " (K1 " + id_str(crossed.id) + ": " + text(p1, crossed.item) +
                      "), where K0 reads them only " + (down ? "before" : "after") + " it (K0 " +
                      id_str(elsewhere->first->id) + ": " + text(p0, elsewhere->first->item) + "): a plain load " +
                      "may not cross an s_barrier -- on the other side another wave of the workgroup may already " +
                      "have overwritten those bytes, or not yet written them, and no run is sure to show it";
        } else {
          d.rule = "plain_load_added";
          d.message = "kernel '" + kernel + "': " + what + " reads " + bytes + " in the segment " + where(s1, o.segment, true) +
                      ", where K0 reads no such bytes through the same address operands: a plain load may not be " +
                      "added there, nor moved there across an s_barrier";
        }
        return d;
      }
    }
  }

  // 3. The fences: K1 may leave outstanding, at each event and each kept plain op, only what K0 leaves.
  if (!s0.fences || !s1.fences) return std::nullopt;
  const auto ne = static_cast<std::uint32_t>(s0.events.size());
  // K1 plain op -> K0 plain op with the same (segment, access, ordinal).
  std::map<std::tuple<std::uint32_t, MemoryAccess, std::uint32_t>, std::uint32_t> k0_plain;
  for (std::uint32_t q = 0; q < s0.plain.size(); ++q)
    k0_plain[{s0.plain[q].segment, s0.plain[q].access, s0.plain[q].ordinal}] = q;
  std::vector<std::uint32_t> map1(s1.plain.size(), ~0u);
  for (std::uint32_t q = 0; q < s1.plain.size(); ++q) {
    auto it = k0_plain.find({s1.plain[q].segment, s1.plain[q].access, s1.plain[q].ordinal});
    if (it != k0_plain.end()) map1[q] = it->second;
  }
  auto to_k0 = [&](std::uint32_t id1) -> std::uint32_t {
    if (id1 < ne) return id1;
    const std::uint32_t q = map1[id1 - ne];
    return q == ~0u ? ~0u : ne + q;
  };
  auto name1 = [&](std::uint32_t id1) {
    const OrderOp& o = id1 < ne ? s1.events[id1] : s1.plain[id1 - ne];
    return "K1 " + id_str(o.id) + " (" + text(p1, o.item) + ")";
  };
  auto fence_diff = [&](const OrderOp& at0, const OrderOp& at1, std::uint32_t extra1, bool at_event) {
    d.rule = "fence";
    d.access = at1.access;
    d.k0_count = d.k1_count = at_event ? count_events(s1, at1.access) : 1;
    d.k0_inst = at0.id;
    d.k1_inst = at1.id;
    d.example = at1.id;
    d.example_text = text(p1, at1.item);
    d.message = "kernel '" + kernel + "': when " + (at_event ? "event " + std::to_string(at1.segment) : "plain access") +
                " K1 " + id_str(at1.id) + " (" + text(p1, at1.item) + "; K0 " + id_str(at0.id) + ") issues, " +
                name1(extra1) + " may still be outstanding, but K0 waits for it there: K1 waits less than K0 (an " +
                "s_waitcnt weakened, dropped or moved), so the order other waves see is not kept";
    return d;
  };
  for (std::uint32_t e = 0; e < ne; ++e) {
    const auto& out0 = s0.event_out[e];
    for (const std::uint32_t id1 : s1.event_out[e]) {
      const std::uint32_t id0 = to_k0(id1);
      if (id0 == ~0u || !std::binary_search(out0.begin(), out0.end(), id0))
        return fence_diff(s0.events[e], s1.events[e], id1, true);
    }
  }
  for (std::uint32_t q = 0; q < s1.plain.size(); ++q) {
    const std::uint32_t q0 = map1[q];
    if (q0 == ~0u) continue;  // cannot happen after step 2
    const auto& out0 = s0.plain_out[q0];
    for (const std::uint32_t e : s1.plain_out[q])
      if (!std::binary_search(out0.begin(), out0.end(), e)) return fence_diff(s0.plain[q0], s1.plain[q], e, false);
  }
  return std::nullopt;
}

}  // namespace detail

namespace detail {
/// Where control may enter the blocks `region` (ascending block indexes) from outside: each block of it with no
/// predecessor in it other than an indirect branch (analysis::build_cfg joins every s_setpc_b64 to every labelled
/// block, so a callee's entry, reached through s_swappc_b64, has only those; dead code has none), then, while some
/// block is not reached from those, the first such block in program order (a callee whose entry is a loop header).
/// Reaching does not follow an indirect branch's edges.
[[nodiscard]] inline std::vector<std::uint32_t> region_entries(const analysis::Cfg& g,
                                                               std::span<const std::uint32_t> region) {
  std::vector<std::uint8_t> in(g.blocks.size(), 0), seen(g.blocks.size(), 0);
  for (const std::uint32_t b : region) in[b] = 1;
  std::vector<std::uint32_t> entries;
  auto reach = [&](std::uint32_t from) {
    std::vector<std::uint32_t> stack{from};
    while (!stack.empty()) {
      const std::uint32_t b = stack.back();
      stack.pop_back();
      if (seen[b]) continue;
      seen[b] = 1;
      if (g.indirect[b]) continue;
      for (const std::uint32_t s : g.succ[b])
        if (in[s]) stack.push_back(s);
    }
  };
  for (const std::uint32_t b : region) {
    bool has_pred = false;
    for (const std::uint32_t p : g.pred[b]) has_pred = has_pred || (in[p] && !g.indirect[p]);
    if (!has_pred) entries.push_back(b), reach(b);
  }
  for (const std::uint32_t b : region)
    if (!seen[b]) entries.push_back(b), reach(b);
  return entries;
}

/// Calls `f(name)` for every symbol an expression operand's text names (`helper-.Lg0-4`: helper, .Lg0; numbers
/// and relocation specifiers such as `rel32` are passed too: callers look the names up).
template <class F>
void for_each_symbol(std::string_view text, F&& f) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; };
  for (std::size_t k = 0; k < text.size();) {
    if (!ident(text[k])) {
      ++k;
      continue;
    }
    std::size_t e = k;
    while (e < text.size() && ident(text[e])) ++e;
    f(text.substr(k, e - k));
    k = e;
  }
}

/// Whether the indirect branches of the blocks `region` (of `p`, whose CFG is `g`) can be taken for returns when
/// computing dominators (compute_paths `indirect_returns`): no instruction of the region names, in an expression
/// operand, a label that starts a block of the region other than one of `entries` -- what a long branch
/// (s_getpc_b64; s_add_u32 s0, s0, L@rel32@lo+4; ...; s_setpc_b64) would jump to. Naming an entry is a call.
[[nodiscard]] inline bool indirect_branches_return(const Program& p, const analysis::Cfg& g,
                                                   std::span<const std::uint32_t> region,
                                                   std::span<const std::uint32_t> entries) {
  std::vector<std::uint8_t> inside(g.blocks.size(), 0);
  for (const std::uint32_t b : region) inside[b] = 1;
  for (const std::uint32_t e : entries) inside[e] = 0;
  for (const std::uint32_t b : region)
    for (const std::size_t i : g.blocks[b].insts) {
      const Inst& in = p.items[i].inst;
      const auto kinds = isa::operands(isa::forms(in.target)[in.form]);
      for (std::size_t n = 0; n < in.ops.size(); ++n) {
        const Operand& o = in.ops[n];
        // Branch targets (operands of kind label) are the CFG's own edges; only addresses computed from a label count.
        if (o.kind != Operand::Kind::expr || (n < kinds.size() && kinds[n].kind == isa::Kind::label)) continue;
        bool long_branch = false;
        for_each_symbol(o.text, [&](std::string_view name) {
          const auto t = g.block_named(name);
          long_branch = long_branch || (t && inside[*t]);
        });
        if (long_branch) return false;
      }
    }
  return true;
}

/// The indirect branches of the blocks `region`, as text, sorted.
[[nodiscard]] inline std::vector<std::string> indirect_branch_texts(const Program& p, const analysis::Cfg& g,
                                                                    std::span<const std::uint32_t> region) {
  std::vector<std::string> out;
  for (const std::uint32_t b : region)
    if (g.indirect[b] && !g.blocks[b].insts.empty()) out.push_back(print_inst(p.items[g.blocks[b].insts.back()].inst));
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace detail

/// Compares the memory ordering of `k1` with `k0`'s (see the file comment), kernel by kernel in K0's kernel order,
/// then the code no kernel entry reaches. Returns the first difference of each kernel that has one (empty: K1 keeps
/// K0's memory ordering). Kernels are the programs' `.amdhsa_kernel` blocks (or, in a program without any, its first
/// label); a kernel only one of the two programs has is a "kernel_missing" difference.
[[nodiscard]] inline std::vector<MemoryModelDifference> compare_memory_model(const Program& k0, const Program& k1) {
  std::vector<MemoryModelDifference> out;
  const analysis::Cfg g0 = analysis::build_cfg(k0), g1 = analysis::build_cfg(k1);
  const std::optional<detail::RegRename> rn = detail::register_renaming(k0, k1);
  std::vector<std::string> names = detail::kernel_names(k0);
  for (auto& n : detail::kernel_names(k1))
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
  std::vector<std::uint8_t> reached0(g0.blocks.size(), 0), reached1(g1.blocks.size(), 0);
  auto region = [](const analysis::Cfg& g, std::uint32_t entry, std::vector<std::uint8_t>& reached) {
    std::vector<std::uint32_t> bs = g.reverse_post_order(entry);
    std::sort(bs.begin(), bs.end());
    for (const std::uint32_t b : bs) reached[b] = 1;
    return bs;
  };
  for (const std::string& name : names) {
    const auto e0 = g0.block_named(name), e1 = g1.block_named(name);
    if (!e0 || !e1) {
      MemoryModelDifference d;
      d.kernel = name;
      d.rule = "kernel_missing";
      d.access.kind = "kernel";
      d.access.mnemonic = name;
      d.message = "kernel '" + name + "' has no entry label in " + (e0 ? "K1" : "K0") +
                  ": its memory ordering cannot be compared";
      out.push_back(std::move(d));
      if (e0) (void)region(g0, *e0, reached0);
      if (e1) (void)region(g1, *e1, reached1);
      continue;
    }
    detail::Skeleton s0 = detail::skeleton_of(k0, g0, region(g0, *e0, reached0), false);
    detail::Skeleton s1 = detail::skeleton_of(k1, g1, region(g1, *e1, reached1), false);
    detail::compute_fences(s0, k0, g0, *e0, k0.target);
    detail::compute_fences(s1, k1, g1, *e1, k1.target);
    const std::uint32_t entry0[1] = {*e0}, entry1[1] = {*e1};
    detail::compute_paths(s0, g0, g0.reverse_post_order(*e0), entry0);
    detail::compute_paths(s1, g1, g1.reverse_post_order(*e1), entry1);
    if (auto d = detail::compare_skeletons(name, k0, s0, k1, s1, rn ? &*rn : nullptr)) out.push_back(std::move(*d));
  }
  // The code no kernel entry reaches, in program order (waits compared as events, no fence sets).
  std::vector<std::uint32_t> rest0, rest1;
  for (std::uint32_t b = 0; b < g0.blocks.size(); ++b)
    if (!reached0[b]) rest0.push_back(b);
  for (std::uint32_t b = 0; b < g1.blocks.size(); ++b)
    if (!reached1[b]) rest1.push_back(b);
  detail::Skeleton r0 = detail::skeleton_of(k0, g0, rest0, true);
  detail::Skeleton r1 = detail::skeleton_of(k1, g1, rest1, true);
  // Returns (s_setpc_b64) are joined to every labelled block by the CFG, which would leave no dominance between
  // blocks of different callees: they are taken for returns when neither side has a long branch inside that code
  // and both have the same indirect branches there; otherwise both sides keep the CFG's edges (conservative).
  const auto en0 = detail::region_entries(g0, rest0), en1 = detail::region_entries(g1, rest1);
  const bool returns = detail::indirect_branches_return(k0, g0, rest0, en0) &&
                       detail::indirect_branches_return(k1, g1, rest1, en1) &&
                       detail::indirect_branch_texts(k0, g0, rest0) == detail::indirect_branch_texts(k1, g1, rest1);
  detail::compute_paths(r0, g0, rest0, en0, returns);
  detail::compute_paths(r1, g1, rest1, en1, returns);
  if (auto d = detail::compare_skeletons("(code no kernel entry reaches)", k0, r0, k1, r1, rn ? &*rn : nullptr))
    out.push_back(std::move(*d));
  return out;
}

}  // namespace asmevo::verify
