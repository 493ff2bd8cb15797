// specialize: versions a kernel on its launch. A guard at the kernel's entry checks what the code reads and every
// shape of the launch file fixes -- kernarg dwords equal to the shapes' values, workgroup ids below the largest grid,
// full waves -- and on a match falls into a copy of the kernel in which those facts hold, folded; on any mismatch it
// branches to K0's own code, unchanged:
//
//     E:    [s_load_dword t, s[kp:kp+1], off ... ; s_waitcnt lgkmcnt(0)]   kernarg dwords not preloaded into SGPRs
//           s_cmp_lg_u32 <sgpr holding dword d>, value(d) ; s_cbranch_scc1 F      a kernarg value
//           s_cmp_ge_u32 <workgroup id sgpr>, bound       ; s_cbranch_scc1 F      a workgroup id range
//           s_cmp_lg_u64 exec, -1                         ; s_cbranch_scc1 F      full waves
//     S:    the copy (labels renamed, constants folded, dead code dropped)
//     F:    K0's code from E on, as it was
//
// The verifier (verify/versioning.hpp) shows statically that F's code is K0's, that the guard writes nothing K0 reads,
// and runs the copy on the launch file's shapes and on shapes that change what the guard does not check. Every other
// pass leaves the guard and F alone (passes::editable_blocks).
//
// Which conditions: the candidates are the kernarg dwords K0 reads (preloaded SGPRs live at entry, SMEM loads from the
// kernarg pointer at fixed offsets) whose bytes every shape fixes to the same value; each workgroup id SGPR K0 reads,
// below the largest grid dimension of the shapes (Triton and Inductor guard loads on `pid < N`, and cannot read the
// grid: their kernels have no hidden arguments); EXEC all ones when every shape's block is a whole number of waves.
// The copy is folded under all of them, then each condition whose removal folds no less is dropped: each costs two
// SALU instructions per wave (and a kernarg that is not preloaded, a scalar load).
//
// What the copy folds, from the known bits (analysis/known_bits.hpp) of the copy under the conditions only (nothing
// of the block size but full waves when that is checked): an SMEM load from the kernarg segment whose every dword is
// guarded becomes s_mov_b32s (no scalar memory round trip); a SALU instruction whose only effect is one or two
// consecutive SGPRs, or a VALU one whose only effect is one VGPR, that the bits fix becomes moves of those constants
// (a SCC it also writes must be dead); an s_cbranch_scc0/scc1 the bits decide becomes an
// s_branch or disappears, and the code after an s_branch up to the next label goes. Then instructions of the copy
// whose SGPR, SCC or VCC results nothing reads are dropped, to a fixed point (8 rounds at most); VGPR writes stay (a
// masked write keeps lanes that liveness does not see).
//
// Where it gives up (a note says why): no launch facts (`--launch` is needed); nothing read is fixed alike in every
// shape, or it folds nothing, or less than the guard costs (Attempt::gain against two per compare, eight per load); the entry already starts with a launch guard; the entry block has predecessors other
// than a preload prologue (the guard would run again); the kernel's code jumps outside itself, uses PC-relative
// expressions, or is laid out so that a reachable block falls into an unreachable one or off its end.
//
// Not yet (issue 28): dropping masks proven all-true per lane, strength-reducing division by a folded constant,
// fully unrolling loops whose trip count becomes known, and one copy per distinct shape.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/known_bits.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/rewriter.hpp"
#include "asmevo/passes/unroll.hpp"

