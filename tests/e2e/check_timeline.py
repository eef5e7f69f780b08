#!/usr/bin/python3
"""Checks an exported PROF_ directory's timeline against msprof's conventions
(docs/output.md, spec §4).  Prints one "ok"/"FAIL"/"skip" line a
check, as the e2e scripts do; exits 1 if one failed.

usage: check_timeline.py [--every-task-launched] PROF_DIR

--every-task-launched: each device task must have a flow from the call that
launched it, inside that call's slice, but those already launched when the
window opened (on each stream, the first ones).
"""
import collections
import glob
import json
import os
import re
import bisect
import struct
import sys

from check_cann_raw import API, HCCL, HEAD, NODE, TRACK, dictionary, records

failed = 0
LABEL = "timeline"  # what each line says it checked; importers set theirs


def check(what, ok, detail=""):
    global failed
    if ok:
        print(f"ok {LABEL}: {what}")
    else:
        failed += 1
        print(f"FAIL {LABEL}: {what}" + (f" ({detail})" if detail else ""))


def skip(what, why):
    print(f"skip {LABEL}: {what} ({why})")


def first_json(d, *names):
    """The first of names in d that exists, loaded."""
    for n in names:
        p = os.path.join(d, n)
        if os.path.isfile(p):
            with open(p) as f:
                return json.load(f)
    return None


def ns(ts):
    """A ts string of µs with 3 decimals as integer ns, exactly."""
    whole, frac = ts.split(".")
    return int(whole) * 1000 + int(frac)


def dur_ns(dur):
    return round(dur * 1000)


KEYS = {
    "X": ["name", "pid", "tid", "ts", "dur", "ph", "args"],
    "M": ["name", "pid", "tid", "ph", "args"],
    "s": ["name", "pid", "tid", "ph", "cat", "id", "ts"],
    "f": ["name", "pid", "tid", "ph", "cat", "id", "ts", "bp"],
    "i": ["name", "pid", "tid", "ts", "ph", "s", "args"],  # our loss markers
    "C": ["name", "ts", "pid", "tid", "args", "ph"],
}
SORTS = {7: "CANN", 13: "OS Runtime API", 14: "Ascend Hardware",
         15: "AI Core Freq", 16: "Communication", 31: "Overlap Analysis"}
API_ARGS = ["Thread Id", "Mode", "level", "id", "item_id", "connection_id"]
TASK_ARGS = ["Model Id", "Task Type", "Physic Stream Id", "Task Id",
             "Batch Id", "Subtask Id", "connection_id"]
OVERLAP = ["Computing", "Communication", "Communication(Not Overlapped)",
           "Free"]


LEVELS = {20000: "acl", 15000: "model", 10000: "node", 5500: "communication",
          5000: "runtime"}


def runtime_calls(prof):
    """API records (not events) of the runtime's api_event files, by level
    (cann-raw-formats.md §2.1): what its own profiling saw."""
    n = collections.Counter()
    for f in glob.glob(os.path.join(prof, "host/data/*.api_event.data.slice_*")):
        data = open(f, "rb").read()
        for off in range(0, len(data) - len(data) % 40, 40):
            magic, level, _, _, _, begin, end, _ = struct.unpack_from(
                "=HHIIIQQQ", data, off)
            if magic == 0x5A5A and begin and end != (1 << 64) - 1 \
                    and level in LEVELS:
                n[LEVELS[level]] += 1
    return n


GE_HCCL = 9         # node_basic_info's GE task type of an HCCL op (§2.6)
NO_CTX = 4294967295  # msprof's "no context id"


