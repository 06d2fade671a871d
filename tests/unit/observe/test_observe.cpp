// The analysis of rightsize observe on telemetry built by hand: percentiles, each reason code,
// each verdict and the recommendation, against numbers worked out in the comments from
// data/gpus.json (H100-SXM-80GB: 989.4 TFLOP/s bf16, 3,350 GB/s, cheapest on-demand $2.95/h).

#include "fixtures.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/observe/observe.hpp>

#include <catch2/catch.hpp>

namespace rightsize {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;
constexpr double k_month = 730.0; // hours

const GpuProducts& products() {
  static const GpuProducts p = load_gpu_products(std::string(RIGHTSIZE_DATA_DIR) + "/deploy.json");
  return p;
}

// One GPU sampled every 30 s: utilization from `work(i)`, memory used from `memory(i)` (bytes).
template <typename Work, typename Memory>
GpuSeries gpu(const std::string& host,
              const std::string& index,
              const std::string& model,
              std::size_t n,
              Work work,
              Memory memory,
              double total_gib = 80) {
  GpuSeries g;
  g.id.host = host;
  g.id.index = index;
  g.id.uuid = "GPU-" + host + "-" + index;
  g.id.model_name = model;
  g.id.source = "test.csv";
  for (std::size_t i = 0; i < n; ++i) {
    const double t = 1.7e9 + 30.0 * static_cast<double>(i);
    g[Metric::gpu_utilization].add(t, work(i));
    g[Metric::memory_used].add(t, memory(i));
    g[Metric::memory_total].add(t, total_gib * k_gib);
  }
  return g;
}

Telemetry one(GpuSeries g) {
  Telemetry t;
  t.gpus.push_back(std::move(g));
  return t;
}

ObserveReport run(const Telemetry& t, ObserveOptions o = {}) {
  return observe(t, {}, test::catalog(), products(), o);
}

bool has_reason(const WorkloadObservation& w, const std::string& code) {
  for (const auto& r : w.reasons) {
    if (r.code == code) {
      return true;
    }
  }
  return false;
}

const auto h100 = "NVIDIA H100 80GB HBM3";

} // namespace

TEST_CASE("observe: percentiles interpolate between order statistics", "[observe]") {
  std::vector<double> v;
  for (int i = 11; i >= 1; --i) {
    v.push_back(i); // 1..11, reversed: order must not matter
  }
  CHECK(percentile(v, 50) == Approx(6));
  CHECK(percentile(v, 95) == Approx(10.5)); // rank 0.95 * 10 = 9.5: between 10 and 11
  CHECK(percentile(v, 100) == Approx(11));
  CHECK(percentile(v, 0) == Approx(1));
  CHECK(percentile({}, 95) == 0);
  const auto p = summarize({0.2, 0.4});
  CHECK(p.p50 == Approx(0.3));
  CHECK(p.p95 == Approx(0.39));
  CHECK(p.max == Approx(0.4));
  CHECK(p.samples == 2);
}

TEST_CASE("observe: NVML names map to the catalog", "[observe]") {
  const auto& c = test::catalog();
  const auto& d = products();
  CHECK(identify_gpu("NVIDIA H100 80GB HBM3", c, d, {})->name == "H100-SXM-80GB");
  CHECK(identify_gpu("NVIDIA A100 80GB PCIe", c, d, {})->name == "A100-PCIE-80GB");
  CHECK(identify_gpu("NVIDIA A100-SXM4-40GB", c, d, {})->name == "A100-SXM-40GB");
  CHECK(identify_gpu("A100-SXM4-40GB", c, d, {})->name == "A100-SXM-40GB"); // drivers before 2021
  CHECK(identify_gpu("NVIDIA L4", c, d, {})->name == "L4-24GB");
  CHECK(identify_gpu("H100", c, d, {})->name == "H100-SXM-80GB");
  CHECK(identify_gpu("Quadro RTX 8000", c, d, {}) == nullptr);
  CHECK(identify_gpu("Quadro RTX 8000", c, d, {{"Quadro RTX 8000", "L40S-48GB"}})->name ==
        "L40S-48GB");
  // Mapped names compare by letters and digits, without the vendor: no quoting of spaces needed.
  CHECK(identify_gpu("NVIDIA A100-PG509-200", c, d, {{"a100-pg509-200", "A100-SXM-40GB"}})->name ==
        "A100-SXM-40GB");
}