namespace asmevo::passes {

namespace specialize_detail {

namespace ad = analysis::detail;
using analysis::LaunchFacts;

[[nodiscard]] inline const isa::FormInfo& form(const Inst& in) { return isa::forms(in.target)[in.form]; }

[[nodiscard]] inline std::string hex(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

using analysis::known_value;
using analysis::decided_branch;

/// Whether units (u, u+1) hold exactly the kernarg segment address in `s`.
[[nodiscard]] inline bool is_kernarg_ptr(const ad::KbState& s, unsigned u) {
  const int lo = ad::kb_index(u), hi = ad::kb_index(u + 1);
  if (!s.reached || lo < 0 || hi < 0) return false;
  const ad::KB& a = s.units[static_cast<std::size_t>(lo)];
  const ad::KB& b = s.units[static_cast<std::size_t>(hi)];
  return a.sym == 1 && a.ptr == ~0u && a.half == 0 && b.sym == 1 && b.ptr == ~0u && b.half == 1;
}

/// The kernarg dwords an SMEM load from the kernarg pointer reads (first dword, count), or nullopt.
[[nodiscard]] inline std::optional<std::pair<std::uint32_t, std::uint32_t>> kernarg_load(const ad::KbState& s,
                                                                                        const Inst& in) {
  const auto& f = form(in);
  if (!f.has(isa::prop::smem) || !f.has(isa::prop::load) || in.ops.size() < 3) return std::nullopt;
  const Operand& dst = in.ops[0];
  const Operand& base = in.ops[1];
  const Operand& off = in.ops[2];
  if (dst.kind != Operand::Kind::reg || dst.reg.file != RegFile::sgpr || base.kind != Operand::Kind::reg ||
      base.reg.file != RegFile::sgpr || off.kind != Operand::Kind::imm || off.imm < 0 || off.imm % 4 != 0)
    return std::nullopt;
  for (std::size_t k = 3; k < in.ops.size(); ++k)
    if (in.ops[k].kind == Operand::Kind::reg) return std::nullopt;  // an SGPR offset: not a fixed address
  if (!is_kernarg_ptr(s, base.reg.index)) return std::nullopt;
  return std::pair{static_cast<std::uint32_t>(off.imm / 4), static_cast<std::uint32_t>(dst.reg.dwords)};
}

/// One condition a guard checks: a kernarg dword equals a value (s_cmp_lg_u32 r, v), a workgroup id SGPR is below a
/// bound (s_cmp_ge_u32 s, b), or EXEC is all ones (s_cmp_lg_u64 exec, -1); each followed by s_cbranch_scc1 to K0.
struct Cond {
  enum class Kind : std::uint8_t { kernarg, wgid, exec } kind = Kind::kernarg;
  std::uint32_t dword = 0;  ///< kernarg: which dword
  std::uint32_t value = 0;  ///< kernarg: its value; wgid: the bound
  unsigned sgpr = 0;        ///< wgid: the SGPR holding it
  std::uint8_t dim = 0;     ///< wgid: its grid dimension
  [[nodiscard]] std::string text() const {
    switch (kind) {
      case Kind::kernarg: return "kernarg+" + hex(4 * dword) + " == " + std::to_string(value);
      case Kind::wgid: return std::string("workgroup id ") + "xyz"[dim % 3] + " (s" + std::to_string(sgpr) + ") < " + std::to_string(value);
      case Kind::exec: return "full waves (EXEC all ones)";
    }
    return "?";
  }
};

/// A new instruction from its text (the pass only writes forms it knows parse).
[[nodiscard]] inline Expected<Inst> make(const std::string& text, Target t) { return parse_inst(text, t); }

}  // namespace specialize_detail

struct Specialize {
  static constexpr std::string_view name = "specialize";
  static constexpr std::string_view summary =
      "version a kernel on its launch (needs --launch): a guard checks the kernargs and workgroup ids the code reads "
      "against the launch file's shapes and falls into a copy where they are constants, folded; any other launch runs "
      "K0's code unchanged";
  static constexpr bool idempotent = false;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    if (!c.launches || c.launches->empty()) {
      st.notes.push_back("nothing to do: specialize needs the launch file's shapes (asmevo apply --launch)");
      return st;
    }
    std::vector<std::string> entries;
    {
      const Program& p = r.program();
      const analysis::Cfg g = analysis::build_cfg(p);
      auto es = kernel_entries(p, g, c);
      if (!es) return unexpected(std::move(es).error());
      for (const auto e : *es)
        for (const auto& l : g.blocks[e].labels) entries.push_back(l);
    }
    bool any = false;
    for (const auto& e : entries) {
      std::vector<const analysis::LaunchFacts*> facts;
      for (const auto& f : *c.launches)
        if (f.entry == e) facts.push_back(&f);
      if (facts.empty()) continue;
      any = true;
      std::string note;
      if (auto ok = specialize_one(r, c, e, facts, note); !ok) return unexpected(std::move(ok).error());
      st.notes.push_back(note);
    }
    if (!any) st.notes.push_back("nothing to do: no shape of the launch file runs the kernels this pass edits");
    return st;
  }

