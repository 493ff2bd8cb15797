// Separate compilation (include/asmevo/support/linkage.hpp): the one translation unit that compiles the outlined
// functions of asmevo's verifier module. Part of the asmevo_separate library, which the project's own tests, tools and
// benchmarks link; users of the header-only library need none of it.
#define ASMEVO_COMPILE_VERIFY
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "asmevo/verify/mutate.hpp"
#include "asmevo/verify/versioning.hpp"

namespace asmevo::verify {
template Expected<Receipt> differential_verify<EmuExecutor>(const CodeObject&, const CodeObject&,
                                                            std::span<const LaunchSpec>, EmuExecutor&,
                                                            const VerifyOptions&);
}  // namespace asmevo::verify
