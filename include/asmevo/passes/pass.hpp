// The Pass concept, what a pass is told (PassContext) and what it reports (PassStats), and the helpers every pass
// shares for finding a kernel's code.
//
// A pass is a plain struct (no virtual base): a `static constexpr std::string_view name` (kebab-case, as
// `asmevo apply --pass` takes it), a one-line `summary`, and `Expected<PassStats> run(Rewriter&, const PassContext&)
// const`. It changes the program only through the Rewriter, so its changes are an edit log that can be undone,
// replayed and sent to an agent. Passes that take arguments read them from PassContext::args by name.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/rewriter.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::analysis {
struct LaunchFacts;  // analysis/known_bits.hpp: passes that need it include it
}  // namespace asmevo::analysis

namespace asmevo::passes {

/// What a pass is told about the program it edits.
struct PassContext {
  /// Entry labels of the kernels to transform (a code object's kernel symbols). Empty: every label that starts a
  /// block no other block reaches (the entries of a hand-written file).
  std::vector<std::string> kernels;
  /// XNACK on or "any" (the target id has no `xnack-`): the hazard rules differ.
  bool xnack = true;
  /// Named arguments (`--pass schedule:window=64` or an edit script's "args"), as text.
  std::map<std::string, std::string> args;
  /// When set: the instructions (InstId values) of the program the launch's runs did not exercise (issued with no
  /// lane enabled, or not at all; verify::Exercised). A pass then leaves every block holding one of them alone
  /// (editable_blocks), so that each change it makes lies on code the runs execute and the verifier's coverage gate
  /// can check it (`asmevo apply --launch`). Instructions a pass adds are never in it. Unset: every reachable block.
  std::shared_ptr<const std::unordered_set<std::uint32_t>> not_exercised;
  /// When set: what each shape of the launch file fixes (verify::launch_facts of K0, one entry per shape), for
  /// passes that version code on the launch (specialize). Unset: the pass knows no launch.
  std::shared_ptr<const std::vector<analysis::LaunchFacts>> launches;

