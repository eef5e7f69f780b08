#!/bin/bash
# A PROF_ directory, file by file, as msprof's readers check it (spec §2,
# §3 "C++ loader checks"): names, one-line JSON with the keys and types
# they require, .done sizes, clocks, and the rank from the task's
# environment.
source tests/e2e/lib.sh

# window OUT [ENV...]: one launched window of npu_sample, the task's
# environment without RANK_ID and RANK but for ENV; dirs holds its PROF_ dirs.
window() {
	local out=$1
	shift
	feed start "sleep 1.5" stop quit |
		env -u RANK_ID -u RANK "$@" "$MSPROF" --dynamic=on --output="$out" \
		"$SAMPLE" --steps 300 --step-ms 10 >"$out.log" 2>&1
	check "msprof exits 0 (${*:-no rank})" [ $? -eq 0 ]
	mapfile -t dirs < <(prof_dirs "$out")
}

# The checker: one line per fact, "ok <what>" or "FAIL <what>".
cat >"$WORK/layout.py" <<'EOF'
import json, os, re, sys

d, rank, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
bad = 0

def say(ok, what):
    global bad
    print(("ok " if ok else "FAIL ") + what)
    bad += not ok

def one_line(path):
    text = open(path).read()
    say(text.endswith("\n") and text.count("\n") == 1, f"{rel(path)}: one line")
    return json.loads(text)

def rel(path):
    return os.path.relpath(path, d)

def done(path):
    size = os.path.getsize(path)
    with open(path + ".done") as f:
        say(f.read() == f"filesize:{size}\n", f"{rel(path)}.done: filesize:{size}")

def mode(path):
    say(os.stat(path).st_mode & 0o777 == 0o640, f"{rel(path)}: mode 0640")

STR = ["version", "jobInfo", "OS", "hostname", "hwtype", "devices", "platform",
       "platform_version", "pid", "pid_name", "upTime", "cannVersion", "hostUid"]
NUM = ["memoryTotal", "cpuNums", "sysClockFreq", "cpuCores", "netCardNums",
       "drvVersion", "rank_id"]
DEV_INT = ["id", "env_type", "ctrl_cpu_core_num", "ctrl_cpu_endian_little",
           "ts_cpu_core_num", "ai_cpu_core_num", "ai_core_num", "ai_cpu_core_id",
           "ai_core_id", "aicpu_occupy_bitmap", "aiv_num"]
DEV_STR = ["ctrl_cpu_id", "ctrl_cpu", "ai_cpu", "hwts_frequency", "aic_frequency",
           "aiv_frequency"]
TIME = ["collectionDateBegin", "collectionDateEnd", "collectionTimeBegin",
        "collectionTimeEnd", "clockMonotonicRaw"]

# A device's own, as the runtime (npusim's, through our agent) writes it:
# all but the host's own facts msprof adds.
HOST_ONLY = {"upTime", "hostUid", "cpuCores"}

def check_info(path, device):
    i = one_line(path)
    name = rel(path)
    skip = HOST_ONLY if device is not None else set()
    say(all(type(i.get(k)) is str for k in STR if k not in skip), f"{name}: string keys")
    say(all(type(i.get(k)) is int for k in NUM if k not in skip), f"{name}: number keys")
    say(i["version"] == "1.0" and i["jobInfo"] == "NA", f"{name}: version, jobInfo")
    say(i["platform_version"] in "0 1 2 3 4 5 7 8 9 11 15 16".split(),
        f"{name}: platform_version {i['platform_version']!r} is one the readers take")
    say(i["pid"] == pid, f"{name}: pid is the task's, as a string ({i['pid']!r})")
    say(i["rank_id"] == rank, f"{name}: rank_id {i['rank_id']} == {rank}")
    say(i["drvVersion"] >= 467473, f"{name}: drvVersion allows all-export")
    cpu = i.get("CPU")
    say(type(cpu) is list and cpu and all(
        type(c.get("Id")) is int and all(type(c.get(k)) is str for k in
        ("Name", "Frequency", "Logical_CPU_Count", "Type")) for c in cpu)
        and cpu[-1]["Frequency"] == "1000", f"{name}: CPU list, Frequency 1000")
    say(type(i.get("netCard")) is list and all(
        type(n.get("netCardName")) is str and type(n.get("speed")) is int
        for n in i["netCard"]) and len(i["netCard"]) == i["netCardNums"],
        f"{name}: netCard list")
    devs = i.get("DeviceInfo")
    if device is None:
        say(devs == [] and i["devices"] == "", f"{name}: host: DeviceInfo [], devices \"\"")
        return i
    say(type(devs) is list and len(devs) == 1, f"{name}: one DeviceInfo element")
    e = devs[0]
    say(all(type(e.get(k)) is int for k in DEV_INT) and
        all(type(e.get(k)) is str for k in DEV_STR), f"{name}: DeviceInfo key types")
    say(e["hwts_frequency"] != "" and e["aic_frequency"] != "" and e["id"] == device,
        f"{name}: hwts/aic frequency set, id {device}")
    say(i["devices"] == str(device), f"{name}: devices \"{device}\"")
    return i

