"""Fixture servers for tests/observe/test_prometheus_live.sh, all on 127.0.0.1, ports chosen by the
kernel and written as JSON to the file given as the only argument once every one listens:

  node-a, node-b  dcgm-exporter's /metrics on two hosts, in its exact text format (the template of
                  internal/pkg/rendermetrics/render_metrics.go: gpu, UUID, pci_bus_id, device,
                  modelName, Hostname, then the label fields, then the Kubernetes attributes
                  container, namespace, pod, each group in sorted order). node-a runs two pods: one
                  busy (~80 % GPU utilization), one idle (~0 %); node-b one GPU outside Kubernetes
                  (the exporter writes its pod labels empty; Prometheus drops empty labels),
                  power capped. Values move with each scrape.
  html            a web page (200, text/html) for every path: a URL that is not Prometheus
  error500        HTTP 500 with a two-line text body
  hang            accepts the request and never answers
  garbage         200, application/json, a body that is not JSON

Runs until killed. Only the Python standard library (Debian's /usr/bin/python3).
"""

import json
import math
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DRIVER = "550.54.15"
MODEL = "NVIDIA H100 80GB HBM3"
TOTAL_MIB = 81559  # nvidia-smi's memory.total of an H100 80GB HBM3
RESERVED_MIB = 527

# (node, gpu index, UUID, pci bus id, kubernetes attributes, profile of the load)
GPUS = [
    ("node-a", 0, "GPU-5f3b1c2e-8a41-4d0f-9c7e-2b6a1d9e0f11", "00000000:1B:00.0",
     {"container": "vllm", "namespace": "inference", "pod": "chat-busy-7d9f8"}, "busy"),
    ("node-a", 1, "GPU-a7c04e19-3d2b-4f5e-8e61-0c9b7f2a4d22", "00000000:43:00.0",
     {"container": "vllm", "namespace": "inference", "pod": "chat-idle-5c4b2"}, "idle"),
    ("node-b", 0, "GPU-0e6d2f7a-91b3-4c8e-a5d4-6f1e3b8c9a33", "00000000:1B:00.0",
     {"container": "", "namespace": "", "pod": ""}, "batch"),
]

# (field, type, help) as dcgm-exporter's etc/default-counters.csv and dcp-metrics-included.csv
# name them; POWER_MGMT_LIMIT and CLOCK_THROTTLE_REASONS as a custom counters file adds them.
FIELDS = [
    ("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."),
    ("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz)."),
    ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
    ("DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W)."),
    ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
     "Total energy consumption since boot (in mJ)."),
    ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %)."),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."),
    ("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB)."),
    ("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB)."),
    ("DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB)."),
    ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge", "Current clock throttle reasons."),
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active."),
    ("DCGM_FI_PROF_SM_ACTIVE", "gauge", "The ratio of cycles an SM has at least 1 warp assigned."),
    ("DCGM_FI_PROF_SM_OCCUPANCY", "gauge", "The ratio of number of warps resident on an SM."),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge",
     "Ratio of cycles the tensor (HMMA) pipe is active."),
    ("DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
     "Ratio of cycles the device memory interface is active sending or receiving data."),
    ("DCGM_FI_PROF_PCIE_TX_BYTES", "gauge",
     "The rate of data transmitted over the PCIe bus - including both protocol headers and data "
     "payloads - in bytes per second."),
    ("DCGM_FI_PROF_PCIE_RX_BYTES", "gauge",
     "The rate of data received over the PCIe bus - including both protocol headers and data "
     "payloads - in bytes per second."),
]


