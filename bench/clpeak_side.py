#!/usr/bin/env python3
"""clgauge probe beside clpeak on one device, as a Markdown table.

    bench/clpeak_side.py PROBE.json CLPEAK.txt

PROBE.json is a results file of `clgauge probe --json` (its first probe of an OpenCL device is
taken); CLPEAK.txt is clpeak's text output for the same device. Each row pairs a figure of
clgauge with clpeak's figure of the same thing and gives their ratio; where the two measure it
differently the row says how. Only Python's standard library is needed.
"""
import json
import re
import sys


def read_clpeak(path):
    """{(section, key): value} from clpeak's indented 'key : value' lines."""
    figures, section = {}, ""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            text = line.strip()
            if re.search(r"\((GBPS|GFLOPS|GIOPS)\)$", text):
                section = text
                continue
            m = re.match(r"(.+?)\s*:\s*([0-9.]+)\s*(us)?$", text)
            if m:
                figures[(section, m.group(1).strip())] = float(m.group(2))
    return figures


def clpeak_value(figures, section_part, key):
    for (section, k), v in figures.items():
        if section_part in section and k == key:
            return v
    return None


def probe_value(probe, group, name, largest=False):
    found = [f for f in probe["figures"] if f["group"] == group and f["name"] == name]
    if not found:
        return None, None
    f = max(found, key=lambda f: f["bytes"] or 0) if largest else found[0]
    return f["median"], f["bytes"]


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        results = json.load(f)
    probes = [p for p in results.get("probes", []) if not p.get("host")]
    if not probes:
        print(f"{argv[1]}: no probe of an OpenCL device", file=sys.stderr)
        return 2
    probe = probes[0]
    clpeak = read_clpeak(argv[2])
    dev = probe["device"]
    print(f"clgauge probe beside clpeak on {dev['name']} ({dev['platform']}, driver "
          f"{dev['driver_version']})\n")
    print("| figure | clgauge probe (median) | clpeak | clgauge / clpeak | how they differ |")
    print("|---|---|---|---|---|")
    rows = []
    for w in ("", "2", "4", "8", "16"):
        rows.append((f"FP32 float{w}, GFLOP/s", probe_value(probe, "compute", f"fp32 float{w}")[0],
                     clpeak_value(clpeak, "Single-precision compute", f"float{w}"),
                     "multiply-add chains, 4 per work-item"))
    for w in ("", "2", "4", "8", "16"):
        rows.append((f"read float{w}, GB/s", probe_value(probe, "memory", f"read float{w}")[0],
                     clpeak_value(clpeak, "Global memory bandwidth", f"float{w}"),
                     "both read kernels; clgauge's buffers hold random data"))
    for name, key, how in (
            ("write pageable", "enqueueWriteBuffer", "largest size, blocking"),
            ("read pageable", "enqueueReadBuffer", "largest size, blocking"),
            ("map/unmap", "enqueueUnmap(after write)",
             "clgauge: map for writing plus unmap; clpeak: the unmap alone")):
        value, size = probe_value(probe, "transfer", name, largest=True)
        label = f"{name} {size / 2**20:.0f} MiB, GB/s" if size else f"{name}, GB/s"
        rows.append((label, value, clpeak_value(clpeak, "Transfer bandwidth", key), how))
    latency = clpeak_value(clpeak, "", "Kernel launch latency")
    for name, how in (("round trip", "clgauge: wall time of launch + clFinish of an empty kernel; "
                       "clpeak: queued-to-end profiling stamps of a small kernel"),
                      ("back-to-back", "clgauge: wall time per launch of a stream of empty "
                       "kernels, one wait at the end")):
        rows.append((f"launch {name}, us", probe_value(probe, "launch", name)[0], latency, how))
    for label, ours, theirs, how in rows:
        ratio = f"{ours / theirs:.2f}" if ours and theirs else "-"
        fmt = lambda v: "-" if v is None else f"{v:.4g}"
        print(f"| {label} | {fmt(ours)} | {fmt(theirs)} | {ratio} | {how} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
