// EXPECT-SUCCESS
// Control: the same calls with correct registers compile, so the harness can tell success from failure; likewise
// the peephole rules of rule_mistyped_op.cpp and rule_wrong_register_class.cpp, written correctly.
#include "asmevo/ir/gen/builders_gfx90a.hpp"
#include "asmevo/ir/gen/builders_gfx942.hpp"
#include "asmevo/passes/rules.hpp"

void f(asmevo::Program& p, asmevo::Program& q) {
  namespace g = asmevo::gfx942;
  g::Builder b{p};
  b.global_load_dwordx4(g::v<8, 11>, g::v<2, 3>, g::off);
  b.v_mov_b32(g::v<255>, g::v<0>);
  b.s_waitcnt(g::vmcnt<63>);
  b.v_add_f32(g::v<0>, g::s<1>, g::v<2>);
  namespace h = asmevo::gfx90a;
  h::Builder c{q};
  c.global_load_dwordx4(h::v<10, 13>, h::v<2, 3>, h::off);
}

namespace asmevo::passes {
using namespace vars;
constexpr Rule fuse_shift_add =
    rule("fuse-shift-add",
         seq(op(op::v_lshlrev_b32, _t, _k, _x), op(op::v_add_u32, _d, _t, _y).commutative()).where(dead_after(_t)),
         emit(op::v_lshl_add_u32, _d, _x, _k, _y));
constexpr Rule fuse_add_add =
    rule("fuse-add-add",
         seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c).commutative()).where(dead_after(_t)),
         emit(op::v_add3_u32, _d, _a, _b, _c));
constexpr Rule drop_self_move = rule("drop-self-move", seq(op(op::s_mov_b32, _x, _x)).where(unchanged(_x)), erase());
static_assert(fuse_shift_add.error.empty() && fuse_add_add.error.empty() && drop_self_move.error.empty());
}  // namespace asmevo::passes
