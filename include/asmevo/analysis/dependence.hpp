// The dependence DAG of a straight run of instructions (a basic block or part of one): which pairs must keep their
// order for the run to mean the same thing, and why (register, memory, wait-counter, EXEC or barrier order).
//
// The rules, all conservative (each says below what it gives up):
//  - Registers, as units (analysis/detail/reg_units.hpp: one per 32-bit register, SCC, and the form's implicit
//    vcc/exec/m0/scc/flat_scratch): read after write (RAW), write after read (WAR), write after write (WAW).
//    Destinations kept in part (SDWA, d16, 16-bit results, mac) count as read too (reg_units' partial_def). A memory
//    load's destination counts as written at issue: the DAG does not know that it is written later, and need not,
//    because the reader of a load result sits behind the s_waitcnt that retires it, and an s_waitcnt is a barrier.
//  - EXEC: every vector instruction (VALU, MFMA, LDS, VMEM, FLAT) reads exec_lo/exec_hi whether or not its form lists
//    the implicit use, so an EXEC write keeps its place against all of them. Gives up: v_readlane/v_writelane and
//    s_*-only code between two EXEC writes could move, but vector code that ignores EXEC never does.
//  - Barriers: nothing moves across them (see barrier_reason): every SOPP (s_waitcnt, s_nop, s_barrier, s_setprio,
//    s_sleep, s_sendmsg, s_trap, s_icache_inv, branches, s_endpgm ...), branches, calls and terminators, LLVM's
//    hasSideEffects forms (s_dcache_*, s_memtime, scalar atomics, GWS), cache write-back/invalidate (buffer_wbl2,
//    buffer_inv, buffer_wbinvl1*), MODE/hardware-register and GPR-indexing writers and readers (s_setreg*, s_getreg*,
//    s_set_gpr_idx_*), s_getpc_b64 (its result is its own address), any operand the IR keeps as an expression (a
//    `sym@rel32@lo+4` literal is PC-relative), and any register the unit model has no unit for (lds_direct,
//    src_pops_exiting_wave_id). An instruction never crosses an s_waitcnt: the wait's counts count the memory
//    operations issued before it (MI300 ISA (CDNA3) §4.4 "S_WAITCNT").
//  - Wait counters: instructions that increment vmcnt keep their relative order, and so do those that increment
//    lgkmcnt, and those that increment expcnt (prop::vm_cnt / lgkm_cnt / exp_cnt, from LLVM's TSFlags). vmcnt(N)
//    retires all but the last N VMEM operations issued (§4.4: vector memory returns in order), so swapping two VMEM
//    loads would change which load a later wait retires. FLAT counts in both and so is in both chains. Gives up:
//    independent VMEM loads never reorder among themselves, nor SMEM with LDS.
//  - Memory (MemAccess, memory_access): loads reorder freely with loads; a store or atomic orders against every load,
//    store and atomic of an address space it may share. Global, flat, buffer, scratch, image and SMEM are one space
//    (scratch and buffers are global memory behind an address computation; SMEM reads the same memory through the
//    scalar cache: an SMEM load after a VMEM store to the same line is ordered, although the scalar cache is not
//    coherent with vector stores, so the program would need a cache invalidation anyway); LDS (ds_*) is another,
//    GDS a third. FLAT may reach LDS as well as global memory. A load to LDS (buffer_load ... lds,
//    global_load_lds_*) reads global memory and writes LDS. A form with neither a load nor a store flag counts as both.
//    Two accesses are provably disjoint (provably_disjoint) only when both are SMEM with the same `sbase` and
//    `soffset` operands, holding the same values (no instruction between them writes those registers), and
//    non-overlapping byte ranges [offset, offset + data size). Vector addresses are never proved disjoint: "same base
//    registers, disjoint immediate offsets" is not enough across lanes (lane 1 storing to v0 + 0 where v0 = 4*lane
//    writes the dword that lane 0 then loads from v0 + 4). Under the counter chains above this rarely matters: two
//    SMEM accesses are in the lgkmcnt chain anyway.
//
// Nodes keep the run's order (node i is the run's i-th instruction); every edge goes from an earlier node to a later
// one, and one edge is kept per pair (the first rule that applies, in DepKind order: RAW first, so a scheduler can
// read result latencies off the edges).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::analysis {

