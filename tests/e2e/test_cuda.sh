#!/bin/bash
# The real CUDA runtime: a program built with nvcc against the shared
# libcudart makes K calls of each kind between SIGUSR1 and its exit; the
# window holds exactly K of each.  The library is a renamed copy (as pip
# wheels ship it: libcudart-<hash>.so), found by its exported (versioned)
# symbols.  With no GPU the calls fail, but they are real calls.
source tests/e2e/lib.sh

CUDA_SAMPLE=$PWD/build/tests/cuda_sample
if [ ! -x "$CUDA_SAMPLE" ]; then
	skip "cuda test" "no nvcc, so no build/tests/cuda_sample"
	exit 0
fi
real=$(ldd "$CUDA_SAMPLE" | awk '/libcudart/ {print $3}')
mkdir -p "$WORK/wheel/lib"
cp "$real" "$WORK/wheel/lib/libcudart-3f1c9a7b.so.13"
ln -s libcudart-3f1c9a7b.so.13 "$WORK/wheel/lib/libcudart.so.13"

K=23
LD_LIBRARY_PATH=$WORK/wheel/lib start_waiting "$WORK/cuda.out" "$CUDA_SAMPLE" $K
check "the renamed copy is what the task maps" grep -q "libcudart-3f1c9a7b.so.13" /proc/$TASK_PID/maps

msprof_open "$WORK/msprof.log" --dynamic=on --host-only=on --pid=$TASK_PID --output="$WORK/out"
say start
wait_for "$WORK/msprof.log" "collection started"
kill -USR1 $TASK_PID
wait_pid $TASK_PID
msprof_close
check "msprof exits 0" [ $? -eq 0 ]
show "$WORK/cuda.out" "$WORK/msprof.log"

d=$(prof_dirs "$WORK/out")
"$MSPROF" --export=on --output="$d" >/dev/null
for api in cudaMalloc cudaMemcpy cudaLaunchKernel cudaFree; do
	got=$(timeline "$d" --arg n "$api" '[.[] | select(.ph=="X" and .args.id==$n)] | length')
	check "exactly $K $api calls (got $got)" [ "$got" = $K ]
done
check "the calls are on the CUDA Runtime layer" [ "$(timeline "$d" -r '[.[] | select(.ph=="X" and (.args.id // "" | startswith("cuda"))) | "\(.name | split("@")[0]) \(.args.level)"] | unique | join(",")')" = "CUDA cuda" ]
check "cudaMalloc's size argument is kept" [ "$(timeline "$d" '[.[] | select(.args.id=="cudaMalloc") | .args.size] | unique')" = "$(printf '[\n  1024\n]')" ]
check "the failures are recorded (cudaErrorInsufficientDriver = 35)" [ "$(timeline "$d" '[.[] | select(.args.id=="cudaMalloc") | .args.return] | unique')" = "$(printf '[\n  35\n]')" ]

# Launch mode: libcudart carries no agent, so msprof preloads one, which
# serves because the task maps the CUDA runtime.
msprof_open "$WORK/launch.log" --dynamic=on --output="$WORK/launch" "$CUDA_SAMPLE" 5
wait_for "$WORK/launch.log" "waiting for SIGUSR1"
app=$(sed -n 's/^cuda_sample pid=\([0-9]*\) .*/\1/p' "$WORK/launch.log")
PIDS_TO_KILL+=("$app")
say start
wait_for "$WORK/launch.log" "collection started"
sleep 1
kill -USR1 "$app"
sleep 2
say stop
say quit
msprof_close
check "launch mode: exit 0" [ $? -eq 0 ]
check "launch mode: the preloaded agent's socket was found" grep -q "attached to pid .* (cuda_sample)" "$WORK/launch.log"
d=$(prof_dirs "$WORK/launch")
check "launch mode: exactly 20 CUDA calls" [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" = 20 ]
