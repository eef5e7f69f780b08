#!/usr/bin/python3
"""Checks the Python call stacks of an exported PROF_ directory against what
tests/programs/pystack_cases.py saw at each of its calls (its expectations
JSON).  Prints one "ok"/"FAIL" line a check, each with its counts, as the
e2e scripts do; exits 1 if one failed.  Runs on Python 3.9 and newer (the
arm64 guest runs it with the interpreter it tests).

usage: check_pystack.py [--label L] [--depth N] [--no-stacks] PROF_DIR EXPECT

Each site's calls are found by its API and kept argument's value (the
timeline's args), in time order, the k-th against the k-th stack the
program noted.  A stack deeper than --depth (default 32) is expected cut:
its first N frames, then the element "...".  The call with no Python
frames must have no "Call stack".  --no-stacks: no call has one.
"""
import argparse
import glob
import json
import os
import sys

SEP = ";\r\n"
CUT = "..."
failed = 0
LABEL = "pystack"


def check(what, ok, detail=""):
    global failed
    if ok:
        print("ok %s: %s" % (LABEL, what))
    else:
        failed += 1
        print("FAIL %s: %s%s" % (LABEL, what, " (%s)" % detail if detail else ""))


def timeline(prof):
    paths = glob.glob(os.path.join(prof, "mindstudio_profiler_output", "msprof_*.json"))
    if not paths:
        return None
    with open(max(paths, key=os.path.getmtime)) as f:
        return json.load(f)


def ts_ns(ts):
    """The timeline's ts (µs, a string with 3 decimals, or a number) in ns."""
    whole, _, frac = str(ts).partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


def same_value(got, want):
    if isinstance(want, str):	# a pointer: hex, case aside
        return isinstance(got, str) and got.lower() == want.lower()
    return got == want


def calls_of(events, site):
    """The site's API slices, in time order."""
    out = [e for e in events
           if e.get("ph") == "X" and isinstance(e.get("args"), dict)
           and e["args"].get("id") == site["api"]
           and same_value(e["args"].get(site["arg"]), site["value"])]
    return sorted(out, key=lambda e: ts_ns(e["ts"]))


def render(stack, depth):
    """What "Call stack" must say for stack at the depth limit."""
    frames = ["%s(%d): %s" % (f, line, func) for f, line, func in stack]
    if len(frames) > depth:
        frames = frames[:depth] + [CUT]
    return frames


def first(frames):
    return frames[0] if frames else "(none)"


def inner_diff(got, want, good):
    """The first call whose innermost frame is wrong, said briefly."""
    for k in range(min(len(got), len(want))):
        if k not in good:
            return "call %d: got %s" % (k + 1, got[k][0] if got[k] else "no Call stack")
    return ""


def whole_diff(got, want, good):
    """The first call whose stack is wrong: where it differs first."""
    for k in range(min(len(got), len(want))):
        if k in good:
            continue
        if not got[k]:
            return "call %d: no Call stack" % (k + 1)
        g, w = got[k], want[k]
        i = next((i for i in range(min(len(g), len(w))) if g[i] != w[i]), min(len(g), len(w)))
        return "call %d: %d frames, want %d; frame %d is %s, want %s" % (
            k + 1, len(g), len(w), i + 1, g[i] if i < len(g) else "(none)",
            w[i] if i < len(w) else "(none)")
    return ""


def check_python_site(site, calls, depth):
    name, stacks = site["name"], site["stacks"]
    want = [render(s, depth) for s in stacks]
    got = [c["args"]["Call stack"].split(SEP) if "Call stack" in c["args"] else None
           for c in calls]
    n = min(len(want), len(got))
    inner = [k for k in range(n) if got[k] and got[k][0] == want[k][0]]
    whole = [k for k in range(n) if got[k] == want[k]]
    check("%s: innermost frame %s on %d/%d calls" % (name, first(want[0]) if want else "?",
                                                 len(inner), len(want)),
          len(inner) == len(want) and n == len(want), inner_diff(got, want, inner))
    depths = sorted({len(s) for s in stacks})
    check("%s: whole stack (%s frames%s) on %d/%d calls" % (
        name, "/".join(map(str, depths)),
        ", cut at %d" % depth if depths and depths[-1] > depth else "",
        len(whole), len(want)), len(whole) == len(want) and n == len(want),
        whole_diff(got, want, whole))
    if any(len(s) > depth for s in stacks):
        marked = [g for g in got if g and len(g) == depth + 1 and g[-1] == CUT]
        check("%s: cut at %d frames and marked '%s' on %d/%d calls" % (
            name, depth, CUT, len(marked), len(want)), len(marked) == len(want))
    return len(whole)


def check_threads(site, calls, main_tid):
    tids = {c["args"].get("Thread Id") for c in calls}
    check("%s: calls on the thread that made them (%s, not the main thread's %s)" % (
        site["name"], ",".join(map(str, sorted(tids, key=str))), main_tid),
        tids == set(site["tids"]) and main_tid not in tids)


def main():
    global LABEL
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default=LABEL)
    ap.add_argument("--depth", type=int, default=32)
    ap.add_argument("--no-stacks", action="store_true")
    ap.add_argument("prof")
    ap.add_argument("expect")
    a = ap.parse_args()
    LABEL = a.label
    with open(a.expect) as f:
        exp = json.load(f)
    events = timeline(a.prof)
    check("an exported timeline in %s" % a.prof, events is not None)
    if events is None:
        return 1
    total = matched = 0
    for site in exp["sites"]:
        calls = calls_of(events, site)
        want = site["count"] if site["stacks"] is None else len(site["stacks"])
        check("%s: %d/%d %s calls (%s=%s) in the window" % (
            site["name"], len(calls), want, site["api"], site["arg"], site["value"]),
            len(calls) == want)
        total += want
        with_stack = [c for c in calls if "Call stack" in c["args"]]
        if site["stacks"] is None or a.no_stacks:
            check("%s: no Call stack on %d/%d calls" % (
                site["name"], len(calls) - len(with_stack), len(calls)),
                not with_stack and len(calls) == want)
            matched += len(calls) - len(with_stack) if len(calls) == want else 0
            continue
        matched += check_python_site(site, calls, a.depth)
        if site["name"] == "thread":
            check_threads(site, calls, exp["main_tid"])
    if a.no_stacks:
        n = sum(1 for e in events if isinstance(e.get("args"), dict)
                and "Call stack" in e["args"])
        check("no event of the window has a Call stack (%d have)" % n, n == 0)
    check("Python %s: %d/%d calls as expected" % (exp["python"], matched, total),
          matched == total and failed == 0)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
