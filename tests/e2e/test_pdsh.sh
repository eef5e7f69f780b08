#!/bin/bash
# Many nodes through an existing launcher: pdsh's exec module starts one
# msprof per "node" (two here, on this machine), each attached to its own
# npu_sample with a --control FIFO; tools/cluster/msprofctl.sh then sends
# every one "start at <now + 2 s>", stop and quit.  The windows' starts must
# lie within 50 ms of each other (issue 12); the spread is said.  Also the
# control path's refusals, and --collect (docs/cluster.md).
source tests/e2e/lib.sh
CTL=tools/cluster/msprofctl.sh
NODES="node1 node2"

# ns since the epoch, from a window's msprof_ebpf_window.json
facts() { jq -r "$2" "$1"/PROF_*/msprof_ebpf_window.json; }

# Each node's task: rank 0 on node1, rank 1 on node2 (of a job whose
# collectives are not what is tested here).
node_tasks() {
	local n r=0
	for n in $NODES; do
		RANK_ID=$r RANK_SIZE=2 start_task --steps 0 --step-ms 10 --no-allreduce || exit 1
		echo "$TASK_PID" >"$WORK/pid.$n"
		mkdir "$WORK/$n"
		r=$((r + 1))
	done
}

pdsh_run() {
	local n
	node_tasks
	# Each node's msprof as pdsh runs it: its stdin an open socket, no
	# terminal; %h is pdsh's for the host's name.
	pdsh -S -R exec -w node[1-2] sh -c "exec $MSPROF --dynamic=on \
		--pid=\$(cat $WORK/pid.%h) --output=$WORK/%h \
		--control=$WORK/ctl.%h" >"$WORK/pdsh.log" 2>&1 &
	PDSH_PID=$!
	PIDS_TO_KILL+=("$PDSH_PID")
	for n in $NODES; do
		wait_for "$WORK/pdsh.log" "$n: msprof: attached to pid" 30
		check "$n: its control FIFO is made, 0600, root's" \
			[ "$(stat -c %F.%a.%U "$WORK/ctl.$n" 2>&1)" = "fifo.600.root" ]
	done
	at=$(date +%s.%N | awk '{ printf "%.3f", $1 + 2 }')
	$CTL -R exec -w node[1-2] -c "$WORK/ctl.%h" start at "@$at"
	check "msprofctl: start at @$at sent to both" [ $? -eq 0 ]
	for n in $NODES; do
		wait_for "$WORK/pdsh.log" "$n: msprof: collection started" 30
	done
	sleep 1
	$CTL -R exec -w node[1-2] -c "$WORK/ctl.%h" stop
	for n in $NODES; do
		wait_for "$WORK/pdsh.log" "$n: msprof: collection stopped" 60
	done
	$CTL -R exec -w node[1-2] -c "$WORK/ctl.%h" quit
	wait_pid "$PDSH_PID" 30
	check "pdsh: both msprof instances quit, exit 0" [ $? -eq 0 ]
	show "$WORK/pdsh.log"
	for n in $NODES; do
		check "$n: its FIFO is gone" [ ! -e "$WORK/ctl.$n" ]
		check "$n: one complete window" [ "$(facts "$WORK/$n" .state)" = complete ]
		check "$n: the instant asked is recorded" \
			[ "$(facts "$WORK/$n" .start_at_requested_real_ns)" = "${at/./}000000" ]
	done
	local a b late spread
	a=$(facts "$WORK/node1" .collecting_since_real_ns)
	b=$(facts "$WORK/node2" .collecting_since_real_ns)
	if ! [[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]]; then
		check "both windows say when they started (got '$a', '$b')" false
		return
	fi
	spread=$(( (a > b ? a - b : b - a) / 1000 ))
	late=$(( ((a > b ? a : b) - ${at/./}000000) / 1000 ))
	echo "window starts: spread ${spread} us between the two; the later one ${late} us after the instant asked"
	check "the two windows start within 50 ms of each other (${spread} us)" \
		[ "$spread" -lt 50000 ]
	a=$(facts "$WORK/node1" .start.real_ns)
	b=$(facts "$WORK/node2" .start.real_ns)
	echo "wake-ups from clock_nanosleep: spread $(( (a > b ? a - b : b - a) / 1000 )) us"
	for n in $NODES; do
		kill -TERM "$(cat "$WORK/pid.$n")"
	done
}

if command -v pdsh >/dev/null; then
	pdsh_run
else
	skip "two msprof instances driven through pdsh" "no pdsh: tools/install-deps.sh installs it"
	# The windows --collect gathers below, one msprof after the other.
	node_tasks
	for n in $NODES; do
		timed_window 0.5 "$WORK/$n.log" --dynamic=on \
			--pid="$(cat "$WORK/pid.$n")" --output="$WORK/$n"
		kill -TERM "$(cat "$WORK/pid.$n")"
	done
fi

# --- --collect: every node's PROF_ directories into one cluster dir -------
# As rpdcp or scp bring them: each node's output in a directory of its own.
mkdir "$WORK/copies"
for n in $NODES; do
	cp -a "$WORK/$n" "$WORK/copies/$n"
