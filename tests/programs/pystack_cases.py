# SPDX-License-Identifier: MIT
"""Calls npusim (through ctypes) from known Python functions and lines, for
the Python call stack tests (tests/e2e/test_pystack.sh, check_pystack.py).

Runs unchanged on CPython 3.9 to 3.13.  Each call site allocates device
memory with a size of its own (aclrtMalloc's kept "size" argument), so that
every call is told apart in the timeline; the call with no Python frames is
an aclrtFree, with a pointer of its own, made by a thread that libc starts
(it never runs Python).  At each call the site notes the stack Python has
at that moment, innermost first, each frame as (co_filename, line, func)
with func co_qualname on 3.11+ and co_name before, which is what the
profile is to show; the expectations are written as JSON once every call
is made.

    pystack_cases.py --lib build/lib/libnpusim.so --expect OUT.json [--calls N]
                     [--recursion N] [--wait both|start|none] [--wait-s S]

Prints "pystack_cases pid=<pid> ready" and waits (at most --wait-s seconds)
for SIGUSR1; makes --calls calls per site; writes OUT.json; prints
"pystack_cases done"; then waits for a second SIGUSR1 (so that a window can
be stopped before the teardown's calls); frees what it allocated and ends.
--wait start leaves out the second wait, --wait none both.  LIBNPUSIM names the library when --lib is not
given.  Exits non-zero when a call fails or a wait runs out.
"""
import argparse
import asyncio
import ctypes
import json
import os
import signal
import sys
import threading

QUALNAME = sys.version_info >= (3, 11)
# Sizes and pointers no other call in the program uses.
SIZE_BASE = 0x51000
C_THREAD_PTR = 0x5157AC000000


def frames_of(frame):
    """The stack at frame, innermost first: [file, line, func] each."""
    out = []
    while frame is not None:
        code = frame.f_code
        func = code.co_qualname if QUALNAME else code.co_name
        out.append([code.co_filename, frame.f_lineno, func])
        frame = frame.f_back
    return out


class Site:
    """One call site: the value that names its calls and what each saw."""

    def __init__(self, name, index, lib):
        self.name = name
        self.value = SIZE_BASE + index
        self.lib = lib
        self.ptrs = []
        self.stacks = []
        self.tids = set()

    def ptr(self):
        """A fresh pointer for aclrtMalloc to fill, kept for the teardown."""
        p = ctypes.c_void_p()
        self.ptrs.append(p)
        return ctypes.byref(p)

    def note(self, frame, ret):
        """Called on the line of the site's call, after it: frame is the
        site's own, so its f_lineno is the call's line."""
        if ret != 0:
            raise RuntimeError("%s: aclrtMalloc returned %d" % (self.name, ret))
        self.stacks.append(frames_of(frame))
        self.tids.add(threading.get_native_id())

    def expect(self):
        return {"name": self.name, "api": "aclrtMalloc", "arg": "size",
                "value": self.value, "tids": sorted(self.tids),
                "stacks": self.stacks}


# --- the call sites: each call is one line, its site's note on it --------

def plain(s, n):
    for _ in range(n):
        s.note(sys._getframe(), s.lib.aclrtMalloc(s.ptr(), s.value, 0))


def nested(s, n):
    def middle():
        def inner():
            s.note(sys._getframe(), s.lib.aclrtMalloc(s.ptr(), s.value, 0))
        for _ in range(n):
            inner()
    middle()


def generator(s, n):
    for i in range(n):
        s.note(sys._getframe(), s.lib.aclrtMalloc(s.ptr(), s.value, 0))
        yield i


def drive_generator(s, n):
    for _ in generator(s, n):
        pass


async def coroutine(s, n):
    for _ in range(n):
        # Each call resumed from the event loop, not from asyncio.run.
        await asyncio.sleep(0)
        s.note(sys._getframe(), s.lib.aclrtMalloc(s.ptr(), s.value, 0))


def drive_coroutine(s, n):
    asyncio.run(coroutine(s, n))


def drive_lambda(s, n):
    call = lambda: s.note(sys._getframe(), s.lib.aclrtMalloc(s.ptr(), s.value, 0))  # noqa: E731
    for _ in range(n):
        call()


class Model:
    class Layer:
        def forward(self, s):
            s.note(sys._getframe(), s.lib.aclrtMalloc(s.ptr(), s.value, 0))

    def __init__(self):
        self.layer = Model.Layer()

    def step(self, s, n):
        for _ in range(n):
            self.layer.forward(s)


def drive_method(s, n):
    Model().step(s, n)


def recurse(s, depth):
    if depth == 0:
        s.note(sys._getframe(), s.lib.aclrtMalloc(s.ptr(), s.value, 0))
        return
    recurse(s, depth - 1)


