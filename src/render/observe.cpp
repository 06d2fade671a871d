// rightsize observe's report: the fleet summary (workloads by verdict, GPUs that could be freed,
// money per month), then each workload with its observed percentiles, verdict, reasons and
// recommendation. docs/observe.md.

#include "csv.hpp"
#include "observe_text.hpp"

#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/render/observe.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace rightsize {

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// How a metric is shown: the JSON key (its unit in the name) and the factor from SI.
struct MetricUnit {
  const char* key;
  double scale;
  const char* format; // for tables
};

MetricUnit unit_of(Metric m) {
  switch (m) {
  case Metric::gpu_utilization:
    return {"gpu_utilization_percent", 100, "{:.0f}%"};
  case Metric::memory_utilization:
    return {"memory_utilization_percent", 100, "{:.0f}%"};
  case Metric::memory_used:
    return {"memory_used_gib", 1 / k_gib, "{:.1f} GiB"};
  case Metric::memory_total:
    return {"memory_total_gib", 1 / k_gib, "{:.1f} GiB"};
  case Metric::power:
    return {"power_w", 1, "{:.0f} W"};
  case Metric::power_limit:
    return {"power_limit_w", 1, "{:.0f} W"};
  case Metric::sm_clock:
    return {"sm_clock_mhz", 1e-6, "{:.0f} MHz"};
  case Metric::sm_clock_max:
    return {"sm_clock_max_mhz", 1e-6, "{:.0f} MHz"};
  case Metric::temperature:
    return {"temperature_c", 1, "{:.0f} C"};
  case Metric::sm_active:
    return {"sm_active_percent", 100, "{:.0f}%"};
  case Metric::sm_occupancy:
    return {"sm_occupancy_percent", 100, "{:.0f}%"};
  case Metric::tensor_active:
    return {"tensor_active_percent", 100, "{:.0f}%"};
  case Metric::dram_active:
    return {"dram_active_percent", 100, "{:.0f}%"};
  case Metric::pcie_tx:
    return {"pcie_tx_gb_per_s", 1e-9, "{:.2f} GB/s"};
  case Metric::pcie_rx:
    return {"pcie_rx_gb_per_s", 1e-9, "{:.2f} GB/s"};
  case Metric::nvlink_tx:
    return {"nvlink_tx_gb_per_s", 1e-9, "{:.1f} GB/s"};
  case Metric::nvlink_rx:
    return {"nvlink_rx_gb_per_s", 1e-9, "{:.1f} GB/s"};
  case Metric::throttled:
    return {"throttled_percent", 100, "{:.0f}%"};
  case Metric::count:
    break;
  }
  return {"unknown", 1, "{}"};
}

// `v` to a multiple of `step`. A step under 1 divides by its inverse (a whole number), so that
// 40.657 prints as 40.657, not 40.657000000000004 (round(40657) x 0.001).
double round_to(double v, double step) {
  const double inverse = std::round(1.0 / step);
  if (step < 1 && inverse >= 1) {
    return std::round(v * inverse) / inverse;
  }
  return std::round(v / step) * step;
}

nlohmann::json percentiles_json(const Percentiles& p, double scale) {
  return {{"p50", round_to(p.p50 * scale, 0.001)},
          {"p95", round_to(p.p95 * scale, 0.001)},
          {"max", round_to(p.max * scale, 0.001)},
          {"samples", p.samples}};
}

nlohmann::json optional_usd(const std::optional<double>& v) {
  return v ? nlohmann::json(round_to(*v, 0.01)) : nlohmann::json(nullptr);
}

std::string money(double v) {
  return format_usd(usd(v));
}

std::string money_or_dash(const std::optional<double>& v) {
  return v ? money(*v) : "-";
}

} // namespace

std::string saved_text(const std::optional<double>& saved) {
  if (!saved) {
    return "-";
  }
  if (*saved < 0) {
    return "+" + money(-*saved) + " more";
  }
  return money(*saved);
}

