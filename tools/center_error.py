#!/usr/bin/env python3
# tools/center_error.py - the offline look behind the K/V centering choice (RESULTS.md, "Centering"):
# per layer, the INT2 error of the rotated K rows weighted by the queries (trace(Sq Se) against the
# token-to-token spread trace(Sq Ck)) and of the V rows (against their spread), with and without the
# per-channel mean removed (means from tokens 64-2047, errors on tokens 2048-4095), SPEC codec,
# one group per row (d 64). Needs numpy.
#   oscar dump -m MODEL -f pride_and_prejudice.txt -c 4096 --window 4096 -o pnp4k.st
#   python3 tools/center_error.py pnp4k.st rotations/smollm2-135m-instruct.safetensors
import os,sys,numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from int2ref import load, quant  # noqa: E402
D=load(sys.argv[1]); R=load(sys.argv[2])
def H(d):
    h=np.array([[1.0]])
    while h.shape[0]<d: h=np.block([[h,h],[h,-h]])
    return (h/np.sqrt(d)).astype(np.float32)
Hd=H(64)
n=4096; cal=slice(64,2048); ev=slice(2048,4096)
tot={}
for l in range(30):
    q=D[f'layers.{l}.q']; k=D[f'layers.{l}.k']; v=D[f'layers.{l}.v']
    for name,Rk,Rv,kc,vc in [('osc96',R[f'layers.{l}.k.rotation'],R[f'layers.{l}.v.rotation'],0.96,0.92),('osc84',R[f'layers.{l}.k.rotation'],R[f'layers.{l}.v.rotation'],0.84,0.80),('had84',Hd,Hd,0.84,0.80)]:
        for cen in (0,1):
            ke=0; ks=0; ve=0; vs=0
            for j in range(3):
                kr=k[:,j,:]@Rk; vr=v[:,j,:]@Rv
                qs=q[ev,3*j:3*j+3,:].reshape(-1,64)@Rk
                Sq=qs.T@qs/len(qs)
                mk=kr[cal].mean(0) if cen else 0*kr[0]; mv=vr[cal].mean(0) if cen else 0*vr[0]
                ek=(kr[ev]-mk)-quant(kr[ev]-mk,kc); ev_=(vr[ev]-mv)-quant(vr[ev]-mv,vc)
                kc_=kr[ev]-kr[ev].mean(0)
                ke+=np.trace(Sq@(ek.T@ek))/len(ek); ks+=np.trace(Sq@(kc_.T@kc_))/len(kc_)
                ve+=(ev_**2).sum(1).mean(); vs+=((vr[ev]-vr[ev].mean(0))**2).sum(1).mean()
            tot.setdefault((name,cen),[]).append((ke/ks,ve/vs))
    if l%5==0 or l==29:
        print(l, ' '.join(f"{nm}{c}: K {tot[(nm,c)][-1][0]:.4f} V {tot[(nm,c)][-1][1]:.4f}" for nm,c in tot), flush=True)
for key,v in tot.items():
    a=np.array(v); print(key,'mean K rel score err %.4f  V rel mse %.4f'%tuple(a.mean(0)))
