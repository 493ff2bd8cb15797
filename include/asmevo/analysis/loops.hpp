// Loops of a kernel: dominators, natural loops with their nesting, preheaders and exits, induction variables (SALU and
// VALU) and trip counts, symbolic and, under a launch's known values, concrete. What software pipelining, unrolling
// and specialisation need to know about a loop before they touch it.
//
// Dominators: Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001), over the reverse post-order.
// A natural loop is the set of blocks that reach a back edge's source without passing its target, for every edge
// whose target dominates its source (Aho, Lam, Sethi, Ullman, "Compilers", §9.6); back edges to one header make one
// loop. A retreating edge whose target does not dominate its source makes the CFG irreducible there: the analysis
// names it and builds no loop for it.
//
// An induction variable is a 32-bit register the loop writes exactly once, by `r = r + step` or `r = r - step`
// (s_add_u32/i32, s_sub_u32/i32, s_addk_i32, v_add_u32, v_sub_u32, v_add_co_u32, v_subrev_u32 with r as the minuend's
// other side), where step is a constant or a register the loop does not write, in a block that runs once in every
// iteration (it dominates every latch and belongs to no inner loop).
//
// Trip count: of a loop with one exit, decided by s_cbranch_scc0/scc1 on an s_cmp/s_cmpk of an induction variable with
// a constant or an invariant SGPR, in the header (tested at the top) or in the only latch (tested at the bottom). It
// counts the header's executions per entry into the loop. `symbolic` writes it as a formula over the values on entry;
// `evaluate` runs the recurrence exactly, in 32-bit arithmetic, for given entry values (up to a cap). Under a launch,
// `concrete_trip_counts` takes those values from analysis/known_bits.hpp at the end of the preheader.
//
// The opcodes this reads (adds, subtracts, compares, scc branches) are named by their typed op ids and compare
// attributes (loops_detail::loop_op below).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::analysis {

// ---- dominators --------------------------------------------------------------------------------------------------

/// Immediate dominators of the blocks reachable from one entry.
struct Dominators {
  std::uint32_t entry = Cfg::none;
  std::vector<std::uint32_t> idom;  ///< per block; entry -> entry; Cfg::none when unreachable
  std::vector<std::uint32_t> rpo_index;  ///< per block: its place in the reverse post-order (none when unreachable)

  [[nodiscard]] bool reachable(std::uint32_t b) const noexcept { return b < idom.size() && idom[b] != Cfg::none; }
  /// True if every path from the entry to `b` passes `a` (a block dominates itself).
  [[nodiscard]] bool dominates(std::uint32_t a, std::uint32_t b) const noexcept {
    if (!reachable(a) || !reachable(b)) return false;
    while (b != a) {
      if (b == entry) return false;
      b = idom[b];
    }
    return true;
  }
};

[[nodiscard]] inline Dominators dominators(const Cfg& g, std::uint32_t entry) {
  Dominators d;
  d.entry = entry;
  d.idom.assign(g.blocks.size(), Cfg::none);
  d.rpo_index.assign(g.blocks.size(), Cfg::none);
  const auto rpo = g.reverse_post_order(entry);
  for (std::uint32_t k = 0; k < rpo.size(); ++k) d.rpo_index[rpo[k]] = k;
  if (rpo.empty()) return d;
  d.idom[entry] = entry;
  auto intersect = [&](std::uint32_t a, std::uint32_t b) {
    while (a != b) {
      while (d.rpo_index[a] > d.rpo_index[b]) a = d.idom[a];
      while (d.rpo_index[b] > d.rpo_index[a]) b = d.idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 1; k < rpo.size(); ++k) {
      const std::uint32_t b = rpo[k];
      std::uint32_t nd = Cfg::none;
      for (const auto p : g.pred[b]) {
        if (d.idom[p] == Cfg::none) continue;  // not yet processed, or unreachable
        nd = nd == Cfg::none ? p : intersect(p, nd);
      }
      if (nd != Cfg::none && d.idom[b] != nd) d.idom[b] = nd, changed = true;
    }
  }
  return d;
}

// ---- opcode classes ----------------------------------------------------------------------------------------------

