#!/usr/bin/env python3
"""The tables of run.sh's call: mlp's us per iteration (steady median) of each backend per shape,
with what cl/fused ran (the strategy, the split, the persistent kernel) and whether it is at least
as fast as the best of clblast and cl/per-op; linear's ms per batch by transfer; matmul's TFLOP/s.
   table.py DIR   (the unpacked close.tar.gz)"""
import glob
import json
import os
import sys


def records(path):
    with open(path) as f:
        return json.load(f)["records"]


def steady_ms(r):
    return (r.get("phases", {}).get("steady") or {}).get("complete_ms_per_iter")


def param(r, name):
    for p in (r.get("kernel") or {}).get("params", []):
        if p["name"] == name:
            return p["value"]
    return None


def fused_path(r):
    if param(r, "PERSIST"):
        return "persistent"
    if param(r, "STRATEGY"):
        return "products"
    return "split" if param(r, "SPLIT") else "launches"


def mlp_tables(d):
    print("| shape (N x D x H x O) | iters | clblast | cl/per-op | cl/fused | fused path | fused / best | "
          "largest rel. error |")
    print("|---|---|---|---|---|---|---|---|")
    paths = [os.path.join(d, n) for n in ("big-preset.json", "seed-preset.json")]
    paths += sorted(glob.glob(os.path.join(d, "g-*.json")),
                    key=lambda p: [int(x) for x in os.path.basename(p)[2:-5].split("x")])
    for path in paths:
        if not os.path.exists(path):
            continue
        got, path_of, err, it, sh = {}, "-", 0.0, None, None
        for r in records(path):
            key = r["backend"] + "/" + r["variant"]
            ms = steady_ms(r) if r["status"] == "ok" else None
            got[key] = 1000.0 * ms if ms is not None else r["status"]
            if key == "cl/fused":
                path_of = fused_path(r)
            err = max(err, (r["phases"].get("verify") or {}).get("rel_error") or 0.0)
            p = r["params"]
            it, sh = p["iters"], "%d x %d x %d x %d" % (p["batch"], p["din"], p["hidden"], p["dout"])
        cell = lambda k: "%.1f" % got[k] if isinstance(got.get(k), float) else str(got.get(k, "-"))
        others = [got[k] for k in ("clblast/sgemm", "cl/per-op") if isinstance(got.get(k), float)]
        f = got.get("cl/fused")
        ratio = f / min(others) if isinstance(f, float) and others else None
        print("| %s | %s | %s | %s | **%s** | %s | %s | %.1e |" % (
            sh, it, cell("clblast/sgemm"), cell("cl/per-op"), cell("cl/fused"), path_of,
            "%.2f" % ratio if ratio else "-", err))


def big_rounds(d):
    rows = []
    for path in sorted(glob.glob(os.path.join(d, "big-*-[0-9].json"))):
        for r in records(path):
            ms = steady_ms(r)
            split = " ".join("%s %.0f" % (x["kernel"][0], 1000 * x["device_ms"])
                             for x in r["phases"].get("iteration_split") or [])
            rows.append("| %s | %s | %s | %s |" % (os.path.basename(path)[4:-5],
                        "%.1f" % (1000 * ms) if ms else r["status"], split,
                        (r["phases"].get("verify") or {}).get("rel_error")))
    if rows:
        print("\n| big preset, setting-round | us/iter | sampled iteration, us per launch | rel. error |")
        print("|---|---|---|---|")
        print("\n".join(rows))


def linear_table(d):
    path = os.path.join(d, "linear.json")
    if not os.path.exists(path):
        return
    print("\n| linear transfer | ms per batch | all epochs at that rate, ms | status |")
    print("|---|---|---|---|")
    for r in records(path):
        ms = steady_ms(r)
        # one run is an epoch: the 10 epochs' figure is the steady rate over every batch
        batches = r["work"]["iters_per_run"] * r["params"]["epochs"]
        print("| %s | %s | %s | %s |" % (r.get("transfer"), "%.4f" % ms if ms else "-",
              "%.1f" % (ms * batches) if ms and batches else "-", r["status"]))


def matmul_table(d):
    paths = sorted(glob.glob(os.path.join(d, "matmul-*.json")))
    if not paths:
        return
    print("\n| matmul (M x K x N) | clblast TFLOP/s | cl/pipelined TFLOP/s | pipelined ms/product | rel. error |")
    print("|---|---|---|---|---|")
    for path in paths:
        got, sh, ms, err = {}, None, None, 0.0
        for r in records(path):
            p = r["params"]
            sh = "%d x %d x %d" % (p["m"], p["k"], p["n"])
            t = steady_ms(r)
            got[r["variant"]] = 2.0 * p["m"] * p["k"] * p["n"] / (t * 1e9) if t else r["status"]
            if r["variant"] == "pipelined":
                ms = t
            err = max(err, (r["phases"].get("verify") or {}).get("rel_error") or 0.0)
        cell = lambda k: "%.1f" % got[k] if isinstance(got.get(k), float) else str(got.get(k, "-"))
        print("| %s | %s | %s | %s | %.1e |" % (sh, cell("sgemm"), cell("pipelined"),
              "%.4f" % ms if ms else "-", err))


d = sys.argv[1]
mlp_tables(d)
big_rounds(d)
linear_table(d)
matmul_table(d)
