#!/usr/bin/python3
"""test_osrt.sh's reading of an exported --host-sys=osrt window.

Usage: check_osrt.py PROF_DIR.  Prints one JSON object: per source, the
calls of each name (summed over threads) in
  raw    host_syscall.data's and host_pthreadcall.data's lines (sentinels
         left out),
  msprof os_runtime_statistic's rows,
  ours   osrt_statistic's rows,
  track  the timeline's OS Runtime API slices,
  db     OSRT_API's rows (when a db was exported);
and what the checks need besides: the threads by name (from the lines),
each pthread_mutex_lock slice's thread and duration (us), whether each
file's first line is the sentinel at start_info's clockMonotonicRaw, and
the OS Runtime API process's sort index and pid.
"""
import collections
import csv
import glob
import json
import os
import re
import sqlite3
import sys


def newest(d, pattern):
    files = sorted(glob.glob(os.path.join(d, "mindstudio_profiler_output", pattern)))
    return files[-1] if files else None


def raw_counts(d, out):
    start = json.load(open(os.path.join(d, "host", "start_info")))
    raw_ns = int(start["clockMonotonicRaw"])
    counts = collections.Counter()
    threads = {}
    sentinels = []
    for kind in ("host_syscall", "host_pthreadcall"):
        for path in sorted(glob.glob(os.path.join(d, "host", "data", kind + ".data.slice_*")),
                           key=lambda p: int(p.rsplit("_", 1)[1])):
            lines = open(path).read().splitlines()
            first = path.endswith("slice_0")
            if first and kind == "host_syscall":
                want = "%d.%06d (0.000 ms): " % (raw_ns // 10**6, raw_ns % 10**6)
                sentinels.append(lines[0].startswith(want) and "getpid(" in lines[0])
            elif first:
                want = "] %d.%09d " % (raw_ns // 10**9, raw_ns % 10**9)
                sentinels.append(want in lines[0] and "pthread_once(" in lines[0])
            for line in lines[1:] if first else lines:
                if kind == "host_syscall":
                    m = re.match(r"\S+ \(\S+ ms\): (\S+)/(\d+) (\w+)\(", line)
                    if m:
                        threads.setdefault(m.group(1), set()).add(int(m.group(2)))
                        counts[m.group(3)] += 1
                else:
                    m = re.match(r"\[pid \d+\] \S+ \S+->(\w+)\(", line)
                    if m:
                        counts[m.group(1)] += 1
    out["raw"] = counts
    out["threads"] = {k: sorted(v) for k, v in threads.items()}
    out["sentinels"] = sentinels


def csv_counts(path, name_col, count_col):
    counts = collections.Counter()
    if path:
        for row in csv.DictReader(open(path, newline="")):
            counts[row[name_col]] += int(row[count_col])
    return counts


def track(d, out):
    tl = newest(d, "msprof_*.json")
    events = json.load(open(tl))
    procs = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "process_name"}
    pid = next((p for p, n in procs.items() if n == "OS Runtime API"), None)
    sort = next((e["args"]["sort_index"] for e in events if e.get("ph") == "M" and
                 e["pid"] == pid and e["name"] == "process_sort_index"), None)
    calls = [e for e in events if e.get("ph") == "X" and e["pid"] == pid]
    out["track"] = collections.Counter(e["name"] for e in calls)
    out["locks"] = [[e["tid"], e["dur"]] for e in calls if e["name"] == "pthread_mutex_lock"]
    out["osrt_pid"] = pid
    out["osrt_sort"] = sort
    out["track_threads"] = sorted({e["tid"] for e in calls})


def db(d, out):
    dbs = sorted(glob.glob(os.path.join(d, "msprof_*.db")))
    if not dbs:
        return
    con = sqlite3.connect(dbs[-1])
    out["db"] = dict(con.execute("select s.value, count(*) from OSRT_API o "
                                 "join STRING_IDS s on s.id = o.name group by 1"))


def main(d):
    out = {}
    raw_counts(d, out)
    out["msprof"] = csv_counts(newest(d, "os_runtime_statistic_*.csv"), "Name", "Count")
    out["ours"] = csv_counts(newest(d, "osrt_statistic_*.csv"), "Name", "Count")
    track(d, out)
    db(d, out)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
