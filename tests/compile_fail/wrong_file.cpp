// EXPECT-ERROR: no form of this instruction accepts a register of this file here
// A global load's destination is a VGPR or AGPR range; an SGPR range does not fit any form.
#include "asmevo/ir/gen/builders_gfx942.hpp"

void f(asmevo::Program& p) {
  namespace g = asmevo::gfx942;
  g::Builder b{p};
  b.global_load_dwordx4(g::s<8, 11>, g::v<2, 3>, g::off);
}
