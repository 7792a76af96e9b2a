#!/usr/bin/env python3
"""Writes the GGUF seed corpus for the fuzzers (tests/fuzz/corpus/gguf): small, valid GGUF v2/v3
files with a byte-level BPE vocabulary, merges, typed keys and one tensor. Standard library only.
Usage: python3 tools/make_gguf_seeds.py OUTDIR"""
import os, struct, sys

def s(x):
    b = x.encode("utf-8")
    return struct.pack("<Q", len(b)) + b

def kv(key, t, payload):
    return s(key) + struct.pack("<I", t) + payload

def arr(t, items):
    return struct.pack("<IQ", t, len(items)) + b"".join(items)

def gguf(version, kvs, tensors, align=32):
    out = b"GGUF" + struct.pack("<I", version) + struct.pack("<QQ", len(tensors), len(kvs)) + b"".join(kvs)
    data, off = b"", 0
    for name, dims, ttype, blob in tensors:
        out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", ttype, off)
        pad = (-len(blob)) % align
        data += blob + b"\0" * pad
        off += len(blob) + pad
    out += b"\0" * ((-len(out)) % align)
    return out + data

def byte_alphabet():
    """GPT-2's bytes_to_unicode: printable bytes map to themselves, the others to 256 + n."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    out, n = [], 0
    for b in range(256):
        if b in keep:
            out.append(chr(b))
        else:
            out.append(chr(256 + n))
            n += 1
    return out

# a byte-level vocabulary: the 256 byte tokens, a few merges, one control token
toks = ["<|endoftext|>"] + byte_alphabet() + ["He", "ll", "llo", "Hello", "Ġw", "or", "ld"]
merges = ["H e", "l l", "ll o", "He llo", "Ġ w", "o r", "l d"]
base = [
    kv("general.architecture", 8, s("llama")),
    kv("llama.block_count", 4, struct.pack("<I", 1)),
    kv("llama.rope.freq_base", 6, struct.pack("<f", 10000.0)),
    kv("tokenizer.ggml.model", 8, s("gpt2")),
    kv("tokenizer.ggml.pre", 8, s("smollm")),
    kv("tokenizer.ggml.tokens", 9, arr(8, [s(t) for t in toks])),
    kv("tokenizer.ggml.merges", 9, arr(8, [s(m) for m in merges])),
    kv("tokenizer.ggml.token_type", 9, arr(5, [struct.pack("<i", 3 if i == 0 else 1) for i in range(len(toks))])),
    kv("tokenizer.ggml.bos_token_id", 4, struct.pack("<I", 0)),
    kv("tokenizer.ggml.add_bos_token", 7, struct.pack("<B", 0)),
]
emb = struct.pack("<" + "f" * 8, *[0.5 * i for i in range(8)])
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
open(os.path.join(out, "tiny-v3.gguf"), "wb").write(gguf(3, base, [("token_embd.weight", [4, 2], 0, emb)]))
open(os.path.join(out, "tiny-v2.gguf"), "wb").write(gguf(2, base[:4], [("x", [8], 0, emb)]))
open(os.path.join(out, "keys-only.gguf"), "wb").write(gguf(3, base, []))
