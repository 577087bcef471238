# cuBLAS FP32 (TF32 off) through PyTorch: ms per product and TFLOP/s, median of 10 timed runs of
# 20 products each, CUDA events.
import json, sys, torch
torch.backends.cuda.matmul.allow_tf32 = False
out = []
for m, k, n in [(1000,1000,1000),(1023,1023,1023),(1024,1024,1024),(1025,1025,1025),(2047,2047,2047),(4095,4095,4095),(4096,4096,4096),(777,1333,555)]:
    a = torch.randn(m, k, device='cuda'); b = torch.randn(k, n, device='cuda')
    for _ in range(5): c = a @ b
    torch.cuda.synchronize()
    ts = []
    for _ in range(10):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(20): c = a @ b
        e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / 20)
    ms = sorted(ts)[5]
    out.append({"m": m, "k": k, "n": n, "ms": ms, "tflops": 2*m*n*k/ms/1e9})
    print(f"cublas {m}x{k}x{n}: {ms:.4f} ms {2*m*n*k/ms/1e9:.1f} TFLOP/s")
json.dump({"torch": torch.__version__, "tf32": False, "results": out}, open(sys.argv[1], "w"), indent=1)
