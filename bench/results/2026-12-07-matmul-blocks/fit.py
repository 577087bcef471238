#!/usr/bin/env python3
"""The pipelined matmul's default against the blocks and splits measured by `matmul_blocks`
(bench/steps.sh), and a time model fitted to them. usage: fit.py DIR (DIR holding blocks-*.json)

1. Per size: the default's pick and rate, the best of the nine measured configurations.
2. A least-squares fit (log time, seeded random local search) of the model
     time = (waves of whole blocks + part waves * (k_chunk + S0) / (k + S0) + C0 + OVER)
            * area / rate(block)
   with free rates per block, S0, C0 and OVER, parts allowed past one wave.
3. Two-fold cross-validation (4 seeds): the fitted model picks among the configurations measured
   at each held-out size; the ratio of its pick's rate to the best, beside the default's.
4. The square sizes 16..4096 at which the fitted model (all splits 2..16, the 64x64 and 32x32
   weights kept) picks otherwise than src/backends/cl/matmul_pipelined.c's model (mirrored here),
   and its picks at issue 10's sizes."""
import collections
import glob
import json
import math
import random
import sys

U = 132  # the H100's compute units
KWG = {(128, 128): 8, (128, 64): 16, (96, 96): 16, (64, 64): 16, (32, 32): 32}
MEASURED = [(128, 128), (128, 64), (96, 96)]


def load(d):
    meas, dflt = collections.defaultdict(dict), {}
    for f in sorted(glob.glob(d + "/blocks-*.json")):
        for r in json.load(open(f))["records"]:
            if r["status"] != "ok":
                continue
            kp = {x["name"]: x["value"] for x in r["kernel"]["params"]}
            key = ((kp["MWG"], kp["NWG"]), kp.get("SPLITS", 1))
            rate = r["phases"]["steady"]["gflops"] / 1000
            if f.endswith("blocks-default.json"):
                dflt[r["params"]["n"]] = (key, rate)
            else:
                meas[r["params"]["n"]][key] = rate
    return meas, dflt


