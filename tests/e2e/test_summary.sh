#!/bin/bash
# The summaries of --export=on (api_statistic, op_summary, op_statistic,
# task_time, README.txt): msprof's names, exact headers, number formats and
# row order, and sums that agree with the timeline of the same export.
source tests/e2e/lib.sh

one_window 2

timeout 60 "$MSPROF" --export=on --output="$d" >"$WORK/export.log" 2>"$WORK/err"
check "export exits 0" [ $? -eq 0 ]
show "$WORK/err"
check "export prints README.txt and each summary it wrote" \
	[ "$(grep -cE '/mindstudio_profiler_output/(README\.txt|(api_statistic|op_summary|op_statistic|task_time)_[0-9]{14}\.csv)$' "$WORK/export.log")" = 5 ]

# The checks: one "ok"/"FAIL" line each; the exit status says whether all held.
cat >"$WORK/check.py" <<'PY'
import csv, glob, json, os, re, statistics, sys, time

outdir = sys.argv[1]
failed = 0

def check(what, cond):
    global failed
    print(("ok " if cond else "FAIL ") + what)
    failed += not cond

names = sorted(os.listdir(outdir))
stamps = {re.sub(r'^.*_(\d{14})\.\w+$', r'\1', n) for n in names if n != 'README.txt'}
check("one stamp for every stamped file (%s)" % sorted(stamps), len(stamps) == 1)
ts = stamps.pop() if len(stamps) == 1 else ''
want = ['README.txt'] + ['%s_%s.%s' % (b, ts, e) for b, e in
        [('msprof', 'json'), ('api_statistic', 'csv'), ('op_summary', 'csv'),
         ('op_statistic', 'csv'), ('task_time', 'csv')]]
check("exactly the timeline, 4 summaries and README.txt (%s)" % names, names == sorted(want))

HEADERS = {
    'api_statistic': 'Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance',
    'op_summary': 'Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,'
                  'Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Num,Mix Block Num,'
                  'HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,'
                  'Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,'
                  'aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),'
                  'aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,'
                  'aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,'
                  'aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),'
                  'aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)',
    'op_statistic': 'Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),'
                    'Max Time(us),Ratio(%)',
    'task_time': 'Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),'
                 'task_stop(us)',
}
US = re.compile(r'^\d+\.\d{3}$')          # a time: integer ns with a point inserted
US_TAB = re.compile(r'^\d+\.\d{3}\t$')    # a start/stop cell
STAT = re.compile(r'^\d+(\.\d{0,2}[1-9])?$')  # 3 decimals, trailing zeros stripped
INT = re.compile(r'^\d+$')

# Only op_summary's shape cells ("64,64;64,64") hold commas, quoted.
SHAPES = ['Input Shapes', 'Output Shapes']

def rows_of(base):
    path = os.path.join(outdir, '%s_%s.csv' % (base, ts))
    raw = open(path, 'rb').read().decode()
    lines = raw.split('\n')
    rows = list(csv.reader(lines[1:-1]))
    cols = HEADERS[base].split(',')
    # A shape cell is msprof's: its value wrapped in quotes ("64,64").
    quoted = {cols[i] for r in rows for i, c in enumerate(r) if '"' in c}
    check("%s: no quoting but of shapes, no CR (%s)" % (base, sorted(quoted)),
          '\r' not in raw and quoted <= set(SHAPES) and
          all(re.fullmatch(r'"[^"]*"', c) for r in rows for i, c in enumerate(r)
              if i < len(cols) and cols[i] in quoted))
    check("%s: the exact header" % base, lines[0] == HEADERS[base])
    check("%s: ends with a line end" % base, raw.endswith('\n'))
    ncol = len(HEADERS[base].split(','))
    check("%s: every row has %d cells" % (base, ncol), all(len(r) == ncol for r in rows))
    return [dict(zip(HEADERS[base].split(','), r)) for r in rows]

# Epoch µs need 19 digits, past a double's: cells are compared as integer ns.
def ns(cell):
    whole, _, frac = cell.strip().partition('.')
    return int(whole) * 1000 + int((frac + '000')[:3])

def all_match(rows, cols, rx):
    return all(rx.match(r[c]) for r in rows for c in cols)

# The timeline: API slices by the bare name or "<Layer>@name"; device tasks
# by their args (task ids); whatever format the timeline takes otherwise.
events = json.load(open(os.path.join(outdir, 'msprof_%s.json' % ts)))
slices = [e for e in events if e.get('ph') == 'X']
def is_task(e):
    a = e.get('args') or {}
    return e.get('cat') == 'device' or 'Task Id' in a or 'task_id' in a
tasks = [e for e in slices if is_task(e)]
def slices_of(api):
    return [e for e in slices if not is_task(e) and
            (e.get('name') == api or str(e.get('name', '')).endswith('@' + api))]

# api_statistic
api = rows_of('api_statistic')
check("api_statistic: rows (%d)" % len(api), len(api) >= 5)
check("api_statistic: Device_id is host", all(r['Device_id'] == 'host' for r in api))
check("api_statistic: no ioctl row", not any(r['API Name'] == 'ioctl' for r in api))
LEVELS = {'acl': 20000, 'model': 15000, 'node': 10000, 'communication': 5500, 'runtime': 5000,
          'cuda': 20000, 'cuda_driver': 5000, 'api': 20000}