TEST_CASE("observe: a lightly used H100 is over-provisioned; the cheapest cover is a MIG slice",
          "[observe]") {
  // Utilization 0, 0.002, ..., 0.2 (101 samples): p95 = 0.19. Memory 10 GiB of 80.
  const auto t = one(gpu(
      "node1",
      "0",
      h100,
      101,
      [](std::size_t i) { return 0.002 * static_cast<double>(i); },
      [](std::size_t) { return 10 * k_gib; }));
  const auto report = run(t);
  REQUIRE(report.workloads.size() == 1);
  const auto& w = report.workloads[0];
  CHECK(w.name == "node1/gpu0");
  CHECK(w.gpu == "H100-SXM-80GB");
  CHECK(w.samples == 101); // time points of the work metric
  CHECK(w.window_s == Approx(3000));
  CHECK(w.observed.at(Metric::gpu_utilization).p95 == Approx(0.19));
  CHECK(*w.memory_needed_bytes == Approx(12 * k_gib)); // 10 GiB + 20%
  CHECK(w.work_needed_gpus == Approx(0.228));          // 0.19 x 1.2
  CHECK(w.verdict == "over-provisioned");
  CHECK(has_reason(w, "low_utilization"));
  CHECK(has_reason(w, "memory_headroom")); // 12 GiB of 80 = 15% < 50%
  const auto& r = *w.recommendation;
  // Need: 0.19 x 1.2 x 989.4 = 225.6 TFLOP/s, 0.19 x 1.2 x 3,350 = 763.8 GB/s, 12 GiB.
  // H100 2g.20gb: 2/7 x 989.4 = 282.7 TFLOP/s, 20/80 x 3,350 = 837.5 GB/s, 20 GB, priced at
  // max(2/7, 20/80) of $2.95/h = $0.843/h = $615.36/month: cheaper than an L40S ($627.80).
  // (1g.20gb: 1/7 x 989.4 = 141 TFLOP/s is too little.)
  CHECK(r.gpu == "H100-SXM-80GB");
  CHECK(r.partition == "2g.20gb");
  CHECK(r.gpus == 1);
  CHECK(*r.usd_per_month_now == Approx(2.95 * k_month));
  CHECK(*r.usd_per_month_recommended == Approx(2.95 * 2 / 7 * k_month));
  CHECK(*r.usd_per_month_saved == Approx(2.95 * 5 / 7 * k_month));
  CHECK(r.gpus_freed == Approx(5.0 / 7));
  CHECK(report.summary.by_verdict.at("over-provisioned") == 1);
  CHECK(report.summary.usd_per_month_saved == Approx(2.95 * 5 / 7 * k_month));

  SECTION("without MIG, an L40S: 362 TFLOP/s, 864 GB/s, 45 GiB for $0.86/h") {
    ObserveOptions o;
    o.mig = false;
    const auto report2 = run(t, o);
    const auto& r2 = *report2.workloads[0].recommendation;
    CHECK(r2.gpu == "L40S-48GB");
    // 2 x L4 cost the same ($0.43/h each) but deliver 2 x 0.9 x 121 = 218 TFLOP/s < 225.6.
    CHECK(r2.gpus == 1);
    CHECK(*r2.usd_per_month_recommended == Approx(0.86 * k_month));
    CHECK(r2.gpus_freed == Approx(1));
  }
}

TEST_CASE("observe: a GPU that does nothing is idle and freed", "[observe]") {
  const auto t = one(gpu(
      "node1",
      "3",
      h100,
      50,
      [](std::size_t) { return 0.01; },
      [](std::size_t) { return 70 * k_gib; }));
  const auto report = run(t);
  const auto& w = report.workloads[0];
  CHECK(w.verdict == "idle");
  CHECK(has_reason(w, "idle"));
  CHECK(w.recommendation->gpus == 0);
  CHECK(*w.recommendation->usd_per_month_saved == Approx(2.95 * k_month));
  CHECK(w.recommendation->gpus_freed == Approx(1));
}

