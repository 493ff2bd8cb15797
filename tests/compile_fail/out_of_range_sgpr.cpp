// EXPECT-ERROR: register index out of range for the target
// s102 and s103 are not addressable SGPRs on gfx9 (102 SGPRs, then vcc); s[100:103] runs past the file.
#include "asmevo/ir/gen/builders_gfx950.hpp"

void f(asmevo::Program& p) {
  namespace g = asmevo::gfx950;
  g::Builder b{p};
  b.s_load_dwordx4(g::s<100, 103>, g::s<0, 1>, asmevo::imm<0>);
}
