#!/usr/bin/env python3
"""The three seed workloads of clgauge in PyTorch, written as the reports wrote them, timed by
phase and saved as clgauge results (schema clgauge.results/5, backend "pytorch"), so that
`clgauge compare` puts them beside clgauge's own records.

  mlp     the training loop of the PyTorch report: y = relu(relu(x w1) w2) w3, loss =
          sum((y - t)^2), SGD (lr 1e-9) on w1 and w2 by hand, w3's gradient accumulating, the
          loss read back every 1000 iterations; variant "eager", and on CUDA "cuda-graph" (one
          training step captured once and replayed: the least an eager framework can pay per
          step)
  linear  the DataLoader loop of the linear report: Linear(1000 -> 10) with cross-entropy, SGD
          lr 0.01, batch 32 reshuffled each epoch, every batch copied to the device (variant
          "dataloader"); on CUDA also "resident" (the dataset on the device, batches gathered
          there by index)
  matmul  the 10-product loop of the TensorFlow report at n=1000 (variant "eager"): each run
          times its products until they are enqueued (what a timer without synchronisation
          sees) and until torch.cuda.synchronize() returned

Each record runs in a process of its own, as each report was a program of its own, and its
phases are named as clgauge's: init (CUDA context creation), compile (the CUDA graph's warm-up
and capture), upload, first (run 0, with cuBLAS's set-up and the first kernels' loading), steady
(the runs after it: median, and enqueue-only), download, verify (matmul against float64, the
CUDA losses against the CPU run's). A failing record is written with status "error" and its
reason; the others still run.
"""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

SCHEMA = "clgauge.results/5"


def now_ms():
    return time.perf_counter() * 1e3


# ---- records in clgauge's results schema ----


def stats(samples):
    """clgauge's statistics of the steady runs: median, min, max, mean, sample stddev."""
    if not samples:
        return {"n": 0, "median": None, "min": None, "max": None, "mean": None, "stddev": None}
    return {"n": len(samples), "median": statistics.median(samples), "min": min(samples),
            "max": max(samples), "mean": statistics.fmean(samples),
            "stddev": statistics.stdev(samples) if len(samples) > 1 else 0.0}


def finite(v):
    return v is not None and isinstance(v, (int, float)) and math.isfinite(v)


def num(v):
    return float(v) if finite(v) else None


def per(v, n):
    return v / n if finite(v) and n > 0 else None


def rate(amount, ms):
    return amount / (ms * 1e6) if finite(amount) and finite(ms) and ms > 0 else None


