// unroll: unrolls a counted single-block loop by a factor k, handling the iterations that do not fill a group of k
// with the loop's own code, so that the loads of k iterations can be in flight together (`batch-loads` then hoists
// them above the waits of the earlier copies).
//
// Which loops (analysis/loops.hpp): a natural loop of one block, tested at the bottom by s_cbranch_scc0/scc1 back to
// its own label on an s_cmp of a scalar induction variable with a constant step against a constant or an invariant
// SGPR; nothing between the compare and the branch touches SCC; the rest of the body writes SCC before it reads it;
// the loop is entered only by falling into it from the block before it; control leaves it by falling through into a
// block that has instructions. Argument `factor` (2..16, default 4); argument `loop` names one loop by its header
// label (default: every such loop of the kernels the pass edits).
//
// The new code, inserted before the loop (Rewriter::insert_code), so that the loop's entry falls into it:
//
//     U:  for m in 1..k-1:  tmp = iv + (m - 1 + a)*step  (a = 1 when the compare reads the IV after its update)
//                           s_cmp on tmp as the loop's compare does on iv; s_cbranch_scc<exit> L
//         body copy 1 ... body copy k-1   (no compare or branch; registers local to an iteration renamed)
//         body copy k                     (K0's names; its compare, and its branch now to U)
//         s_branch X
//     L:  the loop as it was (it runs the last iterations that do not make a group of k)
//     X:  the loop's exit
//
// At U iteration 0 of a group is known to run (the loop's entry, or copy k's compare said go on). Iteration m of the
// group runs exactly when the loop's compares at the ends of iterations 0..m-1 say go on; those compares read
// iv + (j + a)*step, wrapped to 32 bits as the loop's own update wraps, so testing them all before the group with the
// loop's own compare instruction decides what K0 decides, and a group that would not complete runs in L, K0's code.
// Each copy runs the same instructions on the same values as the iteration it stands for; a copy's locals (registers
// whose first access in the body is a whole write) live in fresh registers in copies 1..k-1, and copy k, the only one
// control leaves from, uses K0's names, so what the loop leaves behind is what K0 leaves.
//
// VGPRs are renamed only where no lane can see another's stale value: the body writes no EXEC, has no DPP, DS, SDWA or
// convergent (cross-lane: permlane, readlane ...) instruction, and no instruction that reads a renamed VGPR into an
// SGPR (v_readlane, v_readfirstlane, compares). Fresh registers are the lowest the program never names (the rebuild
// raises the descriptor's counts when needed; the cost model charges the occupancy that may cost), and none is taken
// when the kernel indexes registers through M0. `tmp` is one such SGPR. The induction variable is an SGPR.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/passes/findings.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/rewriter.hpp"

