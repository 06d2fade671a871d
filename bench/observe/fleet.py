#!/usr/bin/python3
"""A generated GPU fleet as OpenMetrics text, for `promtool tsdb create-blocks-from openmetrics`.

    fleet.py --gpus N (--days D | --hours H) --end UNIX_S --out DIR [--step 30] [--seed S]
             [--no-kube-state-metrics] [--max-pending K]
    fleet.py check --prometheus URL --fleet DIR/fleet.json [--timing]

Writes DIR/fleet.json (the ground truth, first) and then one OpenMetrics file per 2-hour window,
DIR/fleet-<window start>.om, each ending with "# EOF". promtool 2.42 cuts its input into blocks
aligned to 2 h and re-reads the whole file once per block, so one file per block keeps the import
a single pass. A file appears under its final name only once complete (it is written as .tmp and
renamed); with --max-pending K the generator waits while K .om files are waiting in DIR, so that
a consumer that imports and deletes them (bench/observe/fleet_bench.sh) bounds the disk used.

The window: samples every STEP seconds at END - RANGE + STEP, ..., END (RANGE = days or hours).
That is exactly what a PromQL range selector [RANGE] evaluated at END holds under both rules:
Prometheus 2.x's closed [END - RANGE, END] and 3.x's left-open (END - RANGE, END]; and
query_range from END - RANGE to END at the same step finds one sample per step, none repeated.

The series, as dcgm-exporter and kube-state-metrics write them and Prometheus stores them (with
the job and instance labels of the scrape):
  DCGM_FI_DEV_GPU_UTIL (%), DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_FB_FREE (MiB; USED + FREE = 81559,
      an H100 80GB HBM3's memory.total), labels gpu, UUID, device, modelName, Hostname and, while
      a pod holds the GPU, namespace, pod, container. A GPU no pod holds has no pod labels.
  kube_pod_owner, kube_pod_labels (per pod, over its lifetime), kube_replicaset_owner,
      kube_job_owner (per ReplicaSet or Job, from its first pod's start to the window's end),
      unless --no-kube-state-metrics.
Each GPU is held by at most one pod over the window (a pod that replaces another gets other
GPUs), so each GPU is one DCGM series per metric and fleet.json's statistics are per series: what
quantile_over_time, max_over_time, avg_over_time and count_over_time answer at END.

The workloads (deterministic from --seed): a fixed core of 15 GPUs that holds every case, then,
for larger fleets, random owners of 1-8 GPUs per pod until N, with about 3 % of GPUs unallocated:
  team-a/Deployment/vllm-llama        ReplicaSet vllm-llama-<h1>'s pod for the first half, then
                                      a rollout to <h2>, whose pod is replaced (restarted) at 3/4
  team-b/StatefulSet/embed-bge        2 pods
  batch/CronJob/nightly-eval          a Job nightly-eval-<minutes> owned by the CronJob, 1/4 to 3/4
  team-a/LeaderWorkerSet/llama-70b    leader llama-70b-0 (StatefulSet llama-70b) and worker
                                      llama-70b-0-1 (StatefulSet llama-70b-0), 2 GPUs each, with
                                      label leaderworkerset.sigs.k8s.io/name=llama-70b
  team-b/Rollout/ranker               an Argo Rollout: ReplicaSet ranker-<h> owned by the Rollout
  team-c/Deployment/whisper           2 replicas of 1 GPU, lightly used (a patch to apply)
  ml-research/notebook-alice          a pod without owner (owner_kind="<none>")
  node-XXXX/gpuN                      a GPU that no pod holds
Profiles of utilization: idle (0-3 %), low (10-30 %), busy (60-95 % with a daily wave), vllm
(~100 %, FB_USED ~90 % of the memory, as vLLM preallocates it).

fleet.json: parameters, files, expected workload names (grouped by owner, and by pod), and per
workload its namespace, kind, owner, profile and parameters, pods (owner chain, lifetime, GPUs)
and GPUs with exact statistics over the window: gpu_util as a fraction (p50, p95 by linear
interpolation at rank q*(n-1), as numpy and Prometheus' quantile_over_time; max, mean, count) and
memory_used_bytes (p50, p95, max). Only the Python standard library.
"""

import argparse
import array
import itertools
import json
import math
import operator
import os
import random
import sys
import time
import uuid

TOTAL_MIB = 81559  # nvidia-smi's memory.total of an H100 80GB HBM3
MIB = 1048576
MODEL = "NVIDIA H100 80GB HBM3"
BLOCK_S = 7200  # promtool's block length
GPUS_PER_NODE = 8
CORE_GPUS = 15
# The alphabet Kubernetes draws ReplicaSet hashes and pod name suffixes from (utilrand).
K8S_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
# vllm-llama's engine metrics at sample i: running 24 + (7 i mod 9), waiting i mod 5, KV-cache
# usage 0.93 + 0.01 (i mod 5): requests wait behind a full cache (docs/observe.md, "Serving
# engines"); names as vLLM writes them (data/deploy.json "serving_metrics").
ENGINE_STORY = "vllm:num_requests_running 24 + (7 i mod 9), waiting i mod 5, kv_cache_usage_perc " \
               "0.93 + 0.01 (i mod 5)"
ENGINE_JOB = 'job="vllm",container="vllm"'


