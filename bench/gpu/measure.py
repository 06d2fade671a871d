#!/usr/bin/env python3
"""Measure, on the GPU at hand, what calibrates rightsize's estimator.

Runs on a machine with one NVIDIA GPU, PyTorch, transformers and peft (no
download: every model is built from a config.json under tests/data/configs
with random weights). Writes, under OUT (default $OUT, else ./gpu-out):

  results.json          every measurement, with GPU, driver and library versions
  nvidia-smi.csv        an nvidia-smi --query-gpu log taken during the whole run
                        (TZ=UTC), a real fixture for `rightsize observe`
  train-step.json.gz    a torch.profiler Chrome trace of full fine-tuning steps
  generate.json.gz      a torch.profiler Chrome trace of transformers' generate

What is measured (docs/accuracy.md, "Measured on a GPU", says how each one is
used):
  gemm      achieved dense matmul TFLOP/s per dtype and shape (random normal data)
  hbm       device-to-device copy and read bandwidth
  generate  transformers' generate(): time to first token, time per output
            token and peak memory, per model, batch and lengths
  train     full fine-tuning (fp32 master weights, bf16 autocast, fused AdamW)
            and LoRA steps: step time and peak memory

Each item is timed with CUDA events or wall clock around torch.cuda.synchronize,
after warm-up; a failure (out of memory, an API the installed version lacks) is
recorded in the item and the run goes on. A time budget (--budget-s) skips what
would not fit.
"""

import argparse
import gc
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
from datetime import datetime, timezone

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch

from timing import cuda_time_ms

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = os.path.join(ROOT, "tests", "data", "configs")

SMI_FIELDS = ("timestamp,index,uuid,name,pci.bus_id,utilization.gpu,utilization.memory,"
              "memory.used,memory.total,power.draw,power.limit,clocks.sm,clocks.max.sm,"
              "temperature.gpu,clocks_event_reasons.active")


def now_utc():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def log(*args):
    print(*args, flush=True)


class Run:
    def __init__(self, out, budget_s):
        self.out = out
        self.start = time.monotonic()
        self.budget_s = budget_s
        self.results = {"tool": "bench/gpu/measure.py", "started": now_utc(), "phases": []}

    def left(self):
        return self.budget_s - (time.monotonic() - self.start)

    def save(self):
        path = os.path.join(self.out, "results.json")
        with open(path + ".tmp", "w") as f:
            json.dump(self.results, f, indent=1)
        os.replace(path + ".tmp", path)

    def phase(self, name):
        self.results["phases"].append({"name": name, "start": now_utc()})
        log(f"[{time.monotonic() - self.start:6.1f}s] {name}")


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as e:  # noqa: BLE001 - recorded, never fatal
        return f"error: {e}"


def environment():
    import importlib
    env = {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "nvidia_smi": sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,power.limit,"
                          "clocks.max.sm,clocks.max.memory,pci.bus_id", "--format=csv"]),
    }
    for mod in ("transformers", "peft", "accelerate"):
        try:
            env[mod] = importlib.import_module(mod).__version__
        except Exception as e:  # noqa: BLE001
            env[mod] = f"missing: {e}"
    p = torch.cuda.get_device_properties(0)
    env["device"] = {"name": p.name, "sm_count": p.multi_processor_count,
                     "total_memory_bytes": p.total_memory,
                     "capability": f"{p.major}.{p.minor}",
                     "l2_bytes": getattr(p, "L2_cache_size", None)}
    return env


def wall_ms(fn):
    torch.cuda.synchronize()
    t = time.perf_counter()
    r = fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) * 1e3, r


def free():
    gc.collect()
    torch.cuda.empty_cache()


# --- micro-benchmarks -------------------------------------------------------

def gemm(run, quick):
    run.phase("gemm")
    rows = []
    square = [1024] if quick else [2048, 4096, 8192, 16384]
    # Decode-shaped products: a few tokens against a weight matrix (memory-bound).
    skinny = [(1, 4096, 4096)] if quick else [
        (m, n, k) for m in (1, 16, 64, 256, 1024) for (n, k) in ((4096, 4096), (14336, 4096), (4096, 14336))]
    for dtype_name in ("fp32", "tf32", "bf16", "fp16", "fp8_e4m3"):
        shapes = [(s, s, s) for s in square]
        if dtype_name in ("fp32", "tf32"):
            shapes = [(s, s, s) for s in square if s <= 8192]
        if dtype_name == "bf16":
            shapes = shapes + skinny
        for (m, n, k) in shapes:
            row = {"dtype": dtype_name, "m": m, "n": n, "k": k}
            try:
                torch.backends.cuda.matmul.allow_tf32 = dtype_name == "tf32"
                if dtype_name == "fp8_e4m3":
                    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
                    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
                    one = torch.tensor(1.0, device="cuda")
                    fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
                    elem = 1
                else:
                    dt = {"fp32": torch.float32, "tf32": torch.float32,
                          "bf16": torch.bfloat16, "fp16": torch.float16}[dtype_name]
                    a = torch.randn(m, k, device="cuda", dtype=dt)
                    b = torch.randn(k, n, device="cuda", dtype=dt)
                    fn = lambda: a @ b  # noqa: E731
                    elem = a.element_size()
                flops = 2.0 * m * n * k
                iters = max(3, min(200, int(2e13 / flops)))
                ms = cuda_time_ms(fn, warmup=3, iters=iters)
                row.update(ms=ms, tflops=flops / ms / 1e9,
                           weight_gb_per_s=(n * k * elem) / ms / 1e6, iters=iters)
            except Exception as e:  # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {e}"[:300]
            rows.append(row)
            log("  gemm", json.dumps(row))
            a = b = fn = None
            free()
    torch.backends.cuda.matmul.allow_tf32 = False
    run.results["gemm"] = rows
    run.save()


