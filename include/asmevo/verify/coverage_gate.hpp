// The coverage gate: K1 may change only code the launch file's runs verify. A kernel no launch runs must keep K0's
// code (unlaunched_changes); in a launched kernel every instruction K1 changed must have run (Exercised,
// unexercised_changes). Not here: the runs that record what ran (verify/differential.hpp, verify/executor.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/verify/code_alignment.hpp"
#include "asmevo/verify/detail/id_text.hpp"
#include "asmevo/verify/executor.hpp"
#include "asmevo/verify/memory_model.hpp"

namespace asmevo::verify {

/// A kernel that no launch runs and whose code K1 changed.
struct UnlaunchedChange {
  std::string kernel;
  std::string what;  ///< how it changed, in the user's terms
};

/// The kernels of K0 that no spec of `shapes` runs (a spec without a kernel runs the object's only kernel) and
/// that K1 changed: their code (detail::kernel_code, compared as detail::code_text, so renamed labels are no
/// change but a moved branch target is), their LDS or scratch size, or, when the kernel calls (s_swappc_b64) or
/// jumps through a register, the code that belongs to no kernel. Empty when a spec names no kernel and the object
/// holds several (the run then fails with a usage error of its own). A kernel K1 lost or renamed is an ABI change,
/// caught before this.
[[nodiscard]] inline std::vector<UnlaunchedChange> unlaunched_changes(const codeobject::Module& m0,
                                                                     const codeobject::Module& m1,
                                                                     std::span<const LaunchSpec> shapes) {
  std::vector<UnlaunchedChange> out;
  const auto run = detail::launched_names(m0, shapes);
  if (!run) return out;
  std::vector<const codeobject::KernelInfo*> idle;
  for (const auto& k : m0.kernels)
    if (std::find(run->begin(), run->end(), k.name) == run->end()) idle.push_back(&k);
  if (idle.empty()) return out;

  const analysis::Cfg g0 = analysis::build_cfg(m0.program), g1 = analysis::build_cfg(m1.program);
  const auto l0 = detail::label_targets(m0.program), l1 = detail::label_targets(m1.program);
  auto first_difference = [&](std::span<const std::size_t> c0, std::span<const std::size_t> c1) -> std::string {
    const auto x0 = detail::code_text(m0.program, c0, l0), x1 = detail::code_text(m1.program, c1, l1);
    std::size_t i = 0;
    while (i < x0.size() && i < x1.size() && x0[i] == x1[i]) ++i;
    if (i == x0.size() && i == x1.size()) return {};
    auto at = [](const Program& p, std::span<const std::size_t> c, const std::vector<std::string>& x, std::size_t i) {
      return i < c.size() ? detail::id_text(p.items[c[i]].inst.id) + " `" + x[i] + "`" : std::string("its end");
    };
    return "instruction " + std::to_string(i) + " is K0 " + at(m0.program, c0, x0, i) + ", K1 " +
           at(m1.program, c1, x1, i);
  };
  bool calls = false;
  for (const auto* k0 : idle) {
    const codeobject::KernelInfo* k1 = nullptr;
    for (const auto& k : m1.kernels)
      if (k.name == k0->name) k1 = &k;
    if (!k1) {
      out.push_back({k0->name, "K1 has no such kernel"});
      continue;
    }
    const auto c0 = detail::kernel_code(m0.program, g0, k0->name), c1 = detail::kernel_code(m1.program, g1, k0->name);
    calls = calls || detail::leaves_kernel(m0.program, c0);
    if (std::string d = first_difference(c0, c1); !d.empty()) {
      out.push_back({k0->name, "its code differs from K0's: " + d});
      continue;
    }
    for (const auto* fld : {&codeobject::field::group_segment_fixed_size, &codeobject::field::private_segment_fixed_size})
      if (k0->descriptor.get(*fld) != k1->descriptor.get(*fld)) {
        out.push_back({k0->name, "its descriptor's " + std::string(fld->name) + " is " +
                                     std::to_string(k1->descriptor.get(*fld)) + " in K1, " +
                                     std::to_string(k0->descriptor.get(*fld)) + " in K0"});
        break;
      }
  }
  if (calls) {
    // Code outside every kernel: what a call may reach. Compared whole, since which of it a call reaches is not known.
    if (std::string d = first_difference(detail::other_code(m0, g0), detail::other_code(m1, g1)); !d.empty())
      for (const auto* k0 : idle) {
        bool listed = false;
        for (const auto& u : out) listed = listed || u.kernel == k0->name;
        if (!listed)
          out.push_back({k0->name, "it may call code outside every kernel, and that code differs from K0's: " + d});
      }
  }
  return out;
}

/// What the runs of one side (K0's or K1's) exercised, as instruction id values: the instructions issued with an
/// effect (a vector one with some lane enabled: RunOutcome::executed), the branches taken, and the conditional
/// branches not taken.
struct Exercised {
  std::set<std::uint32_t> ran, taken, fell_through;
  bool known = true;  ///< false when some run's executor could not tell (a device)

