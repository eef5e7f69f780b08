#!/bin/bash
# Python call stacks (docs/output.md "Call stack"): tests/programs/pystack_cases.py
# calls npusim from known functions and lines (a plain function, nested
# functions, a generator, an async def under asyncio, a lambda, a method,
# a recursion deeper than the limit, a threading.Thread, and a thread libc
# starts that never runs Python) on every CPython this machine has:
# Debian's python3, the pyenv builds 3.9 to 3.13, and Debian 11's python3.9
# and Debian 13's python3.13 in roots of their own (tools/pyroots.sh,
# fetched into PYROOT_CACHE on first use unless PYSTACK_FETCH=0).  Each run
# is an attached window holding exactly the program's calls, exported and
# checked by check_pystack.py: every call's innermost frame, its whole
# stack, the cut at the depth limit, no stack on the thread without Python.
# A version that is absent says skip.  Debian's python3 also runs in launch
# mode with the agent, with --python-stack=off, and with --python-depth=8.
# PYSTACK_ONLY="debian launch pyenv roots" (any of them) runs just those.
source tests/e2e/lib.sh

PROG=$PWD/tests/programs/pystack_cases.py
CALLS=${PYSTACK_CALLS:-5}
PYROOT_CACHE=${PYROOT_CACHE:-/var/cache/msprof-pyroots}
LIBS=$PWD/build/lib
SUMMARY=()
only=" ${PYSTACK_ONLY:-debian launch pyenv roots} "
part() { [[ $only == *" $1 "* ]]; }	# part NAME: that part is to run
CHROOT=$(command -v chroot) || CHROOT=/usr/sbin/chroot

# passes WHAT COMMAND...: check, with its outcome as the status.
passes() {
	local before=$CHECKS_FAILED
	check "$@"
	[ "$CHECKS_FAILED" = "$before" ]
}

# up_or_gone LOG TEXT SECONDS: until LOG holds TEXT; fails at once when
# msprof has left (a refused option), else after SECONDS.
up_or_gone() {
	local i
	for i in $(seq $(($3 * 10))); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		alive "$MSPROF_PID" || break
		sleep 0.1
	done
	echo "no '$2' in $1 (msprof $(alive "$MSPROF_PID" && echo "still running" || echo "has left")):"
	tail -5 "$1"
	return 1
}

# verdict LABEL CHECK-OUTPUT: check_pystack.py's lines shown, and one
# summary line kept for the end.
verdict() {
	local label=$1 out=$2 line
	cat "$out"
	line=$(grep -E '^(ok|FAIL) .*: Python .* calls as expected' "$out" | tail -1)
	if grep -q '^FAIL ' "$out"; then
		SUMMARY+=("$label: FAIL ($(grep -c '^FAIL ' "$out") checks failed; ${line#* *: })")
	else
		SUMMARY+=("$label: ok (${line#* *: })")
	fi
}

# attach_run NAME LABEL EXPECT CHECK-OPTS MSPROF-OPTS CMD...: CMD (the
# program, told to wait) runs; msprof attaches (host side only: the stacks
# are the host's) with MSPROF-OPTS, opens one window, lets the program make
# its calls, stops, quits; the program is let end; the window is exported
# and checked with CHECK-OPTS against EXPECT, the file CMD writes.
attach_run() {
	local name=$1 label=$2 expect=$3 copts=$4 mopts=$5 pid d rc
	shift 5
	rm -f "$expect"
	"$@" >"$WORK/$name.out" 2>&1 &
	pid=$!
	PIDS_TO_KILL+=("$pid")
	if ! wait_for "$WORK/$name.out" "pystack_cases pid=$pid ready" 60; then
		check "$label: the program starts" false
		show "$WORK/$name.out"
		return
	fi
	# shellcheck disable=SC2086
	msprof_open "$WORK/$name.log" --dynamic=on --host-only=on --pid="$pid" \
		--output="$WORK/$name" $mopts
	say start
	if up_or_gone "$WORK/$name.log" "collection started" 60; then
		kill -USR1 "$pid"
		wait_for "$WORK/$name.out" "pystack_cases done" 60
		say stop
		up_or_gone "$WORK/$name.log" "collection stopped" 60
	fi
	say quit
	msprof_close
	rc=$?
	passes "$label: msprof exits 0" [ $rc -eq 0 ] || show "$WORK/$name.log"
	kill -USR1 "$pid" 2>/dev/null
	wait_pid "$pid" 60
	rc=$?
	passes "$label: the program made every call and ended (status $rc)" [ $rc -eq 0 ] ||
		show "$WORK/$name.out"
	check_window "$name" "$label" "$expect" "$copts"
}