class Record:
    """One record: a workload's variant on a device, filled phase by phase."""

    def __init__(self, workload, variant, transfer, device, params, flops, nbytes, iters):
        self.workload, self.variant, self.transfer = workload, variant, transfer
        self.device, self.params = device, params
        self.flops, self.nbytes, self.iters = flops, nbytes, iters
        self.reference = False
        self.status, self.reason = "ok", None
        self.init = self.compile = self.upload = self.download = None
        self.compile_kind = "none"
        self.runs = []  # (enqueue_ms, complete_ms, device_ms)
        self.losses, self.loss_every, self.loss_unit = [], 0, "iteration"
        self.rel_error = self.tolerance = self.loss_error = None
        self.host_cpu = self.host_wall = None
        self.launches = None

    def steady(self):
        return self.runs[1:]

    def to_json(self):
        steady = self.steady()
        complete = stats([r[1] for r in steady])
        enqueue = stats([r[0] for r in steady])
        device = stats([r[2] for r in steady if finite(r[2])])
        med = complete["median"]
        work = self.flops * self.iters if finite(self.flops) else None
        moved = self.nbytes * self.iters if finite(self.nbytes) else None
        no_device_time = None if device["n"] else (
            "runs on the host" if self.device["type"] == "CPU" else "no CUDA events")
        first = self.runs[0] if self.runs else (None, None, None)
        return {
            "workload": self.workload, "backend": "pytorch", "variant": self.variant,
            "transfer": self.transfer, "reference": self.reference, "group": None,
            "status": self.status, "reason": self.reason,
            # index and id number OpenCL devices (platform:device): PyTorch's have neither
            "device": dict(self.device, index=None, id=None), "params": self.params,
            "kernel": {"build_options": "", "params": []},
            # no time budget: every run asked for ran
            "budget": {"s": None, "runs_asked": len(self.runs), "cut": False},
            "work": {"flops_per_iter": num(self.flops), "bytes_per_iter": num(self.nbytes),
                     "iters_per_run": self.iters},
            "phases": {
                "init": {"ms": num(self.init)},
                "compile": {"ms": num(self.compile), "kind": self.compile_kind,
                            "driver_cache": None, "warning": None},
                "upload": {"ms": num(self.upload)},
                "first": {"enqueue_ms": num(first[0]), "complete_ms": num(first[1]),
                          "device_ms": num(first[2])},
                "steady": {"complete_ms": complete, "enqueue_ms": enqueue, "device_ms": device,
                           "device_unavailable": no_device_time,
                           "complete_ms_per_iter": per(med, self.iters),
                           "gflops": rate(work, med), "gbytes_per_s": rate(moved, med),
                           "device_gflops": rate(work, device["median"])},
                "download": {"ms": num(self.download)},
                "verify": {"rel_error": num(self.rel_error), "tolerance": num(self.tolerance),
                           "loss_rel_error": num(self.loss_error), "weights_rel_error": None},
                "host": {"cpu_ms": num(self.host_cpu), "wall_ms": num(self.host_wall)},
                "transfer": {"batch_upload_ms": None, "batch_compute_ms": None,
                             "upload_hidden_share": None, "batch_gather_host_ms": None},
                "iteration_split": [],
                "launches": {"per_iter": self.launches},
            },
            "losses": {"every": self.loss_every, "unit": self.loss_unit,
                       "values": [num(v) for v in self.losses]},
            "runs": [{"enqueue_ms": num(e), "complete_ms": num(c), "device_ms": num(d),
                      "iters": self.iters, "batch_upload_device_ms": None,
                      "batch_compute_device_ms": None, "batch_gather_host_ms": None}
                     for e, c, d in self.runs],
        }


# ---- devices ----


class Device:
    """A torch device with what a record says about it, its synchronisation and its events."""

    def __init__(self, torch, kind, index=0):
        self.torch, self.kind = torch, kind
        if kind == "cpu":
            self.dev = torch.device("cpu")
            # clgauge's host records name the host so: records of both line up in compare
            self.info = {"name": "host CPU", "vendor": "", "platform": "", "driver_version": "",
                         "opencl_version": "", "type": "CPU"}
        else:
            self.dev = torch.device("cuda", index)
            hip = getattr(torch.version, "hip", None)
            self.info = {"name": torch.cuda.get_device_name(index),
                         "vendor": "AMD" if hip else "NVIDIA Corporation",
                         "platform": "ROCm HIP" if hip else "CUDA",
                         "driver_version": nvidia_driver(),
                         "opencl_version": "", "type": "GPU"}

    @property
    def cuda(self):
        return self.kind == "cuda"

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize(self.dev)

    def event(self):
        if not self.cuda:
            return None
        e = self.torch.cuda.Event(enable_timing=True)
        e.record()
        return e


def nvidia_driver():
    try:
        with open("/proc/driver/nvidia/version") as f:
            for word in f.readline().split():
                if word[:1].isdigit() and "." in word:
                    return word
    except OSError:
        pass
    return ""


def timed_run(device, body):
    """One run: body() enqueues it; returns (enqueue_ms, complete_ms, device_ms)."""
    start = device.event()
    t0 = now_ms()
    body()
    t1 = now_ms()
    end = device.event()
    device.sync()
    t2 = now_ms()
    device_ms = start.elapsed_time(end) if start is not None else None
    return (t1 - t0, t2 - t0, device_ms)


def steady_host(rec, cpu0, wall0):
    rec.host_cpu = (time.process_time() - cpu0) * 1e3
    rec.host_wall = now_ms() - wall0


def relative(a, b):
    """max over i of |a_i - b_i| / |b_i|, clgauge's loss comparison."""
    if not a or len(a) != len(b):
        return None
    worst = 0.0
    for x, y in zip(a, b):
        if not (finite(x) and finite(y)):
            return None
        worst = max(worst, abs(x - y) / max(abs(y), 1e-30))
    return worst


