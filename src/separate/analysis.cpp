// Separate compilation (include/asmevo/support/linkage.hpp): the one translation unit that compiles the outlined
// functions of asmevo's analysis module. Part of the asmevo_separate library, which the project's own tests, tools and
// benchmarks link; users of the header-only library need none of it.
#define ASMEVO_COMPILE_ANALYSIS
#include "asmevo/analysis/dependence.hpp"
#include "asmevo/analysis/equivalence.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
