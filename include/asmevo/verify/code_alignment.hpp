// How the verifier lines K1's code up with K0's: each kernel's instructions, their text with branch targets left
// out or made position-independent, the alignment of the two (support/text_diff.hpp), K0's ids carried over to K1,
// and the kernels a launch file runs. Not here: the gates that use the alignment (verify/code_gates.hpp,
// verify/coverage_gate.hpp, verify/state_check.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/resources.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/launch/kernargs.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/text_diff.hpp"

namespace asmevo::verify {

/// The alignment of two token sequences (support/text_diff.hpp), as the verifier aligns K0's and K1's code.
using ::asmevo::align_sequences;

namespace detail {

/// The items of kernel `name`'s code, in program order: every instruction reachable from its entry label in the
/// CFG, and every instruction between the label and its `.size` (analysis::kernel_items) even if unreachable.
/// Code reached only through a call (s_swappc_b64) is not in it: see other_code.
[[nodiscard]] inline std::vector<std::size_t> kernel_code(const Program& p, const analysis::Cfg& g, std::string_view name) {
  std::vector<std::size_t> idx;
  if (const auto e = g.block_named(name))
    for (const std::uint32_t b : g.reverse_post_order(*e))
      for (const std::size_t i : g.blocks[b].insts) idx.push_back(i);
  const auto own = analysis::kernel_items(p, name);
  if (!own.empty()) {
    const auto base = static_cast<std::size_t>(own.data() - p.items.data());
    for (std::size_t k = 0; k < own.size(); ++k)
      if (own[k].kind == Item::Kind::inst) idx.push_back(base + k);
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

/// The instructions of `m` that belong to no kernel (detail::kernel_code): what a call or an indirect jump may reach.
[[nodiscard]] inline std::vector<std::size_t> other_code(const codeobject::Module& m, const analysis::Cfg& g) {
  std::vector<bool> owned(m.program.items.size(), false);
  for (const auto& k : m.kernels)
    for (const std::size_t i : kernel_code(m.program, g, k.name)) owned[i] = true;
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < m.program.items.size(); ++i)
    if (m.program.items[i].kind == Item::Kind::inst && !owned[i]) idx.push_back(i);
  return idx;
}

/// Whether `in` is a branch with a symbolic target (a label operand): s_branch, s_cbranch_*, s_call_b64. A branch
/// without one (s_setpc_b64: LLVM marks it isBranch but not isIndirectBranch) jumps through a register.
[[nodiscard]] inline bool direct_branch(const Inst& in) {
  const auto& f = isa::forms(in.target)[in.form];
  if (!f.has(isa::prop::branch) || f.has(isa::prop::indirect_branch)) return false;
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].kind == isa::Kind::label && in.ops[k].kind == Operand::Kind::expr) return true;
  return false;
}

/// Whether any of the instructions `idx` of `p` calls (s_swappc_b64, s_call_b64) or jumps through a register
/// (a branch without a label operand, as analysis::build_cfg decides): code outside the kernel may then run.
[[nodiscard]] inline bool leaves_kernel(const Program& p, std::span<const std::size_t> idx) {
  for (const std::size_t i : idx) {
    const Inst& in = p.items[i].inst;
    const auto& f = isa::forms(in.target)[in.form];
    if (f.has(isa::prop::call) || (f.has(isa::prop::branch) && !direct_branch(in))) return true;
  }
  return false;
}

/// `in` printed without its id, each branch-target operand (a form operand of kind label) replaced by
/// `target(label text)`.
template <class F>
[[nodiscard]] std::string inst_text(const Inst& in, F&& target) {
  const auto ops = isa::operands(isa::forms(in.target)[in.form]);
  std::optional<Inst> copy;
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].kind == isa::Kind::label && in.ops[k].kind == Operand::Kind::expr) {
      if (!copy) copy = in;
      copy->ops[k].text = target(in.ops[k].text);
    }
  return print_inst(copy ? *copy : in);
}

/// For every label of `p`: the item index of the first instruction after it (p.items.size() when none).
[[nodiscard]] inline std::unordered_map<std::string, std::size_t> label_targets(const Program& p) {
  std::unordered_map<std::string, std::size_t> out;
  std::vector<std::string_view> pending;
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    const Item& it = p.items[i];
    if (it.kind == Item::Kind::label) pending.push_back(it.name);
    if (it.kind != Item::Kind::inst) continue;
    for (auto l : pending) out.emplace(std::string(l), i);
    pending.clear();
  }
  for (auto l : pending) out.emplace(std::string(l), p.items.size());
  return out;
}

