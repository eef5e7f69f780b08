#!/bin/bash
# Runs every tests/e2e/test_*.sh, or the ones named (test_attach ...); each
# prints "ok"/"FAIL" lines per check.  Needs root (BPF) and a built tree.
cd "$(dirname "$0")/../.." || exit 1
if [ "$(id -u)" -ne 0 ]; then
	echo "e2e: needs root for BPF"
	echo "0 passed, 1 failed"
	exit 1
fi
passed=0
failed=0
if [ $# -gt 0 ]; then
	tests=$(printf 'tests/e2e/%s.sh ' "$@")
else
	tests=$(ls tests/e2e/test_*.sh)
fi
for t in $tests; do
	out=$(mktemp)
	echo "== $t"
	bash "$t" 2>&1 | tee "$out"
	p=$(grep -c '^ok ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	# A script that died before reporting anything counts as a failure.
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	rm -f "$out"
done
echo "${E2E_LABEL:-e2e}: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