# check_window NAME LABEL EXPECT CHECK-OPTS: the one PROF_ directory in
# $WORK/NAME exported and checked against EXPECT.
check_window() {
	local name=$1 label=$2 expect=$3 copts=$4 d
	local -a dirs
	mapfile -t dirs < <(prof_dirs "$WORK/$name")
	passes "$label: one PROF_ directory" [ ${#dirs[@]} -eq 1 ] || return
	d=${dirs[0]}
	"$MSPROF" --export=on --output="$d" >"$WORK/$name.export" 2>&1
	passes "$label: export" [ $? -eq 0 ] || show "$WORK/$name.export"
	if [ ! -s "$expect" ]; then
		check "$label: the program wrote its expectations" false
		return
	fi
	# shellcheck disable=SC2086
	python3 tests/e2e/check_pystack.py --label "$label" $copts "$d" "$expect" \
		>"$WORK/$name.check" 2>&1
	rc=$?
	verdict "$label" "$WORK/$name.check"
	check "$label: check_pystack.py ran and passed" [ $rc -eq 0 ]
}

# host_run NAME LABEL PYTHON [CHECK-OPTS [MSPROF-OPTS]]: the program under
# PYTHON on this machine.
host_run() {
	local name=$1 label=$2 py=$3
	attach_run "$name" "$label" "$WORK/$name.json" "${4:-}" "${5:-}" \
		"$py" "$PROG" --lib "$LIBS/libnpusim.so" --expect "$WORK/$name.json" \
		--calls "$CALLS"
}

# has_option OPTION: msprof knows OPTION (--help names it); else one FAIL.
has_option() {
	"$MSPROF" --help 2>&1 | grep -q -- "$1" && return 0
	check "msprof has $1" false
	return 1
}

# --- Debian's python3 ---------------------------------------------------------
v=$(/usr/bin/python3 -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)
if ! part debian; then
	:
elif [ -n "$v" ]; then
	host_run debian "debian python3 $v" /usr/bin/python3
	if has_option --python-stack; then
		host_run off "debian python3 $v --python-stack=off" /usr/bin/python3 \
			--no-stacks --python-stack=off
	fi
	if has_option --python-depth; then
		host_run depth8 "debian python3 $v --python-depth=8" /usr/bin/python3 \
			"--depth 8" --python-depth=8
	fi
else
	skip "debian python3" "no /usr/bin/python3"
fi

# --- launch mode, the agent too -----------------------------------------------
# launch_run: msprof starts Debian's python3 on the program (the agent
# preloaded, device data too), one window around its calls.
launch_run() {
	local label="debian python3 $v, launched" pid rc
	msprof_open "$WORK/launch.log" --dynamic=on --output="$WORK/launch" \
		/usr/bin/python3 "$PROG" --lib "$LIBS/libnpusim.so" \
		--expect "$WORK/launch.json" --calls "$CALLS"
	if ! up_or_gone "$WORK/launch.log" "ready" 60; then
		check "$label: the program starts" false
		say quit
		msprof_close
		return
	fi
	pid=$(sed -n 's/^\(.*) \)*pystack_cases pid=\([0-9]*\) ready$/\2/p' "$WORK/launch.log" | head -1)
	PIDS_TO_KILL+=("$pid")
	say start
	if up_or_gone "$WORK/launch.log" "collection started" 60; then
		kill -USR1 "$pid"
		wait_for "$WORK/launch.log" "pystack_cases done" 60
		say stop
		up_or_gone "$WORK/launch.log" "collection stopped" 60
	fi
	say quit
	# quit waits for the app, which waits for its second signal
	wait_for "$WORK/launch.log" "to exit" 30
	kill -USR1 "$pid" 2>/dev/null
	msprof_close
	rc=$?
	passes "$label: msprof exits 0 once the app has ended" [ $rc -eq 0 ] ||
		show "$WORK/launch.log"
	check_window launch "$label" "$WORK/launch.json" ""
}
[ -n "$v" ] && part launch && launch_run

# --- pyenv's builds (shared libpython) ----------------------------------------
pyenv_root=${PYENV_ROOT:-}
if [ -z "$pyenv_root" ] && command -v pyenv >/dev/null; then
	pyenv_root=$(pyenv root)
fi
[ -n "$pyenv_root" ] || pyenv_root=$HOME/.pyenv
part pyenv && for minor in 3.9 3.10 3.11 3.12 3.13; do
	# the newest patch release of that minor version
	py=$(ls -d "$pyenv_root/versions/$minor".* 2>/dev/null | grep -E "/$minor\.[0-9]+$" |
		sort -t. -k3 -n | tail -1)
	if [ -z "$py" ] || [ ! -x "$py/bin/python$minor" ]; then
		skip "pyenv $minor" "no $pyenv_root/versions/$minor.*"
		continue
	fi
	host_run "pyenv$minor" "pyenv ${py##*/}" "$py/bin/python$minor"
done

# --- Debian 11 and 13 in roots of their own -------------------------------------
# root_run NAME LABEL ROOT PYTHON: the program under ROOT's PYTHON, run
# with chroot in a mount namespace of its own where $WORK/NAME.t is the
# root's /t (nothing is written into the cache).  npusim is the host's
# build, or, where the root has make, one built there against the root's
# own libc (Debian 11's is older than the host build needs).
root_run() {
	local name=$1 label=$2 root=$3 py=$4 t=$WORK/$1.t
	mkdir -p "$t/tmp" "$t/lib"
	cp "$PROG" "$t/"
	if [ -x "$root/usr/bin/make" ]; then
		mkdir -p "$t/src"
		tar -c Makefile VERSION include user tools/npusim | tar -x -C "$t/src"
		"${in_root[@]}" "$root" "$t" make -C /t/src BUILD=/t/build CC=gcc \
			/t/build/lib/libnpusim.so >"$WORK/$name.build" 2>&1
		passes "$label: npusim built in the root" [ $? -eq 0 ] ||
			{ tail -20 "$WORK/$name.build"; return; }
		cp "$t"/build/lib/*.so "$t/lib/"
	else
		cp "$LIBS/libnpusim.so" "$LIBS/libmsprof_agent.so" "$t/lib/"
	fi
	attach_run "$name" "$label" "$t/expect.json" "" "" \
		"${in_root[@]}" "$root" "$t" "$py" /t/pystack_cases.py --lib /t/lib/libnpusim.so \
		--expect /t/expect.json --calls "$CALLS"
}

# in_root ROOT DIR CMD...: CMD in ROOT, DIR its /t, with a bare
# environment; the process is CMD's (each step execs the next), so that
# "$!" of one started in the background is the program's.  (sh's $0 is
# the host's chroot: the root has none.)
in_root=(unshare -m sh -c 'mount --bind "$2" "$1/t" && root=$1 && shift 2 &&
	exec env -i PATH=/usr/bin:/bin HOME=/root TMPDIR=/t/tmp "$0" "$root" "$@"' "$CHROOT")

if ! part roots; then
	:
elif [ "${PYSTACK_FETCH:-1}" = 0 ] && [ ! -d "$PYROOT_CACHE" ]; then
	skip "Debian 11 and 13 roots" "PYSTACK_FETCH=0 and no $PYROOT_CACHE"
else
	timeout 600 tools/pyroots.sh "$PYROOT_CACHE" bullseye-amd64 trixie-amd64 \
		>"$WORK/pyroots.out" 2>"$WORK/pyroots.err"
	for r in "bullseye-amd64 Debian 11" "trixie-amd64 Debian 13"; do
		read -r rname rlabel <<<"$r"
		read -r _ _ py dir < <(grep "^pyroot $rname " "$WORK/pyroots.out")
		if [ -z "${dir:-}" ]; then
			skip "$rlabel root" "tools/pyroots.sh: $(tail -1 "$WORK/pyroots.err")"
			continue
		fi
		root_run "$rname" "$rlabel ${py##*/}" "$dir" "$py"
		dir=
	done
fi

echo "summary:"
printf '  %s\n' "${SUMMARY[@]}"
