# SPDX-License-Identifier: MIT
# db_check.py DB TIMELINE: checks an exported msprof_<ts>.db against
# msprof's schema and against the timeline exported beside it.  Prints
# "PASS <what>" or "FAIL <what>" lines for test_db.sh's `check`.
import json
import os
import sqlite3
import sys

ENUM = [("id", "INTEGER"), ("name", "TEXT")]
I, T, N = "INTEGER", "TEXT", "NUMERIC"
TABLES = {
    "STRING_IDS": [("id", I), ("value", T)],
    "META_DATA": [("name", T), ("value", T)],
    "SESSION_TIME_INFO": [("startTimeNs", I), ("endTimeNs", I)],
    "NPU_INFO": [("id", I), ("name", T)],
    "RANK_DEVICE_MAP": [("rankId", I), ("deviceId", I)],
    "HOST_INFO": [("hostUid", T), ("hostName", T)],
    "TASK": [(c, I) for c in ("startNs", "endNs", "deviceId", "connectionId",
                              "globalTaskId", "globalPid", "taskType",
                              "contextId", "streamId", "taskId", "modelId")],
    "COMPUTE_TASK_INFO": [(c, I) for c in (
        "name", "globalTaskId", "blockNum", "mixBlockNum", "taskType",
        "opType", "inputFormats", "inputDataTypes", "inputShapes",
        "outputFormats", "outputDataTypes", "outputShapes", "attrInfo",
        "opState", "hf32Eligible", "gridDim", "blockDim")],
    # msprof's columns, then torch_npu's callchainId (PYTORCH_CALLCHAINS).
    "CANN_API": [(c, I) for c in ("startNs", "endNs", "type", "globalTid",
                                  "connectionId", "name", "callchainId")],
    "PYTORCH_CALLCHAINS": [(c, I) for c in ("id", "stack", "stackDepth")],
    "COMMUNICATION_OP": [(c, I) for c in (
        "opName", "startNs", "endNs", "connectionId", "groupName", "opId",
        "relay", "retry", "dataType", "algType")] + [("count", N)] +
        [(c, I) for c in ("opType", "deviceId", "rankSize")],
    "OVERLAP_ANALYSIS": [("id", I), ("deviceId", I), ("startNs", N),
                         ("endNs", N), ("type", I)],
    "MEMCPY_INFO": [("globalTaskId", N), ("size", N), ("memcpyOperation", N)],
    "OSRT_API": [("name", N), ("globalTid", N), ("startNs", N), ("endNs", N)],
    "TASK_PMU_INFO": [("globalTaskId", I), ("name", I), ("value", N)],
    "MSTX_EVENTS": [(c, I) for c in (
        "startNs", "endNs", "eventType", "rangeId", "category", "message",
        "globalTid", "endGlobalTid", "domainId", "connectionId")],
}
for e in ("API_TYPE", "MODULE", "HCCL_DATA_TYPE", "HCCL_LINK_TYPE",
          "HCCL_TRANSPORT_TYPE", "HCCL_RDMA_TYPE", "MSTX_EVENT_TYPE",
          "MEMCPY_OPERATION", "OVERLAP_ANALYSIS_TYPE"):
    TABLES["ENUM_" + e] = ENUM
PK = {"STRING_IDS": "id", "COMPUTE_TASK_INFO": "globalTaskId",
      "CANN_API": "connectionId", "COMMUNICATION_OP": "opId",
      "OVERLAP_ANALYSIS": "id"}
# msprof's compute task types and op states (COMPUTE_TASK_INFO).
COMPUTE = {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "AI_CPU", "KERNEL"}
STATES = {"static", "dynamic", "N/A"}
OVERLAP = ["Computing", "Communication", "Communication(Not Overlapped)",
           "Free"]


def say(ok, what):
    print(("PASS " if ok else "FAIL ") + what)


def skip(what, why):
    print("SKIP %s (%s)" % (what, why))


# A window Huawei's msprof wrote alone holds no record of ours: no ioctls,
# and no call of ours launched its tasks (their connection ids are NULL).
OURS = os.path.exists(os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])),
                                   "msprof_ebpf_window.json"))


db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
q = lambda sql, *a: db.execute(sql, a).fetchall()
one = lambda sql, *a: q(sql, *a)[0][0]