def engine_series(fleet):
    """(metric, label text, i0, i1, value of sample i[, suffix]) of each vLLM pod's engine
    series: its gauges, and its TTFT histogram's _bucket, _count and _sum."""
    out = []
    for w in fleet.workloads:
        if "engine_metrics" not in w["params"]:
            continue
        for p in w["pods"]:
            lab = labels([("model_name", "meta-llama/Llama-3.1-8B-Instruct"),
                          ("namespace", p["namespace"]), ("pod", p["name"])]) + "," + ENGINE_JOB
            out.append(("vllm:num_requests_running", lab, p["i0"], p["i1"],
                        lambda i: str(24 + (7 * i) % 9)))
            out.append(("vllm:num_requests_waiting", lab, p["i0"], p["i1"], lambda i: str(i % 5)))
            out.append(("vllm:kv_cache_usage_perc", lab, p["i0"], p["i1"],
                        lambda i: f"{0.93 + 0.01 * (i % 5):.2f}"))
            # TTFT: two requests a sample, one at 0.4 s (le 0.5), one at 0.8 s (le 1.0); counted
            # from the pod's start. Its quantiles are the same over any part of its life:
            # p50 0.5 s, p95 0.95 s, mean 0.6 s (histogram_quantile's interpolation).
            for le, per in (("0.5", 1), ("1.0", 2), ("+Inf", 2)):
                out.append(("vllm:time_to_first_token_seconds", f'{lab},le="{le}"', p["i0"],
                            p["i1"], lambda i, per=per, i0=p["i0"]: f"{per * (i - i0 + 1)}",
                            "_bucket"))
            out.append(("vllm:time_to_first_token_seconds", lab, p["i0"], p["i1"],
                        lambda i, i0=p["i0"]: f"{2 * (i - i0 + 1)}", "_count"))
            out.append(("vllm:time_to_first_token_seconds", lab, p["i0"], p["i1"],
                        lambda i, i0=p["i0"]: f"{1.2 * (i - i0 + 1):.1f}", "_sum"))
    return out


KSM_JOB = 'job="kube-state-metrics",instance="10.96.12.7:8080"'
NAMESPACES = ["team-a", "team-b", "team-c", "inference", "ml-research", "batch", "search", "ads"]
NAMES = ["chat", "embed", "rerank", "vision", "speech", "summarize", "translate", "code", "rag",
         "detect", "forecast", "recsys", "ocr", "tts", "asr", "moderation", "agent", "sdxl"]
