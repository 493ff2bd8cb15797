// Control-flow graph of a Program: its basic blocks (ir/blocks.hpp) joined by branch and fall-through edges,
// with the per-kernel entry and a reverse post-order for forward dataflow analyses.
//
// Conservative where the code does not say where control goes: an indirect branch (s_setpc_b64, or any branch
// without a symbolic target) may reach every labelled block, and a call (s_swappc_b64 / s_call_b64) is assumed to return
// to the next instruction. A branch to a label that names no block is recorded in `unresolved`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "asmevo/ir/blocks.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::analysis {

/// Blocks and edges of one Program (all its kernels and functions).
struct Cfg {
  static constexpr std::uint32_t none = ~0u;

  std::vector<Block> blocks;
  std::vector<std::vector<std::uint32_t>> succ, pred;  ///< per block, without duplicates
  std::vector<bool> indirect;                          ///< the block ends in an indirect branch
  std::vector<std::uint32_t> block_of;                 ///< per Program item: its block, or `none`
  std::vector<std::string> unresolved;                 ///< branch targets that name no block
  std::unordered_map<std::string, std::uint32_t> label_block;

  /// The block a label starts, if any.
  [[nodiscard]] std::optional<std::uint32_t> block_named(std::string_view label) const {
    const auto it = label_block.find(std::string(label));
    if (it == label_block.end()) return std::nullopt;
    return it->second;
  }

  /// The blocks reachable from `entry`, in reverse post-order (a block before its successors, except along back
  /// edges): the order a forward dataflow analysis converges fastest in.
  [[nodiscard]] std::vector<std::uint32_t> reverse_post_order(std::uint32_t entry) const {
    std::vector<std::uint32_t> post;
    if (entry >= blocks.size()) return post;
    std::vector<std::uint8_t> seen(blocks.size(), 0);
    // Iterative DFS: (block, next successor to visit).
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{entry, 0}};
    seen[entry] = 1;
    while (!stack.empty()) {
      auto& [b, k] = stack.back();
      if (k < succ[b].size()) {
        const std::uint32_t s = succ[b][k++];
        if (!seen[s]) {
          seen[s] = 1;
          stack.emplace_back(s, 0);
        }
        continue;
      }
      post.push_back(b);
      stack.pop_back();
    }
    return {post.rbegin(), post.rend()};
  }
};

/// Builds the CFG of `p`.
[[nodiscard]] inline Cfg build_cfg(const Program& p) {
  Cfg g;
  g.blocks = basic_blocks(p);
  const auto n = static_cast<std::uint32_t>(g.blocks.size());
  g.succ.assign(n, {});
  g.pred.assign(n, {});
  g.indirect.assign(n, false);
  g.block_of.assign(p.items.size(), Cfg::none);
  for (std::uint32_t b = 0; b < n; ++b) {
    for (const auto& l : g.blocks[b].labels) g.label_block.emplace(l, b);
    for (const std::size_t i : g.blocks[b].insts) g.block_of[i] = b;
  }
  auto edge = [&](std::uint32_t from, std::uint32_t to) {
    for (const std::uint32_t s : g.succ[from])
      if (s == to) return;
    g.succ[from].push_back(to);
    g.pred[to].push_back(from);
  };
  for (std::uint32_t b = 0; b < n; ++b) {
    const Block& blk = g.blocks[b];
    if (!blk.insts.empty()) {
      const Inst& last = p.items[blk.insts.back()].inst;
      const auto& f = isa::forms(last.target)[last.form];
      // LLVM does not mark S_SETPC_B64 isIndirectBranch (only isBranch/isBarrier/isTerminator), so a branch
      // without a symbolic target counts as indirect too.
      if (f.has(isa::prop::indirect_branch) || (blk.ends_in_branch && !blk.target)) {
        g.indirect[b] = true;
        for (std::uint32_t t = 0; t < n; ++t)
          if (!g.blocks[t].labels.empty()) edge(b, t);
      }
    }
    if (blk.target) {
      if (const auto t = g.block_named(*blk.target))
        edge(b, *t);
      else
        g.unresolved.push_back(*blk.target);
    }
    if (blk.falls_through && b + 1 < n) edge(b, b + 1);
  }
  return g;
}

}  // namespace asmevo::analysis