/// Why two instructions keep their order.
enum class DepKind : std::uint8_t {
  raw,      ///< the later reads a register unit the earlier writes
  war,      ///< the later writes a unit the earlier reads
  waw,      ///< both write a unit
  exec,     ///< an EXEC write against a vector instruction (kept apart from raw/war/waw to say why)
  memory,   ///< a store or atomic against an access to a space it may share
  counter,  ///< both increment one wait counter (vmcnt, lgkmcnt or expcnt)
  barrier,  ///< one of them is a barrier (barrier_reason)
};

[[nodiscard]] constexpr std::string_view to_string(DepKind k) noexcept {
  switch (k) {
    case DepKind::raw: return "raw";
    case DepKind::war: return "war";
    case DepKind::waw: return "waw";
    case DepKind::exec: return "exec";
    case DepKind::memory: return "memory";
    case DepKind::counter: return "counter";
    case DepKind::barrier: return "barrier";
  }
  return "?";
}

/// Address spaces, as bits.
namespace space {
inline constexpr std::uint8_t global = 1, lds = 2, gds = 4;
}

/// The memory an instruction may read and write: space:: bits (0 and 0 for a non-memory instruction).
struct MemAccess {
  std::uint8_t reads = 0, writes = 0;
  [[nodiscard]] constexpr bool any() const noexcept { return (reads | writes) != 0; }
  /// True if the two may touch a common byte with at least one of them writing it (before disjointness).
  [[nodiscard]] constexpr bool conflicts(const MemAccess& o) const noexcept {
    return (writes & (o.reads | o.writes)) != 0 || (o.writes & (reads | writes)) != 0;
  }
};

/// One edge: `from` must stay before `to` (node indexes, from < to). `unit` names the register unit of a
/// raw/war/waw/exec edge (detail::unit_name), else 0.
struct DepEdge {
  std::uint32_t from = 0, to = 0;
  DepKind kind = DepKind::raw;
  std::uint16_t unit = 0;
};

/// One instruction of the run and what the analysis decided about it.
struct DepNode {
  InstId id{};
  std::size_t item = 0;          ///< Program::items index when the graph was built
  std::string_view barrier;      ///< why nothing crosses it (empty: not a barrier)
  bool vm = false, lgkm = false, exp = false;  ///< wait counters it increments
  MemAccess mem;
  std::vector<unsigned> reads, writes;  ///< register units
};

/// The dependence DAG of one run. succ/pred hold edge indexes into `edges`.
struct DepGraph {
  std::vector<DepNode> nodes;
  std::vector<DepEdge> edges;
  std::vector<std::vector<std::uint32_t>> succ, pred;

  /// The edge from `a` to `b`, if there is one.
  [[nodiscard]] const DepEdge* edge(std::uint32_t a, std::uint32_t b) const noexcept {
    if (a >= succ.size()) return nullptr;
    for (const auto e : succ[a])
      if (edges[e].to == b) return &edges[e];
    return nullptr;
  }

  /// True if `a` must stay before `b` (a path of edges leads from a to b); visits only the nodes between them.
  [[nodiscard]] bool ordered(std::uint32_t a, std::uint32_t b) const {
    if (a >= b || b >= nodes.size()) return false;
    std::vector<std::uint8_t> seen(b - a + 1, 0);
    std::vector<std::uint32_t> stack{a};
    seen[0] = 1;
    while (!stack.empty()) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      for (const auto e : succ[n]) {
        const std::uint32_t t = edges[e].to;
        if (t == b) return true;
        if (t < b && !seen[t - a]) {
          seen[t - a] = 1;
          stack.push_back(t);
        }
      }
    }
    return false;
  }
};

