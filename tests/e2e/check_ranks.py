#!/usr/bin/python3
"""Checks the exported PROF_ directories of one window over a job's ranks
(tools/npusim/sample/run_ranks.sh: npu_sample, an all-reduce a step, one
rank slower by --slow-ms).  Prints one "ok"/"FAIL" line a check, as the e2e
scripts do; exits 1 if one failed.

usage: check_ranks.py RANKS STEPS SLOW_RANK SLOW_MS PROF_DIR...

- RANKS PROF_ directories whose info.json rank ids are 0 .. RANKS-1;
- on every rank STEPS HcclAllReduce calls and STEPS collective ops on the
  Communication process (the runtime's: one a node launch of an HCCL op);
- each op linked by its HostToDevice flow from its Node@launch, inside its
  own HcclAllReduce slice, on its thread (one op a call), to the op;
- the slow rank's compute: a step's compute tasks (the device tasks
  between two collective ops) SLOW_MATMULS more than every other rank's at
  least, and their median span, from the first's start to the last's end,
  longer than every other rank's by a quarter of SLOW_MS at least (its
  host computes for SLOW_MS; the span, not the tasks' summed time, which
  a loaded machine cuts short by leaving the device idle);
- the others' wait: each other rank's median collective op longer than the
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


class Rank:
    def __init__(self, rank, ev):
        self.rank = rank
        x = [e for e in ev if e["ph"] == "X"]
        self.calls = [e for e in x if e["args"].get("id") == "HcclAllReduce"]
        self.nodes = {e["args"]["connection_id"]: e for e in x
                      if e["name"] == "Node@launch"}
        tasks = sorted((e for e in x if "Task Type" in e["args"]),
                       key=lambda e: ns(e["ts"]))
        colls, _ = check_timeline.timeline_collectives(ev, tasks)
        self.ops = sorted((op for op, _, _ in colls), key=lambda e: ns(e["ts"]))
        theirs = {id(t) for _, _, hw in colls for t in hw}
        self.compute = [e for e in tasks if id(e) not in theirs and
                        e["args"]["Task Type"] != "MEMCPY_ASYNC"]
        self.starts = {e["id"]: e for e in ev if e["ph"] == "s"}
        self.ends = {e["id"]: e for e in ev if e["ph"] == "f"}

    def unlinked(self):
        """The ops without their flow from a Node@launch inside an
        HcclAllReduce slice of its own (one op a call)."""
        calls = set()
        bad = []
        for op in self.ops:
            conn = op["args"]["connection_id"]
            node = self.nodes.get(conn)
            fid = str((conn << 32) - 1)
            s, f = self.starts.get(fid), self.ends.get(fid)
            inside = [c for c in self.calls if node is not None
                      and c["tid"] == node["tid"] and ns(c["ts"]) <= ns(node["ts"])
                      and ns(node["ts"]) <= ns(c["ts"]) + dur_ns(c["dur"])]
            if (node is None or s is None or f is None or len(inside) != 1
                    or id(inside[0]) in calls
                    or (s["pid"], s["tid"], s["ts"]) !=
                    (node["pid"], node["tid"], node["ts"])
                    or (f["pid"], f["tid"], f["ts"]) !=
                    (op["pid"], op["tid"], op["ts"])):
                bad.append(op)
            else:
                calls.add(id(inside[0]))
        return bad

    def steps(self):
        """Each step's compute tasks: those that started before its
        collective op and after the one before it."""
        steps, i = [], 0
        for h in self.ops:
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
        return statistics.median(dur_ns(e["dur"]) for e in self.ops) / 1e6 \
            if self.ops else 0


def main(nranks, steps, slow, slow_ms, dirs):
    ranks = sorted((Rank(*load(d)) for d in dirs), key=lambda r: r.rank)
    ids = [r.rank for r in ranks]
    check(f"{nranks} PROF_ directories with rank ids 0-{nranks - 1} "
          f"(got {ids})", ids == list(range(nranks)))
    for r in ranks:
        check(f"rank {r.rank}: {steps} HcclAllReduce calls and collective "
              f"ops (got {len(r.calls)}, {len(r.ops)})",
              len(r.calls) == len(r.ops) == steps)
        bad = r.unlinked()
        check(f"rank {r.rank}: each op has its flow from its Node@launch, "
              f"inside its own HcclAllReduce slice", r.ops and not bad,
              str(bad[:1]))
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
    check(f"the others' collective ops longer than the slow rank's by {margin} "
          f"ms: they wait for it (medians, ms: {wait})",
          all(wait[r.rank] >= wait[slow] + margin for r in others))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) < 5:
        sys.exit(__doc__.strip())
    check_timeline.LABEL = "ranks"
    main(int(a[0]), int(a[1]), int(a[2]), float(a[3]), a[4:])
    sys.exit(1 if check_timeline.failed else 0)