std::string gpu_text(const std::string& gpu, int count, const std::string& partition) {
  if (gpu.empty()) {
    return count == 0 ? "none" : "-";
  }
  return partition.empty() ? fmt::format("{}x {}", count, gpu)
                           : fmt::format("{}x {} {}", count, gpu, partition);
}

std::string recommendation_text(const WorkloadObservation& w) {
  if (!w.recommendation) {
    return "-";
  }
  const auto& r = *w.recommendation;
  if (w.verdict == "idle") {
    return "free it";
  }
  if (w.verdict == "right-sized") {
    return "keep";
  }
  if (w.verdict == "inconclusive") {
    return r.text.rfind("fix the input", 0) == 0    ? "fix input first"
           : r.text.rfind("judge the", 0) == 0      ? "needs engine metrics"
           : r.text.rfind("map it to", 0) == 0      ? "needs a spec"
           : r.text.rfind("check the spec", 0) == 0 ? "check the spec"
                                                    : "observe longer";
  }
  return gpu_text(r.gpu, r.gpus, r.partition);
}

std::string work_p95(const WorkloadObservation& w) {
  if (w.per_gpu.empty() && w.trace) {
    return fmt::format("{:.0f}%", 100 * w.trace->busy_fraction);
  }
  for (const auto m : {Metric::sm_active, Metric::gpu_utilization}) {
    if (const auto it = w.observed.find(m); it != w.observed.end()) {
      return fmt::format("{:.0f}%", 100 * it->second.p95);
    }
  }
  return "-";
}

std::string memory_peak(const WorkloadObservation& w) {
  if (const auto it = w.observed.find(Metric::memory_used); it != w.observed.end()) {
    return fmt::format("{:.1f} GiB", it->second.max / k_gib);
  }
  if (w.trace && w.trace->peak_memory_bytes) {
    return fmt::format("{:.1f} GiB", *w.trace->peak_memory_bytes / k_gib);
  }
  return "-";
}

std::string verdict_counts(const ObserveSummary& s) {
  std::string out;
  for (const auto* v :
       {"over-provisioned", "under-provisioned", "right-sized", "idle", "inconclusive"}) {
    const auto it = s.by_verdict.find(v);
    const int n = it == s.by_verdict.end() ? 0 : it->second;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, v);
  }
  return out;
}

std::string summary_lines(const ObserveReport& r) {
  const auto& s = r.summary;
  double window = 0;
  for (const auto& w : r.workloads) {
    window = std::max(window, w.window_s);
  }
  std::string out = fmt::format("rightsize observe: {} workload{} over {}: {}\n",
                                s.workloads,
                                s.workloads == 1 ? "" : "s",
                                format_seconds(seconds(window)),
                                verdict_counts(s));
  out += fmt::format("GPUs that could be freed: {:.1f} of {:.1f}; saves {}/month of {}/month "
                     "({}{} prices, {:g} h/month)",
                     s.gpus_freed,
                     s.gpus_observed,
                     money(s.usd_per_month_saved),
                     money(s.usd_per_month_now),
                     r.options.pricing.provider ? *r.options.pricing.provider + " " : "",
                     r.options.pricing.price_kind,
                     r.options.pricing.hours_per_month);
  if (s.usd_per_month_added > 0) {
    out += fmt::format("; under-provisioned workloads need {}/month more",
                       money(s.usd_per_month_added));
  }
  return out + "\n";
}

