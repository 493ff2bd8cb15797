// software-pipeline: keeps the loads of `depth` iterations of a counted single-block loop in flight. Each iteration
// computes on loads issued depth-1 iterations before it and then issues the loads of the iteration depth-1 after it,
// so one load's latency is spread over depth iterations instead of stalling each one.
//
// Which loops: the shape of passes/loop_shape.hpp. The body splits in two:
//  - the loads: GLOBAL or MUBUF loads counted by vmcnt only (batch_detail::batchable_load), each into a VGPR tuple of
//    its own;
//  - the compute (C): every instruction that reads a load's result or a value C writes, to a fixed point;
//  - the rest (P, with the loads): address and trip arithmetic, the induction variable and the loop's compare.
// and the split must make the two independent across iterations: C is SALU/VALU code without memory, counters, side
// effects, SCC, EXEC writes or cross-lane reads (DPP, SDWA, DS, convergent, MFMA: a renamed VGPR's disabled lanes
// differ); P writes nothing C reads except the loads' results, and reads and writes nothing C writes; the compare and
// every load's address are P (a load whose address comes from a loaded value is a pointer chase, not pipelined); C
// touches a load's registers only after the load in the body; the body's waits count vmcnt only (they are replaced);
// and the body has no other memory instruction. Then running C(i) after P(i+1) .. P(i+depth-1) computes what K0
// computes: C(i) reads only its loads, its own values and invariants, and P never sees C. Each drain ends by copying
// the last iteration's register set into K0's registers (in the lanes EXEC enables, as the loads wrote them), so the
// code after the loop sees what K0 leaves there.
//
// The code, inserted before the loop (Rewriter::insert_code), so that the loop's entry falls into it:
//
//         trip tests for iterations 1..depth-1 (loop_shape::trip_tests), each to the loop itself when it would end
//         P(0) .. P(depth-1)      (the loads of P(x) into register set F[x]; F[0] is K0's registers)
//     K:  for j in 0..depth-1:
//           s_waitcnt vmcnt((depth-1)*L)          (L loads per iteration: F[j]'s are the oldest in flight)
//           C on F[j]
//           s_cbranch_scc<stop> X_j                (the compare of the newest P: does another iteration run?)
//           P into F[j]
//         s_branch K
//     X_j: for k in 1..depth-1: s_waitcnt vmcnt((depth-1-k)*L); C on F[(j+k) mod depth]
//         v_mov_b32 K0's load registers <- F[(j+depth-1) mod depth]   (when that set is not K0's own)
//         s_branch EXIT
//     L:  the loop as it was (it runs the loops of fewer than depth iterations)
//
// Every load runs for an iteration K0 runs, in K0's order, so the pass makes no memory access K0 would not make.
// vmcnt counts the wave's vector memory operations, which on gfx9 retire in the order they were issued (MI300 ISA
// (CDNA3) §4.4; the body holds no FLAT instruction), and the loop issues none but its loads, so each wait retires the
// set whose registers the next C reads, and with it anything older still in flight from before the loop. The
// prologue runs P(1) .. P(depth-1) before any wait, where K0 ran them after its body's waits: a P that reads a
// register an operation from before the loop still writes is caught by the waitcnt gate below (the loop is then
// left alone). SCC at the exit, and every register C or P leaves behind, is what K0 leaves: C and P each run in K0's
// order, C never touches SCC, and the drains copy the loads' registers back. Fresh registers are the lowest the program never names (unroll_detail::FreshRegs). The result is
// kept only if the kernel's waitcnt findings stay a subset of K0's, and its hazard findings too, after hazard-fix
// has added the wait states the new adjacencies need.
//
// The launch must run loops of fewer than `depth` iterations and of every remainder mod `depth` for the verifier's
// coverage gate to accept the trip tests and the drains (X_j).
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/dependence.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/passes/batch_loads.hpp"
#include "asmevo/passes/findings.hpp"
#include "asmevo/passes/hazard_fix.hpp"
#include "asmevo/passes/loop_shape.hpp"
#include "asmevo/passes/nop_min.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/rewriter.hpp"
#include "asmevo/passes/unroll.hpp"