def values(profile, n):
    """The fields' values of one GPU at its n-th scrape."""
    wave = math.sin(n / 3.0)
    if profile == "busy":
        util, used, power, clock, throttle = 80 + 5 * wave, 71234, 540 + 20 * wave, 1980, 0
    elif profile == "idle":
        util, used, power, clock, throttle = (1 if n % 7 == 3 else 0), 1024, 71, 345, 1
    else:
        # Power capped (0x4): rightsize counts it as throttled.
        util, used, power, clock, throttle = 35 + 10 * wave, 40960, 310 + 15 * wave, 1755, 4
    frac = util / 100.0
    return {
        "DCGM_FI_DEV_SM_CLOCK": clock,
        "DCGM_FI_DEV_MEM_CLOCK": 2619,
        "DCGM_FI_DEV_GPU_TEMP": round(30 + 40 * frac),
        "DCGM_FI_DEV_POWER_USAGE": round(power, 3),
        "DCGM_FI_DEV_POWER_MGMT_LIMIT": 700,
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": 123456789012 + n * int(power * 1000),
        "DCGM_FI_DEV_GPU_UTIL": round(util),
        "DCGM_FI_DEV_MEM_COPY_UTIL": round(util * 0.6),
        "DCGM_FI_DEV_XID_ERRORS": 0,
        "DCGM_FI_DEV_FB_FREE": TOTAL_MIB - RESERVED_MIB - used,
        "DCGM_FI_DEV_FB_USED": used,
        "DCGM_FI_DEV_FB_RESERVED": RESERVED_MIB,
        "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": throttle,
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE": round(frac, 6),
        "DCGM_FI_PROF_SM_ACTIVE": round(frac * 0.9, 6),
        "DCGM_FI_PROF_SM_OCCUPANCY": round(frac * 0.45, 6),
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": round(frac * 0.4, 6),
        "DCGM_FI_PROF_DRAM_ACTIVE": round(frac * 0.55, 6),
        "DCGM_FI_PROF_PCIE_TX_BYTES": round(2.5e8 * frac),
        "DCGM_FI_PROF_PCIE_RX_BYTES": round(4.0e8 * frac),
    }


def render(node, n):
    """One scrape of `node`, as dcgm-exporter writes it."""
    gpus = [g for g in GPUS if g[0] == node]
    per_gpu = [(g, values(g[5], n)) for g in gpus]
    out = []
    for field, kind, help_text in FIELDS:
        out.append(f"# HELP {field} {help_text}")
        out.append(f"# TYPE {field} {kind}")
        for (host, index, uuid, bus, attrs, _), vals in per_gpu:
            labels = (f'gpu="{index}",UUID="{uuid}",pci_bus_id="{bus}",device="nvidia{index}",'
                      f'modelName="{MODEL}",Hostname="{host}",DCGM_FI_DRIVER_VERSION="{DRIVER}"')
            for key in sorted(attrs):
                labels += f',{key}="{attrs[key]}"'
            out.append(f"{field}{{{labels}}} {vals[field]}")
    return "\n".join(out) + "\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the test's output is its checks
        pass

    def send(self, status, content_type, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        mode = self.server.mode
        if mode in ("node-a", "node-b"):
            if self.path.split("?")[0] != "/metrics":
                self.send(404, "text/plain; charset=utf-8", "404 page not found\n")
                return
            with self.server.lock:
                self.server.scrapes += 1
                n = self.server.scrapes
            self.send(200, "text/plain; version=0.0.4; charset=utf-8", render(mode, n))
        elif mode == "html":
            self.send(200, "text/html; charset=utf-8",
                      "<!DOCTYPE html>\n<html><head><title>Grafana</title></head>"
                      "<body>Welcome</body></html>\n")
        elif mode == "error500":
            self.send(500, "text/plain; charset=utf-8",
                      "internal error: the storage is locked\nplease retry later\n")
        elif mode == "garbage":
            self.send(200, "application/json", "this is not JSON {")
        elif mode == "hang":
            time.sleep(3600)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, mode):
        super().__init__(("127.0.0.1", 0), Handler)
        self.mode = mode
        self.scrapes = 0
        self.lock = threading.Lock()


def main():
    ports_file = sys.argv[1]
    servers = {mode: Server(mode)
               for mode in ("node-a", "node-b", "html", "error500", "hang", "garbage")}
    for server in servers.values():
        threading.Thread(target=server.serve_forever, daemon=True).start()
    ports = {mode: server.server_address[1] for mode, server in servers.items()}
    tmp = ports_file + ".tmp"
    with open(tmp, "w") as f:
        json.dump(ports, f)
    os.replace(tmp, ports_file)
    threading.Event().wait()


if __name__ == "__main__":
    main()
