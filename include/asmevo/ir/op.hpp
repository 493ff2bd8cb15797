// What an instruction is, as a typed opcode id: the Opcode of an Inst, the attributes its mnemonic encodes (family,
// base operation, compare condition, data types, memory bytes, MFMA shape, flags) and its forms on a target.
// Code asks these instead of comparing mnemonic text (STYLE principle 5); the tables are generated into
// asmevo/ir/gen/ops.hpp by tools/isagen/gen_ops.py, the one place that reads mnemonics.
//
//   if (op_of(in) == op::s_waitcnt) ...                          // one op
//   if (one_of(op_of(in), op::s_call_b64, op::s_swappc_b64)) ... // a set of ops
//   if (family_of(in) == Family::v_cmpx) ...                     // a family
//   const OpInfo& i = op_info(in); i.mem_bytes, i.cond, i.type, i.has(opflag::d16) ...
//
// Cheap to include: it does not pull in the instruction tables (asmevo/ir/gen/isa_tables.hpp, ~4 s to parse);
// only forms_of needs them, see there.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>

#include "asmevo/ir/gen/ops.hpp"
#include "asmevo/ir/isa_info.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo {

namespace isa {
// Defined in asmevo/ir/gen/isa_tables.hpp. Declared here (same declaration) so that forms_of can name it without
// this header parsing the tables.
[[nodiscard]] constexpr std::span<const FormInfo> forms(Target t) noexcept;
}  // namespace isa

/// The Opcode of form `form` of target `t` (an index into isa::forms(t)); Opcode::invalid when out of range. O(1).
[[nodiscard]] constexpr Opcode op_of(Target t, std::size_t form) noexcept {
  const auto ops = form_ops(t);
  return form < ops.size() ? ops[form] : Opcode::invalid;
}

/// The Opcode of `in`; Opcode::invalid for a form index outside its target's table (an Inst built by hand). O(1).
[[nodiscard]] constexpr Opcode op_of(const Inst& in) noexcept { return op_of(in.target, in.form); }

/// What the mnemonic of `in` says about it (all zero, Family::none, for Opcode::invalid).
[[nodiscard]] constexpr const OpInfo& op_info(const Inst& in) noexcept { return op_info(op_of(in)); }

[[nodiscard]] constexpr Family family_of(Opcode o) noexcept { return op_info(o).family; }
[[nodiscard]] constexpr Family family_of(const Inst& in) noexcept { return op_info(in).family; }

/// True if `x` equals one of `set`: `one_of(op_of(in), op::s_call_b64, op::s_swappc_b64)`,
/// `one_of(family_of(in), Family::s_dcache, Family::s_icache)`.
template <class E, std::same_as<E>... Es>
  requires std::is_enum_v<E>
[[nodiscard]] constexpr bool one_of(E x, Es... set) noexcept {
  return ((x == set) || ...);
}

/// The op whose attributes are exactly `want`, or Opcode::invalid. OpInfo is lossless (gen_ops.py checks that no two
/// ops share one), so this finds siblings: the same compare with another condition, the dwordx4 form of a dword
/// load, the s_or counterpart of s_and_saveexec_b64. Linear in num_ops (about 1300 entries).
[[nodiscard]] constexpr Opcode find_op(const OpInfo& want) noexcept {
  for (std::size_t i = 1; i < num_ops; ++i)
    if (ops_detail::op_infos[i] == want) return static_cast<Opcode>(i);
  return Opcode::invalid;
}

/// The forms of `o` on target `t`, in matcher preference order: the same run as
/// isa::find_mnemonic(t, op_name(o)), found in O(1); empty if `t` lacks `o`.
/// Needs the instruction tables: include asmevo/ir/gen/isa_tables.hpp (or asmevo/ir/inst_form.hpp) where it is
/// called. (A template, so that a translation unit that includes this header but never calls it does not need
/// them; one that calls it without them fails to compile in a constant expression and to link otherwise.)
template <std::same_as<Target> T>
[[nodiscard]] constexpr std::span<const isa::FormInfo> forms_of(T t, Opcode o) noexcept {
  const OpForms r = op_forms(t, o);
  return isa::forms(t).subspan(r.first, r.count);
}

}  // namespace asmevo