 private:
  static Expected<bool> specialize_one(Rewriter& r, const PassContext& c, const std::string& entry,
                                       const std::vector<const analysis::LaunchFacts*>& facts,
                                       std::string& note) {
    namespace sd = specialize_detail;
    namespace ad = sd::ad;
    using analysis::LaunchFacts;
    const Program& p = r.program();
    const Target t = p.target;
    const analysis::Cfg g = analysis::build_cfg(p);
    const auto eb = g.block_named(entry);
    auto give_up = [&](const std::string& why) {
      note = "left " + entry + ": " + why;
      return false;
    };
    if (!eb || g.blocks[*eb].insts.empty()) return give_up("its label starts no code");
    const LaunchFacts& f0 = *facts.front();
    // Once per kernel: a kernel already versioned (detail::frozen_by_versioning) is left alone, or the copy would
    // copy the guard, the copy and the fallback again.
    if (!detail::frozen_by_versioning(p, g, *eb).empty()) return give_up("its entry already starts with a launch guard");
    {
      std::vector<std::uint32_t> e1{*eb};
      if (!editable_blocks(p, g, e1, c)[*eb]) return give_up("its entry block is not editable");
    }
    // The guard runs once: nothing but a preload prologue (a block ending in `s_branch E`) may enter E.
    for (const auto pr : g.pred[*eb])
      if (g.blocks[pr].falls_through || !g.blocks[pr].target || *g.blocks[pr].target != entry || pr >= *eb)
        return give_up("its entry block is also reached from inside the kernel (a loop header): the guard would "
                       "run again");

    // The kernel's code from E: reachable blocks in program order; fall-through must stay within them.
    const auto order = g.reverse_post_order(*eb);
    std::vector<std::uint32_t> blocks(order.begin(), order.end());
    std::sort(blocks.begin(), blocks.end());
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const auto& b = g.blocks[blocks[k]];
      if (b.falls_through && (k + 1 == blocks.size() || blocks[k + 1] != blocks[k] + 1))
        return give_up("a block of it falls through into code the entry does not reach, or off its end");
      if (g.indirect[blocks[k]]) return give_up("it jumps through a register");
      for (const std::size_t i : b.insts) {
        const Inst& in = p.items[i].inst;
        const auto& fm = sd::form(in);
        if (fm.has(isa::prop::call)) return give_up("it calls code outside itself");
        const auto lbl = detail::branch_label(in);
        for (const auto& o : in.ops)
          if (o.kind == Operand::Kind::expr && (!lbl || o.text != *lbl))
            return give_up("it uses a symbolic expression (`" + print_inst(in) + "`): the copy would refer to K0's code");
      }
    }

    // Guardable dwords: fixed and equal in every shape.
    const std::size_t nd = f0.kernarg.bytes.size() / 4;
    std::map<std::uint32_t, std::uint32_t> value;  // dword -> value
    for (std::uint32_t d = 0; d < nd; ++d) {
      bool ok = true;
      std::uint32_t v = 0;
      for (const auto* f : facts) {
        if (f->kernarg.bytes.size() < 4 * d + 4) ok = false;
        for (unsigned by = 0; ok && by < 4; ++by) {
          if (f->kernarg.known[4 * d + by] != 0xff) ok = false;
          const std::uint32_t b = f->kernarg.bytes[4 * d + by];
          if (f == facts.front()) v |= b << (8 * by);
          else if (b != ((v >> (8 * by)) & 0xff)) ok = false;
        }
        if (!ok) break;
      }
      if (ok) value[d] = v;
    }