check("api_statistic: known levels", all(r['Level'] in LEVELS for r in api))
keys = [(r['API Name'].encode(), LEVELS.get(r['Level'], 0)) for r in api]
check("api_statistic: by API name, then level", keys == sorted(keys) and len(set(keys)) == len(keys))
check("api_statistic: number formats",
      all_match(api, ['Time(us)', 'Avg(us)', 'Min(us)', 'Max(us)', 'Variance'], STAT) and
      all_match(api, ['Count'], INT))
bad = []
for r in api:
    durs = [float(e['dur']) for e in slices_of(r['API Name'])]
    n = int(r['Count'])
    if n != len(durs):
        bad.append('%s: Count %d, %d slices' % (r['API Name'], n, len(durs)))
        continue
    mean = float(r['Avg(us)'])
    if (abs(float(r['Time(us)']) - sum(durs)) > 0.001 * n + 0.001 or
            abs(float(r['Min(us)']) - min(durs)) > 0.0011 or
            abs(float(r['Max(us)']) - max(durs)) > 0.0011 or
            abs(mean - sum(durs) / n) > 0.0006 or
            abs(float(r['Variance']) - sum((x - mean) ** 2 for x in durs) / n) >
            0.0011 + 1e-6 * float(r['Variance'])):
        bad.append('%s: %s vs %d slices' % (r['API Name'], r, n))
check("api_statistic: Count, Time, Avg, Min, Max and Variance agree with the timeline's slices %s" % bad[:3],
      not bad)
check("api_statistic: every API call counted once",
      sum(int(r['Count']) for r in api) == sum(len(slices_of(a)) for a in {r['API Name'] for r in api}))

# op_summary: a row per op's task, not per copy (msprof's, spec §4.4)
KERNELS = {'AI_CORE', 'AI_VECTOR_CORE', 'AI_CPU', 'MIX_AIC', 'MIX_AIV', 'KERNEL'}
ops = rows_of('op_summary')
all_tasks = tasks
# A task no recorded launch put there (the host's probes stop a moment
# before the device's collection does) is no op: the timeline names it by
# its SQE's type, which for type 0 is "AI_CORE" too, and op_summary leaves
# it out, as msprof leaves out a task of no task_track.  Only a stream's
# edges may hold one: a stream runs its tasks in launch order.
def launched(e):
    return e['args'].get('connection_id', 0) != 0 or e.get('name') != e['args'].get('Task Type')
edge = []
for stream in {(e['pid'], e['tid']) for e in all_tasks}:
    mine = sorted((e for e in all_tasks if (e['pid'], e['tid']) == stream), key=lambda e: ns(e['ts']))
    ok = [i for i, e in enumerate(mine) if launched(e)]
    edge += [e for i, e in enumerate(mine) if not launched(e) and ok and ok[0] < i < ok[-1]]
check("timeline: a task of no launch only before its stream's first launched one or after its last %s" % edge[:2],
      not edge)
tasks = [e for e in all_tasks if e['args'].get('Task Type') in KERNELS and launched(e)]
check("op_summary: one row per op's device task (%d = %d)" % (len(ops), len(tasks)),
      len(ops) == len(tasks) and len(ops) > 0)
check("op_summary: number formats",
      all_match(ops, ['Task Start Time(us)'], US_TAB) and all_match(ops, ['Task Duration(us)'], US) and
      all_match(ops, ['Device_id', 'Task ID', 'Stream ID', 'Block Num', 'Mix Block Num'], INT))
order = [(int(r['Device_id']), ns(r['Task Start Time(us)'])) for r in ops]
check("op_summary: by device, then start", order == sorted(order))
check("op_summary: more than one device", len({r['Device_id'] for r in ops}) > 1)
now = time.time() * 1e6
check("op_summary: starts are epoch us of the last minutes",
      all(now - 600e6 < s / 1000 < now + 60e6 for _, s in order))
check("op_summary: task types", {r['Task Type'] for r in ops} <= KERNELS
      and 'AI_CORE' in {r['Task Type'] for r in ops})
# npusim's runtime reports its launches' node info in aging files: dynamic.
check("op_summary: OP State dynamic, as the runtime's node info says",
      all(r['OP State'] == 'dynamic' for r in ops))
check("op_summary: shapes of the runtime's tensor_info",
      all(r['Input Shapes'] != 'N/A' and r['Output Formats'] == 'ND' for r in ops))
pmu = HEADERS['op_summary'].split(',')[21:]
check("op_summary: no PMU on npusim: N/A in its %d columns" % len(pmu),
      len(pmu) == 25 and all(r[c] == 'N/A' for r in ops for c in pmu))