def hbm(run, quick):
    run.phase("hbm")
    rows = []
    for gib in ([0.25] if quick else [1, 4]):
        n = int(gib * 2**30) // 2
        x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        ms = cuda_time_ms(lambda: y.copy_(x), warmup=3, iters=20)
        rows.append({"kind": "copy", "bytes_moved": 2 * n * 2, "ms": ms,
                     "gb_per_s": 2 * n * 2 / ms / 1e6})
        ms = cuda_time_ms(lambda: x.sum(dtype=torch.float32), warmup=3, iters=20)
        rows.append({"kind": "read", "bytes_moved": n * 2, "ms": ms, "gb_per_s": n * 2 / ms / 1e6})
        del x, y
        free()
    for r in rows:
        log("  hbm", json.dumps(r))
    run.results["hbm"] = rows
    run.save()


# --- models -----------------------------------------------------------------

def build(name, **kw):
    from transformers import AutoConfig, AutoModelForCausalLM
    cfg = AutoConfig.from_pretrained(os.path.join(CONFIGS, name))
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(cfg, dtype=kw.get("dtype", torch.bfloat16),
                                                     attn_implementation="sdpa")
        except TypeError:
            model = AutoModelForCausalLM.from_config(cfg, torch_dtype=kw.get("dtype", torch.bfloat16),
                                                     attn_implementation="sdpa")
    return model


def generate_one(model, vocab, batch, inp, out):
    ids = torch.randint(100, min(vocab, 30000), (batch, inp), device="cuda")
    mask = torch.ones_like(ids)
    common = dict(attention_mask=mask, do_sample=False, pad_token_id=0, eos_token_id=None)

    def gen(n):
        return model.generate(ids, max_new_tokens=n, min_new_tokens=n, **common)

    gen(2)  # warm-up
    ttft = sorted(wall_ms(lambda: gen(1))[0] for _ in range(3))[1]
    torch.cuda.reset_peak_memory_stats()
    total, seq = wall_ms(lambda: gen(out))
    produced = seq.shape[1] - inp
    return {"ttft_ms": ttft, "total_ms": total, "output_tokens": int(produced),
            "tpot_ms": (total - ttft) / max(1, produced - 1),
            "output_tokens_per_s": batch * produced / (total / 1e3),
            "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
            "peak_reserved_bytes": torch.cuda.max_memory_reserved()}


def generate(run, quick, out_dir):
    run.phase("generate")
    models = ["llama-3.2-3b"] if quick else ["llama-3.1-8b", "llama-3.2-3b", "qwen2.5-7b",
                                             "mistral-7b-v0.1", "phi-3-mini"]
    shapes = [(1, 64, 8)] if quick else [(1, 128, 128), (1, 2048, 128), (8, 1024, 128),
                                         (32, 512, 64), (64, 2048, 32)]
    rows = []
    for name in models:
        if run.left() < 60:
            log("  generate: out of budget, skipping", name)
            break
        model = None
        try:
            free()
            torch.cuda.reset_peak_memory_stats()
            model = build(name).eval()
            weights = torch.cuda.memory_allocated()
            params = sum(p.numel() for p in model.parameters())
            vocab = model.config.vocab_size
            log(f"  {name}: {params/1e9:.2f} B parameters, {weights/2**30:.2f} GiB")
            for (b, i, o) in shapes:
                if run.left() < 30:
                    break
                row = {"model": name, "params": params, "weights_bytes": weights,
                       "batch": b, "input_tokens": i, "output_tokens_asked": o,
                       "dtype": "bf16", "attn": "sdpa", "engine": "transformers.generate (eager)"}
                try:
                    with torch.no_grad():
                        row.update(generate_one(model, vocab, b, i, o))
                except Exception as e:  # noqa: BLE001
                    row["error"] = f"{type(e).__name__}: {e}"[:300]
                rows.append(row)
                log("  generate", json.dumps(row))
                free()
                run.results["generate"] = rows
                run.save()
            if name == "llama-3.1-8b" and not quick:
                profile_generate(model, vocab, out_dir, run)
        except Exception as e:  # noqa: BLE001
            rows.append({"model": name, "error": f"{type(e).__name__}: {e}"[:300]})
            traceback.print_exc()
        del model
        free()
    run.results["generate"] = rows
    run.save()