void render_observe_table(const ObserveReport& r, std::ostream& out) {
  out << summary_lines(r) << '\n';
  std::size_t name_width = 8;
  std::size_t gpu_width = 3;
  for (const auto& w : r.workloads) {
    name_width = std::max(name_width, w.name.size());
    gpu_width = std::max(gpu_width, gpu_text(w.gpu, w.gpus, w.partition).size());
  }
  const std::string row = "{:<{}}  {:<{}}  {:>5}  {:>9}  {:<17}  {:<28}  {:>11}  {:>16}\n";
  out << fmt::format(row,
                     "WORKLOAD",
                     name_width,
                     "GPU",
                     gpu_width,
                     "WORK",
                     "MEM PEAK",
                     "VERDICT",
                     "RECOMMENDATION",
                     "$/MONTH",
                     "SAVED/MONTH");
  for (const auto& w : r.workloads) {
    const auto& rec = w.recommendation;
    out << fmt::format(row,
                       w.name,
                       name_width,
                       gpu_text(w.gpu, w.gpus, w.partition),
                       gpu_width,
                       work_p95(w),
                       memory_peak(w),
                       w.verdict,
                       recommendation_text(w),
                       money_or_dash(rec ? rec->usd_per_month_now : std::nullopt),
                       saved_text(rec ? rec->usd_per_month_saved : std::nullopt));
  }
  out << fmt::format("\nWORK: the p{:g} of SM activity where DCGM profiling metrics exist, else of "
                     "GPU utilization, or a trace's busy share; MEM PEAK: the largest memory.used "
                     "of one GPU (a trace: the allocator's peak)\n",
                     r.options.work_percentile);
  for (const auto& w : r.workloads) {
    out << fmt::format("\n{}: {} ({} on {}, {} {} over {})\n",
                       w.name,
                       w.verdict,
                       gpu_text(w.gpu, w.gpus, w.partition),
                       w.observed_gpu,
                       w.samples,
                       w.work_metric == "trace" ? "GPU events" : "samples",
                       format_seconds(seconds(w.window_s)));
    for (const auto& reason : w.reasons) {
      out << fmt::format("  {}: {}\n", reason.code, reason.text);
    }
    for (const auto& line : serving_lines(w)) {
      out << "  " << line << '\n';
    }
    if (w.recommendation) {
      out << "  recommendation: " << w.recommendation->text << '\n';
    }
    if (w.trace) {
      const auto& t = *w.trace;
      out << fmt::format(
          "  trace {}: busy {:.0f}%, waits on input {:.0f}%; GEMM {:.0f}%, "
          "attention {:.0f}%, communication {:.0f}%, copies {:.0f}%, other {:.0f}%\n",
          t.source,
          100 * t.busy_fraction,
          100 * t.input_wait_fraction,
          100 * t.share_by_class[0],
          100 * t.share_by_class[1],
          100 * t.share_by_class[2],
          100 * t.share_by_class[3],
          100 * t.share_by_class[4]);
    }
    for (const auto& note : w.notes) {
      out << "  note: " << note << '\n';
    }
  }
  if (!r.warnings.empty()) {
    // The warnings themselves go to standard error as they happen, and into JSON and Markdown.
    out << fmt::format("\n{} warning{} about the input: see standard error\n",
                       r.warnings.size(),
                       r.warnings.size() == 1 ? "" : "s");
  }
}

namespace {

nlohmann::json optional_number(const std::optional<double>& v, double scale, double step) {
  return v ? nlohmann::json(round_to(*v * scale, step)) : nlohmann::json(nullptr);
}

nlohmann::json optional_text(const std::string& v) {
  return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
}

nlohmann::json serving_json(const ServingObservation& s) {
  const auto latency = [](const std::optional<double>& mean,
                          const std::optional<double>& p50,
                          const std::optional<double>& p95) {
    return nlohmann::json{{"mean", optional_number(mean, 1000, 0.01)},
                          {"p50", optional_number(p50, 1000, 0.01)},
                          {"p95", optional_number(p95, 1000, 0.01)}};
  };
  const auto target = [](const std::optional<double>& t,
                         const std::string& statistic,
                         const std::optional<double>& observed) {
    return t ? nlohmann::json{{"statistic", statistic},
                              {"target", round_to(*t * 1000, 0.01)},
                              {"observed", optional_number(observed, 1000, 0.01)}}
             : nlohmann::json(nullptr);
  };
  return {{"engine", s.engine},
          {"pods", s.pods},
          {"scrapes", s.scrapes},
          {"window_s", round_to(s.window_s, 0.001)},
          {"requests_running", percentiles_json(s.running, 1)},
          {"requests_waiting", percentiles_json(s.waiting, 1)},
          {"requests_held_p95", round_to(s.demand, 0.001)},
          {"kv_cache_usage_percent",
           s.kv_cache_usage ? percentiles_json(*s.kv_cache_usage, 100) : nlohmann::json(nullptr)},
          {"preemptions", optional_number(s.preemptions, 1, 1)},
          {"ttft_ms", latency(s.ttft_mean_s, s.ttft_p50_s, s.ttft_p95_s)},
          {"itl_ms", latency(s.itl_mean_s, s.itl_p50_s, s.itl_p95_s)},
          {"spec", optional_text(s.spec_file)},
          {"spec_name", optional_text(s.spec_name)},
          {"ttft_target_ms", target(s.ttft_target_s, s.ttft_target_statistic, s.ttft_observed_s)},
          {"itl_target_ms", target(s.itl_target_s, s.itl_target_statistic, s.itl_observed_s)},
          {"sized_concurrency",
           s.spec_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.sized_concurrency)},
          {"estimated_memory_per_gpu_gib",
           optional_number(s.estimated_memory_per_gpu_bytes, 1 / k_gib, 0.001)},
          {"estimated_ttft_ms", optional_number(s.estimated_ttft_s, 1000, 0.01)},
          {"estimated_tpot_ms", optional_number(s.estimated_tpot_s, 1000, 0.01)}};
}

} // namespace

