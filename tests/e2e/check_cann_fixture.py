#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""check_cann_fixture.py [--db] PROF_DIR EXPECTED_JSON STDERR_FILE: checks an
exported fixture of tests/fixtures/cann_fixture.py against what it was made
to show: every API slice, every device task per stream (name, task type,
start and duration within one device tick), the HostToDevice flows, the
Communication ops, the CSV rows and, with --db, the db's; and that
STDERR_FILE names each problem of a bad case once (file, offset, what).
Prints one "PASS <what>" or "FAIL <what> (<why>)" line a check, for
test_cann_fixtures.sh's `check` (as db_check.py does)."""
import collections
import csv
import glob
import json
import os
import re
import sqlite3
import sys

failed = 0
LABEL = "cann"


def check(what, ok, detail=""):
    global failed
    if not ok:
        failed += 1
    print(("PASS %s: %s" if ok else "FAIL %s: %s") % (LABEL, what) +
          ("" if ok or not detail else " (%s)" % detail))


def ns(ts):
    """A ts (a string of µs with 3 decimals, or a number) as integer ns."""
    if isinstance(ts, str):
        whole, _, frac = ts.strip().partition(".")
        return int(whole) * 1000 + int((frac + "000")[:3])
    return round(ts * 1000)


def first(items, n=3):
    return "; ".join(str(i) for i in list(items)[:n])


def newest(d, pattern):
    files = sorted(glob.glob(os.path.join(d, pattern)))
    return files[-1] if files else None


class Exp:
    def __init__(self, path):
        with open(path) as f:
            e = json.load(f)
        self.__dict__.update(e)
        f = e["task_fields"]
        self.tasks = [dict(zip(f, r)) for r in e["tasks"]]
        self.key = {(t["stream"], t["task_id"], t["batch"]): t
                    for t in self.tasks}


def near(a, b, tol):
    return a is not None and b is not None and abs(a - b) <= tol


# --- timeline --------------------------------------------------------------

class Timeline:
    def __init__(self, path):
        with open(path) as f:
            self.ev = json.load(f)
        self.proc, self.thread = {}, {}
        for e in self.ev:
            if e.get("ph") == "M" and e.get("name") == "process_name":
                self.proc[e["pid"]] = e["args"]["name"]
            if e.get("ph") == "M" and e.get("name") == "thread_name":
                self.thread[(e["pid"], e["tid"])] = e["args"]["name"]

    def slices(self, process):
        return [e for e in self.ev if e.get("ph") == "X" and
                self.proc.get(e["pid"]) == process]


def check_apis(tl, x):
    got = collections.Counter(
        (e["tid"], e["name"], ns(e["ts"]), ns(e["dur"]))
        for e in tl.slices("CANN") if "@" in e["name"])
    want = collections.Counter(tuple(a) for a in x.apis)
    check("CANN: exactly the %d API slices (tid, name, ts, dur)" %
          sum(want.values()), got == want,
          "missing %s; extra %s" % (first(want - got), first(got - want)))
    names = collections.Counter(a[1] for a in x.apis)
    gotn = collections.Counter(k[1] for k in got.elements())
    check("CANN: slice names per msprof (%s)" % ", ".join(
        "%s %d" % kv for kv in sorted(names.items())[:8]), gotn == names,
        "got %s" % dict(gotn))