  void add(const RunOutcome& o) {
    if (!o.executed || !o.taken || !o.fell_through) {
      known = false;
      return;
    }
    for (const InstId id : *o.executed) ran.insert(id.value);
    for (const InstId id : *o.taken) taken.insert(id.value);
    for (const InstId id : *o.fell_through) fell_through.insert(id.value);
  }
};

/// The instructions of `p` (InstId values) that `e` does not count as run: the code a pass restricted to the launch
/// leaves alone (passes::PassContext::not_exercised).
[[nodiscard]] inline std::unordered_set<std::uint32_t> not_exercised(const Program& p, const Exercised& e) {
  std::unordered_set<std::uint32_t> out;
  for (const Item& it : p.items)
    if (it.kind == Item::Kind::inst && !e.ran.contains(it.inst.id.value)) out.insert(it.inst.id.value);
  return out;
}

/// The instructions of launched kernels that K1 changed (inserted, deleted, replaced, moved, or a branch whose target
/// moved) and that the runs did not exercise: in K0 for what K1 deleted or replaced (`e0`), in K1 for what it
/// inserted (`e1`). An instruction is exercised when some run issued it with an effect (a vector one with EXEC != 0);
/// a changed branch, when some run also took it and, for a conditional one, some run fell through it -- a moved
/// target that no run jumps to is not verified by the runs. A change not exercised is unverified -- the runs cannot
/// tell it from K0 -- so the gate rejects it (the launch file must exercise it) rather than accept it on the strength
/// of other code. When a launched kernel calls or jumps through a register, the code outside every kernel
/// (detail::other_code) is checked the same way, as one more unit.
/// Each unit's code is aligned as new_static_findings aligns it (detail::tokens_of, branch targets left out of the
/// text); a matched instruction counts as changed when it names a label (a branch target, or a label in an
/// expression: s_add_u32 s0, s0, L@rel32@lo+4) whose first instruction is not matched to that of K0's label of
/// the same operand. At most `max` changes are listed per unit.
/// For a versioned K1 (verify/versioning.hpp): a K0 branch in `decided0` (its direction fixed by the guard) needs only
/// to have run, and the instructions in `skip0` / `skip1` (a preload prologue proven the same, K0 code the guard
/// makes unreachable) are not changes.
[[nodiscard]] inline std::vector<UnlaunchedChange> unexercised_changes(
    const codeobject::Module& m0, const codeobject::Module& m1, std::span<const LaunchSpec> shapes, const Exercised& e0,
    const Exercised& e1, std::size_t max = 3, const std::unordered_set<std::uint32_t>* decided0 = nullptr,
    const std::unordered_set<std::uint32_t>* skip0 = nullptr, const std::unordered_set<std::uint32_t>* skip1 = nullptr) {
  std::vector<UnlaunchedChange> out;
  const auto run = detail::launched_names(m0, shapes);
  if (!run) return out;
  const analysis::Cfg g0 = analysis::build_cfg(m0.program), g1 = analysis::build_cfg(m1.program);
  const auto l0 = detail::label_targets(m0.program), l1 = detail::label_targets(m1.program);
  std::unordered_map<std::string, std::uint32_t> tokens;
  auto token_seq = [&](const Program& p, std::span<const std::size_t> idx) { return detail::tokens_of(p, idx, tokens); };
  // The item indexes (first instruction after the label) of the labels `in` names (others are skipped), in
  // operand order: its branch target, and every label an expression operand mentions.
  auto targets_of = [](const Inst& in, const std::unordered_map<std::string, std::size_t>& labels) {
    std::vector<std::size_t> t;
    for (const auto& o : in.ops) {
      if (o.kind != Operand::Kind::expr) continue;
      detail::for_each_symbol(o.text, [&](std::string_view name) {
        if (const auto l = labels.find(std::string(name)); l != labels.end()) t.push_back(l->second);
      });
    }
    return t;
  };
  auto is_branch = [](const Inst& in) { return detail::direct_branch(in); };
  auto is_vector = [](const Inst& in) {
    using namespace isa::prop;
    return (isa::forms(in.target)[in.form].props & (valu | vmem | flat | ds | mfma)) != 0;
  };
  // The item index of the first instruction after item `i` of `p` (p.items.size() when none).
  auto next_inst = [](const Program& p, std::size_t i) {
    while (++i < p.items.size() && p.items[i].kind != Item::Kind::inst) {
    }
    return i;
  };
  // Whether the runs of one side exercised item `item` of `p` (see above). A branch to the instruction right after
  // it has one edge only (the emulator records it as falling through): ran is enough.
  auto exercised = [&](const Program& p, std::size_t item, const Exercised& e,
                       const std::unordered_map<std::string, std::size_t>& labels) {
    const Inst& in = p.items[item].inst;
    if (!e.ran.contains(in.id.value)) return false;
    if (!is_branch(in)) return true;
    const auto t = targets_of(in, labels);
    if (!t.empty() && t.front() == next_inst(p, item)) return true;
    if (!e.taken.contains(in.id.value)) return false;
    return !isa::forms(in.target)[in.form].has(isa::prop::cond_branch) || e.fell_through.contains(in.id.value);
  };
  // Every unit is aligned first, so that a label in one unit named from another (a callee's entry, named by the
  // caller's s_add_u32) is compared through the one map of matched items.
  struct Unit {
    std::string name;
    std::vector<std::size_t> c0, c1;
    std::vector<std::uint8_t> kept0, kept1;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
  };
  std::vector<Unit> units;
  bool calls = false;
  for (const auto& k : m0.kernels) {
    if (std::find(run->begin(), run->end(), k.name) == run->end()) continue;
    Unit u{k.name, detail::kernel_code(m0.program, g0, k.name), detail::kernel_code(m1.program, g1, k.name), {}, {}, {}};
    calls = calls || detail::leaves_kernel(m0.program, u.c0) || detail::leaves_kernel(m1.program, u.c1);
    units.push_back(std::move(u));
  }
  if (calls) units.push_back(Unit{"(code outside every kernel)", detail::other_code(m0, g0), detail::other_code(m1, g1), {}, {}, {}});
  std::unordered_map<std::size_t, std::size_t> item0_to_item1;
  for (Unit& u : units) {
    u.pairs = align_sequences(token_seq(m0.program, u.c0), token_seq(m1.program, u.c1));
    u.kept0.assign(u.c0.size(), 0);
    u.kept1.assign(u.c1.size(), 0);
    for (const auto& [a, b] : u.pairs) u.kept0[a] = u.kept1[b] = 1, item0_to_item1[u.c0[a]] = u.c1[b];
  }
  for (Unit& u : units) {
    for (const auto& [a, b] : u.pairs) {
      const auto t0 = targets_of(m0.program.items[u.c0[a]].inst, l0), t1 = targets_of(m1.program.items[u.c1[b]].inst, l1);
      bool same = t0.size() == t1.size();
      for (std::size_t n = 0; same && n < t0.size(); ++n) {
        const auto it = item0_to_item1.find(t0[n]);
        // A label past the last instruction (item count) matches the same position on the other side.
        same = it != item0_to_item1.end() ? it->second == t1[n]
                                          : t0[n] == m0.program.items.size() && t1[n] == m1.program.items.size();
      }
      if (!same) u.kept0[a] = u.kept1[b] = 0;
    }
    std::size_t listed = 0;
    auto report = [&](const Program& p, std::size_t item, bool k1) {
      const Inst& in = p.items[item].inst;
      if (listed++ < max)
        out.push_back({u.name, std::string(k1 ? "K1 adds or changes " : "K1 deletes or changes K0's ") +
                                   detail::id_text(in.id) + " `" + print_inst(in) + "`, which no run of " +
                                   (k1 ? "K1" : "K0") +
                                   (is_branch(in)   ? " both took and (if conditional) fell through"
                                    : is_vector(in) ? " executed with a lane enabled"
                                                    : " executed") +
                                   ": the launch file does not exercise the change"});
    };
    auto in = [](const std::unordered_set<std::uint32_t>* set, const Inst& i) { return set && set->contains(i.id.value); };
    for (std::size_t a = 0; a < u.c0.size(); ++a) {
      const Inst& i0 = m0.program.items[u.c0[a]].inst;
      if (u.kept0[a] || in(skip0, i0) || (in(decided0, i0) && e0.ran.contains(i0.id.value))) continue;
      if (!exercised(m0.program, u.c0[a], e0, l0)) report(m0.program, u.c0[a], false);
    }
    for (std::size_t b = 0; b < u.c1.size(); ++b)
      if (!u.kept1[b] && !in(skip1, m1.program.items[u.c1[b]].inst) && !exercised(m1.program, u.c1[b], e1, l1))
        report(m1.program, u.c1[b], true);
  }
  return out;
}

}  // namespace asmevo::verify