std::vector<std::string> serving_lines(const WorkloadObservation& w) {
  std::vector<std::string> lines;
  if (!w.serving) {
    return lines;
  }
  const ServingObservation& s = *w.serving;
  const auto ms = [](double v) {
    return v < 1.0 ? fmt::format("{:.0f} ms", v * 1000) : fmt::format("{:.2f} s", v);
  };
  std::string engine = fmt::format(
      "engine: {} on {} pod{}, {} scrape{} over {}: requests running p95 {:g} (max {:g}), "
      "waiting p95 {:g} (max {:g})",
      s.engine,
      s.pods,
      s.pods == 1 ? "" : "s",
      s.scrapes,
      s.scrapes == 1 ? "" : "s",
      format_seconds(seconds(s.window_s)),
      s.running.p95,
      s.running.max,
      s.waiting.p95,
      s.waiting.max);
  if (s.kv_cache_usage) {
    engine += fmt::format(", KV cache p95 {:.1f}% (max {:.1f}%)",
                          100 * s.kv_cache_usage->p95,
                          100 * s.kv_cache_usage->max);
  }
  if (s.preemptions) {
    engine += fmt::format(", {:.0f} preemptions", *s.preemptions);
  }
  lines.push_back(engine);
  std::vector<std::string> latency;
  if (s.ttft_mean_s && s.ttft_p95_s) {
    latency.push_back(fmt::format("TTFT mean {}, p95 {}", ms(*s.ttft_mean_s), ms(*s.ttft_p95_s)));
  }
  if (s.itl_mean_s && s.itl_p95_s) {
    latency.push_back(
        fmt::format("inter-token mean {}, p95 {}", ms(*s.itl_mean_s), ms(*s.itl_p95_s)));
  }
  if (!latency.empty()) {
    lines.push_back("latency: " + latency.front() +
                    (latency.size() > 1 ? "; " + latency.back() : std::string()));
  }
  if (!s.spec_file.empty()) {
    std::string spec = fmt::format("spec: {} ({})", s.spec_file, s.spec_name);
    const auto target = [&](const char* what,
                            const std::optional<double>& t,
                            const std::string& stat,
                            const std::optional<double>& observed) {
      if (t) {
        spec += fmt::format("; {} {} <= {} (observed {})",
                            what,
                            stat,
                            ms(*t),
                            observed ? ms(*observed) : std::string("-"));
      }
    };
    target("TTFT", s.ttft_target_s, s.ttft_target_statistic, s.ttft_observed_s);
    target("TPOT", s.itl_target_s, s.itl_target_statistic, s.itl_observed_s);
    spec += fmt::format("; sized for {} concurrent requests (the {:g} held at once, p95, with the "
                        "buffer)",
                        s.sized_concurrency,
                        s.demand);
    lines.push_back(spec);
    if (s.estimated_memory_per_gpu_bytes) {
      std::string estimate = fmt::format("estimator on {}x {}: {:.1f} GiB per GPU",
                                         w.gpus,
                                         w.gpu,
                                         *s.estimated_memory_per_gpu_bytes / k_gib);
      if (s.estimated_ttft_s && s.estimated_tpot_s) {
        estimate +=
            fmt::format(", TTFT {}, TPOT {}", ms(*s.estimated_ttft_s), ms(*s.estimated_tpot_s));
      }
      lines.push_back(estimate);
    }
  }
  return lines;
}

