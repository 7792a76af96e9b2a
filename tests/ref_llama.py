#!/usr/bin/env python3
"""Independent reference for the C forward pass (cli/llama.c): a Llama forward pass in numpy,
float64, straight from the GGUF file via the `gguf` package's reader and dequantisers.

It deliberately takes the other road wherever the C code could share a mistake with it:
  * weights are dequantised by gguf.quants (not by a port of the C kernels);
  * the Q/K rows are un-permuted back to the Hugging Face layout (undoing llama.cpp's
    convert_hf_to_gguf permute) and RoPE is applied HF-style (rotate_half over two halves),
    where the C code rotates adjacent pairs in GGUF's layout;
  * attention is a full causal softmax over the whole sequence, recomputed from scratch for
    every generated token (no cache).

Output (binary, little-endian): b"OREF", int32 n_prompt, n_vocab, n_gen, int32 prompt[n_prompt],
int32 greedy[n_gen], float32 logits[n_prompt][n_vocab] (the logits after every prompt token).

usage: ref_llama.py MODEL.gguf OUT.bin N_GEN TOKEN_ID [TOKEN_ID ...]
       ref_llama.py --tokenizer MODEL.gguf TEXT_OUT IDS_OUT
The second form builds a Hugging Face `tokenizers` BPE from the GGUF vocabulary and merges with
SmolLM2's pre-tokenizer (Digits(individual) + ByteLevel), writes a text full of edge cases to
TEXT_OUT and its ids (one line, space separated) to IDS_OUT, for the C tokenizer to match.
"""
import struct
import sys

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize


def field(r, key):
    f = r.fields[key]
    v = f.parts[f.data[0]]
    return v[0] if len(v) == 1 else bytes(v).decode()


TOKENIZER_TEXT = (
    "Hello, we can use the tokenizer.\n\nIt's 2024; I'M sure they'll say we'd've gone... "
    "Numbers: 1234567, 3.14159, -42, 1e10, 0x1F, \u0663\u0664\u0665 \u00bd \u216b 10\u00b2\n"
    "  two spaces,   three, \ttab\t\tand\r\nCRLF   \n\n\n   trailing   \n"
    "Unicode: caf\u00e9 na\u00efve e\u0301 \u00fcber \u0160koda \u0416\u0438\u0437\u043d\u044c "
    "\u03b1\u03b2\u03b3 \u4f60\u597d\u4e16\u754c \u3053\u3093\u306b\u3061\u306f "
    "\uc548\ub155 \u0645\u0631\u062d\u0628\u0627 \U0001F600\U0001F389 \u00a0nbsp \u2003em\u3000ideo\n"
    "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|>"
    "<|endoftext|>code: def f(x):\n    return x**2  # square\n\tif(a&&b||!c){y[i]+=1;}\n"
    "URL https://example.com/a?b=c&d=e#f, email a.b@c.de, path C:\\dir\\file.txt\n"
    "'quoted' \"double\" `back` \u201ccurly\u201d \u2014 dash \u2026 ellipsis !!! ??? ...\n"
    "   \n \n")


def tokenizer_check(path, text_out, ids_out):
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers
    r = GGUFReader(path)
    f = r.fields["tokenizer.ggml.tokens"]
    toks = [bytes(f.parts[i]).decode() for i in f.data]
    m = r.fields["tokenizer.ggml.merges"]
    merges = [tuple(bytes(m.parts[i]).decode().split(" ")) for i in m.data]
    tt = r.fields["tokenizer.ggml.token_type"]
    types = [int(tt.parts[i][0]) for i in tt.data]
    tk = Tokenizer(models.BPE({t: i for i, t in enumerate(toks)}, merges))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tk.add_special_tokens([AddedToken(t, special=True) for t, ty in zip(toks, types) if ty == 3])
    ids = tk.encode(TOKENIZER_TEXT).ids
    with open(text_out, "wb") as fo:
        fo.write(TOKENIZER_TEXT.encode("utf-8"))
    with open(ids_out, "w") as fo:
        fo.write(" ".join(map(str, ids)) + "\n")
    print(f"ref_llama: HF tokenizers gives {len(ids)} ids for {len(TOKENIZER_TEXT.encode())} bytes of text")


