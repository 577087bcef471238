#!/usr/bin/env python3
"""Plots of clgauge results files (schema clgauge.results/5, /4, /3 or /2, from any clgauge
command's --json or from pytorch_seeds.py), written as PNG files into one folder:

  phases-NAME.png        run 0 of every record split into its phases (context, compile, upload,
                         the first run, download), stacked bars per device and backend, one panel
                         per workload: where a first run's time goes
  crossover-NAME-W.png   for sweeps (records with a "group"): time against size for each
                         backend, the loop alone and counting context, compile, transfers and
                         every run; where a device line falls below the cpu line, it wins
  drivers.png            with several files or devices: the steady time per iteration of each
                         record on each of them, side by side (log scale)
  ceilings-NAME.png      each record's GFLOP/s and GB/s as a share of its device's measured
                         ceilings, drawn only where the file holds them: a run with --probe,
                         --probe-file or the suite's probe (each record's "bound" names its
                         probe among the file's "probes")

NAME is the results file's name without .json.
"""
import argparse
import json
import math
import os
import re
import sys

SCHEMAS = ("clgauge.results/2", "clgauge.results/3", "clgauge.results/4", "clgauge.results/5")
MAX_BYTES = 16 << 20  # as clgauge compare: a results file is at most a few hundred KiB
PHASES = (("init", "context (init)", "#8c6bb1"), ("compile", "compile", "#e6550d"),
          ("upload", "upload", "#3182bd"), ("first", "first run (run 0)", "#31a354"),
          ("download", "download", "#969696"))


class BadFile(Exception):
    pass


def fail(prog, message):
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


def num(v):
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v) else None


def get(obj, path):
    for part in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def load(path):
    try:
        size = os.path.getsize(path)
        if os.path.isdir(path):
            raise BadFile(f"'{path}': is a directory, not a results file")
        if size > MAX_BYTES:
            raise BadFile(f"'{path}': {size / (1 << 20):.1f} MiB, larger than the "
                          f"{MAX_BYTES >> 20} MiB a results file may be")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BadFile(f"'{path}': cannot read: {e.strerror}")
    except (UnicodeDecodeError, RecursionError):
        raise BadFile(f"'{path}': not a results file (not JSON text)")
    except json.JSONDecodeError as e:
        raise BadFile(f"'{path}': not valid JSON at line {e.lineno}, column {e.colno}")
    if not isinstance(doc, dict) or not isinstance(doc.get("schema"), str):
        raise BadFile(f"'{path}': not a clgauge results file (no \"schema\")")
    if doc["schema"] not in SCHEMAS:
        raise BadFile(f"'{path}': schema {doc['schema']}, which this script does not read: it "
                      f"reads {', '.join(SCHEMAS)}")
    records = doc.get("records")
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise BadFile(f"'{path}': \"records\" is not a list of records")
    for i, r in enumerate(records):
        for key in ("workload", "backend", "variant", "status"):
            if not isinstance(r.get(key), str):
                raise BadFile(f"'{path}': record {i + 1}: \"{key}\" is missing or not a string")
        if not isinstance(get(r, "device.name"), str):
            raise BadFile(f"'{path}': record {i + 1}: \"device.name\" is missing")
    return doc


# ---- what a record says ----


def phase_ms(r, phase):
    key = "complete_ms" if phase == "first" else "ms"
    return num(get(r, f"phases.{phase}.{key}"))


def steady_per_iter(r):
    v = num(get(r, "phases.steady.complete_ms_per_iter"))
    if v is None:
        med, it = num(get(r, "phases.steady.complete_ms.median")), num(get(r, "work.iters_per_run"))
        v = med / it if med is not None and it else None
    return v


def name(r):
    t = r.get("transfer")
    return f"{r['backend']}/{r['variant']}" + (f"/{t}" if isinstance(t, str) and t else "")


def device_label(r):
    d = r.get("device") or {}
    label = d.get("name") or "(no device)"
    drv = d.get("driver_version")
    return label + (f", {d.get('platform')} {drv}" if d.get("platform") and drv else "")


def params_key(r):
    p = r.get("params") if isinstance(r.get("params"), dict) else {}
    return tuple(sorted((k, v) for k, v in p.items() if isinstance(v, (int, float))))