def profile_generate(model, vocab, out_dir, run):
    from torch.profiler import ProfilerActivity, profile
    ids = torch.randint(100, 30000, (8, 512), device="cuda")
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=8, min_new_tokens=8,
                       do_sample=False, pad_token_id=0, eos_token_id=None)
        torch.cuda.synchronize()
    export(prof, os.path.join(out_dir, "generate.json.gz"))
    run.results["generate_trace"] = {"model": "llama-3.1-8b", "batch": 8, "input_tokens": 512,
                                     "output_tokens": 8}


def export(prof, path_gz):
    raw = path_gz[:-3]
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(path_gz, "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)


def train(run, quick, out_dir):
    run.phase("train")
    rows = []
    cases = [("full", "llama-3.2-3b", 1, 512, False)] if quick else [
        ("full", "llama-3.2-3b", 2, 2048, False),
        ("full", "llama-3.2-3b", 4, 2048, True),
        ("lora", "llama-3.1-8b", 4, 2048, True),
        ("lora", "llama-3.1-8b", 1, 2048, False),
    ]
    profiled = False
    for (method, name, mb, seq, recompute) in cases:
        if run.left() < 45:
            log("  train: out of budget, skipping", method, name)
            break
        row = {"method": method, "model": name, "micro_batch": mb, "seq_len": seq,
               "recompute": "full" if recompute else "none"}
        model = opt = None
        try:
            free()
            if method == "full":
                # Mixed precision as Megatron and DeepSpeed do it: fp32 master weights
                # and gradients, fp32 Adam moments (16 bytes per parameter), bf16 math.
                model = build(name, dtype=torch.float32)
                row["precision"] = "fp32 weights/grads/AdamW moments, bf16 autocast"
                params = list(model.parameters())
            else:
                from peft import LoraConfig, get_peft_model
                model = build(name, dtype=torch.bfloat16)
                model = get_peft_model(model, LoraConfig(
                    r=16, lora_alpha=32, lora_dropout=0.0,
                    target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
                row["precision"] = "bf16 base, LoRA r=16 on q,k,v,o (fp32 adapters per peft)"
                params = [p for p in model.parameters() if p.requires_grad]
            row["params"] = sum(p.numel() for p in model.parameters())
            row["trainable_params"] = sum(p.numel() for p in params)
            if recompute:
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
                if method == "lora":
                    model.enable_input_require_grads()
            model.config.use_cache = False
            model.train()
            opt = torch.optim.AdamW(params, lr=1e-5, fused=True)
            row["static_bytes_before_step"] = torch.cuda.memory_allocated()
            ids = torch.randint(100, 30000, (mb, seq), device="cuda")

            def step():
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = model(input_ids=ids, labels=ids).loss
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)

            step()  # warm-up; allocates the optimizer state
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            n = 2 if quick else 5
            ms = [wall_ms(step)[0] for _ in range(n)]
            ms.sort()
            row.update(step_ms_median=ms[len(ms) // 2], step_ms_all=ms,
                       tokens_per_step=mb * seq,
                       peak_allocated_bytes=torch.cuda.max_memory_allocated(),
                       peak_reserved_bytes=torch.cuda.max_memory_reserved())
            if method == "full" and not profiled and not quick:
                from torch.profiler import ProfilerActivity, profile
                with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                    for _ in range(2):
                        step()
                    torch.cuda.synchronize()
                export(prof, os.path.join(out_dir, "train-step.json.gz"))
                row["profiled_steps"] = 2
                profiled = True
        except Exception as e:  # noqa: BLE001
            row["error"] = f"{type(e).__name__}: {e}"[:300]
            traceback.print_exc()
        rows.append(row)
        log("  train", json.dumps(row))
        del model, opt
        free()
        run.results["train"] = rows
        run.save()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    ap.add_argument("--quick", action="store_true", help="tiny sizes: checks that every API works")
    ap.add_argument("--budget-s", type=float, default=520)
    ap.add_argument("--only", default="gemm,hbm,generate,train")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not torch.cuda.is_available():
        sys.exit("measure.py: no CUDA device")
    run = Run(args.out, args.budget_s)

    smi_log = open(os.path.join(args.out, "nvidia-smi.csv"), "w")
    fields = SMI_FIELDS
    if "error" in sh(["nvidia-smi", f"--query-gpu={fields}", "--format=csv"]).lower():
        fields = fields.replace("clocks_event_reasons", "clocks_throttle_reasons")
    smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={fields}", "--format=csv", "-lms", "500"],
                           stdout=smi_log, stderr=subprocess.STDOUT, env=dict(os.environ, TZ="UTC"))
    try:
        run.results["environment"] = environment()
        run.save()
        log(json.dumps(run.results["environment"], indent=1))
        todo = args.only.split(",")
        if "gemm" in todo:
            gemm(run, args.quick)
        if "hbm" in todo:
            hbm(run, args.quick)
        if "train" in todo:
            train(run, args.quick, args.out)
        if "generate" in todo:
            generate(run, args.quick, args.out)
    finally:
        time.sleep(1.0)
        smi.terminate()
        smi.wait()
        smi_log.close()
        run.results["finished"] = now_utc()
        run.save()
    log(f"done in {time.monotonic() - run.start:.0f} s")


if __name__ == "__main__":
    main()
