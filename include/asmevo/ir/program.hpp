// Inst, Item and Program: instructions with stable ids inside a program that keeps labels, directives and comments.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "asmevo/ir/operand.hpp"
#include "asmevo/ir/target.hpp"

namespace asmevo {

/// Stable instruction id (`i42`): assigned once, survives edits, never reused within a program.
struct InstId {
  std::uint32_t value = 0;
  friend constexpr auto operator<=>(InstId, InstId) = default;
};

/// One machine instruction: a form of the target's instruction table plus one Operand per
/// operand slot of that form (in the form's operand order; absent optional slots stay absent).
struct Inst {
  InstId id{};
  Target target = Target::gfx942;
  std::uint16_t form = 0;        ///< index into isa::forms(target)
  std::vector<Operand> ops;      ///< one per form operand
  std::string comment;           ///< trailing comment other than the id

  friend bool operator==(const Inst& a, const Inst& b) {
    return a.target == b.target && a.form == b.form && a.ops == b.ops;  // ids and comments are not semantics
  }
};

/// `.amdhsa_kernel NAME` … `.end_amdhsa_kernel`: the descriptor fields in source order.
struct KernelBlock {
  std::string name;
  std::vector<std::pair<std::string, std::string>> fields;  ///< (`.amdhsa_next_free_vgpr`, `32`)
};

/// One element of a program in source order.
struct Item {
  enum class Kind : std::uint8_t {
    inst,       ///< an instruction
    label,      ///< `name:`
    directive,  ///< any other directive, kept verbatim (`.p2align 8`)
    kernel,     ///< an `.amdhsa_kernel` block, kept structured
    metadata,   ///< an `.amdgpu_metadata` block (YAML text between the markers)
    comment,    ///< a whole-line comment
    blank,      ///< an empty line
  };
  Kind kind = Kind::blank;
  Inst inst;              ///< kind == inst
  std::string name;       ///< label name, directive name (with the dot)
  std::string text;       ///< directive arguments, metadata YAML, comment text
  KernelBlock kernel;     ///< kind == kernel
  std::string comment;    ///< trailing comment of a label or directive line
  std::uint32_t line = 0; ///< source line (0 if made by an edit)
};

/// A parsed or recovered program for one target.
struct Program {
  Target target = Target::gfx942;
  std::string file;              ///< where it came from, for diagnostics
  std::vector<Item> items;
  std::uint32_t next_id = 0;     ///< the next fresh InstId

  [[nodiscard]] InstId fresh_id() noexcept { return InstId{next_id++}; }

  /// Finds an instruction by id (linear; analyses build their own indexes).
  [[nodiscard]] const Inst* find(InstId id) const noexcept {
    for (const auto& it : items)
      if (it.kind == Item::Kind::inst && it.inst.id == id) return &it.inst;
    return nullptr;
  }
  [[nodiscard]] std::size_t instruction_count() const noexcept {
    std::size_t n = 0;
    for (const auto& it : items) n += it.kind == Item::Kind::inst;
    return n;
  }
};

}  // namespace asmevo
