#!/usr/bin/env python3
# tools/issue6/balance.py - measured offline before the K balance was built (oscar_balance_fit, RESULTS.md "The K balance"): a diagonal
# balance s between the query covariance's eigenbasis U and the Hadamard H. K rows (centered before RoPE)
# are stored as k U diag(s) H, queries turned by U diag(1/s) H, so scores are exact in exact arithmetic while
# the INT2 error (isotropic after H) is weighted by the query's energy per direction: s_i^2 ~ (lambda_i /
# kappa_i)^alpha with lambda the query and kappa the centered keys' variance along U_i (alpha 1/2 minimises
# (sum s^2 kappa)(sum lambda / s^2)). Per layer of an 8,192 x 2 dump: fit on window 1, the relative K score
# error trace(Sq Se) / trace(Sq Ck) on window 2 at positions 4096-8191 and 1024-4095, U.H vs U.diag(s).H.
# SmolLM2-135M geometry (d 64, 3 KV heads, RoPE base 100000, HF half-split pairs). Needs numpy.
# usage: balance.py DUMP [clip (0.96)] [alpha (0.5)] [gain: 1 for OSCAR_INT2_GAIN (0)]
import os, sys, numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from int2ref import load, quant, hadamard, rope_funcs  # noqa: E402
D = load(sys.argv[1])
clip = float(sys.argv[2]) if len(sys.argv) > 2 else 0.96
alpha = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5
gain = len(sys.argv) > 4 and sys.argv[4] == '1'
d, base, W = 64, 100000.0, 8192
n = D['layers.0.k'].shape[0]
rope, unrope = rope_funcs(n, W, d, base)
H = hadamard(d)
cal = np.r_[64:W]
evs = {'4096-8191': np.r_[W + 4096:2 * W], '1024-4095': np.r_[W + 1024:W + 4096]}
res = {(t, e): [] for t in ('U.H', 'U.s.H') for e in evs}
for l in range(30):
    q, k = D[f'layers.{l}.q'], D[f'layers.{l}.k']
    Sq = sum((lambda a: a.T @ a / len(a))(q[cal, 3 * j:3 * j + 3, :].reshape(-1, d).astype(np.float64)) for j in range(3)) / 3
    lam, U = np.linalg.eigh(Sq)
    lam = np.maximum(lam, 1e-12)
    kcs = [k[:, j, :] - rope(np.broadcast_to(unrope(k[:, j, :])[cal].mean(0), (n, d)).copy()) for j in range(3)]
    kap = np.maximum(sum(((kc[cal].astype(np.float64) @ U) ** 2).mean(0) for kc in kcs) / 3, 1e-12)
    s = (lam / kap) ** (alpha / 2); s /= s.max()
    for tag, Kt, Qt in (('U.H', U @ H, U @ H), ('U.s.H', (U * s) @ H, (U / s) @ H)):
        for e, ev in evs.items():
            num = den = 0.0
            for j in range(3):
                qs = q[ev, 3 * j:3 * j + 3, :].reshape(-1, d).astype(np.float64)
                x = (kcs[j][ev].astype(np.float64) @ Kt).astype(np.float32)
                err = (x - quant(x, clip, gain)).astype(np.float64)
                qq = qs @ Qt
                num += np.trace((qq.T @ qq / len(qq)) @ (err.T @ err)) / len(err)
                k0 = k[ev, j, :].astype(np.float64); k0 -= k0.mean(0)
                den += np.trace((qs.T @ qs / len(qs)) @ (k0.T @ k0)) / len(k0)
            res[(tag, e)].append(num / den)
for e in evs:
    a, b = np.mean(res[('U.H', e)]), np.mean(res[('U.s.H', e)])
    print(f'positions {e}: relative K score error, mean of 30 layers: U.H {a:.4f}, U.diag(s).H {b:.4f} ({100 * (b / a - 1):+.1f} %)')