MODELS = ["llama", "qwen", "mistral", "gemma", "phi", "bge", "e5", "t5", "whisper", "clip"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpus", type=int, required=True, help="GPUs in the fleet (>= 15)")
    span = p.add_mutually_exclusive_group(required=True)
    span.add_argument("--days", type=float, help="window length in days")
    span.add_argument("--hours", type=float, help="window length in hours")
    p.add_argument("--step", type=int, default=30, help="seconds between samples (30)")
    p.add_argument("--end", type=int, required=True, help="the last sample's time, Unix seconds")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--seed", type=int, default=1, help="random seed (1)")
    p.add_argument("--no-kube-state-metrics", action="store_true",
                   help="leave the kube_* series out")
    p.add_argument("--max-pending", type=int, default=0,
                   help="wait while this many .om files wait in --out (0: never wait)")
    p.add_argument("--stats-only", action="store_true", help="write fleet.json only")
    a = p.parse_args(argv)
    range_s = round(a.days * 86400 if a.days is not None else a.hours * 3600)
    if a.gpus < CORE_GPUS:
        p.error(f"--gpus: at least {CORE_GPUS} (the fixed core of workloads), got {a.gpus}")
    if a.step <= 0 or range_s <= 0 or range_s % a.step:
        p.error(f"the window ({range_s} s) must be a positive multiple of --step ({a.step} s)")
    a.range_s = range_s
    return a


# --- The fleet: workloads, pods, GPUs -------------------------------------------------------------

class Fleet:
    """Everything the generator decides before any value: workloads, controllers, pods, GPUs."""

    def __init__(self, args):
        self.args = args
        self.n = args.range_s // args.step  # samples per full-window series
        self.start = args.end - args.range_s  # excluded: the first sample is at start + step
        self.rng = random.Random(args.seed)
        self.workloads = []
        self.controllers = []  # ReplicaSets and Jobs: kube_replicaset_owner, kube_job_owner
        self.pods = []
        self.gpus = []
        self.used_names = set()

    def token(self, length):
        return "".join(self.rng.choice(K8S_ALPHABET) for _ in range(length))

    def uid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def unique(self, name):
        base, k = name, 2
        while name in self.used_names:
            name = f"{base}-{k}"
            k += 1
        self.used_names.add(name)
        return name

    def workload(self, namespace, kind, owner, profile, params):
        w = {"namespace": namespace, "kind": kind, "owner": owner, "profile": profile,
             "params": params, "pods": [], "gpus": []}
        w["name"] = f"{namespace}/{kind}/{owner}" if kind else None  # set later for the others
        self.workloads.append(w)
        return w

    def controller(self, kind, namespace, name, owner_kind, owner_name, start_i):
        c = {"kind": kind, "namespace": namespace, "name": name, "owner_kind": owner_kind,
             "owner_name": owner_name, "start_i": start_i}
        self.controllers.append(c)
        return c

    def pod(self, w, name, owner_kind, owner_name, gpus, i0, i1, labels=None, container="main"):
        p = {"workload": w, "namespace": w["namespace"], "name": name, "uid": self.uid(),
             "owner_kind": owner_kind, "owner_name": owner_name, "gpus_wanted": gpus,
             "i0": i0, "i1": i1, "labels": labels or {}, "container": container, "gpus": []}
        w["pods"].append(p)
        self.pods.append(p)
        for c in self.controllers:  # a controller exists from its first pod on
            if c["namespace"] == p["namespace"] and c["name"] == owner_name and \
                    c["kind"] == owner_kind:
                c["start_i"] = min(c["start_i"], i0)
        return p

    def profile_params(self, profile):
        r = self.rng
        if profile == "idle":
            return {"util_nonzero_fraction": round(r.uniform(0.01, 0.06), 3),
                    "fb_used_mib": r.randrange(300, 2500)}
        if profile == "low":
            return {"util_center": r.randrange(12, 27), "util_noise": r.randrange(3, 7),
                    "fb_used_mib": r.randrange(8000, 30000), "fb_noise_mib": r.randrange(0, 1500)}
        if profile == "busy":
            return {"util_center": r.randrange(68, 82), "util_daily_amplitude": r.randrange(4, 12),
                    "util_noise": r.randrange(3, 8), "phase_h": r.randrange(0, 24),
                    "fb_used_mib": r.randrange(30000, 62000),
                    "fb_noise_mib": r.randrange(500, 6000)}
        # vllm: the engine loop keeps a kernel running; memory preallocated at start.
        return {"util_below_100_fraction": round(r.uniform(0.01, 0.05), 3),
                "fb_used_mib": round(0.9 * TOTAL_MIB) + r.randrange(-300, 300)}

    # The fixed core: every case the tests name.
    def add_core(self):
        n = self.n
        half, quarter = n // 2, n // 4
        w = self.workload("team-a", "Deployment", "vllm-llama", "vllm", self.profile_params("vllm"))
        h1, h2 = self.token(10), self.token(10)
        for h, i0 in ((h1, 0), (h2, half)):
            self.controller("ReplicaSet", "team-a", f"vllm-llama-{h}", "Deployment", "vllm-llama",
                            i0)
        self.pod(w, f"vllm-llama-{h1}-{self.token(5)}", "ReplicaSet", f"vllm-llama-{h1}", 1, 0,
                 half, container="vllm")
        self.pod(w, f"vllm-llama-{h2}-{self.token(5)}", "ReplicaSet", f"vllm-llama-{h2}", 1, half,
                 half + quarter, container="vllm")
        self.pod(w, f"vllm-llama-{h2}-{self.token(5)}", "ReplicaSet", f"vllm-llama-{h2}", 1,
                 half + quarter, n, container="vllm")
        w["params"]["story"] = ("ReplicaSet 1 for the first half, rollout to ReplicaSet 2, whose "
                                "pod is replaced at 3/4 (a restart)")
        # Its vLLM pods export their engine metrics (scraped by a PodMonitor: namespace and pod
        # labels): a queue behind a nearly full KV cache (engine_series).
        w["params"]["engine_metrics"] = ENGINE_STORY

        w = self.workload("team-b", "StatefulSet", "embed-bge", "busy", self.profile_params("busy"))
        for k in range(2):
            self.pod(w, f"embed-bge-{k}", "StatefulSet", "embed-bge", 1, 0, n)

        w = self.workload("batch", "CronJob", "nightly-eval", "busy", self.profile_params("busy"))
        job = f"nightly-eval-{(self.start + quarter * self.args.step) // 60}"
        self.controller("Job", "batch", job, "CronJob", "nightly-eval", quarter)
        self.pod(w, f"{job}-{self.token(5)}", "Job", job, 1, quarter, half + quarter)

        w = self.workload("team-a", "LeaderWorkerSet", "llama-70b", "vllm",
                          self.profile_params("vllm"))
        lws = {"leaderworkerset.sigs.k8s.io/name": "llama-70b"}
        self.pod(w, "llama-70b-0", "StatefulSet", "llama-70b", 2, 0, n, dict(lws), "vllm")
        self.pod(w, "llama-70b-0-1", "StatefulSet", "llama-70b-0", 2, 0, n, dict(lws), "vllm")

        w = self.workload("team-b", "Rollout", "ranker", "low", self.profile_params("low"))
        h = self.token(10)
        self.controller("ReplicaSet", "team-b", f"ranker-{h}", "Rollout", "ranker", 0)
        self.pod(w, f"ranker-{h}-{self.token(5)}", "ReplicaSet", f"ranker-{h}", 1, 0, n)

        w = self.workload("team-c", "Deployment", "whisper", "low", self.profile_params("low"))
        h = self.token(10)
        self.controller("ReplicaSet", "team-c", f"whisper-{h}", "Deployment", "whisper", 0)
        for _ in range(2):
            self.pod(w, f"whisper-{h}-{self.token(5)}", "ReplicaSet", f"whisper-{h}", 1, 0, n,
                     container="asr")

        w = self.workload("ml-research", None, None, "idle", self.profile_params("idle"))
        self.pod(w, "notebook-alice", "<none>", "<none>", 1, 0, n)
        self.used_names.update(["vllm-llama", "embed-bge", "nightly-eval", "llama-70b", "ranker",
                                "whisper"])

    # Random owners until the fleet's size, keeping ~3 % of its GPUs unallocated.
    def add_random(self, gpus):
        r = self.rng
        n = self.n
        unallocated = max(1, gpus * 3 // 100)
        have = sum(p["gpus_wanted"] for p in self.pods)
        kinds = ["Deployment"] * 45 + ["StatefulSet"] * 20 + ["CronJob"] * 8 + \
            ["LeaderWorkerSet"] * 5 + ["Rollout"] * 7 + [None] * 15
        profiles = ["idle"] * 15 + ["low"] * 25 + ["busy"] * 35 + ["vllm"] * 25
        while True:
            room = gpus - unallocated - have
            if room <= 0:
                break
            kind = r.choice(kinds)
            per_pod = min(r.choice([1, 1, 2, 2, 4, 8]), 1 << (room.bit_length() - 1))
            if kind == "LeaderWorkerSet":
                size = r.choice([2, 2, 4])
                groups = 1
                per_pod = max(2, per_pod)
                while size * per_pod > room and size > 1:
                    size //= 2
                if size < 2 or size * per_pod > room:
                    kind = None
            if kind is None:
                replicas = 1
                per_pod = min(per_pod, 1 << (room.bit_length() - 1))
            elif kind != "LeaderWorkerSet":
                replicas = max(1, min(r.choice([1, 2, 2, 3, 4]), room // per_pod))
            ns = r.choice(NAMESPACES)
            profile = r.choice(profiles)
            name = self.unique(f"{r.choice(NAMES)}-{r.choice(MODELS)}")
            params = self.profile_params(profile)
            if kind is None:
                w = self.workload(ns, None, None, profile, params)
                self.pod(w, self.unique(f"{name}-{r.choice(['debug', 'notebook', 'bench'])}"),
                         "<none>", "<none>", per_pod, 0, n)
            elif kind in ("Deployment", "Rollout"):
                w = self.workload(ns, kind, name, profile, params)
                h = self.token(10)
                self.controller("ReplicaSet", ns, f"{name}-{h}", kind, name, 0)
                for _ in range(replicas):
                    self.pod(w, f"{name}-{h}-{self.token(5)}", "ReplicaSet", f"{name}-{h}",
                             per_pod, 0, n)
            elif kind == "StatefulSet":
                w = self.workload(ns, kind, name, profile, params)
                for k in range(replicas):
                    self.pod(w, f"{name}-{k}", "StatefulSet", name, per_pod, 0, n)
            elif kind == "CronJob":
                w = self.workload(ns, kind, name, profile, params)
                job = f"{name}-{self.start // 60}"
                self.controller("Job", ns, job, "CronJob", name, 0)
                for _ in range(replicas):  # a Job with parallelism = replicas
                    self.pod(w, f"{job}-{self.token(5)}", "Job", job, per_pod, 0, n)
            else:
                w = self.workload(ns, kind, name, profile, params)
                lws = {"leaderworkerset.sigs.k8s.io/name": name}
                for g in range(groups):
                    self.pod(w, f"{name}-{g}", "StatefulSet", name, per_pod, 0, n, dict(lws))
                    for k in range(1, size):
                        self.pod(w, f"{name}-{g}-{k}", "StatefulSet", f"{name}-{g}", per_pod, 0, n,
                                 dict(lws))
            have = sum(p["gpus_wanted"] for p in self.pods)

    # Pods onto 8-GPU nodes, largest first (sizes are powers of two: no node is left with a hole
    # a later pod cannot fill); the GPUs left over are unallocated.
    def place(self, gpus):
        nodes = []  # free slots per node
        for p in sorted(self.pods, key=lambda p: -p["gpus_wanted"]):
            for node, free in enumerate(nodes):
                if len(free) >= p["gpus_wanted"]:
                    break
            else:
                nodes.append(list(range(GPUS_PER_NODE)))
                node, free = len(nodes) - 1, nodes[-1]
            for _ in range(p["gpus_wanted"]):
                p["gpus"].append(self.gpu(node, free.pop(0), p))
        spare = gpus - sum(p["gpus_wanted"] for p in self.pods)
        for node in range(len(nodes) + spare):  # holes first, then new nodes
            if not spare:
                break
            if node == len(nodes):
                nodes.append(list(range(GPUS_PER_NODE)))
            while nodes[node] and spare:
                w = self.workload(None, None, None, "idle", self.profile_params("idle"))
                g = self.gpu(node, nodes[node].pop(0), None)
                w["name"] = g["label"]
                w["gpus"].append(g)
                spare -= 1
        self.gpus.sort(key=lambda g: (g["host"], g["gpu"]))

    def gpu(self, node, index, pod):
        host = f"node-{node + 1:04d}"
        g = {"host": host, "gpu": index, "uuid": "GPU-" + self.uid(), "label": f"{host}/gpu{index}",
             "pod": pod, "i0": pod["i0"] if pod else 0, "i1": pod["i1"] if pod else self.n}
        if pod:
            pod["workload"]["gpus"].append(g)
        self.gpus.append(g)
        return g

    def build(self):
        self.add_core()
        self.add_random(self.args.gpus)
        self.place(self.args.gpus)
        for w in self.workloads:
            if w["name"] is None and w["pods"]:
                p = w["pods"][0]
                w["name"] = f"{p['namespace']}/{p['name']}"


# --- Values and their statistics ------------------------------------------------------------------

def quantile(sorted_values, q):
    """Prometheus' quantile (promql/quantile.go), the same float operations in the same order."""
    n = len(sorted_values)
    rank = q * (n - 1)
    lower = max(0, math.floor(rank))
    upper = min(n - 1, lower + 1)
    weight = rank - math.floor(rank)
    return sorted_values[lower] * (1 - weight) + sorted_values[upper] * weight


def clamp_table(low, high, offset):
    """t[v + offset] = v clamped to [low, high], for v in [-offset, 255 + offset]."""
    return [min(high, max(low, v - offset)) for v in range(256 + 2 * offset)]


def noise_table(width):
    """256 byte values -> a triangular noise in [-width, width] (the sum of two uniforms)."""
    return [(b & 15) * width // 15 + (b >> 4) * width // 15 - width for b in range(256)]


def gpu_values(fleet, g, w):
    """GPU_UTIL (%) as array('B') and FB_USED (MiB) as array("i") of GPU g over its lifetime."""
    m = g["i1"] - g["i0"]
    rng = random.Random(f"{fleet.args.seed}/{g['uuid']}")
    prm = w["params"]
    raw = rng.randbytes(m)
    if w["profile"] == "idle":
        cut = round(256 * prm["util_nonzero_fraction"])
        table = bytes((1 + b % 3) if b < cut else 0 for b in range(256))
        util = array.array("B", raw.translate(table))
    elif w["profile"] == "vllm":
        cut = round(256 * prm["util_below_100_fraction"])
        table = bytes((97 + b % 3) if b < cut else 100 for b in range(256))
        util = array.array("B", raw.translate(table))
    elif w["profile"] == "low":
        noise = noise_table(prm["util_noise"])
        table = bytes(min(100, max(0, prm["util_center"] + noise[b])) for b in range(256))
        util = array.array("B", raw.translate(table))
    else:  # busy: a daily wave, whose phase is the workload's
        per_day = 86400 // fleet.args.step
        phase = prm["phase_h"] * 3600
        wave = [round(prm["util_daily_amplitude"] *
                      math.sin(2 * math.pi * ((fleet.start + (i + 1) * fleet.args.step - phase)
                                              % 86400) / 86400)) for i in range(per_day)]
        first = g["i0"] % per_day
        base = (wave[first:] + wave * (m // per_day + 1))[:m]
        noise = noise_table(prm["util_noise"])
        off = 128
        clamp = clamp_table(0, 100, off)
        center = prm["util_center"] + off
        util = array.array("B", [clamp[center + b + noise[r]] for b, r in zip(base, raw)])
    fb0 = prm["fb_used_mib"]
    spread = prm.get("fb_noise_mib", 0)
    if spread:
        raw = rng.randbytes(m)
        steps = [fb0 + (b * spread) // 255 for b in range(256)]
        fb = array.array("i", map(steps.__getitem__, raw))
    else:  # preallocated: constant but for a few MiB of the driver's own
        raw = rng.randbytes(m)
        fb = array.array("i", [fb0 + (b & 3) for b in raw])
    return util, fb


def gpu_stats(util, fb):
    u = sorted(util)
    f = sorted(fb)
    mean = math.fsum(u) / len(u)
    return {
        "gpu_util": {"p50": quantile(u, 0.5) / 100, "p95": quantile(u, 0.95) / 100,
                     "max": u[-1] / 100, "mean": mean / 100, "count": len(u)},
        "gpu_util_percent": {"p50": quantile(u, 0.5), "p95": quantile(u, 0.95), "max": u[-1],
                             "mean": mean},
        "memory_used_bytes": {"p50": quantile(f, 0.5) * MIB, "p95": quantile(f, 0.95) * MIB,
                              "max": f[-1] * MIB},
        "fb_used_mib": {"p50": quantile(f, 0.5), "p95": quantile(f, 0.95), "max": f[-1]},
    }


# --- Labels and the OpenMetrics text --------------------------------------------------------------

def labels(pairs):
    return ",".join(f'{k}="{v}"' for k, v in pairs)


def dcgm_labels(g):
    pairs = [("gpu", g["gpu"]), ("UUID", g["uuid"]), ("device", f"nvidia{g['gpu']}"),
             ("modelName", MODEL), ("Hostname", g["host"])]
    p = g["pod"]
    if p:
        pairs += [("namespace", p["namespace"]), ("pod", p["name"]), ("container", p["container"])]
    node = int(g["host"][5:])
    pairs += [("job", "dcgm-exporter"), ("instance", f"10.0.{node // 250}.{node % 250}:9400")]
    return labels(pairs)


def ksm_series(fleet):
    """(family, label text, i0, i1) of each kube-state-metrics series."""
    out = []
    for p in fleet.pods:
        ctl = "<none>" if p["owner_kind"] == "<none>" else "true"
        out.append(("kube_pod_owner", labels([
            ("namespace", p["namespace"]), ("pod", p["name"]), ("uid", p["uid"]),
            ("owner_kind", p["owner_kind"]), ("owner_name", p["owner_name"]),
            ("owner_is_controller", ctl)]) + "," + KSM_JOB, p["i0"], p["i1"]))
        extra = [("label_" + "".join(c if c.isalnum() else "_" for c in k), v)
                 for k, v in sorted(p["labels"].items())]
        out.append(("kube_pod_labels", labels(
            [("namespace", p["namespace"]), ("pod", p["name"]), ("uid", p["uid"])] + extra) +
            "," + KSM_JOB, p["i0"], p["i1"]))
    for c in fleet.controllers:
        if c["kind"] == "ReplicaSet":
            family, key = "kube_replicaset_owner", "replicaset"
        else:
            family, key = "kube_job_owner", "job_name"
        out.append((family, labels([
            ("namespace", c["namespace"]), (key, c["name"]), ("owner_kind", c["owner_kind"]),
            ("owner_name", c["owner_name"]), ("owner_is_controller", "true")]) + "," + KSM_JOB,
            c["start_i"], fleet.n))
    return out


def write_blocks(fleet, values, out_dir):
    """One OpenMetrics file per 2 h window; returns [(name, bytes, samples)]."""
    step, start, n = fleet.args.step, fleet.start, fleet.n
    num = [str(v) for v in range(TOTAL_MIB + 1)]
    free = [str(TOTAL_MIB - v) for v in range(TOTAL_MIB + 1)]
    add = operator.add
    dcgm = [(g, dcgm_labels(g)) for g in fleet.gpus]
    ksm = [] if fleet.args.no_kube_state_metrics else ksm_series(fleet)
    engine = engine_series(fleet)
    families = ["kube_pod_owner", "kube_pod_labels", "kube_replicaset_owner", "kube_job_owner"]
    files = []
    first_t, last_t = start + step, start + n * step
    block = first_t // BLOCK_S * BLOCK_S
    while block <= last_t:
        # Samples i with block <= start + (i+1)*step < block + BLOCK_S.
        j0 = max(0, -(-(block - start) // step) - 1)
        j1 = min(n, -(-(block + BLOCK_S - start) // step) - 1)
        tails = [f" {start + (i + 1) * step}\n" for i in range(j0, j1)]
        name = os.path.join(out_dir, f"fleet-{block}.om")
        wait_for_room(out_dir, fleet.args.max_pending)
        size = samples = 0
        with open(name + ".tmp", "w", buffering=1 << 24) as f:
            for metric, column, strings in (("DCGM_FI_DEV_GPU_UTIL", 0, num),
                                            ("DCGM_FI_DEV_FB_USED", 1, num),
                                            ("DCGM_FI_DEV_FB_FREE", 1, free)):
                chunks = [f"# TYPE {metric} gauge\n"]
                for g, lab in dcgm:
                    a, b = max(j0, g["i0"]), min(j1, g["i1"])
                    if a >= b:
                        continue
                    vals = values[g["uuid"]][column][a - g["i0"]:b - g["i0"]]
                    prefix = f"{metric}{{{lab}}} "
                    chunks.append(prefix.join(itertools.chain(
                        ("",), map(add, map(strings.__getitem__, vals), tails[a - j0:b - j0]))))
                    samples += b - a
                text = "".join(chunks)
                f.write(text)
                size += len(text)
            for family in families:
                chunks = [f"# TYPE {family} gauge\n"]
                for fam, lab, i0, i1 in ksm:
                    a, b = max(j0, i0), min(j1, i1)
                    if fam != family or a >= b:
                        continue
                    chunks.append(f"{family}{{{lab}}} 1".join(
                        itertools.chain(("",), tails[a - j0:b - j0])))
                    samples += b - a
                if len(chunks) > 1:
                    text = "".join(chunks)
                    f.write(text)
                    size += len(text)
            for metric, kind in (("vllm:num_requests_running", "gauge"),
                                 ("vllm:num_requests_waiting", "gauge"),
                                 ("vllm:kv_cache_usage_perc", "gauge"),
                                 ("vllm:time_to_first_token_seconds", "histogram")):
                chunks = [f"# TYPE {metric} {kind}\n"]
                for series_metric, lab, i0, i1, value, *suffix in engine:
                    a, b = max(j0, i0), min(j1, i1)
                    if series_metric != metric or a >= b:
                        continue
                    series_name = metric + (suffix[0] if suffix else "")
                    chunks.extend(f"{series_name}{{{lab}}} {value(i)}{tails[i - j0]}"
                                  for i in range(a, b))
                    samples += b - a
                if len(chunks) > 1:
                    text = "".join(chunks)
                    f.write(text)
                    size += len(text)
            f.write("# EOF\n")
            size += 6
        os.replace(name + ".tmp", name)
        files.append({"file": os.path.basename(name), "bytes": size, "samples": samples,
                      "block_start": block})
        block += BLOCK_S
    return files


def wait_for_room(out_dir, max_pending):
    if max_pending <= 0:
        return
    while sum(1 for e in os.listdir(out_dir) if e.endswith(".om")) >= max_pending:
        time.sleep(0.1)


# --- fleet.json -----------------------------------------------------------------------------------

def ground_truth(fleet, stats, files):
    a, step, start = fleet.args, fleet.args.step, fleet.start

    def t(i):  # the time of sample i
        return start + (i + 1) * step

    workloads = []
    for w in fleet.workloads:
        gpus = []
        for g in sorted(w["gpus"], key=lambda g: (g["host"], g["gpu"])):
            p = g["pod"]
            gpus.append({"label": g["label"], "host": g["host"], "gpu": g["gpu"], "uuid": g["uuid"],
                         "namespace": p["namespace"] if p else None,
                         "pod": p["name"] if p else None,
                         "first_s": t(g["i0"]), "last_s": t(g["i1"] - 1), **stats[g["uuid"]]})
        pods = [{"name": p["name"], "namespace": p["namespace"], "uid": p["uid"],
                 "owner_kind": p["owner_kind"], "owner_name": p["owner_name"],
                 "owner_chain": owner_chain(fleet, p), "labels": p["labels"],
                 "first_s": t(p["i0"]), "last_s": t(p["i1"] - 1),
                 "workload_by_pod": f"{p['namespace']}/{p['name']}",
                 "gpus": [g["uuid"] for g in p["gpus"]]} for p in w["pods"]]
        workloads.append({"name": w["name"], "namespace": w["namespace"], "kind": w["kind"],
                          "owner": w["owner"], "profile": w["profile"], "params": w["params"],
                          "pods": pods, "gpus": gpus})
    workloads.sort(key=lambda w: w["name"])
    by_pod = sorted({p["workload_by_pod"] for w in workloads for p in w["pods"]} |
                    {w["name"] for w in workloads if not w["pods"]})
    return {
        "schema": "rightsize-bench-fleet/1",
        "parameters": {"gpus": a.gpus, "range_s": a.range_s, "step_s": step, "end_s": a.end,
                       "start_s": start, "first_sample_s": start + step, "seed": a.seed,
                       "kube_state_metrics": not a.no_kube_state_metrics,
                       "samples_per_full_series": fleet.n, "model": MODEL,
                       "memory_total_mib": TOTAL_MIB},
        "notes": ["samples at start_s + step_s ... end_s: a range selector [range_s] at end_s "
                  "holds all of them, under Prometheus 2.x's closed and 3.x's left-open rule",
                  "gpu_util is a fraction, gpu_util_percent the exporter's percent; quantiles at "
                  "rank q*(n-1), linearly interpolated (Prometheus quantile_over_time)",
                  "memory_used_bytes = FB_USED MiB * 1048576; "
                  "FB_USED + FB_FREE = memory_total_mib"],
        "expected_workloads": {"by_owner": sorted(w["name"] for w in workloads), "by_pod": by_pod},
        "series": {"dcgm_per_metric": len(fleet.gpus),
                   "kube_state_metrics": 0 if a.no_kube_state_metrics else len(ksm_series(fleet))},
        "files": files,
        "workloads": workloads,
    }


def owner_chain(fleet, p):
    chain = [{"kind": p["owner_kind"], "name": p["owner_name"]}]
    for c in fleet.controllers:
        if c["kind"] == p["owner_kind"] and c["name"] == p["owner_name"] and \
                c["namespace"] == p["namespace"]:
            chain.append({"kind": c["owner_kind"], "name": c["owner_name"]})
    return chain


# --- check: what Prometheus answers against fleet.json --------------------------------------------

def promql(url, query, at, headers=None):
    """One instant query; returns (result, seconds, bytes)."""
    import urllib.parse
    import urllib.request
    q = urllib.parse.urlencode({"query": query, "time": at})
    req = urllib.request.Request(f"{url}/api/v1/query?{q}", headers=headers or {})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    t0 = time.time()
    with opener.open(req, timeout=600) as r:
        body = r.read()
    took = time.time() - t0
    answer = json.loads(body)
    if answer.get("status") != "success":
        raise RuntimeError(f"{query}: {answer}")
    return answer["data"]["result"], took, len(body)


def check(argv):
    """fleet.py check --prometheus URL --fleet DIR/fleet.json: Prometheus' answers to the queries
    a server-side aggregation issues, at the window's end, against the generator's statistics."""
    p = argparse.ArgumentParser(prog="fleet.py check", description=check.__doc__)
    p.add_argument("--prometheus", required=True)
    p.add_argument("--fleet", required=True, help="fleet.json")
    p.add_argument("--timing", action="store_true", help="print each query's time and bytes")
    a = p.parse_args(argv)
    with open(a.fleet) as f:
        truth = json.load(f)
    par = truth["parameters"]
    end, rng = par["end_s"], f"{par['range_s']}s"
    gpus = {g["uuid"]: g for w in truth["workloads"] for g in w["gpus"]}
    problems, lines = [], []

    def run(query):
        result, took, size = promql(a.prometheus, query, end)
        lines.append(f"{took:8.3f} s {size:12d} B {len(result):6d} series  {query}")
        return result

    def compare(query, pick, exact=True):
        result = run(query)
        seen = set()
        for r in result:
            uid = r["metric"].get("UUID")
            g = gpus.get(uid)
            if g is None:
                problems.append(f"{query}: a series of no known GPU: {r['metric']}")
                continue
            seen.add(uid)
            got, want = float(r["value"][1]), float(pick(g))
            if got != want if exact else abs(got - want) > 1e-9 * max(1.0, abs(want)):
                problems.append(f"{query}: {g['label']}: Prometheus {got!r}, fleet.json {want!r}")
        if seen != set(gpus):
            problems.append(f"{query}: {len(seen)} GPUs answered, fleet.json has {len(gpus)}")

    util, fb = "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED"
    compare(f"count_over_time({util}[{rng}])", lambda g: g["gpu_util"]["count"])
    compare(f"quantile_over_time(0.5, {util}[{rng}])", lambda g: g["gpu_util_percent"]["p50"])
    compare(f"quantile_over_time(0.95, {util}[{rng}])", lambda g: g["gpu_util_percent"]["p95"])
    compare(f"max_over_time({util}[{rng}])", lambda g: g["gpu_util_percent"]["max"])
    compare(f"avg_over_time({util}[{rng}])", lambda g: g["gpu_util_percent"]["mean"], exact=False)
    compare(f"quantile_over_time(0.5, {fb}[{rng}])", lambda g: g["fb_used_mib"]["p50"])
    compare(f"quantile_over_time(0.95, {fb}[{rng}])", lambda g: g["fb_used_mib"]["p95"])
    compare(f"max_over_time({fb}[{rng}])", lambda g: g["fb_used_mib"]["max"])
    if par["kube_state_metrics"]:
        pods = {(p["namespace"], p["name"]): p for w in truth["workloads"] for p in w["pods"]}
        result = run("max by (namespace, pod, owner_kind, owner_name) "
                     f"(max_over_time(kube_pod_owner[{rng}]))")
        got = {(r["metric"]["namespace"], r["metric"]["pod"]):
               (r["metric"]["owner_kind"], r["metric"]["owner_name"]) for r in result}
        want = {k: (p["owner_kind"], p["owner_name"]) for k, p in pods.items()}
        if got != want:
            problems.append(f"kube_pod_owner: {sorted(set(got.items()) ^ set(want.items()))}")
        chains = {}
        for p in pods.values():
            for link in p["owner_chain"][1:]:
                chains[(p["namespace"], p["owner_chain"][0]["name"])] = (link["kind"], link["name"])
        for family, key in (("kube_replicaset_owner", "replicaset"),
                            ("kube_job_owner", "job_name")):
            result = run(f"max by (namespace, {key}, owner_kind, owner_name) "
                         f"(max_over_time({family}[{rng}]))")
            for r in result:
                m = r["metric"]
                k = (m["namespace"], m[key])
                if chains.get(k) != (m["owner_kind"], m["owner_name"]):
                    problems.append(f"{family}: {m}, fleet.json {chains.get(k)}")
        lws = "label_leaderworkerset_sigs_k8s_io_name"
        result = run(f"max by (namespace, pod, {lws}) "
                     f"(max_over_time(kube_pod_labels{{{lws}!=\"\"}}[{rng}]))")
        got = {(r["metric"]["namespace"], r["metric"]["pod"]) for r in result}
        want = {k for k, p in pods.items() if p["labels"]}
        if got != want:
            problems.append(f"kube_pod_labels (LeaderWorkerSet): {sorted(got ^ want)}")
    # The metric names present in the window, as a client asks before it queries.
    import urllib.parse
    import urllib.request
    match = '{__name__=~"DCGM_FI_.*|kube_.*_owner|kube_pod_labels"}'
    q = urllib.parse.urlencode([("match[]", match), ("start", par["start_s"]), ("end", end)])
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{a.prometheus}/api/v1/label/__name__/values?{q}", timeout=600) as r:
        names = json.load(r)["data"]
    want = ["DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_UTIL"]
    if par["kube_state_metrics"]:
        want += ["kube_job_owner", "kube_pod_labels", "kube_pod_owner", "kube_replicaset_owner"]
    if sorted(names) != sorted(want):
        problems.append(f"/api/v1/label/__name__/values: {names}, expected {want}")
    lines.append(f"/api/v1/label/__name__/values: {', '.join(sorted(names))}")
    if a.timing:
        print("\n".join(lines))
    for line in problems[:20]:
        print(f"check: {line}")
    print(f"check: {len(gpus)} GPUs, {len(lines) - 1} queries at {end} over [{rng}]: "
          f"{'all as fleet.json says' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


def main(argv):
    if argv[:1] == ["check"]:
        return check(argv[1:])
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    fleet = Fleet(args)
    fleet.build()
    owner = {g["uuid"]: (g["pod"]["workload"] if g["pod"] else w)
             for w in fleet.workloads for g in w["gpus"]}
    values, stats = {}, {}
    for g in fleet.gpus:
        util, fb = gpu_values(fleet, g, owner[g["uuid"]])
        values[g["uuid"]] = (util, fb)
        stats[g["uuid"]] = gpu_stats(util, fb)
    t1 = time.time()
    truth = ground_truth(fleet, stats, [])
    path = os.path.join(args.out, "fleet.json")
    with open(path + ".tmp", "w") as f:
        json.dump(truth, f, indent=1)
    os.replace(path + ".tmp", path)
    files = [] if args.stats_only else write_blocks(fleet, values, args.out)
    t2 = time.time()
    truth["files"] = files
    truth["timing_s"] = {"values_and_stats": round(t1 - t0, 2), "text": round(t2 - t1, 2)}
    with open(path + ".tmp", "w") as f:
        json.dump(truth, f, indent=1)
    os.replace(path + ".tmp", path)
    total = sum(f["bytes"] for f in files)
    samples = sum(f["samples"] for f in files)
    print(f"fleet.py: {len(fleet.gpus)} GPUs, {len(truth['workloads'])} workloads, "
          f"{len(files)} files, {samples} samples, {total} bytes; values and statistics "
          f"{t1 - t0:.1f} s, text {t2 - t1:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
