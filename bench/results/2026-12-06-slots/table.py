#!/usr/bin/env python3
"""The slots call's table: per round, resident's us per batch and each pinned setting's, as a
ratio to the round's resident, with pinned's upload, compute and host gather per batch and the
share of the upload hidden behind compute (the records' phases.transfer).
  python3 bench/results/2026-12-06-slots/table.py DIR   (DIR: the call's unpacked tarball)"""
import glob
import json
import os
import re
import sys


def record(path):
    with open(path) as f:
        records = json.load(f)["records"]
    assert len(records) == 1 and records[0]["status"] == "ok", path
    return records[0]


def us(r):
    return 1e3 * r["phases"]["steady"]["complete_ms_per_iter"]


def table(d, prefix):
    rounds = sorted({int(m.group(1)) for p in glob.glob(os.path.join(d, prefix + "resident-*.json"))
                     for m in [re.search(r"-(\d+)\.json$", p)]})
    if not rounds:
        return
    print("\n| %sround | resident us | setting | pinned us | / resident | upload, compute, gather us "
          "| upload hidden |" % prefix)
    print("|---|---|---|---|---|---|---|")
    for n in rounds:
        res = us(record(os.path.join(d, "%sresident-%d.json" % (prefix, n))))
        for path in sorted(glob.glob(os.path.join(d, "%spinned-*-%d.json" % (prefix, n)))):
            r = record(path)
            t = r["phases"]["transfer"]
            name = re.search(r"pinned-(.*)-\d+\.json$", path).group(1)
            print("| %d | %.2f | %s | %.2f | %.2f | %.1f, %.1f, %.1f | %.0f%% |" % (
                n, res, name, us(r), us(r) / res, 1e3 * t["batch_upload_ms"],
                1e3 * t["batch_compute_ms"], 1e3 * t["batch_gather_host_ms"],
                100 * t["upload_hidden_share"]))


table(sys.argv[1], "")
table(sys.argv[1], "wide-")