namespace asmevo::passes {

namespace unroll_detail {

namespace ad = analysis::detail;

[[nodiscard]] inline const isa::FormInfo& form(const Inst& in) { return isa::forms(in.target)[in.form]; }

/// Every register unit the program names (read or written), so that fresh registers collide with nothing.
[[nodiscard]] inline std::vector<std::uint8_t> named_units(const Program& p) {
  std::vector<std::uint8_t> used(ad::num_units, 0);
  for (const auto& it : p.items) {
    if (it.kind != Item::Kind::inst) continue;
    std::vector<unsigned> rd, wr;
    ad::unit_rw(it.inst, rd, wr);
    for (const unsigned u : rd) if (u < ad::num_units) used[u] = 1;
    for (const unsigned u : wr) if (u < ad::num_units) used[u] = 1;
  }
  return used;
}

/// Hands out registers the program does not name.
struct FreshRegs {
  std::vector<std::uint8_t> used;
  unsigned sgpr_limit = 102, vgpr_limit = 256;  ///< s0..s101 are addressable on gfx9 (VCC, XNACK_MASK above them)
  /// A free range of `dwords` registers of `file`, aligned to `align` dwords, or nullopt.
  std::optional<Reg> take(RegFile file, unsigned dwords, unsigned align) {
    const unsigned base = file == RegFile::sgpr ? 0 : ad::unit_v0;
    const unsigned limit = file == RegFile::sgpr ? sgpr_limit : vgpr_limit;
    for (unsigned i = 0; i + dwords <= limit; i += std::max(1u, align)) {
      bool free = true;
      for (unsigned k = 0; k < dwords && free; ++k) free = !used[base + i + k];
      if (!free) continue;
      for (unsigned k = 0; k < dwords; ++k) used[base + i + k] = 1;
      return Reg{file, static_cast<std::uint16_t>(i), static_cast<std::uint16_t>(dwords)};
    }
    return std::nullopt;
  }
};

/// Dword alignment a register tuple of `r`'s file and width needs (gfx90a+: 64-bit VGPR tuples even;
/// SGPR tuples: 2 for 64-bit, 4 for 128-bit and wider).
[[nodiscard]] inline unsigned alignment(const Reg& r) {
  if (r.dwords < 2) return 1;
  if (r.file == RegFile::sgpr) return r.dwords >= 4 ? 4 : 2;
  return 2;  // every target asmevo supports is gfx90a or later
}

}  // namespace unroll_detail

struct Unroll {
  static constexpr std::string_view name = "unroll";
  static constexpr std::string_view summary =
      "unroll counted single-block loops by `factor` (default 4), the remainder run by the loop's own code; locals "
      "renamed so the copies' loads can overlap (follow with batch-loads)";
  static constexpr bool idempotent = false;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    auto factor = c.uint_arg("factor", 4);
    if (!factor) return unexpected(std::move(factor).error());
    if (*factor < 2 || *factor > 16) return fail(DiagCode::usage, "argument 'factor' must be 2..16, got " + std::to_string(*factor));
    const auto want = c.args.find("loop");
    // Loops are found once; each unrolled one adds blocks, so the others are found again by their header label.
    std::vector<std::string> headers;
    {
      const Program& p = r.program();
      const analysis::Cfg g = analysis::build_cfg(p);
      auto entries = kernel_entries(p, g, c);
      if (!entries) return unexpected(std::move(entries).error());
      for (const auto e : *entries) {
        const auto li = analysis::find_loops(p, g, e);
        for (const auto& l : li.loops)
          if (l.blocks.size() == 1 && !g.blocks[l.header].labels.empty())
            headers.push_back(g.blocks[l.header].labels.front());
      }
    }
    if (want != c.args.end() && std::find(headers.begin(), headers.end(), want->second) == headers.end())
      return fail(DiagCode::usage, "argument 'loop': no single-block loop has header label '" + want->second + "'",
                  {}, {}, "the header label is the label the loop's back edge branches to");
    for (const auto& h : headers) {
      if (want != c.args.end() && h != want->second) continue;
      std::string why;
      if (auto ok = unroll_one(r, c, h, static_cast<unsigned>(*factor), why); !ok) return unexpected(std::move(ok).error());
      else if (*ok) st.notes.push_back("unrolled the loop at " + h + " by " + std::to_string(*factor));
      else st.notes.push_back("left the loop at " + h + ": " + why);
    }
    return st;
  }

