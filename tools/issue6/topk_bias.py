#!/usr/bin/env python3
# tools/issue6/topk_bias.py - what a K clip does to the keys a query attends to most (RESULTS.md, "Prompts
# prefilled in bf16"): per layer (every 3rd) and KV head of an 8,192 x 2 calibration dump, K rows centered
# before RoPE (the pre-RoPE mean of window 1), turned by U.H (U: eigenvectors of window 1's query
# covariance, as the fitted rotation), quantised by the SPEC codec (one group per row) at each clip; for 64
# queries from the end of window 2 over its history keys (positions 64-7935): the score error (q . k^ - q . k)
# / sqrt(d) over all keys (RMS) and over each query's 8 highest-scoring keys (mean = bias, and RMS); each clip
# with the SPEC's encoder and, "+ gain", with OSCAR_INT2_GAIN (RESULTS.md, "The gain encoder").
# SmolLM2-135M geometry (d 64, 3 KV heads, 9 query heads, RoPE base 100000, HF half-split pairs). Needs numpy.
# usage: topk_bias.py DUMP (oscar dump -c 16384 --window 8192)
import os, sys, numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from int2ref import load, quant, hadamard, rope_funcs  # noqa: E402
D = load(sys.argv[1])
d, base, W = 64, 100000.0, 8192
n = D['layers.0.k'].shape[0]
rope, unrope = rope_funcs(n, W, d, base)
H = hadamard(d)
cal = np.r_[64:W]; keys = np.r_[W + 64:W + 7936]
rng = np.random.default_rng(0)
clips = ((0.96, 0), (0.92, 0), (0.88, 0), (-1.0, 0), (0.96, 1), (0.92, 1), (0.88, 1), (0.84, 1))  # (K clip, gain encoder)
out = {c: {'all_rms': [], 'top8_bias': [], 'top8_rms': []} for c in clips}
for l in range(0, 30, 3):
    q, k = D[f'layers.{l}.q'], D[f'layers.{l}.k']
    qc = [q[cal, 3 * j:3 * j + 3, :].reshape(-1, d).astype(np.float64) for j in range(3)]
    Sq = sum(a.T @ a / len(a) for a in qc) / 3  # the K target of section 2: the mean of the groups' query covariances
    R = (np.linalg.eigh(Sq)[1] @ H).astype(np.float32)
    for j in range(3):
        kj = k[:, j, :]
        kc = kj - rope(np.broadcast_to(unrope(kj)[cal].mean(0), kj.shape).copy())
        Q = q[rng.choice(np.r_[W + 7936:2 * W], 64, replace=False), 3 * j:3 * j + 3, :].reshape(-1, d).astype(np.float64) / np.sqrt(d)
        x = kc[keys] @ R
        top = np.argsort(-(Q @ kj[keys].astype(np.float64).T), axis=1)[:, :8]
        for c in clips:
            E = Q @ ((quant(x, *c) - x).astype(np.float64) @ R.T).T
            Et = np.take_along_axis(E, top, 1)
            out[c]['all_rms'].append(np.sqrt((E ** 2).mean())); out[c]['top8_bias'].append(Et.mean()); out[c]['top8_rms'].append(np.sqrt((Et ** 2).mean()))
for c in clips:
    print(f'K clip {c[0]:5}{" + gain" if c[1] else "       "}: score error RMS over all keys {np.mean(out[c]["all_rms"]):.4f}; over each query\'s top 8 keys: '
          f'bias {np.mean(out[c]["top8_bias"]):+.4f}, RMS {np.mean(out[c]["top8_rms"]):.4f} (layers 0, 3, ..., 27; 3 KV heads each)')
