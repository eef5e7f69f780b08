#!/bin/bash
# Runs every tests/e2e/test_*.sh, or the ones named (test_attach ...).  A
# script prints "ok", "FAIL" and "skip" lines, one a check, and exits
# non-zero when one failed; a non-zero exit fails even a script whose
# lines all said ok.  Ends with "<label>: N passed, N failed, N skipped".
# Needs root (BPF) and a built tree.
cd "$(dirname "$0")/../.." || exit 1
label=${E2E_LABEL:-e2e}
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL $label needs root for BPF"
	echo "$label: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
# Each script's bound: a hung one is killed (with what it started: its
# process group) and fails with status 124.
limit=${E2E_TIMEOUT_S:-600}
passed=0
failed=0
skipped=0
if [ $# -gt 0 ]; then
	tests=$(printf 'tests/e2e/%s.sh ' "$@")
else
	tests=$(ls tests/e2e/test_*.sh)
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in $tests; do
	echo "== $t"
	timeout --kill-after=10 "$limit" bash "$t" </dev/null 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	passed=$((passed + $(grep -c '^ok ' "$out")))
	failed=$((failed + $(grep -c '^FAIL ' "$out")))
	skipped=$((skipped + $(grep -c '^skip ' "$out")))
	if [ "$rc" -ne 0 ]; then
		why=
		[ "$rc" -eq 124 ] && why=" (timed out after $limit s)"
		echo "FAIL $(basename "$t") exited with status $rc$why"
		failed=$((failed + 1))
	fi
done
echo "$label: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