TEST_CASE("observe: memory pressure is under-provisioned; the cover keeps NVLink", "[observe]") {
  // 79 GiB of 80 used (98.75% >= 95%), work 50%: need 94.8 GiB, 593.6 TFLOP/s, 2,010 GB/s.
  // 4 x L40S would cover it for $2,511/month but splits one GPU's memory over PCIe; H100 NVL
  // (94 GB) is just short: an H200 (141 GB), $3.50/h.
  const auto t = one(gpu(
      "node1",
      "0",
      h100,
      21,
      [](std::size_t) { return 0.5; },
      [](std::size_t) { return 79 * k_gib; }));
  const auto report = run(t);
  const auto& w = report.workloads[0];
  CHECK(w.verdict == "under-provisioned");
  CHECK(has_reason(w, "memory_pressure"));
  CHECK(w.recommendation->gpu == "H200-SXM-141GB");
  CHECK(w.recommendation->gpus == 1);
  CHECK(*w.recommendation->usd_per_month_saved == Approx((2.95 - 3.50) * k_month));
  CHECK(w.recommendation->gpus_freed == 0);
}

TEST_CASE("observe: a saturated GPU is under-provisioned", "[observe]") {
  // Work 95% throughout: 0.95 x 1.2 = 1.14 H100s: 1,128 TFLOP/s and 3,819 GB/s, more than one
  // H100 or H200. 2 x H100 PCIe ($4.78/h) deliver 2 x 0.9 (scale-out) x 2,000 = 3,600 GB/s, too
  // little; one B200 is sold only in Nebius's 8-GPU instance ($44/h, issue 43), so 2 x H100 NVL
  // (2 x 0.9 x 836 = 1,505 TFLOP/s, 7,020 GB/s, 2 x $2.79/h at RunPod) are the cheapest that hold
  // it, cheaper than 2 x H100 SXM ($5.90/h).
  const auto t = one(gpu(
      "node1",
      "0",
      h100,
      21,
      [](std::size_t) { return 0.95; },
      [](std::size_t) { return 40 * k_gib; }));
  const auto report = run(t);
  const auto& w = report.workloads[0];
  CHECK(w.verdict == "under-provisioned");
  CHECK(has_reason(w, "compute_saturated"));
  CHECK(w.recommendation->gpu == "H100-NVL-94GB");
  CHECK(w.recommendation->gpus == 2);
  CHECK(report.summary.usd_per_month_added == Approx((2 * 2.79 - 2.95) * k_month));

  SECTION("without the scale-out discount, 2 x H100 PCIe would do") {
    ObserveOptions o;
    o.scale_out_efficiency = 1.0;
    const auto ideal = run(t, o);
    CHECK(ideal.workloads[0].recommendation->gpu == "H100-PCIE-80GB");
    CHECK(ideal.workloads[0].recommendation->gpus == 2);
  }
}

TEST_CASE("observe: busy enough and nothing cheaper is right-sized", "[observe]") {
  // Work 70%: 0.7 x 1.2 = 0.84 of an H100; nothing cheaper than $2.95/h covers 831 TFLOP/s and
  // 2,814 GB/s in 48 GiB.
  const auto t = one(gpu(
      "node1",
      "0",
      h100,
      21,
      [](std::size_t) { return 0.7; },
      [](std::size_t) { return 40 * k_gib; }));
  const auto report = run(t);
  const auto& w = report.workloads[0];
  CHECK(w.verdict == "right-sized");
  CHECK(w.reasons.empty());
  CHECK(w.recommendation->gpu == "H100-SXM-80GB");
  CHECK(*w.recommendation->usd_per_month_saved == Approx(0));
}

