#!/usr/bin/env python3
"""What a 96x96 weight W changes in the default's model (fit.py's mirror of
src/backends/cl/matmul_pipelined.c) against the weight 40: the square sizes 1..8192 whose pick
changes, and among 200,000 products drawn log-uniform (8 to 8192 rows, 1 to 8192 columns) the
picks of the model without splits (the mlp products step); and at the 39 sizes of h100/ the
share of the best of nine that the picks reached, where all were measured. usage: weight.py W"""
import collections
import math
import os
import random
import sys

from fit import U, c_default, groups, load

w96 = float(sys.argv[1])
rates = {(96, 96): w96}
changed = [n for n in range(1, 8193) if c_default(n, n, n) != c_default(n, n, n, rates)]
runs, start = [], None
for i, n in enumerate(changed):
    start = n if start is None else start
    if i + 1 == len(changed) or changed[i + 1] != n + 1:
        runs.append(f"{start}-{n}: {c_default(n, n, n)} to {c_default(n, n, n, rates)}")
        start = None
print(f"square sizes changed: {len(changed)}, {'; '.join(runs)}")


def unsplit(m, n, r):
    return c_default(m, n, 1, r, split_tail=False)[0]


rng, moves, least_waves = random.Random(1), collections.Counter(), math.inf
for _ in range(200000):
    m = int(math.exp(rng.uniform(math.log(8), math.log(8192))))
    n = int(math.exp(rng.uniform(0, math.log(8192))))
    a, b = unsplit(m, n, None), unsplit(m, n, rates)
    if a != b:
        moves[(a, b)] += 1
        least_waves = min(least_waves, math.ceil(groups(a, m, n) / U),
                          math.ceil(groups(b, m, n) / U))
print(f"products without splits changed: {sum(moves.values())} of 200000, {dict(moves)}, "
      f"least waves {least_waves}")

meas, dflt = load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "h100"))
shares = []
for n in sorted(meas):
    pick = c_default(n, n, n, rates)
    best = max(meas[n].values())
    shares.append(dflt[n][1] / best if pick == dflt[n][0] else meas[n].get(pick, math.nan) / best)
print(f"at the 39 sizes: mean share of the best {sum(shares) / len(shares):.3f}, "
      f"least {min(shares):.3f}")