namespace loops_detail {

/// What the loop analysis needs to know of an opcode.
enum class Op : std::uint8_t {
  other,
  add,          ///< d = a + b (s_add_u32/i32, v_add_u32, v_add_co_u32)
  sub,          ///< d = a - b (s_sub_u32/i32, v_sub_u32, v_sub_co_u32)
  subrev,       ///< d = b - a (v_subrev_u32, v_subrev_co_u32)
  addk,         ///< d = d + simm16 (s_addk_i32)
  mov,          ///< d = a (s_mov_b32, v_mov_b32, s_movk_i32)
  cmp,          ///< scc = a <op> b (s_cmp_*_i32/u32, s_cmpk_*: register first)
  cmp64,        ///< scc = a <op> b on 64-bit operands (s_cmp_eq_u64, s_cmp_lg_u64)
  cbranch_scc0,
  cbranch_scc1,
};

/// Compare condition of an s_cmp.
enum class Cond : std::uint8_t { eq, ne, lt, le, gt, ge };

struct OpFacts {
  Op op = Op::other;
  Cond cond = Cond::eq;
  bool is_signed = false;
  bool simm16 = false;  ///< s_cmpk_*: the constant is a 16-bit immediate (sign-extended for _i32, zero- for _u32)
};

/// The condition of an s_cmp/s_cmpk, or nullopt for one this analysis does not read (there is none on gfx9: every
/// scalar compare is eq, lg, gt, ge, lt or le).
[[nodiscard]] constexpr std::optional<Cond> cond_of(CmpCond c) noexcept {
  switch (c) {
    case CmpCond::eq: return Cond::eq;
    case CmpCond::lg: return Cond::ne;
    case CmpCond::lt: return Cond::lt;
    case CmpCond::le: return Cond::le;
    case CmpCond::gt: return Cond::gt;
    case CmpCond::ge: return Cond::ge;
    default: return std::nullopt;
  }
}

/// The OpFacts of `in` (OpFacts{} for every other op, and for a form index outside the target's table).
[[nodiscard]] constexpr OpFacts loop_op(const Inst& in) noexcept {
  const asmevo::Opcode o = asmevo::op_of(in);  // the typed op id (this namespace's Op is the class above)
  switch (o) {
    case op::s_add_u32: case op::s_add_i32: case op::v_add_u32: case op::v_add_co_u32: return {loops_detail::Op::add};
    case op::s_sub_u32: case op::s_sub_i32: case op::v_sub_u32: case op::v_sub_co_u32: return {loops_detail::Op::sub};
    case op::v_subrev_u32: case op::v_subrev_co_u32: return {loops_detail::Op::subrev};
    case op::s_addk_i32: return {loops_detail::Op::addk};
    case op::s_mov_b32: case op::v_mov_b32: case op::s_movk_i32: return {loops_detail::Op::mov};
    case op::s_cbranch_scc0: return {loops_detail::Op::cbranch_scc0};
    case op::s_cbranch_scc1: return {loops_detail::Op::cbranch_scc1};
    default: break;
  }
  // s_cmp_<cond>_{i32,u32}, s_cmpk_<cond>_{i32,u32}, s_cmp_{eq,lg}_u64.
  const OpInfo& info = op_info(o);
  const auto cond = cond_of(info.cond);
  if (!cond || !one_of(info.family, Family::s_cmp, Family::s_cmpk)) return {};
  if (one_of(info.type, DataType::i32, DataType::u32))
    return {loops_detail::Op::cmp, *cond, info.type == DataType::i32, info.family == Family::s_cmpk};
  if (info.family == Family::s_cmp && info.type == DataType::u64 && one_of(*cond, Cond::eq, Cond::ne))
    return {loops_detail::Op::cmp64, *cond};
  return {};
}

[[nodiscard]] inline const char* cond_text(Cond c) noexcept {
  constexpr const char* n[] = {"==", "!=", "<", "<=", ">", ">="};
  return n[static_cast<unsigned>(c)];
}

}  // namespace loops_detail

// ---- loops -------------------------------------------------------------------------------------------------------

/// A value a loop reads: a constant, or a 32-bit register (a unit of detail/reg_units.hpp).
struct LoopValue {
  bool is_const = true;
  std::uint32_t value = 0;    ///< when is_const
  unsigned unit = 0;          ///< when not
  [[nodiscard]] std::string text() const {
    return is_const ? std::to_string(static_cast<std::int32_t>(value)) : detail::unit_name(unit);
  }
};