TEST_CASE("observe: throttling, NVLink traffic and input waits are reasons", "[observe]") {
  auto g = gpu(
      "node1",
      "0",
      h100,
      21,
      [](std::size_t) { return 0.7; },
      [](std::size_t) { return 40 * k_gib; });
  for (std::size_t i = 0; i < 10; ++i) {
    g[Metric::throttled].add(1.7e9 + 30.0 * static_cast<double>(i), i < 3 ? 1 : 0); // 30%
    g[Metric::nvlink_tx].add(1.7e9 + 30.0 * static_cast<double>(i), 400e9);         // of 450 GB/s
  }
  const auto plain = run(one(g));
  const auto& w = plain.workloads[0];
  CHECK(has_reason(w, "throttled"));
  CHECK(has_reason(w, "interconnect_bound"));

  TraceProfile trace;
  trace.source = "step.json";
  trace.format = "torch";
  trace.device_name = h100;
  trace.devices = 1;
  trace.window_s = 10;
  trace.gpu_busy_s = 5;
  trace.input_wait_s = 3; // 30% >= 20%
  trace.busy_by_class_s = {4, 0.5, 0, 0.5, 0};
  const auto report = observe(one(g), {NamedTrace{"", trace}}, test::catalog(), products(), {});
  const auto& traced = report.workloads[0];
  CHECK(has_reason(traced, "input_bound"));
  REQUIRE(traced.trace);
  CHECK(traced.trace->input_wait_fraction == Approx(0.3));
  CHECK(traced.trace->share_by_class[0] == Approx(0.8));
}

TEST_CASE("observe: PCIe input traffic and NCCL-heavy traces are reasons too", "[observe]") {
  // H100 SXM's host link: PCIe 5 x16, 64 GB/s per direction (data/gpus.json). 50 GB/s of
  // host-to-GPU traffic is 78% (>= 60%) while the GPU works 20% (< 40%): input_bound.
  auto g = gpu(
      "node1",
      "0",
      h100,
      21,
      [](std::size_t) { return 0.2; },
      [](std::size_t) { return 20 * k_gib; });
  for (std::size_t i = 0; i < 10; ++i) {
    g[Metric::pcie_rx].add(1.7e9 + 30.0 * static_cast<double>(i), 50e9);
  }
  const auto fed = run(one(g));
  CHECK(has_reason(fed.workloads[0], "input_bound"));
  CHECK_FALSE(has_reason(fed.workloads[0], "interconnect_bound"));

  TraceProfile trace;
  trace.source = "ddp.sqlite";
  trace.format = "nsys";
  trace.device_name = h100;
  trace.devices = 2;
  trace.window_s = 1;
  trace.gpu_busy_s = 1.2;
  trace.busy_by_class_s = {0.6, 0, 0.4, 0, 0}; // NCCL: 40% of the classified time (>= 30%)
  const auto report = observe({}, {NamedTrace{"", trace}}, test::catalog(), products(), {});
  const auto& w = report.workloads[0];
  CHECK(w.gpus == 2);
  CHECK(has_reason(w, "interconnect_bound"));
  // Busy 1.2 s of 2 GPU-seconds = 60%: the need is 0.6 x 1.2 x 2 = 1.44 H100s. Not low (>= 40%),
  // no memory figure: right-sized, keep the two H100s (a B200 would save $0.40/h of $5.90: 7%,
  // under the 10% worth moving for).
  CHECK(w.work_needed_gpus == Approx(1.44));
  CHECK(w.verdict == "right-sized");
  CHECK(w.recommendation->gpu == "H100-SXM-80GB");
  CHECK(w.recommendation->gpus == 2);
}

TEST_CASE("observe: a trace alone is a workload of its own", "[observe]") {
  TraceProfile trace;
  trace.source = "/tmp/runs/train-step.json";
  trace.format = "torch";
  trace.device_name = "NVIDIA A100-SXM4-80GB";
  trace.devices = 1;
  trace.window_s = 2;
  trace.gpu_busy_s = 0.3; // 15% busy
  trace.peak_memory_bytes = 6 * k_gib;
  const auto report = observe({}, {NamedTrace{"", trace}}, test::catalog(), products(), {});
  const auto& w = report.workloads[0];
  CHECK(w.name == "train-step.json");
  CHECK(w.gpu == "A100-SXM-80GB");
  CHECK(w.work_metric == "trace");
  CHECK(*w.memory_needed_bytes == Approx(7.2 * k_gib));
  CHECK(w.verdict == "over-provisioned");
}

