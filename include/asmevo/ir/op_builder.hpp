// Typed builds for code that runs on any target (passes, rules): name the op by id, get the instruction as a value.
//
//   Expected<Inst> nop = build_inst<op::s_nop>(p.target, n);          // the op fixed: arguments checked at compile
//                                                                     // time against every target that has it
//   Expected<Inst> wide = build_inst(p.target, find_op(want), args);  // the op chosen at run time: checked then
//
// Both build as a target's typed builders do (asmevo/ir/builder.hpp: BuilderCore::emit, detail::match_form, the
// parser's own operand rules), without the generated per-target headers, which code that only knows its target at
// run time would have to include all of. Code written for one target uses that target's Builder instead.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "asmevo/ir/builder.hpp"
#include "asmevo/ir/op.hpp"

namespace asmevo {

namespace detail {

/// A builder of target T without a sink, whose emit() build_inst may call with a mnemonic named by an Opcode.
template <Target T>
struct OpValueBuilder : BuilderCore<T> {
  using BuilderCore<T>::emit;
};

[[nodiscard]] inline Unexpected target_lacks(Target t, Opcode o) {
  return fail(DiagCode::unknown_mnemonic, std::string(to_string(t)) + " has no " + std::string(op_name(o)));
}

/// build_inst<O> on target T: the typed builder's call, its failed state turned into the error.
template <Target T, Opcode O, class... A>
[[nodiscard]] Expected<Inst> build_on(const A&... a) {
  if constexpr (!available(T, O)) {
    return target_lacks(T, O);
  } else {
    constexpr std::string_view m = op_name(O);
    OpValueBuilder<T> b;
    auto in = b.template emit<Name<m.size() + 1>(m)>(a...);
    if constexpr (std::same_as<decltype(in), Inst>) {
      if (!b.ok()) return unexpected(*b.error());
      return in;
    } else {
      return in;
    }
  }
}

}  // namespace detail

/// Builds op O on target `t` from the typed builders' arguments (registers, constants, waits, `off`, modifiers).
/// The arguments are checked at compile time against the forms of O on every target that has it (one static_assert
/// per mistake, as a target's builder gives); what only run time knows (register values, the target) is checked when
/// it is called. The error names the instruction, the operand and the rule, or that `t` has no O.
template <Opcode O, builder_arg... A>
[[nodiscard]] Expected<Inst> build_inst(Target t, const A&... a) {
  switch (t) {
    case Target::gfx90a: return detail::build_on<Target::gfx90a, O>(a...);
    case Target::gfx942: return detail::build_on<Target::gfx942, O>(a...);
    case Target::gfx950: return detail::build_on<Target::gfx950, O>(a...);
  }
  return detail::target_lacks(t, O);
}

/// Builds op `o`, chosen at run time (find_op, a rule's replacement), on target `t`: the first form of `o` in the
/// assembler's preference order that accepts `args` (detail::match_form, as a typed builder's run-time call). The
/// error names the instruction, the operand and the rule, or that `t` has no `o`.
[[nodiscard]] inline Expected<Inst> build_inst(Target t, Opcode o, std::span<const detail::RtArg> args) {
  const OpForms r = op_forms(t, o);
  if (!r.count) return detail::target_lacks(t, o);
  const auto fs = isa::forms(t);
  std::uint64_t mask = 0;
  for (std::size_t k = 0; k < r.count && k < 64; ++k)
    if (fs[r.first + k].has(isa::prop::asm_matchable)) mask |= std::uint64_t{1} << k;
  return detail::match_candidates(t, op_name(o), r.first, mask, args);
}

}  // namespace asmevo
