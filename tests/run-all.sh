#!/bin/bash
# make test: the CUnit unit tests (under ASan/UBSan), the end-to-end tests
# under real BPF, then some of them again with the controller built with
# the sanitizers, then each fuzzer for 10 s.  Every suite ends with a
# "N passed, N failed, N skipped" line, and this adds them up:
# "total: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
passed=0 failed=0 skipped=0

# suite NAME COMMAND...: runs a suite, shows its output, and adds its
# "<label>: N passed, N failed, N skipped" lines to the totals.  A suite
# that exits non-zero without counting a failure, or counts nothing, adds
# one failure.  A new step (make fuzz's run, say) is one more suite line
# below whose command prints such a line.
suite() {
	local name=$1 rc p f s
	shift
	echo "=== $name"
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	read -r p f s < <(awk '
		/^[a-z][a-z0-9_-]*: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {
			p += $2; f += $4; s += $6; n++
		}
		END { if (n) print p, f, s }' "$out")
	if [ -z "$p" ]; then
		echo "FAIL $name printed no \"N passed, N failed, N skipped\" line"
		p=0 f=1 s=0
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

# The layers of user/ (docs/architecture.md): no upward or circular
# include or call.
suite layers tools/check_layers.py --objects build/obj
suite unit build/tests/unit_tests
suite e2e tests/e2e/run.sh

# The controller's own paths (sessions, windows, following, export, --list,
# the control FIFO and --collect, the stage's limits, and the killed,
# full-disk and failed-start ones) once more under ASan/UBSan: any report
# fails the run.
asan_e2e() {
	local logs rc
	logs=$(mktemp -d)
	# build/asan has the controller only: launch mode preloads the agent
	# of the ordinary build.
	MSPROF=$PWD/build/asan/bin/msprof E2E_LABEL=asan \
	MSPROF_AGENT=$PWD/build/lib/libmsprof_agent.so \
	ASAN_OPTIONS=detect_leaks=1:log_path=$logs/asan \
	UBSAN_OPTIONS=print_stacktrace=1:log_path=$logs/ubsan \
		tests/e2e/run.sh test_attach test_interactive_rules test_probes \
		test_children test_exact_counts test_export test_faults test_list \
		test_pdsh test_collect test_stage_limits test_cann_fixtures
	rc=$?
	if [ -n "$(ls -A "$logs")" ]; then
		cat "$logs"/*
		echo "FAIL sanitizers reported on the controller"
		echo "sanitizers: 0 passed, 1 failed, 0 skipped"
		rc=1
	fi
	rm -rf "$logs"
	return "$rc"
}
if [ -x build/asan/bin/msprof ]; then
	suite asan asan_e2e
else
	echo "skip asan e2e (no build/asan/bin/msprof: make asan-msprof)"
	skipped=$((skipped + 1))
fi

# libFuzzer: 10 s per target from its seeds; a crash, leak or hang fails.
suite fuzz tests/fuzz/run.sh 10

echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