def check_tasks(tl, x):
    """Ascend Hardware: per stream counts, each task's name, type, times."""
    hw = [e for e in tl.slices("Ascend Hardware") if e["pid"] & 31 == x.device]
    per = collections.Counter(e["tid"] for e in hw)
    want = collections.Counter(t["stream"] for t in x.tasks)
    check("Ascend Hardware: tasks per stream %s" % dict(sorted(want.items())),
          per == want, "got %s" % dict(sorted(per.items())))
    tol = x.tick_ns
    bad = collections.defaultdict(list)
    seen = {}
    for e in hw:
        a = e.get("args", {})
        k = (e["tid"], a.get("Task Id"), a.get("Batch Id", 0))
        t = x.key.get(k)
        if t is None:
            bad["unexpected task"].append(k)
            continue
        seen[k] = e
        if "name" not in t["skip"] and e["name"] != t["name"]:
            bad["name"].append((k, e["name"], t["name"]))
        if "task_type" not in t["skip"] and a.get("Task Type") != t["task_type"]:
            bad["Task Type"].append((k, a.get("Task Type"), t["task_type"]))
        if "start" not in t["skip"] and not near(ns(e["ts"]), t["start_ns"], tol):
            bad["start"].append((k, e["ts"], t["start_ns"]))
        if not near(ns(e["dur"]), t["dur_ns"], tol):
            bad["duration"].append((k, e["dur"], t["dur_ns"]))
    # Said of the tasks shown; with none shown (while some are expected) each
    # fails, rather than passing on nothing.
    for what in ("unexpected task", "name", "Task Type", "start", "duration"):
        check("Ascend Hardware: every task's %s as expected" % what,
              not bad[what] and (seen or not x.tasks),
              "%d wrong: %s" % (len(bad[what]), first(bad[what])) if bad[what]
              else "no task shown")
    missing = [k for k in x.key if k not in seen]
    check("Ascend Hardware: every expected task (stream, task id, batch) shown",
          not missing, "%d missing: %s" % (len(missing), first(missing)))
    return seen


def flows(tl):
    out = collections.defaultdict(dict)
    for e in tl.ev:
        if e.get("ph") in ("s", "f") and e.get("cat") == "HostToDevice":
            out[str(e["id"])][e["ph"]] = e
    return out


def check_flows(tl, x, seen, comm_slices):
    fl = flows(tl)
    ends = {(f["f"]["pid"], f["f"]["tid"], ns(f["f"]["ts"])): f
            for f in fl.values() if "f" in f}
    cann = {p for p, n in tl.proc.items() if n == "CANN"}
    n = sum(1 for t in x.tasks + x.comm_ops
            if t["flow"] and "flow" not in t.get("skip", []))
    bad = []
    shown = {id(t) for t, _ in comm_slices} | {id(x.key[k]) for k in seen}
    bad += [("not shown", t.get("name")) for t in x.tasks + x.comm_ops
            if t["flow"] and "flow" not in t.get("skip", []) and
            id(t) not in shown]
    targets = [(x.key[k], seen[k]) for k in seen]
    targets += [(op, e) for op, e in comm_slices]
    for t, e in targets:
        if "flow" in t.get("skip", []):
            continue
        f = ends.get((e["pid"], e["tid"], ns(e["ts"])))
        if not t["flow"]:
            if f:
                bad.append(("a flow where msprof draws none", e["name"]))
            continue
        tid, anchors = t["flow"]
        s = f and f.get("s")
        if not s:
            bad.append(("no flow", e["name"], e["ts"]))
        elif s["pid"] not in cann or s["tid"] != tid or ns(s["ts"]) not in anchors:
            bad.append(("flow from", s["tid"], s["ts"], "not", tid, anchors))
    check("HostToDevice: %d flows, each from its launch (thread and time) to "
          "its task" % n, not bad, "%d wrong: %s" % (len(bad), first(bad)))
    pairs = sum(1 for f in fl.values() if "s" in f and "f" in f)
    unchecked = sum(1 for t in x.tasks if "flow" in t["skip"])
    check("HostToDevice: no other flow (%d pairs)" % n,
          n <= pairs <= n + unchecked,
          "%d pairs" % pairs)


def check_comm(tl, x):
    """Communication: an op slice per collective on its group's thread, a
    task slice per HCCL task on Plane 0."""
    sl = [e for e in tl.slices("Communication") if e["pid"] & 31 == x.device]
    if not x.comm_ops:
        check("Communication: none", not sl, "%d slices" % len(sl))
        return []
    out, bad = [], []
    for op in x.comm_ops:
        thread = "Group %s Communication" % op["group"]
        e = [e for e in sl if e["name"] == op["name"] and
             tl.thread.get((e["pid"], e["tid"])) == thread]
        if len(e) != 1:
            bad.append(("op", op["name"], len(e)))
            continue
        e = e[0]
        out.append((op, e))
        timed = "start" not in op["skip"]
        if timed and ns(e["ts"]) != op["start_ns"] or \
                not near(ns(e["dur"]), op["dur_ns"], x.tick_ns):
            bad.append(("op time", e["ts"], e["dur"], op["start_ns"], op["dur_ns"]))
        for name, _, _, start, dur, _ in op["tasks"]:
            t = [e for e in sl if e["name"] == name and
                 (not timed or ns(e["ts"]) == start) and
                 tl.thread.get((e["pid"], e["tid"]), "").startswith("Plane ")]
            if len(t) != 1 or not near(ns(t[0]["dur"]), dur, x.tick_ns):
                bad.append(("task", name, start, len(t)))
    n = len(x.comm_ops) + sum(len(op["tasks"]) for op in x.comm_ops)
    check("Communication: %d ops and tasks, named and timed as msprof's" % n,
          not bad and len(sl) == n, "%d slices; %s" % (len(sl), first(bad)))
    return out


