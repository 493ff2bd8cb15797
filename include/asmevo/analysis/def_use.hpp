// Def-use chains: for every register an instruction reads, the instructions whose writes may reach that read (reaching
// definitions, a forward dataflow over the CFG to a fixed point), and for every write, the reads it may reach.
//
// Registers are units (analysis/detail/reg_units.hpp: s0..s101, vcc, exec, m0, scc, v0..v255, a0..a255). Two ways to
// treat a vector write (DefUse::Lanes):
//  - Lanes::per_lane (the default, sound for transformations): a VGPR/AGPR write never kills an earlier one, because
//    an exec-masked write keeps the old value in the lanes it does not write; so a read's definitions are every
//    write of the register on some path before it (a superset of the lanes that really flow).
//  - Lanes::whole: any write kills, as a register allocator sees it (what LLVM's MachineRegisterInfo def-use shows).
// Scalar writes always kill. A call (s_swappc_b64 / s_call_b64) reads every unit and writes none here; code it runs
// is not shown. A read no write in the kernel reaches is reported as reached by `entry` (live into the kernel: a
// hardware-initialised or argument register).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::analysis {

class DefUse {
 public:
  enum class Lanes : std::uint8_t { per_lane, whole };
  /// The pseudo-definition "live into the kernel".
  static constexpr std::size_t entry = ~std::size_t{0};

  /// Reaching definitions of the code reachable from `entry_block` of `g` (built from `p`).
  [[nodiscard]] static DefUse compute(const Program& p, const Cfg& g, std::uint32_t entry_block, Lanes lanes = Lanes::per_lane) {
    DefUse du;
    const auto order = g.reverse_post_order(entry_block);
    using Defs = std::vector<std::size_t>;  // sorted item indexes (entry = ~0 sorts last)
    using State = std::map<unsigned, Defs>;
    auto kills = [&](unsigned u) { return u < detail::unit_v0 || lanes == Lanes::whole; };
    auto transfer = [&](State& s, std::size_t item, bool record) {
      const Inst& in = p.items[item].inst;
      std::vector<unsigned> rd, wr;
      detail::unit_rw(in, rd, wr);
      if (family_of(in) == Family::s_call) {  // s_call_b64, s_swappc_b64
        rd.clear();
        for (unsigned u = 0; u < detail::num_units; ++u) rd.push_back(u);
      }
      if (record)
        for (const unsigned u : rd) {
          if (u >= detail::num_units) continue;
          const auto it = s.find(u);
          const Defs d = it == s.end() ? Defs{entry} : it->second;
          for (const auto w : d) du.uses_[{w, u}].push_back(item);
          du.defs_[{item, u}] = d;
        }
      for (const unsigned u : wr) {
        if (u >= detail::num_units) continue;
        Defs& d = s[u];
        if (kills(u)) d.clear();
        if (d.empty() && !kills(u)) d.push_back(entry);  // the old value may survive in other lanes
        if (!std::binary_search(d.begin(), d.end(), item)) d.insert(std::lower_bound(d.begin(), d.end(), item), item);
      }
    };
    // A unit missing from a state was not written on the paths it describes: only `entry` reaches it there.
    auto with_entry = [](Defs d) {
      if (!std::binary_search(d.begin(), d.end(), entry)) d.push_back(entry);  // entry = ~0 sorts last
      return d;
    };
    auto merge = [&](State& into, bool& init, const State& from) {
      if (!init) {
        init = true;
        into = from;
        return true;
      }
      bool changed = false;
      for (auto& [u, d] : into)
        if (!from.count(u) && !std::binary_search(d.begin(), d.end(), entry)) d = with_entry(std::move(d)), changed = true;
      for (const auto& [u, d] : from) {
        const auto it = into.find(u);
        const Defs cur = it == into.end() ? Defs{entry} : it->second;
        Defs out;
        std::set_union(cur.begin(), cur.end(), d.begin(), d.end(), std::back_inserter(out));
        if (it == into.end() || out != it->second) into[u] = std::move(out), changed = true;
      }
      return changed;
    };
    std::vector<State> in(g.blocks.size());
    std::vector<bool> init(g.blocks.size(), false);
    init[entry_block] = true;
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto b : order) {
        if (!init[b]) continue;
        State s = in[b];
        for (const auto i : g.blocks[b].insts) transfer(s, i, false);
        for (const auto n : g.succ[b]) {
          bool f = init[n];
          changed = merge(in[n], f, s) || changed;
          init[n] = f;
        }
      }
    }
    for (const auto b : order) {
      State s = in[b];
      for (const auto i : g.blocks[b].insts) transfer(s, i, true);
    }
    for (auto& [k, v] : du.uses_) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    return du;
  }

  /// The writes (item indexes, or `entry`) that may reach the read of `unit` by item `use`; empty if it does not read it.
  [[nodiscard]] const std::vector<std::size_t>& defs(std::size_t use, unsigned unit) const {
    static const std::vector<std::size_t> none;
    const auto it = defs_.find({use, unit});
    return it == defs_.end() ? none : it->second;
  }
  /// The reads (item indexes) the write of `unit` by item `def` (or `entry`) may reach.
  [[nodiscard]] const std::vector<std::size_t>& uses(std::size_t def, unsigned unit) const {
    static const std::vector<std::size_t> none;
    const auto it = uses_.find({def, unit});
    return it == uses_.end() ? none : it->second;
  }

 private:
  std::map<std::pair<std::size_t, unsigned>, std::vector<std::size_t>> defs_, uses_;
};

}  // namespace asmevo::analysis
