#!/usr/bin/python3
"""Reads a window's host system files back by the formats docs/output.md
gives ("Host system data") and checks each line of them; with the export,
its tracks, CSVs and db tables against the files.  Prints one "ok"/"FAIL"
line a check, as the e2e scripts do; exits 1 if one failed.

usage: check_host_sys.py PROF_DIR PID [SPIN_TICKS]

PID: the target (its own view); SPIN_TICKS: the CPU ticks its "spinner"
thread spun at least (none: no spinner in the window).
"""
import csv
import glob
import json
import os
import re
import sqlite3
import sys

import check_timeline
from check_timeline import check

check_timeline.LABEL = "host-sys"


def slices(d, name):
    files = glob.glob(os.path.join(d, "host", "data", name + ".slice_*"))
    return sorted(files, key=lambda f: int(f.rsplit("_", 1)[1]))


def lines(d, name):
    out = []
    for f in slices(d, name):
        with open(f, "rb") as fp:
            out += fp.read().decode("ascii").split("\n")[:-1]
    return out


def cpu_samples(d):
    """host_cpu: [(time, uptime, {tid: (comm, ticks)})], each line checked."""
    samples, bad = [], []
    ls = lines(d, "host_cpu.data")
    i = 0
    while i < len(ls):
        m = re.fullmatch(r"time (\d+)", ls[i])
        up = ls[i + 1] if i + 1 < len(ls) else ""
        if not m or not re.fullmatch(r"\d+\.\d\d \d+\.\d\d", up):
            bad.append(ls[i])
            i += 1
            continue
        threads, i = {}, i + 2
        while i < len(ls) and not ls[i].startswith("time "):
            f = ls[i].split(" ")
            # One space between fields, the comm in parentheses, no space in it.
            if len(f) < 52 or not re.fullmatch(r"\([!-~]*\)", f[1]):
                bad.append(ls[i])
            else:
                threads[int(f[0])] = (f[1][1:-1], int(f[13]) + int(f[14]))
            i += 1
        samples.append((int(m.group(1)), up, threads))
    return samples, bad


def usage_blocks(path):
    """A usage file's blocks [(time, index, payload)], and whether it is
    made of them alone, each payload DataLen long and an empty line after."""
    text = open(path, "rb").read().decode("ascii")
    head = re.compile(r"TimeStamp:(\d+)\nIndex:(\d+)\nDataLen:(\d+)\n")
    out, at = [], 0
    while at < len(text):
        m = head.match(text, at)
        if not m:
            return out, False
        end = m.end() + int(m.group(3))
        if not text[m.end():end].endswith("\n") or text[end:end + 1] != "\n":
            return out, False
        out.append((int(m.group(1)), int(m.group(2)), text[m.end():end]))
        at = end + 1
    return out, True


def raw_checks(d, pid, spin):
    samples, bad = cpu_samples(d)
    check(f"host_cpu: {len(samples)} samples, every line a time, an uptime or a stat line",
          len(samples) > 2 and not bad, f"bad: {bad[:2]}")
    times = [s[0] for s in samples]
    check("host_cpu: its times increase", times == sorted(set(times)))
    check("host_cpu: every sample has the target's main thread",
          all(pid in s[2] for s in samples))
    if spin:
        spun = sorted({t for s in samples for t, (c, _) in s[2].items() if c == "spinner"})
        got = 0
        if spun:
            tid = spun[0]
            ticks = [s[2][tid][1] for s in samples if tid in s[2]]
            got = ticks[-1] - ticks[0]
        check(f"host_cpu: the spinner's utime+stime grew by at least {spin} ticks (got {got})",
              got >= spin)
    mem = lines(d, "host_mem.data")
    check(f"host_mem: {len(mem)} lines of a time and 7 statm fields",
          mem and all(re.fullmatch(r"\d+( \d+){7}", l) for l in mem))
    disk = lines(d, "host_disk.data")
    iotop = [l for l in disk if not l.startswith("start_time ")]
    check("host_disk: a start_time first, then iotop lines of the target",
          disk and disk[0].startswith("start_time ") and iotop and
          all(re.fullmatch(r"\d\d:\d\d:\d\d +" + str(pid) + r" +\S+ +\d+ +[\d.]+ [BKMG]/s +"
                           r"[\d.]+ [BKMG]/s +(\?unavailable\?|[\d.]+ % +[\d.]+ %) +\S+", l)
              for l in iotop),
          disk[:2])
    net = lines(d, "host_network.data")
    check("host_network: time lines and /proc/net/dev's interface lines",
          net and net[0].startswith("time ") and
          all(l.startswith("time ") or ":" in l for l in net))
    for name in ("host_sys_cpu.data", "host_sys_mem.data", f"{pid}-CpuUsage.data",
                 f"{pid}-Memory.data"):
        files = slices(d, name)
        blocks, bad = [], 0
        for f in files:
            b, whole = usage_blocks(f)
            blocks += b
            bad += not whole
        check(f"{name}: {len(blocks)} blocks of TimeStamp, Index (from 0), DataLen, "
              "payload, empty line",
              files and blocks and not bad and
              [b[1] for b in blocks] == list(range(len(blocks))))


def csv_rows(d, name):
    f = glob.glob(os.path.join(d, "mindstudio_profiler_output", name + "_*.csv"))
    return list(csv.reader(open(f[0]))) if len(f) == 1 else None