def check_sample(path, devices):
    s = one_line(path)
    say(s.get("devices") == devices and
        all(x.isdigit() for x in s["devices"].split(",")),
        f"{rel(path)}: devices {devices!r}")
    say(s.get("ai_core_profiling_mode") == "task-based" and "llc_profiling" in s,
        f"{rel(path)}: ai_core_profiling_mode, llc_profiling")
    if devices == "64":     # msprof's: the switches the runtime was sent
        say(all(s.get(k) in ("on", "off") for k in
            ("acl", "runtimeApi", "hcclTrace", "msproftx", "taskTime")), f"{rel(path)}: switches")

def check_times(start_path, end_path):
    s, e = one_line(start_path), one_line(end_path)
    say(all(type(s.get(k)) is str for k in TIME) and
        all(type(e.get(k)) is str for k in TIME), f"{rel(start_path)}, end: 5 string keys")
    say(s["collectionTimeEnd"] == s["collectionDateEnd"] == "" and
        e["collectionTimeBegin"] == e["collectionDateBegin"] == "",
        f"{rel(start_path)}, end: the other end's pair is \"\"")
    say(int(s["collectionTimeBegin"]) * 1000 >= int(s["clockMonotonicRaw"]),
        f"{rel(start_path)}: collectionTimeBegin*1000 >= clockMonotonicRaw")
    say(int(s["collectionTimeBegin"]) <= int(e["collectionTimeEnd"]) and
        int(s["clockMonotonicRaw"]) <= int(e["clockMonotonicRaw"]),
        f"{rel(start_path)}: start <= end")
    say(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}", s["collectionDateBegin"])
        is not None, f"{rel(start_path)}: collectionDateBegin is a local date")
    return s

def check_log(path, section, raw):
    lines = open(path).read().splitlines()
    want = ([f"[{section}]"] if section else []) + [f"clock_monotonic_raw: {raw}"]
    say(lines[:len(want)] == want and re.fullmatch(r"cntvct: \d+", lines[len(want)]) and
        (lines[len(want) + 1:] == (["cntvct_diff: 0"] if section else [])),
        f"{rel(path)}: {section or 'no section'}, clock_monotonic_raw of start_info")

base = os.path.basename(d)
say(re.fullmatch(r"PROF_\d{6}_\d{17}_\d{8}[A-R]{8}", base) is not None, f"name {base}")
say(base.split("_")[3][:8] == "%08d" % int(pid), "the name carries the task's pid")
say(not [f for f in os.listdir(d) if re.match(r"info\.json|sample\.json|start_info|end_info|.*\.log$", f)],
    "no msprof metadata at the root")
host = os.path.join(d, "host")
ctrl = ["info.json", "sample.json", "start_info", "end_info", "host_start.log"]
for f in ctrl:
    p = os.path.join(host, f)
    say(os.path.isfile(p), f"host/{f} exists")
    mode(p)
    done(p)