def drive_recursion(s, n, depth):
    for _ in range(n):
        recurse(s, depth)


def thread_body(s, n):
    ret = s.lib.aclrtSetDevice(0)	# the device is current per thread
    if ret != 0:
        raise RuntimeError("thread: aclrtSetDevice returned %d" % ret)
    for _ in range(n):
        s.note(sys._getframe(), s.lib.aclrtMalloc(s.ptr(), s.value, 0))


def drive_thread(s, n):
    failed = []

    def run():
        try:
            thread_body(s, n)
        except Exception as e:	# reported by the main thread
            failed.append(e)
    t = threading.Thread(target=run, name="pystack-thread")
    t.start()
    t.join(60)
    if t.is_alive() or failed:
        raise RuntimeError("thread: %s" % (failed or "did not end in 60 s"))


def c_thread(lib, n):
    """n aclrtFree calls, each by a thread libc starts with aclrtFree as its
    start routine: no Python frame, no thread state.  The pointer is no
    allocation of ours, so npusim refuses it; the call is what counts."""
    libc = ctypes.CDLL(None)
    start = ctypes.cast(lib.aclrtFree, ctypes.c_void_p)
    for _ in range(n):
        tid = ctypes.c_ulong()
        err = libc.pthread_create(ctypes.byref(tid), None, start,
                                  ctypes.c_void_p(C_THREAD_PTR))
        if err:
            raise RuntimeError("pthread_create: %s" % os.strerror(err))
        # ctypes lets the GIL go for the call
        err = libc.pthread_join(tid, None)
        if err:
            raise RuntimeError("pthread_join: %s" % os.strerror(err))
    return {"name": "c_thread", "api": "aclrtFree", "arg": "ptr",
            "value": "0x%x" % C_THREAD_PTR, "count": n, "stacks": None}


SITES = ["plain", "nested", "generator", "coroutine", "lambda", "method",
         "recursion", "thread"]


def run_all(lib, n, depth):
    sites = {name: Site(name, i, lib) for i, name in enumerate(SITES)}
    plain(sites["plain"], n)
    nested(sites["nested"], n)
    drive_generator(sites["generator"], n)
    drive_coroutine(sites["coroutine"], n)
    drive_lambda(sites["lambda"], n)
    drive_method(sites["method"], n)
    drive_recursion(sites["recursion"], n, depth)
    drive_thread(sites["thread"], n)
    no_python = c_thread(lib, n)
    return sites, [sites[name].expect() for name in SITES] + [no_python]


def wait_usr1(secs, what):
    if signal.sigtimedwait({signal.SIGUSR1}, secs) is None:
        sys.exit("pystack_cases: no SIGUSR1 in %d s (%s)" % (secs, what))


def load(path):
    lib = ctypes.CDLL(path)
    for name, args in (("aclInit", [ctypes.c_char_p]),
                       ("aclFinalize", []),
                       ("aclrtSetDevice", [ctypes.c_int32]),
                       ("aclrtResetDevice", [ctypes.c_int32]),
                       ("aclrtMalloc", [ctypes.c_void_p, ctypes.c_size_t,
                                        ctypes.c_int]),
                       ("aclrtFree", [ctypes.c_void_p])):
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = ctypes.c_int
    return lib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.environ.get("LIBNPUSIM"))
    ap.add_argument("--expect", required=True)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--recursion", type=int, default=40)
    ap.add_argument("--wait-s", type=int, default=120)
    ap.add_argument("--wait", choices=("both", "start", "none"), default="both")
    a = ap.parse_args()
    if not a.lib:
        sys.exit("pystack_cases: no --lib and no LIBNPUSIM")
    lib = load(a.lib)
    for ret, what in ((lib.aclInit(None), "aclInit"),
                      (lib.aclrtSetDevice(0), "aclrtSetDevice")):
        if ret != 0:
            sys.exit("pystack_cases: %s returned %d" % (what, ret))
    # Blocked before any thread starts, so every thread inherits it.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    if a.wait != "none":
        print("pystack_cases pid=%d ready" % os.getpid(), flush=True)
        wait_usr1(a.wait_s, "start")
    sites, expect = run_all(lib, a.calls, a.recursion)
    doc = {"python": "%d.%d.%d" % sys.version_info[:3],
           "implementation": sys.implementation.name,
           "executable": sys.executable, "pid": os.getpid(),
           "main_tid": threading.get_native_id(), "calls": a.calls,
           "sites": expect}
    tmp = a.expect + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.rename(tmp, a.expect)
    print("pystack_cases done", flush=True)
    if a.wait == "both":
        wait_usr1(a.wait_s, "teardown")
    for s in sites.values():
        for p in s.ptrs:
            lib.aclrtFree(p)
    lib.aclrtResetDevice(0)
    lib.aclFinalize()


if __name__ == "__main__":
    main()