def main():
    if sys.argv[1] == "--tokenizer":
        return tokenizer_check(*sys.argv[2:5])
    path, out, n_gen = sys.argv[1], sys.argv[2], int(sys.argv[3])
    prompt = [int(t) for t in sys.argv[4:]]
    r = GGUFReader(path)
    assert field(r, "general.architecture") == "llama"
    L = int(field(r, "llama.block_count"))
    E = int(field(r, "llama.embedding_length"))
    H = int(field(r, "llama.attention.head_count"))
    Hkv = int(field(r, "llama.attention.head_count_kv"))
    eps = float(field(r, "llama.attention.layer_norm_rms_epsilon"))
    base = float(field(r, "llama.rope.freq_base"))
    d = E // H
    T = {t.name: t for t in r.tensors}

    def W(name):
        t = T[name]
        return dequantize(t.data, t.tensor_type).astype(np.float64).reshape(
            [int(x) for x in reversed(t.shape)])

    def unpermute(w, nh):
        # GGUF row (head, 2i + p) holds HF row (head, p * d/2 + i)
        return w.reshape(nh, d // 2, 2, -1).swapaxes(1, 2).reshape(w.shape)

    emb = W("token_embd.weight")
    out_w = W("output.weight") if "output.weight" in T else emb
    out_norm = W("output_norm.weight")
    layers = []
    for i in range(L):
        p = f"blk.{i}."
        layers.append(dict(
            an=W(p + "attn_norm.weight"), fn=W(p + "ffn_norm.weight"),
            q=unpermute(W(p + "attn_q.weight"), H), k=unpermute(W(p + "attn_k.weight"), Hkv),
            v=W(p + "attn_v.weight"), o=W(p + "attn_output.weight"),
            g=W(p + "ffn_gate.weight"), u=W(p + "ffn_up.weight"), dn=W(p + "ffn_down.weight")))

    inv_freq = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)

    def rms(x, w):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w

    def rope(x, pos):  # x [n, heads, d], HF rotate_half
        ang = pos[:, None] * inv_freq[None, :]
        cos = np.concatenate([np.cos(ang)] * 2, axis=-1)[:, None, :]
        sin = np.concatenate([np.sin(ang)] * 2, axis=-1)[:, None, :]
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return x * cos + np.concatenate([-x2, x1], axis=-1) * sin

    def forward(ids):
        n = len(ids)
        pos = np.arange(n, dtype=np.float64)
        x = emb[ids]
        mask = np.triu(np.full((n, n), -np.inf), 1)
        for ly in layers:
            h = rms(x, ly["an"])
            q = rope((h @ ly["q"].T).reshape(n, H, d), pos)
            k = rope((h @ ly["k"].T).reshape(n, Hkv, d), pos)
            v = (h @ ly["v"].T).reshape(n, Hkv, d)
            k = np.repeat(k, H // Hkv, axis=1)
            v = np.repeat(v, H // Hkv, axis=1)
            s = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(d) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = np.einsum("hqk,khd->qhd", s, v).reshape(n, H * d)
            x = x + a @ ly["o"].T
            h = rms(x, ly["fn"])
            g = h @ ly["g"].T
            x = x + ((g / (1 + np.exp(-g))) * (h @ ly["u"].T)) @ ly["dn"].T
        return rms(x, out_norm) @ out_w.T

    logits = forward(prompt)
    seq, greedy = list(prompt), []
    last = logits[-1]
    for _ in range(n_gen):
        t = int(np.argmax(last))
        greedy.append(t)
        seq.append(t)
        last = forward(seq)[-1]
    with open(out, "wb") as f:
        f.write(b"OREF" + struct.pack("<3i", len(prompt), logits.shape[1], n_gen))
        f.write(struct.pack(f"<{len(prompt)}i", *prompt))
        f.write(struct.pack(f"<{n_gen}i", *greedy))
        f.write(logits.astype("<f4").tobytes())
    print(f"ref_llama: {len(prompt)} prompt tokens, greedy {greedy}")


if __name__ == "__main__":
    main()
