#!/bin/bash
# npusim's libhccl without a profiler: every collective's results with 2, 3
# and 4 ranks over several types, counts, ops and roots
# (tests/programs/hccl_collectives.c) and through npu_sample --collective; a rank that dies mid-job fails the
# others' collective at once, not after HCCL_EXEC_TIMEOUT; and what another
# user plants under the rendezvous name in /dev/shm is refused, untouched.
source tests/e2e/lib.sh
PROG=build/tests/hccl_collectives
# A key of our own for each job, so the check that its rendezvous name is
# gone sees only that job's (other tests may make names in /dev/shm).
new_key() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
shm_name() { echo "/dev/shm/npusim-hccl-$(id -u)-$1"; }
left=

for n in 2 3 4; do
	key=$(new_key)
	timeout 120 $PROG $n --key="$key" >"$WORK/coll$n.out" 2>&1
	check "$n ranks: every collective's result right on every rank" [ $? -eq 0 ]
	check "  189 collectives each" [ "$(grep -c ': 189 collectives, ok$' "$WORK/coll$n.out")" = $n ]
	[ -e "$(shm_name "$key")" ] && left="$left $n"
done
show "$WORK/coll4.out"

# npu_sample's steps end with each collective in turn; each rank checks
# what it got against the host's sum, copy or gather of every rank's data.
for c in allreduce broadcast allgather reducescatter; do
	mkdir "$WORK/$c"
	RUN_RANKS_LOGS=$WORK/$c RUN_RANKS_TIMEOUT=60 tools/npusim/sample/run_ranks.sh 3 \
		--steps 4 --step-ms 1 --collective=$c
	check "npu_sample --collective=$c, 3 ranks: every result right" [ $? -eq 0 ]
	check "  4 calls on each rank" [ "$(cat "$WORK/$c"/rank_*.log | grep -ci "^calls Hccl${c/reduce/Reduce} 4$")" = 3 ]
done
$SAMPLE --collective=gather 2>"$WORK/badcoll.err"
check "an unknown --collective: exit 2, one line" [ $? -eq 2 -a "$(wc -l <"$WORK/badcoll.err")" = 1 ]

# Rank 2 kills itself before its third collective.  A bound far below the
# 300 s each collective would otherwise wait: the death is seen, not waited out.
key=$(new_key)
HCCL_EXEC_TIMEOUT=300 timeout 60 $PROG 4 --die=2 --key="$key" >"$WORK/die.out" 2>&1
check "a dead rank: the other 3 fail their collective, bounded" [ $? -eq 0 ]
check "  each after 3 collectives" [ "$(grep -c ': 3 collectives, saw the failure$' "$WORK/die.out")" = 3 ]
show "$WORK/die.out"
[ -e "$(shm_name "$key")" ] && left="$left dead"
check "no rendezvous name left in /dev/shm (left by:$left)" [ -z "$left" ]

# --- another user's plants under the name a job is about to use ---------
add_user || exit 1
echo "secret" >"$WORK/target"
shm_stat() { stat -c '%U %s %F %Y' "$(shm_name "$1")"; }
plant() {	# plant KEY KIND: KIND made as the other user under KEY's name
	local name
	name=$(shm_name "$1")
	CLEANUP_CMDS+=("rm -f $name")
	case $2 in
	file) run_as sh -c "umask 077; head -c 1048704 /dev/zero >$name" ;;
	fifo) run_as mkfifo -m 600 "$name" ;;
	link) run_as ln -s "$WORK/target" "$name" ;;
	esac
}
for kind in file fifo link; do
	key=$(new_key)
	plant "$key" $kind
	before=$(shm_stat "$key")
	HCCL_CONNECT_TIMEOUT=100 timeout 30 $PROG 2 --key="$key" >"$WORK/plant.out" 2>&1
	check "a $kind planted by another user: both ranks refuse it, bounded" \
		[ $? -eq 1 -a "$(grep -c 'HcclCommInitRootInfo: error' "$WORK/plant.out")" = 2 ]
	check "  and leave it as it was" [ "$(shm_stat "$key")" = "$before" ]
done
check "the symlink's target untouched" [ "$(cat "$WORK/target")" = secret ]
