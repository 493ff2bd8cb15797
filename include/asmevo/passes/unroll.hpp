// unroll: unrolls a counted single-block loop by a factor k, handling the iterations that do not fill a group of k
// with the loop's own code, so that the loads of k iterations can be in flight together (`batch-loads` then hoists
// them above the waits of the earlier copies).
//
// Which loops: the counted single-block loops of passes/loop_shape.hpp. Argument `factor` (2..16, default 4);
// argument `loop` names one loop by its header label (default: every such loop of the kernels the pass edits).
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
// At U iteration 0 of a group is known to run (the loop's entry, or copy k's compare said go on); the trip tests
// (loop_shape::trip_tests) decide with the loop's own compare what K0 decides for iterations 1..k-1, and a group that
// would not complete runs in L, K0's code.
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
#include "asmevo/passes/loop_shape.hpp"
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
    // Loops are found once; each unrolled one adds blocks, so the others are found again by their header label.
    auto headers = loop_shape::selected_headers(r.program(), c);
    if (!headers) return unexpected(std::move(headers).error());
    for (const auto& h : *headers) {
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
    const Program& p = r.program();
    const analysis::Cfg g = analysis::build_cfg(p);
    auto entries = kernel_entries(p, g, c);
    if (!entries) return unexpected(std::move(entries).error());
    auto found = loop_shape::find(p, g, c, h, why);
    if (!found) return unexpected(std::move(found).error());
    if (!*found) return false;
    const loop_shape::CountedLoop& l = **found;
    const std::size_t n = g.blocks[l.block].insts.size();
    const auto& blk = g.blocks[l.block];
    const std::size_t cmp_k = l.cmp_k;
    const std::vector<std::size_t>& body = l.body;
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
             x != l.iv_unit && (reg.file == RegFile::sgpr || vgpr_rename);
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
    const std::string u_label = r.fresh_label(loop_shape::stem(".Lasmevo_unroll_" + std::to_string(k) + "_", h));
    const auto& exit_blk = g.blocks[l.exit_block];
    const InstId exit_first = p.items[exit_blk.insts.front()].inst.id;
    const std::string x_label = exit_blk.labels.empty() ? r.fresh_label(u_label + "_exit") : exit_blk.labels.front();
    loop_shape::Region rg{p.target, {}};
    rg.label(u_label);
    auto tests = loop_shape::trip_tests(rg, l, k, *tmp, h, why);
    if (!tests) return unexpected(std::move(tests).error());
    if (!*tests) return false;
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
        rg.inst(std::move(in));
      }
      if (m + 1 == k) {
        if (auto e = rg.text(loop_shape::branch_on(l, false) + u_label); !e) return unexpected(std::move(e).error());
        if (auto e = rg.text("s_branch " + x_label); !e) return unexpected(std::move(e).error());
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
    if (auto e = r.insert_code(l.loop_first, std::move(rg.items), std::string(name)); !e) {
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
