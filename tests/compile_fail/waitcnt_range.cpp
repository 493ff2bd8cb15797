// EXPECT-ERROR: vmcnt out of range
// The gfx9 vmcnt field holds 0..63.
#include "asmevo/ir/gen/builders_gfx942.hpp"

void f(asmevo::Program& p) {
  namespace g = asmevo::gfx942;
  g::Builder b{p};
  b.s_waitcnt(g::vmcnt<64>);
}
