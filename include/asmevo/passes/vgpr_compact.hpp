// vgpr-compact: renumbers each kernel's ArchVGPRs and AccVGPRs so that the indices no instruction names disappear,
// lowering the kernel's register count (and, where that crosses an allocation granule, raising its occupancy:
// analysis/resources.hpp waves_per_simd). Sets PassStats::shrinks_resources so that the rebuild recounts the
// descriptor exactly (codeobject::RecountPolicy::exact) instead of keeping K0's larger counts. Idempotent.
//
// The renumbering is monotone and moves registers down by even amounts only, so every register tuple stays
// contiguous and keeps its parity (64-bit and wider VGPR/AGPR tuples must start at an even register on gfx90a and
// later: the OperandInfo::valign of the generated tables, from LLVM's AV_*_Align2 register classes). Registers the
// hardware initialises and the code reads at the kernel's entry (v0 with the work-item ids; analysis/liveness.hpp
// live-in at the entry) never move, and nothing below them does either. Conservative: a kernel that uses relative
// register indexing (s_set_gpr_idx_*, v_movrel*: the registers it touches are not named) or whose code another
// kernel also reaches is left alone, with a note.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/analysis/resources.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/passes/pass.hpp"

namespace asmevo::passes {

namespace detail {

/// The even-step monotone map of one register file: new index per old index (identity where unused).
[[nodiscard]] inline std::array<std::uint16_t, 256> compaction_map(const std::array<std::uint8_t, 256>& used,
                                                                  const std::array<std::uint8_t, 256>& joined,
                                                                  unsigned pinned_below) {
  std::array<std::uint16_t, 256> map{};
  unsigned removed = 0;
  for (unsigned i = 0; i < 256; ++i) {
    if (i >= pinned_below && !used[i] && !(i > 0 && joined[i - 1])) {
      // A run of unused registers: drop an even number of them.
      unsigned j = i;
      while (j < 256 && !used[j]) ++j;
      const unsigned run = j - i, drop = run / 2 * 2;
      for (unsigned k = i; k < j; ++k) map[k] = static_cast<std::uint16_t>(k - removed);
      removed += drop;
      i = j - 1;
      continue;
    }
    map[i] = static_cast<std::uint16_t>(i - removed);
  }
  return map;
}

}  // namespace detail

/// See the file comment.
struct VgprCompact {
  static constexpr std::string_view name = "vgpr-compact";
  static constexpr std::string_view summary =
      "renumber VGPRs/AGPRs to close unused gaps, lowering the register count (the descriptor is recounted)";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    st.shrinks_resources = true;
    const Program& p = r.program();
    const analysis::Cfg g = analysis::build_cfg(p);
    auto entries = kernel_entries(p, g, c);
    if (!entries) return unexpected(std::move(entries).error());
    // Which kernels reach each block: a block two kernels reach cannot be renumbered for one of them.
    std::vector<std::uint32_t> reach_count(g.blocks.size(), 0);
    for (const auto e : *entries)
      for (const auto b : g.reverse_post_order(e)) ++reach_count[b];
    const auto live = analysis::Liveness::compute(p, g);
    struct Plan {
      InstId id;
      Inst inst;
    };
    std::vector<Plan> plans;
    for (const auto e : *entries) {
      const auto blocks = g.reverse_post_order(e);
      const std::string kname = g.blocks[e].labels.empty() ? std::string("?") : g.blocks[e].labels.front();
      bool shared = false, indirect = false;
      std::array<std::array<std::uint8_t, 256>, 2> used{}, joined{};  // [0] VGPRs, [1] AGPRs
      std::vector<std::size_t> items;
      for (const auto b : blocks) {
        shared = shared || reach_count[b] > 1;
        for (const auto i : g.blocks[b].insts) {
          items.push_back(i);
          const Inst& in = p.items[i].inst;
          if (analysis::detail::is_relative_indexing(op_of(in))) indirect = true;
          for (const Operand& o : in.ops) {
            if (!o.is_reg() || (o.reg.file != RegFile::vgpr && o.reg.file != RegFile::agpr)) continue;
            const int f = o.reg.file == RegFile::agpr;
            for (unsigned k = 0; k < o.reg.dwords && o.reg.index + k < 256; ++k) {
              used[f][o.reg.index + k] = 1;
              if (k + 1 < o.reg.dwords) joined[f][o.reg.index + k] = 1;
            }
          }
        }
      }
      // A versioned kernel's fallback is K0's code, which the verifier requires unchanged (passes/specialize.hpp).
      const bool versioned = !detail::frozen_by_versioning(p, g, e).empty();
      if (shared || indirect || versioned) {
        st.notes.push_back("kernel '" + kname + "' left alone: " +
                           (shared     ? std::string("another kernel reaches its code")
                            : versioned ? std::string("it is versioned on its launch, and its fallback must stay K0's code")
                                        : std::string("it indexes registers relatively")));
        continue;
      }
      // Registers read at the entry before any write hold what the hardware put there: pin them and all below.
      std::array<unsigned, 2> pinned{0, 0};
      if (!g.blocks[e].insts.empty()) {
        const auto in0 = live.live_in(g.blocks[e].insts.front());
        for (unsigned v = 0; v < 256; ++v) {
          if (in0.test(analysis::detail::unit_v0 + v)) pinned[0] = std::max(pinned[0], v + 1);
          if (in0.test(analysis::detail::unit_a0 + v)) pinned[1] = std::max(pinned[1], v + 1);
        }
      }
      const std::array<std::array<std::uint16_t, 256>, 2> map{detail::compaction_map(used[0], joined[0], pinned[0]),
                                                              detail::compaction_map(used[1], joined[1], pinned[1])};
      std::sort(items.begin(), items.end());
      const std::size_t first_plan = plans.size();
      for (const auto i : items) {
        Inst in = p.items[i].inst;
        bool changed = false;
        for (Operand& o : in.ops) {
          if (!o.is_reg() || (o.reg.file != RegFile::vgpr && o.reg.file != RegFile::agpr) || o.reg.index >= 256) continue;
          const auto to = map[o.reg.file == RegFile::agpr][o.reg.index];
          if (to != o.reg.index) o.reg.index = to, changed = true;
        }
        if (changed) plans.push_back(Plan{in.id, std::move(in)});
      }
      // Renumbering is all or nothing per kernel: with code the launch does not exercise among the changed
      // instructions, no run could check the kernel's renumbering, so it is left alone.
      if (c.not_exercised)
        for (std::size_t k = first_plan; k < plans.size(); ++k)
          if (c.not_exercised->contains(plans[k].id.value)) {
            st.notes.push_back("kernel '" + kname + "' left alone: renumbering would change i" +
                               std::to_string(plans[k].id.value) + ", which the launch does not exercise");
            plans.resize(first_plan);
            break;
          }
    }
    for (auto& pl : plans)
      if (auto e = r.replace(pl.id, {pl.inst}, "vgpr-compact"); !e) return unexpected(std::move(e).error());
    return st;
  }
};

}  // namespace asmevo::passes
