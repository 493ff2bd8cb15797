// EXPECT-ERROR: misaligned register tuple
// gfx90a needs an even first register for VGPR tuples (FeatureGFX90AInsts); v[9:12] starts at 9.
#include "asmevo/ir/gen/builders_gfx90a.hpp"

void f(asmevo::Program& p) {
  namespace g = asmevo::gfx90a;
  g::Builder b{p};
  b.global_load_dwordx4(g::v<9, 12>, g::v<2, 3>, g::off);
}
