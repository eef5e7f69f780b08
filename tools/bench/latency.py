#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""latency.py WINDOWS HOLD_S GAP_S TARGETS OUT -- MSPROF ARGS...: make bench's
start/stop latency, as a person at msprof's prompt sees it.

Runs msprof with its stdin and stdout on pipes, waits until it has attached
to TARGETS processes, then opens and closes WINDOWS windows.  For each it
takes the time on CLOCK_MONOTONIC as "start" is written to msprof's stdin
and as msprof's "collection started (window N)" line is read back
(start->armed: probes attached, gate open, START answered), and the same
from "stop" to "collection stopped (window N)" (stop->written: the agents
stopped, the ring buffer drained, every PROF_ directory written).  Each
window stays open HOLD_S seconds, and each start comes GAP_S seconds
after the last stop, as a person's would: some of what the kernel does
for a start is quicker just after a stop.  Then "quit".  Writes the samples in ms
and their p50/p99 as JSON to OUT.  Every wait is bounded: msprof that says
nothing for WAIT_S seconds, or ends, fails the run.
"""
import json
import math
import os
import re
import select
import subprocess
import sys
import time

WAIT_S = 120


class Msprof:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        self.buf = b""
        self.log = []

    def say(self, cmd):
        """Writes one command; returns the time it was written."""
        self.p.stdin.write(cmd.encode() + b"\n")
        self.p.stdin.flush()
        return time.monotonic()

    def wait_for(self, pattern):
        """Time the first line matching pattern was read, WAIT_S at most."""
        rx = re.compile(pattern)
        fd = self.p.stdout.fileno()
        deadline = time.monotonic() + WAIT_S
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                text = line.decode(errors="replace")
                self.log.append(text)
                if rx.search(text):
                    return time.monotonic()
            left = deadline - time.monotonic()
            if left <= 0:
                self.fail("no '%s' within %d s" % (pattern, WAIT_S))
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self.fail("msprof ended before '%s'" % pattern)
            self.buf += chunk

    def fail(self, why):
        self.p.kill()
        self.p.wait()
        sys.stderr.write("latency: %s; msprof said:\n%s\n" %
                         (why, "\n".join(self.log[-40:])))
        sys.exit(1)

    def quit(self):
        self.say("quit")
        self.wait_for(r"left the interactive mode")
        self.p.stdin.close()
        try:
            rc = self.p.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            self.fail("msprof still running %d s after quit" % WAIT_S)
        if rc:
            self.fail("msprof exited with status %d" % rc)


def percentile(v, q):
    """Nearest rank: the smallest sample with at least q of them at or below."""
    s = sorted(v)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def main():
    if len(sys.argv) < 8 or sys.argv[6] != "--":
        sys.exit("usage: latency.py WINDOWS HOLD_S GAP_S TARGETS OUT -- MSPROF ARGS...")
    windows, hold, gap = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    targets, out, argv = int(sys.argv[4]), sys.argv[5], sys.argv[7:]
    m = Msprof(argv)
    for _ in range(targets):
        m.wait_for(r"msprof: attached to pid")
    armed, written = [], []
    for n in range(1, windows + 1):
        time.sleep(gap)
        t0 = m.say("start")
        t1 = m.wait_for(r"collection started \(window %d\)" % n)
        time.sleep(hold)
        t2 = m.say("stop")
        t3 = m.wait_for(r"collection stopped \(window %d\)" % n)
        armed.append(round((t1 - t0) * 1e3, 3))
        written.append(round((t3 - t2) * 1e3, 3))
    m.quit()
    part = {"windows": windows, "targets": targets,
            "start_to_armed_ms": {"p50": percentile(armed, 0.5),
                                  "p99": percentile(armed, 0.99),
                                  "samples": armed},
            "stop_to_written_ms": {"p50": percentile(written, 0.5),
                                   "p99": percentile(written, 0.99),
                                   "samples": written}}
    with open(out, "w") as f:
        json.dump(part, f)


if __name__ == "__main__":
    main()
