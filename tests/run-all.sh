#!/bin/bash
# make test: the CUnit unit tests (under ASan/UBSan), the end-to-end tests
# under real BPF, then some of them again with the controller built with
# the sanitizers, then each fuzzer for 10 s.  Ends with one
# "total: N passed, N failed" line.
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT

build/tests/unit_tests | tee "$out"
unit=${PIPESTATUS[0]}
# CUnit's summary: "tests  <total> <ran> <passed> <failed> <inactive>"
read -r upassed ufailed < <(awk '$1 == "tests" { print $4, $5 }' "$out")

tests/e2e/run.sh | tee "$out"
e2e=${PIPESTATUS[0]}
read -r epassed efailed < <(awk '/^e2e: / { print $2, $4 }' "$out")

# The controller's own paths (sessions, windows, following, export) once
# more under ASan/UBSan: any report fails the run.
san=0 spassed=0 sfailed=0
if [ -x build/asan/bin/msprof ]; then
	logs=$(mktemp -d)
	MSPROF=$PWD/build/asan/bin/msprof E2E_LABEL=asan \
	ASAN_OPTIONS=detect_leaks=1:log_path=$logs/asan \
	UBSAN_OPTIONS=print_stacktrace=1:log_path=$logs/ubsan \
		tests/e2e/run.sh test_attach test_interactive_rules test_probes \
		test_children test_exact_counts | tee "$out"
	san=${PIPESTATUS[0]}
	read -r spassed sfailed < <(awk '/^asan: / { print $2, $4 }' "$out")
	if [ -n "$(ls -A "$logs")" ]; then
		cat "$logs"/*
		echo "FAIL sanitizers reported on the controller"
		sfailed=$((sfailed + 1))
		san=1
	fi
	rm -rf "$logs"
fi

# libFuzzer: 10 s per target from its seeds; a crash, leak or hang fails.
tests/fuzz/run.sh 10 | tee "$out"
fuzz=${PIPESTATUS[0]}
read -r fpassed ffailed < <(awk '/^fuzz: / { print $2, $4 }' "$out")

echo "total: $((upassed + epassed + spassed + fpassed)) passed, $((ufailed + efailed + sfailed + ffailed)) failed"
[ "$unit" -eq 0 ] && [ "$e2e" -eq 0 ] && [ "$san" -eq 0 ] && [ "$fuzz" -eq 0 ]
