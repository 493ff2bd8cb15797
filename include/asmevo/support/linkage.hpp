// How asmevo's heaviest functions are linked: inline (header-only, the default) or compiled once.
//
// asmevo is header-only: include a header, call a function, and that translation unit compiles it. A function
// that drags in most of a module (the emulator's semantics registry, the differential verifier, recovery) then
// costs every translation unit that calls it a minute or more at -O2. A project with many such units -- asmevo's
// own tests, tools and benchmarks -- can define ASMEVO_SEPARATE_COMPILATION everywhere: the functions marked
// ASMEVO_OUTLINE are then only declared in the headers, and each is compiled once, by the translation unit that
// defines ASMEVO_COMPILE_<MODULE> for its module (src/separate/, the asmevo_separate library of this project's own
// build). A function template is handled the same way with an `extern template` declaration under
// ASMEVO_SEPARATE_COMPILATION and the explicit instantiation in src/separate/.
//
// A header marks such a function like this:
//
//   ASMEVO_OUTLINE Result heavy(const Input& in)
//   #if ASMEVO_BODY_EMU
//   { ... }
//   #else
//   ;
//   #endif
//
// Nothing else changes between the two modes: the same declarations, default arguments and attributes.
#pragma once

#if defined(ASMEVO_SEPARATE_COMPILATION)
#define ASMEVO_OUTLINE
#else
#define ASMEVO_OUTLINE inline
#endif

// One switch per module whose heavy functions are outlined: 1 where this translation unit holds their bodies.
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_IR)
#define ASMEVO_BODY_IR 1
#else
#define ASMEVO_BODY_IR 0
#endif
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_ANALYSIS)
#define ASMEVO_BODY_ANALYSIS 1
#else
#define ASMEVO_BODY_ANALYSIS 0
#endif
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_CODEOBJECT)
#define ASMEVO_BODY_CODEOBJECT 1
#else
#define ASMEVO_BODY_CODEOBJECT 0
#endif
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_LAUNCH)
#define ASMEVO_BODY_LAUNCH 1
#else
#define ASMEVO_BODY_LAUNCH 0
#endif
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_EMU)
#define ASMEVO_BODY_EMU 1
#else
#define ASMEVO_BODY_EMU 0
#endif
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_MODEL)
#define ASMEVO_BODY_MODEL 1
#else
#define ASMEVO_BODY_MODEL 0
#endif
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_VERIFY)
#define ASMEVO_BODY_VERIFY 1
#else
#define ASMEVO_BODY_VERIFY 0
#endif
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_PASSES)
#define ASMEVO_BODY_PASSES 1
#else
#define ASMEVO_BODY_PASSES 0
#endif
#if !defined(ASMEVO_SEPARATE_COMPILATION) || defined(ASMEVO_COMPILE_AGENT)
#define ASMEVO_BODY_AGENT 1
#else
#define ASMEVO_BODY_AGENT 0
#endif
