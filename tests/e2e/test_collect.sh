#!/bin/bash
# msprof --collect cannot fill a disk (issue 22, item 3): a copy keeps its
# sources' holes, a whole run writes at most its budget (lowered here by
# MSPROF_TEST_LIMITS, which can only lower msprof's limits), and it leaves
# the destination's free-space reserve free; when it stops it says so in
# one line, exits 1, and keeps nothing of the directory that did not fit.
# And the names its sources chose reach the terminal made printable
# (item 4).  No BPF, no task: the sources are made here.
source tests/e2e/lib.sh

# prof DIR SIZE [sparse]: a PROF_ directory DIR holding a host file of SIZE
# (a truncate size: 60M) of real data, or all hole.
prof() {
	mkdir -p "$1/host/data" "$1/device_0"
	echo '{"rank_id": 0}' >"$1/device_0/info.json.0"
	if [ "$3" = sparse ]; then
		truncate -s "$2" "$1/host/data/host_trace.data"
	else
		head -c "$2" /dev/zero >"$1/host/data/host_trace.data"
	fi
}
# tiny DIR SIZE: a tmpfs of SIZE at DIR, unmounted at exit.
tiny() {
	mkdir -p "$1" && mount -t tmpfs -o size="$2" msprof-e2e "$1" 2>/dev/null || return 1
	CLEANUP_CMDS=("umount -l $1" "${CLEANUP_CMDS[@]}")
}
used_kb() { df -k --output=used "$1" | tail -1 | tr -d ' '; }
# stops NAME LINE COMMAND...: COMMAND (an msprof --collect) exits 1 and
# says LINE (a grep pattern) alone on stderr; its output in $WORK/NAME.*.
stops() {
	local name=$1 line=$2 rc
	shift 2
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	rc=$?
	show "$WORK/$name.out" "$WORK/$name.err"
	check "$name: exit 1 (got $rc)" [ $rc -eq 1 ]
	check "  said in one line: where, why, how much is left out" \
		one_line "$WORK/$name.err" "$line"
}
# No ESC (0x1b) or BEL (0x07) byte in FILE.
no_escapes() { ! LC_ALL=C grep -q $'[\x1b\x07]' "$1"; }

# --- sparse sources ---------------------------------------------------------
# The review's case: 60, 30, 8 and 1 MiB, no block used, collected on their
# own 100 MiB file system took it to 99 %.
if tiny "$WORK/small" 100m; then
	for s in 60M 30M 8M 1M; do
		prof "$WORK/small/node/PROF_sparse_$s" "$s" sparse
	done
	before=$(used_kb "$WORK/small")
	"$MSPROF" --collect="$WORK/small/cluster" "$WORK/small/node" \
		>"$WORK/sparse.log" 2>&1
	rc=$?
	show "$WORK/sparse.log"
	check "sparse sources: collected, exit 0 (got $rc)" [ $rc -eq 0 ]
	check "  all four" [ "$(prof_dirs "$WORK/small/cluster" | wc -l)" = 4 ]
	grew=$(( $(used_kb "$WORK/small") - before ))
	check "  their holes cost the file system nothing (${grew} KiB used)" [ "$grew" -lt 1024 ]
	check "  each copy as its source" cmp -s "$WORK/small/node/PROF_sparse_60M/host/data/host_trace.data" \
		"$WORK/small/cluster/PROF_sparse_60M/host/data/host_trace.data"
	umount "$WORK/small"
else
	skip "sparse sources on a small file system" "cannot mount a tmpfs"
fi