    // What K0 reads of them: live-in preload SGPRs, and SMEM loads from the kernarg pointer.
    std::set<std::uint32_t> read;
    const analysis::Liveness live0 = analysis::Liveness::compute(p, g);
    const auto live_e = live0.live_in(g.blocks[*eb].insts.front());
    for (std::uint32_t k = 0; k < f0.preload_count; ++k)
      if (live_e.test(f0.preload_sgpr + k)) read.insert(f0.preload_dword + k);
    auto kb0 = analysis::KnownBits::analyze(p, f0);
    if (!kb0) return unexpected(std::move(kb0).error());
    for (const auto b : blocks) {
      if (g.blocks[b].insts.empty()) continue;
      ad::KbState s = kb0->state_before(g.blocks[b].insts.front());
      for (const std::size_t i : g.blocks[b].insts) {
        if (const auto ld = sd::kernarg_load(s, p.items[i].inst))
          for (std::uint32_t k = 0; k < ld->second; ++k) read.insert(ld->first + k);
        kb0->step(s, p.items[i].inst);
      }
    }
    // The candidate conditions: kernarg dwords K0 reads that every shape fixes alike; the workgroup ids K0 reads,
    // below the largest grid of the shapes; and full waves (EXEC all ones at entry) where every shape's block is a
    // multiple of 64 work-items.
    using Cond = sd::Cond;
    std::vector<Cond> cands;
    for (const auto d : read)
      if (value.count(d)) cands.push_back({Cond::Kind::kernarg, d, value[d], 0, 0});
    for (const auto& sg : f0.sgprs)
      if (sg.kind == LaunchFacts::SgprKind::below && sg.index < 102 && live_e.test(sg.index)) {
        std::uint64_t bound = 0;
        for (const auto* f : facts)
          for (const auto& o : f->sgprs)
            if (o.kind == LaunchFacts::SgprKind::below && o.index == sg.index) bound = std::max(bound, o.value);
        if (bound > 0 && bound < (std::uint64_t{1} << 31))
          cands.push_back({Cond::Kind::wgid, 0, static_cast<std::uint32_t>(bound), sg.index, sg.dim});
      }
    {
      bool full = true;
      for (const auto* f : facts) full = full && (std::uint64_t{f->block[0]} * f->block[1] * f->block[2]) % 64 == 0;
      if (full) cands.push_back({Cond::Kind::exec, 0, 0, 0, 0});
    }
    if (cands.empty())
      return give_up("nothing it reads from the kernargs or the workgroup ids is fixed the same way in every shape of "
                     "the launch file");
    std::optional<unsigned> kp;
    for (const auto& sg : f0.sgprs)
      if (sg.kind == LaunchFacts::SgprKind::kernarg_lo) kp = sg.index;

    // The copy's facts: only what the conditions establish (analysis::guard_facts).
    auto facts_of = [&](const std::vector<Cond>& cs) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> dw;
      std::vector<std::array<std::uint32_t, 3>> wg;
      bool exec = false;
      for (const auto& c : cs)
        switch (c.kind) {
          case Cond::Kind::kernarg: dw.emplace_back(c.dword, c.value); break;
          case Cond::Kind::wgid: wg.push_back({c.sgpr, c.dim, c.value}); break;
          case Cond::Kind::exec: exec = true; break;
        }
      return analysis::guard_facts(f0, dw, wg, exec);
    };

