#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints, for tests/unit/pyline_cases.h, line tables of one function as
CPython 3.9 to 3.13 compile it, each with the line CPython itself gives
every instruction, for test_pyline.c.  The header is made by running it
once per interpreter (pyenv's builds here), appending:

    for p in python3.9 ... python3.13; do $p gen_pyline_cases.py; done

The function has what trips a decoder: a line 300 lines below the one
before (more than a byte's delta), lines that go backwards (a loop, an
expression over several lines), and, on 3.11+, code with no line (a with
block's cleanup) and columns beyond the short forms (long entries).
"""
import dis
import sys

SRC = '''
def subject(items, path):
    total = 0
    for i, item in enumerate(items):
        if i % 2:
            total += item
        else:
            total -= (
                item
                * 3
            )
    with open(path) as f:
        data = f.read()
''' + "\n" * 300 + '''
    result = [x for x in data if x.isdigit()]; long_name_variable_here = len(result) + total + len(data) + len(path) + 1
    try:
        return long_name_variable_here // total
    except ZeroDivisionError:
        return -1
'''


def lines_of(code):
    """{byte offset of each instruction: its line, 0 for none}."""
    n = len(code.co_code)
    out = {}
    if sys.version_info >= (3, 10):
        for start, end, line in code.co_lines():
            for off in range(start, end, 2):
                out[off] = line or 0
    else:
        starts = list(dis.findlinestarts(code))
        line = code.co_firstlineno
        j = 0
        for off in range(0, n, 2):
            while j < len(starts) and starts[j][0] <= off:
                line = starts[j][1]
                j += 1
            out[off] = line
    return [out.get(off, 0) for off in range(0, n, 2)]


def main():
    ns = {}
    exec(compile(SRC, "subject.py", "exec"), ns)
    code = ns["subject"].__code__
    minor = sys.version_info[1]
    table = code.co_lnotab if minor <= 9 else code.co_linetable
    lines = lines_of(code)
    name = "py3%d" % minor
    print("/* CPython %s */" % sys.version.split()[0])
    print("static const uint8_t %s_table[] = {" % name)
    for i in range(0, len(table), 12):
        print("\t" + " ".join("0x%02x," % b for b in table[i:i + 12]))
    print("};")
    print("static const int %s_lines[] = {" % name)
    for i in range(0, len(lines), 12):
        print("\t" + " ".join("%d," % v for v in lines[i:i + 12]))
    print("};")
    print("#define %s_FIRSTLINE %d" % (name.upper(), code.co_firstlineno))


main()