# --- CSVs --------------------------------------------------------------------

def rows(d, name):
    p = newest(os.path.join(d, "mindstudio_profiler_output"), name + "_*.csv")
    if not p:
        return None
    with open(p, newline="") as f:
        return [{k: (v or "").strip() for k, v in r.items()}
                for r in csv.DictReader(f)]


def us(cell):
    return ns(cell)


SHAPES = ["%s %s" % (io, c) for io in ("Input", "Output")
          for c in ("Shapes", "Data Types", "Formats")]


def check_op_summary(d, x):
    r = rows(d, "op_summary")
    if r is None:
        check("op_summary written", False)
        return
    # No batch column: a wrapped task id is told apart by its start.
    kern = collections.defaultdict(list)
    for t in x.tasks:
        if t["op_type"]:
            kern[(t["stream"], t["task_id"])].append(t)
    bad, by = [], {}
    for row in r:
        if row["Task Type"] == "COMMUNICATION":
            continue
        k = (int(row["Stream ID"]), int(row["Task ID"]))
        start = us(row["Task Start Time(us)"])
        c = kern.get(k, [])
        t = min(c, key=lambda t: abs(t["start_ns"] - start)) if c else None
        if t is None or "op" in t["skip"]:
            if t is None:
                bad.append(("row of no kernel", k, row["Op Name"]))
            continue
        k = (k, t["batch"])
        by[k] = row
        want = {"Op Name": t["name"], "OP Type": t["op_type"],
                "OP State": t["op_state"], "Task Type": t["task_type"],
                "Block Num": str(t["block"])}
        for col in SHAPES:
            want[col] = (t["shapes"] or {}).get(col, "N/A")
        for col, v in want.items():
            if row.get(col, "").strip('"') != v:
                bad.append((k, col, row.get(col), v))
        if "start" not in t["skip"] and \
                not near(us(row["Task Start Time(us)"]), t["start_ns"], x.tick_ns):
            bad.append((k, "start", row["Task Start Time(us)"], t["start_ns"]))
        if not near(us(row["Task Duration(us)"]), t["dur_ns"], x.tick_ns):
            bad.append((k, "duration", row["Task Duration(us)"], t["dur_ns"]))
    want_n = sum(1 for ts in kern.values() for t in ts if "op" not in t["skip"])
    check("op_summary: a row per kernel (%d), its op name, type, state, task "
          "type, block, shapes, start, duration" % want_n,
          not bad and len(by) == want_n, "%d rows; %s" % (len(by), first(bad)))
    comm = [row for row in r if row["Task Type"] == "COMMUNICATION"]
    def timed(op, start):
        return None if "start" in op["skip"] else start

    ops = {op["name"]: op for op in x.comm_ops}
    want = sorted((op["name"], op["op_type"], timed(op, op["start_ns"]),
                   op["dur_ns"]) for op in x.comm_ops)
    got = sorted((c["Op Name"], c["OP Type"],
                  timed(ops.get(c["Op Name"], {"skip": []}),
                        us(c["Task Start Time(us)"])),
                  us(c["Task Duration(us)"])) for c in comm)
    check("op_summary: a COMMUNICATION row per collective (%d)" % len(want),
          got == want, "got %s want %s" % (got, want))