    // Labels and the SGPRs guard loads use (taken once, so every attempt below prints the same guard).
    unroll_detail::FreshRegs fresh{unroll_detail::named_units(p)};
    std::set<std::string> taken;
    auto label = [&](const std::string& stem) {
      std::string n = r.fresh_label(stem);
      for (unsigned k = 1; taken.count(n); ++k) n = r.fresh_label(stem + "_" + std::to_string(k));
      taken.insert(n);
      return n;
    };
    const std::string stem = entry[0] == '.' ? entry.substr(1) : entry;
    const std::string fb = label(".Lasmevo_k0_" + stem);
    const std::string spec = label(".Lasmevo_spec_" + stem);
    std::map<std::uint32_t, unsigned> load_reg;  // kernarg dword -> the SGPR a guard load puts it in
    for (const auto& c : cands)
      if (c.kind == Cond::Kind::kernarg && !(c.dword >= f0.preload_dword && c.dword < f0.preload_dword + f0.preload_count)) {
        if (!kp) return give_up("kernarg dword " + std::to_string(c.dword) + " is neither preloaded nor loadable (no "
                                "kernarg segment pointer)");
        const auto tr = fresh.take(RegFile::sgpr, 1, 1);
        if (!tr) return give_up("no free SGPR for the guard");
        load_reg[c.dword] = tr->index;
      }
    auto add = [&](std::vector<Item>& out, const std::string& text) -> Expected<void> {
      auto in = sd::make(text, t);
      if (!in) return unexpected(std::move(in).error());
      Item it;
      it.kind = Item::Kind::inst;
      it.inst = std::move(*in);
      out.push_back(std::move(it));
      return {};
    };
    auto guard_of = [&](const std::vector<Cond>& cs) -> Expected<std::vector<Item>> {
      std::vector<Item> gd;
      bool loads = false;
      for (const auto& c : cs)
        if (c.kind == Cond::Kind::kernarg && load_reg.count(c.dword)) {
          if (auto e = add(gd, "s_load_dword s" + std::to_string(load_reg[c.dword]) + ", s[" + std::to_string(*kp) + ":" +
                                   std::to_string(*kp + 1) + "], " + sd::hex(4 * c.dword));
              !e)
            return unexpected(std::move(e).error());
          loads = true;
        }
      if (loads)
        if (auto e = add(gd, "s_waitcnt lgkmcnt(0)"); !e) return unexpected(std::move(e).error());
      for (const auto& c : cs) {
        std::string cmp;
        switch (c.kind) {
          case Cond::Kind::kernarg: {
            const bool pre = !load_reg.count(c.dword);
            const unsigned reg = pre ? f0.preload_sgpr + (c.dword - f0.preload_dword) : load_reg[c.dword];
            cmp = "s_cmp_lg_u32 s" + std::to_string(reg) + ", " + sd::hex(c.value);
            break;
          }
          case Cond::Kind::wgid: cmp = "s_cmp_ge_u32 s" + std::to_string(c.sgpr) + ", " + sd::hex(c.value); break;
          case Cond::Kind::exec: cmp = "s_cmp_lg_u64 exec, -1"; break;
        }
        if (auto e = add(gd, cmp); !e) return unexpected(std::move(e).error());
        if (auto e = add(gd, "s_cbranch_scc1 " + fb); !e) return unexpected(std::move(e).error());
      }
      return gd;
    };

    // The copy, unfolded: K0's blocks from E in order, labels renamed.
    std::map<std::string, std::string> rename;
    for (const auto b : blocks)
      for (const auto& l : g.blocks[b].labels)
        if (b != *eb) rename[l] = label(l + "_spec");
    std::vector<Item> copy0;
    for (const auto b : blocks) {
      Item li;
      li.kind = Item::Kind::label;
      if (b == *eb) {
        li.name = spec;
        copy0.push_back(li);
      } else {
        for (const auto& l : g.blocks[b].labels) {
          li.name = rename[l];
          copy0.push_back(li);
        }
      }
      for (const std::size_t i : g.blocks[b].insts) {
        Item it = p.items[i];
        it.line = 0;
        it.comment.clear();
        if (const auto l = detail::branch_label(it.inst)) {
          const auto ops = isa::operands(sd::form(it.inst));
          auto nt = *l == entry ? std::optional<std::string>(spec)
                                : rename.count(*l) ? std::optional<std::string>(rename[*l]) : std::nullopt;
          if (!nt) return give_up("it branches to '" + *l + "', outside the code its entry reaches");
          for (std::size_t k = 0; k < ops.size() && k < it.inst.ops.size(); ++k)
            if (ops[k].kind == isa::Kind::label && it.inst.ops[k].kind == Operand::Kind::expr) it.inst.ops[k].text = *nt;
        }
        copy0.push_back(std::move(it));
      }
    }

