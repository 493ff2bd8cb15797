// Register liveness: which registers (units, analysis/detail/reg_units.hpp) may be read, on some path, before they
// are written again. A backward dataflow analysis over the CFG to a fixed point, at block granularity; the live-in
// set of one instruction is computed from its block's live-out on demand.
//
// Register-granular: a write kills the whole register even where it keeps some lanes or bits (an exec-masked VALU
// write, SDWA that preserves), except that a destination partial_def says keeps old bits also counts as read. So a
// value only a disabled lane carries across such a write is not live: the sets are what a register allocator would
// compute, not a bound on every bit that can flow. A call (s_swappc_b64, s_call_b64) reads every register, and a
// block ending in an indirect branch has the successors the CFG gives it (every labelled block).
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::analysis {

using UnitSet = std::bitset<detail::num_units>;

class Liveness {
 public:
  /// Computes block live-out sets of every block of `g` (built from `p`). `p` and `g` must outlive the result.
  [[nodiscard]] static Liveness compute(const Program& p, const Cfg& g) {
    Liveness L(p, g);
    const std::size_t n = g.blocks.size();
    std::vector<UnitSet> gen(n), kill(n);
    for (std::size_t b = 0; b < n; ++b) {
      UnitSet live;
      const auto& insts = g.blocks[b].insts;
      for (auto it = insts.rbegin(); it != insts.rend(); ++it) step(p.items[*it].inst, live, &kill[b]);
      gen[b] = live;
    }
    L.out_.assign(n, UnitSet{});
    std::vector<UnitSet> in(n);
    // Round-robin in reverse block order (most edges go forward) until nothing changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t k = n; k-- > 0;) {
        UnitSet out;
        for (const std::uint32_t s : g.succ[k]) out |= in[s];
        if (out != L.out_[k]) L.out_[k] = out;
        const UnitSet nin = gen[k] | (out & ~kill[k]);
        if (nin != in[k]) in[k] = nin, changed = true;
      }
    }
    return L;
  }

  /// Units live right before item `item` (an instruction) runs; empty for an item in no block.
  [[nodiscard]] UnitSet live_in(std::size_t item) const {
    const std::uint32_t b = item < g_->block_of.size() ? g_->block_of[item] : Cfg::none;
    if (b == Cfg::none) return {};
    UnitSet live = out_[b];
    const auto& insts = g_->blocks[b].insts;
    for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
      step(p_->items[*it].inst, live, nullptr);
      if (*it == item) break;
    }
    return live;
  }

  /// Units live when block `b` ends.
  [[nodiscard]] const UnitSet& live_out_of_block(std::uint32_t b) const { return out_[b]; }

  /// The backward transfer of one instruction: live = (live - writes) | reads. `kill`, when given, collects the
  /// units written before (in program order) any read of them in the block.
  static void step(const Inst& in, UnitSet& live, UnitSet* kill) {
    std::vector<unsigned> rd, wr;
    detail::unit_rw(in, rd, wr);
    for (const unsigned u : wr)
      if (u < detail::num_units) {
        live.reset(u);
        if (kill) kill->set(u);
      }
    if (family_of(in) == Family::s_call) {  // s_call_b64, s_swappc_b64
      live.set();
      if (kill) kill->reset();
      return;
    }
    for (const unsigned u : rd)
      if (u < detail::num_units) {
        live.set(u);
        if (kill) kill->reset(u);
      }
  }

 private:
  Liveness(const Program& p, const Cfg& g) : p_(&p), g_(&g) {}
  const Program* p_;
  const Cfg* g_;
  std::vector<UnitSet> out_;
};

}  // namespace asmevo::analysis
