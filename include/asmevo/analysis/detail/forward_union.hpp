// A forward "may" dataflow over register units: the fixed point that undefined_reads.hpp and hardware_values.hpp
// share (a unit is in a block's set when some path from the kernel's entry carries it there).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/liveness.hpp"

namespace asmevo::analysis::detail {

/// Runs `transfer(block, in, report)` (which returns the block's out-set) over the blocks of `g` reachable from
/// `entry` to a fixed point, where a block's in-set is the union of its reachable predecessors' out-sets, and the
/// entry's also holds `start`; then once more per reachable block in address order with `report` set, from its
/// final in-set, so that what the transfer reports comes in program order and exactly once.
template <class Transfer>
void forward_union(const Cfg& g, std::uint32_t entry, const UnitSet& start, Transfer&& transfer) {
  const std::vector<std::uint32_t> order = g.reverse_post_order(entry);
  if (order.empty()) return;
  const std::size_t n = g.blocks.size();
  std::vector<UnitSet> in_of(n), out_of(n);
  std::vector<std::uint8_t> reached(n, 0);
  for (const auto b : order) reached[b] = 1;
  for (bool changed = true; changed;) {
    changed = false;
    for (const std::uint32_t b : order) {
      UnitSet in = b == entry ? start : UnitSet{};
      for (const std::uint32_t pr : g.pred[b])
        if (reached[pr]) in |= out_of[pr];
      const UnitSet o = transfer(b, in, false);
      if (in != in_of[b] || o != out_of[b]) {
        in_of[b] = in;
        out_of[b] = o;
        changed = true;
      }
    }
  }
  std::vector<std::uint32_t> by_address(order.begin(), order.end());
  std::sort(by_address.begin(), by_address.end());
  for (const std::uint32_t b : by_address) (void)transfer(b, in_of[b], true);
}

}  // namespace asmevo::analysis::detail
