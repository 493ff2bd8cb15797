// dce: drops side-effect-free ALU instructions whose results no path reads, to a fixed point
// (an instruction that only fed dead ones dies too). Idempotent; never adds instructions.
//
// Liveness is per lane where it matters (rules.hpp's lane_live_out across blocks): a VGPR write kills an earlier
// write only when it is a full-width VALU write under the same exec (no exec write between them), since an
// exec-masked write keeps the old value in the lanes it does not write.
//
// Side-effect free: a SALU or VALU instruction (MFMA included) that LLVM does not mark hasSideEffects, that is not a
// memory operation, branch, call or terminator, and that writes at least one register. Its writes (explicit and
// implicit: SCC, VCC, EXEC, M0) must all be dead right after it.
//
// A block that ends in s_setpc_b64 (a return, or a jump to code the program does not show) keeps every register
// live. Removing an instruction shortens the distance between the ones around it, which can break a hazard's wait states
// (a dead v_add between an MFMA and its reader may have been the padding). Each round's removals are kept only if the
// hazard checker finds nothing new; otherwise the round retries one instruction at a time and keeps those that pass.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/passes/nop_min.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/rules.hpp"

namespace asmevo::passes {

namespace detail {

/// See the file comment.
[[nodiscard]] inline bool side_effect_free(const Inst& in) {
  const auto& f = isa::forms(in.target)[in.form];
  using namespace isa::prop;
  if (!(f.has(salu) || f.has(valu))) return false;
  if (f.has(side_effects) || f.has(load) || f.has(store) || f.has(atomic) || f.has(branch) || f.has(terminator) ||
      f.has(isa::prop::no_fallthrough) || f.has(call) || f.has(smem) || f.has(vmem) || f.has(flat) || f.has(ds) ||
      f.has(vm_cnt) || f.has(lgkm_cnt) || f.has(exp_cnt))
    return false;
  // Mode and state changers LLVM may not mark: keep them (hardware register writes, the VGPR indexing mode, wave
  // priority, halt, kill and vskip), and the waits and barriers, which are there for their timing and ordering.
  const Opcode o = op_of(in);
  if (one_of(family_of(o), Family::s_setreg, Family::s_gpr_idx, Family::s_waitcnt) ||
      one_of(o, op::s_setprio, op::s_sethalt, op::s_setkill, op::s_setvskip, op::s_nop, op::s_barrier))
    return false;
  return true;
}

}  // namespace detail

/// See the file comment.
struct Dce {
  static constexpr std::string_view name = "dce";
  static constexpr std::string_view summary = "drop side-effect-free ALU instructions whose results are never read";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    const Program& p = r.program();
    for (int round = 0; round < 64; ++round) {
      std::vector<InstId> dead;
      {
        const analysis::Cfg g = analysis::build_cfg(p);
        auto entries = kernel_entries(p, g, c);
        if (!entries) return unexpected(std::move(entries).error());
        const auto reach = editable_blocks(p, g, *entries, c);
        const auto live = detail::lane_live_out(p, g);
        std::vector<unsigned> rd, wr;
        for (std::uint32_t b = 0; b < g.blocks.size(); ++b) {
          if (!reach[b]) continue;
          const auto& insts = g.blocks[b].insts;
          analysis::UnitSet now = live[b];
          // A return (s_setpc_b64 of a device function) hands every register to code this program does not show.
          if (!insts.empty() && op_of(p.target, p.items[insts.back()].inst.form) == op::s_setpc_b64) now.set();
          // Vector registers a full-width VALU write below killed while exec stayed the same: above the next exec
          // write (walking up) the lanes outside the new exec still carry the old value, so they come back.
          analysis::UnitSet revive;
          for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
            const Inst& in = p.items[*it].inst;
            rd.clear(), wr.clear();
            analysis::detail::unit_rw(in, rd, wr);
            if (detail::side_effect_free(in)) {
              bool any_live = wr.empty();
              for (const unsigned u : wr) any_live = any_live || u >= analysis::detail::num_units || now.test(u);
              if (!any_live) {
                dead.push_back(in.id);
                continue;  // removed: its reads do not keep anything alive
              }
            }
            const bool full_vector_write = isa::forms(in.target)[in.form].has(isa::prop::valu) &&
                                           !analysis::detail::partial_def(in);
            bool exec_write = false;
            for (const unsigned u : wr) {
              if (u >= analysis::detail::num_units) continue;
              exec_write = exec_write || u == analysis::detail::unit_exec || u == analysis::detail::unit_exec + 1;
              if (u < analysis::detail::unit_v0) {
                now.reset(u);
              } else if (full_vector_write) {
                if (now.test(u)) revive.set(u);
                now.reset(u);
              }
            }
            if (detail::is_call(in)) now.set();
            for (const unsigned u : rd)
              if (u < analysis::detail::num_units) now.set(u);
            if (exec_write) {
              now |= revive;
              revive.reset();
            }
          }
        }
      }
      if (dead.empty()) break;
      const auto base = detail::hazard_keys(p, c);
      const std::size_t mark = r.log().size();
      for (const InstId id : dead)
        if (auto e = r.erase(id, "dce"); !e) return unexpected(std::move(e).error());
      if (detail::no_new(base, detail::hazard_keys(p, c))) continue;
      r.undo(r.log().size() - mark);
      std::size_t kept = 0;
      for (const InstId id : dead) {
        if (auto e = r.erase(id, "dce"); !e) return unexpected(std::move(e).error());
        if (detail::no_new(base, detail::hazard_keys(p, c))) ++kept;
        else r.undo(1);
      }
      if (kept < dead.size())
        st.notes.push_back(std::to_string(dead.size() - kept) + " dead instruction(s) kept: removing them breaks a hazard's wait states");
      if (kept == 0) break;
    }
    return st;
  }
};

}  // namespace asmevo::passes