def sweep_size(r):
    """A sweep point's size: the parameter its group names ("hidden 64"), else its number."""
    g = r.get("group")
    if not isinstance(g, str) or not g:
        return None
    words = g.split()
    p = r.get("params") if isinstance(r.get("params"), dict) else {}
    if words and num(p.get(words[0])) is not None:
        return num(p[words[0]])
    m = re.search(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?", g)
    return float(m.group(0)) if m else None


def ok(r):
    return r.get("status") == "ok"


def stem(path, taken):
    base = os.path.basename(path)
    base = base[:-5] if base.endswith(".json") else base
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", base) or "results"
    unique, k = base, 2
    while unique in taken:
        unique, k = f"{base}-{k}", k + 1
    taken.add(unique)
    return unique


# ---- the plots ----


def phases_plot(plt, doc, path, out):
    records = [r for r in doc["records"] if ok(r) and not r.get("group")
               and any(phase_ms(r, p) is not None for p, _, _ in PHASES)]
    if not records:
        return None
    workloads = list(dict.fromkeys(r["workload"] for r in records))
    heights = [len([r for r in records if r["workload"] == w]) for w in workloads]
    fig, axes = plt.subplots(len(workloads), 1, squeeze=False,
                             figsize=(10, 1.6 + 0.45 * sum(heights) + 0.9 * len(workloads)),
                             gridspec_kw={"height_ratios": heights})
    # one OpenCL device: named once in the title, not on every bar
    devices = {device_label(r) for r in records if get(r, "device.platform")}
    for ax, w in zip(axes[:, 0], workloads):
        rows = [r for r in records if r["workload"] == w]
        labels = [name(r) + (" (compiles in run 0)" if get(r, "phases.compile.kind") == "lazy"
                             else "")
                  + ("" if len(devices) == 1 and get(r, "device.platform")
                     else "\n" + device_label(r)) for r in rows]
        left = [0.0] * len(rows)
        for phase, label, color in PHASES:
            widths = [phase_ms(r, phase) or 0.0 for r in rows]
            ax.barh(range(len(rows)), widths, left=left, color=color, label=label, height=0.6)
            left = [a + b for a, b in zip(left, widths)]
        for y, total in enumerate(left):
            ax.text(total, y, f" {total:.4g} ms", va="center", fontsize=8)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, max(left) * 1.18 if max(left) > 0 else 1)
        ax.set_title(f"{w}: run 0 by phase", fontsize=10, loc="left")
        ax.set_xlabel("ms")
        ax.grid(axis="x", alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=len(PHASES), frameon=False)
    on = f" on {devices.pop()}" if len(devices) == 1 else ""
    fig.suptitle(f"Where the first run goes{on}\n{os.path.basename(path)}", fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(out)
    plt.close(fig)
    return out


def runs_asked(r):
    """The runs the record was asked for: more than it ran when --budget-s cut it (schema 5)."""
    runs = r.get("runs") if isinstance(r.get("runs"), list) else []
    asked = num(get(r, "budget.runs_asked"))
    return max(len(runs), int(asked)) if asked else len(runs)


def total_with_overheads(r):
    runs = r.get("runs") if isinstance(r.get("runs"), list) else []
    times = [num(x.get("complete_ms")) for x in runs if isinstance(x, dict)]
    if not times or any(t is None for t in times):
        return None
    # the runs a budget skipped at the steady median, as clgauge's crossover counts them
    skipped = runs_asked(r) - len(times)
    median = num(get(r, "phases.steady.complete_ms.median"))
    extra = skipped * median if skipped > 0 and median is not None else 0.0
    return sum(phase_ms(r, p) or 0.0 for p in ("init", "compile", "upload", "download")) + \
        sum(times) + extra


def loop_alone(r):
    per, runs = steady_per_iter(r), r.get("runs")
    it = num(get(r, "work.iters_per_run"))
    if per is None or not it or not isinstance(runs, list):
        return None
    return per * it * runs_asked(r)


def crossover_plots(plt, doc, path, base, outdir):
    written = []
    sweep = [r for r in doc["records"] if ok(r) and sweep_size(r) is not None]
    for w in dict.fromkeys(r["workload"] for r in sweep):
        rows = [r for r in sweep if r["workload"] == w]
        series = {}
        for r in rows:
            series.setdefault((name(r), device_label(r)), []).append(r)
        if len({sweep_size(r) for r in rows}) < 2:
            continue
        fig, axes = plt.subplots(1, 2, figsize=(12, 5.2 + 0.2 * len(series)), sharey=True)
        what = rows[0].get("group", "").split()[0] if rows[0].get("group") else "size"
        sizes = sorted({sweep_size(r) for r in rows})
        devices = {dev for (_, dev), rs in series.items() if get(rs[0], "device.platform")}
        for ax, fn, title in ((axes[0], loop_alone, "the loop alone (steady state)"),
                              (axes[1], total_with_overheads,
                               "with context, compile, transfers and every run")):
            for (label, dev), rs in series.items():
                pts = sorted((sweep_size(r), fn(r)) for r in rs if fn(r) is not None)
                if not pts:
                    continue
                host = rs[0].get("reference") is True or rs[0].get("backend") == "cpu"
                shown = label if len(devices) == 1 and get(rs[0], "device.platform") else \
                    f"{label} ({dev})"
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        linestyle="--" if host else "-", linewidth=2 if host else 1.4,
                        label=shown)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xticks(sizes)
            ax.set_xticklabels([f"{s:g}" for s in sizes])
            ax.minorticks_off()
            ax.set_xlabel(what)
            ax.set_title(title, fontsize=10)
            ax.grid(alpha=0.3, which="both")
        axes[0].set_ylabel("ms for the whole job")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=min(4, len(labels)),
                   frameon=False)
        on = f" on {next(iter(devices))}" if len(devices) == 1 else ""
        fig.suptitle(f"{w}: time against {what}{on}\n{os.path.basename(path)}", fontsize=11)
        fig.tight_layout(rect=(0, 0.06 + 0.03 * ((len(labels) - 1) // 4), 1, 1))
        out = os.path.join(outdir, f"crossover-{base}-{re.sub(r'[^A-Za-z0-9_-]', '_', w)}.png")
        fig.savefig(out)
        plt.close(fig)
        written.append(out)
    return written


def drivers_plot(plt, docs, bases, outdir):
    """Series: each (file, device) pair; bars: each record key that two series share."""
    series, keys, values = [], [], {}
    for doc, base in zip(docs, bases):
        for r in doc["records"]:
            v = steady_per_iter(r)
            if not ok(r) or v is None or r.get("group"):
                continue
            d = r.get("device") or {}
            s = (base, d.get("name") or "(no device)", d.get("platform") or "",
                 d.get("driver_version") or "")
            k = (r["workload"], name(r), params_key(r))
            if s not in series:
                series.append(s)
            if k not in keys:
                keys.append(k)
            values.setdefault((k, s), v)
    shared = [k for k in keys if sum((k, s) in values for s in series) >= 2]
    series = [s for s in series if any((k, s) in values for k in shared)]
    if len(series) < 2 or not shared:
        return None
    workloads = list(dict.fromkeys(k[0] for k in shared))
    def present(k):
        return [s for s in series if (k, s) in values]

    heights = [sum(0.35 + 0.22 * len(present(k)) for k in shared if k[0] == w)
               for w in workloads]
    fig, axes = plt.subplots(len(workloads), 1, squeeze=False,
                             figsize=(10, 1.8 + sum(heights) + 0.8 * len(workloads)
                                      + 0.2 * len(series)),
                             gridspec_kw={"height_ratios": heights})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, w in zip(axes[:, 0], workloads):
        ks = [k for k in shared if k[0] == w]
        bar = 0.8 / max(len(present(k)) for k in ks)
        labelled = set()
        for j, k in enumerate(ks):
            ss = present(k)
            for i, s in enumerate(ss):
                y, x = j + (i - (len(ss) - 1) / 2) * bar, values[(k, s)]
                label = f"{s[0]}: {s[1]}" + (f" ({s[2]} {s[3]})" if s[2] else "")
                ax.barh([y], [x], height=bar * 0.9, color=colors[series.index(s) % len(colors)],
                        label=None if s in labelled else label)
                labelled.add(s)
                ax.text(x, y, f" {x:.4g}", va="center", fontsize=7)
        ax.set_yticks(range(len(ks)))
        ax.set_yticklabels([k[1] for k in ks], fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        # bars from a decade below the least figure: a log axis fitted tightly to close
        # figures would make a 3% difference look tenfold
        shown = [values[(k, s)] for k in ks for s in present(k)]
        ax.set_xlim(10 ** (math.floor(math.log10(min(shown))) - 1), max(shown) * 4)
        ax.set_xlabel("steady ms per iteration (log)")
        ax.set_title(w, fontsize=10, loc="left")
        ax.grid(axis="x", alpha=0.3, which="both")
    handles, labels = [], []
    for ax in axes[:, 0]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=2, frameon=False)
    fig.suptitle("Drivers and devices side by side: steady time per iteration", fontsize=11)
    fig.tight_layout(rect=(0, 0.03 + 0.035 * ((len(labels) + 1) // 2) * 6 / fig.get_figheight(),
                           1, 1))
    out = os.path.join(outdir, "drivers.png")
    fig.savefig(out)
    plt.close(fig)
    return out


def ceilings_of(doc, r):
    """The FP32 and bandwidth ceilings of the probe the record was held against: its "bound"
    names an index in the file's "probes" (clgauge probe, --probe, --probe-file)."""
    bound = r.get("bound")
    probes = doc.get("probes")
    if not isinstance(bound, dict) or not isinstance(probes, list):
        return None, None
    i = bound.get("probe")
    if not isinstance(i, int) or not 0 <= i < len(probes) or not isinstance(probes[i], dict):
        return None, None
    c = probes[i].get("ceilings") or {}
    return num(c.get("fp32_gflops")), num(c.get("bandwidth_gbs"))


def ceilings_plot(plt, doc, path, out):
    rows = []
    for r in doc["records"]:
        if not ok(r):
            continue
        peak_f, peak_b = ceilings_of(doc, r)
        f, b = num(get(r, "phases.steady.gflops")), num(get(r, "phases.steady.gbytes_per_s"))
        share_f = f / peak_f if f is not None and peak_f else None
        share_b = b / peak_b if b is not None and peak_b else None
        if share_f is not None or share_b is not None:
            rows.append((f"{r['workload']} {name(r)}\n{device_label(r)}", share_f, share_b))
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(10, 1.5 + 0.5 * len(rows)))
    ys = range(len(rows))
    ax.barh([y - 0.2 for y in ys], [100 * (r[1] or 0) for r in rows], height=0.38,
            color="#e6550d", label="GFLOP/s, % of the device's ceiling")
    ax.barh([y + 0.2 for y in ys], [100 * (r[2] or 0) for r in rows], height=0.38,
            color="#3182bd", label="GB/s, % of the device's ceiling")
    for y, r in zip(ys, rows):
        for dy, share in ((-0.2, r[1]), (0.2, r[2])):
            if share is not None:
                ax.text(100 * share, y + dy, f" {100 * share:.3g}%", va="center", fontsize=7)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.axvline(100, color="black", linewidth=0.8)
    ax.set_xlabel("% of the measured ceiling")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.suptitle(f"Share of the ceilings: {os.path.basename(path)}", fontsize=11)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out


def main(argv):
    prog = os.path.basename(sys.argv[0])
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1]
                                + "\nExit status: 0 when the plots were written, 2 for bad "
                                  "usage or a file that cannot be read as results, 1 when "
                                  "matplotlib is missing (on Debian: apt-get install "
                                  "python3-matplotlib).",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="RESULTS.json")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="folder for the PNG files (created if missing)")
    p.add_argument("--dpi", type=int, default=120, help="resolution (default 120)")
    a = p.parse_args(argv)
    if not 20 <= a.dpi <= 600:
        return fail(prog, f"--dpi {a.dpi}: out of range (20..600)")
    try:
        docs = [load(f) for f in a.files]
    except BadFile as e:
        return fail(prog, str(e))
    try:
        os.makedirs(a.output, exist_ok=True)
    except OSError as e:
        return fail(prog, f"-o '{a.output}': cannot create the folder: {e.strerror}")
    if not os.access(a.output, os.W_OK):
        return fail(prog, f"-o '{a.output}': the folder is not writable")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"{prog}: matplotlib is not installed ({e}); on Debian: apt-get install "
              "python3-matplotlib", file=sys.stderr)
        return 1
    plt.rcParams["savefig.dpi"] = a.dpi
    taken, bases, written = set(), [], []
    for path, doc in zip(a.files, docs):
        base = stem(path, taken)
        bases.append(base)
        written.append(phases_plot(plt, doc, path, os.path.join(a.output, f"phases-{base}.png")))
        written += crossover_plots(plt, doc, path, base, a.output)
        written.append(ceilings_plot(plt, doc, path,
                                     os.path.join(a.output, f"ceilings-{base}.png")))
    written.append(drivers_plot(plt, docs, bases, a.output))
    written = [w for w in written if w]
    for w in written:
        print(w)
    if not written:
        print(f"{prog}: no record with figures to plot (every record failed or was skipped)",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