# Equal on the epoch scale; a slewed clock may put the timeline's dur, when
# it is not on that scale, a few ppm off.
mine, theirs = sorted(ns(r['Task Duration(us)']) for r in ops), sorted(round(float(e['dur']) * 1000) for e in tasks)
check("op_summary: durations are the timeline's",
      len(mine) == len(theirs) and all(abs(a - b) <= max(2, b // 2000) for a, b in zip(mine, theirs)))
bad = []
for i, r in enumerate(ops):
    if i == 0 or ops[i - 1]['Device_id'] != r['Device_id']:
        ok = r['Task Wait Time(us)'] == '0'
    else:
        p = ops[i - 1]
        w = max(0, ns(r['Task Start Time(us)']) - ns(p['Task Start Time(us)'])
                - ns(p['Task Duration(us)']))
        # msprof prints this cell with std::to_string(): 6 decimals.
        ok = r['Task Wait Time(us)'] == '%d.%03d000' % divmod(w, 1000)
    if not ok:
        bad.append(r)
check("op_summary: Task Wait Time = max(0, start - previous start - previous duration) %s" % bad[:2],
      not bad)

# op_statistic
st = rows_of('op_statistic')
check("op_statistic: number formats",
      all_match(st, ['Total Time(us)', 'Min Time(us)', 'Avg Time(us)', 'Max Time(us)', 'Ratio(%)'], STAT)
      and all_match(st, ['Count'], INT))
check("op_statistic: Count sums to op_summary's rows",
      sum(int(r['Count']) for r in st) == len(ops))
tot = [float(r['Total Time(us)']) for r in st]
check("op_statistic: by total, descending", tot == sorted(tot, reverse=True))
for dev in sorted({r['Device_id'] for r in st}):
    ratio = sum(float(r['Ratio(%)']) for r in st if r['Device_id'] == dev)
    check("op_statistic: device %s's Ratio sums to 100 (%.3f)" % (dev, ratio), abs(ratio - 100) < 0.01 * len(st))
agg = {}
for r in ops:
    k = (r['Device_id'], r['OP Type'], r['Task Type'])
    agg.setdefault(k, []).append(float(r['Task Duration(us)']))
check("op_statistic: one row per device, OP Type and Core Type of op_summary",
      sorted(agg) == sorted((r['Device_id'], r['OP Type'], r['Core Type']) for r in st))
check("op_statistic: Count, Total, Min, Max agree with op_summary",
      all(len(agg[k]) == int(r['Count']) and abs(sum(agg[k]) - float(r['Total Time(us)'])) < 0.001 * len(agg[k]) + 0.001
          and abs(min(agg[k]) - float(r['Min Time(us)'])) < 0.0011 and abs(max(agg[k]) - float(r['Max Time(us)'])) < 0.0011
          for r in st for k in [(r['Device_id'], r['OP Type'], r['Core Type'])] if k in agg))

# task_time
tt = rows_of('task_time')
check("task_time: one row per device task", len(tt) == len(all_tasks))
check("task_time: number formats",
      all_match(tt, ['task_time(us)'], US) and all_match(tt, ['task_start(us)', 'task_stop(us)'], US_TAB))
check("task_time: stop - start = task_time",
      all(ns(r['task_stop(us)']) - ns(r['task_start(us)']) == ns(r['task_time(us)']) for r in tt))
key = lambda *c: lambda r: tuple(r[x] for x in c)
opkeys = set(map(key('Device_id', 'Stream ID', 'Task ID', 'Task Start Time(us)'), ops))
check("task_time: the tasks of op_summary among them, in its order",
      [k for k in map(key('Device_id', 'stream_id', 'task_id', 'task_start(us)'), tt) if k in opkeys] ==
      list(map(key('Device_id', 'Stream ID', 'Task ID', 'Task Start Time(us)'), ops)))

# README.txt: msprof's two sections, numbered "<i>.<name>.<ext>:", naming exactly what was written.
readme = open(os.path.join(outdir, 'README.txt')).read()
check("README: the timeline section, then the summary one",
      readme.startswith('Timeline file description:\n') and '\nSummary file description:\n' in readme)
tl, _, sm = readme.partition('Summary file description:\n')
def listed(text, ext):
    found = re.findall(r'^(\d+)\.(\w+)\.%s:' % ext, text, re.M)
    return [int(i) for i, _ in found], sorted(n for _, n in found)
for text, ext in ((tl, 'json'), (sm, 'csv')):
    idx, got = listed(text, ext)
    written = sorted(re.sub(r'_\d{14}\.\w+$', '', n) for n in names if n.endswith('.' + ext))
    check("README: lists the %s files written (%s = %s)" % (ext, got, written),
          got == written and idx == list(range(1, len(idx) + 1)))
sys.exit(1 if failed else 0)
PY
python3 "$WORK/check.py" "$d/mindstudio_profiler_output"
check "the summaries hold together" [ $? -eq 0 ]

# A second export replaces the first: one of each file, not two.
sleep 1
timeout 60 "$MSPROF" --export=on --output="$d" >"$WORK/export2.log" 2>"$WORK/err"
check "a second export exits 0" [ $? -eq 0 ]
check "a second export leaves one file of each kind" \
	[ "$(ls "$d/mindstudio_profiler_output" | sed -E 's/_[0-9]{14}//' | sort | uniq -d)" = "" -a \
	  "$(ls "$d/mindstudio_profiler_output" | wc -l)" = 6 ]
