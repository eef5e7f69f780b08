#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""py_driver.py [--frames FRAMES] LIB [CALLS]: call_driver's loop, made from Python.

At each SIGUSR1, from FRAMES (default 64) nested calls of a plain Python
function, calls LIB's bench_call() CALLS times (default 200000) through
ctypes, then prints the line call_driver prints, so that make bench's
helpers (tools/bench/lib.sh) drive either: wall-clock and CPU time per
call, measured around the loop, and its calls a second.  The frames are
deeper than any --python-depth the bench asks for (32 at most, with
3.12's 16 frames of slack for its shims), so every walk is cut at its
limit and walks exactly as many frames as it is allowed.  It waits for
the signal so that probes can be attached before it runs (LIB is loaded
before); SIGTERM or SIGINT ends it, and so do IDLE_S seconds without a
signal (an orphaned driver does not stay).
"""
import argparse
import ctypes
import os
import signal
import sys
import time

IDLE_S = 600


def loop(call, n):
    acc = 0
    for _ in range(n):
        acc = call(acc)
    return acc


def nested(k, call, n):
    """loop() k frames below this one: a plain recursion, one frame a level."""
    if k <= 1:
        return loop(call, n)
    return nested(k - 1, call, n)


def main():
    ap = argparse.ArgumentParser(description="call_driver's loop from Python")
    ap.add_argument("--frames", type=int, default=64)
    ap.add_argument("lib")
    ap.add_argument("calls", type=int, nargs="?", default=200000)
    a = ap.parse_args()
    if a.calls < 1 or a.frames < 1:
        ap.error("CALLS and FRAMES must be above 0")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), a.frames + 100))
    call = ctypes.CDLL(a.lib).bench_call
    call.argtypes = (ctypes.c_int,)
    call.restype = ctypes.c_int
    sigs = {signal.SIGUSR1, signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    print(f"py_driver {os.getpid()} waiting for SIGUSR1", flush=True)
    while True:
        info = signal.sigtimedwait(sigs, IDLE_S)
        if info is None or info.si_signo != signal.SIGUSR1:
            return
        t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
        acc = nested(a.frames, call, a.calls)
        c1, t1 = time.thread_time_ns(), time.perf_counter_ns()
        n = a.calls
        print(f"calls {n} ns_per_call {(t1 - t0) / n:.2f} "
              f"cpu_ns_per_call {(c1 - c0) / n:.2f} acc {acc} threads 1 "
              f"calls_per_s {n * 1e9 / (t1 - t0):.0f}", flush=True)


if __name__ == "__main__":
    main()
