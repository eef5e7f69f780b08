#!/usr/bin/env python3
"""results_put.py RESULTS KEY: make bench's parts share one results file.

Reads one part's figures (a JSON value) on stdin and stores them under KEY
in RESULTS, keeping the other parts' keys; the file is replaced whole, so a
reader never sees half of it.
"""
import json
import os
import sys
import tempfile


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: results_put.py RESULTS KEY <part.json")
    path, key = sys.argv[1:]
    part = json.load(sys.stdin)
    try:
        with open(path) as f:
            doc = json.load(f)
        if not isinstance(doc, dict):
            doc = {}
    except (OSError, ValueError):
        doc = {}
    doc[key] = part
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix=".results.")
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
