#!/usr/bin/python3
"""Checks the exported PROF_ directories of one window over a job's ranks
(tools/npusim/sample/run_ranks.sh: npu_sample, an all-reduce a step, one
rank slower by --slow-ms).  Prints one "ok"/"FAIL" line a check, as the e2e
scripts do; exits 1 if one failed.

usage: check_ranks.py RANKS STEPS SLOW_RANK SLOW_MS PROF_DIR...

- RANKS PROF_ directories whose info.json rank ids are 0 .. RANKS-1;
- on every rank STEPS HcclAllReduce calls and STEPS HCCL device tasks;
- each HCCL task linked by a HostToDevice flow from its HcclAllReduce slice
  (the flow starts at that slice, on its thread, and ends at the task's op
  on the Communication process, at the task's start);
- the slow rank's compute: a step's compute tasks (the device tasks
  between two HCCL tasks) SLOW_MATMULS more than every other rank's at
  least, and their median span, from the first's start to the last's end,
  longer than every other rank's by a quarter of SLOW_MS at least (its
  host computes for SLOW_MS; the span, not the tasks' summed time, which
  a loaded machine cuts short by leaving the device idle);
- the others' wait: each other rank's median HCCL task longer than the
  slow rank's by a quarter of SLOW_MS at least, the slow rank's the
  shortest.  Medians and a margin far below the delay: the timings on a
  loaded machine are noisy, their order is not.
"""
import json
import os
import statistics
import sys

import check_timeline
from check_timeline import check, dur_ns, ns

SLOW_MATMULS = 8    # npu_sample's least extra work a step


def load(prof):
    """The rank id and exported timeline of one PROF_ directory."""
    with open(os.path.join(prof, "host", "info.json")) as f:
        rank = int(json.load(f)["rank_id"])
    out = os.path.join(prof, "mindstudio_profiler_output")
    name = sorted(f for f in os.listdir(out)
                  if f.startswith("msprof_") and f.endswith(".json"))[-1]
    with open(os.path.join(out, name)) as f:
        return rank, json.load(f)


COMMUNICATION = 16  # the timeline's sort index of the Communication process


def ends_at_op(f, task):
    """Whether flow end f is at the task's op: msprof ends a collective's
    flow on the Communication process of the task's device, at its start."""
    return ((f["pid"] >> 5) & 31 == COMMUNICATION
            and f["pid"] & 31 == task["pid"] & 31 and f["ts"] == task["ts"])


class Rank:
    def __init__(self, rank, ev):
        self.rank = rank
        x = [e for e in ev if e["ph"] == "X"]
        self.calls = [e for e in x if e["args"].get("id") == "HcclAllReduce"]
        tasks = sorted((e for e in x if "Task Type" in e["args"]),
                       key=lambda e: ns(e["ts"]))
        self.hccl = [e for e in tasks if e["args"]["Task Type"] == "HCCL"]
        self.compute = [e for e in tasks
                        if e["args"]["Task Type"] not in ("HCCL",
                                                          "MEMCPY_ASYNC")]
        self.starts = {e["id"]: e for e in ev if e["ph"] == "s"}
        self.ends = {e["id"]: e for e in ev if e["ph"] == "f"}

    def unlinked(self):
        """The HCCL tasks without a flow from their HcclAllReduce slice."""
        by_conn = {e["args"]["connection_id"]: e for e in self.calls}
        bad = []
        for t in self.hccl:
            conn = t["args"]["connection_id"]
            call = by_conn.get(conn)
            s = self.starts.get(str(conn << 32))
            f = self.ends.get(str(conn << 32))
            if (not conn or call is None or s is None or f is None
                    or s["cat"] != "HostToDevice"
                    or (s["pid"], s["tid"], s["ts"]) !=
                    (call["pid"], call["tid"], call["ts"])
                    or not ends_at_op(f, t)):
                bad.append(t)
        return bad

    def steps(self):
        """Each step's compute tasks: those that started before its HCCL
        task and after the one before it."""
        steps, i = [], 0
        for h in self.hccl:
            step = []
            while i < len(self.compute) and \
                    ns(self.compute[i]["ts"]) < ns(h["ts"]):
                step.append(self.compute[i])
                i += 1
            steps.append(step)
        return steps

    def fewest_tasks(self):
        return min(map(len, self.steps()), default=0)

    def most_tasks(self):
        return max(map(len, self.steps()), default=0)

    def span_ms(self):
        """The median step's compute span."""
        spans = [max(ns(e["ts"]) + dur_ns(e["dur"]) for e in step) -
                 ns(step[0]["ts"]) for step in self.steps() if step]
        return statistics.median(spans) / 1e6 if spans else 0

    def hccl_ms(self):
        return statistics.median(dur_ns(e["dur"]) for e in self.hccl) / 1e6 \
            if self.hccl else 0


def main(nranks, steps, slow, slow_ms, dirs):
    ranks = sorted((Rank(*load(d)) for d in dirs), key=lambda r: r.rank)
    ids = [r.rank for r in ranks]
    check(f"{nranks} PROF_ directories with rank ids 0-{nranks - 1} "
          f"(got {ids})", ids == list(range(nranks)))
    for r in ranks:
        check(f"rank {r.rank}: {steps} HcclAllReduce calls and HCCL tasks "
              f"(got {len(r.calls)}, {len(r.hccl)})",
              len(r.calls) == len(r.hccl) == steps)
        bad = r.unlinked()
        check(f"rank {r.rank}: each HCCL task has its flow from its "
              f"HcclAllReduce slice", r.hccl and not bad, str(bad[:1]))
    if slow not in ids:
        check(f"the slow rank {slow} among the ranks", False)
        return
    margin = slow_ms / 4
    s = ranks[ids.index(slow)]
    others = [r for r in ranks if r is not s]
    most = max(r.most_tasks() for r in others)
    check(f"the slow rank's steps each {SLOW_MATMULS} compute tasks more "
          f"than any other's (fewest {s.fewest_tasks()}, others' most "
          f"{most})", s.fewest_tasks() >= most + SLOW_MATMULS)
    comp = {r.rank: round(r.span_ms(), 3) for r in ranks}
    check(f"the slow rank's compute a step longer than every other's by "
          f"{margin} ms (median spans, ms: {comp})",
          all(comp[slow] >= comp[r.rank] + margin for r in others))
    wait = {r.rank: round(r.hccl_ms(), 3) for r in ranks}
    check(f"the others' HCCL tasks longer than the slow rank's by {margin} "
          f"ms: they wait for it (medians, ms: {wait})",
          all(wait[r.rank] >= wait[slow] + margin for r in others))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) < 5:
        sys.exit(__doc__.strip())
    check_timeline.LABEL = "ranks"
    main(int(a[0]), int(a[1]), int(a[2]), float(a[3]), a[4:])
    sys.exit(1 if check_timeline.failed else 0)