def groups(b, m, n):
    return ((m + b[0] - 1) // b[0]) * ((n + b[1] - 1) // b[1])


def split_of(b, m, n, k, asked):
    """(whole blocks, tail blocks, parts, k_chunk) as the C code splits; tail 0: unsplit."""
    blocks = groups(b, m, n)
    tail = blocks % U
    if asked <= 1 or tail == 0:
        return (blocks, 0, 1, k)
    chunk = ((k + asked - 1) // asked + KWG[b] - 1) // KWG[b] * KWG[b]
    splits = (k + chunk - 1) // chunk
    return (blocks, 0, 1, k) if splits <= 1 else (blocks - tail, tail, splits, chunk)


def split_waves(p, t, k):
    """The model's time of split t (split_of's tuple) in waves of blocks that take all of k."""
    if t[1] == 0:
        return math.ceil(t[0] / U) + p["over"]
    part = math.ceil(t[1] * t[2] / U) * (t[3] + p["s0"]) / (k + p["s0"])
    return t[0] // U + part + p["c0"] + p["over"]


def time_us(p, n, b, s):
    waves = split_waves(p, split_of(b, n, n, n, s), n)
    return waves * 2 * b[0] * b[1] * n * U / (p["rate"][b] * 1e6)


def loss(p, meas):
    e = [(math.log(time_us(p, n, b, s)) - math.log(2 * n**3 / (g * 1e6)))**2
         for n, m in meas.items() for (b, s), g in m.items()]
    return sum(e) / len(e)


NAMES = ["r128x128", "r128x64", "r96x96", "s0", "c0", "over"]


def params(x):
    return {"rate": dict(zip(MEASURED, x[:3])), "s0": x[3], "c0": x[4], "over": x[5]}


def fit(meas, seed):
    rng = random.Random(seed)
    x, steps = [44.0, 42.0, 40.0, 32.0, 0.05, 0.0], [1.0, 1.0, 1.0, 8.0, 0.02, 0.05]
    best = loss(params(x), meas)
    for _ in range(9000):
        i = rng.randrange(len(x))
        y = list(x)
        y[i] = max(0.0, y[i] + rng.gauss(0, steps[i]))
        if y[i] > 0 or i > 2:
            l = loss(params(y), meas)
            if l < best:
                best, x = l, y
    return x, best


def pick(p, n, configs):
    return min(configs, key=lambda c: time_us(p, n, c[0], c[1]))


# src/backends/cl/matmul_pipelined.c's default, as of this call
C_BLOCKS = [((128, 128), 44.0), ((128, 64), 42.0), ((96, 96), 40.0), ((64, 64), 30.0),
            ((32, 32), 26.0)]


def c_default(m, n, k, rates=None, limit_one_wave=True, gain=1.10, p=None, split_tail=True):
    """The C model (p None) or the fitted one (p: its S0, C0, OVER and rates); without split_tail
    the blocks unsplit, as the mlp products step asks."""
    q = {"s0": 32.0, "c0": 0.05, "over": 0.0} if p is None else p
    blocks = C_BLOCKS if rates is None else [(b, rates.get(b, r)) for b, r in C_BLOCKS]
    best, best_split = (math.inf, None), (math.inf, None)
    for b, r in blocks:
        area = b[0] * b[1]
        cost = split_waves(q, split_of(b, m, n, k, 1), k) * area / r
        if cost < best[0]:  # on a tie the earlier block, as in C
            best = (cost, (b, 1))
        if not split_tail or area >= 128 * 128:
            continue
        for s in range(2, 17):
            t = split_of(b, m, n, k, s)
            if t[1] == 0 or (limit_one_wave and t[1] * t[2] > U):
                continue
            cost = split_waves(q, t, k) * area / r
            if cost < best_split[0]:
                best_split = (cost, (b, t[2]))
    return best_split[1] if best_split[1] and best_split[0] * gain <= best[0] else best[1]


def main():
    meas, dflt = load(sys.argv[1])
    print("1. n: default pick rate (share of the best) | best of nine")
    for n in sorted(meas):
        m = meas[n]
        best = max(m, key=m.get)
        (db, ds), dr = dflt[n]
        print(f"{n:5}: {db[0]}x{db[1]}/{ds} {dr:5.1f} ({dr / m[best]:.2f}) | "
              f"{best[0][0]}x{best[0][1]}/{best[1]} {m[best]:5.1f}")
    shares = [dflt[n][1] / max(meas[n].values()) for n in meas]
    print(f"   default/best: mean {sum(shares) / len(shares):.3f}, min {min(shares):.3f}")

    x, l = fit(meas, 1)
    p = params(x)
    print("2. fit:", ", ".join(f"{a} {v:.3g}" for a, v in zip(NAMES, x)),
          f"rms {math.sqrt(l):.3f}")

    fitted, default = [], []
    for seed in range(4):
        ns = sorted(meas)
        random.Random(seed).shuffle(ns)
        for train in (set(ns[:len(ns) // 2]), set(ns[len(ns) // 2:])):
            q = params(fit({n: meas[n] for n in train}, seed)[0])
            test = [n for n in ns if n not in train]
            fitted.append([meas[n][pick(q, n, list(meas[n]))] / max(meas[n].values())
                           for n in test])
            default.append([dflt[n][1] / max(meas[n].values()) for n in test])
    for name, runs in (("fitted", fitted), ("default", default)):
        print(f"3. {name}: held-out mean {sum(sum(r) / len(r) for r in runs) / len(runs):.3f}, "
              f"mean of the halves' min {sum(min(r) for r in runs) / len(runs):.3f}, "
              f"worst {min(min(r) for r in runs):.3f}")

    rates = {b: p["rate"][b] * 40.0 / p["rate"][(96, 96)] for b in MEASURED}
    changed = sum(c_default(n, n, n) != c_default(n, n, n, rates, False, 1.0, p)
                  for n in range(16, 4097))
    print(f"4. fitted model (rates scaled to 96x96 = 40): {changed} of 4081 square sizes change")
    for m, n, k in [(1000,) * 3, (1024,) * 3, (1025,) * 3, (2047,) * 3, (4096,) * 3,
                    (777, 555, 1333), (512,) * 3, (700,) * 3, (2561,) * 3]:
        print(f"   {m}x{k}x{n}: C {c_default(m, n, k)}, fitted "
              f"{c_default(m, n, k, rates, False, 1.0, p)}")


if __name__ == "__main__":
    main()