nlohmann::json observe_report_json(const ObserveReport& r) {
  const auto& o = r.options;
  nlohmann::json options = {
      {"work_percentile", o.work_percentile},
      {"memory_percentile", o.memory_percentile},
      {"buffer_percent", round_to(100 * o.buffer, 0.001)},
      {"idle_below_percent", round_to(100 * o.idle_below, 0.001)},
      {"low_utilization_below_percent", round_to(100 * o.low_utilization_below, 0.001)},
      {"memory_headroom_below_percent", round_to(100 * o.memory_headroom_below, 0.001)},
      {"memory_pressure_above_percent", round_to(100 * o.memory_pressure_above, 0.001)},
      {"saturated_above_percent", round_to(100 * o.saturated_above, 0.001)},
      {"min_saving_percent", round_to(100 * o.min_saving, 0.001)},
      {"scale_out_efficiency_percent", round_to(100 * o.scale_out_efficiency, 0.001)},
      {"group_by", std::string(to_string(o.group_by))},
      {"price_kind", o.pricing.price_kind},
      {"provider",
       o.pricing.provider ? nlohmann::json(*o.pricing.provider) : nlohmann::json(nullptr)},
      {"hours_per_month", o.pricing.hours_per_month},
      {"max_gpus", o.max_gpus},
      {"mig", o.mig}};
  const auto& s = r.summary;
  nlohmann::json summary = {{"workloads", s.workloads},
                            {"by_verdict", s.by_verdict},
                            {"gpus_observed", round_to(s.gpus_observed, 0.001)},
                            {"gpus_freed", round_to(s.gpus_freed, 0.001)},
                            {"usd_per_month_now", round_to(s.usd_per_month_now, 0.01)},
                            {"usd_per_month_saved", round_to(s.usd_per_month_saved, 0.01)},
                            {"usd_per_month_added", round_to(s.usd_per_month_added, 0.01)}};
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : r.workloads) {
    nlohmann::json observed = nlohmann::json::object();
    for (const auto& [metric, p] : w.observed) {
      const auto u = unit_of(metric);
      observed[u.key] = percentiles_json(p, u.scale);
    }
    nlohmann::json reasons = nlohmann::json::array();
    for (const auto& reason : w.reasons) {
      reasons.push_back({{"code", reason.code}, {"text", reason.text}});
    }
    nlohmann::json recommendation = nullptr;
    if (w.recommendation) {
      const auto& rec = *w.recommendation;
      recommendation = {
          {"gpu", rec.gpu.empty() ? nlohmann::json(nullptr) : nlohmann::json(rec.gpu)},
          {"gpus", rec.gpus},
          {"partition",
           rec.partition.empty() ? nlohmann::json(nullptr) : nlohmann::json(rec.partition)},
          {"usd_per_month_now", optional_usd(rec.usd_per_month_now)},
          {"usd_per_month_recommended", optional_usd(rec.usd_per_month_recommended)},
          {"usd_per_month_saved", optional_usd(rec.usd_per_month_saved)},
          {"gpus_freed", round_to(rec.gpus_freed, 0.001)},
          {"text", rec.text}};
    }
    nlohmann::json per_gpu = nlohmann::json::array();
    for (const auto& g : w.per_gpu) {
      per_gpu.push_back({{"label", g.label},
                         {"uuid", g.uuid},
                         {"samples", g.samples},
                         {"work_percent", percentiles_json(g.work, 100)},
                         {"memory_used_gib",
                          g.memory_used_bytes ? percentiles_json(*g.memory_used_bytes, 1 / k_gib)
                                              : nlohmann::json(nullptr)}});
    }
    nlohmann::json trace = nullptr;
    if (w.trace) {
      const auto& t = *w.trace;
      nlohmann::json classes = nlohmann::json::object();
      for (std::size_t k = 0; k < k_kernel_class_count; ++k) {
        classes[std::string(to_string(static_cast<KernelClass>(k))) + "_percent"] =
            round_to(100 * t.share_by_class[k], 0.01);
      }
      trace = {{"source", t.source},
               {"format", t.format},
               {"window_s", round_to(t.window_s, 1e-6)},
               {"busy_percent", round_to(100 * t.busy_fraction, 0.01)},
               {"input_wait_percent", round_to(100 * t.input_wait_fraction, 0.01)},
               {"kernel_time", classes},
               {"host_to_device_gib", round_to(t.host_to_device_bytes / k_gib, 0.001)},
               {"peak_memory_gib",
                t.peak_memory_bytes ? nlohmann::json(round_to(*t.peak_memory_bytes / k_gib, 0.001))
                                    : nlohmann::json(nullptr)}};
    }
    workloads.push_back(
        {{"name", w.name},
         {"owner",
          w.owner ? nlohmann::json{{"namespace", w.owner->namespace_name},
                                   {"kind", w.owner->kind},
                                   {"name", w.owner->name},
                                   {"container", w.owner->container}}
                  : nlohmann::json(nullptr)},
         {"pods", w.pods},
         {"gpu", w.gpu},
         {"observed_gpu", w.observed_gpu},
         {"partition", w.partition.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.partition)},
         {"gpus", w.gpus},
         {"samples", w.samples},
         {"window_s", round_to(w.window_s, 0.001)},
         {"work_metric", w.work_metric},
         {"observed", observed},
         {"memory_capacity_gib", round_to(w.memory_capacity_bytes / k_gib, 0.001)},
         {"memory_needed_gib",
          w.memory_needed_bytes ? nlohmann::json(round_to(*w.memory_needed_bytes / k_gib, 0.001))
                                : nlohmann::json(nullptr)},
         {"work_needed_gpus", round_to(w.work_needed_gpus, 0.001)},
         {"verdict", w.verdict},
         {"reasons", reasons},
         {"recommendation", recommendation},
         {"per_gpu", per_gpu},
         {"trace", trace},
         {"serving", w.serving ? serving_json(*w.serving) : nlohmann::json(nullptr)},
         {"notes", w.notes}});
  }
  nlohmann::json doc = {{"schema_version", 1},
                        {"catalog_version", r.catalog_version},
                        {"options", options},
                        {"summary", summary},
                        {"workloads", workloads},
                        {"sources", r.sources},
                        {"warnings", r.warnings}};
  return doc;
}

