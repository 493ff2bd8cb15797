// EXPECT-ERROR: violates the constant bus limit
// gfx9 VALU instructions read at most one SGPR: s1 and s2 in one v_add_f32 fit no form.
#include "asmevo/ir/gen/builders_gfx942.hpp"

void f(asmevo::Program& p) {
  namespace g = asmevo::gfx942;
  g::Builder b{p};
  b.v_add_f32(g::v<0>, g::s<1>, g::s<2>);
}
