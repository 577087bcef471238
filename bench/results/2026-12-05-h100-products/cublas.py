"""cuBLAS FP32 (TF32 off) through PyTorch at the big preset's two w1 products, the ceiling the
pipelined kernel is held against: steady us per product over 200 products, three rounds."""
import json
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "products": {}}
for name, (m, k, n) in {"forward": (64, 5000, 5000), "gradient": (5000, 64, 5000)}.items():
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    c = torch.empty(m, n, device="cuda")
    for _ in range(20):
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    rounds = []
    for _ in range(3):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(200):
            torch.mm(a, b, out=c)
        end.record()
        torch.cuda.synchronize()
        rounds.append(start.elapsed_time(end) * 1000 / 200)
    out["products"][name] = {"m": m, "k": k, "n": n, "us": rounds,
                             "tflops": [2 * m * k * n / us / 1e6 for us in rounds]}
json.dump(out, open(sys.argv[1], "w"), indent=1)
print(json.dumps(out, indent=1))
