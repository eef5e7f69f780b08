#!/bin/bash
# Runs each libFuzzer target build/fuzz/fuzz_<name> for SECONDS (the first
# argument, default 60) from its checked-in seeds, tests/fuzz/corpus/<name>/,
# on a copy: what a run adds stays out of the tree, except what makes a
# target fail (crash, leak, hang, running out of memory), which is saved there
# as a reproducer, so that every later run tries it first.
# tests/fuzz/<name>.dict, where there is one, is the target's dictionary.
# Prints "<name>: N runs, corpus N inputs, N crashes" per target, then
# "fuzz: N passed, N failed, N skipped"; exits non-zero if any failed.
cd "$(dirname "$0")/../.." || exit 1
secs=${1:-60}
case $secs in
''|*[!0-9]*|0) echo "usage: $0 [seconds per target]" >&2; exit 2 ;;
esac
passed=0 failed=0 skipped=0
# On a tmpfs where there is one: fuzz_profdata makes a directory per input,
# some fifty times faster there than on a disk.
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/msprof-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# Inputs longer than any the target's code reads gain nothing.
max_len() {
	case $1 in
	fuzz_recfile|fuzz_profdata|fuzz_elfsym) echo 16384 ;;
	fuzz_agent_proto) echo 8192 ;;	# a 4100-byte params message, then requests
	*) echo 4096 ;;
	esac
}

for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bin=build/fuzz/$name
	if [ ! -x "$bin" ]; then
		echo "skip $name (not built: make $bin)"
		skipped=$((skipped + 1))
		continue
	fi
	seeds=tests/fuzz/corpus/$name
	work=$tmp/$name
	mkdir -p "$work/corpus" "$work/found" "$work/tmp"
	[ -d "$seeds" ] && cp "$seeds"/* "$work/corpus/" 2>/dev/null
	args=(-max_total_time="$secs" -max_len="$(max_len "$name")"
	      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
	      -artifact_prefix="$work/found/")
	[ -f "tests/fuzz/$name.dict" ] && args+=(-dict="tests/fuzz/$name.dict")
	# libFuzzer stops itself; the outer bound is for a fuzzer that hangs
	# outside any one input.
	TMPDIR=$work/tmp timeout -k 10 $((secs + 120)) \
		"$bin" "${args[@]}" "$work/corpus" >"$work/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	corpus=$(find "$work/corpus" -type f | wc -l)
	crashes=0
	for f in "$work"/found/*; do
		case $(basename "$f") in
		crash-*|leak-*|timeout-*|oom-*)
			mkdir -p "$seeds"
			cp "$f" "$seeds/"
			echo "reproducer: $seeds/$(basename "$f")"
			crashes=$((crashes + 1)) ;;
		esac
	done
	echo "$name: ${runs:-0} runs, corpus $corpus inputs, $crashes crashes"
	# A corpus that stayed empty means no input reached the code: no seeds
	# where they should be, or inputs capped below what the code reads.
	if [ "$corpus" -eq 0 ]; then
		echo "FAIL $name kept no input: it fuzzed nothing"
		failed=$((failed + 1))
	elif [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ]; then
		echo "ok $name (${secs}s)"
		passed=$((passed + 1))
	else
		tail -n 60 "$work/log"
		echo "FAIL $name (exit $rc)"
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
