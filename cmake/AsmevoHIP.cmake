# Finds the HIP runtime (libamdhip64) and defines asmevo::hip, the INTERFACE target for include/asmevo/verify/hip/.
#
# Usage (top-level CMakeLists.txt, after asmevo::codeobject is defined):
#   include(cmake/AsmevoHIP.cmake)
#   target_link_libraries(my_tool PRIVATE asmevo::hip)
#
# Only this target sees HIP headers. It compiles host code with the ordinary C++ compiler (g++ or clang++): the HIP
# executor loads finished code objects with hipModuleLoadData, so no HIP language support (hipcc, -x hip) is needed.
#
# Why not find_package(hip): Debian 12's libamdhip64-dev ships /usr/lib/<triple>/cmake/hip/hip-config.cmake, but
# that file calls set_and_check() on /usr/bin/hipcc, which Debian packages separately (not a dependency), so even a
# non-REQUIRED find_package(hip) stops the configuration with a FATAL_ERROR. It would also pull in AMDDeviceLibs,
# amd_comgr, hsa-runtime64 and clang_rt.builtins, none of which a host-only user needs. So the header and library
# are found directly, in the Debian locations and in a ROCm install (ROCM_PATH, /opt/rocm) alike.
#
# hip::host's one compile definition that matters is kept: hip/hip_common.h defines __HIP_PLATFORM_AMD__ itself only
# under clang -x hip (__HIP__); for g++ or plain clang++, hip_runtime_api.h stops with "#error Must define exactly one
# of __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__" unless the build defines it.
include_guard(GLOBAL)

set(_asmevo_rocm_hints)
if(DEFINED ENV{ROCM_PATH})
  list(APPEND _asmevo_rocm_hints "$ENV{ROCM_PATH}")
endif()
if(DEFINED ROCM_PATH)
  list(APPEND _asmevo_rocm_hints "${ROCM_PATH}")
endif()
list(APPEND _asmevo_rocm_hints /opt/rocm)

find_path(ASMEVO_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS ${_asmevo_rocm_hints} PATH_SUFFIXES include
  DOC "Folder holding hip/hip_runtime_api.h")
find_library(ASMEVO_HIP_LIBRARY NAMES amdhip64 HINTS ${_asmevo_rocm_hints} PATH_SUFFIXES lib lib64
  DOC "The HIP runtime library (libamdhip64)")
unset(_asmevo_rocm_hints)
if(NOT ASMEVO_HIP_INCLUDE_DIR OR NOT ASMEVO_HIP_LIBRARY)
  message(FATAL_ERROR "asmevo::hip needs the HIP runtime headers and library (Debian 12: apt-get install "
    "libamdhip64-dev; ROCm: set ROCM_PATH). Found header folder: '${ASMEVO_HIP_INCLUDE_DIR}', "
    "library: '${ASMEVO_HIP_LIBRARY}'.")
endif()
message(STATUS "asmevo::hip: ${ASMEVO_HIP_LIBRARY} (headers in ${ASMEVO_HIP_INCLUDE_DIR})")

add_library(asmevo_hip INTERFACE)
add_library(asmevo::hip ALIAS asmevo_hip)
set_target_properties(asmevo_hip PROPERTIES EXPORT_NAME hip)
# SYSTEM: HIP's headers are not ours to warn about.
target_include_directories(asmevo_hip SYSTEM INTERFACE ${ASMEVO_HIP_INCLUDE_DIR})
target_compile_definitions(asmevo_hip INTERFACE __HIP_PLATFORM_AMD__=1)
target_compile_features(asmevo_hip INTERFACE cxx_std_20)
# asmevo_mc too: verify/executor.hpp includes codeobject/module.hpp, which includes mc/encode.hpp (LLVM MC headers),
# so hip/executor.hpp does not compile without it.
target_link_libraries(asmevo_hip INTERFACE asmevo_codeobject asmevo_mc ${ASMEVO_HIP_LIBRARY})
