// Separate compilation (include/asmevo/support/linkage.hpp): the one translation unit that compiles the outlined
// functions of asmevo's codeobject module. Part of the asmevo_separate library, which the project's own tests, tools and
// benchmarks link; users of the header-only library need none of it.
#define ASMEVO_COMPILE_CODEOBJECT
#include "asmevo/codeobject/abi.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/codeobject/recover_code.hpp"
#include "asmevo/codeobject/resources_update.hpp"
