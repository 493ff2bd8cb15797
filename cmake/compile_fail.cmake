# Compile-fail test driver (run with cmake -P): compiles one source with -fsyntax-only and checks the outcome
# against the expectation written at the top of the file:
#   // EXPECT-ERROR: <substring>   the compiler must fail AND print the substring
#   // EXPECT-SUCCESS              the compiler must succeed (control file: proves the harness can pass)
# Inputs: -DCXX=<compiler> -DSRC=<file.cpp> -DINC=<include dir> [-DFLAGS="<extra flags>"]
cmake_minimum_required(VERSION 3.25)
foreach(v CXX SRC INC)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "compile_fail.cmake: -D${v}=... is required")
  endif()
endforeach()

file(STRINGS "${SRC}" lines LIMIT_COUNT 5)
set(expect_error "")
set(expect_success FALSE)
foreach(l IN LISTS lines)
  if(l MATCHES "^// EXPECT-ERROR: (.+)$")
    set(expect_error "${CMAKE_MATCH_1}")
  elseif(l MATCHES "^// EXPECT-SUCCESS")
    set(expect_success TRUE)
  endif()
endforeach()
if(expect_error STREQUAL "" AND NOT expect_success)
  message(FATAL_ERROR "${SRC}: no '// EXPECT-ERROR: <text>' or '// EXPECT-SUCCESS' line at the top")
endif()

separate_arguments(extra UNIX_COMMAND "${FLAGS}")
execute_process(
  COMMAND "${CXX}" -std=c++20 -fsyntax-only -I "${INC}" ${extra} "${SRC}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
set(all "${out}${err}")

if(expect_success)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${SRC}: expected to compile, but the compiler failed (exit ${rc}):\n${all}")
  endif()
  message(STATUS "${SRC}: compiles, as expected")
  return()
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${SRC}: expected a compile error containing '${expect_error}', but it compiled")
endif()
string(FIND "${all}" "${expect_error}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "${SRC}: the compiler failed, but its output lacks '${expect_error}':\n${all}")
endif()
# "Check early, report once": one mistake gives one error.
string(REGEX MATCHALL "error:" errors "${all}")
list(LENGTH errors n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "${SRC}: expected exactly one error, got ${n}:\n${all}")
endif()
message(STATUS "${SRC}: fails with '${expect_error}', as expected")
