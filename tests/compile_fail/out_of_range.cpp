// EXPECT-ERROR: register index out of range for the target
// gfx942 has 256 VGPRs (v0..v255); the constant itself does not compile.
#include "asmevo/ir/gen/builders_gfx942.hpp"

void f(asmevo::Program& p) {
  namespace g = asmevo::gfx942;
  g::Builder b{p};
  b.v_mov_b32(g::v<256>, g::v<0>);
}