def check_task_time(d, x):
    r = rows(d, "task_time")
    if r is None:
        check("task_time written", False)
        return
    got = collections.defaultdict(list)
    for c in r:
        got[(int(c["stream_id"]), int(c["task_id"]))].append(c)
    bad = []
    for t in x.tasks:
        c = [c for c in got[(t["stream"], t["task_id"])] if "start" in t["skip"]
             or near(ns(c["task_start(us)"]), t["start_ns"], x.tick_ns)]
        if len(c) != 1:
            bad.append(("rows", t["stream"], t["task_id"], len(c)))
            continue
        c = c[0]
        if "task_type" not in t["skip"] and c["kernel_type"] != t["task_type"]:
            bad.append((t["task_id"], c["kernel_type"], t["task_type"]))
        if "name" not in t["skip"] and c["kernel_name"] != t["kernel"]:
            bad.append((t["task_id"], c["kernel_name"], t["kernel"]))
        if not near(us(c["task_time(us)"]), t["dur_ns"], x.tick_ns):
            bad.append((t["task_id"], c["task_time(us)"], t["dur_ns"]))
    check("task_time: a row per device task (%d): kernel name, type, times" %
          len(x.tasks), not bad and len(r) == len(x.tasks),
          "%d rows; %s" % (len(r), first(bad)))


LEVELS = {"AscendCL": "acl", "Node": "node", "Communication": "communication",
          "Runtime": "runtime"}


def check_api_statistic(d, x):
    r = rows(d, "api_statistic")
    if r is None:
        check("api_statistic written", False)
        return
    want = collections.defaultdict(lambda: [0, 0])
    for _, name, _, dur in x.apis:
        pre, api = name.split("@", 1)
        w = want[(LEVELS[pre], api)]
        w[0] += 1
        w[1] += dur
    got = {(c["Level"], c["API Name"]): [int(c["Count"]), us(c["Time(us)"])]
           for c in r}
    bad = [(k, got.get(k), v) for k, v in want.items() if got.get(k) != v]
    check("api_statistic: count and total time of each of %d APIs" % len(want),
          not bad and len(got) == len(want), "%d rows; %s" % (len(got), first(bad)))


def check_comm_statistic(d, x):
    r = rows(d, "communication_statistic")
    if not x.comm_ops:
        check("communication_statistic: none without collectives", not r)
        return
    want = collections.defaultdict(lambda: [0, 0])
    for op in x.comm_ops:
        want[op["op_type"]][0] += 1
        want[op["op_type"]][1] += op["dur_ns"]
    got = {c["OP Type"]: [int(c["Count"]), us(c["Total Time(us)"])]
           for c in r or []}
    check("communication_statistic: count and total of each op type",
          got == dict(want), "got %s want %s" % (got, dict(want)))


def check_op_statistic(d, x):
    r = rows(d, "op_statistic")
    if r is None:
        check("op_statistic written", False)
        return
    want = collections.Counter()
    for t in x.tasks:
        if t["op_type"] and "op" not in t["skip"]:
            want[(t["op_type"], t["task_type"])] += 1
    got = collections.Counter({(c["OP Type"], c["Core Type"]): int(c["Count"])
                               for c in r})
    check("op_statistic: count per (op type, core type)",
          all(got[k] == v for k, v in want.items()), "got %s want %s" %
          (dict(got), dict(want)))


# --- db ------------------------------------------------------------------------