def raw_collectives(prof):
    """The runtime's collectives, from its raw files alone (cann-raw-formats.md
    §4.1, §4.4): each node launch (node 10000, launch 5) of an HCCL op (a
    node_basic_info of GE task type HCCL inside it, on its thread) with
    hccl_info records inside.  Each: op name, group hash id, device (of its
    task_tracks), launch begin, and its tasks' names (one hccl_info each)."""
    data = os.path.join(prof, "host", "data")
    names = dictionary(data, "hash_dic")
    launches = collections.defaultdict(list)    # tid -> [begin, end, item]
    for r in records(data, r"^(aging|unaging)\.api_event\.data\.slice_\d+$", 40):
        magic, level, typ, tid, _, begin, end, item = API.unpack(r)
        if (magic, level, typ) == (0x5A5A, 10000, 5) and begin <= end:
            launches[tid].append((begin, end, item))
    for v in launches.values():
        v.sort()
    ops = {}

    def op_at(tid, ts):
        """The node launch of thread tid open at ts (launches do not nest)."""
        v = launches.get(tid, [])
        i = bisect.bisect_right(v, (ts, 1 << 64, 1 << 64)) - 1
        if i < 0 or v[i][1] < ts:
            return None
        return ops.setdefault((tid, v[i][0]), {
            "name": names.get(str(v[i][2]), str(v[i][2])), "begin": v[i][0],
            "hccl": False, "group": None, "device": None, "tasks": []})

    def each(pattern, size):
        for r in records(data, pattern, size):
            magic, level, typ, tid, _, ts = HEAD.unpack_from(r)
            op = op_at(tid, ts) if magic == 0x5A5A else None
            if op is not None:
                yield level, typ, r, op
    for level, typ, r, op in each(r"^(aging|unaging)\.compact\.node_basic_info\.slice_\d+$", 64):
        if (level, typ) == (10000, 0) and NODE.unpack_from(r, 24)[1] == GE_HCCL:
            op["hccl"] = True
    for level, typ, r, op in each(r"^(aging|unaging)\.compact\.task_track\.slice_\d+$", 64):
        if (level, typ) == (5000, 802) and op["device"] is None:
            op["device"] = TRACK.unpack_from(r, 24)[0] & 0xFFF
    for level, _, r, op in each(r"^(aging|unaging)\.additional\.hccl_info\.slice_\d+$", 256):
        if level == 5500:
            item, _, group = HCCL.unpack_from(r, 24)
            op["group"] = group if op["group"] is None else op["group"]
            op["tasks"].append(names.get(str(item), str(item)))
    return sorted((op for op in ops.values() if op["hccl"] and op["tasks"]),
                  key=lambda op: op["begin"])


def collective_names(raw):
    """msprof's names of the raw ops, by (device, name): <op>_<the last 3
    digits of the group's hash id>_<n>_1, n counting a group's ops on a
    device in launch order, as Huawei's analysis names them."""
    n, out = collections.Counter(), {}
    for op in raw:
        key = (op["device"], op["group"])
        name = f"{op['name']}_{str(op['group'])[-3:]}_{n[key]}_1"
        n[key] += 1
        out[(op["device"], name)] = op
    return out


def timeline_collectives(ev, tasks):
    """The Communication process's ops (args with rank_size), each with the
    tasks on its planes that lie in its span on its device and their slices
    on Ascend Hardware (same stream, task id, start and duration); and the
    plane tasks in no op or in two."""
    comm = [e for e in ev if e["ph"] == "X" and (e["pid"] >> 5) & 31 == 16]
    ops = [e for e in comm if "rank_size" in e["args"]]
    hw = {(e["pid"] & 31, e["tid"], e["args"]["Task Id"], e["ts"], e["dur"]): e
          for e in tasks}
    out, owners = [], collections.Counter()
    for op in ops:
        lo, hi = ns(op["ts"]), ns(op["ts"]) + dur_ns(op["dur"])
        mine = [e for e in comm if "rank_size" not in e["args"]
                and e["pid"] == op["pid"] and lo <= ns(e["ts"])
                and ns(e["ts"]) + dur_ns(e["dur"]) <= hi]
        owners.update(id(e) for e in mine)
        out.append((op, mine, [hw.get((e["pid"] & 31, e["args"]["stream id"],
                                       e["args"]["task id"], e["ts"], e["dur"]))
                               for e in mine]))
    stray = [e for e in comm if "rank_size" not in e["args"]
             and owners[id(e)] != 1]
    return out, stray