for t, cols in TABLES.items():
    info = q("PRAGMA table_info(%s)" % t)
    got = [(r[1], r[2]) for r in info]
    say(got == cols, "%s has msprof's columns in order (%s)" % (t, got))
    if t in PK:
        say([r[1] for r in info if r[5]] == [PK[t]],
            "%s's primary key is %s" % (t, PK[t]))
say(q("PRAGMA index_info(TaskIndex)") and
    [r[2] for r in q("PRAGMA index_info(TaskIndex)")] == ["startNs", "globalTaskId"],
    "index TaskIndex on TASK(startNs, globalTaskId)")
say(dict(q("SELECT name, value FROM META_DATA")) ==
    {"SCHEMA_VERSION": "1.2.0", "SCHEMA_VERSION_MAJOR": "1",
     "SCHEMA_VERSION_MINOR": "2", "SCHEMA_VERSION_MICRO": "0"},
    "META_DATA holds schema version 1.2.0")
say(dict(q("SELECT name, id FROM ENUM_API_TYPE")) ==
    {"acl": 20000, "model": 15000, "node": 10000, "communication": 5500,
     "runtime": 5000}, "ENUM_API_TYPE holds msprof's levels")
say(dict(q("SELECT name, id FROM ENUM_OVERLAP_ANALYSIS_TYPE")) ==
    {"COMPUTE": 0, "COMMUNICATION": 1, "COMM_NOT_OVERLAP_COMP": 2, "FREE": 3,
     "RESERVE": 65535}, "ENUM_OVERLAP_ANALYSIS_TYPE holds msprof's types")
say(one("SELECT count(*) FROM ENUM_MEMCPY_OPERATION") == 9 and
    one("SELECT name FROM ENUM_MEMCPY_OPERATION WHERE id=1") == "host to device",
    "ENUM_MEMCPY_OPERATION holds msprof's 9 values")

# The timeline's slices, by kind: older and msprof-style timelines alike.
tl = json.load(open(sys.argv[2]))
procs = {e["pid"]: e["args"]["name"] for e in tl
         if e.get("ph") == "M" and e.get("name") == "process_name"}
# A collective is an op on the Communication process (one a node launch of
# an HCCL op, as Huawei's analysis draws a runtime's), its tasks below it.
nhccl = sum(1 for e in tl if e.get("ph") == "X" and "rank_size" in e["args"]
            and procs.get(e["pid"]) == "Communication")
say(one("SELECT count(*) FROM COMMUNICATION_OP") == nhccl,
    "COMMUNICATION_OP: a row per the timeline's collective op (%d)" % nhccl)
api, ioctl, dev, ovl = [], [], [], []
for e in tl:
    if e.get("ph") != "X":
        continue
    proc = procs.get(e["pid"], "")
    if proc == "Overlap Analysis" or e["name"] in OVERLAP:
        ovl.append(e)
    elif proc == "Ascend Hardware" or proc.startswith("NPU") or e.get("cat") == "device":
        dev.append(e)
    elif "ioctl" in e["name"] or proc == "OS Runtime API":
        ioctl.append(e)
    elif proc != "Communication":	# a collective's op and task: below
        api.append(e)

ntask = one("SELECT count(*) FROM TASK")
ncomp = one("SELECT count(*) FROM COMPUTE_TASK_INFO")
nmemcpy = one("SELECT count(*) FROM MEMCPY_INFO")
ncomm = one("SELECT count(*) FROM COMMUNICATION_TASK_INFO")
say(ntask > 0 and ntask == len(dev),
    "TASK rows = device task slices (%d = %d)" % (ntask, len(dev)))
# A device task of no task_track or launch (a window's edge) is named by its
# SQE type (AI_CORE and AI_CPU for types 0 and 1, *_SQE the others); of
# those, only a compute one has a row of its kind.
nsqe = one("""SELECT count(*) FROM TASK JOIN STRING_IDS s ON s.id = TASK.taskType
              WHERE (s.value LIKE '%\\_SQE' ESCAPE '\\' OR
                     s.value IN ('AI_CORE', 'AI_CPU')) AND globalTaskId NOT IN
              (SELECT globalTaskId FROM COMPUTE_TASK_INFO)""")
say(ncomp > 0 and ncomp + nmemcpy + ncomm + nsqe == ntask,
    "COMPUTE_TASK_INFO + MEMCPY_INFO + COMMUNICATION_TASK_INFO rows + tasks of no "
    "task_track = TASK rows (%d + %d + %d + %d = %d)" % (ncomp, nmemcpy, ncomm, nsqe, ntask))