    const InstId at = p.items[g.blocks[*eb].insts.front()].inst.id;
    auto region = [&](const std::vector<Item>& gd, const std::vector<Item>& cp) {
      std::vector<Item> rg = gd;
      rg.insert(rg.end(), cp.begin(), cp.end());
      Item l;
      l.kind = Item::Kind::label;
      l.name = fb;
      rg.push_back(l);
      return rg;
    };
    // The program with the region inserted, and the item index of copy entry 0 in it.
    auto scratch = [&](const std::vector<Item>& gd,
                       const std::vector<Item>& cp) -> Expected<std::pair<Program, std::size_t>> {
      Program q = p;
      Rewriter rq(q);
      if (auto e = rq.insert_entry_code(at, region(gd, cp), "specialize"); !e) return unexpected(std::move(e).error());
      std::size_t pos = q.items.size();
      for (std::size_t i = 0; i < q.items.size(); ++i)
        if (q.items[i].kind == Item::Kind::label && q.items[i].name == spec) pos = i;
      return std::pair{std::move(q), pos};
    };

    // One attempt: the guard of `cs` and the copy folded under what it establishes.
    struct Attempt {
      std::vector<Item> guard, copy;
      std::size_t folded = 0, loads_gone = 0, branches = 0, dropped = 0;
      /// What the copy saves, roughly weighted by issue cost: a scalar load (a memory round trip) most, a decided
      /// branch two, a folded or dropped instruction one.
      [[nodiscard]] std::size_t gain() const { return 8 * loads_gone + 2 * branches + folded + dropped; }
    };
    auto attempt = [&](const std::vector<Cond>& cs) -> Expected<Attempt> {
      Attempt at1;
      auto gd = guard_of(cs);
      if (!gd) return unexpected(std::move(gd).error());
      at1.guard = std::move(*gd);
      const LaunchFacts cf = facts_of(cs);
      std::map<std::uint32_t, std::uint32_t> guarded;
      for (const auto& c : cs)
        if (c.kind == Cond::Kind::kernarg) guarded[c.dword] = c.value;
      std::vector<Item> copy = copy0;
      {
        auto sq = scratch(at1.guard, copy);
        if (!sq) return unexpected(std::move(sq).error());
        const Program& q = sq->first;
        auto kb = analysis::KnownBits::analyze(q, cf);
        if (!kb) return unexpected(std::move(kb).error());
        const analysis::Cfg& gq = kb->cfg();
        const analysis::Liveness lq = analysis::Liveness::compute(q, gq);
        std::vector<Item> out;
        bool dead = false;
        std::optional<ad::KbState> s;
        for (std::size_t k = 0; k < copy.size(); ++k) {
          const std::size_t qi = sq->second + k;
          const Item& it = copy[k];
          if (it.kind == Item::Kind::label) {
            dead = false;
            s.reset();
            out.push_back(it);
            continue;
          }
          if (dead) {
            ++at1.dropped;
            continue;
          }
          const Inst& in = q.items[qi].inst;
          if (!s || gq.block_of[qi] != gq.block_of[qi - 1]) s = kb->state_before(qi);
          ad::KbState after = *s;
          kb->step(after, in);
          const auto& fm = sd::form(in);
          std::vector<std::string> repl;
          bool keep = true;
          // K0's instruction (the copy's items still carry K0's ids) that the launch does not exercise: changing it
          // could not be verified by the runs (PassContext::not_exercised), so it stays as it is.
          if (c.not_exercised && c.not_exercised->contains(it.inst.id.value)) {
            s = std::move(after);
            out.push_back(it);
            continue;
          }
          const auto op = analysis::loops_detail::loop_op(in).op;
          std::vector<unsigned> rd, wr;
          ad::unit_rw(in, rd, wr);
          auto live_after = [&] {
            const auto& blk = gq.blocks[gq.block_of[qi]];
            const auto pos = std::find(blk.insts.begin(), blk.insts.end(), qi);
            return pos + 1 != blk.insts.end() ? lq.live_in(*(pos + 1)) : lq.live_out_of_block(gq.block_of[qi]);
          };
          if (const auto taken = sd::decided_branch(*s, in)) {
            ++at1.branches;
            keep = false;
            if (*taken) {
              repl.push_back("s_branch " + *detail::branch_label(it.inst));
              dead = true;
            }
          } else if (const auto ld = sd::kernarg_load(*s, in)) {
            bool all = true;
            for (std::uint32_t d = 0; d < ld->second; ++d) all = all && guarded.count(ld->first + d);
            if (all) {
              keep = false;
              ++at1.loads_gone;
              for (std::uint32_t d = 0; d < ld->second; ++d)
                repl.push_back("s_mov_b32 s" + std::to_string(in.ops[0].reg.index + d) + ", " +
                               sd::hex(guarded[ld->first + d]));
            }
          } else if ((fm.has(isa::prop::salu) || fm.has(isa::prop::valu)) && !fm.has(isa::prop::branch) &&
                     !fm.has(isa::prop::sopp) && !fm.has(isa::prop::dpp) && !fm.has(isa::prop::sdwa) &&
                     !fm.has(isa::prop::convergent) && !fm.has(isa::prop::side_effects) &&
                     !fm.has(isa::prop::load) && !fm.has(isa::prop::store)) {
            // One 32-bit destination register, or two consecutive SGPRs (SALU), and SCC only where nothing reads it
            // afterwards.
            std::vector<unsigned> regs;
            bool scc = false;
            for (const unsigned u : wr)
              if (u == ad::unit_scc) scc = true;
              else regs.push_back(u);
            std::sort(regs.begin(), regs.end());
            const bool sgpr = fm.has(isa::prop::salu) && !regs.empty() && regs.size() <= 2 && regs.back() < 102 &&
                              (regs.size() == 1 || regs[1] == regs[0] + 1);
            const bool vgpr = regs.size() == 1 && regs[0] >= ad::unit_v0 && regs[0] < ad::unit_v0 + 256 &&
                              fm.has(isa::prop::valu) && !scc;
            const bool is_const_mov = op == analysis::loops_detail::Op::mov && in.ops.size() >= 2 &&
                                      in.ops[1].kind == Operand::Kind::imm;
            const bool scc_dead = !scc || !live_after().test(ad::unit_scc);
            if ((sgpr || vgpr) && scc_dead && !is_const_mov) {
              std::vector<std::uint32_t> vals;
              for (const unsigned u : regs)
                if (const auto v = sd::known_value(after, u)) vals.push_back(*v);
              if (vals.size() == regs.size()) {
                keep = false;
                ++at1.folded;
                for (std::size_t k2 = 0; k2 < regs.size(); ++k2)
                  repl.push_back(sgpr ? "s_mov_b32 s" + std::to_string(regs[k2]) + ", " + sd::hex(vals[k2])
                                      : "v_mov_b32 v" + std::to_string(regs[k2] - ad::unit_v0) + ", " + sd::hex(vals[k2]));
              }
            }
          }
          s = std::move(after);
          if (keep) {
            out.push_back(it);
            continue;
          }
          for (const auto& text : repl)
            if (auto e = add(out, text); !e) return unexpected(std::move(e).error());
        }
        copy = std::move(out);
      }
      // Drop what nothing reads (instructions with no effect but their registers), to a fixed point.
      for (int round = 0; round < 8; ++round) {
        auto sq = scratch(at1.guard, copy);
        if (!sq) return unexpected(std::move(sq).error());
        const Program& q = sq->first;
        const analysis::Cfg gq = analysis::build_cfg(q);
        const analysis::Liveness lq = analysis::Liveness::compute(q, gq);
        std::vector<Item> out;
        std::size_t gone = 0;
        for (std::size_t k = 0; k < copy.size(); ++k) {
          const std::size_t qi = sq->second + k;
          if (copy[k].kind != Item::Kind::inst || (c.not_exercised && c.not_exercised->contains(copy[k].inst.id.value))) {
            out.push_back(copy[k]);
            continue;
          }
          const Inst& in = q.items[qi].inst;
          const auto& fm = sd::form(in);
          bool pure = (fm.has(isa::prop::salu) || fm.has(isa::prop::valu)) && !fm.has(isa::prop::branch) &&
                      !fm.has(isa::prop::sopp) && !fm.has(isa::prop::side_effects) && !fm.has(isa::prop::convergent) &&
                      !fm.has(isa::prop::load) && !fm.has(isa::prop::store) && !fm.has(isa::prop::terminator) &&
                      gq.block_of[qi] != analysis::Cfg::none;
          if (pure) {
            std::vector<unsigned> rd, wr;
            ad::unit_rw(in, rd, wr);
            const auto& blk = gq.blocks[gq.block_of[qi]];
            const auto pos = std::find(blk.insts.begin(), blk.insts.end(), qi);
            const auto after_live =
                pos + 1 != blk.insts.end() ? lq.live_in(*(pos + 1)) : lq.live_out_of_block(gq.block_of[qi]);
            for (const unsigned u : wr)
              // Only whole-register writes: SGPRs, SCC and VCC. A VGPR write under EXEC keeps the inactive lanes, and
              // liveness counts a later masked write as killing the whole register (analysis/liveness.hpp), so a VGPR
              // that looks dead may still carry lanes a masked write keeps. EXEC, M0 and MODE are never dropped.
              if (after_live.test(u) || !(u < 102 || u == ad::unit_scc || u == ad::unit_vcc || u == ad::unit_vcc + 1))
                pure = false;
            if (wr.empty()) pure = false;
          }
          if (pure) {
            ++gone;
            continue;
          }
          out.push_back(copy[k]);
        }
        at1.dropped += gone;
        copy = std::move(out);
        if (gone == 0) break;
      }
      at1.copy = std::move(copy);
      return at1;
    };

