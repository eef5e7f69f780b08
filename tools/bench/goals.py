#!/usr/bin/python3
"""make bench's last word: the goals (issues 11, 20 and 21) beside what this run measured.

Usage: goals.py RESULTS.json.  Reads the parts' figures from the results
file and prints one row per goal: the goal, the measured ratio or count,
and whether it was met; a part that did not run says so.  Exits 0 either
way: a goal not met is a finding, not a failure of the bench.
"""
import json
import sys


def row(goal, measured, met):
    state = "-" if met is None else ("met" if met else "NOT met")
    print(f"{goal:<46} {measured:<34} {state}")


def per_call(p):
    x = {r["setting"]: r for r in p["rows"]}
    ms = x["msprof"]["x_floor"]
    bt = x.get("bpftrace", {}).get("x_floor")
    row("collecting <= 1.08 x the floor per call", f"{ms:.2f} x", ms <= 1.08)
    if bt is None:
        row("below bpftrace in the same run", "bpftrace not installed", None)
    else:
        row("below bpftrace in the same run", f"{ms:.2f} x against {bt:.2f} x",
            ms < bt)


def idle(p):
    for r in p["rows"]:
        if r["state"] != "untraced":
            x = r["x_untraced"]
            row(f"{r['state']}: <= 1.02 x untraced", f"{x:.2f} x", x <= 1.02)


def neighbours(p):
    r = next(r for r in p["rows"] if r["setting"] == "window")
    for kind in ("syscall", "ioctl"):
        x = r[f"x_no_window_{kind}"]
        row(f"a neighbour's {kind}s: <= 1.05 x no window", f"{x:.2f} x",
            x <= 1.05)


def sched(p):
    r = next(r for r in p["rows"] if r["setting"] == "window")
    x = r["x_no_window"]
    row("a neighbour's switches, sched on: <= 1.10 x",
        f"{x:.2f} x (sched's own {r['x_window_no_sched']:.2f} x)", x <= 1.10)
def osrt(p):
    x = next(r["x_raw_hooks"] for r in p["rows"] if r["setting"] == "osrt")
    row("osrt: a target's syscall <= 1.3 x raw hooks", f"{x:.2f} x", x <= 1.3)
    s = p["npu_sample"]
    row("osrt: zero loss at npu_sample's syscall rate",
        f"{s['syscalls_per_s']} syscalls/s, {s['lost']} lost", not s["lost"])


def latency(p):
    for r in p["runs"]:
        n = r["targets"]
        a, w = r["start_to_armed_ms"], r["stop_to_written_ms"]
        goal_w = r["goal_written_p99_ms"]
        row(f"start->armed p99 <= {r['goal_armed_p99_ms']} ms, {n} target(s)",
            f"p99 {a['p99']:.1f} ms (p50 {a['p50']:.1f})",
            a["p99"] <= r["goal_armed_p99_ms"])
        row(f"stop->written p99 <= {goal_w} ms, {n} target(s)",
            f"p99 {w['p99']:.1f} ms (p50 {w['p50']:.1f})", w["p99"] <= goal_w)


def loss(p):
    s = p["npu_sample"]
    row("zero loss at two npu_sample processes' rate",
        f"{s['events_per_s']} events/s, {s['lost']} lost", not s["lost"])


def export(p):
    for r in p["rows"]:
        row(f"export {r['export']}: >= 1.5 M events/s, <= 64 MiB",
            f"{r['events_per_s'] / 1e6:.2f} M/s, "
            f"{r['peak_rss_kib'] / 1024:.1f} MiB", r["goal_met"])


def python(p):
    for r in p["rows"]:
        if r["python_depth"] in ("off", None):
            continue
        d, ex, x = r["python_depth"], r["extra_cpu_ns_over_off"], r["x_floor_cpu"]
        # Without stacks the figures are not a walk's: no goal is met.
        taken = r["stacks_taken"]
        # The walk's own time, by the kernel's statistics, decides: the two
        # settings' traps are the same, and their noise is larger than it.
        bpf = r.get("extra_bpf_ns_over_off")
        if not isinstance(bpf, (int, float)):
            bpf = None
        shown = (f"{bpf:+.0f} ns BPF ({ex:+.0f} CPU time)" if bpf is not None
                 else f"{ex:+.0f} ns (CPU time)")
        row(f"Python depth {d}: <= {p['goal_extra_ns']} ns a call over off",
            shown if taken else "no stacks were taken",
            taken and (bpf if bpf is not None else ex) <= p["goal_extra_ns"])
        row(f"Python depth {d}: <= {p['goal_x_floor']} x the floor",
            f"{x:.2f} x" if taken else "no stacks were taken",
            taken and x <= p["goal_x_floor"])
    s = p["loss"]
    row(f"zero loss, unpaced Python loop at depth {s['setting'][5:]}",
        f"{s['calls_per_s']} calls/s, lost {s['lost']} + "
        f"{s['stacks_lost']} stacks", s["goal_met"])


def host_sys(p):
    r = next(r for r in p["rows"] if r["setting"] == "target")
    row(f"host-sys sampler, {p['threads']} threads, 50 Hz: <= 2 % of a core",
        f"{r['cpu_pct']:.2f} % ({r['samples_per_s']:.1f} samples/s)",
        r["cpu_pct"] <= 2)


PARTS = (("per_call", per_call), ("idle", idle), ("neighbours", neighbours),
         ("sched", sched), ("osrt", osrt), ("latency", latency), ("loss", loss),
         ("export", export), ("python", python), ("host_sys", host_sys))


def main(path):
    with open(path) as f:
        results = json.load(f)
    print(f"{'goal':<46} {'measured':<34} met")
    for key, show in PARTS:
        if key in results:
            show(results[key])
        else:
            row(key, "not run", None)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: goals.py RESULTS.json")
    main(sys.argv[1])