namespace dep_detail {

using analysis::detail::form_of;

inline constexpr std::string_view own_address_why = "its result is its own address";

/// Why `o` is a barrier although its form says nothing that makes it one, or empty when it is not such an op. Each
/// is an ISA fact about the instruction's effect on state the unit model does not track.
[[nodiscard]] constexpr std::string_view barrier_op_why(Opcode o) noexcept {
  switch (family_of(o)) {
    case Family::s_setreg:
      return "writes a hardware register (MODE, TRAPSTS ...) that other instructions read implicitly";
    case Family::s_getreg:
      return "reads hardware state (STATUS, TRAPSTS, SHADER_CYCLES ...) that other instructions change";
    case Family::s_gpr_idx: return "changes how later VALU instructions name VGPRs (MI300 ISA §4.6 'GPR indexing')";
    case Family::s_rfe: return "returns from a trap handler";
    case Family::s_dcache: return "scalar cache write-back/invalidate: orders against every scalar memory access";
    case Family::s_icache: return "instruction cache invalidate";
    case Family::buffer_cache:  // buffer_wbl2, buffer_inv, buffer_invl2, buffer_wbinvl1, buffer_wbinvl1_vol
      if (o == op::buffer_wbl2) return "L2 write-back: orders against every memory access";
      if (one_of(o, op::buffer_wbinvl1, op::buffer_wbinvl1_vol))
        return "vector L1 write-back/invalidate: orders against every memory access";
      return "vector cache invalidate: orders against every memory access";
    case Family::ds_gws: return "global wave sync";
    case Family::s_waitcnt: return "waits for counted memory operations issued before it";
    default: break;
  }
  if (o == op::s_getpc_b64) return own_address_why;
  if (o == op::s_setvskip) return "changes whether later vector instructions execute";
  return {};
}

}  // namespace dep_detail

/// Why nothing may move across `in` (see the file comment), or empty when it is not a barrier.
[[nodiscard]] inline std::string_view barrier_reason(const Inst& in) {
  const auto forms = isa::forms(in.target);
  if (in.form >= forms.size()) return "unknown instruction form";
  const isa::FormInfo& f = forms[in.form];
  using namespace isa::prop;
  if (f.has(branch) || f.has(terminator) || f.has(no_fallthrough) || f.has(call) || f.has(return_))
    return "branch, call or terminator";
  if (f.format == isa::Format::SOPP || f.has(sopp))
    return "program control (SOPP: waits, nops, barriers, messages, priority, sleep, traps)";
  if (f.has(side_effects)) return "unmodelled side effects (LLVM hasSideEffects)";
  if (f.has(gws) || f.format == isa::Format::EXP) return "GWS or export";
  if (const auto why = dep_detail::barrier_op_why(op_of(in)); !why.empty()) return why;
  for (const Operand& o : in.ops) {
    if (o.kind == Operand::Kind::expr) return "a symbolic operand (its value may depend on the instruction's address)";
    if (o.is_reg() && o.reg.file == RegFile::special && analysis::detail::units_of(o.reg).empty() &&
        (o.reg.index == special::src_lds_direct || o.reg.index == special::src_pops_exiting_wave_id))
      return "reads a register the dependence analysis does not model (lds_direct / pops_exiting_wave_id)";
  }
  return {};
}

/// Whether `in` computes its own address (s_getpc_b64): a copy of it elsewhere computes another value.
[[nodiscard]] inline bool reads_own_address(const Inst& in) { return barrier_reason(in) == dep_detail::own_address_why; }

/// The memory `in` may read and write (see the file comment for the spaces).
[[nodiscard]] inline MemAccess memory_access(const Inst& in) {
  MemAccess m;
  const auto forms = isa::forms(in.target);
  if (in.form >= forms.size()) return MemAccess{space::global | space::lds | space::gds, space::global | space::lds | space::gds};
  const isa::FormInfo& f = forms[in.form];
  using namespace isa::prop;
  std::uint8_t sp = 0;
  if (f.has(smem)) sp = space::global;
  else if (f.has(ds)) {
    bool gds = f.has(gws);
    const auto ops = isa::operands(f);
    for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
      if (ops[k].name == "gds" && in.ops[k].kind == Operand::Kind::imm && in.ops[k].imm != 0) gds = true;
    sp = gds ? space::gds : space::lds;
  } else if (f.format == isa::Format::FLAT) sp = space::global | space::lds;  // a flat address may name LDS
  else if (f.has(vmem) || f.has(flat) || f.format == isa::Format::GLOBAL || f.format == isa::Format::SCRATCH ||
           f.format == isa::Format::MUBUF || f.format == isa::Format::MTBUF || f.format == isa::Format::MIMG)
    sp = space::global;
  if (!sp) return m;
  // Loads to LDS: the MUBUF `lds` forms (prop::lds_dma) and global/scratch_load_lds_* (which the table does not
  // flag with prop::lds_dma; their op does: opflag::lds; waitcnt_check.hpp's facts_of recognises them the same way).
  // (The table flags them load and store: the store is the LDS write.)
  const OpInfo& info = op_info(in);
  if (f.has(lds_dma) || (info.has(opflag::lds) && one_of(info.base, BaseOp::global_load, BaseOp::scratch_load)))
    return MemAccess{sp, space::lds};
  const bool ld = f.has(load) || f.has(atomic), st = f.has(store) || f.has(atomic);
  m.reads = ld || !st ? sp : 0;
  m.writes = st || !ld ? sp : 0;
  return m;
}