say(one("SELECT count(*) FROM TASK JOIN COMPUTE_TASK_INFO USING (globalTaskId)") == ncomp,
    "every COMPUTE_TASK_INFO row joins its TASK by globalTaskId")
# A copy launched before the window opened has no call to take them from.
launched = one("SELECT count(*) FROM MEMCPY_INFO JOIN TASK USING (globalTaskId) "
               "WHERE connectionId IS NOT NULL")
what = "every MEMCPY_INFO row of a copy launched in the window has its size and direction"
if OURS:
    say(launched > 0 and one(
        "SELECT count(*) FROM MEMCPY_INFO JOIN TASK USING (globalTaskId) "
        "WHERE connectionId IS NOT NULL AND size > 0 AND memcpyOperation = 2") == launched,
        "%s (device to host; %d of %d launched in it)" % (what, launched, nmemcpy))
else:
    skip(what, "a runtime's window alone: no call of ours launched a copy")
# ... and one launched before it only what the runtime's memcpy_info says.
say(one("SELECT count(*) FROM MEMCPY_INFO JOIN TASK USING (globalTaskId) "
        "WHERE connectionId IS NULL AND NOT (size IS NULL AND memcpyOperation = 65535) "
        "AND NOT (size > 0 AND memcpyOperation BETWEEN 0 AND 7)") == 0,
    "a copy launched before the window has its memcpy_info's size and direction, "
    "or none and direction OTHER")
n = one("SELECT count(*) FROM CANN_API")
say(n > 0 and n == len(api), "CANN_API rows = API slices (%d = %d)" % (n, len(api)))
n = one("SELECT count(*) FROM OSRT_API")
say((n > 0 or not OURS) and n == len(ioctl), "OSRT_API rows = ioctl slices (%d = %d)" % (n, len(ioctl)))
linked = one("SELECT count(*) FROM TASK WHERE connectionId IS NOT NULL")
say(one("SELECT count(*) FROM TASK t JOIN CANN_API c USING (connectionId)") == linked
    and (linked > 0 or not OURS),
    "every TASK connectionId names a CANN_API call (%d)" % linked)
say(one("SELECT count(DISTINCT type) FROM CANN_API WHERE type NOT IN (SELECT id FROM ENUM_API_TYPE)") == 0,
    "every CANN_API type is an ENUM_API_TYPE level")
pid = one("SELECT DISTINCT globalPid FROM TASK")
say(one("SELECT count(*) FROM CANN_API WHERE globalTid >> 32 != ?", pid) == 0,
    "CANN_API globalTid = (pid << 32) | tid")

refs = [("CANN_API", "name"), ("OSRT_API", "name"), ("TASK", "taskType")] + \
    [("COMPUTE_TASK_INFO", c) for c, _ in TABLES["COMPUTE_TASK_INFO"]
     if c not in ("globalTaskId", "blockNum", "mixBlockNum", "gridDim", "blockDim")]
missing = sum(one("SELECT count(*) FROM %s WHERE %s NOT IN (SELECT id FROM STRING_IDS)"
                  % (t, c)) for t, c in refs)
say(missing == 0, "STRING_IDS holds every id the tables name (%d missing)" % missing)
# A window Huawei's msprof wrote alone has no ioctls: nothing to name.
names = q("SELECT DISTINCT value FROM STRING_IDS s JOIN OSRT_API o ON o.name = s.id")
say(names in ([], [("ioctl",)]), "OSRT_API names the ioctls (%s)" % names)

# Times: epoch ns, the timeline's ts to the nanosecond (a string of µs
# with 3 decimals), or a fixed offset from an older timeline's.
def ns(ts):
    if isinstance(ts, str):
        whole, frac = ts.split(".")
        return int(whole) * 1000 + int(frac)
    return round(ts * 1000)

db_starts = sorted(r[0] for r in q("SELECT startNs FROM CANN_API"))
tl_starts = sorted(ns(e["ts"]) for e in api)
if api and isinstance(api[0]["ts"], str):
    say(db_starts == tl_starts, "CANN_API startNs = the timeline's ts, in ns")