def check_db(d, x):
    p = newest(d, "msprof_*.db")
    if not p:
        check("db written", False)
        return
    db = sqlite3.connect("file:%s?mode=ro" % p, uri=True)
    s = dict(db.execute("SELECT id, value FROM STRING_IDS"))
    tasks = db.execute("SELECT streamId, taskId, startNs, endNs, taskType "
                       "FROM TASK").fetchall()
    per = collections.Counter(r[0] for r in tasks)
    want = collections.Counter(t["stream"] for t in x.tasks)
    check("db TASK: tasks per stream %s" % dict(want), per == want,
          "got %s" % dict(per))
    byk = collections.defaultdict(list)
    for t in x.tasks:
        byk[(t["stream"], t["task_id"])].append(t)
    bad = []
    for stream, task, start, end, _ in tasks:
        c = [t for t in byk.get((stream, task), []) if
             near(end - start, t["dur_ns"], x.tick_ns) and
             ("start" in t["skip"] or near(start, t["start_ns"], x.tick_ns))]
        if not c:
            bad.append((stream, task, start, end))
    check("db TASK: every task's start and duration", not bad,
          "%d wrong: %s" % (len(bad), first(bad)))
    names = collections.Counter(s.get(r[0]) for r in db.execute(
        "SELECT name FROM COMPUTE_TASK_INFO"))
    want = collections.Counter(t["name"] for t in x.tasks if t["op_type"] and
                               "op" not in t["skip"])
    check("db COMPUTE_TASK_INFO: the kernels' op names",
          all(names[k] == v for k, v in want.items()),
          "got %s" % first(names.items(), 6))
    api = collections.Counter((s.get(r[0]), r[1] - r[2]) for r in db.execute(
        "SELECT name, endNs, startNs FROM CANN_API"))
    want = collections.Counter((a[1].split("@", 1)[1], a[3]) for a in x.apis)
    check("db CANN_API: every API (name, duration)", api == want,
          "missing %s; extra %s" % (first(want - api), first(api - want)))
    ops = sorted(s.get(r[0]) for r in db.execute(
        "SELECT opName FROM COMMUNICATION_OP"))
    check("db COMMUNICATION_OP: the collectives",
          ops == sorted(op["name"] for op in x.comm_ops), "got %s" % ops)


# --- problems --------------------------------------------------------------------

def check_problems(x, err_path):
    with open(err_path, errors="replace") as f:
        lines = f.read().splitlines()
    if not x.problems:
        check("no problem said", not lines, first(lines))
        return
    for p in x.problems:
        pat = re.escape(p["file"]) + r"\b.*"
        off = p["offset"]
        if off is not None:
            # A device task's two records: either offset names it.
            pat += r"offset (?:%s)\b.*" % "|".join(
                str(o) for o in (off if isinstance(off, list) else [off]))
        pat += "(?:%s)" % p["what"]
        hits = [ln for ln in lines if re.search(pat, ln, re.I)]
        check("the problem said in one line: %s%s: %s" % (
            p["file"], "" if off is None else " offset %s" % off, p["what"]),
            len(hits) == 1,
            "%d lines match /%s/; stderr: %s" % (len(hits), pat, first(lines, 4)))


def check_aicore_freq(tl, x):
    """AI Core Freq: aic_frequency from the device's start, every ms while
    a µs is left, and at end_info's end, as msprof's analysis draws it."""
    f = x.aicore_freq
    c = [e for e in tl.ev if e.get("ph") == "C" and e["pid"] & 31 == x.device
         and tl.proc.get(e["pid"]) == "AI Core Freq"]
    step, span = 1_000_000, f["end_ns"] - f["start_ns"]
    fills = min((span - 1000) // step if span > step else 0, f["max_fill"])
    want = [f["start_ns"] + k * step for k in range(fills + 1)] + [f["end_ns"]]
    got = [ns(e["ts"]) for e in c]
    check("AI Core Freq: %d counters from the device's start to its end, a ms "
          "apart" % len(want), got == want,
          "got %d, first %s, last %s" % (len(got), got[:1], got[-1:]))
    check("AI Core Freq: each %s MHz, on thread 0" % f["mhz"],
          c and all(e["args"] == {"MHz": f["mhz"]} and e["tid"] == 0 and
                    e["name"] == "AI Core Freq" for e in c))


def main():
    global LABEL
    args = sys.argv[1:]
    db = args[:1] == ["--db"]
    if db:
        args = args[1:]
    d, exp, err = args
    x = Exp(exp)
    LABEL = "cann %s" % x.case
    check_problems(x, err)
    tl = newest(os.path.join(d, "mindstudio_profiler_output"), "msprof_*.json")
    if not tl:
        check("timeline written", False)
        return 1
    tl = Timeline(tl)
    check_apis(tl, x)
    seen = check_tasks(tl, x)
    comm = check_comm(tl, x)
    check_flows(tl, x, seen, comm)
    check_aicore_freq(tl, x)
    check_op_summary(d, x)
    check_op_statistic(d, x)
    check_task_time(d, x)
    check_api_statistic(d, x)
    check_comm_statistic(d, x)
    if db:
        check_db(d, x)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