namespace dep_detail {

/// The operand of `in` named `name`, or null.
[[nodiscard]] inline const Operand* operand_named(const Inst& in, std::string_view name) {
  const auto ops = isa::operands(form_of(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].name == name) return &in.ops[k];
  return nullptr;
}

/// Bytes an SMEM access touches: its data operand's width (sdst or sdata), or 0 when unknown.
[[nodiscard]] inline unsigned smem_bytes(const Inst& in) {
  for (const std::string_view n : {"sdst", "sdata"})
    if (const Operand* o = operand_named(in, n); o && o->is_reg()) return 4u * o->reg.dwords;
  return 0;
}

}  // namespace dep_detail

/// True if `a` and `b` provably touch no common byte (see the file comment: SMEM with equal sbase/soffset and
/// disjoint immediate ranges). `address_unchanged`: no instruction between them writes a register either reads
/// for its address (the caller knows the run).
[[nodiscard]] inline bool provably_disjoint(const Inst& a, const Inst& b, bool address_unchanged) {
  using dep_detail::operand_named;
  if (!address_unchanged) return false;
  const auto& fa = dep_detail::form_of(a);
  const auto& fb = dep_detail::form_of(b);
  if (!fa.has(isa::prop::smem) || !fb.has(isa::prop::smem)) return false;
  // s_load_* and s_buffer_load_* compute different addresses from the same sbase (a pointer vs a descriptor).
  if ((family_of(a) == Family::s_buffer) != (family_of(b) == Family::s_buffer)) return false;
  const Operand* ba = operand_named(a, "sbase");
  const Operand* bb = operand_named(b, "sbase");
  if (!ba || !bb || !ba->is_reg() || !(*ba == *bb)) return false;
  const Operand* sa = operand_named(a, "soffset");
  const Operand* sb = operand_named(b, "soffset");
  const bool sa_set = sa && sa->present(), sb_set = sb && sb->present();
  if (sa_set != sb_set || (sa_set && !(*sa == *sb))) return false;
  const Operand* oa = operand_named(a, "offset");
  const Operand* ob = operand_named(b, "offset");
  if (!oa || !ob || oa->kind != Operand::Kind::imm || ob->kind != Operand::Kind::imm) return false;
  const unsigned na = dep_detail::smem_bytes(a), nb = dep_detail::smem_bytes(b);
  if (!na || !nb) return false;
  return oa->imm + na <= ob->imm || ob->imm + nb <= oa->imm;
}