done
"$MSPROF" --collect="$WORK/cluster" "$WORK/copies/node1" "$WORK/copies/node2" \
	>"$WORK/collect.log" 2>&1
check "--collect of two nodes: exit 0" [ $? -eq 0 ] || cat "$WORK/collect.log"
check "  two PROF_ directories in the cluster dir" [ "$(prof_dirs "$WORK/cluster" | wc -l)" = 2 ]
ranks=$(cat "$WORK"/cluster/PROF_*/device_*/info.json.[0-9] | jq -s -c '[.[].rank_id] | sort')
check "  ranks 0 and 1, each with its device dir (got $ranks)" [ "$ranks" = "[0,1]" ]
check "  copied as they were" diff -r "$WORK/copies/node1/$(ls "$WORK/node1")" \
	"$WORK/cluster/$(ls "$WORK/node1")"
check "  nothing else left in it" [ "$(ls -A "$WORK/cluster" | grep -vc '^PROF_')" = 0 ]
# The same again: names already there get a suffix, nothing is replaced.
"$MSPROF" --collect="$WORK/cluster" "$WORK/copies/node1/$(ls "$WORK/node1")" \
	>"$WORK/collect2.log" 2>&1
check "a name already collected: collected beside it, _2" \
	[ -d "$WORK/cluster/$(ls "$WORK/node1")_2" ]
# A source holding a link (to a file of root's) is refused, whole.
d=$WORK/copies/node2/$(ls "$WORK/node2")
ln -s /etc/shadow "$d/host/data/evil"
"$MSPROF" --collect="$WORK/cluster3" "$WORK/copies/node1" "$WORK/copies/node2" \
	>"$WORK/collect3.log" 2>"$WORK/collect3.err"
check "a symlink in a source: exit 1" [ $? -eq 1 ]
check "  said in one line naming it" \
	one_line "$WORK/collect3.err" "host/data/evil is a symbolic link; not collected"
check "  the other node is collected, that one not at all" \
	[ "$(ls -A "$WORK/cluster3")" = "$(ls "$WORK/node1")" ]
rm "$d/host/data/evil"
# A hard link: a file of root's someone linked into what they hand over.
ln "$d/host/info.json" "$d/host/data/second_name"
"$MSPROF" --collect="$WORK/cluster5" "$WORK/copies/node2" >/dev/null 2>"$WORK/collect5.err"
check "a file of two links in a source: refused, exit 1" [ $? -eq 1 ]
check "  said so" grep -q "has more than one link; not collected" "$WORK/collect5.err"
check "  and nothing of it left" [ -z "$(ls -A "$WORK/cluster5")" ]
rm "$d/host/data/second_name"
ln -s "$WORK/copies/node1/$(ls "$WORK/node1")" "$WORK/copies/PROF_000009_link"
"$MSPROF" --collect="$WORK/cluster4" "$WORK/copies" >/dev/null 2>"$WORK/collect4.err"
check "a PROF_ entry that is a symlink: refused, exit 1" [ $? -eq 1 ]
check "  said so" grep -q "PROF_000009_link is a symbolic link" "$WORK/collect4.err"
check "  and not collected" [ -z "$(ls -A "$WORK/cluster4")" ]

# --- the control path's refusals -----------------------------------------
start_task --steps 0 --step-ms 10 || exit 1
# One line on stderr, exit 1, and what was at the path left as it was.
refused() {	# refused WHAT NEEDLE: msprof --control=$WORK/c refused so
	"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$WORK/r" \
		--control="$WORK/c" </dev/null >"$WORK/r.out" 2>"$WORK/r.err"
	check "$1: refused, exit 1" [ $? -eq 1 ]
	check "  in one line naming it" one_line "$WORK/r.err" "--control $WORK/c: $2" ||
		cat "$WORK/r.err"
}
echo keep >"$WORK/c"
refused "a file at the path" "something is already there"
check "  the file is left as it was" [ "$(cat "$WORK/c")" = keep ]
rm "$WORK/c"
ln -s "$WORK/elsewhere" "$WORK/c"
refused "a dangling symlink at the path" "something is already there"
check "  nothing made through it" [ ! -e "$WORK/elsewhere" ]
rm "$WORK/c"
mkfifo -m 600 "$WORK/c"
refused "a FIFO someone made" "something is already there"
check "  it is left there" [ -p "$WORK/c" ]
rm "$WORK/c"
add_user
mkdir "$WORK/theirs" && chown "$TEST_USER" "$WORK/theirs"
"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$WORK/r" \
	--control="$WORK/theirs/c" </dev/null >/dev/null 2>"$WORK/r.err"
check "a directory another user owns: refused, exit 1" [ $? -eq 1 ]
check "  said so" grep -q "owned by another user" "$WORK/r.err" || cat "$WORK/r.err"
check "  nothing made in it" [ -z "$(ls -A "$WORK/theirs")" ]
"$MSPROF" --dynamic=on --pid="$TASK_PID" --control="$WORK/%x" </dev/null \
	>/dev/null 2>"$WORK/r.err"
