// Basic blocks of a Program: maximal runs of instructions entered only at the top (a label) and left only
// at the bottom (a branch, s_endpgm, or falling into the next label).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo {

/// One basic block: the program items it spans and how control leaves it.
struct Block {
  std::vector<std::string> labels;      ///< labels that name its first instruction (may be empty)
  std::vector<std::size_t> insts;       ///< indexes into Program::items of its instructions, in order
  std::optional<std::string> target;    ///< branch target label of its last instruction, if symbolic
  bool falls_through = true;            ///< control may continue into the next block
  bool ends_in_branch = false;          ///< its last instruction is a (conditional or not) branch
};

/// Splits a program into basic blocks. Labels start a block; an instruction that is a branch or ends the
/// wave (LLVM isBranch / isTerminator / isBarrier, from the generated table) ends one.
[[nodiscard]] inline std::vector<Block> basic_blocks(const Program& p) {
  std::vector<Block> out;
  Block cur;
  auto flush = [&] {
    if (!cur.insts.empty() || !cur.labels.empty()) out.push_back(std::move(cur));
    cur = Block{};
  };
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    const Item& it = p.items[i];
    if (it.kind == Item::Kind::label) {
      if (!cur.insts.empty()) flush();
      cur.labels.push_back(it.name);
      continue;
    }
    if (it.kind != Item::Kind::inst) continue;
    cur.insts.push_back(i);
    const auto& f = isa::forms(it.inst.target)[it.inst.form];
    if (f.has(isa::prop::branch) || f.has(isa::prop::terminator) || f.has(isa::prop::no_fallthrough)) {
      cur.ends_in_branch = f.has(isa::prop::branch);
      cur.falls_through = !f.has(isa::prop::no_fallthrough);
      const auto ops = isa::operands(f);
      for (std::size_t k = 0; k < ops.size() && k < it.inst.ops.size(); ++k)
        if (ops[k].kind == isa::Kind::label && it.inst.ops[k].kind == Operand::Kind::expr) cur.target = it.inst.ops[k].text;
      flush();
    }
  }
  flush();
  return out;
}

}  // namespace asmevo
