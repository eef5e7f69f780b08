#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fails on an upward or circular include or call, or an over-long file or function.

The folders under user/ are layers, each using only those below it:
common (lowest); proc (reading /proc); task (a target), host (the BPF
tracer) and sys (the host's /proc samples), peers that none uses another;
export; ctl (command line,
prompt, session) at the top.  The agent, which runs inside the task, uses
agent/ and common/ only.  x.c and x.h are one unit, and no two units may
include or call each other, directly or around a circle, in user/ or in
tools/npusim.  No file in user/ is over MAX_FILE lines, no function in it
over MAX_FUNC (the lines between its braces).  With --objects DIR (the
build's obj/ folder) the same rules hold for calls, read from the objects:
which object's undefined symbols another defines, as nm(1) says, which a
header shared by several files cannot hide.
Prints each problem on a line and a "layers: N passed, N failed, N skipped"
line; exits 1 if any check failed.  With --start-path FUNC (and --objects)
prints instead the path a reader follows from FUNC through its callees.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# The folders each layer may use; a layer's rank is one above the highest
# other layer it uses, so peers share one.
ALLOWED = {
    "common": {"common"},
    "proc": {"common", "proc"},
    "task": {"common", "proc", "task"},
    "host": {"common", "proc", "host"},
    "sys": {"common", "proc", "sys"},
    "export": {"common", "proc", "host", "export"},
    "ctl": {"common", "proc", "task", "host", "sys", "export", "ctl"},
    "agent": {"agent", "common"},
}
RANK = {}
while len(RANK) < len(ALLOWED):
    for layer, uses in ALLOWED.items():
        below = uses - {layer}
        if layer not in RANK and below <= RANK.keys():
            RANK[layer] = 1 + max((RANK[b] for b in below), default=-1)
# Trees outside user/ held to the no-circle rule alone.
CIRCLE_ONLY = ["tools/npusim"]
MAX_FILE = 700
MAX_FUNC = 80
START_CALLS = 200
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(unit):
    return unit.split("/")[0]


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


def tree_units(root):
    """{unit: [files]} of every .c and .h under root, any depth."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(folder, name), root)
                found.setdefault(rel[:-2], []).append(rel)
    return found


def resolve(root, src, inc):
    """The unit an include names, or None for one outside root."""
    here = os.path.dirname(src)
    for cand in (os.path.join(here, inc), inc):
        path = os.path.normpath(cand)
        if os.path.isfile(os.path.join(root, path)):
            return path[:-2]
    return None


def includes(root, found):
    """{unit: the units under root whose headers it includes}."""
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
        for w in sorted(graph.get(v, ())):
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


def objects(objdir, tree, root):
    """{unit: object path} for tree's objects (tree being "user" or one of
    CIRCLE_ONLY) of a source that still exists: a build tree keeps old ones."""
    base = os.path.join(objdir, tree)
    out = {}
    for folder, _, names in os.walk(base):
        for name in names:
            path = os.path.join(folder, name)
            unit = os.path.relpath(path, base)[:-2]
            if name.endswith(".o") and \
               os.path.isfile(os.path.join(root, tree, unit + ".c")):
                out[unit] = path
    return out


def calls(objs):
    """{unit: units whose functions it calls}, from the objects' symbols."""
    unit_of = {path: unit for unit, path in objs.items()}
    defined, needed = {}, {u: set() for u in objs}
    out = subprocess.run(["nm", "-g", "-A", *unit_of], capture_output=True,
                         text=True, check=True).stdout if objs else ""
    for line in out.splitlines():
        path, _, rest = line.partition(":")
        *_, kind, sym = rest.split()
        if kind == "U":
            needed[unit_of[path]].add(sym)
        else:
            defined[sym] = unit_of[path]
    return {u: {defined[s] for s in syms if s in defined} - {u}
            for u, syms in needed.items()}


def check_edges(graph, how, prefix="user/", layered=True):
    problems = []
    for unit in sorted(graph) if layered else ():
        layer = layer_of(unit)
        for dep in sorted(graph[unit]):
            dlayer = layer_of(dep)
            if dlayer not in ALLOWED[layer]:
                problems.append(f"user/{unit}: {how} {dep}, in layer {dlayer}, which {layer} may not use")
    for comp in cycles(graph):
        problems.append(f"{how} in a circle: " + ", ".join(f"{prefix}{u}" for u in comp))
    return problems


FUNC_NAME = re.compile(r"(\w+)\s*\(")


def functions(text):
    """(name, first line, lines between the braces) of each function
    written in kernel style: its opening brace alone in the first column."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if line.rstrip() != "{" or i == 0:
            continue
        start = i - 1
        while start > 0 and lines[start - 1][:1] not in ("", "}", "#", "/", " ") \
                and not lines[start - 1].rstrip().endswith((";", "*/")):
            start -= 1
        name = FUNC_NAME.search(" ".join(lines[start:i]))
        end = next((j for j in range(i + 1, len(lines))
                    if lines[j].rstrip() == "}"), len(lines))
        if name:
            out.append((name.group(1), start + 1, end - i - 1))
    return out


def sizes(root, found):
    """The problems of size in user/'s files, and the number of subjects
    (files and functions) looked at."""
    problems, checked = [], 0
    for files in found.values():
        for f in files:
            with open(os.path.join(root, f), encoding="utf-8") as fp:
                text = fp.read()
            n = text.count("\n")
            checked += 1
            if n > MAX_FILE:
                problems.append(f"user/{f}: {n} lines, over {MAX_FILE}")
            for name, line, body in functions(text):
                checked += 1
                if body > MAX_FUNC:
                    problems.append(f"user/{f}:{line}: {name}() is {body} lines, over {MAX_FUNC}")
    return problems, checked


CLONE = re.compile(r"\.(cold|part|isra|constprop|lto_priv)(\.\d+)?")
CALL = re.compile(r"^\s*[0-9a-f]+:\s+(callq?|jmpq?|bl|b)\s+(?:[0-9a-f]+\s+<([^>]+)>)?")
RELOC = re.compile(r"^\s*[0-9a-f]+:\s+R_\w+\s+([^\s+-]+)")
HEAD = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")


def call_lists(objs):
    """{(unit, function): [callees in the order of their call sites]}
    from objdump's disassembly with relocations: a callee in another
    object is named by a relocation, one in the same section by the call
    itself.  Compiler clones (foo.cold, foo.part.0) count as foo."""
    funcs = {}
    for unit, path in sorted(objs.items()):
        out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", path],
                             capture_output=True, text=True, check=True).stdout
        cur, pending = None, False
        for line in out.splitlines():
            head = HEAD.match(line)
            m = CALL.match(line)
            r = RELOC.match(line)
            if head:
                cur = funcs.setdefault((unit, CLONE.sub("", head.group(1))), [])
            elif cur is None:
                continue
            elif m and m.group(2) and "+" not in m.group(2):
                cur.append(CLONE.sub("", m.group(2)))
            elif r and pending:
                cur.append(CLONE.sub("", r.group(1)))
            pending = bool(m) and not (m.group(2) and "+" not in m.group(2))
    return funcs


def start_path(objs, start, limit=START_CALLS):
    """The functions of the tree a reader meets from start, depth first,
    each call one step (a function already read is not read again), up to
    limit calls; returns [(depth, function, unit)]."""
    funcs = call_lists(objs)
    exported = {}
    for unit, path in objs.items():
        for line in subprocess.run(["nm", "-g", "--defined-only", path], capture_output=True,
                                   text=True, check=True).stdout.splitlines():
            exported[line.split()[-1]] = unit
    if start not in exported:
        return None
    first = (exported[start], start)
    path, seen = [(0, start, first[0])], {first}

    def walk(fn, depth):
        for name in funcs[fn]:
            callee = (fn[0], name) if (fn[0], name) in funcs else \
                (exported.get(name), name)
            if len(path) > limit:
                return
            if callee not in funcs or callee == fn:
                continue	# the C library's, or a loop
            path.append((depth, name, callee[0]))
            if callee not in seen:
                seen.add(callee)
                walk(callee, depth + 1)

    walk(first, 1)
    return path


def print_start_path(objs, start):
    path = start_path(objs, start)
    if path is None:
        print(f"start path: no function {start} in the objects")
        return 1
    files, climbs = set(), 0
    for k, (depth, fn, unit) in enumerate(path):
        up = k and RANK[layer_of(unit)] > RANK[layer_of(path[k - 1][2])]
        climbs += bool(up)
        files.add(unit)
        print(f"{'  ' * depth}{fn} (user/{unit}.c){'  ^' if up else ''}")
    print(f"start path from {start}: {len(path) - 1} calls, enters {len(files)} files, "
          f"climbs back to a higher layer {climbs} times (^)")
    return 0


def self_test():
    """The checker on a tree with one fault of each kind: it must see each."""
    long_func = "int f(void)\n{\n" + "\tx();\n" * (MAX_FUNC + 1) + "}\n"
    files = {
        "common/a.h": "", "common/a.c": '#include "a.h"\n',
        "task/b.h": "", "task/b.c": '#include "ctl/c.h"\n',
        "ctl/c.h": "", "ctl/c.c": '#include "d.h"\n',
        "ctl/d.h": "", "ctl/d.c": '#include "c.h"\n#include "common/a.h"\n',
        "agent/e.c": '#include "task/b.h"\n', "stray.c": "",
        "host/f.c": '#include "task/b.h"\n' + long_func,
        "proc/g.c": "\n" * (MAX_FILE + 1),
    }
    want = {"user/task/b: includes ctl/c", "user/agent/e: includes task/b",
            "includes in a circle: user/ctl/c, user/ctl/d", "user/stray.c",
            "user/host/f: includes task/b", "user/host/f.c:2: f() is 81 lines",
            "user/proc/g.c: 701 lines"}
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w") as fp:
                fp.write(text)
        found, stray = units(root)
        got = check_edges(includes(root, found), "includes") + \
            sizes(root, found)[0] + [f"user/{f}" for f in stray]
    out = [f"self-test: the checker missed {w}" for w in sorted(want)
           if not any(w in g for g in got)]
    if len(got) != len(want):
        out.append(f"self-test: {len(got)} problems seen, {len(want)} made: {got}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", help="the build's obj/ folder: check calls too")
    ap.add_argument("--start-path", metavar="FUNC",
                    help=f"print the path from FUNC (session_start), its first {START_CALLS} "
                    "calls depth first, the files it enters and how often it climbs back "
                    "to a higher layer; needs --objects")
    ap.add_argument("root", nargs="?", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."),
        help="the source tree (with user/ and tools/)")
    args = ap.parse_args()
    top = args.root
    root = os.path.join(top, "user")
    if args.start_path:
        if not args.objects:
            ap.error("--start-path needs --objects")
        return print_start_path(objects(args.objects, "user", top), args.start_path)
    found, stray = units(root)
    problems = self_test()
    problems += [f"user/{f}: not in a layer folder ({', '.join(sorted(ALLOWED))})"
                 for f in stray]
    problems += check_edges(includes(root, found), "includes")
    size_problems, checked = sizes(root, found)
    problems += size_problems
    checked += len(found)
    for tree in CIRCLE_ONLY:
        graph = includes(os.path.join(top, tree), tree_units(os.path.join(top, tree)))
        problems += check_edges(graph, "includes", f"{tree}/", layered=False)
        checked += len(graph)
    if args.objects:
        graph = calls(objects(args.objects, "user", top))
        if not graph:
            print(f"FAIL no objects of user/ under {args.objects}: build first")
            return 1
        problems += check_edges(graph, "calls")
        checked += len(graph)
        for tree in CIRCLE_ONLY:
            graph = calls(objects(args.objects, tree, top))
            problems += check_edges(graph, "calls", f"{tree}/", layered=False)
            checked += len(graph)
    for p in problems:
        print("FAIL", p)
    failed = len(problems)
    print(f"layers: {checked - min(failed, checked)} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
