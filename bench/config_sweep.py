#!/usr/bin/env python3
"""Random kernel parameters of clgauge's hand-written kernels, each run verified against the
host reference: a check of the parameter space on one device and driver, beyond the fixed cases
of the tests (a driver not seen in CI, a GPU).

  bench/config_sweep.py --clgauge build/clgauge --device pocl --workload mlp --count 60 --seed 7

Each case draws a shape and a set of overrides, runs `clgauge WORKLOAD ... --kernel-param ...
--json FILE` and sorts its record into
  ok       the run was verified against the reference;
  refused  the overrides were refused by name (exit status 3, a reason naming --kernel-param),
           or the device cannot take them (status 'unsupported');
  FAILED   anything else: a mismatch with the reference, a driver error, a crash, a hang (past
           --case-timeout), no results file.
One line per case (its command, so that a failure can be run again by hand), then a summary.
Exit status 1 when a case failed, 0 otherwise. The same seed draws the same cases.

Workloads: mlp (cl/fused: launch A's blocking and switches, launch R, the rows' pitch, the
split with launch G's blocking, the products step with its split-k, the persistent path),
linear (cl, every transfer mode with its group, ramp, gathering threads and persistent
switches), matmul (cl/pipelined: block, k-slice, per-item outputs, vectors, padding).

With --oclgrind SHAPE each case runs on Oclgrind's simulated device instead (shapes of a few
dozen rows, since it simulates every work-item), through tests/oclgrind_run.sh with its checks
of data races, out-of-bounds and uninitialised accesses and API misuse: a report fails the case.
SHAPE gives the device a GPU's limits (wg256, wg64) or the simulator's own (simulator).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

# (name, values): each is drawn for a case with probability DRAW_SHARE, else left to the default
MLP_PARAMS = [("TX", [1, 2, 4, 8, 16, 32]), ("TY", [1, 2, 4, 8, 16]), ("R", [1, 2, 3, 4, 8]),
              ("RN", [1, 2, 3, 4, 8]), ("KC", [1, 2, 3, 5, 8, 16]), ("VW", [1, 2, 4]),
              ("PF", [0, 1]), ("STAGE", [0, 1]), ("DB", [0, 1]), ("FWR", [0, 1, 2]),
              ("UR", [1, 2, 3, 8]), ("WPF", [0, 1]), ("THREE", [0, 1]), ("DZ1A", [0, 1]),
              ("RC", [1, 3, 8, 16, 64]),
              ("STRATEGY", [0, 1]), ("PERSIST", [0, 1, 2]), ("PAD", [0, 1]),
              ("WGB", [1, 2, 32, 256]), ("BLOC", [0, 1, 2]), ("SPLIT", [0, 1])]
# drawn where SPLIT=1: launch G's blocking (g1 and the w1 update in a launch of their own)
MLP_SPLIT_PARAMS = [("GTX", [1, 2, 4, 8, 16]), ("GTY", [1, 2, 4, 8]), ("GR", [1, 2, 3, 4, 8]),
                    ("GRN", [1, 2, 3, 4, 8]), ("GKC", [1, 3, 8, 16, 64]), ("GUR", [1, 2, 3])]
# drawn where STRATEGY=1: the products step's split-k and loss
MLP_PRODUCT_PARAMS = [("SPLITK", [0, 1, 2]), ("DZ1P", [0, 1]), ("SPLITS", [0, 1, 3, 8]),
                      ("LOSSG", [1, 2, 7, 1024])]
LINEAR_PARAMS = [("GROUP", [1, 2, 3, 8, 32]), ("RAMP", [0, 1]), ("THREADS", [1, 2, 3, 7]),
                 ("PERSIST", [0, 1, 2]), ("SLOTS", [2, 3, 4])]
MATMUL_PARAMS = [("MWG", [8, 16, 32, 48, 64, 96, 128]), ("NWG", [8, 16, 32, 64, 96, 128]),
                 ("KWG", [1, 2, 4, 8, 16, 32]), ("WM", [1, 2, 4, 8]), ("WN", [1, 2, 4, 8]),
                 ("VW", [1, 2, 4]), ("PAD", [0, 1, 4])]
DRAW_SHARE = 0.4


def draw_params(rng, table, fixed):
    """Each parameter of the table drawn or left to the default; those of `fixed` (--fixed)
    given in every case (drawn all the same, so that a seed draws the same shapes with or
    without them)."""
    drawn = {name: rng.choice(values) for name, values in table if rng.random() < DRAW_SHARE}
    drawn.update((k, v) for k, v in fixed.items() if k in dict(table))
    return drawn


def mlp_case(rng, small, fixed):
    if small:
        shape = ["--batch", rng.choice([1, 2, 5, 9, 13, 17]),
                 "--din", rng.choice([1, 7, 19, 37, 40]),
                 "--hidden", rng.choice([1, 5, 16, 23, 41]),
                 "--dout", rng.choice([1, 3, 5]), "--iters", 2, "--print-every", 1]
    else:
        shape = ["--batch", rng.choice([1, 2, 7, 8, 16, 17, 33, 64, 65, 129]),
                 "--din", rng.choice([1, 5, 16, 37, 130, 257]),
                 "--hidden", rng.choice([1, 7, 16, 41, 129, 300]),
                 "--dout", rng.choice([1, 3, 8, 17, 64]), "--iters", 3, "--print-every", 1]
    params = draw_params(rng, MLP_PARAMS, fixed)
    if params.get("SPLIT") == 1:
        params.update(draw_params(rng, MLP_SPLIT_PARAMS, fixed))
    if params.get("STRATEGY") == 1:
        params.update(draw_params(rng, MLP_PRODUCT_PARAMS, fixed))
    if rng.random() < 0.3:
        shape.append("--update-w3")
    # more than one row tile per work-group only where the batch fits one (else refused)
    if rng.random() < 0.2:
        params["TPG"] = rng.choice([2, 3])
    return ["mlp", "--backend", "cl", "--variant", "fused"] + shape, params


def linear_case(rng, small, fixed):
    if small:
        shape = ["--samples", rng.choice([1, 2, 7, 33, 100]),
                 "--batch", rng.choice([1, 3, 8, 32]),
                 "--features", rng.choice([1, 2, 5, 17, 70]),
                 "--classes", rng.choice([1, 2, 3, 5]), "--epochs", rng.choice([1, 2])]
    else:
        shape = ["--samples", rng.choice([1, 2, 7, 33, 100, 257, 1000]),
                 "--batch", rng.choice([1, 3, 8, 32, 64, 200]),
                 "--features", rng.choice([1, 2, 5, 17, 100, 1001]),
                 "--classes", rng.choice([1, 2, 3, 10, 17]), "--epochs", rng.choice([1, 2, 3])]
    transfer = rng.choice(["pinned", "pinned", "resident", "pageable"])
    shape += ["--transfer", transfer]
    if small:
        # one record a case (Oclgrind's runs are checked by their count of records): resident
        # has the epoch variant beside fused
        variant = rng.choice(["fused", "epoch"]) if transfer == "resident" else "fused"
        shape += ["--variant", variant]
    return ["linear", "--backend", "cl"] + shape, draw_params(rng, LINEAR_PARAMS, fixed)


def matmul_case(rng, small, fixed):
    if small:
        shape = ["--m", rng.choice([1, 17, 33, 64]), "--n", rng.choice([1, 19, 64, 65]),
                 "--k", rng.choice([1, 23, 64, 100]), "--runs", 1, "--loops", 1]
    else:
        shape = ["--m", rng.choice([1, 17, 64, 97, 128, 255]),
                 "--n", rng.choice([1, 19, 64, 100, 130, 256]),
                 "--k", rng.choice([1, 23, 64, 129, 300]), "--runs", 1, "--loops", 2]
    return ["matmul", "--backend", "cl", "--variant", "pipelined"] + shape, \
        draw_params(rng, MATMUL_PARAMS, fixed)


CASES = {"mlp": mlp_case, "linear": linear_case, "matmul": matmul_case}
# the parameter tables each workload draws from, for --fixed's names
TABLES = {"mlp": [MLP_PARAMS, MLP_SPLIT_PARAMS, MLP_PRODUCT_PARAMS], "linear": [LINEAR_PARAMS],
          "matmul": [MATMUL_PARAMS]}

# Oclgrind's device shapes, as tests/CMakeLists.txt's CLGAUGE_OCLGRIND_* give them: the simulator's
# own limits, and two GPUs' work-group and local-memory limits
OCLGRIND_SHAPES = {"simulator": [], "wg256": ["--max-wgsize", "256", "--local-mem-size", "32768"],
                   "wg64": ["--max-wgsize", "64", "--local-mem-size", "16384"]}
OCLGRIND_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests",
                            "oclgrind_run.sh")


def run_case(args, index, rng, workdir):
    argv, params = CASES[args.workload](rng, args.oclgrind is not None, args.fixed)
    if params:
        argv += ["--kernel-param", ",".join("%s=%d" % kv for kv in params.items())]
    if args.oclgrind is not None:
        return run_oclgrind_case(args, [str(a) for a in argv])
    out = os.path.join(workdir, "case-%d.json" % index)
    cmd = [args.clgauge] + [str(a) for a in argv] + ["--device", args.device]
    try:
        proc = subprocess.run(cmd + ["--json", out], capture_output=True, text=True,
                              timeout=args.case_timeout)
    except subprocess.TimeoutExpired:
        return "FAILED", "no end within %d s" % args.case_timeout, cmd
    try:
        with open(out) as f:
            records = json.load(f)["records"]
    except (OSError, ValueError, KeyError) as e:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["(no output)"]
        return "FAILED", "exit status %d, no results (%s): %s" % (proc.returncode, e, tail[0]), cmd
    if not records:
        return "FAILED", "exit status %d, no record" % proc.returncode, cmd
    bad = [r for r in records if r["status"] != "ok"]
    if not bad:
        return "ok", "", cmd
    reason = bad[0].get("reason") or ""
    if bad[0]["status"] == "unsupported" or (proc.returncode == 3 and "--kernel-param" in reason):
        return "refused", reason, cmd
    return "FAILED", "%s: %s" % (bad[0]["status"], reason), cmd


def run_oclgrind_case(args, argv):
    """The case on Oclgrind through tests/oclgrind_run.sh, which fails on any report of the
    simulated device (a data race, an out-of-bounds or uninitialised access, API misuse) and
    on a record not verified."""
    cmd = [OCLGRIND_RUN, "1"] + OCLGRIND_SHAPES[args.oclgrind] + ["--", args.clgauge] + argv
    shown = [args.clgauge] + argv + ["--device", "oclgrind (%s)" % args.oclgrind]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.case_timeout)
    except subprocess.TimeoutExpired:
        return "FAILED", "no end within %d s" % args.case_timeout, shown
    if proc.returncode == 0:
        return "ok", "", shown
    out = proc.stdout
    # the script shows the command, clgauge's exit status and output; 3 (refused) or 4 (nothing
    # ran: unsupported) with a reason naming --kernel-param is a refusal, as outside Oclgrind
    reasons = [l.strip() for l in out.splitlines()
               if "--kernel-param " in l and not l.startswith("command:")]
    if ("exit status: 3" in out or "exit status: 4" in out) and reasons:
        return "refused", reasons[-1], shown
    if proc.returncode == 77:
        return "FAILED", "oclgrind is not installed", shown
    # the verdict, then the first line of Oclgrind's report or of clgauge's error
    lines = out.splitlines()
    verdict = next((l for l in lines if l.startswith("FAIL")), "exit status %d" % proc.returncode)
    start = next((i for i, l in enumerate(lines) if l.startswith("--- stderr")), len(lines))
    first = next((l.strip() for l in lines[start + 1:] if l.strip() and l != "---"), "") or \
        next((l.strip() for l in lines[:start] if ": error: " in l), "")
    return "FAILED", verdict + (": " + first if first else ""), shown


def parse_fixed(ap, text, workload):
    known = {name for table in TABLES[workload] for name, _ in table}
    fixed = {}
    for item in filter(None, text.split(",")):
        name, eq, value = item.partition("=")
        if not eq or not value.lstrip("-").isdigit():
            ap.error("--fixed %s: not NAME=VALUE with an integer VALUE" % item)
        if name not in known:
            ap.error("--fixed %s: %s is none of the drawn parameters (%s)"
                     % (item, name, " ".join(sorted(known))))
        fixed[name] = int(value)
    return fixed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clgauge", default="build/clgauge", help="the clgauge binary")
    ap.add_argument("--device", default="0", help="clgauge's --device selector (default 0)")
    ap.add_argument("--workload", choices=sorted(CASES), default="mlp")
    ap.add_argument("--count", type=int, default=40, help="cases to run (default 40)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the draws (default 1)")
    ap.add_argument("--case-timeout", type=int, default=600,
                    help="seconds a case may take before it counts as hung (default 600)")
    ap.add_argument("--fixed", default="", metavar="NAME=VALUE,...",
                    help="parameters given in every case (the others drawn), e.g. SPLIT=1: a "
                         "path the draws reach too seldom")
    ap.add_argument("--oclgrind", choices=sorted(OCLGRIND_SHAPES),
                    help="run each case on Oclgrind, as a device of that shape, at smaller sizes, "
                         "failing it on any report (--device is then unused)")
    args = ap.parse_args()
    args.fixed = parse_fixed(ap, args.fixed, args.workload)
    if args.count < 1:
        ap.error("--count %d: at least one case" % args.count)
    if not os.access(args.clgauge, os.X_OK):
        ap.error("--clgauge %s: not an executable file" % args.clgauge)
    rng = random.Random(args.seed)
    tally = {"ok": 0, "refused": 0, "FAILED": 0}
    with tempfile.TemporaryDirectory(prefix="clgauge-sweep.") as workdir:
        for i in range(args.count):
            verdict, why, cmd = run_case(args, i, rng, workdir)
            tally[verdict] += 1
            print("%3d %-7s %s%s" % (i, verdict, " ".join(cmd[1:]),
                                      "\n      " + why if why else ""), flush=True)
    where = "oclgrind (%s)" % args.oclgrind if args.oclgrind else args.device
    print("%s on %s, seed %d: %d ok, %d refused, %d failed" % (
        args.workload, where, args.seed, tally["ok"], tally["refused"], tally["FAILED"]))
    return 1 if tally["FAILED"] else 0


if __name__ == "__main__":
    sys.exit(main())