namespace asmevo::passes {

struct SoftwarePipeline {
  static constexpr std::string_view name = "software-pipeline";
  static constexpr std::string_view summary =
      "keep the loads of `depth` iterations (default 4) of a counted single-block loop in flight: a prologue issues "
      "the first loads, each iteration computes on loads issued depth-1 iterations earlier and issues the next";
  static constexpr bool idempotent = false;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    auto depth = c.uint_arg("depth", 4);
    if (!depth) return unexpected(std::move(depth).error());
    if (*depth < 2 || *depth > 8) return fail(DiagCode::usage, "argument 'depth' must be 2..8, got " + std::to_string(*depth));
    auto headers = loop_shape::selected_headers(r.program(), c);
    if (!headers) return unexpected(std::move(headers).error());
    for (const auto& h : *headers) {
      std::string why;
      auto ok = pipeline_one(r, c, h, static_cast<unsigned>(*depth), why);
      if (!ok) return unexpected(std::move(ok).error());
      st.notes.push_back(*ok ? "pipelined the loop at " + h + " to depth " + std::to_string(*depth) + why
                             : "left the loop at " + h + ": " + why);
    }
    return st;
  }

 private:
  enum class Role : std::uint8_t { p, load, compute, wait };

  /// Pipelines the loop whose header is labelled `h`; false (and `why`) when it is not one this pass handles. On
  /// success `why` holds a suffix for the note (the loads per iteration).
  static Expected<bool> pipeline_one(Rewriter& r, const PassContext& c, const std::string& h, unsigned d, std::string& why) {
    namespace ad = analysis::detail;
    using namespace isa::prop;
    const Program& p = r.program();
    const Target t = p.target;
    const analysis::Cfg g = analysis::build_cfg(p);
    auto found = loop_shape::find(p, g, c, h, why);
    if (!found) return unexpected(std::move(found).error());
    if (!*found) return false;
    const loop_shape::CountedLoop l = std::move(**found);
    // The block in order without its branch: the body with the compare at its place (index cmp).
    std::vector<Inst> seq;
    for (const auto i : l.body) seq.push_back(p.items[i].inst);
    seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(l.cmp_k), l.cmp);
    const std::size_t n = seq.size(), cmp = l.cmp_k;
    std::vector<Role> role(n, Role::p);
    std::vector<std::vector<unsigned>> rd(n), wr(n);
    std::vector<Reg> dest(n);
    std::vector<std::size_t> loads;
    for (std::size_t k = 0; k < n; ++k) {
      const Inst& in = seq[k];
      ad::unit_rw(in, rd[k], wr[k]);
      const auto& f = isa::forms(t)[in.form];
      const std::string what(f.mnemonic);
      if (const auto w = analysis::waitcnt_detail::facts_of(in, t).wait) {
        if (w->get(Counter::exp) != max_count(t, Counter::exp) || w->get(Counter::lgkm) != max_count(t, Counter::lgkm))
          return why = "a wait in the loop counts LDS, scalar memory or exports, not only vector memory", false;
        role[k] = Role::wait;
        continue;
      }
      if (k == cmp || detail::is_nop(in)) continue;
      if (batch_detail::batchable_load(in)) {
        const auto& u = wr[k];
        if (u.empty() || u.front() < ad::unit_v0 || u.back() >= ad::unit_a0 || u.back() - u.front() + 1 != u.size())
          return why = "a load does not write one VGPR tuple", false;
        dest[k] = Reg{RegFile::vgpr, static_cast<std::uint16_t>(u.front() - ad::unit_v0), static_cast<std::uint16_t>(u.size())};
        role[k] = Role::load;
        loads.push_back(k);
        continue;
      }
      if (!(f.has(salu) || f.has(valu)) || f.has(vm_cnt) || f.has(lgkm_cnt) || f.has(exp_cnt) ||
          !analysis::barrier_reason(in).empty() || analysis::memory_access(in).any())
        return why = "the body has " + what + ", which is neither a global or buffer load nor ALU code without memory, "
                     "counters or side effects", false;
      for (const unsigned x : wr[k])
        if (x == ad::unit_exec || x == ad::unit_exec + 1) return why = "the body writes EXEC", false;
    }
    if (loads.empty()) return why = "it has no global or buffer load to pipeline", false;
    if (static_cast<std::uint64_t>(d - 1) * loads.size() > max_count(t, Counter::vm))
      return why = "depth x loads per iteration exceeds what vmcnt can count", false;
    // The loads' registers, and which load writes each unit.
    std::set<unsigned> ldu;
    std::vector<std::size_t> load_of(ad::num_units, n);
    for (const auto k : loads) {
      if (seq[k].ops.empty() || !seq[k].ops[0].is_reg() || ad::units_of(seq[k].ops[0].reg) != wr[k])
        return why = "a load's first operand is not the register it writes", false;
      for (const unsigned u : wr[k]) {
        if (!ldu.insert(u).second) return why = "two loads write the same register", false;
        load_of[u] = k;
      }
    }
    // Reaching definitions inside the body: the value a read at k sees comes from the last writer before k, else
    // (round the back edge) from the last writer in the body, else from before the loop (none).
    constexpr std::size_t none = ~std::size_t{0};
    std::vector<std::vector<std::size_t>> writers(ad::num_units);
    for (std::size_t k = 0; k < n; ++k)
      for (const unsigned u : wr[k]) writers[u].push_back(k);
    auto def_of = [&](std::size_t k, unsigned u) {
      const auto& w = writers[u];
      if (w.empty()) return none;
      const auto it = std::lower_bound(w.begin(), w.end(), k);
      return it == w.begin() ? w.back() : *std::prev(it);
    };
    // C: the instructions that read a value a load or C produced, to a fixed point.
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t k = 0; k < n; ++k) {
        if (role[k] == Role::compute || role[k] == Role::wait || detail::is_nop(seq[k])) continue;
        const bool fed = std::any_of(rd[k].begin(), rd[k].end(), [&](unsigned u) {
          const auto d0 = def_of(k, u);
          return d0 != none && (role[d0] == Role::load || role[d0] == Role::compute);
        });
        if (!fed) continue;
        if (k == cmp) return why = "the loop's exit depends on a loaded value", false;
        if (role[k] == Role::load) return why = "a load's address depends on a loaded value (a pointer chase)", false;
        role[k] = Role::compute;
        changed = true;
      }
    }
    // s_nop goes with the instruction after it (its wait states are for that one), P at the end.
    for (std::size_t k = n; k-- > 0;)
      if (detail::is_nop(seq[k]) && role[k] != Role::wait) {
        std::size_t q = k + 1;
        while (q < n && (role[q] == Role::wait || detail::is_nop(seq[q]))) ++q;
        role[k] = q < n && role[q] == Role::compute ? Role::compute : Role::p;
      }
    bool any_c = false, shared = false;
    std::set<unsigned> c_writes, p_writes;
    for (std::size_t k = 0; k < n; ++k) {
      if (role[k] == Role::wait || role[k] == Role::load) continue;
      const bool isc = role[k] == Role::compute;
      any_c |= isc && !detail::is_nop(seq[k]);
      (isc ? c_writes : p_writes).insert(wr[k].begin(), wr[k].end());
      if (isc)
        for (const unsigned u : rd[k])
          if (const auto d0 = def_of(k, u); d0 != none && role[d0] == Role::p)
            return why = "the compute reads " + ad::unit_name(u) + ", which the address or trip code computes", false;
    }
    if (!any_c) return why = "nothing in the body reads what it loads", false;
    for (const unsigned u : p_writes) {
      if (c_writes.contains(u)) return why = "the compute and the address or trip code both write " + ad::unit_name(u), false;
      shared |= ldu.contains(u);
    }
    // C itself: lane-local ALU code that leaves SCC alone, touching a load's registers only after that load.
    for (std::size_t k = 0; k < n; ++k) {
      if (role[k] != Role::compute) continue;
      const auto& f = isa::forms(t)[seq[k].form];
      if (f.has(dpp) || f.has(sdwa) || f.has(ds) || f.has(convergent) || f.has(mfma))
        return why = "the compute has a cross-lane instruction (" + print_inst(seq[k]) + ")", false;
      for (const auto* s : {&rd[k], &wr[k]}) {
        if (std::find(s->begin(), s->end(), ad::unit_scc) != s->end()) return why = "the compute touches SCC", false;
        for (const unsigned u : *s)
          if (ldu.contains(u) && load_of[u] > k)
            return why = "the compute touches " + ad::unit_name(u) + " before the load that writes it", false;
      }
      for (const Operand& o : seq[k].ops) {
        if (!o.is_reg()) continue;
        const auto units = ad::units_of(o.reg);
        const auto hit = std::count_if(units.begin(), units.end(), [&](unsigned u) { return ldu.contains(u); });
        if (hit == 0) continue;
        const std::size_t j = load_of[units.front()];
        if (static_cast<std::size_t>(hit) != units.size() ||
            !std::all_of(units.begin(), units.end(), [&](unsigned u) { return load_of[u] == j; }))
          return why = "an operand of the compute spans a load's registers and others", false;
      }
    }
    const auto& exit_blk = g.blocks[l.exit_block];

    // Registers: d-1 more sets of the loads' tuples, and an SGPR for the trip tests.
    unroll_detail::FreshRegs fresh{unroll_detail::named_units(p)};
    const auto tmp = fresh.take(RegFile::sgpr, 1, 1);
    if (!tmp) return why = "no free SGPR for the trip tests", false;
    // fset[x][load k]; fset[0] is K0's registers unless the address code also uses them (a load into its own
    // address register), when an outstanding load would race the next address.
    std::vector<std::vector<Reg>> fset(d, std::vector<Reg>(n));
    for (const auto k : loads) fset[0][k] = dest[k];
    for (unsigned x = shared ? 0 : 1; x < d; ++x)
      for (const auto k : loads) {
        const auto to = fresh.take(RegFile::vgpr, dest[k].dwords, unroll_detail::alignment(dest[k]));
        if (!to) return why = "not enough free VGPRs for " + std::to_string(d) + " sets of the loads' registers", false;
        fset[x][k] = *to;
      }
    // A load renames only its destination (its address may be K0's same registers), C every operand, P none.
    auto renamed = [&](Inst in, std::size_t k, unsigned x) {
      for (std::size_t oi = 0; oi < in.ops.size(); ++oi) {
        Operand& o = in.ops[oi];
        if (!o.is_reg() || o.reg.file != RegFile::vgpr || role[k] == Role::p || (role[k] == Role::load && oi != 0)) continue;
        const unsigned u = ad::unit_v0 + o.reg.index;
        if (u < ad::num_units && load_of[u] < n) {
          const Reg& from = dest[load_of[u]];
          o.reg.index = static_cast<std::uint16_t>(fset[x][load_of[u]].index + (o.reg.index - from.index));
        }
      }
      return in;
    };

    // The region.
    loop_shape::Region rg{t, {}};
    const std::string k_label = r.fresh_label(loop_shape::stem(".Lasmevo_pipe" + std::to_string(d) + "_", h));
    std::vector<std::string> x_label(d);
    for (unsigned j = 0; j < d; ++j) x_label[j] = r.fresh_label(k_label + "_drain" + std::to_string(j));
    const InstId exit_first = p.items[exit_blk.insts.front()].inst.id;
    const std::string exit_label = exit_blk.labels.empty() ? r.fresh_label(k_label + "_exit") : exit_blk.labels.front();
    auto emit = [&](Role want, unsigned x) {
      for (std::size_t k = 0; k < n; ++k) {
        if (role[k] == Role::wait) continue;
        const bool isc = role[k] == Role::compute;
        if (isc == (want == Role::compute)) rg.inst(renamed(seq[k], k, x));
      }
    };
    auto wait = [&](std::size_t count) { return rg.text("s_waitcnt vmcnt(" + std::to_string(count) + ")"); };
    auto tests = loop_shape::trip_tests(rg, l, d, *tmp, h, why);
    if (!tests) return unexpected(std::move(tests).error());
    if (!*tests) return false;
    for (unsigned x = 0; x < d; ++x) emit(Role::p, x);
    rg.label(k_label);
    const std::size_t per = loads.size();
    for (unsigned j = 0; j < d; ++j) {
      if (auto e = wait((d - 1) * per); !e) return unexpected(std::move(e).error());
      emit(Role::compute, j);
      if (auto e = rg.text(loop_shape::branch_on(l, true) + x_label[j]); !e) return unexpected(std::move(e).error());
      emit(Role::p, j);
    }
    if (auto e = rg.text("s_branch " + k_label); !e) return unexpected(std::move(e).error());
    for (unsigned j = 0; j < d; ++j) {
      rg.label(x_label[j]);
      for (unsigned k = 1; k < d; ++k) {
        if (auto e = wait((d - 1 - k) * per); !e) return unexpected(std::move(e).error());
        emit(Role::compute, (j + k) % d);
      }
      // The last iteration's set back into K0's registers, in the lanes EXEC enables (as the loads and C wrote them).
      const unsigned last = (j + d - 1) % d;
      for (const auto k : loads)
        if (!(fset[last][k] == dest[k]))
          for (unsigned q = 0; q < dest[k].dwords; ++q)
            if (auto e = rg.text("v_mov_b32 v" + std::to_string(dest[k].index + q) + ", v" +
                                 std::to_string(fset[last][k].index + q));
                !e)
              return unexpected(std::move(e).error());
      if (auto e = rg.text("s_branch " + exit_label); !e) return unexpected(std::move(e).error());
    }

    const std::size_t mark = r.log().size();
    auto entries = kernel_entries(p, g, c);
    if (!entries) return unexpected(std::move(entries).error());
    const auto base = detail::waitcnt_keys(p, g, *entries);
    const auto base_h = detail::hazard_keys(p, c);
    auto give_up = [&](std::string msg) {
      r.undo(r.log().size() - mark);
      why = std::move(msg);
      return false;
    };
    if (exit_blk.labels.empty()) {
      Item lab;
      lab.kind = Item::Kind::label;
      lab.name = exit_label;
      if (auto e = r.insert_code(exit_first, {lab}, std::string(name)); !e)
        return give_up("the Rewriter refused a label at the loop's exit: " + e.error().message);
    }
    if (auto e = r.insert_code(l.loop_first, std::move(rg.items), std::string(name)); !e)
      return give_up("the Rewriter refused the pipelined code: " + e.error().message);
    {
      const Program& q = r.program();
      const analysis::Cfg g1 = analysis::build_cfg(q);
      auto e1 = kernel_entries(q, g1, c);
      if (!e1 || !detail::no_new(base, detail::waitcnt_keys(q, g1, *e1)))
        return give_up("the pipelined code would add a waitcnt finding");
    }
    if (!detail::no_new(base_h, detail::hazard_keys(r.program(), c))) {
      auto fixed = HazardFix{}.run(r, c);
      if (!fixed) {
        r.undo(r.log().size() - mark);
        return unexpected(std::move(fixed).error());
      }
      if (!detail::no_new(base_h, detail::hazard_keys(r.program(), c)))
        return give_up("the pipelined code would add a hazard finding that wait states do not clear");
    }
    why = ", " + std::to_string(per) + " load(s) per iteration, " + std::to_string((d - 1) * per) + " in flight while it computes";
    return true;
  }
};

}  // namespace asmevo::passes