 private:
  /// Unrolls the loop whose header is labelled `h`; false (and `why`) when it is not one this pass handles.
  static Expected<bool> unroll_one(Rewriter& r, const PassContext& c, const std::string& h, unsigned k, std::string& why) {
    namespace ad = unroll_detail::ad;
    using loops_op = analysis::loops_detail::Op;
    const Program& p = r.program();
    const Target t = p.target;
    const analysis::Cfg g = analysis::build_cfg(p);
    auto entries = kernel_entries(p, g, c);
    if (!entries) return unexpected(std::move(entries).error());
    const auto hb = g.block_named(h);
    if (!hb) return why = "its label is gone", false;
    const analysis::Loop* loop = nullptr;
    analysis::LoopInfo li;
    for (const auto e : *entries) {
      li = analysis::find_loops(p, g, e);
      for (const auto& l : li.loops)
        if (l.header == *hb) loop = &l;
      if (loop) break;
    }
    if (!loop) return why = "not a loop of an edited kernel", false;
    const auto live = editable_blocks(p, g, *entries, c);
    if (!live[*hb]) return why = "its block is not editable (not exercised by the launch, or not reachable)", false;
    if (loop->blocks.size() != 1) return why = "it has more than one block", false;
    if (!loop->trip) return why = "no trip count: " + loop->no_trip, false;
    const analysis::TripCount& trip = *loop->trip;
    const analysis::Induction& iv = loop->ivs[trip.iv];
    if (iv.vector || iv.unit >= 102) return why = "its induction variable is not an SGPR (s0..s101)", false;
    if (!iv.step.is_const) return why = "its step is a register, not a constant", false;
    const auto& blk = g.blocks[*hb];
    const std::size_t n = blk.insts.size();
    if (n < 3) return why = "its body is empty", false;
    const Inst& br = p.items[blk.insts[n - 1]].inst;
    if (br.id != trip.branch || !blk.target || *blk.target != h || !blk.falls_through)
      return why = "its last instruction is not the conditional back edge that tests the trip count", false;
    const auto bop = analysis::loops_detail::op_of(br).op;
    if (bop != loops_op::cbranch_scc0 && bop != loops_op::cbranch_scc1) return why = "not an SCC branch", false;
    // The compare, and nothing touching SCC between it and the branch.
    std::size_t cmp_k = n;
    for (std::size_t q = 0; q + 1 < n; ++q)
      if (p.items[blk.insts[q]].inst.id == trip.compare) cmp_k = q;
    if (cmp_k == n) return why = "the compare is not in the loop's block", false;
    auto touches_scc = [&](const Inst& in, bool& reads, bool& writes) {
      std::vector<unsigned> rd, wr;
      ad::unit_rw(in, rd, wr);
      reads = std::find(rd.begin(), rd.end(), ad::unit_scc) != rd.end();
      writes = std::find(wr.begin(), wr.end(), ad::unit_scc) != wr.end();
    };
    for (std::size_t q = cmp_k + 1; q + 1 < n; ++q) {
      bool rd = false, wr = false;
      touches_scc(p.items[blk.insts[q]].inst, rd, wr);
      if (rd || wr) return why = "an instruction between the compare and the branch touches SCC", false;
    }
    for (std::size_t q = 0; q + 1 < n; ++q) {
      if (q == cmp_k) continue;
      bool rd = false, wr = false;
      touches_scc(p.items[blk.insts[q]].inst, rd, wr);
      if (rd) return why = "the body reads SCC before writing it", false;
      if (wr) break;
    }
    // Entered only by falling in from the block before it.
    for (const auto pb : g.pred[*hb]) {
      if (pb == *hb) continue;
      if (pb + 1 != *hb || !g.blocks[pb].falls_through || (g.blocks[pb].target && *g.blocks[pb].target == h))
        return why = "it is entered by a branch, not by falling into it", false;
    }
    if (*hb + 1 >= g.blocks.size() || g.blocks[*hb + 1].insts.empty())
      return why = "the code after it has no instruction to branch to", false;

    // M0-relative register access (s_movrel*, v_movrel*, GPR indexing) reaches registers the program never names:
    // no register is known to be free then.
    for (const auto& it : p.items)
      if (it.kind == Item::Kind::inst) {
        const auto& f = unroll_detail::form(it.inst);
        if ((f.has(isa::prop::salu) || f.has(isa::prop::valu)) && (f.implicit_uses & isa::reg::m0))
          return why = "the kernel indexes registers through M0: no register is known to be free", false;
      }
    // Whether the compare reads the IV after this iteration's update (the update comes first in the block). The
    // update writes SCC and nothing between the compare and the branch may, so in practice it always does.
    bool after_update = false;
    for (std::size_t q = 0; q < cmp_k; ++q)
      if (p.items[blk.insts[q]].inst.id == iv.update) after_update = true;
    // The body (without compare and branch), its locals and what may be renamed.
    std::vector<std::size_t> body;
    for (std::size_t q = 0; q + 1 < n; ++q)
      if (q != cmp_k) body.push_back(blk.insts[q]);
    bool vgpr_rename = true;
    std::set<unsigned> seen, local, sgpr_readers;
    for (const auto i : body) {
      const Inst& in = p.items[i].inst;
      const auto& f = unroll_detail::form(in);
      std::vector<unsigned> rd, wr;
      ad::unit_rw(in, rd, wr);
      if (f.has(isa::prop::dpp) || f.has(isa::prop::sdwa) || f.has(isa::prop::ds) || f.has(isa::prop::convergent))
        vgpr_rename = false;
      for (const unsigned u : wr)
        if (u == ad::unit_exec || u == ad::unit_exec + 1) vgpr_rename = false;
      const bool writes_sgpr = std::any_of(wr.begin(), wr.end(), [](unsigned u) { return u < ad::unit_v0; });
      for (const unsigned u : rd) {
        if (writes_sgpr && u >= ad::unit_v0) sgpr_readers.insert(u);
        seen.insert(u);
      }
      for (const unsigned u : wr)
        if (seen.insert(u).second) local.insert(u);
    }
    // Rename whole operand registers whose every unit is local and that the body always names with the same tuple.
    std::map<unsigned, Reg> shape;  // unit -> the tuple that names it
    std::set<unsigned> mixed;
    for (const auto i : body)
      for (const Operand& o : p.items[i].inst.ops) {
        if (!o.is_reg() || (o.reg.file != RegFile::sgpr && o.reg.file != RegFile::vgpr)) continue;
        for (const unsigned u : ad::units_of(o.reg)) {
          auto [it, fresh] = shape.emplace(u, o.reg);
          if (!fresh && !(it->second == o.reg)) mixed.insert(u);
        }
      }
    std::vector<Reg> renamed;  // tuples to rename
    for (const auto& [u, reg] : shape) {
      if (std::find(renamed.begin(), renamed.end(), reg) != renamed.end()) continue;
      bool ok = true;
      for (const unsigned x : ad::units_of(reg))
        ok = ok && local.contains(x) && !mixed.contains(x) && !sgpr_readers.contains(x) &&
             x != iv.unit && (reg.file == RegFile::sgpr || vgpr_rename);
      if (ok) renamed.push_back(reg);
    }

    unroll_detail::FreshRegs fresh{unroll_detail::named_units(p)};
    const auto tmp = fresh.take(RegFile::sgpr, 1, 1);
    if (!tmp) return why = "no free SGPR for the trip test", false;
    std::vector<std::map<std::pair<std::uint16_t, RegFile>, Reg>> names(k - 1);
    for (unsigned m = 0; m + 1 < k; ++m)
      for (const Reg& reg : renamed) {
        const auto to = fresh.take(reg.file, reg.dwords, unroll_detail::alignment(reg));
        if (!to) return why = "not enough free registers to rename the locals of " + std::to_string(k - 1) + " copies", false;
        names[m][{reg.index, reg.file}] = *to;
      }

    // Build the region.
    const std::string hdr = h;
    const std::string u_label = r.fresh_label(".Lasmevo_unroll_" + std::to_string(k) + "_" + [&] {
      std::string s;
      for (const char ch : h) s += (std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_');
      return s;
    }());
    const InstId loop_first = p.items[blk.insts.front()].inst.id;
    const auto& exit_blk = g.blocks[*hb + 1];
    const InstId exit_first = p.items[exit_blk.insts.front()].inst.id;
    const std::string x_label = exit_blk.labels.empty() ? r.fresh_label(u_label + "_exit") : exit_blk.labels.front();
    const Inst cmp = p.items[blk.insts[cmp_k]].inst;
    auto parse = [&](const std::string& text) -> Expected<Inst> { return parse_inst(text, t); };
    std::vector<Item> code;
    auto push_label = [&](const std::string& l) {
      Item it;
      it.kind = Item::Kind::label;
      it.name = l;
      code.push_back(std::move(it));
    };
    auto push = [&](Inst in) {
      Item it;
      it.kind = Item::Kind::inst;
      in.comment.clear();
      it.inst = std::move(in);
      code.push_back(std::move(it));
    };
    push_label(u_label);
    const bool go_on_scc1 = (bop == loops_op::cbranch_scc1);  // K0 branches back when SCC is 1
    const std::string exit_branch = go_on_scc1 ? "s_cbranch_scc0 " : "s_cbranch_scc1 ";
    const std::string back_branch = go_on_scc1 ? "s_cbranch_scc1 " : "s_cbranch_scc0 ";
    const std::uint32_t step = iv.step.value;
    const std::string iv_name = ad::unit_name(iv.unit), tmp_name = "s" + std::to_string(tmp->index);
    for (unsigned m = 1; m < k; ++m) {
      const std::uint32_t add = static_cast<std::uint32_t>(m - 1 + (after_update ? 1 : 0)) * step;
      Inst test = cmp;
      if (add != 0) {
        auto a = parse("s_add_u32 " + tmp_name + ", " + iv_name + ", " + std::to_string(static_cast<std::int64_t>(static_cast<std::int32_t>(add))));
        if (!a) return unexpected(std::move(a).error());
        push(*a);
        unsigned replaced = 0;
        for (auto& o : test.ops)
          if (o.is_reg() && ad::units_of(o.reg) == std::vector<unsigned>{iv.unit}) o.reg = *tmp, ++replaced;
        if (replaced != 1) return why = "the compare does not read the induction variable as one operand", false;
      }
      push(test);
      auto b = parse(exit_branch + hdr);
      if (!b) return unexpected(std::move(b).error());
      push(*b);
    }
    for (unsigned m = 0; m < k; ++m) {
      // Copies 1..k-1 drop the compare; copy k keeps it where it was (it may read the IV before its update).
      for (std::size_t q = 0; q + 1 < n; ++q) {
        if (q == cmp_k && m + 1 < k) continue;
        Inst in = p.items[blk.insts[q]].inst;
        if (m + 1 < k)
          for (auto& o : in.ops)
            if (o.is_reg())
              if (const auto it = names[m].find({o.reg.index, o.reg.file}); it != names[m].end() && it->second.dwords == o.reg.dwords)
                o.reg = it->second;
        push(std::move(in));
      }
      if (m + 1 == k) {
        auto b = parse(back_branch + u_label);
        if (!b) return unexpected(std::move(b).error());
        push(*b);
        auto x = parse("s_branch " + x_label);
        if (!x) return unexpected(std::move(x).error());
        push(*x);
      }
    }
    const std::size_t mark = r.log().size();
    const auto base = detail::waitcnt_keys(p, g, *entries);
    const auto base_h = detail::hazard_keys(p, c);
    if (exit_blk.labels.empty()) {
      Item lab;
      lab.kind = Item::Kind::label;
      lab.name = x_label;
      if (auto e = r.insert_code(exit_first, {lab}, std::string(name)); !e)
        return why = "the Rewriter refused a label at the loop's exit: " + e.error().message, false;
    }
    if (auto e = r.insert_code(loop_first, std::move(code), std::string(name)); !e) {
      r.undo(r.log().size() - mark);
      return why = "the Rewriter refused the unrolled code: " + e.error().message, false;
    }
    const Program& q = r.program();
    const analysis::Cfg g1 = analysis::build_cfg(q);
    auto e1 = kernel_entries(q, g1, c);
    if (!e1 || !detail::no_new(base, detail::waitcnt_keys(q, g1, *e1)) || !detail::no_new(base_h, detail::hazard_keys(q, c))) {
      r.undo(r.log().size() - mark);
      return why = "the unrolled code would add a waitcnt or hazard finding", false;
    }
    return true;
  }
};

}  // namespace asmevo::passes
