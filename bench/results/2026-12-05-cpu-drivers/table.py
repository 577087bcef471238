#!/usr/bin/env python3
"""The tables of bench/RESULTS.md's section on the CPU drivers from run.sh's JSON: per driver,
workload and shape, each cl variant's steady time per iteration (ms) at the day's build (base)
and at main, each round, and main over base by the best round of each (noise on the shared
2-core machine only ever slows a round). Usage: table.py DIR"""
import glob
import json
import os
import re
import sys

d = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(d, '*.json'))):
    m = re.match(r'(matmul|mlp|linear)-(pocl|rusticl)-(?:(.+)-)?(base|main)-(\d)\.json$',
                 os.path.basename(f))
    if not m:
        continue
    kind, dev, shape, build, rnd = m.groups()
    for r in json.load(open(f))['records']:
        name = r['variant'] + ('/' + r['transfer'] if r.get('transfer') else '')
        steady = r['phases']['steady'] if r['status'] == 'ok' else None
        v = steady['complete_ms_per_iter'] if steady else r['status']
        key = (dev, kind, shape or 'default', name)
        rows.setdefault(key, {}).setdefault(build, []).append(v)
for dev in ('pocl', 'rusticl'):
    print(f'\n{dev}\n| workload | shape | variant | base (ms/it) | main (ms/it) | main / base |')
    print('|---|---|---|---|---|---|')
    for key in sorted(k for k in rows if k[0] == dev):
        _, kind, shape, name = key
        b, m = rows[key].get('base', []), rows[key].get('main', [])
        fmt = lambda xs: ', '.join(f'{x:.4g}' if isinstance(x, float) else str(x) for x in xs)
        nums = lambda xs: [x for x in xs if isinstance(x, float)]
        ratio = f'{min(nums(m)) / min(nums(b)):.2f}' if nums(b) and nums(m) else '-'
        print(f'| {kind} | {shape} | {name} | {fmt(b) or "-"} | {fmt(m) or "-"} | {ratio} |')
