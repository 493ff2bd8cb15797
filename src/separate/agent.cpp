// Separate compilation (include/asmevo/support/linkage.hpp): the one translation unit that compiles the outlined
// functions of asmevo's agent module (edit scripts, the diagnosis, the LLM prompt, the report page). Part of the asmevo_separate
// library, which the project's own tests, tools and benchmarks link; users of the header-only library need none of
// it.
#define ASMEVO_COMPILE_AGENT
#include "asmevo/agent/diagnosis.hpp"
#include "asmevo/agent/edit_script.hpp"
#include "asmevo/agent/llm.hpp"
#include "asmevo/agent/report.hpp"