TEST_CASE("observe: pods group their GPUs; hosts and GPUs group on request", "[observe]") {
  Telemetry t;
  for (const auto* index : {"0", "1"}) {
    auto g = gpu(
        "node1",
        index,
        h100,
        21,
        [](std::size_t) { return 0.6; },
        [](std::size_t) { return 30 * k_gib; });
    g.id.namespace_name = "serving";
    g.id.pod = "llama-0";
    t.gpus.push_back(std::move(g));
  }
  t.gpus.push_back(gpu(
      "node1", "2", h100, 10, [](std::size_t) { return 0.0; }, [](std::size_t) { return 0.0; }));
  const auto report = run(t);
  REQUIRE(report.workloads.size() == 2);
  CHECK(report.workloads[0].name == "serving/llama-0");
  CHECK(report.workloads[0].gpus == 2);
  CHECK(report.workloads[1].name == "node1/gpu2");
  CHECK(report.summary.gpus_observed == Approx(3));

  ObserveOptions by_host;
  by_host.group_by = GroupBy::host;
  const auto hosts = run(t, by_host);
  REQUIRE(hosts.workloads.size() == 1);
  CHECK(hosts.workloads[0].gpus == 3);
}

TEST_CASE("observe: the same GPU from two inputs is one GPU", "[observe]") {
  auto first = gpu(
      "node1",
      "0",
      h100,
      10,
      [](std::size_t) { return 0.5; },
      [](std::size_t) { return 30 * k_gib; });
  auto second = first;
  for (auto& samples : second.metrics) {
    for (auto& time : samples.time_s) {
      time -= 3600; // an earlier hour, given second
    }
  }
  Telemetry t;
  t.gpus.push_back(first);
  t.gpus.push_back(second);
  const auto report = run(t);
  const auto& w = report.workloads[0];
  CHECK(w.gpus == 1);
  CHECK(w.samples == 20);
  CHECK(w.window_s == Approx(3600 + 270));
}

TEST_CASE("observe: an unknown GPU is skipped with a warning, and alone it is an error",
          "[observe]") {
  Telemetry t = one(gpu(
      "node1",
      "0",
      "Quadro RTX 8000",
      5,
      [](std::size_t) { return 0.5; },
      [](std::size_t) { return k_gib; }));
  CHECK_THROWS_WITH(run(t), Catch::Contains("GPU \"Quadro RTX 8000\" is not in the catalog"));
  t.gpus.push_back(gpu(
      "node1", "1", h100, 5, [](std::size_t) { return 0.5; }, [](std::size_t) { return k_gib; }));
  const auto report = run(t);
  CHECK(report.workloads.size() == 1);
  REQUIRE(report.warnings.size() == 2); // and: 5 samples are a snapshot
  CHECK_THAT(report.warnings[0],
             Catch::StartsWith("test.csv: node1/gpu0: GPU \"Quadro RTX 8000\""));
  CHECK_THAT(report.warnings[1], Catch::Contains("only 5 samples per GPU"));
}

TEST_CASE("observe: a MIG instance is costed as its slice", "[observe]") {
  auto g = gpu(
      "node1",
      "0",
      h100,
      21,
      [](std::size_t) { return 0.9; },
      [](std::size_t) { return 18 * k_gib; },
      20);
  g.id.mig_profile = "2g.20gb";
  const auto report = run(one(g));
  const auto& w = report.workloads[0];
  CHECK(w.partition == "2g.20gb");
  CHECK(*w.recommendation->usd_per_month_now == Approx(2.95 * 2 / 7 * k_month));
  CHECK(report.summary.gpus_observed == Approx(2.0 / 7));
}