/// A register the loop steps by a fixed amount once per iteration (see the file comment).
struct Induction {
  unsigned unit = 0;          ///< the register (an SGPR or VGPR unit)
  bool vector = false;
  InstId update;              ///< the one instruction of the loop that writes it
  std::uint32_t update_block = Cfg::none;
  LoopValue step;             ///< added per iteration (a subtraction's step is the negated constant when constant)
  bool negate_step = false;   ///< step is a register that is subtracted
  [[nodiscard]] std::string name() const { return detail::unit_name(unit); }
};

/// How often a loop's header runs per entry (see the file comment).
struct TripCount {
  std::size_t iv = 0;         ///< index into Loop::ivs
  InstId compare, branch;
  loops_detail::Cond cond = loops_detail::Cond::eq;
  bool is_signed = false;
  bool iv_on_left = true;     ///< the compare is `iv cond bound` (else `bound cond iv`)
  LoopValue bound;
  bool after_update = false;  ///< the compare reads the IV after this iteration's update
  bool continue_if = true;    ///< the loop goes on while the compare is this value
  bool at_header = false;     ///< tested at the top (in the header), else at the bottom (in the latch)

  /// The formula, e.g. "header runs = first k >= 0 with !(s4 + (k+1)*1 < s5), plus 1" in a short readable form.
  [[nodiscard]] std::string symbolic(const Induction& v) const {
    const std::string iv = v.name() + "₀ + " + (after_update ? "(k+1)" : "k") + "·" + (v.negate_step ? "-" : "") +
                           v.step.text();
    const std::string test = iv_on_left ? iv + " " + loops_detail::cond_text(cond) + " " + bound.text()
                                        : bound.text() + " " + loops_detail::cond_text(cond) + " " + iv;
    return std::string("1 + min k >= 0 with (") + test + ") " + (continue_if ? "false" : "true") +
           (is_signed ? " (signed)" : " (unsigned)");
  }

  /// Header executions for entry value `init` of the IV, step `step` (already negated for a subtraction) and bound
  /// `bound`, in exact 32-bit arithmetic; nullopt if the loop has not exited after `cap` iterations.
  [[nodiscard]] std::optional<std::uint64_t> evaluate(std::uint32_t init, std::uint32_t step, std::uint32_t bound,
                                                      std::uint64_t cap = std::uint64_t{1} << 24) const {
    std::uint32_t x = init;
    for (std::uint64_t k = 0; k < cap; ++k) {
      const std::uint32_t at = after_update ? x + step : x;
      const std::uint32_t a = iv_on_left ? at : bound, b = iv_on_left ? bound : at;
      const bool r = holds(a, b);
      if (r != continue_if) return k + 1;
      x += step;
    }
    return std::nullopt;
  }

 private:
  [[nodiscard]] bool holds(std::uint32_t a, std::uint32_t b) const noexcept {
    using C = loops_detail::Cond;
    const std::int64_t x = is_signed ? std::int64_t{static_cast<std::int32_t>(a)} : std::int64_t{a};
    const std::int64_t y = is_signed ? std::int64_t{static_cast<std::int32_t>(b)} : std::int64_t{b};
    switch (cond) {
      case C::eq: return x == y;
      case C::ne: return x != y;
      case C::lt: return x < y;
      case C::le: return x <= y;
      case C::gt: return x > y;
      case C::ge: return x >= y;
    }
    return false;
  }
};

/// One natural loop.
struct Loop {
  std::uint32_t header = Cfg::none;
  std::vector<std::uint32_t> blocks;   ///< sorted, the header included
  std::vector<std::uint32_t> latches;  ///< blocks with a back edge to the header, sorted
  std::vector<std::pair<std::uint32_t, std::uint32_t>> exits;  ///< (block inside, block outside) edges
  std::optional<std::uint32_t> preheader;  ///< the one block outside that enters it, when that block has no other successor
  std::optional<std::uint32_t> entered_from;  ///< the one block outside that enters it (the preheader, or a guard)
  std::size_t parent = npos;           ///< the innermost loop around this one, index into LoopInfo::loops
  unsigned depth = 1;
  std::vector<Induction> ivs;
  std::optional<TripCount> trip;       ///< when recognised (see the file comment)
  std::string no_trip;                 ///< why not, when not