else:
    # The monotonic clock's slew against the raw one: 100 ppm at most.
    offs = [d - t for d, t in zip(db_starts, tl_starts)]
    span = tl_starts[-1] - tl_starts[0] if tl_starts else 0
    say(offs and max(offs) - min(offs) <= 2 + span // 10000,
        "CANN_API startNs = the timeline's ts plus one offset (and slew)")
s, e = q("SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO")[0]
say(1.5e18 < s < one("SELECT min(startNs) FROM CANN_API") and
    one("SELECT max(endNs) FROM CANN_API") <= e,
    "SESSION_TIME_INFO holds every call, epoch ns")

# Overlap Analysis: per device, Computing and Free tile the device's span.
for (d,) in q("SELECT DISTINCT deviceId FROM TASK"):
    lo, hi = q("SELECT min(startNs), max(endNs) FROM TASK WHERE deviceId=?", d)[0]
    # Communication (1) overlaps the others by definition; they tile.
    rows = q("SELECT startNs, endNs, type FROM OVERLAP_ANALYSIS WHERE deviceId=? AND type != 1 ORDER BY startNs", d)
    tiled = all(a[1] <= b[0] for a, b in zip(rows, rows[1:])) and \
        sum(r[1] - r[0] for r in rows) == hi - lo and rows[0][0] == lo and rows[-1][1] == hi
    say(tiled, "device %d: OVERLAP_ANALYSIS tiles its span %d..%d" % (d, lo, hi))
    comp = sum(r[1] - r[0] for r in rows if r[2] == 0)
    longest = one("""SELECT max(endNs - startNs) FROM TASK JOIN COMPUTE_TASK_INFO
                     USING (globalTaskId) WHERE deviceId=?""", d)
    say(longest <= comp <= one("""SELECT sum(endNs - startNs) FROM TASK JOIN
        COMPUTE_TASK_INFO USING (globalTaskId) WHERE deviceId=?""", d),
        "device %d: Computing lies between its longest op and all ops" % d)
if ovl:
    for k, name in enumerate(OVERLAP):
        want = sum(float(e["dur"]) for e in ovl if e["name"] == name)
        got = one("SELECT coalesce(sum(endNs - startNs), 0) FROM OVERLAP_ANALYSIS WHERE type=?", k) / 1000
        say(abs(want - got) <= 0.001 * (1 + len(ovl)),
            "OVERLAP_ANALYSIS %s = the timeline's (%.3f us)" % (name, want))

# What msprof-analyze's db recipes select (cluster step time, host info,
# advisor's op summary join), as they write them.
try:
    q("select id, value from STRING_IDS")
    r = q("""select TASK.startNs, TASK.endNs from COMPUTE_TASK_INFO JOIN TASK
             on TASK.globalTaskId = COMPUTE_TASK_INFO.globalTaskId""")
    say(len(r) == ncomp and all(a < b for a, b in r),
        "msprof-analyze's step-time COMPUTE_TASK_INFO x TASK select: every op")
    say(len(q("select opName, startNs, endNs from COMMUNICATION_OP")) == nhccl,
        "msprof-analyze's COMMUNICATION_OP select works")
    say(len(q("select * from HOST_INFO")) == 1 and
        len(q("select * from RANK_DEVICE_MAP")) == one("SELECT count(DISTINCT deviceId) FROM TASK"),
        "msprof-analyze's HOST_INFO and RANK_DEVICE_MAP selects: one host, a row per device")
    r = q("""SELECT n.value, o.value, t.value, TASK.startNs, TASK.endNs, TASK.deviceId,
             TASK.modelId, TASK.streamId, TASK.contextId, c.blockNum, c.blockDim, s.value
             FROM COMPUTE_TASK_INFO c JOIN TASK ON TASK.globalTaskId = c.globalTaskId
             JOIN STRING_IDS n ON n.id = c.name JOIN STRING_IDS o ON o.id = c.opType
             JOIN STRING_IDS t ON t.id = c.taskType JOIN STRING_IDS s ON s.id = c.opState""")
    say(len(r) == ncomp and all((x[2] in COMPUTE or x[2].endswith("_SQE")) and x[11] in STATES
                              for x in r),
        "an op summary join over STRING_IDS names every op (task types %s, states %s)"
        % (sorted({x[2] for x in r}), sorted({x[11] for x in r})))
except sqlite3.Error as err:
    say(False, "msprof-analyze's selects work (%s)" % err)