TEST_CASE("observe: defects a new user found", "[observe]") {
  SECTION("a GPU busy one hour a day is not idle: its p95 is 0 but its max is 100%") {
    // 2,880 samples a day, 120 of them (an hour) at 100%: p95 = 0.
    const auto t = one(gpu(
        "node1",
        "0",
        h100,
        2880,
        [](std::size_t i) { return i >= 240 && i < 360 ? 1.0 : 0.0; },
        [](std::size_t) { return 60 * k_gib; }));
    const auto report = run(t);
    const auto& w = report.workloads[0];
    CHECK(w.observed.at(Metric::gpu_utilization).p95 == Approx(0));
    CHECK(w.verdict != "idle");
    CHECK(has_reason(w, "low_utilization"));
    REQUIRE_FALSE(w.notes.empty());
    CHECK_THAT(w.notes[0], Catch::StartsWith("bursts: at its busiest the work reached 100%"));
  }
  SECTION("a host's GPUs are sized by the sum of their levels, not a pooled p95 times four") {
    Telemetry t;
    const double levels[] = {0.0, 0.99, 0.6, 0.2};
    for (int i = 0; i < 4; ++i) {
      const double level = levels[i];
      t.gpus.push_back(gpu(
          "node1",
          std::to_string(i),
          h100,
          100,
          [level](std::size_t) { return level; },
          [](std::size_t) { return 30 * k_gib; }));
    }
    ObserveOptions o;
    o.group_by = GroupBy::host;
    const auto report = run(t, o);
    // (0 + 0.99 + 0.6 + 0.2) x 1.2 = 2.148 H100s, not 0.99 x 1.2 x 4 = 4.75.
    CHECK(report.workloads[0].work_needed_gpus == Approx(2.148));
  }
  SECTION("under-provisioned with no buffer still recommends more than it has") {
    const auto t = one(gpu(
        "node1",
        "0",
        h100,
        21,
        [](std::size_t) { return 0.95; },
        [](std::size_t) { return 40 * k_gib; }));
    ObserveOptions o;
    o.buffer = 0;
    const auto report = run(t, o);
    const auto& r = *report.workloads[0].recommendation;
    CHECK(report.workloads[0].verdict == "under-provisioned");
    CHECK(*r.usd_per_month_saved < 0);
    CHECK(r.gpu != "H100-SXM-80GB");
  }
  SECTION("a GPU without utilization samples is skipped, the others judged") {
    Telemetry t = one(gpu(
        "node1",
        "0",
        h100,
        21,
        [](std::size_t) { return 0.5; },
        [](std::size_t) { return 10 * k_gib; }));
    GpuSeries blind;
    blind.id.host = "node1";
    blind.id.index = "1";
    blind.id.model_name = h100;
    blind.id.source = "blind.prom";
    blind[Metric::memory_used].add(1.7e9, k_gib);
    t.gpus.push_back(blind);
    const auto report = run(t);
    REQUIRE(report.workloads.size() == 1);
    bool warned = false;
    for (const auto& w : report.warnings) {
      warned = warned || w.find("node1/gpu1: no utilization samples") != std::string::npos;
    }
    CHECK(warned);
  }
}

TEST_CASE("observe: the timeline cuts the window into equal slices of pooled percentiles",
          "[observe]") {
  // 101 samples 30 s apart (a 3,000 s window): work i/100, memory 10 GiB before i = 50, then 20.
  // Four slices of 750 s hold i = 0-24, 25-49, 50-74 and 75-100 (the last sample closes the
  // window and belongs to the last slice).
  ObserveOptions o;
  o.timeline_slices = 4;
  const auto report = run(one(gpu(
                              "node",
                              "0",
                              h100,
                              101,
                              [](std::size_t i) { return static_cast<double>(i) / 100.0; },
                              [](std::size_t i) { return (i < 50 ? 10 : 20) * k_gib; })),
                          o);
  const auto& t = report.workloads.at(0).timeline;
  REQUIRE(t.size() == 4);
  CHECK(t[0].start_s == Approx(0));
  CHECK(t[0].end_s == Approx(750));
  CHECK(t[0].samples == 25);
  CHECK(t[0].work.p50 == Approx(0.12));
  CHECK(t[0].work.p95 == Approx(0.228)); // rank 0.95 x 24 = 22.8: 0.22 + 0.8 x 0.01
  CHECK(t[0].work.max == Approx(0.24));
  REQUIRE(t[1].memory_used_bytes);
  CHECK(t[1].memory_used_bytes->max == Approx(10 * k_gib));
  CHECK(t[2].memory_used_bytes->p50 == Approx(20 * k_gib));
  CHECK(t[3].start_s == Approx(2250));
  CHECK(t[3].end_s == Approx(3000));
  CHECK(t[3].samples == 26);
  CHECK(t[3].work.p50 == Approx(0.875)); // 26 values 0.75-1.00: between the 13th and 14th
  CHECK(t[3].work.max == Approx(1.0));

  // Slices without a sample are left out, not drawn as zero.
  Telemetry gap = one(gpu(
      "node",
      "0",
      h100,
      1,
      [](std::size_t) { return 0.5; },
      [](std::size_t) { return 10 * k_gib; }));
  gap.gpus[0][Metric::gpu_utilization].add(1.7e9 + 3000, 0.9);
  const auto gapped = run(gap, o);
  REQUIRE(gapped.workloads.at(0).timeline.size() == 2);
  CHECK(gapped.workloads[0].timeline[1].work.max == Approx(0.9));

  o.timeline_slices = 0;
  CHECK(run(gap, o).workloads.at(0).timeline.empty());
}