check "a % other than %h and %%: refused, exit 1" [ $? -eq 1 ]
check "  said so" grep -q "takes %h" "$WORK/r.err"

# A long line is said and ignored; msprof goes on with the next ones.
"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$WORK/r" \
	--control="$WORK/c" </dev/null >"$WORK/long.log" 2>&1 &
MP=$!
PIDS_TO_KILL+=("$MP")
wait_for "$WORK/long.log" "commands are read from" 10
{ head -c 5000 /dev/zero | tr '\0' x; echo; } >"$WORK/c"
echo bogus >"$WORK/c"
echo status >"$WORK/c"
echo quit >"$WORK/c"
wait_pid "$MP" 20
check "a long line, then quit: exit 0" [ $? -eq 0 ]
check "  the long line is said to be ignored" grep -q "longer than 256 bytes was ignored" "$WORK/long.log"
check "  no part of it is taken as a command" [ "$(grep -c "invalid option" "$WORK/long.log")" = 1 ]
check "  an unknown command gets msprof's answer" grep -q "invalid option -- 'bogus'" "$WORK/long.log"
check "  the FIFO is removed at quit" [ ! -e "$WORK/c" ]

# start at: refused times, and a stop before the instant cancels it.
"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$WORK/r" \
	--control="$WORK/c" </dev/null >"$WORK/at.log" 2>&1 &
MP=$!
PIDS_TO_KILL+=("$MP")
wait_for "$WORK/at.log" "commands are read from" 10
echo "start at @1" >"$WORK/c"
echo "start at @$(( $(date +%s) + 60 )) and more" >"$WORK/c"
echo "start at $(date -u -d '+2 days' +%Y-%m-%dT%H:%M:%SZ)" >"$WORK/c"
echo "start at $(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%S)" >"$WORK/c"
echo "start at @$(( $(date +%s) + 600 ))" >"$WORK/c"
echo stop >"$WORK/c"
echo quit >"$WORK/c"
wait_pid "$MP" 20
check "start at: msprof exits 0" [ $? -eq 0 ]
show "$WORK/at.log"
check "  a time in the past: refused" grep -q "start at: @1 is .* s in the past" "$WORK/at.log"
check "  more than a day ahead: refused" grep -q "is more than a day ahead" "$WORK/at.log"
check "  a time without a zone: refused" grep -q "ISO 8601 time with its zone" "$WORK/at.log"
check "  anything after the time: refused" grep -q "start at takes one time" "$WORK/at.log"
check "  stop cancels a start not yet come" grep -q "cancelled the start at" "$WORK/at.log"
check "  and no window was made" [ -z "$(prof_dirs "$WORK/r")" ]

# --- msprofctl.sh writes only to a FIFO msprof would have made ------------
# (add_user above made the test's user.)  Another user's FIFO, one open to
# others, one in a directory others may write to, one reached through
# another user's link: each refused on that node in one line, exit 1, and
# not a byte written to it.
ctl_refused() {	# ctl_refused WHAT PATH NEEDLE
	local got=$WORK/ctl.got
	: >"$got"
	timeout 5 cat "$2" >"$got" 2>/dev/null &
	local reader=$!
	$CTL -R exec -w node1 -c "$2" stop >/dev/null 2>"$WORK/ctl.err"
	check "msprofctl, $1: refused, exit non-zero" [ $? -ne 0 ]
	check "  said naming it" grep -q -- "control FIFO $2 refused: $3" "$WORK/ctl.err" ||
		cat "$WORK/ctl.err"
	# Open the FIFO for writing ourselves, so the reader ends now (its
	# timeout, should it have passed, is this open's too).
	timeout 5 sh -c ': >"$1"' sh "$2"
	wait "$reader"
	check "  nothing written to it" [ ! -s "$got" ]
}
if command -v pdsh >/dev/null; then
	chmod 711 "$WORK"
	mkdir -m 1777 "$WORK/pub"
	run_as mkfifo -m 600 "$WORK/pub/theirs.ctl"
	ctl_refused "another user's FIFO" "$WORK/pub/theirs.ctl" "it belongs to $TEST_USER"
	mkfifo -m 622 "$WORK/open.ctl"
	ctl_refused "a FIFO others may write" "$WORK/open.ctl" "its group or others have access"
	mkdir -m 777 "$WORK/open"
	mkfifo -m 600 "$WORK/open/c.ctl"
	ctl_refused "a FIFO in a directory others may write" "$WORK/open/c.ctl" \
		"$WORK/open above it is writable by others"
	mkdir -m 700 "$WORK/mine"
	mkfifo -m 600 "$WORK/mine/c.ctl"
	run_as ln -s "$WORK/mine" "$WORK/pub/link"
	ctl_refused "a FIFO reached through another user's link" "$WORK/pub/link/c.ctl" \
		"$WORK/pub/link on its path is a link of another user"
else
	skip "msprofctl.sh's refusals" "no pdsh: tools/install-deps.sh installs it"
fi
