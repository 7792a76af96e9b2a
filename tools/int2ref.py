# tools/int2ref.py - shared by tools/center_error.py and tools/issue6/prerope.py: a safetensors reader
# (F32 tensors) and the SPEC section 4 INT2 codec on whole rows (one group per row), in numpy.
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
def quant(x,c):  # rows of 64, one group
    d=x.shape[-1]
    if c>0:
        a=np.sort(np.abs(x),axis=-1); idx=min(int(np.floor(np.float32(c)*d)),d-1); thr=a[...,idx:idx+1]
        x=np.clip(x,-thr,thr)
    mn=x.min(-1,keepdims=True); mx=x.max(-1,keepdims=True)
    s=f16((mx-mn)/np.float32(3)); m=f16(mn)
    with np.errstate(divide='ignore',invalid='ignore'):
        q=np.clip(np.floor((x-m)/s+0.5),0,3); q=np.where(s==0,0,q)
    return m+q*s