/// The code `idx` (sorted item indexes) as text that does not depend on label names: each branch target is written
/// as `@N`, N its target's position in `idx`, or `@outside:NAME` when the target is not in it. Two such texts are
/// equal exactly when the instructions and the branch structure are.
[[nodiscard]] inline std::vector<std::string> code_text(const Program& p, std::span<const std::size_t> idx,
                                                       const std::unordered_map<std::string, std::size_t>& targets) {
  std::vector<std::string> out;
  out.reserve(idx.size());
  for (const std::size_t i : idx)
    out.push_back(inst_text(p.items[i].inst, [&](const std::string& label) {
      const auto t = targets.find(label);
      if (t != targets.end()) {
        const auto pos = std::lower_bound(idx.begin(), idx.end(), t->second);
        if (pos != idx.end() && *pos == t->second) return "@" + std::to_string(pos - idx.begin());
      }
      return "@outside:" + label;
    }));
  return out;
}

/// The instructions `idx` of `p` as tokens for align_sequences: equal tokens for equal instruction texts with every
/// branch target left out (so renamed labels still match), numbered through `tokens`, which both sides share.
[[nodiscard]] inline std::vector<std::uint32_t> tokens_of(const Program& p, std::span<const std::size_t> idx,
                                                         std::unordered_map<std::string, std::uint32_t>& tokens) {
  std::vector<std::uint32_t> seq;
  seq.reserve(idx.size());
  for (const std::size_t i : idx) {
    const std::string t = inst_text(p.items[i].inst, [](const std::string&) { return std::string("<label>"); });
    seq.push_back(tokens.emplace(t, static_cast<std::uint32_t>(tokens.size())).first->second);
  }
  return seq;
}

/// K1's program with K0's instruction ids where the two align (align_sequences over every instruction of each
/// program, branch targets left out), and fresh ids past both programs' for the rest. K1 recovered from its bytes
/// numbers its instructions anew, so after an insertion every later id shifts, and the equivalence prover, which
/// matches the two programs by id, would see a change running to the end of the code.
[[nodiscard]] inline Program with_k0_ids(const Program& p0, const Program& p1) {
  std::vector<std::size_t> c0, c1;
  for (std::size_t i = 0; i < p0.items.size(); ++i)
    if (p0.items[i].kind == Item::Kind::inst) c0.push_back(i);
  for (std::size_t i = 0; i < p1.items.size(); ++i)
    if (p1.items[i].kind == Item::Kind::inst) c1.push_back(i);
  std::unordered_map<std::string, std::uint32_t> tokens;
  const auto t0 = tokens_of(p0, c0, tokens), t1 = tokens_of(p1, c1, tokens);
  Program out = p1;
  std::vector<bool> matched(c1.size(), false);
  for (const auto& [i0, i1] : align_sequences(t0, t1)) {
    out.items[c1[i1]].inst.id = p0.items[c0[i0]].inst.id;
    matched[i1] = true;
  }
  std::uint32_t next = std::max(p0.next_id, p1.next_id);
  for (std::size_t k = 0; k < c1.size(); ++k)
    if (!matched[k]) out.items[c1[k]].inst.id = InstId{next++};
  out.next_id = next;
  return out;
}

/// `in` with every register index set to 0 (file, width and modifiers kept), printed: what an instruction computes
/// apart from which registers it names, so that renaming (vgpr-compact) or moving it keeps the text.
[[nodiscard]] inline std::string shape_text(const Inst& in) {
  Inst copy = in;
  for (auto& o : copy.ops)
    if (o.is_reg()) o.reg.index = 0;
  return inst_text(copy, [](const std::string&) { return std::string("<label>"); });
}

/// The names under which the specs of `shapes` run kernels of `m` (as select_kernel picks them: by symbol without
/// ".kd" or by .name, so both are listed), or nullopt when a spec names no kernel and `m` holds several (its run then
/// fails with a usage error of its own).
[[nodiscard]] inline std::optional<std::vector<std::string>> launched_names(const codeobject::Module& m,
                                                                           std::span<const LaunchSpec> shapes) {
  std::vector<std::string> run;
  const auto metas = codeobject::kernels(m.metadata);
  for (const auto& s : shapes) {
    if (s.kernel.empty() && m.kernels.size() != 1) return std::nullopt;
    run.push_back(s.kernel.empty() ? m.kernels.front().name : s.kernel);
    if (!metas) continue;
    if (auto k = select_kernel(*metas, s)) {
      std::string_view sym = (*k)->symbol;
      if (sym.ends_with(".kd")) sym.remove_suffix(3);
      run.emplace_back(sym);
      run.push_back((*k)->name);
    }
  }
  return run;
}

}  // namespace detail

}  // namespace asmevo::verify