  static constexpr std::size_t npos = ~std::size_t{0};
  [[nodiscard]] bool contains(std::uint32_t b) const { return std::binary_search(blocks.begin(), blocks.end(), b); }
  [[nodiscard]] const Induction* iv_of(unsigned unit) const {
    for (const auto& v : ivs)
      if (v.unit == unit) return &v;
    return nullptr;
  }
};

/// The loops of one kernel, outer loops before the loops they hold.
struct LoopInfo {
  Dominators dom;
  std::vector<Loop> loops;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> irreducible;  ///< retreating edges that are not back edges
  std::vector<std::size_t> innermost;  ///< per block: the innermost loop holding it, or Loop::npos
};

namespace loops_detail {

/// The 32-bit register unit of operand `o`, or -1 when it is not one register of one dword.
[[nodiscard]] inline int unit_of(const Operand& o) {
  if (!o.is_reg() || o.reg.dwords != 1 || o.mods != 0) return -1;
  const auto u = detail::units_of(o.reg);
  return u.size() == 1 ? static_cast<int>(u[0]) : -1;
}

/// Operand k's value as a LoopValue (a constant without modifiers, or one register), or nullopt.
[[nodiscard]] inline std::optional<LoopValue> value_of(const Operand& o) {
  if (o.kind == Operand::Kind::imm && o.mods == 0) return LoopValue{true, static_cast<std::uint32_t>(o.imm), 0};
  if (const int u = unit_of(o); u >= 0) return LoopValue{false, 0, static_cast<unsigned>(u)};
  return std::nullopt;
}

/// The explicit operands of `in` by role: its one register def, and its sources in order.
struct Shape {
  int def = -1;
  std::vector<std::size_t> srcs;
};
[[nodiscard]] inline Shape shape_of(const Inst& in) {
  Shape s;
  const auto infos = isa::operands(isa::forms(in.target)[in.form]);
  for (std::size_t k = 0; k < infos.size() && k < in.ops.size(); ++k) {
    if (infos[k].role == isa::Role::def) {
      // v_add_co_u32's carry-out (VCC or an SGPR pair) is a second def; the value def is the first.
      if (s.def < 0) s.def = unit_of(in.ops[k]) >= 0 ? static_cast<int>(k) : -2;
    } else if (infos[k].role == isa::Role::use && in.ops[k].kind != Operand::Kind::absent) {
      s.srcs.push_back(k);
    }
  }
  return s;
}

}  // namespace loops_detail

