// EXPECT-SUCCESS
// Control: the same calls with correct registers compile, so the harness can tell success from failure.
#include "asmevo/ir/gen/builders_gfx90a.hpp"
#include "asmevo/ir/gen/builders_gfx942.hpp"

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
