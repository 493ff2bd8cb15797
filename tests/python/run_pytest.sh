#!/usr/bin/env bash
# Runs the tests of the Python package python/asmevo_triton (python/tests) with the first Python 3.10+ that can
# import pytest: $1 when given (CMake passes its Python3_EXECUTABLE), then python3, then /usr/bin/python3.
# Exits 77 (this CTest test's SKIP_RETURN_CODE) when none can, so that CTest reports the test as skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
for py in "${1:-}" python3 /usr/bin/python3; do
  [ -n "$py" ] && command -v "$py" >/dev/null 2>&1 || continue
  if "$py" -c 'import sys, pytest; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1; then
    cd "$root"
    echo "run_pytest: $("$py" -c 'import sys, pytest; print(sys.executable, sys.version.split()[0], "pytest", pytest.__version__)')"
    # -rs lists each skipped test with its reason (no GPU, no corpus); no cache folder in the checkout.
    PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
      exec "$py" -m pytest -q -rs -p no:cacheprovider python/tests
  fi
done
echo "SKIPPED: no Python 3 with pytest (Debian: python3-pytest)"
exit 77
