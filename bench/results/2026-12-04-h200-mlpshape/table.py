#!/usr/bin/env python3
"""The table of sweep.sh's results: per shape, us per iteration (steady median) of each backend,
and whether cl/fused is at least as fast as the best of clblast and cl/per-op.
   table.py DIR   (the unpacked results.tgz)"""
import glob
import json
import os
import sys


def records(path):
    with open(path) as f:
        for r in json.load(f)["records"]:
            yield r


def us(r):
    s = r.get("phases", {}).get("steady", {})
    v = s.get("complete_ms_per_iter")
    return None if v is None else 1000.0 * v


def shape(r):
    p = r["params"]
    return "%dx%dx%dx%d" % (p["batch"], p["din"], p["hidden"], p["dout"])


def params(r):
    return ",".join("%s=%s" % (p["name"], p["value"]) for p in r["kernel"].get("params", []))


d = sys.argv[1]
print("| shape | iters | clblast | cl/per-op | cl/products | cl/fused (strategy) | fused / best of clblast, per-op | met |")
print("|---|---|---|---|---|---|---|---|")
paths = sorted(glob.glob(os.path.join(d, "*-preset.json"))) + sorted(glob.glob(os.path.join(d, "g-*.json")))
for path in paths:
    got, it, strategy = {}, None, []
    for r in records(path):
        key = r["backend"] + "/" + r["variant"]
        got[key] = (us(r), r["status"], r["phases"].get("verify", {}).get("rel_error"))
        if key == "cl/fused":
            strategy = [p["value"] for p in r["kernel"].get("params", []) if p["name"] == "STRATEGY"]
        it = r["params"]["iters"]
    fmt = lambda k: ("%.1f" % got[k][0]) if k in got and got[k][0] is not None else got.get(k, ("-", "missing"))[1]
    others = [got[k][0] for k in ("clblast/sgemm", "cl/per-op") if k in got and got[k][0]]
    f = got.get("cl/fused", (None,))[0]
    ratio = f / min(others) if f and others else None
    base = os.path.basename(path)[:-5]
    name = base[2:] if base.startswith("g-") else base
    fused = fmt("cl/fused") + (" (%s)" % ("products" if strategy[0] else "kernels") if strategy else "")
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (name, it, fmt("clblast/sgemm"), fmt("cl/per-op"),
          fmt("cl/products"), fused, "%.2f" % ratio if ratio else "-", "yes" if ratio and ratio <= 1.0 else "no"))
print()
print("| exploration | us/iter | status | rel err | parameters | sampled iteration, us per launch |")
print("|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(d, "x-*.json"))):
    for r in records(path):
        u = us(r)
        split = " ".join("%s %.1f" % (x["kernel"][0], 1000 * x["device_ms"])
                         for x in r["phases"].get("iteration_split") or [])
        print("| %s | %s | %s | %s | %s | %s |" % (os.path.basename(path)[2:-5], "%.1f" % u if u else "-",
              r["status"], r["phases"].get("verify", {}).get("rel_error"), params(r), split))
