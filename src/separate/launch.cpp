// Separate compilation (include/asmevo/support/linkage.hpp): the one translation unit that compiles the outlined
// functions of asmevo's launch-spec module. Part of the asmevo_separate library, which the project's own tests, tools and
// benchmarks link; users of the header-only library need none of it.
#define ASMEVO_COMPILE_LAUNCH
#include "asmevo/launch/kernargs.hpp"
#include "asmevo/launch/launch_spec.hpp"