/// The dependence DAG of the instructions at Program::items indexes `items` (in program order, all instructions,
/// normally one basic block or a run of one), by the rules of the file comment.
[[nodiscard]] ASMEVO_OUTLINE DepGraph build_dependences(const Program& p, std::span<const std::size_t> items)
#if ASMEVO_BODY_ANALYSIS
{
  namespace rd = analysis::detail;
  DepGraph g;
  const auto n = static_cast<std::uint32_t>(items.size());
  g.nodes.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Inst& in = p.items[items[i]].inst;
    DepNode& d = g.nodes[i];
    d.id = in.id;
    d.item = items[i];
    d.barrier = barrier_reason(in);
    if (in.form >= isa::forms(in.target).size()) continue;
    const auto& f = rd::form_of(in);
    d.vm = f.has(isa::prop::vm_cnt);
    d.lgkm = f.has(isa::prop::lgkm_cnt);
    d.exp = f.has(isa::prop::exp_cnt);
    d.mem = memory_access(in);
    rd::unit_rw(in, d.reads, d.writes);
    const bool vector = f.has(isa::prop::valu) || f.has(isa::prop::mfma) || f.has(isa::prop::ds) ||
                        f.has(isa::prop::vmem) || f.has(isa::prop::flat) || d.mem.any() ||
                        (f.format >= isa::Format::VOP1 && f.format <= isa::Format::VINTRP);
    if (vector && !f.has(isa::prop::smem)) d.reads.insert(d.reads.end(), {rd::unit_exec, rd::unit_exec + 1});
    for (auto* v : {&d.reads, &d.writes}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
  }

  auto add = [&](std::uint32_t from, std::uint32_t to, DepKind k, unsigned unit = 0) {
    g.edges.push_back(DepEdge{from, to, k, static_cast<std::uint16_t>(unit)});
  };
  auto unit_kind = [](DepKind k, unsigned u) {
    return u == rd::unit_exec || u == rd::unit_exec + 1 ? DepKind::exec : k;
  };
  std::vector<std::int64_t> last_writer(rd::num_units, -1);
  std::vector<std::vector<std::uint32_t>> readers(rd::num_units);
  std::int64_t last_barrier = -1, last_vm = -1, last_lgkm = -1, last_exp = -1;
  std::vector<std::uint32_t> since_barrier, memory_nodes;
  // Per unit, the node index of its last write: lets provably_disjoint ask "unchanged between a and b".
  auto written_between = [&](const Inst& in, std::uint32_t a, std::uint32_t b) {
    std::vector<unsigned> r, w;
    rd::unit_rw(in, r, w);
    for (std::uint32_t k = a + 1; k < b; ++k)
      for (const unsigned u : g.nodes[k].writes)
        if (std::find(r.begin(), r.end(), u) != r.end()) return true;
    return false;
  };
  for (std::uint32_t j = 0; j < n; ++j) {
    DepNode& d = g.nodes[j];
    if (!d.barrier.empty()) {
      for (const auto i : since_barrier) add(i, j, DepKind::barrier);
      if (last_barrier >= 0) add(static_cast<std::uint32_t>(last_barrier), j, DepKind::barrier);
      since_barrier.clear();
      last_barrier = j;
    } else {
      if (last_barrier >= 0) add(static_cast<std::uint32_t>(last_barrier), j, DepKind::barrier);
      since_barrier.push_back(j);
    }
    for (const unsigned u : d.reads)
      if (u < rd::num_units) {
        if (last_writer[u] >= 0) add(static_cast<std::uint32_t>(last_writer[u]), j, unit_kind(DepKind::raw, u), u);
        readers[u].push_back(j);
      }
    for (const unsigned u : d.writes)
      if (u < rd::num_units) {
        if (last_writer[u] >= 0) add(static_cast<std::uint32_t>(last_writer[u]), j, unit_kind(DepKind::waw, u), u);
        for (const auto r : readers[u])
          if (r != j) add(r, j, unit_kind(DepKind::war, u), u);
        readers[u].clear();
        last_writer[u] = j;
      }
    auto chain = [&](bool on, std::int64_t& last) {
      if (!on) return;
      if (last >= 0) add(static_cast<std::uint32_t>(last), j, DepKind::counter);
      last = j;
    };
    chain(d.vm, last_vm);
    chain(d.lgkm, last_lgkm);
    chain(d.exp, last_exp);
    if (d.mem.any()) {
      const Inst& bj = p.items[items[j]].inst;
      for (const auto i : memory_nodes) {
        if (!g.nodes[i].mem.conflicts(d.mem)) continue;
        const Inst& ai = p.items[items[i]].inst;
        const bool unchanged = !written_between(ai, i, j) && !written_between(bj, i, j);
        if (!provably_disjoint(ai, bj, unchanged)) add(i, j, DepKind::memory);
      }
      memory_nodes.push_back(j);
    }
  }
  // One edge per pair: the first kind in DepKind order (raw before the rest).
  std::sort(g.edges.begin(), g.edges.end(), [](const DepEdge& a, const DepEdge& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    return a.kind < b.kind;
  });
  g.edges.erase(std::unique(g.edges.begin(), g.edges.end(),
                            [](const DepEdge& a, const DepEdge& b) { return a.from == b.from && a.to == b.to; }),
                g.edges.end());
  g.succ.assign(n, {});
  g.pred.assign(n, {});
  for (std::uint32_t e = 0; e < g.edges.size(); ++e) {
    g.succ[g.edges[e].from].push_back(e);
    g.pred[g.edges[e].to].push_back(e);
  }
  return g;
}
#else
;
#endif

}  // namespace asmevo::analysis