# --- the free-space reserve ---------------------------------------------------
# 50, 30 and 20 MiB of data into 100 MiB: the third would leave less than
# its 5 % (5 MiB) free, and the 1 MiB after it is not tried.
if tiny "$WORK/src" 128m && tiny "$WORK/dst" 100m; then
	for s in 50M 30M 20M 1M; do
		prof "$WORK/src/PROF_data_$s" "$s"
	done
	stops reserve "^msprof: --collect: stopped at $WORK/src/PROF_data_20M: its copy would go into the free-space reserve (5 MiB) of the file system (80 MiB written); 2 PROF_ directories left out (that one and 1 after it), none of them kept$" \
		"$MSPROF" --collect="$WORK/dst/cluster" "$WORK"/src/PROF_data_{50M,30M,20M,1M}
	check "  the two before it are collected" \
		[ "$(ls -A "$WORK/dst/cluster" | tr '\n' ' ')" = "PROF_data_30M PROF_data_50M " ]
	check "  nothing half-written: no staging directory, no part of the third" \
		[ -z "$(find "$WORK/dst" -name '.msprof_collect_*' -o -name 'PROF_data_20M*')" ]
	free=$(df -k --output=avail "$WORK/dst" | tail -1 | tr -d ' ')
	check "  the reserve is left free (${free} KiB)" [ "$free" -ge 5120 ]
	check "  the summary counts them" grep -q "2 PROF_ directories collected into $WORK/dst/cluster, 2 not" "$WORK/reserve.out"
	umount "$WORK/dst"
	umount "$WORK/src"
else
	skip "the free-space reserve" "cannot mount a tmpfs"
fi

# --- the whole run's budget ---------------------------------------------------
# Lowered to 3 MiB: 1 + 1 MiB fit, the 2 MiB after them does not.
for s in 1M 1M_2 2M; do
	prof "$WORK/budget/node$s/PROF_b$s" "${s%_*}"
done
stops budget "stopped at $WORK/budget/node2M/PROF_b2M: its copy would go past the copy budget of 3 MiB (2 MiB written); 1 PROF_ directory left out (that one), none of them kept$" \
	env MSPROF_TEST_LIMITS=collect_bytes=3145728 "$MSPROF" --collect="$WORK/bcluster" \
	"$WORK/budget/node1M" "$WORK/budget/node1M_2" "$WORK/budget/node2M"
check "  the budget is one for the run, not per directory" \
	[ "$(prof_dirs "$WORK/bcluster" | wc -l)" = 2 ]

# --- names with escape sequences ----------------------------------------------
# A PROF_ name that sets the window title (OSC) and colours (CSI).
evil=$'PROF_\e]0;pwned\a\e[31mred'
prof "$WORK/esc/$evil" 10
prof "$WORK/esc2/$evil" 10
ln -s /etc/shadow "$WORK/esc2/$evil/host/data/link"
"$MSPROF" --collect="$WORK/ecluster" "$WORK/esc" "$WORK/esc2" "$WORK/$evil.gone" \
	"$WORK/"$'gone\e]0;pwned\a' \
	>"$WORK/esc.log" 2>&1
rc=$?
show "$WORK/esc.log"
check "escapes in names: the good one collected, exit 1 for the others" \
	[ $rc -eq 1 -a -d "$WORK/ecluster/$evil" ]
check "  the collected line holds no escape" grep -q "collected $WORK/esc/PROF_?]0;pwned??\[31mred as" "$WORK/esc.log"
check "  nor the refusal" grep -q "esc2/PROF_?]0;pwned??\[31mred/host/data/link is a symbolic link" "$WORK/esc.log"
check "  nor a PROF_ source that is not there" \
	grep -q "$WORK/PROF_?]0;pwned??\[31mred.gone: No such file or directory; not collected" "$WORK/esc.log"
check "  nor a source it cannot open" grep -q "cannot open $WORK/gone?]0;pwned?: No such file" "$WORK/esc.log"
check "  no ESC or BEL byte anywhere in its output" no_escapes "$WORK/esc.log"
# The other modes that read PROF_ directories name them the same way, the
# one --output names too (it may hold no ';', CSI needs none).
csi=$'PROF_\e[31mred\e[2J'
mkdir -p "$WORK/csi/$csi"
for mode in export query analyze; do
	for out in "$WORK/csi/$csi" "$WORK/csi/gone$csi"; do
		"$MSPROF" --$mode=on --output="$out" >"$WORK/csi.log" 2>&1
		check "--$mode=on --output=$(printf %q "${out##*/}"): no ESC byte in what it says" \
			no_escapes "$WORK/csi.log"
	done
done