    // Every candidate, then without each condition whose removal saves no less (Attempt::gain): each costs two SALU
    // instructions per wave, and a kernarg not preloaded a scalar load.
    std::vector<Cond> conds = cands;
    auto best = attempt(conds);
    if (!best) return give_up("the guarded copy cannot be placed: " + best.error().message);
    if (best->folded + best->loads_gone + best->branches == 0) {
      std::string what;
      for (const auto& c : conds) what += std::string(what.empty() ? "" : ", ") + c.text();
      return give_up("the values the guard would check (" + what + ") fold nothing in the copy");
    }
    for (std::size_t k = conds.size(); k-- > 0;) {
      std::vector<Cond> fewer = conds;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(k));
      if (fewer.empty()) continue;
      auto a = attempt(fewer);
      if (a && a->gain() >= best->gain()) conds = std::move(fewer), best = std::move(a);
    }
    std::string what;
    for (const auto& c : conds) what += std::string(what.empty() ? "" : ", ") + c.text();
    std::size_t cost = 2 * conds.size();
    for (const auto& c : conds) cost += c.kind == Cond::Kind::kernarg && load_reg.count(c.dword) ? 8 : 0;
    if (best->gain() <= cost)
      return give_up("the copy under " + what + " saves less than its guard costs (" + std::to_string(best->folded) +
                     " folded, " + std::to_string(best->branches) + " branch(es) decided, " +
                     std::to_string(best->loads_gone) + " load(s) and " + std::to_string(best->dropped) +
                     " instruction(s) dropped, against " + std::to_string(cost / 2) + " compare(s))");
    const std::size_t folded = best->folded, loads_gone = best->loads_gone, branches = best->branches,
                      dropped = best->dropped;
    if (auto e = r.insert_entry_code(at, region(best->guard, best->copy), "specialize"); !e)
      return give_up("the guarded copy cannot be placed: " + e.error().message);
    note = "specialized " + entry + " on " + what + ": folded " + std::to_string(folded) + " instruction(s), " +
           std::to_string(loads_gone) + " kernarg load(s), " + std::to_string(branches) + " branch(es); dropped " +
           std::to_string(dropped) + " dead instruction(s)";
    return true;
  }
};

}  // namespace asmevo::passes
