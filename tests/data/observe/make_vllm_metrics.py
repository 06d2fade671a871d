#!/usr/bin/env python3
"""Writes examples/observe/vllm-metrics.prom: the vLLM pod of examples/observe/cluster.prom as
Prometheus holds its engine metrics (vLLM's /metrics, scraped every 30 s for 10 minutes, the pod's
namespace and pod labels added by the scrape), in the text exposition format with timestamps, as
Prometheus' /federate endpoint writes them.

The metric names, label names, HELP texts and histogram buckets are vLLM's (v1 engine:
vllm/v1/metrics/loggers.py @005a810bc40f; inter-token latency from the releases that renamed
time_per_output_token_seconds; data/deploy.json "serving_metrics" gives the sources). The values
are made up to describe a lightly loaded 70B server: 3 to 7 requests in flight, none waiting,
a KV cache about 7% full, TTFT mostly 0.1 to 0.5 s, inter-token latency mostly 25 to 50 ms.

    python3 tests/data/observe/make_vllm_metrics.py > examples/observe/vllm-metrics.prom
"""
import math
import random

random.seed(48)
T0_MS = 1796119200000  # 2026-12-01T10:00:00Z
STEP_MS = 30_000
SCRAPES = 21
LABELS = ('engine="0",model_name="meta-llama/Llama-3.1-70B-Instruct",'
          'namespace="llm-serving",pod="vllm-llama3-70b-7d9f8c6b5-x2k4p"')
TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
               10.0, 20.0, 40.0, 80.0]


def fmt(v):
    return repr(float(v))


class Histogram:
    def __init__(self, bounds):
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0

    def observe(self, x):
        self.sum += x
        for i, b in enumerate(self.bounds):
            if x <= b:
                self.counts[i] += 1
                return
        self.counts[-1] += 1

    def lines(self, name, ts):
        out = []
        cumulative = 0
        for b, c in zip(self.bounds + [math.inf], self.counts):
            cumulative += c
            le = "+Inf" if b == math.inf else fmt(b)
            out.append(f'{name}_bucket{{{LABELS.replace("model_name", "le=" + chr(34) + le + chr(34) + ",model_name", 1)}}} {fmt(cumulative)} {ts}')
        out.append(f"{name}_count{{{LABELS}}} {fmt(cumulative)} {ts}")
        out.append(f"{name}_sum{{{LABELS}}} {fmt(round(self.sum, 6))} {ts}")
        return out


ttft = Histogram(TTFT_BUCKETS)
itl = Histogram(ITL_BUCKETS)
for k in range(SCRAPES):
    ts = T0_MS + k * STEP_MS
    if k > 0:
        for _ in range(random.randint(8, 14)):  # requests finished in the last 30 s
            ttft.observe(random.lognormvariate(math.log(0.22), 0.45))
        for _ in range(random.randint(3500, 5000)):  # output tokens streamed
            itl.observe(random.lognormvariate(math.log(0.031), 0.25))
    running = random.choice([3, 4, 4, 5, 5, 6, 7])
    kv = round(running * 0.0131 + random.uniform(-0.004, 0.004), 4)
    print("# HELP vllm:num_requests_running Number of requests in model execution batches.")
    print("# TYPE vllm:num_requests_running gauge")
    print(f"vllm:num_requests_running{{{LABELS}}} {fmt(running)} {ts}")
    print("# HELP vllm:num_requests_waiting Number of requests waiting to be processed.")
    print("# TYPE vllm:num_requests_waiting gauge")
    print(f"vllm:num_requests_waiting{{{LABELS}}} 0.0 {ts}")
    print("# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.")
    print("# TYPE vllm:kv_cache_usage_perc gauge")
    print(f"vllm:kv_cache_usage_perc{{{LABELS}}} {fmt(kv)} {ts}")
    print("# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.")
    print("# TYPE vllm:num_preemptions_total counter")
    print(f"vllm:num_preemptions_total{{{LABELS}}} 0.0 {ts}")
    print("# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.")
    print("# TYPE vllm:time_to_first_token_seconds histogram")
    print("\n".join(ttft.lines("vllm:time_to_first_token_seconds", ts)))
    print("# HELP vllm:inter_token_latency_seconds Histogram of inter-token latency in seconds.")
    print("# TYPE vllm:inter_token_latency_seconds histogram")
    print("\n".join(itl.lines("vllm:inter_token_latency_seconds", ts)))