  /// Argument `key` as an unsigned integer, `fallback` when absent; an error names the argument when it is not one.
  [[nodiscard]] Expected<std::uint64_t> uint_arg(std::string_view key, std::uint64_t fallback) const {
    const auto it = args.find(std::string(key));
    if (it == args.end()) return fallback;
    std::uint64_t v = 0;
    if (it->second.empty()) return fail(DiagCode::usage, "argument '" + it->first + "' needs a value");
    for (const char c : it->second) {
      if (c < '0' || c > '9' || v > (~std::uint64_t{0} - 9) / 10)
        return fail(DiagCode::usage, "argument '" + it->first + "' must be an unsigned integer, got '" + it->second + "'");
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return v;
  }
};

/// What one pass run changed.
struct PassStats {
  std::string pass;
  std::size_t edits = 0;       ///< edits it made (entries it added to the Rewriter's log)
  std::int64_t insts_delta = 0;  ///< instructions after minus before
  std::vector<std::string> notes;  ///< one line per decision worth telling a person (what it gave up, and why)
  /// The pass may lower the registers the code needs (vgpr-compact): the rebuild should recount the descriptor
  /// exactly (codeobject::RecountPolicy::exact) rather than keep K0's counts.
  bool shrinks_resources = false;
};

/// The Pass concept (see the file comment).
template <class P>
concept Pass = requires(const P& p, Rewriter& r, const PassContext& c) {
  { P::name } -> std::convertible_to<std::string_view>;
  { P::summary } -> std::convertible_to<std::string_view>;
  { p.run(r, c) } -> std::same_as<Expected<PassStats>>;
};

/// Runs one pass and fills in the bookkeeping every pass would otherwise repeat (name, edit count, size change).
template <Pass P>
[[nodiscard]] Expected<PassStats> run_pass(const P& pass, Rewriter& r, const PassContext& c) {
  const std::size_t edits0 = r.log().size();
  const auto n0 = static_cast<std::int64_t>(r.program().instruction_count());
  auto s = pass.run(r, c);
  if (!s) return s;
  s->pass = std::string(P::name);
  s->edits = r.log().size() - edits0;
  s->insts_delta = static_cast<std::int64_t>(r.program().instruction_count()) - n0;
  return s;
}

namespace detail {

/// The block execution really starts at for the kernel entered at block `b`: past a kernarg-preload compatibility
/// prologue (s_load*s, s_waitcnt, `s_branch L`, `.p2align 8`, `L:`; codeobject/recover_code.hpp), which firmware
/// that preloads kernel arguments skips by starting at entry + 256 (AMDGPUUsage "Preloaded Kernel Arguments"), as
/// the emulator does by default. Passes leave the prologue alone: its 256 bytes are a fixed layout, and no run the
/// verifier makes executes it, so it could not check a change there.
[[nodiscard]] inline std::uint32_t past_preload_prologue(const Program& p, const analysis::Cfg& g, std::uint32_t b) {
  const Block& blk = g.blocks[b];
  if (blk.insts.empty() || !blk.target || blk.falls_through) return b;
  for (std::size_t i = blk.insts.back() + 1; i < p.items.size(); ++i) {
    const Item& it = p.items[i];
    // Exactly the layout recovery writes: `.p2align 8` (256 bytes) directly before the label (analysis/kernel_scope.hpp
    // kernel_scope recognises the same).
    const auto align8 = [](const Item& d) { return d.kind == Item::Kind::directive && d.name == ".p2align" && d.text.rfind("8", 0) == 0; };
    if (align8(it)) continue;
    if (it.kind == Item::Kind::label && it.name == *blk.target && i > 0 && align8(p.items[i - 1]))
      if (const auto t = g.block_named(it.name)) return *t;
    if (it.kind != Item::Kind::blank && it.kind != Item::Kind::comment) break;
  }
  return b;
}

/// The blocks of a kernel versioned by `specialize` that no other pass may change: the guard at entry block `e`
/// (after SMEM loads and waits, one or more `s_cmp_* ...; s_cbranch_scc1 F` pairs, each ending a block, all to the
/// same F, falling through into the copy) and K0's code behind F, which the verifier requires unchanged
/// (verify/versioning.hpp). Empty when `e` starts no such guard.
[[nodiscard]] inline std::vector<std::uint32_t> frozen_by_versioning(const Program& p, const analysis::Cfg& g,
                                                                     std::uint32_t e) {
  using analysis::loops_detail::Op;
  std::vector<std::uint32_t> guard;
  std::optional<std::uint32_t> fb;
  std::uint32_t b = e;
  for (; b < g.blocks.size(); ++b) {
    const auto& ins = g.blocks[b].insts;
    std::size_t k = 0;
    if (b == e)
      while (k < ins.size()) {
        const auto& f = isa::forms(p.target)[p.items[ins[k]].inst.form];
        if (!f.has(isa::prop::smem) && !(f.has(isa::prop::sopp) && !f.has(isa::prop::branch))) break;
        ++k;
      }
    if (ins.size() != k + 2 || !g.blocks[b].target || !g.blocks[b].falls_through) break;
    if (isa::forms(p.target)[p.items[ins[k]].inst.form].format != isa::Format::SOPC ||
        analysis::loops_detail::loop_op(p.items[ins[k + 1]].inst).op != Op::cbranch_scc1)
      break;
    const auto t = g.block_named(*g.blocks[b].target);
    if (!t || (fb && *fb != *t) || *t == b + 1) break;
    fb = *t;
    guard.push_back(b);
  }
  if (!fb || guard.empty() || b >= g.blocks.size()) return {};
  std::vector<std::uint8_t> copy(g.blocks.size(), 0);
  for (const auto x : g.reverse_post_order(b)) copy[x] = 1;
  std::vector<std::uint32_t> k0;
  for (const auto x : g.reverse_post_order(*fb))
    if (!copy[x]) k0.push_back(x);
  // An early exit looks the same (`s_cmp; s_cbranch_scc1 .Lexit` at the entry). What only versioning makes: the
  // code behind F is K0's whole kernel, and the copy is that code folded -- no longer than it by more than a fifth
  // (a folded load becomes one move per dword), with at least 60% of its instructions also in it.
  std::multiset<std::string> fall;
  std::size_t n_copy = 0, shared = 0;
  auto text = [&](std::size_t i) {
    const Inst& in = p.items[i].inst;
    const auto& f = isa::forms(p.target)[in.form];
    return f.has(isa::prop::branch) ? std::string(f.mnemonic) : print_inst(in);
  };
  for (const auto x : k0)
    for (const auto i : g.blocks[x].insts) fall.insert(text(i));
  for (std::uint32_t x = 0; x < g.blocks.size(); ++x)
    if (copy[x])
      for (const auto i : g.blocks[x].insts) {
        ++n_copy;
        if (const auto it = fall.find(text(i)); it != fall.end()) ++shared, fall.erase(it);
      }
  std::size_t n_k0 = 0;
  for (const auto x : k0) n_k0 += g.blocks[x].insts.size();
  if (n_k0 * 5 < n_copy * 4 || shared * 5 < n_copy * 3) return {};
  guard.insert(guard.end(), k0.begin(), k0.end());
  return guard;
}

}  // namespace detail

/// The entry blocks of the kernels a pass transforms (PassContext::kernels, or the unreached labelled blocks), each
/// past a kernarg-preload prologue (detail::past_preload_prologue). A kernel whose label starts no block is an error
/// naming it.
[[nodiscard]] inline Expected<std::vector<std::uint32_t>> kernel_entries(const Program& p, const analysis::Cfg& g,
                                                                         const PassContext& c) {
  std::vector<std::uint32_t> out;
  if (!c.kernels.empty()) {
    for (const auto& k : c.kernels) {
      const auto b = g.block_named(k);
      if (!b) return fail(DiagCode::usage, "kernel '" + k + "': no label of that name starts a block of the program");
      out.push_back(detail::past_preload_prologue(p, g, *b));
    }
    return out;
  }
  for (std::uint32_t b = 0; b < g.blocks.size(); ++b)
    if (!g.blocks[b].labels.empty() && g.pred[b].empty() && !g.blocks[b].insts.empty())
      out.push_back(detail::past_preload_prologue(p, g, b));
  if (out.empty() && !g.blocks.empty()) out.push_back(0);
  return out;
}

/// Per Cfg block: true if some kernel entry of `entries` reaches it. Passes only touch reachable code: padding
/// after s_endpgm and other functions are not theirs to change.
[[nodiscard]] inline std::vector<std::uint8_t> reachable_blocks(const analysis::Cfg& g, const std::vector<std::uint32_t>& entries) {
  std::vector<std::uint8_t> r(g.blocks.size(), 0);
  for (const auto e : entries)
    for (const auto b : g.reverse_post_order(e)) r[b] = 1;
  return r;
}

/// Per Cfg block: true if a pass may change it -- some kernel entry of `entries` reaches it, it is not the guard or
/// K0's code of a kernel `specialize` versioned (detail::frozen_by_versioning) and, when the context restricts
/// passes to exercised code (PassContext::not_exercised), every instruction of it was exercised.
[[nodiscard]] inline std::vector<std::uint8_t> editable_blocks(const Program& p, const analysis::Cfg& g,
                                                               const std::vector<std::uint32_t>& entries,
                                                               const PassContext& c) {
  auto r = reachable_blocks(g, entries);
  for (const auto e : entries)
    for (const auto b : detail::frozen_by_versioning(p, g, e)) r[b] = 0;
  if (!c.not_exercised) return r;
  for (std::uint32_t b = 0; b < g.blocks.size(); ++b)
    for (const std::size_t i : g.blocks[b].insts)
      if (c.not_exercised->contains(p.items[i].inst.id.value)) {
        r[b] = 0;
        break;
      }
  return r;
}

}  // namespace asmevo::passes
