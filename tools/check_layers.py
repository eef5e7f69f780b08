#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fails on an upward or circular include among the sources under user/.

The folders under user/ are layers, top to bottom: ctl (command line,
prompt, session), export, host (the BPF tracer), task (a target), proc
(reading /proc), common.
A file may include headers of its own folder or of a lower one; the agent,
which runs inside the task, may include agent/ and common/ only.  x.c and
x.h are one unit, and no two units may include each other, directly or
around a circle.  With --objects DIR (the build's obj/ folder) the same
rules hold for calls: which object's undefined symbols another defines,
as nm(1) says, which a header shared by several files cannot hide.
Prints each problem and a "layers: N passed, N failed, N skipped" line;
exits 1 if any check failed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ORDER = ["common", "proc", "task", "host", "export", "ctl"]
ALLOWED = {d: set(ORDER[:i + 1]) for i, d in enumerate(ORDER)}
ALLOWED["agent"] = {"agent", "common"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def units(root):
    """{unit: [files]}, a unit being 'folder/stem'; and stray files."""
    found, stray = {}, []
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(folder, name), root)
            parts = rel.split(os.sep)
            if len(parts) != 2 or parts[0] not in ALLOWED:
                stray.append(rel)
                continue
            found.setdefault(rel[:-2], []).append(rel)
    return found, stray


def resolve(root, src, inc):
    """The user/ unit an include names, or None for one outside user/."""
    here = os.path.dirname(src)
    for cand in (os.path.join(here, inc), inc):
        path = os.path.normpath(cand)
        if os.path.isfile(os.path.join(root, path)):
            return path[:-2]
    return None


def includes(root, found):
    """{unit: the user/ units whose headers it includes}."""
    graph = {u: set() for u in found}
    for unit, files in found.items():
        for f in files:
            with open(os.path.join(root, f), encoding="utf-8") as fp:
                text = fp.read()
            for inc in INCLUDE.findall(text):
                dep = resolve(root, f, inc)
                if dep is not None and dep != unit:
                    graph[unit].add(dep)
    return graph


def cycles(graph):
    """Strongly connected components of more than one unit (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def symbols(path, *flags):
    out = subprocess.run(["nm", "-g", *flags, path], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def calls(objdir, root):
    """{unit: units whose functions it calls}, from user/'s objects
    (those of a source that still exists: a build tree keeps old ones)."""
    base = os.path.join(objdir, "user")
    defined, needed = {}, {}
    for folder, _, names in os.walk(base):
        for name in names:
            if not name.endswith(".o"):
                continue
            path = os.path.join(folder, name)
            unit = os.path.relpath(path, base)[:-2]
            if unit.split("/")[0] not in ALLOWED or \
               not os.path.isfile(os.path.join(root, unit + ".c")):
                continue
            for sym in symbols(path, "--defined-only"):
                defined[sym] = unit
            needed[unit] = symbols(path, "-u")
    return {u: {defined[s] for s in syms if s in defined} - {u}
            for u, syms in needed.items()}


def check_edges(graph, how):
    problems = []
    for unit in sorted(graph):
        layer = unit.split("/")[0]
        for dep in sorted(graph[unit]):
            dlayer = dep.split("/")[0]
            if dlayer not in ALLOWED[layer]:
                problems.append(f"user/{unit}: {how} {dep}, in layer {dlayer}, which {layer} may not use")
    for comp in cycles(graph):
        problems.append(f"{how} in a circle: " + ", ".join(f"user/{u}" for u in comp))
    return problems


def self_test():
    """The checker on a tree with one fault of each kind: it must see each."""
    files = {
        "common/a.h": "", "common/a.c": '#include "a.h"\n',
        "task/b.h": "", "task/b.c": '#include "ctl/c.h"\n',
        "ctl/c.h": "", "ctl/c.c": '#include "d.h"\n',
        "ctl/d.h": "", "ctl/d.c": '#include "c.h"\n#include "common/a.h"\n',
        "agent/e.c": '#include "task/b.h"\n', "stray.c": "",
    }
    want = {"user/task/b: includes ctl/c", "user/agent/e: includes task/b",
            "includes in a circle: user/ctl/c, user/ctl/d", "user/stray.c"}
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w") as fp:
                fp.write(text)
        found, stray = units(root)
        got = check_edges(includes(root, found), "includes") + \
            [f"user/{f}" for f in stray]
    out = [f"self-test: the checker missed {w}" for w in sorted(want)
           if not any(w in g for g in got)]
    if len(got) != len(want):
        out.append(f"self-test: {len(got)} problems seen, {len(want)} made: {got}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", help="the build's obj/ folder: check calls too")
    ap.add_argument("root", nargs="?", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "user"))
    args = ap.parse_args()
    root = args.root
    found, stray = units(root)
    problems = self_test()
    problems += [f"user/{f}: not in a layer folder ({', '.join(ORDER + ['agent'])})"
                for f in stray]
    problems += check_edges(includes(root, found), "includes")
    checked = len(found)
    if args.objects:
        graph = calls(args.objects, root)
        if not graph:
            print(f"FAIL no objects of user/ under {args.objects}: build first")
            return 1
        problems += check_edges(graph, "calls")
        checked += len(graph)
    for p in problems:
        print("FAIL", p)
    failed = len(problems)
    print(f"layers: {checked - min(failed, checked)} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
