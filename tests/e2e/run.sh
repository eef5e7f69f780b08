#!/bin/bash
# Runs every tests/e2e/test_*.sh; each prints "ok"/"FAIL" lines per check.
# Needs root (BPF) and a built tree.
cd "$(dirname "$0")/../.." || exit 1
if [ "$(id -u)" -ne 0 ]; then
	echo "e2e: needs root for BPF"
	echo "0 passed, 1 failed"
	exit 1
fi
passed=0
failed=0
for t in tests/e2e/test_*.sh; do
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
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
