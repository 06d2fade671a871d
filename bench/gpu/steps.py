#!/usr/bin/env python3
"""Time the GPU work of one decode step and one prefill of a dense decoder, without the
Python overhead of an eager framework: what an engine with CUDA graphs and fused
kernels approaches, and what rightsize's step-time physics predicts.

A decoder built from a config.json (tests/data/configs, or a copy with fewer layers)
with random bf16 weights, written out in plain PyTorch: per layer RMSNorm, one fused QKV
product, attention through scaled_dot_product_attention (flash kernels), the output
product, RMSNorm, a fused gate/up product, SiLU and the down product; then the final
norm and the LM head. Rotary embedding is left out (an elementwise pass, well under 1%
of a step). Decode steps are captured in a CUDA graph and replayed; prefills run eagerly
(they are GPU-bound). Each time is the mean over replays timed with CUDA events, after
warm-up.

Writes OUT/steps.json (OUT defaults to $OUT, else ./gpu-out).
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

from timing import cuda_time_ms, graph_time_ms

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = os.path.join(ROOT, "tests", "data", "configs")


def log(*a):
    print(*a, flush=True)


class Decoder:
    def __init__(self, cfg, layers=None, dtype=torch.bfloat16):
        self.h = cfg["hidden_size"]
        self.heads = cfg["num_attention_heads"]
        self.kv = cfg.get("num_key_value_heads", self.heads)
        self.d = cfg.get("head_dim") or self.h // self.heads
        self.inter = cfg["intermediate_size"]
        self.layers = layers or cfg["num_hidden_layers"]
        self.vocab = cfg["vocab_size"]
        std = 0.02
        qkv = (self.heads + 2 * self.kv) * self.d
        mk = lambda *s: (torch.randn(*s, device="cuda", dtype=dtype) * std)  # noqa: E731
        self.w = [dict(qkv=mk(self.h, qkv), o=mk(self.heads * self.d, self.h),
                       gu=mk(self.h, 2 * self.inter), down=mk(self.inter, self.h),
                       n1=torch.ones(self.h, device="cuda", dtype=dtype),
                       n2=torch.ones(self.h, device="cuda", dtype=dtype))
                  for _ in range(self.layers)]
        self.head = mk(self.h, self.vocab)
        self.norm = torch.ones(self.h, device="cuda", dtype=dtype)
        self.params = self.layers * (self.h * qkv + self.heads * self.d * self.h
                                     + 3 * self.h * self.inter + 2 * self.h) + self.h * self.vocab + self.h
        self.dtype = dtype

    def mlp_attn_out(self, x, w, attn):
        x = x + attn @ w["o"]
        y = F.rms_norm(x, (self.h,), w["n2"])
        g, u = (y @ w["gu"]).chunk(2, dim=-1)
        return x + (F.silu(g) * u) @ w["down"]

    def decode(self, x, kc, vc):
        """x (B, h); kc, vc per layer (B, kv, ctx, d): one token per sequence."""
        b = x.shape[0]
        g = self.heads // self.kv
        for i, w in enumerate(self.w):
            y = F.rms_norm(x, (self.h,), w["n1"])
            q, k, v = (y @ w["qkv"]).split([self.heads * self.d, self.kv * self.d, self.kv * self.d], -1)
            # This step's key and value go to the cache's last slot (static shapes).
            kc[i][:, :, -1, :] = k.view(b, self.kv, self.d)
            vc[i][:, :, -1, :] = v.view(b, self.kv, self.d)
            # GQA decode as attention of the group's g queries to the shared head: exact.
            a = F.scaled_dot_product_attention(q.view(b, self.kv, g, self.d), kc[i], vc[i])
            x = self.mlp_attn_out(x, w, a.reshape(b, self.heads * self.d))
        return F.rms_norm(x, (self.h,), self.norm) @ self.head

    def mixed(self, xd, xp, kc, vc):
        """One step of continuous batching with chunked prefill: xd (B, h) decode tokens of B
        sequences against their caches, and xp (P, h), a P-token chunk of one new prompt, through
        the same weight reads."""
        b, pn = xd.shape[0], xp.shape[0]
        g = self.heads // self.kv
        x = torch.cat([xd, xp])
        for i, w in enumerate(self.w):
            y = F.rms_norm(x, (self.h,), w["n1"])
            q, k, v = (y @ w["qkv"]).split([self.heads * self.d, self.kv * self.d, self.kv * self.d], -1)
            kc[i][:, :, -1, :] = k[:b].view(b, self.kv, self.d)
            vc[i][:, :, -1, :] = v[:b].view(b, self.kv, self.d)
            ad = F.scaled_dot_product_attention(q[:b].view(b, self.kv, g, self.d), kc[i], vc[i])
            qp = q[b:].view(1, pn, self.heads, self.d).transpose(1, 2)
            kp = k[b:].view(1, pn, self.kv, self.d).transpose(1, 2).repeat_interleave(g, dim=1)
            vp = v[b:].view(1, pn, self.kv, self.d).transpose(1, 2).repeat_interleave(g, dim=1)
            ap = F.scaled_dot_product_attention(qp, kp, vp, is_causal=True)
            a = torch.cat([ad.reshape(b, self.heads * self.d),
                           ap.transpose(1, 2).reshape(pn, self.heads * self.d)])
            x = self.mlp_attn_out(x, w, a)
        return F.rms_norm(x[:b + 1], (self.h,), self.norm) @ self.head

    def prefill(self, x, b, n):
        """x (b*n, h): n tokens of each of b sequences, causal attention."""
        for w in self.w:
            y = F.rms_norm(x, (self.h,), w["n1"])
            q, k, v = (y @ w["qkv"]).split([self.heads * self.d, self.kv * self.d, self.kv * self.d], -1)
            q = q.view(b, n, self.heads, self.d).transpose(1, 2)
            k = k.view(b, n, self.kv, self.d).transpose(1, 2)
            v = v.view(b, n, self.kv, self.d).transpose(1, 2)
            if self.kv != self.heads:
                k = k.repeat_interleave(self.heads // self.kv, dim=1)
                v = v.repeat_interleave(self.heads // self.kv, dim=1)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = self.mlp_attn_out(x, w, a.transpose(1, 2).reshape(b * n, self.heads * self.d))
        # Engines compute logits for each sequence's last token only.
        last = x.view(b, n, self.h)[:, -1, :]
        return F.rms_norm(last, (self.h,), self.norm) @ self.head


def measure(rows, kind, row, field, fn):
    """Sets row[field] to fn(), or records the error it raised; appends row to rows, logs it."""
    try:
        row[field] = fn()
    except Exception as e:  # noqa: BLE001 - recorded with the row; the run goes on
        row["error"] = f"{type(e).__name__}: {e}"[:300]
    rows.append(row)
    log(f"  {kind}", json.dumps(row))
    torch.cuda.empty_cache()
    return row


def decode_ms(m, b, ctx):
    kc = [torch.randn(b, m.kv, ctx, m.d, device="cuda", dtype=m.dtype) for _ in range(m.layers)]
    vc = [torch.randn(b, m.kv, ctx, m.d, device="cuda", dtype=m.dtype) for _ in range(m.layers)]
    x = torch.randn(b, m.h, device="cuda", dtype=m.dtype)
    return graph_time_ms(lambda: m.decode(x, kc, vc))


def mixed_ms(m, b, ctx, p):
    kc = [torch.randn(b, m.kv, ctx, m.d, device="cuda", dtype=m.dtype) for _ in range(m.layers)]
    vc = [torch.randn(b, m.kv, ctx, m.d, device="cuda", dtype=m.dtype) for _ in range(m.layers)]
    xd = torch.randn(b, m.h, device="cuda", dtype=m.dtype)
    xp = torch.randn(p, m.h, device="cuda", dtype=m.dtype)
    return graph_time_ms(lambda: m.mixed(xd, xp, kc, vc))


def prefill_ms(m, b, n):
    x = torch.randn(b * n, m.h, device="cuda", dtype=m.dtype)
    with torch.no_grad():
        return cuda_time_ms(lambda: m.prefill(x, b, n), warmup=2, iters=5)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    ap.add_argument("--budget-s", type=float, default=300)
    ap.add_argument("--only", default="steps,fp8,mixed",
                    help="steps: decode and prefill grids; fp8: fp8 products; mixed: decode steps "
                         "carrying a chunk of prefill")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    start = time.monotonic()
    # (config, layers built): the 70B is built with 40 of its 80 layers so that it fits in
    # bf16; rightsize is asked about the same 40-layer model (bench/gpu/README.md).
    models = [("llama-3.1-8b", None), ("llama-3.1-70b", 40), ("llama-3.2-3b", None), ("qwen2.5-7b", None)]
    decode_grid = [(1, 512), (1, 8192), (8, 2048), (32, 2048), (64, 512), (64, 4096),
                   (128, 2048), (256, 1024), (8, 32768), (512, 512)]
    prefill_grid = [(1, 128), (8, 128), (32, 128), (1, 512), (1, 2048), (4, 2048), (1, 8192), (1, 32768)]
    out = {"tool": "bench/gpu/steps.py", "torch": torch.__version__,
           "device": torch.cuda.get_device_name(0), "decode": [], "prefill": []}
    kv_budget = 50e9
    todo = args.only.split(",")

    def save():
        with open(os.path.join(args.out, "steps.json"), "w") as f:
            json.dump(out, f, indent=1)

    for name, layers in (models if "steps" in todo else []):
        if time.monotonic() - start > args.budget_s:
            break
        cfg = json.load(open(os.path.join(CONFIGS, name, "config.json")))
        m = Decoder(cfg, layers)
        base = {"model": name, "layers": m.layers, "params": m.params}
        log(name, m.layers, "layers", round(m.params / 1e9, 2), "B")
        kv_per_token = 2 * m.layers * m.kv * m.d * 2
        for (b, ctx) in decode_grid:
            if b * ctx * kv_per_token > kv_budget or time.monotonic() - start > args.budget_s:
                continue
            measure(out["decode"], "decode", dict(base, batch=b, context=ctx), "step_ms",
                    lambda: decode_ms(m, b, ctx))
        for (b, n) in prefill_grid:
            if time.monotonic() - start > args.budget_s:
                continue
            measure(out["prefill"], "prefill", dict(base, batch=b, input_tokens=n), "prefill_ms",
                    lambda: prefill_ms(m, b, n))
        del m
        torch.cuda.empty_cache()
        save()
    # Continuous batching with chunked prefill: a decode step of B sequences at 1024 tokens of
    # context that also carries a P-token chunk of a new prompt (issue 14, item 2).
    if "mixed" in todo:
        out["mixed"] = []
        for name in ("llama-3.1-8b", "llama-3.2-3b"):
            m = Decoder(json.load(open(os.path.join(CONFIGS, name, "config.json"))))
            base = {"model": name, "layers": m.layers, "params": m.params}
            for b in (1, 16, 64, 256):
                for p in (0, 16, 128, 512, 2048):
                    measure(out["mixed"], "mixed",
                            dict(base, batch=b, context=1024, prefill_tokens=p), "step_ms",
                            lambda: mixed_ms(m, b, 1024, p) if p else decode_ms(m, b, 1024))
            for p in (16, 128, 512, 2048):
                measure(out["mixed"], "mixed", dict(base, batch=1, input_tokens=p),
                        "prefill_alone_ms", lambda: prefill_ms(m, 1, p))
            del m
            torch.cuda.empty_cache()
        save()
    # Low-precision weight streaming: fp8 e4m3 products at decode batch sizes.
    out["fp8_skinny"] = []
    if "fp8" not in todo:
        return 0
    one = torch.tensor(1.0, device="cuda")
    for mm in (1, 16, 64, 256):
        for (n, k) in ((14336, 4096), (4096, 14336)):
            a = torch.randn(mm, k, device="cuda").to(torch.float8_e4m3fn)
            bt = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
            row = measure(out["fp8_skinny"], "fp8", {"m": mm, "n": n, "k": k}, "ms",
                          lambda: cuda_time_ms(lambda: torch._scaled_mm(
                              a, bt, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), 5, 100))
            if "ms" in row:
                row["weight_gb_per_s"] = n * k / row["ms"] / 1e6
    save()
    log(f"done in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
