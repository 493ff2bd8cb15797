// The peephole pass: the starter rules (rules.hpp) run to a fixed point, and peephole_with() for a rule set of
// one's own.
//
// Every rule removes an instruction, so the pass never makes a kernel longer and always ends. A move whose
// destination is dead is not a peephole: dead code is dce's. Removing an instruction can shorten the distance between
// a VALU write and a dependent read below a hazard's wait states, so a firing that adds a hazard finding is undone.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <string_view>

#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/rules.hpp"

namespace asmevo::passes {

/// The starter rules. The ISA facts are from the MI300 ISA guide's VOP2/VOP3 opcode tables (the same in the MI200
/// guide): V_LSHLREV_B32 D = S1 << S0[4:0]; V_ADD_U32 (gfx9, no carry) D = S0 + S1; V_LSHL_ADD_U32
/// D = (S0 << S1[4:0]) + S2; V_ADD_LSHL_U32 D = (S0 + S1) << S2[4:0]; V_ADD3_U32 D = S0 + S1 + S2;
/// V_AND_OR_B32 D = (S0 & S1) | S2; V_OR3_B32 D = S0 | S1 | S2. All are VALU: the fused instruction writes the
/// lanes the pair wrote (rules.hpp checks that exec does not change in between).
namespace peephole_rules {
using namespace vars;

// (x << k) + y == v_lshl_add_u32(x, k, y): both shift by k[4:0], and the add is mod 2^32 in both.
inline constexpr Rule fuse_shift_add =
    rule("fuse-shift-add",
         seq(op(op::v_lshlrev_b32, _t, _k, _x), op(op::v_add_u32, _d, _t, _y).commutative()).where(dead_after(_t)),
         emit(op::v_lshl_add_u32, _d, _x, _k, _y));

// (a + b) << k == v_add_lshl_u32(a, b, k): the shifted value must be the shift's S1 (lshlrev shifts S1 by S0).
inline constexpr Rule fuse_add_shift =
    rule("fuse-add-shift", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_lshlrev_b32, _d, _k, _t)).where(dead_after(_t)),
         emit(op::v_add_lshl_u32, _d, _a, _b, _k));

// (a + b) + c == v_add3_u32(a, b, c): addition mod 2^32 is associative.
inline constexpr Rule fuse_add_add =
    rule("fuse-add-add",
         seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c).commutative()).where(dead_after(_t)),
         emit(op::v_add3_u32, _d, _a, _b, _c));

// (a & b) | c == v_and_or_b32(a, b, c).
inline constexpr Rule fuse_and_or =
    rule("fuse-and-or",
         seq(op(op::v_and_b32, _t, _a, _b), op(op::v_or_b32, _d, _t, _c).commutative()).where(dead_after(_t)),
         emit(op::v_and_or_b32, _d, _a, _b, _c));

// (a | b) | c == v_or3_b32(a, b, c): or is associative.
inline constexpr Rule fuse_or_or =
    rule("fuse-or-or",
         seq(op(op::v_or_b32, _t, _a, _b), op(op::v_or_b32, _d, _t, _c).commutative()).where(dead_after(_t)),
         emit(op::v_or3_b32, _d, _a, _b, _c));

// x := x changes nothing: a VALU self move rewrites its active lanes with their own values; the SALU ones write no
// SCC (MI300 ISA, SOP1 S_MOV_B32 / S_MOV_B64).
inline constexpr Rule drop_self_move_v = rule("drop-self-move", seq(op(op::v_mov_b32, _x, _x)).where(unchanged(_x)), erase());
inline constexpr Rule drop_self_move_s = rule("drop-self-move", seq(op(op::s_mov_b32, _x, _x)).where(unchanged(_x)), erase());
inline constexpr Rule drop_self_move_s64 = rule("drop-self-move", seq(op(op::s_mov_b64, _x, _x)).where(unchanged(_x)), erase());

inline constexpr std::array starter{fuse_shift_add, fuse_add_shift, fuse_add_add,     fuse_and_or,
                                    fuse_or_or,     drop_self_move_v, drop_self_move_s, drop_self_move_s64};

}  // namespace peephole_rules

/// The peephole pass with the starter rules (see the file comment).
struct Peephole {
  static constexpr std::string_view name = "peephole";
  static constexpr std::string_view summary =
      "fuse shift/add/and/or pairs into one VALU instruction and drop self moves, to a fixed point";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    return run_rules(peephole_rules::starter, r, c);
  }
};

/// The peephole pass with a rule set of one's own, tried in the order given. Made by peephole_with().
template <std::size_t N>
struct PeepholeWith {
  static constexpr std::string_view name = "peephole-with";
  static constexpr std::string_view summary = "run the given peephole rules to a fixed point";
  static constexpr bool idempotent = true;
  std::array<Rule, N> rules;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const { return run_rules(rules, r, c); }
};

/// `peephole_with(my_rule, peephole_rules::fuse_add_add)`: a pass running those rules.
template <std::same_as<Rule>... R>
[[nodiscard]] constexpr PeepholeWith<sizeof...(R)> peephole_with(R... rules) {
  return PeepholeWith<sizeof...(R)>{{rules...}};
}

static_assert(Pass<Peephole> && Pass<PeepholeWith<1>>);

}  // namespace asmevo::passes
