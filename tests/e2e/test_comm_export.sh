#!/bin/bash
# The export of communication: a 4-rank job (slow rank 2) under one
# launch-mode window, exported; each rank's timeline has the Communication
# process with its all-reduces as Huawei's analysis draws a runtime's (one
# op a node launch of HcomAllReduce, named by the group's hash id), flows
# from their node launches inside the HcclAllReduce calls, and Overlap
# Analysis slices that tile the device's span; communication_statistic
# counts the ops; the db's COMMUNICATION_OP rows join their node launches
# in CANN_API; --analyze=on writes the communication files.
source tests/e2e/lib.sh
STEPS=12

job_window "$WORK/job.log" "$WORK/out" "$WORK/logs" 4 --steps $STEPS --step-ms 10 --slow-rank=2
check "msprof: exit 0" [ $? -eq 0 ]
check "4 PROF_ directories" [ "$(prof_dirs "$WORK/out" | wc -l)" = 4 ]

# --- timeline and communication_statistic, each rank ------------------
for d in $(prof_dirs "$WORK/out"); do
	r=$(jq .rank_id "$d/host/info.json")
	"$MSPROF" --export=on --output="$d" >>"$WORK/export.log" 2>&1
	check "rank $r: export: exit 0" [ $? -eq 0 ]
	# The shared checker: msprof's conventions, the flows, and overlap
	# slices whose Computing + Not Overlapped + Free is the tasks' span.
	python3 tests/e2e/check_timeline.py --every-task-launched "$d" >"$WORK/check.out"
	check "rank $r: check_timeline.py passes" [ $? -eq 0 ]
	sed "s/^\(ok\|FAIL\|skip\) timeline: /\1 rank $r: /" "$WORK/check.out"
	calls=$(timeline "$d" '[.[] | select(.ph=="X" and .args.id=="HcclAllReduce")] | length')
	check "rank $r: $STEPS HcclAllReduce calls (got $calls)" [ "$calls" = $STEPS ]
	got=$(timeline "$d" '[.[] | select(.ph=="M" and .name=="process_name" and .args.name=="Communication" and (.pid / 32 | floor) % 32 == 16)] | length')
	check "  a Communication process, sort index 16" [ "$got" = 1 ]
	got=$(timeline "$d" '[.[] | select(.ph=="M" and .name=="thread_name" and .args.name=="Group hccl_world_group Communication")] | length')
	check "  its group thread" [ "$got" = 1 ]
	# The group's hash id, as the runtime named it (hash_dic): msprof's op
	# names carry its last 3 digits.
	gid=$(sed -n 's/^\([0-9]*\):hccl_world_group$/\1/p' "$d"/host/data/unaging.additional.hash_dic.slice_* | head -1)
	g=${gid: -3}
	ops=$(timeline "$d" -c '[.[] | select(.ph=="X" and (.pid / 32 | floor) % 32 == 16 and .args.rank_size != null)]')
	check "  an op per call, named hcom_allReduce__${g}_<n>_1 (got $(jq length <<<"$ops"))" \
		[ -n "$g" -a "$(jq length <<<"$ops")" = "$calls" ]
	check "  op names numbered 0..$((STEPS - 1))" [ "$(jq -r '[.[].name] | sort | join(",")' <<<"$ops")" = \
		"$(for i in $(seq 0 $((STEPS - 1))); do echo "hcom_allReduce__${g}_${i}_1"; done | sort | paste -sd,)" ]
	check "  each with the job's 4 ranks" [ "$(jq '[.[] | select(.args.rank_size == 4)] | length' <<<"$ops")" = "$calls" ]
	# Each op's flow (id its connection id << 32, less 1) starts at its
	# Node@launch and ends at the op (check_timeline.py: each node launch
	# inside an Hccl* call of its own).
	got=$(timeline "$d" '
		([.[] | select(.ph=="X" and .name=="Node@launch" and .args.item_id=="hcom_allReduce_") | {key: ("\(.args.connection_id * 4294967296 - 1)"), value: .}] | from_entries) as $node
		| ([.[] | select(.ph=="X" and (.pid / 32 | floor) % 32 == 16 and .args.rank_size != null) | {key: ("\(.args.connection_id * 4294967296 - 1)"), value: .}] | from_entries) as $op
		| [.[] | select(.ph=="s" and $node[.id] != null and $op[.id] != null and .ts == $node[.id].ts and .tid == $node[.id].tid)] as $s
		| [.[] | select(.ph=="f" and $op[.id] != null and .ts == $op[.id].ts and .pid == $op[.id].pid and .tid == $op[.id].tid)] as $f
		| [($s | length), ($f | length), ($s | map(.id) | unique | length)] | map(tostring) | join(" ")' -r)
	check "  a flow from each op's node launch to the op (starts ends distinct: $got)" \
		[ "$got" = "$calls $calls $calls" ]
	got=$(timeline "$d" -r '[.[] | select(.ph=="X" and (.pid / 32 | floor) % 32 == 31) | .name]
		| [(map(select(. == "Communication")) | length),
		   (map(select(. == "Communication(Not Overlapped)")) | length)] | map(tostring) | join(" ")')
	set -- $got
	check "  overlap: Communication and Not Overlapped slices ($1, $2)" [ "$1" -gt 0 -a "$2" -gt 0 ]
	csv=$(ls "$d"/mindstudio_profiler_output/communication_statistic_*.csv 2>/dev/null)
	check "  communication_statistic_<ts>.csv" [ -n "$csv" ]
	check "  its header" [ "$(head -1 "$csv")" = "Device_id,OP Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)" ]
	check "  one row, HcomAllReduce (the node's op type), counting the HcclAllReduce calls" \
		[ "$(sed 1d "$csv" | cut -d, -f1-3)" = "0,HcomAllReduce,$calls" ]
	check "  README.txt names it" grep -q '^[0-9]*\.communication_statistic\.csv:' "$d/mindstudio_profiler_output/README.txt"
done

# --- the db, each rank ------------------------------------------------
for d in $(prof_dirs "$WORK/out"); do
	r=$(jq .rank_id "$d/host/info.json")
	"$MSPROF" --export=on --type=db --output="$d" >>"$WORK/export.log" 2>&1
	check "rank $r: export --type=db: exit 0" [ $? -eq 0 ]
	db=$(ls "$d"/msprof_*.db 2>/dev/null | head -1)
	q() { sqlite3 "$db" "$1" 2>&1; }
	# The shared db checker: schema, overlap tiling, the timeline's sums.
	tl=$(ls -t "$d"/mindstudio_profiler_output/msprof_*.json | head -1)
	while read -r status what; do
		db_check_line "  " "$status" "$what"
	done < <(python3 tests/e2e/db_check.py "$db" "$tl" 2>&1 || echo "FAIL db_check.py ran to its end")
	check "  COMMUNICATION_OP: a row per HcclAllReduce call" \
		[ "$(q 'SELECT count(*) FROM COMMUNICATION_OP')" = $STEPS ]
	# As the timeline's ops: the node launch's connection id (a CANN_API
	# row of the node level), the node's op type, the group's name, the
	# group id's digits in the op's name, the job's 4 ranks.
	gid=$(sed -n 's/^\([0-9]*\):hccl_world_group$/\1/p' "$d"/host/data/unaging.additional.hash_dic.slice_* | head -1)
	got=$(q "SELECT count(*) FROM COMMUNICATION_OP o
		JOIN CANN_API a ON a.connectionId = o.connectionId
		JOIN STRING_IDS n ON n.id = a.name
		JOIN STRING_IDS t ON t.id = o.opType
		JOIN STRING_IDS g ON g.id = o.groupName
		JOIN STRING_IDS on_ ON on_.id = o.opName
		WHERE n.value = 'launch' AND a.type = 10000 AND t.value = 'HcomAllReduce'
		AND g.value = 'hccl_world_group' AND on_.value LIKE 'hcom_allReduce__${gid: -3}_%_1'
		AND a.startNs <= o.startNs AND o.endNs > o.startNs AND o.rankSize = 4")
	check "  each joined to its node launch in CANN_API, named, typed (got $got)" [ "$got" = $STEPS ]
	got=$(q "SELECT count(*) FROM COMMUNICATION_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId
		JOIN COMMUNICATION_OP o ON o.opId = c.opId JOIN STRING_IDS s ON s.id = t.taskType
		WHERE s.value = 'MEMCPY_ASYNC' AND t.startNs >= o.startNs AND t.endNs <= o.endNs")
	check "  COMMUNICATION_TASK_INFO: each op's task (MEMCPY_ASYNC), in TASK, in its op's span (got $got)" [ "$got" = $STEPS ]
	check "  RANK_DEVICE_MAP: rank $r" [ "$(q 'SELECT rankId, deviceId FROM RANK_DEVICE_MAP')" = "$r|0" ]
	check "  OVERLAP_ANALYSIS: communication and not overlapped rows" \
		[ "$(q 'SELECT count(DISTINCT type) FROM OVERLAP_ANALYSIS WHERE type IN (1, 2)')" = 2 ]
	check "  ENUM_HCCL_TRANSPORT_TYPE names LOCAL" [ "$(q 'SELECT name FROM ENUM_HCCL_TRANSPORT_TYPE WHERE id = 2')" = LOCAL ]
done

# --- --analyze=on, each rank -------------------------------------------
for d in $(prof_dirs "$WORK/out"); do
	r=$(jq .rank_id "$d/host/info.json")
	"$MSPROF" --analyze=on --output="$d" >>"$WORK/analyze.log" 2>&1
	check "rank $r: --analyze=on: exit 0" [ $? -eq 0 ]
	ops=$(timeline "$d" -r '[.[] | select(.ph=="X" and (.pid / 32 | floor) % 32 == 16 and .args.rank_size != null) | .name + "@hccl_world_group"] | sort | join(",")')
	got=$(jq -r '[keys[] | select(. != "Total HCCL Operators")] | sort | join(",")' "$d/analyze/communication.json")
	check "  communication.json: an entry per timeline op, keyed <op>@<group>" [ -n "$ops" -a "$got" = "$ops" ]
	# npusim's collective is one task that waits for its peers inside it:
	# all of its time counts as waiting (user/export/analyze.c says why;
	# Huawei's rules, which know only notify tasks as waits, would call an
	# on-chip Memcpy's time idle and hide the slow rank).
	got=$(jq '[.[] | ."Communication Time Info" | select(."Elapse Time(ms)" > 0 and ."Wait Time(ms)" == ."Elapse Time(ms)")] | length' "$d/analyze/communication.json")
	check "  each with its time info, all waiting (got $got)" [ "$got" = $((STEPS + 1)) ]
	got=$(jq -r '[keys[]] | sort | join(",")' "$d/analyze/communication_matrix.json")
	check "  communication_matrix.json: the same ops" [ "$got" = "$ops" ]
	got=$(jq -r "[.[] | .\"$r-$r\".\"Transport Type\"] | unique | join(\",\")" "$d/analyze/communication_matrix.json")
	check "  each with its rank's link" [ "$got" = LOCAL ]
done
for d in $(prof_dirs "$WORK/out"); do
	r=$(jq .rank_id "$d/host/info.json")
	adb=$d/analyze/communication_analyzer.db
	got=$(sqlite3 "$adb" "SELECT count(*) FROM CommAnalyzerTime WHERE group_name = 'hccl_world_group' AND elapse_time > 0 AND wait_time = elapse_time" 2>&1)
	check "rank $r: communication_analyzer.db: CommAnalyzerTime, a row per op (got $got)" \
		[ "$got" = "$(jq '[keys[] | select(. != "Total HCCL Operators")] | length' "$d/analyze/communication.json")" ]
	got=$(sqlite3 "$adb" "SELECT count(*) FROM CommAnalyzerMatrix WHERE src_rank = '$r' AND transport_type = 'LOCAL'" 2>&1)
	check "  CommAnalyzerMatrix: the rank's link per op (got $got)" [ "$got" = "$(jq 'length' "$d/analyze/communication_matrix.json")" ]
	got=$(sqlite3 "$adb" "SELECT count(*) FROM CommAnalyzerBandwidth WHERE transport_type = 'SDMA' AND transit_size > 0" 2>&1)
	check "  CommAnalyzerBandwidth: each op's bytes (got $got)" [ "$got" = "$(jq 'length' "$d/analyze/communication_matrix.json")" ]
done
