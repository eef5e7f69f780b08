#!/bin/bash
# The paths msprof takes on kernels before 5.15 (no attach cookies: a probed
# function is known by its address) and 6.6 (no uprobe_multi: a link per
# probe), taken on this kernel: the counts must stay exact.
export MSPROF_TEST_WITHOUT=cookies,uprobe_multi MSPROF_VERBOSE=1
source tests/e2e/test_exact_counts.sh
check "msprof said it had no cookies" grep -q "has no BPF attach cookies" "$WORK/msprof.log"
check "msprof said it had no uprobe_multi" grep -q "has no uprobe_multi links" "$WORK/msprof.log"

# --- without cookies, processes that come and go leave no entry addresses ---
# The parent maps the runtime and forks children that inherit the mapping
# (and so get probes, and entry addresses of their own) and soon exit.
# uprobe_multi stays: perf-event links cost a kernel sync each to detach.
export MSPROF_TEST_WITHOUT=cookies
entry_count() {	# entry_count PID: keys in msprof PID's entry-address map
	local fd id
	for fd in /proc/"$1"/fdinfo/*; do
		grep -q '^key_size:[[:space:]]*16$' "$fd" 2>/dev/null &&
			grep -q '^value_size:[[:space:]]*4$' "$fd" || continue
		id=$(sed -n 's/^map_id:[[:space:]]*//p' "$fd")
		bpftool map dump id "$id" -j | jq length
		return
	done
	echo "no entry map in pid $1"
}
cat >"$WORK/forker.py" <<'PY'
import ctypes, os, signal, sys, time
rt = ctypes.CDLL(os.environ["LIBNPUSIM"])
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print("ready", flush=True)
signal.sigwait({signal.SIGUSR1})	# forks only once the window is open
end = time.monotonic() + 120	# the test kills it long before
while time.monotonic() < end:
    if os.fork() == 0:
        time.sleep(0.2)
        rt.aclrtGetDeviceCount(ctypes.byref(ctypes.c_uint32()))
        time.sleep(0.1)
        os._exit(0)
    time.sleep(0.2)
    while os.waitpid(-1, os.WNOHANG)[0] > 0:
        pass
PY
follow_py "$WORK/forker.py" forks
one=$(entry_count "$MSPROF_PID")	# the parent's alone
kill -USR1 $PY_PID
sleep 6	# about 30 children come and go, each alive 0.3 s
many=$(entry_count "$MSPROF_PID")
say quit
msprof_close
check "following children: exit 0" [ $? -eq 0 ]
show "$WORK/forks.log"
dirs=$(ls -d "$WORK"/forks/PROF_* | wc -l)
check "children were followed ($dirs PROF_ directories)" [ "$dirs" -gt 10 ]
# Three or four processes live at once; without forgetting, thirty.
check "entry addresses stay those of the live targets ($one, then $many)" \
	[ "$many" -le $((one * 6)) ] 2>/dev/null
