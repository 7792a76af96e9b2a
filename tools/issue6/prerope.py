#!/usr/bin/env python3
# tools/issue6/prerope.py - the offline look behind OSCAR_CENTER_ROPE (RESULTS.md, "Centering K before
# RoPE"): per layer, the keys' INT2 score error (trace(Sq Se) / trace(Sq Ck), as tools/center_error.py)
# with the rows as they are, less the fixed post-RoPE mean, and less RoPE(pos) of the pre-RoPE mean;
# SmolLM2-135M geometry (d 64, 3 KV heads, 30 layers, RoPE base 100000, HF half-split pairs). Needs numpy.
# usage: prerope.py DUMP ROT [cal_lo cal_hi ev_lo ev_hi] [clip]
import os,sys,numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from int2ref import load, quant  # noqa: E402
D=load(sys.argv[1]); R=load(sys.argv[2])
a=[int(x) for x in sys.argv[3:7]] if len(sys.argv)>=7 else [64,4096,4096,8192]
clip=float(sys.argv[7]) if len(sys.argv)>7 else 0.96
cal=slice(a[0],a[1]); ev=slice(a[2],a[3])
d=64; half=32; base=100000.0
n=D['layers.0.k'].shape[0]
pos=np.arange(n,dtype=np.float64)
th=pos[:,None]*base**(-2.0*np.arange(half)/d)
cs=np.cos(th).astype(np.float32); sn=np.sin(th).astype(np.float32)
def unrope(x):  # x [n, d] post-RoPE (HF half split) -> pre-RoPE
    x0=x[:,:half]; x1=x[:,half:]
    return np.concatenate([x0*cs+x1*sn, -x0*sn+x1*cs],1)
def rope(x):
    x0=x[:,:half]; x1=x[:,half:]
    return np.concatenate([x0*cs-x1*sn, x0*sn+x1*cs],1)
names=['none','post','pre']
tot={k:[] for k in names}
for l in range(30):
    q=D[f'layers.{l}.q']; k=D[f'layers.{l}.k']; Rk=R[f'layers.{l}.k.rotation']
    res={k_:[0,0] for k_ in names}
    for j in range(3):
        kj=k[:,j,:]
        qs=q[ev,3*j:3*j+3,:].reshape(-1,d)@Rk; Sq=qs.T@qs/len(qs)
        kc_=(kj[ev]-kj[ev].mean(0))@Rk; spread=np.trace(Sq@(kc_.T@kc_))/len(kc_)
        cen={'none':np.zeros_like(kj),'post':np.broadcast_to(kj[cal].mean(0),kj.shape),
             'pre':rope(np.broadcast_to(unrope(kj)[cal].mean(0),kj.shape).copy())}
        for nm in names:
            x=(kj-cen[nm])@Rk
            e=x[ev]-quant(x[ev],clip)
            res[nm][0]+=np.trace(Sq@(e.T@e))/len(e); res[nm][1]+=spread
    for nm in names: tot[nm].append(res[nm][0]/res[nm][1])
    print(l,' '.join(f'{nm} {tot[nm][-1]:.4f}' for nm in names),flush=True)
for nm in names: print(nm,'mean rel K score err %.4f'%np.mean(tot[nm]))