TEST_CASE("observe: too little evidence and an input-bound GPU give no saving", "[observe]") {
  SECTION("3 samples over 60 s: observe longer, keep it, nothing saved or freed") {
    const auto t = one(gpu(
        "node1",
        "3",
        h100,
        3,
        [](std::size_t) { return 0.0; },
        [](std::size_t) { return 1 * k_gib; }));
    const auto report = run(t);
    const auto& w = report.workloads[0];
    CHECK(w.verdict == "inconclusive");
    CHECK_THAT(w.recommendation->text,
               Catch::StartsWith("observe longer: 3 samples per GPU over 60.0 s"));
    CHECK(w.recommendation->gpus == 1);
    CHECK(*w.recommendation->usd_per_month_saved == Approx(0));
    CHECK(w.recommendation->gpus_freed == 0);
    CHECK(report.summary.usd_per_month_saved == 0);
    CHECK(report.summary.gpus_freed == 0);
    CHECK(report.summary.by_verdict.at("inconclusive") == 1);
  }
  SECTION("--min-window and --min-samples lower the bar, and the idle GPU is freed") {
    ObserveOptions o;
    o.min_window_s = 60;
    o.min_samples_per_gpu = 3;
    const auto report = run(one(gpu(
                                "node1",
                                "3",
                                h100,
                                3,
                                [](std::size_t) { return 0.0; },
                                [](std::size_t) { return 1 * k_gib; })),
                            o);
    CHECK(report.workloads[0].verdict == "idle");
  }
  TraceProfile trace;
  trace.source = "ddp.sqlite";
  trace.format = "nsys";
  trace.device_name = h100;
  trace.devices = 2;
  trace.gpu_busy_s = 0.2 * 2 * 50e-6;
  trace.peak_memory_bytes = 3 * k_gib;
  SECTION("a 50 us trace: observe longer") {
    trace.window_s = 50e-6;
    const auto report = observe({}, {NamedTrace{"", trace}}, test::catalog(), products(), {});
    const auto& w = report.workloads[0];
    CHECK(w.verdict == "inconclusive");
    CHECK_THAT(w.recommendation->text, Catch::StartsWith("observe longer: a trace of 50.0 us"));
    CHECK(report.summary.usd_per_month_saved == 0);
    CHECK(report.summary.gpus_freed == 0);
  }
  SECTION("a trace whose GPU waits on its input 70%: fix the input pipeline first") {
    trace.window_s = 2;
    trace.gpu_busy_s = 0.2 * 2 * 2;
    trace.input_wait_s = 0.7 * 2 * 2;
    const auto report = observe({}, {NamedTrace{"", trace}}, test::catalog(), products(), {});
    const auto& w = report.workloads[0];
    CHECK(has_reason(w, "input_bound"));
    CHECK(has_reason(w, "low_utilization"));
    CHECK(w.verdict == "inconclusive");
    CHECK_THAT(w.recommendation->text, Catch::StartsWith("fix the input pipeline first"));
    CHECK(w.recommendation->gpu == "H100-SXM-80GB");
    CHECK(w.recommendation->gpus == 2);
    CHECK(*w.recommendation->usd_per_month_saved == Approx(0));
    CHECK(report.summary.usd_per_month_saved == 0);
    CHECK(report.summary.gpus_freed == 0);
  }
}

} // namespace rightsize