check_info(os.path.join(host, "info.json"), None)
check_sample(os.path.join(host, "sample.json"), "64")
s = check_times(os.path.join(host, "start_info"), os.path.join(host, "end_info"))
check_log(os.path.join(host, "host_start.log"), "Host", s["clockMonotonicRaw"])
devs = sorted(f for f in os.listdir(d) if re.fullmatch(r"device_\d+", f))
say(devs == ["device_0"], f"device dirs {devs}")
for dev in devs:
    n = int(dev[7:])
    p = os.path.join(d, dev)
    names = [f"info.json.{n}", "sample.json", f"start_info.{n}", f"end_info.{n}",
             f"host_start.log.{n}", f"dev_start.log.{n}"]
    for f in names:
        say(os.path.isfile(os.path.join(p, f)), f"{dev}/{f} exists")
        mode(os.path.join(p, f))
        done(os.path.join(p, f))
    for pat in (r"info\.json", r"sample\.json", r"start_info", r"host_start\.log", r"dev_start\.log"):
        say(len([f for f in os.listdir(p) if re.match(pat, f) and not f.endswith(".done")]) == 1,
            f"{dev}: exactly one {pat}*")
    check_info(os.path.join(p, f"info.json.{n}"), n)
    check_sample(os.path.join(p, "sample.json"), str(n))
    ds = check_times(os.path.join(p, f"start_info.{n}"), os.path.join(p, f"end_info.{n}"))
    # The runtime's own START, after msprof's; its clock pair read then.
    say(int(s["clockMonotonicRaw"]) <= int(ds["clockMonotonicRaw"]),
        f"{dev}: start_info.{n} at or after the host's start")
    raw = open(os.path.join(p, f"dev_start.log.{n}")).read().split()[1]
    say(int(ds["clockMonotonicRaw"]) <= int(raw), f"{dev}: the clock pair read at its start")
    check_log(os.path.join(p, f"host_start.log.{n}"), f"Device{n}", raw)
    check_log(os.path.join(p, f"dev_start.log.{n}"), None, raw)
facts = json.load(open(os.path.join(d, "msprof_ebpf_window.json")))
say(facts["state"] == "complete" and facts["rank_id"] == rank and
    facts["ns_pid"] == int(pid) and facts["tool"] == "msprof-ebpf" and
    type(facts["tool_version"]) is str,
    "msprof_ebpf_window.json: complete, rank, pid, tool")
say(all(type(facts[w][k]) is int and facts[w][k] > 0 for w in ("start", "end")
        for k in ("mono_ns", "raw_ns", "real_ns")) and
    facts["start"]["raw_ns"] == int(s["clockMonotonicRaw"]) and
    facts["start"]["real_ns"] // 1000 == int(s["collectionTimeBegin"]),
    "msprof_ebpf_window.json: start and end clock pairs, start_info's start")
say(facts["hostUid"] == json.load(open(os.path.join(host, "info.json")))["hostUid"] != "",
    "hostUid: the account's is info.json's")
sys.exit(1 if bad else 0)
EOF

layout() {	# layout DIR RANK: the checker's lines, each a check
	local d=$1 rank=$2 pid
	pid=$(sed -n 's/^npu_sample pid=//p' "$(dirname "$d").log")
	python3 "$WORK/layout.py" "$d" "$rank" "$pid" >"$WORK/layout.out" 2>&1
	local rc=$?
	sed "s/^\(ok\|FAIL\) /\1 rank $rank: /" "$WORK/layout.out"
	[ $rc -eq 0 ] || CHECKS_FAILED=$((CHECKS_FAILED + 1))
}

window "$WORK/ranked" RANK_ID=5 RANK=9
check "one PROF_ directory with RANK_ID" [ ${#dirs[@]} -eq 1 ]
[ ${#dirs[@]} -eq 1 ] && layout "${dirs[0]}" 5
window "$WORK/rank" RANK_ID=abc RANK=2
check "RANK_ID not a number: RANK is taken" \
	[ "$(jq .rank_id "${dirs[0]}/host/info.json")" = 2 ]
window "$WORK/plain"
check "one PROF_ directory without a rank" [ ${#dirs[@]} -eq 1 ]
[ ${#dirs[@]} -eq 1 ] && layout "${dirs[0]}" -1
