# tools/int2ref.py - shared by tools/center_error.py and tools/issue6/*.py: a safetensors reader (F32
# tensors), the SPEC section 4 INT2 codec on whole rows (one group per row), the normalised Hadamard
# matrix and RoPE in the cache's half-split pair order, in numpy.
import json, struct
import numpy as np
def load(f):
    raw=open(f,'rb').read(); n=struct.unpack('<Q',raw[:8])[0]; h=json.loads(raw[8:8+n]); base=8+n
    out={}
    for k,v in h.items():
        if k=='__metadata__': continue
        a,b=v['data_offsets']; out[k]=np.frombuffer(raw[base+a:base+b],dtype=np.float32).reshape(v['shape'])
    return out
def f16(x): return x.astype(np.float16).astype(np.float32)
def quant(x,c,gain=False):  # rows of 64, one group; gain: OSCAR_INT2_GAIN (oscar.h)
    d=x.shape[-1]; x0=x
    if c>0:
        a=np.sort(np.abs(x),axis=-1); idx=min(int(np.floor(np.float32(c)*d)),d-1); thr=a[...,idx:idx+1]
        x=np.clip(x,-thr,thr)
    mn=x.min(-1,keepdims=True); mx=x.max(-1,keepdims=True)
    s=f16((mx-mn)/np.float32(3)); m=f16(mn)
    with np.errstate(divide='ignore',invalid='ignore'):
        q=np.clip(np.floor((x-m)/s+0.5),0,3); q=np.where(s==0,0,q)
    if gain:  # (scale, min) times sum x^2 / sum x.x^ over the unclipped row, kept in [1/2, 2]
        xx=(x0.astype(np.float64)**2).sum(-1,keepdims=True); xh=(x0.astype(np.float64)*(m+q*s)).sum(-1,keepdims=True)
        with np.errstate(divide='ignore',invalid='ignore'):
            g=np.where((xh>0)&(xx>0),np.clip(xx/xh,0.5,2.0),1.0)
        s=f16((s*g).astype(np.float32)); m=f16((m*g).astype(np.float32))
    return m+q*s

def hadamard(d):  # SPEC section 3: H_2n = [[H_n, H_n], [H_n, -H_n]] / sqrt(2), float32
    H=np.array([[1.0]])
    while H.shape[0]<d: H=np.block([[H,H],[H,-H]])
    return (H/np.sqrt(d)).astype(np.float32)
def rope_funcs(n,window,d,base):
    """rope(x), unrope(x) for rows x [n, d] at positions t % window (dumps made with --window restart
    the positions in every window), pairs (i, i + d/2) turned by t * base^(-2i/d)"""
    half=d//2
    th=(np.arange(n)%window).astype(np.float64)[:,None]*base**(-2.0*np.arange(half)/d)
    cs=np.cos(th).astype(np.float32); sn=np.sin(th).astype(np.float32)
    def rope(x): return np.concatenate([x[:,:half]*cs-x[:,half:]*sn, x[:,:half]*sn+x[:,half:]*cs],1)
    def unrope(x): return np.concatenate([x[:,:half]*cs+x[:,half:]*sn, -x[:,:half]*sn+x[:,half:]*cs],1)
    return rope,unrope