def check_collectives(prof, ev, apis, colls, stray):
    """The runtime's collectives as Huawei's analysis draws them (§4.3,
    §4.4, docs/output.md "Collectives"), against its raw files."""
    raw = raw_collectives(prof)
    if not raw and not colls:
        skip("collectives shown as Communication ops", "no collective")
        return
    want = collective_names(raw)
    got = collections.Counter((op["pid"] & 31, op["name"]) for op, _, _ in colls)
    check(f"collectives: an op per node launch of an HCCL op with hccl_info "
          f"({len(colls)} of {len(raw)}), named <op>_<its group id's last 3 "
          f"digits>_<n>_1 ({sorted(want)[:1]})",
          got == collections.Counter(list(want)), str(sorted(set(got) ^ set(want))[:2]))
    bad = [op for op, mine, hw in colls
           if (op["pid"] & 31, op["name"]) not in want or not mine
           or sorted(e["name"] for e in mine) !=
           sorted(want[(op["pid"] & 31, op["name"])]["tasks"])
           or None in hw or op["ts"] != min(e["ts"] for e in mine)
           or ns(op["ts"]) + dur_ns(op["dur"]) !=
           max(ns(e["ts"]) + dur_ns(e["dur"]) for e in mine)]
    check(f"each op: a plane task per hccl_info, named by its item, each on "
          f"Ascend Hardware; its span from the first's start to the last's "
          f"end ({sum(len(m) for _, m, _ in colls)} tasks)",
          not bad and not stray, str((bad + stray)[:1]))
    nodes = {e["args"]["connection_id"]: e for e in apis
             if e["name"] == "Node@launch"}
    flows = collections.defaultdict(list)
    for e in ev:
        if e["ph"] in ("s", "f"):
            flows[e["id"]].append(e)

    def flow_ok(fid, node, end):
        """One flow fid, from node's slice to end's start."""
        v = sorted(flows.get(fid, []), key=lambda e: e["ph"] != "s")
        return len(v) == 2 and [e["ph"] for e in v] == ["s", "f"] and \
            (v[0]["pid"], v[0]["tid"], v[0]["ts"]) == \
            (node["pid"], node["tid"], node["ts"]) and \
            (v[1]["pid"], v[1]["tid"], v[1]["ts"]) == \
            (end["pid"], end["tid"], end["ts"])
    calls = collections.defaultdict(list)
    for e in apis:
        if str(e["args"].get("id", "")).startswith("Hccl"):
            calls[(e["pid"], e["tid"])].append(e)

    def call_of(node):
        """The Hccl* calls that hold the node launch."""
        return [id(c) for c in calls[(node["pid"], node["tid"])]
                if ns(c["ts"]) <= ns(node["ts"]) and ns(node["ts"]) +
                dur_ns(node["dur"]) <= ns(c["ts"]) + dur_ns(c["dur"])]
    held = collections.Counter(c for op, _, _ in colls
                               if op["args"]["connection_id"] in nodes
                               for c in call_of(nodes[op["args"]["connection_id"]]))
    bad = []
    for op, _, hw in colls:
        conn = op["args"]["connection_id"]
        node = nodes.get(conn)
        want_op = want.get((op["pid"] & 31, op["name"]))
        if (node is None or want_op is None
                or node["args"]["item_id"] != want_op["name"]
                or len(call_of(node)) != 1 or held[call_of(node)[0]] != 1
                or not flow_ok(str((conn << 32) - 1), node, op)
                or not all(flow_ok(str((conn << 32) + NO_CTX), node, t)
                           for t in hw if t is not None)):
            bad.append(op)
    check("each op's Node@launch inside an Hccl* call of its own; from it the "
          "op's flow (id connection id << 32, less 1) and one to each of its "
          "tasks (id connection id << 32 plus 4294967295)", not bad,
          str(bad[:1]))


def check_aicore_freq(prof, ev, pid, tasks):
    """msprof's AI Core Freq of each device with an info.json.N: its
    aic_frequency from before the device's first task, every ms, to
    end_info.N's end."""
    for info_path in sorted(glob.glob(os.path.join(prof, "device_*", "info.json.*"))):
        if info_path.endswith(".done"):
            continue
        n = int(info_path.rsplit(".", 1)[1])
        with open(info_path) as f:
            mhz = float(json.load(f)["DeviceInfo"][0]["aic_frequency"])
        end = first_json(os.path.dirname(info_path), f"end_info.{n}")
        fpid = pid << 10 | 15 << 5 | n
        cnt = [e for e in ev if e["pid"] == fpid and e["ph"] == "C"]
        ts = [ns(e["ts"]) for e in cnt]
        steps = {b - a for a, b in zip(ts, ts[1:-1])}
        dt = [ns(e["ts"]) for e in tasks if e["pid"] & 31 == n]
        check(f"device {n}: AI Core Freq counters of {mhz} MHz on thread 0, "
              f"a ms apart ({len(cnt)})",
              len(cnt) >= 2 and all(e["name"] == "AI Core Freq" and e["tid"] == 0
                                    and e["args"] == {"MHz": mhz} for e in cnt)
              # the last gap: what is left past the last whole ms, and 1 us
              and steps <= {1000000} and 0 <= ts[-1] - ts[-2] < 1001000,
              str(cnt[:2]))
        check(f"device {n}: AI Core Freq from before its first task to "
              "end_info's end",
              ts and (not dt or ts[0] <= min(dt)) and end and
              ts[-1] == int(end["collectionTimeEnd"]) * 1000,
              f"{ts[:1]} {ts[-1:]} {min(dt, default=None)} {end}")


