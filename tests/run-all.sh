#!/bin/bash
# make test: the CUnit unit tests (under ASan/UBSan), then the end-to-end
# tests under real BPF.  Ends with one "N passed, N failed" line.
cd "$(dirname "$0")/.." || exit 1
unit=0
build/tests/unit_tests || unit=1
tests/e2e/run.sh
e2e=$?
[ $unit -eq 0 ] && [ $e2e -eq 0 ]
