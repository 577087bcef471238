"""cuBLAS (through PyTorch, TF32 off) on the two products of one big-preset mlp step
(batch 64, din 5000, hidden 5000): h1 = x w1 (64 x 5000 times 5000 x 5000) and g1 = x^T dz1
(5000 x 64 times 64 x 5000), median of 50 timed with CUDA events after 10 warm-ups.
  python3 products.py > products.json"""
import json

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda"
n, din, hid = 64, 5000, 5000
x = torch.randn(n, din, device=dev)
w1 = torch.randn(din, hid, device=dev)
dz1 = torch.randn(n, hid, device=dev)
g1 = torch.empty(din, hid, device=dev)


def median_us(fn):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(50):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000.0)
    times.sort()
    return times[len(times) // 2]


out = {
    "device": torch.cuda.get_device_name(0),
    "torch": torch.__version__,
    "h1 = x w1 (64x5000x5000)": median_us(lambda: torch.mm(x, w1)),
    "g1 = x^T dz1 (5000x64x5000)": median_us(lambda: torch.mm(x.t(), dz1, out=g1)),
    "w1 -= lr g1 fused (addmm_, 5000x64x5000)": median_us(
        lambda: w1.addmm_(x.t(), dz1, alpha=-1e-9)),
}
print(json.dumps(out, indent=1))
