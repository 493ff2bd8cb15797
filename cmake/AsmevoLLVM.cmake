# Finds LLVM 22 and defines asmevo::mc, the INTERFACE target for the in-process LLVM MC bridge (include/asmevo/mc/).
#
# Usage (top-level CMakeLists.txt, after asmevo::core is defined):
#   include(cmake/AsmevoLLVM.cmake)
#   target_link_libraries(my_tool PRIVATE asmevo::mc)
#
# Options:
#   ASMEVO_LLVM_DYLIB  OFF (default): link the static AMDGPU MC component libraries (libLLVMAMDGPU*.a,
#                      libLLVMMC*.a, ...). ON: link the single shared libLLVM-22.so instead.
#   Measured on the 2-core box (g++ 12, Release, one small executable using asmevo::mc):
#                             link, ld.bfd   link, lld/gold   process start   executable
#     static components        1.0 s          0.5 s            17 ms           24 MB
#     libLLVM-22.so            1.6 s          0.25 s           63 ms          150 KB
#   With the default linker the static libraries link faster, and every test process and CLI run
#   starts ~45 ms sooner (no relocation of the 100+ MB libLLVM), so static is the default.
#
# Every target of one executable must use the same mode: libLLVM.so and static LLVM libraries in
# one process register LLVM's global command-line options twice and abort at start-up. Other asmevo
# modules that need more LLVM components get them through asmevo_llvm_libraries() below.
include_guard(GLOBAL)

# LLVMConfig.cmake runs check_include_file (FindLibEdit, FindFFI...), which needs the C language.
get_property(_asmevo_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "C" IN_LIST _asmevo_languages)
  enable_language(C)
endif()
unset(_asmevo_languages)

# find_package needs major.minor for LLVM ("22" alone does not match 22.1.x).
find_package(LLVM 22.1 CONFIG REQUIRED HINTS /usr/lib/llvm-22/lib/cmake/llvm)
message(STATUS "asmevo::mc: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

# asmevo::mc derives from llvm::MCELFStreamer; without RTTI in LLVM, its vtable would need a typeinfo
# that libLLVM does not export. Debian's LLVM is built with RTTI.
if(NOT LLVM_ENABLE_RTTI)
  message(FATAL_ERROR "asmevo::mc needs an LLVM built with LLVM_ENABLE_RTTI=ON (found ${LLVM_DIR})")
endif()

option(ASMEVO_LLVM_DYLIB "Link asmevo::mc against the shared libLLVM instead of static component libraries" OFF)

# asmevo_llvm_libraries(<out-var> <component>...): the libraries for these LLVM components in the
# mode chosen above (the `LLVM` dylib target, or the static component libraries).
function(asmevo_llvm_libraries out_var)
  if(ASMEVO_LLVM_DYLIB)
    if(NOT TARGET LLVM)
      message(FATAL_ERROR "ASMEVO_LLVM_DYLIB=ON, but LLVM at ${LLVM_DIR} exports no shared `LLVM` target")
    endif()
    set(${out_var} LLVM PARENT_SCOPE)
  else()
    llvm_map_components_to_libnames(_libs ${ARGN})
    set(${out_var} ${_libs} PARENT_SCOPE)
  endif()
endfunction()

add_library(asmevo_mc INTERFACE)
add_library(asmevo::mc ALIAS asmevo_mc)

# SYSTEM: LLVM headers are not ours to warn about. Deliberately not `llvm-config --cxxflags`, which
# adds -std=c++17 -fno-exceptions; only LLVM_DEFINITIONS (-D_GNU_SOURCE, __STDC_*_MACROS) are taken.
target_include_directories(asmevo_mc SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(_asmevo_llvm_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(asmevo_mc INTERFACE ${_asmevo_llvm_defs})
target_compile_features(asmevo_mc INTERFACE cxx_std_20)

# Only the MC layers of AMDGPU: no CodeGen, no AsmPrinter, no IR.
asmevo_llvm_libraries(_asmevo_llvm_libs
  AMDGPUAsmParser AMDGPUDesc AMDGPUDisassembler AMDGPUInfo AMDGPUUtils
  MC MCParser MCDisassembler Support TargetParser)
target_link_libraries(asmevo_mc INTERFACE asmevo::core ${_asmevo_llvm_libs})
unset(_asmevo_llvm_libs)
unset(_asmevo_llvm_defs)
