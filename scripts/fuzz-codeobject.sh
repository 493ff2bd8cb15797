#!/usr/bin/env bash
# Builds the code-object fuzzer (tests/fuzz/codeobject_fuzz.cpp: libFuzzer + ASan + UBSan) and runs it, seeded
# with copies of the corpus code objects, then says how many inputs ran. Not part of CI.
# Usage: scripts/fuzz-codeobject.sh [RUNS] [libFuzzer options...]
#   The same as scripts/fuzz.sh codeobject [RUNS] [libFuzzer options...], which builds and runs every fuzz target.
set -euo pipefail
exec "$(dirname "$0")/fuzz.sh" codeobject "$@"