void render_observe_json(const ObserveReport& r, std::ostream& out) {
  // Names from the inputs (file names, labels) may not be UTF-8: escaped, never an exception.
  out << detail::dump_json(observe_report_json(r), 2) << '\n';
}

namespace {

// A table cell: "|" would end it, a newline the row.
std::string cell(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c == '\n' ? ' ' : c;
    }
  }
  return out;
}

} // namespace

void render_observe_markdown(const ObserveReport& r, std::ostream& out) {
  out << "## rightsize observe\n\n";
  const std::string summary = summary_lines(r);
  out << summary.substr(summary.find(": ") + 2) << '\n';
  out << "| workload | GPU | work p" << r.options.work_percentile
      << " | memory peak | verdict | recommendation | $/month | saved/month |\n";
  out << "|---|---|---:|---:|---|---|---:|---:|\n";
  for (const auto& w : r.workloads) {
    const auto& rec = w.recommendation;
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                       cell(w.name),
                       gpu_text(w.gpu, w.gpus, w.partition),
                       work_p95(w),
                       memory_peak(w),
                       w.verdict,
                       recommendation_text(w),
                       money_or_dash(rec ? rec->usd_per_month_now : std::nullopt),
                       saved_text(rec ? rec->usd_per_month_saved : std::nullopt));
  }
  for (const auto& w : r.workloads) {
    if (w.reasons.empty() && (!w.recommendation || w.verdict == "right-sized")) {
      continue;
    }
    out << fmt::format("\n**{}** ({}):\n", w.name, w.verdict);
    for (const auto& reason : w.reasons) {
      out << fmt::format("- `{}`: {}\n", reason.code, reason.text);
    }
    for (const auto& line : serving_lines(w)) {
      out << "- " << line << '\n';
    }
    if (w.recommendation) {
      out << "- recommendation: " << w.recommendation->text << '\n';
    }
  }
  if (!r.warnings.empty()) {
    out << "\n<details><summary>" << r.warnings.size() << " warning"
        << (r.warnings.size() == 1 ? "" : "s") << "</summary>\n\n";
    for (const auto& warning : r.warnings) {
      out << "- " << warning << '\n';
    }
    out << "\n</details>\n";
  }
}

