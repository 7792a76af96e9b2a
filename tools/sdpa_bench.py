#!/usr/bin/env python3
"""torch SDPA BF16 decode attention (best available backend) for the issue-5 table.
Hq 32, Hkv 8, d 128, one query token; median of CUDA-event timings; prints CSV rows
sdpa,batch,ctx,us (rotates among KV sets so the data comes from HBM, not L2)."""
import sys, torch
import torch.nn.functional as F
shapes = [(1, 8192), (1, 32768), (1, 131072), (8, 32768), (8, 131072), (32, 32768), (32, 131072), (64, 32768)]
Hq, Hkv, d = 32, 8, 128
print("# torch", torch.__version__, torch.cuda.get_device_name())
for B, n in shapes:
    per = 2 * B * Hkv * n * d * 2
    nsets = max(1, min(4, int(4 * 50e6 // per) + 1))
    ks = [torch.randn(B, Hkv, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(nsets)]
    vs = [torch.randn(B, Hkv, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(nsets)]
    q = torch.randn(B, Hq, 1, d, device="cuda", dtype=torch.bfloat16)
    best = None
    for name, fn in [("gqa", lambda i: F.scaled_dot_product_attention(q, ks[i], vs[i], enable_gqa=True)),
                     ("expand", lambda i: F.scaled_dot_product_attention(q.view(B, Hkv, Hq // Hkv, d), ks[i], vs[i]))]:
        try:
            for i in range(5): fn(i % nsets)
            torch.cuda.synchronize()
            ts = []
            for i in range(30):
                e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
                e0.record(); fn(i % nsets); e1.record(); e1.synchronize()
                ts.append(e0.elapsed_time(e1) * 1000)
            ts.sort(); t = ts[len(ts) // 2]
            print(f"# {name} B={B} n={n}: {t:.1f} us", flush=True)
            if best is None or t < best: best = t
        except Exception as ex:
            print(f"# {name} failed: {ex}", flush=True)
    print(f"sdpa,{B},{n},{best:.1f}", flush=True)
    del ks, vs, q
    torch.cuda.empty_cache()