def main(prof, every_task_launched):
    out = os.path.join(prof, "mindstudio_profiler_output")
    files = sorted(f for f in os.listdir(out)
                   if re.fullmatch(r"msprof_\d{14}\.json", f))
    check("one msprof_<14 digits>.json", len(files) == 1, str(files))
    if not files:
        return
    with open(os.path.join(out, files[-1])) as f:
        text = f.read()
    try:
        ev = json.loads(text)
    except ValueError as e:
        check("valid JSON", False, str(e))
        return
    check("one JSON array", isinstance(ev, list) and len(ev) > 0)

    bad = [e for e in ev if "ts" in e and not (
        isinstance(e["ts"], str) and re.fullmatch(r"\d+\.\d{3}", e["ts"]))]
    check("every ts a string of µs with 3 decimals", not bad, str(bad[:1]))
    nx = sum(e.get("ph") == "X" for e in ev)
    ndur = len(re.findall(r'"dur":\d+\.\d{3}[,}]', text))
    check(f"every dur a number with 3 decimals ({ndur} of {nx})", ndur == nx)

    bad = []
    for e in ev:
        want = KEYS.get(e.get("ph"))
        keys = list(e.keys())
        if want and e["ph"] == "X" and "cat" in e:
            want = want[:6] + ["cat"] + want[6:]
        if keys != want:
            bad.append(keys)
    check("keys in msprof's order, per phase", not bad, str(bad[:2]))

    info = first_json(prof, "host/info.json", "info.json")
    facts = first_json(prof, "msprof_ebpf_window.json", "info.json")
    pid = int(info["pid"])
    bad = [e for e in ev if e["pid"] >> 10 != pid
           or (e["pid"] >> 5) & 31 not in SORTS
           or ((e["pid"] >> 5) & 31 in (7, 13)) != (e["pid"] & 31 == 31)]
    check(f"pids are info.json's ({pid}) << 10 | sort << 5 | device",
          not bad, str(bad[:1]))
    devs = {e["pid"] & 31 for e in ev if (e["pid"] >> 5) & 31 == 14}
    check(f"device pids name devices with data ({sorted(devs)})",
          all(os.path.isdir(os.path.join(prof, f"device_{d}")) for d in devs))

    meta = collections.defaultdict(list)
    for e in ev:
        if e["ph"] == "M":
            meta[(e["pid"], e["tid"])].append(e)
    bad = []
    for p in {e["pid"] for e in ev}:
        sort, dev = (p >> 5) & 31, p & 31
        m = {e["name"]: e["args"] for e in meta[(p, 0)]
             if e["name"].startswith("process_")}
        label = "CPU" if dev == 31 else f"NPU {dev}"
        if m != {"process_name": {"name": SORTS.get(sort)},
                 "process_labels": {"labels": label},
                 "process_sort_index": {"sort_index": sort}}:
            bad.append((p, m))
    check("each process has its 3 M events (name, labels, sort index)",
          not bad, str(bad[:1]))

    twice = [k for k, n in collections.Counter(
        (e["pid"], e["tid"], e["name"]) for e in ev if e["ph"] == "M").items()
        if n > 1]
    check("no metadata event twice", not twice, str(twice[:2]))
    # msprof names no thread of AI Core Freq (sort 15).
    used = {(e["pid"], e["tid"]) for e in ev
            if e["ph"] != "M" and (e["pid"] >> 5) & 31 != 15}
    bad = [k for k in used if {"thread_name", "thread_sort_index"} -
           {e["name"] for e in meta[k]}]
    check(f"every thread with events is named ({len(used)})", not bad,
          str(bad[:3]))

    def sort_of(e):
        return (e["pid"] >> 5) & 31

    apis = [e for e in ev if e["ph"] == "X" and sort_of(e) == 7]
    tasks = [e for e in ev if e["ph"] == "X" and sort_of(e) == 14]
    ioctls = [e for e in ev if e["ph"] == "X" and sort_of(e) == 13]
    # Ours carry the call's depth; the others are the runtime's records
    # of calls we did not see (node launches, runtime calls, ...).
    ours = [e for e in apis if "depth" in e["args"]]
    theirs = collections.Counter(e["args"]["level"] for e in apis
                                 if "depth" not in e["args"])
    want = facts["host"]["api_events"]
    check(f"an API slice per API call the facts count ({len(ours)} of {want})",
          len(ours) == want)
    raw = runtime_calls(prof)
    # Those no probe of ours can see are drawn each; an acl one at most
    # once (else our own slice stands for it).
    bad = {lv: (n, raw.get(lv, 0)) for lv, n in theirs.items()
           if n > raw.get(lv, 0) or (lv in ("node", "model") and n != raw[lv])}
    bad.update({lv: (0, n) for lv, n in raw.items()
                if lv in ("node", "model") and not theirs.get(lv)})
    check(f"the runtime's calls we did not record, drawn by level "
          f"({dict(theirs)} of {raw})", not bad, str(bad))
    want = facts["host"]["ioctl_events"]
    check(f"an ioctl slice per ioctl ({len(ioctls)} of {want})",
          len(ioctls) == want and all(e["name"] == "ioctl" for e in ioctls))
    bad = [e for e in apis if list(e["args"])[:6] != API_ARGS
           or e["args"]["Thread Id"] != e["tid"]
           or not re.fullmatch(r"(AscendCL|Runtime|Communication|CUDA|"
                               r"CUDADriver|Api|Node|Model)@\w+", e["name"])]
    check("API slices named <layer>@<api>, with msprof's args first",
          not bad, str(bad[:1]))
    bad = [e for e in tasks if list(e["args"])[:7] != TASK_ARGS
           or e["args"]["Physic Stream Id"] != e["tid"]]
    check(f"device task slices ({len(tasks)}) with msprof's args first",
          tasks and not bad, str(bad[:1]))
    by_conn = {e["args"]["connection_id"]: e for e in apis}
    copies = [e for e in tasks if e["args"]["Task Type"] == "MEMCPY_ASYNC"
              and {"count", "kind"} <= set(
                  by_conn.get(e["args"]["connection_id"], {"args": {}})["args"])]
    ops = ["host to host", "host to device", "device to host",
           "device to device"]
    bad = []
    for e in copies:
        a = by_conn[e["args"]["connection_id"]]["args"]
        op = ops[a["kind"]] if a["kind"] < len(ops) else "other"
        if (e["args"].get("size(B)") != a["count"]
                or e["args"].get("operation") != op
                or not isinstance(e["args"].get("bandwidth(GB/s)"), float)):
            bad.append(e)
    if copies:
        check(f"copies launched with a count and kind ({len(copies)}) say "
              "size, bandwidth, operation", not bad, str(bad[:1]))
    else:
        skip("copies say size, bandwidth, operation",
             "no copy launched by a call that kept count and kind")

    by_conn = {e["args"]["connection_id"]: e for e in apis}
    # A task no call of ours launched but the runtime tracked has msprof's
    # kernel flow (spec §4.3): id (dev<<80)+(stream<<64)+(task<<48)+
    # (batch<<32)+ctx, from the task_track's time on its thread.
    # A collective's op has its own flow, from its node launch, besides its
    # tasks' (docs/output.md, "Collectives").
    colls, stray = timeline_collectives(ev, tasks)
    op_flows = {str((op["args"]["connection_id"] << 32) - 1)
                for op, _, _ in colls}
    of_op = {id(t): op for op, _, hw in colls for t in hw if t is not None}
    every = [e for e in ev if e["ph"] in ("s", "f")]
    tracked = [e for e in every if int(e["id"]) >> 64]
    starts = [e for e in every if e["ph"] == "s" and not int(e["id"]) >> 64]
    ends = [e for e in every if e["ph"] == "f" and not int(e["id"]) >> 64]
    launched = [e for e in tasks if e["args"]["connection_id"]]
    nops = sum(e["id"] in op_flows for e in starts)
    check(f"a flow per device task with a known launch ({len(starts) - nops}"
          f" of {len(launched)}), and per collective op ({nops} of "
          f"{len(colls)})",
          len(starts) == len(ends) == len(launched) + len(colls) and
          nops == len(colls))
    unlaunched = {(e["pid"], e["tid"], e["ts"]): e for e in tasks
                  if not e["args"]["connection_id"]}
    spans = collections.defaultdict(list)
    for e in apis:
        spans[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + dur_ns(e["dur"])))

    def tracked_ok(e):
        i = int(e["id"])
        if e["ph"] == "s":
            return any(a <= ns(e["ts"]) <= b for a, b in spans[(e["pid"], e["tid"])])
        t = unlaunched.get((e["pid"], e["tid"], e["ts"]))
        return t is not None and (i >> 64 & 0xffff, i >> 48 & 0xffff, i >> 32 & 0xffff) == (
            t["args"]["Physic Stream Id"], t["args"]["Task Id"] & 0xffff, t["args"]["Batch Id"])
    bad = [e for e in tracked if not tracked_ok(e)]
    check(f"the runtime's own tasks' flows ({len(tracked)} ends): from inside an API "
          "slice on their thread to their task, by its ids",
          not bad and collections.Counter(e["ph"] for e in tracked)["s"] * 2 == len(tracked),
          str(bad[:1]))
    check("flows pair up by string id",
          collections.Counter(e["id"] for e in starts) ==
          collections.Counter(e["id"] for e in ends)
          and all(isinstance(e["id"], str) for e in every))

    def launch(e):
        """An op's flow id is its connection id << 32 less 1, the others'
        their launch's << 32 plus a context id."""
        return by_conn.get((int(e["id"]) + (e["id"] in op_flows)) >> 32)

    def bound(e):
        """Whether a viewer ties flow start e to its launching call's slice:
        on that slice's thread, inside its [ts, ts + dur]."""
        a = launch(e)
        return (a is not None and (e["pid"], e["tid"]) == (a["pid"], a["tid"])
                and ns(a["ts"]) <= ns(e["ts"]) <= ns(a["ts"]) + dur_ns(a["dur"]))

    nbound = sum(map(bound, starts))
    # Of those, the device tasks' (an op is no device task).
    ntasks_bound = sum(bound(e) for e in starts if e["id"] not in op_flows)
    bad = [e for e in starts if not bound(e)
           or e["name"] != "HostToDevice" + e["id"]
           or e["cat"] != "HostToDevice" or e["ts"] != launch(e)["ts"]]
    check(f"flows start at their launching API slice ({nbound} of "
          f"{len(starts)} bound)", not bad, str(bad[:1]))
    if every_task_launched:
        # A task may lack its launch only at a stream's edges: launched
        # before the window opened, or after the host gate closed and before
        # its agent stopped the device.  On each stream tasks run in launch
        # order, so none without a launch may fall between linked ones.
        inner, by_stream = [], collections.defaultdict(list)
        for e in sorted(tasks, key=lambda e: ns(e["ts"])):
            by_stream[(e["pid"], e["tid"])].append(e)
        edges = 0
        for run in by_stream.values():
            linked = [i for i, e in enumerate(run)
                      if e["args"]["connection_id"]]
            if not linked:
                edges += len(run)
                continue
            edges += linked[0] + len(run) - 1 - linked[-1]
            inner += [e for e in run[linked[0]:linked[-1] + 1]
                      if not e["args"]["connection_id"]]
        check(f"every device task launched in the window has its flow "
              f"inside its launch slice ({ntasks_bound} of {len(tasks)}, "
              f"{edges} launched outside the host window)",
              ntasks_bound and ntasks_bound == len(launched) and not inner,
              str(inner[:1]))
    # A collective's task's flow comes from its op's node launch (its id
    # that launch's << 32 plus the task's context id, none), the op's
    # ends at the op on the Communication process.
    at = {(e["pid"], e["tid"], e["ts"], str(e["args"]["connection_id"] << 32))
          for e in launched if id(e) not in of_op}
    at |= {(e["pid"], e["tid"], e["ts"],
            str((of_op[id(e)]["args"]["connection_id"] << 32) + NO_CTX))
           for e in launched if id(e) in of_op}
    at |= {(op["pid"], op["tid"], op["ts"],
            str((op["args"]["connection_id"] << 32) - 1)) for op, _, _ in colls}
    bad = [e for e in ends if (e["pid"], e["tid"], e["ts"], e["id"]) not in at
           or e["bp"] != "e"]
    check("flows end at their device task (a collective's op at the op)",
          not bad, str(bad[:1]))
    check_collectives(prof, ev, apis, colls, stray)

    for dev in sorted(devs):
        over = sorted((e for e in ev if e["ph"] == "X" and sort_of(e) == 31
                       and e["pid"] & 31 == dev), key=lambda e: ns(e["ts"]))
        dt = [e for e in tasks if e["pid"] & 31 == dev]
        bad = [e for e in over if e["name"] != OVERLAP[e["tid"]]
               or e["args"] != {}]
        check(f"device {dev}: overlap slices on their own threads, empty args",
              not bad, str(bad[:1]))
        # Communication overlaps what computes or is Not Overlapped by
        # definition; the other three tile the span.
        tiles = [e for e in over if e["name"] != "Communication"]
        bad = [(a, b) for a, b in zip(tiles, tiles[1:])
               if ns(a["ts"]) + dur_ns(a["dur"]) > ns(b["ts"])]
        comm = [e for e in over if e["name"] == "Communication"]
        bad += [(a, b) for a, b in zip(comm, comm[1:])
                if ns(a["ts"]) + dur_ns(a["dur"]) > ns(b["ts"])]
        check(f"device {dev}: overlap slices do not overlap", not bad,
              str(bad[:1]))
        dhccl = [e for e in dt if id(e) in of_op and dur_ns(e["dur"])]
        cdur = sum(dur_ns(e["dur"]) for e in comm)
        nodur = sum(dur_ns(e["dur"]) for e in over
                    if e["name"] == "Communication(Not Overlapped)")
        if dhccl:
            check(f"device {dev}: Communication slices cover the "
                  f"collectives' tasks, Not Overlapped no more ({nodur} <= "
                  f"{cdur} ns)",
                  comm and nodur <= cdur and all(
                      any(ns(c["ts"]) <= ns(e["ts"]) and
                          ns(e["ts"]) + dur_ns(e["dur"]) <=
                          ns(c["ts"]) + dur_ns(c["dur"]) for c in comm)
                      for e in dhccl))
        else:
            check(f"device {dev}: no communication slices without "
                  "communication tasks", not cdur and not nodur)
        span = (max(ns(e["ts"]) + dur_ns(e["dur"]) for e in dt) -
                min(ns(e["ts"]) for e in dt))
        total = sum(dur_ns(e["dur"]) for e in over
                    if e["name"] in ("Computing", "Free",
                                     "Communication(Not Overlapped)"))
        check(f"device {dev}: Computing + Free (+ not overlapped "
              f"communication) is the tasks' span ({total} = {span} ns)",
              total == span)

    check_aicore_freq(prof, ev, pid, tasks)

    start = first_json(prof, "host/start_info", "start_info")
    end = first_json(prof, "host/end_info", "end_info")
    if not start or not end:
        skip("ts back on the raw clock, inside the window",
             "no start_info/end_info")
    else:
        off = int(start["collectionTimeBegin"]) * 1000 - \
            int(start["clockMonotonicRaw"])
        lo, hi = int(start["clockMonotonicRaw"]), int(end["clockMonotonicRaw"])
        bad = [e for e in ev if "ts" in e and e["ph"] in "Xsf"
               and not lo <= ns(e["ts"]) - off <= hi]
        check(f"every ts converts back into the window's raw clock "
              f"[{lo}, {hi}]", not bad, str(bad[:1]))


if __name__ == "__main__":
    args = sys.argv[1:]
    every = args[:1] == ["--every-task-launched"]
    if len(args) != 1 + every:
        sys.exit(__doc__.strip())
    main(args[-1], every)
    sys.exit(1 if failed else 0)