void render_observe_csv(const ObserveReport& r, std::ostream& out) {
  out << "workload,gpu,partition,gpus,samples,window_s,work_metric,work_p50_percent,"
         "work_p95_percent,memory_peak_gib,verdict,reasons,recommended_gpu,recommended_gpus,"
         "recommended_partition,usd_per_month_now,usd_per_month_recommended,usd_per_month_saved\n";
  const auto number = [](const std::optional<double>& v, const char* format) {
    return v ? fmt::format(fmt::runtime(format), *v) : std::string();
  };
  for (const auto& w : r.workloads) {
    std::optional<Percentiles> work;
    for (const auto m : {Metric::sm_active, Metric::gpu_utilization}) {
      if (const auto it = w.observed.find(m); it != w.observed.end() && !work) {
        work = it->second;
      }
    }
    std::optional<double> memory;
    if (const auto it = w.observed.find(Metric::memory_used); it != w.observed.end()) {
      memory = it->second.max / k_gib;
    }
    std::string reasons;
    for (const auto& reason : w.reasons) {
      reasons += (reasons.empty() ? "" : ";") + reason.code;
    }
    const auto& rec = w.recommendation;
    out << fmt::format(
        "{},{},{},{},{},{:.0f},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        csv_escape(w.name),
        csv_escape(w.gpu),
        csv_escape(w.partition),
        w.gpus,
        w.samples,
        w.window_s,
        w.work_metric,
        number(work ? std::optional<double>(100 * work->p50) : std::nullopt, "{:.1f}"),
        number(work ? std::optional<double>(100 * work->p95) : std::nullopt, "{:.1f}"),
        number(memory, "{:.2f}"),
        w.verdict,
        reasons,
        rec ? csv_escape(rec->gpu) : "",
        rec ? std::to_string(rec->gpus) : "",
        rec ? csv_escape(rec->partition) : "",
        number(rec ? rec->usd_per_month_now : std::nullopt, "{:.2f}"),
        number(rec ? rec->usd_per_month_recommended : std::nullopt, "{:.2f}"),
        number(rec ? rec->usd_per_month_saved : std::nullopt, "{:.2f}"));
  }
}

void render_observe_changes(const ObserveReport& before,
                            const ObserveReport& after,
                            std::ostream& out) {
  const auto find = [](const ObserveReport& r,
                       const std::string& name) -> const WorkloadObservation* {
    for (const auto& w : r.workloads) {
      if (w.name == name) {
        return &w;
      }
    }
    return nullptr;
  };
  for (const auto& w : after.workloads) {
    const auto* old = find(before, w.name);
    const std::string now = fmt::format("{} -> {}", w.verdict, recommendation_text(w));
    if (old == nullptr) {
      out << fmt::format("{}: new: {}\n", w.name, now);
      continue;
    }
    const std::string was = fmt::format("{} -> {}", old->verdict, recommendation_text(*old));
    if (was != now) {
      out << fmt::format("{}: {} (was {})\n", w.name, now, was);
    }
  }
  for (const auto& w : before.workloads) {
    if (find(after, w.name) == nullptr) {
      out << fmt::format("{}: gone (no samples in the window)\n", w.name);
    }
  }
}

} // namespace rightsize