/// The loops of the kernel entered at block `entry` (see the file comment).
[[nodiscard]] ASMEVO_OUTLINE LoopInfo find_loops(const Program& p, const Cfg& g, std::uint32_t entry)
#if ASMEVO_BODY_ANALYSIS
{
  using namespace loops_detail;
  LoopInfo li;
  li.dom = dominators(g, entry);
  const auto& d = li.dom;
  const auto nb = static_cast<std::uint32_t>(g.blocks.size());
  li.innermost.assign(nb, Loop::npos);
  // Back edges grouped by header, headers in reverse post-order (outer headers come first).
  std::vector<std::uint32_t> headers;
  std::vector<std::vector<std::uint32_t>> latches(nb);
  for (std::uint32_t b = 0; b < nb; ++b) {
    if (!d.reachable(b)) continue;
    for (const auto s : g.succ[b]) {
      if (!d.reachable(s) || d.rpo_index[s] > d.rpo_index[b]) continue;  // forward edge
      if (d.dominates(s, b)) {
        if (latches[s].empty()) headers.push_back(s);
        latches[s].push_back(b);
      } else {
        li.irreducible.emplace_back(b, s);
      }
    }
  }
  std::sort(headers.begin(), headers.end(), [&](auto a, auto b) { return d.rpo_index[a] < d.rpo_index[b]; });
  for (const auto h : headers) {
    Loop l;
    l.header = h;
    l.latches = latches[h];
    std::sort(l.latches.begin(), l.latches.end());
    std::vector<std::uint8_t> in(nb, 0);
    in[h] = 1;
    std::vector<std::uint32_t> work;
    for (const auto b : l.latches)
      if (!in[b]) in[b] = 1, work.push_back(b);
    while (!work.empty()) {
      const auto b = work.back();
      work.pop_back();
      for (const auto q : g.pred[b])
        if (d.reachable(q) && !in[q]) in[q] = 1, work.push_back(q);
    }
    for (std::uint32_t b = 0; b < nb; ++b)
      if (in[b]) l.blocks.push_back(b);
    for (const auto b : l.blocks)
      for (const auto s : g.succ[b])
        if (!in[s]) l.exits.emplace_back(b, s);
    std::vector<std::uint32_t> outside;
    for (const auto q : g.pred[h])
      if (!in[q] && d.reachable(q)) outside.push_back(q);
    if (outside.size() == 1) l.entered_from = outside[0];
    if (outside.size() == 1 && g.succ[outside[0]].size() == 1) l.preheader = outside[0];
    li.loops.push_back(std::move(l));
  }
  // Nesting: headers come outer first, so the last earlier loop that holds a header is its parent.
  for (std::size_t i = 0; i < li.loops.size(); ++i) {
    for (std::size_t j = i; j-- > 0;)
      if (li.loops[j].contains(li.loops[i].header)) {
        li.loops[i].parent = j;
        li.loops[i].depth = li.loops[j].depth + 1;
        break;
      }
    for (const auto b : li.loops[i].blocks) li.innermost[b] = i;  // later (inner) loops overwrite
  }

  // Induction variables and trip counts.
  std::vector<unsigned> rd, wr;
  for (std::size_t li_i = 0; li_i < li.loops.size(); ++li_i) {
    Loop& l = li.loops[li_i];
    // Writes per unit inside the loop (inner loops included), and the writer when there is one.
    std::vector<unsigned> writes(detail::num_units, 0);
    std::vector<std::size_t> writer(detail::num_units, 0);
    for (const auto b : l.blocks)
      for (const std::size_t i : g.blocks[b].insts) {
        rd.clear(), wr.clear();
        detail::unit_rw(p.items[i].inst, rd, wr);
        for (const unsigned u : wr)
          if (u < detail::num_units) ++writes[u], writer[u] = i;
      }
    auto invariant = [&](const LoopValue& v) { return v.is_const || writes[v.unit] == 0; };
    auto once_per_iteration = [&](std::uint32_t b) {
      if (li.innermost[b] != li_i) return false;
      return std::all_of(l.latches.begin(), l.latches.end(), [&](auto lt) { return d.dominates(b, lt); });
    };
    for (unsigned u = 0; u < detail::num_units; ++u) {
      if (writes[u] != 1) continue;
      const std::size_t i = writer[u];
      const Inst& in = p.items[i].inst;
      const OpFacts f = loops_detail::loop_op(in);
      if (f.op != Op::add && f.op != Op::sub && f.op != Op::subrev && f.op != Op::addk) continue;
      const Shape s = shape_of(in);
      if (s.def < 0 || unit_of(in.ops[static_cast<std::size_t>(s.def)]) != static_cast<int>(u)) continue;
      const auto b = g.block_of[i];
      if (!once_per_iteration(b)) continue;
      Induction v;
      v.unit = u;
      v.vector = u >= detail::unit_v0;
      v.update = in.id;
      v.update_block = b;
      std::optional<LoopValue> step;
      if (f.op == Op::addk) {
        // s_addk_i32 sdst, simm16: the register is both def and source; the constant is sign-extended.
        for (const std::size_t k : s.srcs)
          if (in.ops[k].kind == Operand::Kind::imm)
            step = LoopValue{true, static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(in.ops[k].imm))), 0};
      } else if (s.srcs.size() >= 2) {
        const auto a = value_of(in.ops[s.srcs[0]]), c = value_of(in.ops[s.srcs[1]]);
        if (!a || !c) continue;
        const bool a_is = !a->is_const && a->unit == u, c_is = !c->is_const && c->unit == u;
        // add: either side; sub: d = d - step; subrev: d = step' - ... i.e. d = src1 - src0, so d = d - src0.
        if (f.op == Op::add && a_is && invariant(*c)) step = c;
        else if (f.op == Op::add && c_is && invariant(*a)) step = a;
        else if (f.op == Op::sub && a_is && invariant(*c)) step = c, v.negate_step = true;
        else if (f.op == Op::subrev && c_is && invariant(*a)) step = a, v.negate_step = true;
      }
      if (!step) continue;
      if (v.negate_step && step->is_const) step->value = 0u - step->value, v.negate_step = false;
      v.step = *step;
      l.ivs.push_back(v);
    }

    // Trip count: one exit, an scc branch on a compare of an IV in the header or the only latch.
    if (l.exits.size() != 1) {
      l.no_trip = std::to_string(l.exits.size()) + " exits";
      continue;
    }
    const auto [xb, xs] = l.exits[0];
    if (xb != l.header && !(l.latches.size() == 1 && xb == l.latches[0])) {
      l.no_trip = "the exit is neither in the header nor in the only latch";
      continue;
    }
    const auto& insts = g.blocks[xb].insts;
    if (insts.empty()) {
      l.no_trip = "the exiting block is empty";
      continue;
    }
    const Inst& br = p.items[insts.back()].inst;
    const OpFacts bf = loops_detail::loop_op(br);
    if (bf.op != Op::cbranch_scc0 && bf.op != Op::cbranch_scc1) {
      l.no_trip = "the exit is not decided by s_cbranch_scc0/scc1";
      continue;
    }
    // The instruction that last wrote SCC before the branch, in the exiting block.
    std::optional<std::size_t> cmp_at;
    for (std::size_t k = insts.size() - 1; k-- > 0;) {
      rd.clear(), wr.clear();
      detail::unit_rw(p.items[insts[k]].inst, rd, wr);
      if (std::find(wr.begin(), wr.end(), detail::unit_scc) != wr.end()) {
        cmp_at = k;
        break;
      }
    }
    if (!cmp_at || loops_detail::loop_op(p.items[insts[*cmp_at]].inst).op != Op::cmp) {
      l.no_trip = "SCC at the exit branch is not set by an s_cmp in the exiting block";
      continue;
    }
    const Inst& cmp = p.items[insts[*cmp_at]].inst;
    const OpFacts cf = loops_detail::loop_op(cmp);
    std::vector<LoopValue> side;
    for (std::size_t k = 0; k < cmp.ops.size(); ++k) {
      if (cmp.ops[k].kind == Operand::Kind::absent) continue;
      auto v = value_of(cmp.ops[k]);
      if (!v) break;
      side.push_back(*v);
    }
    if (side.size() != 2) {
      l.no_trip = "the compare's operands are not two 32-bit values";
      continue;
    }
    TripCount tc;
    tc.compare = cmp.id;
    tc.branch = br.id;
    tc.cond = cf.cond;
    tc.is_signed = cf.is_signed;
    const Induction* iv = nullptr;
    for (std::size_t v = 0; v < l.ivs.size(); ++v) {
      const auto& x = l.ivs[v];
      if (x.vector) continue;
      if (!side[0].is_const && side[0].unit == x.unit && invariant(side[1])) iv = &x, tc.iv_on_left = true, tc.iv = v;
      else if (!side[1].is_const && side[1].unit == x.unit && invariant(side[0])) iv = &x, tc.iv_on_left = false, tc.iv = v;
      if (iv) break;
    }
    if (!iv) {
      l.no_trip = "the exit compare reads no scalar induction variable against an invariant";
      continue;
    }
    tc.bound = tc.iv_on_left ? side[1] : side[0];
    // After the update when the update comes first in the exiting block, or sits in a block that dominates it.
    if (iv->update_block == xb) {
      tc.after_update = false;
      for (std::size_t k = 0; k < *cmp_at; ++k)
        if (p.items[insts[k]].inst.id == iv->update) tc.after_update = true;
    } else {
      tc.after_update = d.dominates(iv->update_block, xb);
    }
    // The branch goes to the header (at the bottom) or out of the loop (at the top): which SCC value continues.
    const bool taken_scc = bf.op == Op::cbranch_scc1;
    const auto taken = g.blocks[xb].target ? g.block_named(*g.blocks[xb].target) : std::nullopt;
    const bool taken_exits = taken && *taken == xs;
    tc.continue_if = taken_exits ? !taken_scc : taken_scc;
    tc.at_header = xb == l.header;
    l.trip = tc;
  }
  return li;
}
#else
;
#endif

}  // namespace asmevo::analysis
