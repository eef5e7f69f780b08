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
import struct
import sys

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
}
SORTS = {7: "CANN", 13: "OS Runtime API", 14: "Ascend Hardware",
         16: "Communication", 31: "Overlap Analysis"}
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
    used = {(e["pid"], e["tid"]) for e in ev if e["ph"] != "M"}
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
    starts = [e for e in ev if e["ph"] == "s"]
    ends = [e for e in ev if e["ph"] == "f"]
    launched = [e for e in tasks if e["args"]["connection_id"]]
    check(f"a flow per device task with a known launch ({len(starts)})",
          len(starts) == len(ends) == len(launched))
    check("flows pair up by string id",
          collections.Counter(e["id"] for e in starts) ==
          collections.Counter(e["id"] for e in ends)
          and all(isinstance(e["id"], str) for e in starts + ends))

    def launch(e):
        return by_conn.get(int(e["id"]) >> 32)

    def bound(e):
        """Whether a viewer ties flow start e to its launching call's slice:
        on that slice's thread, inside its [ts, ts + dur]."""
        a = launch(e)
        return (a is not None and (e["pid"], e["tid"]) == (a["pid"], a["tid"])
                and ns(a["ts"]) <= ns(e["ts"]) <= ns(a["ts"]) + dur_ns(a["dur"]))

    nbound = sum(map(bound, starts))
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
              f"inside its launch slice ({nbound} of {len(tasks)}, "
              f"{edges} launched outside the host window)",
              nbound and nbound == len(launched) and not inner,
              str(inner[:1]))
    # A collective's flow ends at its op on the Communication process, the
    # others' at their task on Ascend Hardware.
    comm_ops = [e for e in ev if e["ph"] == "X" and sort_of(e) == 16
                and "rank_size" in e["args"]]
    hccl = [e for e in tasks if e["args"]["Task Type"] == "HCCL"]
    at = {(e["pid"], e["tid"], e["ts"], str(e["args"]["connection_id"] << 32))
          for e in [e for e in launched if e["args"]["Task Type"] != "HCCL"] +
          [e for e in comm_ops if e["args"]["connection_id"]]}
    bad = [e for e in ends if (e["pid"], e["tid"], e["ts"], e["id"]) not in at
           or e["bp"] != "e"]
    check("flows end at their device task (a collective's at its op)",
          not bad, str(bad[:1]))
    if hccl:
        ops = {(e["pid"] & 31, e["ts"], e["dur"]): e for e in comm_ops}
        bad = [e for e in hccl if (e["pid"] & 31, e["ts"], e["dur"]) not in ops
               or ops[(e["pid"] & 31, e["ts"], e["dur"])]["args"]
               ["connection_id"] != e["args"]["connection_id"]
               or not re.fullmatch(r"hcom_[A-Za-z]+__.{1,3}_\d+_\d+",
                                   ops[(e["pid"] & 31, e["ts"], e["dur"])]
                                   ["name"])]
        check(f"each HCCL task ({len(hccl)}) is a Communication op named as "
              f"msprof's ({len(comm_ops)} ops)",
              len(comm_ops) == len(hccl) and not bad, str(bad[:1]))
    else:
        skip("HCCL tasks shown as Communication ops", "no collective")

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
        dhccl = [e for e in dt if e["args"]["Task Type"] == "HCCL"
                 and dur_ns(e["dur"])]
        cdur = sum(dur_ns(e["dur"]) for e in comm)
        nodur = sum(dur_ns(e["dur"]) for e in over
                    if e["name"] == "Communication(Not Overlapped)")
        if dhccl:
            check(f"device {dev}: Communication slices cover the HCCL "
                  f"tasks, Not Overlapped no more ({nodur} <= {cdur} ns)",
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