HEADERS = {
    "host_cpu_usage": "Device_id,Total Cpu Numbers,Occupied Cpu Numbers,Recommend Cpu Numbers",
    "host_mem_usage": "Device_id,Total Memory(KB),Peak Used Memory(KB),Recommend Memory(KB)",
    "host_network_usage": "Device_id,Netcard Speed(KB/s),Peak Used Speed(KB/s),Recommend Speed(KB/s)",
    "host_disk_usage": "Device_id,Peak Disk Read(KB/s),Recommend Disk Read(KB/s),"
                       "Peak Disk Write(KB/s),Recommend Disk Write(KB/s)",
    "cpu_usage": "Device_id,Cpu Type,User(%),Sys(%),IoWait(%),Irq(%),Soft(%),Idle(%)",
    "process_cpu_usage": "Device_id,PID,Name,CPU(%)",
    "process_mem": "Device_id,PID,Name,Size(pages),Resident(pages),Shared(pages)",
}


def export_checks(d, pid, spin):
    tl = glob.glob(os.path.join(d, "mindstudio_profiler_output", "msprof_*.json"))
    ev = json.load(open(tl[0]))
    procs = {e["pid"]: e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e["name"] == "process_name"}
    sorts = {e["pid"]: e["args"]["sort_index"] for e in ev
             if e.get("ph") == "M" and e["name"] == "process_sort_index"}
    for name, sort in (("CPU Usage", 9), ("Memory Usage", 10), ("Disk Usage", 12)):
        p = [k for k, v in procs.items() if v == name]
        check(f"timeline: a {name} process of sort index {sort}, pid (pid << 10) | "
              f"({sort} << 5) | 31",
              p == [(pid << 10) | (sort << 5) | 31] and sorts.get(p[0]) == sort, p)
    cpu = [e for e in ev if e.get("ph") == "C" and procs.get(e["pid"]) == "CPU Usage"]
    check("timeline: CPU Usage counters on thread 0, CPU <n> and CPU Avg",
          cpu and all(e["tid"] == 0 and re.fullmatch(r"CPU (\d+|Avg)", e["name"]) for e in cpu))
    peak = max((e["args"]["Usage(%)"] for e in cpu if e["name"] != "CPU Avg"), default=0)
    if spin:
        check(f"timeline: CPU Usage non-zero while the spinner spun (peak {peak} %)", peak > 0)
    samples, _ = cpu_samples(d)
    mem = [e for e in ev if e.get("ph") == "C" and procs.get(e["pid"]) == "Memory Usage"]
    nmem = len(lines(d, "host_mem.data"))
    check(f"timeline: a Memory Usage counter per interval ({len(mem)} of {nmem} lines), "
          "each above 0", len(mem) == nmem - 1 and all(e["args"]["Usage(%)"] > 0 for e in mem))
    for name, head in HEADERS.items():
        rows = csv_rows(d, name)
        check(f"{name} CSV: msprof's header, rows of host",
              rows and ",".join(rows[0]) == head and len(rows) > 1 and
              all(r[0] == "host" and len(r) == len(rows[0]) for r in rows[1:]),
              rows[:2] if rows else "none")
    rows = csv_rows(d, "sys_mem")
    check("sys_mem CSV: its header with the unit, one row",
          rows and rows[0][1] == "Memory Total(kB)" and len(rows) == 2)
    rows = csv_rows(d, "host_cpu_usage")
    check(f"host_cpu_usage: the host's {os.cpu_count()} CPUs",
          rows and rows[1][1] == str(os.cpu_count()))
    rows = csv_rows(d, "process_cpu_usage")
    check("process_cpu_usage: the target among the processes",
          rows and any(r[1] == str(pid) for r in rows[1:]))
    db = glob.glob(os.path.join(d, "msprof_*.db"))
    if not db:
        return
    c = sqlite3.connect(db[0])
    n = {t: c.execute(f"select count(*) from {t}").fetchone()[0]
         for t in ("CPU_USAGE", "HOST_MEM_USAGE", "HOST_DISK_USAGE", "HOST_NETWORK_USAGE")}
    avg = sum(1 for e in cpu if e["name"] == "CPU Avg")
    check(f"db: CPU_USAGE holds the per-CPU counters ({n['CPU_USAGE']} = "
          f"{len(cpu) - avg}), HOST_MEM_USAGE the memory's ({n['HOST_MEM_USAGE']})",
          n["CPU_USAGE"] == len(cpu) - avg and n["HOST_MEM_USAGE"] == len(mem))
    disk = [e for e in ev if e.get("ph") == "C" and procs.get(e["pid"]) == "Disk Usage"]
    check(f"db: HOST_DISK_USAGE a row per Disk Usage counter ({n['HOST_DISK_USAGE']})",
          n["HOST_DISK_USAGE"] == len(disk) > 0)


def main():
    d, pid = sys.argv[1], int(sys.argv[2])
    spin = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    raw_checks(d, pid, spin)
    if glob.glob(os.path.join(d, "mindstudio_profiler_output", "msprof_*.json")):
        export_checks(d, pid, spin)
    return 1 if check_timeline.failed else 0


if __name__ == "__main__":
    sys.exit(main())
