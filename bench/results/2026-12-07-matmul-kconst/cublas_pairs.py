"""cuBLAS FP32 (TF32 off) through PyTorch at square sizes n and n+1 where clgauge's pipelined
default drops by more than 15% from one to the next: steady TFLOP/s over 100 products, three
rounds each, so that its own steps between neighbours stand beside clgauge's.
  usage: cublas_pairs.py OUT.json"""
import json
import sys

import torch

SIZES = [1056, 1057, 1248, 1249, 1536, 1537, 1792, 1793, 2048, 2049, 2496, 2497, 2560, 2561]
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "sizes": {}}
for n in SIZES:
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    c = torch.empty(n, n, device="cuda")
    for _ in range(20):
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    rounds = []
    for _ in range(3):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(100):
            torch.mm(a, b, out=c)
        end.record()
        torch.cuda.synchronize()
        us = start.elapsed_time(end) * 1000 / 100
        rounds.append(2 * n ** 3 / us / 1e6)
    out["sizes"][n] = {"tflops": rounds}
    print(n, " ".join("%.1f" % r for r in rounds), flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
