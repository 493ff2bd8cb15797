// The part of a program one kernel can execute: the instructions reachable from its entry over the CFG, and the
// registers that code names. The verifier's launch facts and the mutation operators both work in this scope.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::analysis {

/// What one kernel can execute, and the registers its code uses.
struct KernelScope {
  std::string kernel;            ///< the kernel's label (its symbol)
  std::string entry;             ///< the label execution starts at (the preload entry when the prologue is skipped)
  bool skipped_prologue = false; ///< a kernarg-preload compatibility prologue was left out
  std::vector<InstId> insts;     ///< instructions reachable from `entry`, in program order
  unsigned sgprs = 0, vgprs = 0, agprs = 0;  ///< 1 + the highest register of each file the reachable code names
};

/// The instructions of kernel `kernel` reachable from its entry over the CFG (analysis/cfg.hpp). Code after the
/// last s_endpgm (padding) and other kernels' code is not in scope. With `skip_preload_prologue`, a kernarg-preload
/// prologue (recovered as: s_load*s, s_waitcnt, `s_branch L`, `.p2align 8`, `L:`; codeobject/recover_code.hpp)
/// is left out and execution starts at L, as firmware that preloads kernel arguments starts at entry + 256
/// (AMDGPUUsage "Preloaded Kernel Arguments"), which is also how the emulator runs it by default.
[[nodiscard]] inline Expected<KernelScope> kernel_scope(const Program& p, std::string_view kernel,
                                                        bool skip_preload_prologue = true) {
  const analysis::Cfg g = analysis::build_cfg(p);
  auto b0 = g.block_named(kernel);
  if (!b0)
    return fail(DiagCode::usage, "no label '" + std::string(kernel) + "' starts a block of the program", Loc{p.file, 0, 0, {}});
  KernelScope s;
  s.kernel = std::string(kernel);
  s.entry = s.kernel;
  std::uint32_t entry = *b0;
  if (skip_preload_prologue) {
    const Block& blk = g.blocks[entry];
    if (!blk.insts.empty() && blk.target && !blk.falls_through) {
      // The label the prologue branches to must follow a `.p2align 8` directly.
      for (std::size_t i = blk.insts.back() + 1; i < p.items.size(); ++i) {
        const Item& it = p.items[i];
        if (it.kind == Item::Kind::directive && it.name == ".p2align" && it.text.rfind("8", 0) == 0) continue;
        if (it.kind == Item::Kind::label && it.name == *blk.target && i > 0 &&
            p.items[i - 1].kind == Item::Kind::directive && p.items[i - 1].name == ".p2align") {
          if (auto t = g.block_named(it.name)) {
            entry = *t;
            s.entry = it.name;
            s.skipped_prologue = true;
          }
        }
        if (it.kind != Item::Kind::blank && it.kind != Item::Kind::comment) break;
      }
    }
  }
  std::vector<std::size_t> items;
  for (std::uint32_t b : g.reverse_post_order(entry))
    for (std::size_t i : g.blocks[b].insts) items.push_back(i);
  std::sort(items.begin(), items.end());
  for (std::size_t i : items) {
    const Inst& in = p.items[i].inst;
    s.insts.push_back(in.id);
    for (const Operand& o : in.ops) {
      if (!o.is_reg()) continue;
      const unsigned end = o.reg.index + o.reg.dwords;
      if (o.reg.file == RegFile::sgpr) s.sgprs = std::max(s.sgprs, end);
      if (o.reg.file == RegFile::vgpr) s.vgprs = std::max(s.vgprs, end);
      if (o.reg.file == RegFile::agpr) s.agprs = std::max(s.agprs, end);
    }
  }
  return s;
}

}  // namespace asmevo::analysis
