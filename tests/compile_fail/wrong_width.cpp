// EXPECT-ERROR: wrong register width (dwords)
// global_load_dwordx4 writes 4 dwords; v[8:10] is 3.
#include "asmevo/ir/gen/builders_gfx942.hpp"

void f(asmevo::Program& p) {
  namespace g = asmevo::gfx942;
  g::Builder b{p};
  b.global_load_dwordx4(g::v<8, 10>, g::v<2, 3>, g::off);
}
