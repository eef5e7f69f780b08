#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the CANN raw files of a PROF_ directory, read from the format
sheet alone (cann-raw-formats.md, section numbers below are its own):
whole records, every stars start with its end, task ids that wrap with
flips on both sides, one task_track per device task with the same
(stream, task id, batch), every type and hash id named.

check_cann_raw.py PROF_DIR [--min-tasks N] [--min-flips N]
Prints one JSON line of counts; exit 1 with the failures said."""
import collections
import json
import os
import re
import struct
import sys

API = struct.Struct("=HHIIIQQQ")           # 40 B (§2.1)
HEAD = struct.Struct("=HHIIIQ")            # 24 B compact/additional header
TRACK = struct.Struct("=HHHHQQ16x")        # task_track body, 40 B (§2.5)
NODE = struct.Struct("=QIQIIB11x")         # node_basic_info body (§2.6)
HCCL = struct.Struct("=QQQ")               # hccl_info's first ids (§2.8)
STARS = struct.Struct("=HHHHQHH44x")       # 64 B (§3.1)
FLIP = struct.Struct("=BBHIQHHHH16x")      # ts_track, 40 B (§3.4)
LEVELS = {30000, 25000, 20500, 20000, 15000, 10000, 6000, 5500, 5000}
ACL_GROUPS = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11}
FLIP_TASK = 98

failures = []


def fail(what):
    failures.append(what)


def slices(data, pattern):
    """The files of data/ matching pattern, in slice order."""
    names = [n for n in os.listdir(data) if re.match(pattern, n)]
    return sorted(names, key=lambda n: int(n.rsplit("_", 1)[1]))


def records(data, pattern, size):
    out = []
    for name in slices(data, pattern):
        with open(os.path.join(data, name), "rb") as f:
            blob = f.read()
        if len(blob) % size:
            fail(f"{name}: {len(blob)} bytes, not whole {size}-byte records")
        out += [blob[i:i + size] for i in range(0, len(blob) - size + 1, size)]
    return out


def dictionary(data, kind):
    d = {}
    for name in slices(data, r"^unaging\.additional\.%s\.slice_\d+$" % kind):
        with open(os.path.join(data, name), encoding="utf-8") as f:
            for line in f.read().split("\n"):
                if line:
                    key, sep, val = line.partition(":")
                    if not sep:
                        fail(f"{name}: a line without ':'")
                    d[key] = val
    return d


def host(prof):
    data = os.path.join(prof, "host", "data")
    types, hashes = dictionary(data, "type_info_dic"), dictionary(data, "hash_dic")

    def named_type(level, typ, what):
        if f"{level}_{typ}" not in types:
            fail(f"{what}: type {level}_{typ} not in type_info_dic")

    def named_hash(h, what):
        if h and str(h) not in hashes:
            fail(f"{what}: hash id {h} not in hash_dic")

    apis = collections.Counter()
    for r in records(data, r"^(aging|unaging)\.api_event\.data\.slice_\d+$", 40):
        magic, level, typ, _tid, _req, begin, end, item = API.unpack(r)
        if magic != 0x5A5A or level not in LEVELS:
            fail(f"api record: magic {magic:#x} level {level}")
        if level == 20000 and typ >> 16 not in ACL_GROUPS:
            fail(f"acl type {typ:#x}: group not an AclApiTag")
        if not begin or end < begin:
            fail(f"api {level}_{typ}: begin {begin} end {end}")
        named_type(level, typ, "api")
        named_hash(item, f"api {level}_{typ}")
        apis[level] += 1
    tracks = []
    for r in records(data, r"^(aging|unaging)\.compact\.task_track\.slice_\d+$", 64):
        magic, level, typ, tid, _len, ts = HEAD.unpack_from(r)
        dev, stream, task, batch, ttype, kname = TRACK.unpack_from(r, 24)
        if magic != 0x5A5A or (level, typ) != (5000, 802):
            fail(f"task_track header: {magic:#x} {level}_{typ}")
        named_type(5000, ttype, "task_track task type")
        named_hash(kname, "task_track kernel name")
        tracks.append((ts, dev & 0xFFF, stream, task, batch, ttype))
    nodes = records(data, r"^(aging|unaging)\.compact\.node_basic_info\.slice_\d+$", 64)
    for r in nodes:
        op, _ge, optype, _blocks, _flag, _state = NODE.unpack_from(r, 24)
        named_hash(op, "node_basic_info op name")
        named_hash(optype, "node_basic_info op type")
    hccl = records(data, r"^(aging|unaging)\.additional\.hccl_info\.slice_\d+$", 256)
    for r in hccl:
        for h in HCCL.unpack_from(r, 24):
            named_hash(h, "hccl_info")
    tensors = records(data, r"^(aging|unaging)\.additional\.tensor_info\.slice_\d+$", 256)
    memcpys = records(data, r"^(aging|unaging)\.compact\.memcpy_info\.slice_\d+$", 64)
    return tracks, {"api": sum(apis.values()), "acl": apis[20000], "node": apis[10000],
                    "runtime": apis[5000], "communication": apis[5500],
                    "node_basic_info": len(nodes), "tensor_info": len(tensors),
                    "memcpy_info": len(memcpys), "hccl_info": len(hccl)}


def batches(items, flips):
    """Batch of each (time, key...) item: flips of its stream before it (§4.2)."""
    per = collections.defaultdict(list)
    for t, stream in flips:
        per[stream].append(t)
    for v in per.values():
        v.sort()
    out = []
    for t, stream, rest in items:
        out.append((stream, rest, sum(1 for f in per[stream] if f <= t)))
    return out


def device(prof, dev):
    data = os.path.join(prof, f"device_{dev}", "data")
    open_starts, tasks = {}, []
    for r in records(data, r"^stars_soc\.data\.%d\.slice_\d+$" % dev, 64):
        head, magic, stream, task, cnt, _res, _acc = STARS.unpack(r)
        func, sqe = head & 0x3F, head >> 10
        if magic != 0x6BD3 or sqe > 20 or stream >= 2048 or func > 1:
            fail(f"stars record: magic {magic:#x} sqe {sqe} stream {stream} func {func}")
            continue
        key = (stream, task)
        if func == 0:
            if key in open_starts:
                fail(f"device {dev} stream {stream} task {task}: a start without its end")
            open_starts[key] = cnt
        elif key not in open_starts:
            fail(f"device {dev} stream {stream} task {task}: an end without its start")
        else:
            start = open_starts.pop(key)
            if cnt < start:
                fail(f"device {dev} stream {stream} task {task}: ends before it starts")
            tasks.append((start, stream, task))
    for key in open_starts:
        fail(f"device {dev} stream {key[0]} task {key[1]}: never ended")
    flips = []
    for r in records(data, r"^ts_track\.data\.%d\.slice_\d+$" % dev, 40):
        _mode, tag, _r, _r2, cnt, stream, num, _r3, task = FLIP.unpack(r)
        if tag == 14:
            flips.append((cnt, stream, num, task))
    return tasks, flips


def main():
    args = sys.argv[1:]
    prof = args.pop(0)
    opts = dict(zip(args[::2], (int(a) for a in args[1::2])))
    tracks, counts = host(prof)
    devs = sorted(int(m.group(1)) for m in
                  (re.match(r"^device_(\d+)$", n) for n in os.listdir(prof)) if m)
    counts.update(devices=devs, device_tasks=0, task_tracks=0, flips=0, max_batch=0)
    for dev in devs:
        with open(os.path.join(prof, f"device_{dev}", f"info.json.{dev}")) as f:
            info = json.loads(f.readline())
        if info.get("platform_version") != "5" or \
                info["DeviceInfo"][0].get("hwts_frequency") != "50":
            fail(f"device_{dev}/info.json.{dev}: not a 910B at 50 MHz")
        tasks, dflips = device(prof, dev)
        mine = [t for t in tracks if t[1] == dev]
        hflips = [(t[0], t[2]) for t in mine if t[5] == FLIP_TASK]
        htasks = [t for t in mine if t[5] != FLIP_TASK]
        for t in htasks:
            if t[4] != sum(1 for f in hflips if f[1] == t[2] and f[0] <= t[0]):
                fail(f"task_track stream {t[2]} task {t[3]}: batch {t[4]} is not its flip count")
        for f in dflips:
            if f[3] != 0:
                fail(f"ts_track flip on stream {f[1]}: task id {f[3]}, not 0")
        host_keys = collections.Counter(
            batches([(t[0], t[2], t[3]) for t in htasks], hflips))
        dev_keys = collections.Counter(
            batches([(t[0], t[1], t[2]) for t in tasks], [(f[0], f[1]) for f in dflips]))
        if host_keys != dev_keys:
            diff = (host_keys - dev_keys) + (dev_keys - host_keys)
            fail(f"device {dev}: {sum(diff.values())} tasks on one side only "
                 f"(e.g. {list(diff)[:3]})")
        if any(n > 1 for n in dev_keys.values()):
            fail(f"device {dev}: a (stream, task, batch) names two tasks")
        if len(hflips) != len(dflips):
            fail(f"device {dev}: {len(hflips)} FLIP_TASK task_tracks, {len(dflips)} ts_track flips")
        counts["device_tasks"] += len(tasks)
        counts["task_tracks"] += len(htasks)
        counts["flips"] += len(dflips)
        counts["max_batch"] = max([counts["max_batch"]] + [k[2] for k in dev_keys])
    if counts["device_tasks"] != counts["task_tracks"]:
        fail(f"{counts['task_tracks']} task_tracks for {counts['device_tasks']} device tasks")
    if counts["device_tasks"] < opts.get("--min-tasks", 1):
        fail(f"only {counts['device_tasks']} device tasks")
    if counts["flips"] < opts.get("--min-flips", 0):
        fail(f"only {counts['flips']} flips")
    print(json.dumps(counts))
    for f in failures[:20]:
        print("check_cann_raw:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
