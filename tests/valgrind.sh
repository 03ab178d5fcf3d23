#!/usr/bin/env bash
# Run the C unit tests (the normal -O2 build, build/tests/*) and the bad-archive
# corpus (tests/run_corpus.py, every archive through `eir info`, `eir print
# --program` and, for the run corpus, `eir run`) under valgrind's memcheck: a leak,
# an invalid read or write, or a use of uninitialised memory fails. Slow (about
# 30x native); not part of `make test`. Needs `apt-get install valgrind` and
# `make build/eir` plus the unit tests (`make $(ls tests/unit/test_*.c | sed
# 's|tests/unit/\(.*\)\.c|build/tests/\1|')`).
set -uo pipefail
cd "$(dirname "$0")/.."
VG=(valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99)
fail=0
for t in build/tests/test_*; do
    [ -x "$t" ] || continue
    echo "== valgrind $t"
    # OpenBLAS's thread pool: one thread, so its start-up allocations are not reported
    OPENBLAS_NUM_THREADS=1 EIR_FIXTURES=tests/e2e/fixtures "${VG[@]}" "$t" >build/valgrind.$(basename "$t").log 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL ($rc): $t (build/valgrind.$(basename "$t").log)"; fail=1; fi
done
wrap=build/valgrind-eir
printf '#!/bin/sh\nOPENBLAS_NUM_THREADS=1 exec valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 "%s/build/eir" "$@"\n' "$PWD" >"$wrap"
chmod +x "$wrap"
echo "== valgrind tests/run_corpus.py"
EIR_TIMEOUT=120 EIR_BIN=$wrap python3 tests/run_corpus.py || fail=1
exit $fail
