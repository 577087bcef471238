#!/usr/bin/env python3
"""bench/steps.sh's tune_check, read back: per tuned size N in DIR (tuned-nN.json, untuned-nN.json),
each square size's pipelined matmul with the tuning file and without, its block/parts and the
origin of MWG and SPLITS, the steady TFLOP/s and their ratio, and the record's notes.
usage: compare.py DIR"""
import glob
import json
import re
import sys


def records(path):
    out = {}
    for r in json.load(open(path))["records"]:
        kp = {p["name"]: (p["value"], p["origin"]) for p in r["kernel"]["params"]}
        rate = r["phases"]["steady"]["gflops"] / 1000 if r["status"] == "ok" else 0.0
        block = f'{kp["MWG"][0]}x{kp["NWG"][0]}/{kp["SPLITS"][0]}'
        origin = f'{kp["MWG"][1]}/{kp["SPLITS"][1]}'
        note = r["phases"].get("compile", {}).get("warning") or ""
        out[r["params"]["n"]] = (r["status"], rate, block, origin, note)
    return out


def main():
    d = sys.argv[1]
    for f in sorted(glob.glob(d + "/tuned-n*.json")):
        n = re.search(r"tuned-n(\d+)", f).group(1)
        tuned, untuned = records(f), records(f"{d}/untuned-n{n}.json")
        print(f"tuned at n={n}: size | untuned block TFLOP/s | tuned block (MWG/SPLITS origin) "
              "TFLOP/s | ratio | notes")
        for s in sorted(tuned):
            u, t = untuned[s], tuned[s]
            ratio = t[1] / u[1] if u[1] else float("nan")
            print(f"  {s:5} | {u[2]:>10} {u[1]:5.1f} | {t[2]:>10} ({t[3]}) {t[1]:5.1f} | "
                  f"{ratio:.3f} | {t[4][:110]}")


if __name__ == "__main__":
    main()