# ---- mlp ----


def mlp_params(a):
    return {"batch": a.mlp_batch, "din": a.mlp_din, "hidden": a.mlp_hidden, "dout": a.mlp_dout,
            "iters": a.mlp_iters, "lr": a.mlp_lr, "update_w3": 0,
            "print_every": a.mlp_print_every, "seed": a.seed}


def mlp_work(a):
    N, D, H, O = a.mlp_batch, a.mlp_din, a.mlp_hidden, a.mlp_dout
    flops = (2 * N * (D * H + H * O + O * O) + 2 * N * (O * O + O * O) + 2 * N * (H * O + H * O)
             + 2 * N * D * H)
    nbytes = 4 * (N * D + N * O + 2 * D * H + 2 * H * O + O * O)
    return flops, nbytes


def mlp_inputs(torch, a):
    g = torch.Generator().manual_seed(a.seed)
    N, D, H, O = a.mlp_batch, a.mlp_din, a.mlp_hidden, a.mlp_dout
    return [torch.randn(*shape, generator=g) for shape in ((N, D), (N, O), (D, H), (H, O), (O, O))]


def mlp_chunks(a):
    """Runs of print_every iterations, the last holding the remainder."""
    P = min(a.mlp_print_every, a.mlp_iters)
    sizes = [P] * (a.mlp_iters // P)
    if a.mlp_iters % P:
        sizes.append(a.mlp_iters % P)
    return sizes


def mlp_step(torch, x, t, w1, w2, w3, lr, read=None):
    """One iteration of the report's loop; read(loss) where it prints the loss."""
    y = x.mm(w1).clamp(min=0).mm(w2).clamp(min=0).mm(w3)
    loss = (y - t).pow(2).sum()
    if read:
        read(loss)
    loss.backward()
    with torch.no_grad():
        w1 -= lr * w1.grad
        w2 -= lr * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()
    return loss


def mlp_upload(torch, device, a, rec):
    host = mlp_inputs(torch, a)
    t0 = now_ms()
    x, t, w1, w2, w3 = (h.to(device.dev) for h in host)
    device.sync()
    if device.cuda:
        rec.upload = now_ms() - t0
    for w in (w1, w2, w3):
        w.requires_grad_(True)
    return x, t, w1, w2, w3


def mlp_eager(torch, device, a, rec):
    x, t, w1, w2, w3 = mlp_upload(torch, device, a, rec)
    lr = a.mlp_lr

    def run(n):
        def body():
            for i in range(n):
                mlp_step(torch, x, t, w1, w2, w3, lr,
                         (lambda l: rec.losses.append(l.item())) if i == 0 else None)
        return body

    for c, n in enumerate(mlp_chunks(a)):
        if c == 1:
            cpu0, wall0 = time.process_time(), now_ms()
        rec.runs.append(timed_run(device, run(n)))
    if len(rec.runs) > 1:
        steady_host(rec, cpu0, wall0)


def mlp_cuda_graph(torch, device, a, rec):
    """The whole step captured as one CUDA graph, replayed once per iteration. The warm-up steps
    that capture needs change the weights, so they are put back before the timed runs."""
    x, t, w1, w2, w3 = mlp_upload(torch, device, a, rec)
    lr = a.mlp_lr
    t0 = now_ms()
    saved = [w.detach().clone() for w in (w1, w2, w3)]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            mlp_step(torch, x, t, w1, w2, w3, lr)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = mlp_step(torch, x, t, w1, w2, w3, lr)
    with torch.no_grad():
        for w, s in zip((w1, w2, w3), saved):
            w.copy_(s)
        w3.grad.zero_()
    device.sync()
    rec.compile = now_ms() - t0
    rec.compile_kind = "capture"

    def run(n):
        def body():
            for i in range(n):
                graph.replay()
                if i == 0:
                    rec.losses.append(loss.item())
        return body

    for c, n in enumerate(mlp_chunks(a)):
        if c == 1:
            cpu0, wall0 = time.process_time(), now_ms()
        rec.runs.append(timed_run(device, run(n)))
    if len(rec.runs) > 1:
        steady_host(rec, cpu0, wall0)


# ---- linear ----


def linear_params(a):
    return {"samples": a.linear_samples, "features": a.linear_features,
            "classes": a.linear_classes, "batch": a.linear_batch, "epochs": a.linear_epochs,
            "lr": a.linear_lr, "seed": a.seed}


def linear_batches(a):
    return -(-a.linear_samples // a.linear_batch)


def linear_work(a):
    S, F, C, nb = a.linear_samples, a.linear_features, a.linear_classes, linear_batches(a)
    return 4.0 * F * C * S / nb, 4.0 * (S / nb * F + 2.0 * C * F)


def linear_setup(torch, device, a, rec):
    g = torch.Generator().manual_seed(a.seed)
    X = torch.randn(a.linear_samples, a.linear_features, generator=g)
    y = torch.randint(0, a.linear_classes, (a.linear_samples,), generator=g)
    torch.manual_seed(a.seed)
    t0 = now_ms()
    model = torch.nn.Linear(a.linear_features, a.linear_classes).to(device.dev)
    device.sync()
    if device.cuda:
        rec.upload = now_ms() - t0
    opt = torch.optim.SGD(model.parameters(), lr=a.linear_lr)
    return X, y, model, opt, g


def linear_epochs(torch, device, a, rec, batches_of_epoch, model, opt):
    """Each epoch one run; its summed loss read back at its end, as clgauge's linear does."""
    F = torch.nn.functional

    def run():
        def body():
            losses = []
            for xb, yb in batches_of_epoch():
                loss = F.cross_entropy(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.detach())
            rec.losses.append(torch.stack(losses).sum().item())
        return body

    for e in range(a.linear_epochs):
        if e == 1:
            cpu0, wall0 = time.process_time(), now_ms()
        rec.runs.append(timed_run(device, run()))
    if len(rec.runs) > 1:
        steady_host(rec, cpu0, wall0)


def linear_dataloader(torch, device, a, rec):
    X, y, model, opt, g = linear_setup(torch, device, a, rec)
    from torch.utils.data import DataLoader, TensorDataset
    loader = DataLoader(TensorDataset(X, y), batch_size=a.linear_batch, shuffle=True,
                        generator=torch.Generator().manual_seed(a.seed))

    def batches():
        for xb, yb in loader:
            yield xb.to(device.dev), yb.to(device.dev)

    linear_epochs(torch, device, a, rec, batches, model, opt)


def linear_resident(torch, device, a, rec):
    X, y, model, opt, g = linear_setup(torch, device, a, rec)
    t0 = now_ms()
    Xd, yd = X.to(device.dev), y.to(device.dev)
    device.sync()
    rec.upload = (rec.upload or 0) + now_ms() - t0
    order = torch.Generator().manual_seed(a.seed)

    def batches():
        perm = torch.randperm(a.linear_samples, generator=order).to(device.dev)
        for start in range(0, a.linear_samples, a.linear_batch):
            idx = perm[start:start + a.linear_batch]
            yield Xd[idx], yd[idx]

    linear_epochs(torch, device, a, rec, batches, model, opt)


# ---- matmul ----


def matmul_params(a):
    n = a.matmul_n
    return {"m": n, "n": n, "k": n, "loops": a.matmul_loops, "runs": a.matmul_runs, "warmup": 0,
            "seed": a.seed}


def matmul_eager(torch, device, a, rec):
    n = a.matmul_n
    g = torch.Generator().manual_seed(a.seed)
    A = torch.randn(n, n, generator=g)
    B = torch.randn(n, n, generator=g)
    t0 = now_ms()
    Ad, Bd = A.to(device.dev), B.to(device.dev)
    device.sync()
    if device.cuda:
        rec.upload = now_ms() - t0
    out = {}

    def body():
        for _ in range(a.matmul_loops):
            out["C"] = Ad @ Bd

    for r in range(a.matmul_runs):
        if r == 1:
            cpu0, wall0 = time.process_time(), now_ms()
        rec.runs.append(timed_run(device, body))
    if len(rec.runs) > 1:
        steady_host(rec, cpu0, wall0)
    t0 = now_ms()
    C = out["C"].cpu()
    if device.cuda:
        rec.download = now_ms() - t0
    ref = A.double() @ B.double()
    rec.rel_error = float((C.double() - ref).norm() / ref.norm())
    rec.tolerance = 2 * n * 1.1920928955078125e-07  # 2 k FLT_EPSILON, as clgauge's matmul
    if not rec.rel_error <= rec.tolerance:
        rec.status = "error"
        rec.reason = f"relative error {rec.rel_error:.3g} above {rec.tolerance:.3g}"


# ---- the run ----

VARIANTS = [
    # workload, variant, transfer on cpu / on cuda (None: not run there), function
    ("mlp", "eager", (None, None), mlp_eager),
    ("mlp", "cuda-graph", (False, None), mlp_cuda_graph),
    # the DataLoader's batches come from ordinary host memory on either device (the copy is a
    # no-op on the CPU): one transfer mode, so that compare puts the two side by side
    ("linear", "dataloader", ("pageable", "pageable"), linear_dataloader),
    ("linear", "resident", (False, "resident"), linear_resident),
    ("matmul", "eager", (None, None), matmul_eager),
]


def new_record(a, workload, variant, transfer, device_info):
    if workload == "mlp":
        flops, nbytes = mlp_work(a)
        rec = Record(workload, variant, transfer, device_info, mlp_params(a), flops, nbytes,
                     min(a.mlp_print_every, a.mlp_iters))
        rec.loss_every = min(a.mlp_print_every, a.mlp_iters)
    elif workload == "linear":
        flops, nbytes = linear_work(a)
        rec = Record(workload, variant, transfer, device_info, linear_params(a), flops, nbytes,
                     linear_batches(a))
        rec.loss_every, rec.loss_unit = 1, "epoch"
    else:
        n = a.matmul_n
        rec = Record(workload, variant, transfer, device_info, matmul_params(a), 2.0 * n ** 3,
                     4.0 * 3 * n * n, a.matmul_loops)
    return rec


def cuda_init(torch):
    """Context creation: the first thing each CUDA record's process does."""
    t0 = now_ms()
    torch.cuda.init()
    torch.zeros(1, device="cuda").add_(1)
    torch.cuda.synchronize()
    return now_ms() - t0


def plan(a, cuda_ok):
    """(workload, variant, kind, transfer) to run, each workload's CPU records before its CUDA
    ones, so that those are there to verify these."""
    out = []
    for workload, variant, transfers, _ in VARIANTS:
        if workload not in a.workload:
            continue
        for kind in a.device:
            transfer = transfers[0 if kind == "cpu" else 1]
            if transfer is not False:
                out.append((workload, variant, kind, transfer))
    return out


def run_one(torch, a, workload, variant, kind):
    """One record, in a process of its own (see run_in_child)."""
    fn, transfer = [(v[3], v[2][0 if kind == "cpu" else 1]) for v in VARIANTS
                    if v[0] == workload and v[1] == variant][0]
    device = Device(torch, kind)
    rec = new_record(a, workload, variant, transfer, device.info)
    try:
        if device.cuda:
            rec.init = cuda_init(torch)
        fn(torch, device, a, rec)
    except Exception as e:  # one failing record never stops the others
        rec.status, rec.reason = "error", f"{type(e).__name__}: {e}".strip()
        rec.runs = []
    return rec.to_json()


NO_DEVICE = {"name": "", "vendor": "", "platform": "", "driver_version": "",
             "opencl_version": "", "type": ""}


def run_in_child(a, argv, workload, variant, kind, transfer):
    """Each record runs in a fresh process, as each report was a program of its own: its CUDA
    context, cuBLAS's set-up and the first kernels' loading fall into its own init and first
    run, not into whichever record ran first. A process that dies makes its record an error."""
    one = f"{workload}:{variant}:{kind}"
    child = subprocess.run([sys.executable, os.path.abspath(__file__)] + list(argv) +
                           ["--one", one], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    lines = child.stdout.strip().splitlines()
    if child.returncode == 0 and lines:
        try:
            return json.loads(lines[-1])
        except json.JSONDecodeError:
            pass
    rec = new_record(a, workload, variant, transfer, dict(NO_DEVICE)).to_json()
    last = (child.stderr.strip().splitlines() or ["no output"])[-1]
    rec["status"] = "error"
    rec["reason"] = f"the process running it exited with status {child.returncode}: {last}"
    return rec


def run_all(torch, a, argv):
    records, kinds, cpu_losses = [], [], {}
    cuda_ok = torch.cuda.is_available()
    for workload, variant, kind, transfer in plan(a, cuda_ok):
        if kind == "cuda" and not cuda_ok:
            rec = new_record(a, workload, variant, transfer, dict(NO_DEVICE)).to_json()
            rec["status"] = "skipped"
            rec["reason"] = "no CUDA device (torch.cuda.is_available() is False)"
        else:
            rec = run_in_child(a, argv, workload, variant, kind, transfer)
        verify_losses(rec, kind, cpu_losses)
        records.append(rec)
        kinds.append(kind)
    # a record whose process died does not know its device: another record on it does
    for rec, kind in zip(records, kinds):
        if rec["status"] == "error" and not rec["device"]["name"]:
            named = [r["device"] for r, k in zip(records, kinds) if k == kind
                     and r["device"]["name"]]
            if named:
                rec["device"] = dict(named[0])
    return records


def verify_losses(rec, kind, cpu_losses):
    """The CPU run of a training workload is the reference of its CUDA runs: the same inputs,
    the same batch orders, losses within 1e-3. The resident loop draws its own orders, so its
    losses are not comparable and are not checked."""
    if rec["workload"] not in ("mlp", "linear") or rec["variant"] == "resident" or \
            rec["status"] != "ok":
        return
    losses = rec["losses"]["values"]
    if kind == "cpu":
        if rec["variant"] in ("eager", "dataloader"):
            rec["reference"] = True
            cpu_losses[rec["workload"]] = losses
        return
    if rec["workload"] not in cpu_losses:
        return
    err = relative(losses, cpu_losses[rec["workload"]])
    verify = rec["phases"]["verify"]
    verify["rel_error"] = verify["loss_rel_error"] = err
    verify["tolerance"] = 1e-3
    if err is not None and not err <= 1e-3:
        rec["status"] = "error"
        rec["reason"] = f"losses differ from the CPU run's by {err:.3g}, above 1e-3"


def fmt(v):
    if not finite(v):
        return "-"
    return f"{v:.0f}" if v >= 10000 else f"{v:.4g}"


def print_table(records, out):
    rows = [("workload", "variant", "transfer", "device", "init", "compile", "upload", "first",
             "steady ms/it", "enqueue ms/it", "status")]
    for r in records:
        ph = r["phases"]
        rows.append((r["workload"], r["variant"], r["transfer"] or "-",
                     r["device"]["name"] or "-", fmt(ph["init"]["ms"]),
                     fmt(ph["compile"]["ms"]), fmt(ph["upload"]["ms"]),
                     fmt(ph["first"]["complete_ms"]), fmt(ph["steady"]["complete_ms_per_iter"]),
                     fmt(per(ph["steady"]["enqueue_ms"]["median"], r["work"]["iters_per_run"])),
                     r["status"]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [c.ljust(w) if i < 4 or i == len(row) - 1 else c.rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip(), file=out)
    for r in records:
        if r["status"] != "ok":
            print(f"{r['workload']}/{r['variant']} on {r['device']['name'] or 'CUDA'}: "
                  f"{r['status']}: {r['reason']}", file=out)


def write_whole(path, text):
    """The file appears complete or not at all: written beside the target, then renamed."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def positive(text):
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text}: must be at least 1")
    return v


def non_negative_float(text):
    v = float(text)
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"{text}: not a finite number of zero or more")
    return v


def names(allowed):
    def parse(text):
        items = text.split(",")
        for item in items:
            if item not in allowed:
                raise argparse.ArgumentTypeError(
                    f"'{item}': none of {', '.join(allowed)}")
        return items
    return parse


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=os.path.basename(sys.argv[0]),
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog="Defaults are the reports' sizes; smaller ones make quick runs. Exit status: 0 "
               "when every record is ok or skipped, 3 when one is 'error' (the file is still "
               "written), 2 for bad usage, 1 when PyTorch cannot be imported.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", metavar="FILE", help="write the records as clgauge results")
    p.add_argument("--device", type=names(["cpu", "cuda"]), default=None, metavar="LIST",
                   help="cpu, cuda or both (default: cpu, and cuda where PyTorch finds a GPU); "
                        "cuda without a GPU writes skipped records")
    p.add_argument("--workload", type=names(["mlp", "linear", "matmul"]),
                   default=["mlp", "linear", "matmul"], metavar="LIST",
                   help="mlp, linear, matmul (default: all)")
    p.add_argument("--threads", type=positive, help="CPU threads for PyTorch (default: its own)")
    p.add_argument("--seed", type=int, default=42, help="seed of the inputs (default 42)")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    # the process of one record (run_in_child): WORKLOAD:VARIANT:KIND, its record on stdout
    p.add_argument("--one", help=argparse.SUPPRESS)
    g = p.add_argument_group("mlp")
    g.add_argument("--mlp-batch", type=positive, default=64, metavar="N")
    g.add_argument("--mlp-din", type=positive, default=1024, metavar="D")
    g.add_argument("--mlp-hidden", type=positive, default=128, metavar="H")
    g.add_argument("--mlp-dout", type=positive, default=8, metavar="O")
    g.add_argument("--mlp-iters", type=positive, default=10000, metavar="I")
    g.add_argument("--mlp-print-every", type=positive, default=1000, metavar="P",
                   help="read the loss back every P iterations: one run each")
    g.add_argument("--mlp-lr", type=non_negative_float, default=1e-9, metavar="LR")
    g = p.add_argument_group("linear")
    g.add_argument("--linear-samples", type=positive, default=10000, metavar="S")
    g.add_argument("--linear-features", type=positive, default=1000, metavar="F")
    g.add_argument("--linear-classes", type=positive, default=10, metavar="C")
    g.add_argument("--linear-batch", type=positive, default=32, metavar="B")
    g.add_argument("--linear-epochs", type=positive, default=10, metavar="E",
                   help="epochs: one run each")
    g.add_argument("--linear-lr", type=non_negative_float, default=0.01, metavar="LR")
    g = p.add_argument_group("matmul")
    g.add_argument("--matmul-n", type=positive, default=1000, metavar="N", help="square size")
    g.add_argument("--matmul-loops", type=positive, default=10, metavar="L",
                   help="products per run")
    g.add_argument("--matmul-runs", type=positive, default=10, metavar="R", help="timed runs")
    return p.parse_args(argv)


def main(argv):
    a = parse_args(argv)
    if a.json:
        directory = os.path.dirname(os.path.abspath(a.json))
        if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
            print(f"{os.path.basename(sys.argv[0])}: --json cannot write '{a.json}'",
                  file=sys.stderr)
            return 2
    try:
        import torch
    except ImportError as e:
        print(f"{os.path.basename(sys.argv[0])}: PyTorch is not installed ({e}); on Debian: "
              "apt-get install python3-torch", file=sys.stderr)
        return 1
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.one:
        workload, variant, kind = a.one.split(":")
        print(json.dumps(run_one(torch, a, workload, variant, kind), allow_nan=False))
        return 0
    if a.device is None:
        a.device = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    a.device = list(dict.fromkeys(a.device))
    a.workload = list(dict.fromkeys(a.workload))
    t0 = now_ms()
    records = run_all(torch, a, argv)
    doc = {
        "schema": SCHEMA,
        "clgauge_version": None,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": " ".join([os.path.basename(sys.argv[0])] + list(argv)),
        "discovery_ms": None,
        "devices": [],  # the OpenCL devices of a run: none here (each record names its own)
        "crossovers": None,
        "generator": {"name": "pytorch_seeds.py", "pytorch": torch.__version__,
                      "cuda": torch.version.cuda, "python": platform.python_version(),
                      "cpu_threads": torch.get_num_threads(), "host": platform.processor()
                      or platform.machine(), "wall_ms": now_ms() - t0},
        "records": records,
    }
    if not a.quiet:
        threads = torch.get_num_threads()
        print(f"PyTorch {torch.__version__} ({threads} CPU thread{'s' if threads != 1 else ''}"
              f"{', CUDA ' + torch.version.cuda if torch.version.cuda else ''})")
        print_table(records, sys.stdout)
    if a.json:
        write_whole(a.json, json.dumps(doc, indent=1, allow_nan=False) + "\n")
    return 3 if any(r["status"] == "error" for r in records) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
