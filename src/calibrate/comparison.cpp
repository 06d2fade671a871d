#include "fields.hpp"

#include <rightsize/calibrate/comparison.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/plan/estimate_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize {

namespace {

// How far a run's tokens per request may be from the spec's prompt + output for the spec's
// lengths to stand for the run's (rounding of a mean).
constexpr double k_length_slack = 0.01;

long long rounded_tokens(double mean) {
  return std::max(1LL, std::llround(mean));
}

// The longest request the spec's engine admits: its max_model_len when set, else the model's
// context (docs/model.md, "Engine settings").
long long admitted_length(const Spec& spec) {
  const auto& w = spec.workload.inference;
  return w.max_model_len ? *w.max_model_len : spec.model.max_position;
}

} // namespace

RunLoad run_load(const Spec& spec, const BenchRun& run) {
  RunLoad load;
  if (!run.mean_input_tokens || !run.mean_output_tokens) {
    // Only their sum (vllm bench throughput's total_num_tokens): the spec's lengths, when they
    // add up to it, are the run's (`--input-len` and `--output-len` as the spec says).
    const auto& w = spec.workload.inference;
    const double spec_sum = static_cast<double>(w.input_tokens + w.output_tokens);
    if (run.mean_tokens <= 0 || std::abs(run.mean_tokens / spec_sum - 1.0) > k_length_slack) {
      throw InputError(
          run.source + ":/total_num_tokens",
          fmt::format("the file records only the sum of prompt and output tokens, {:.0f} a "
                      "request, and the spec's {} + {} do not add up to it: set the spec's "
                      "input_tokens and output_tokens to the run's --input-len and --output-len",
                      run.mean_tokens,
                      w.input_tokens,
                      w.output_tokens));
    }
    load.input_tokens = w.input_tokens;
    load.output_tokens = w.output_tokens;
    load.lengths_from_spec = true;
  } else {
    load.input_tokens = rounded_tokens(*run.mean_input_tokens);
    load.output_tokens = rounded_tokens(*run.mean_output_tokens);
  }
  const long long admitted = admitted_length(spec);
  if (admitted > 0 && load.input_tokens + load.output_tokens > admitted) {
    throw InputError(
        run.source + ":/mean_input_tokens",
        fmt::format("the run's requests average {} + {} tokens, more than the {} {} admits{}: "
                    "is it a run of another model?",
                    load.input_tokens,
                    load.output_tokens,
                    admitted,
                    spec.workload.inference.max_model_len ? "the spec's max_model_len"
                                                          : "the model's context",
                    run.model ? fmt::format(" (the run names {})", *run.model) : std::string()));
  }
  if (run.mode == BenchMode::offline) {
    load.concurrency = run.completed;
    load.source = LoadSource::all_at_once;
  } else if (run.max_concurrency) {
    load.concurrency = *run.max_concurrency;
    load.source = LoadSource::max_concurrency;
  } else if (run.achieved_concurrency &&
             run.achieved_concurrency->measure == ConcurrencyMeasure::mean &&
             run.achieved_concurrency->value >= 1.0) {
    // A peak (vLLM's max_concurrent_requests) is not the load the run held; a mean is.
    load.concurrency = static_cast<long long>(std::ceil(run.achieved_concurrency->value));
    load.source = LoadSource::achieved_concurrency;
  } else {
    throw InputError(run.source + ":/max_concurrency",
                     "the run was paced by request rate and records no concurrency, so the "
                     "load rightsize would predict for is unknown; run the client with "
                     "--max-concurrency");
  }
  return load;
}

Spec run_spec(const Spec& spec, const Parallelism& layout, const BenchRun& run, RunLoad& load) {
  if (spec.workload.type != WorkloadType::inference) {
    throw InputError(spec.file + ":/workload/type",
                     fmt::format("benchmark runs of LLM-serving clients calibrate text "
                                 "generation; this spec's workload is {}",
                                 to_string(spec.workload.type)));
  }
  if (layout.dp != 1) {
    throw InputError("--dp",
                     "a benchmark run measures one replica (one server); compare it with dp 1");
  }
  load = run_load(spec, run);
  return spec_at_load(spec, load);
}

std::optional<double> output_tokens_per_s(const BenchRun& run, const RunLoad& load) {
  if (run.output_token_throughput) {
    return run.output_token_throughput->si() / units::k_seconds_per_hour;
  }
  if (load.lengths_from_spec) {
    return run.request_throughput.si() / units::k_seconds_per_hour *
           static_cast<double>(load.output_tokens);
  }
  return std::nullopt;
}

Spec spec_at_load(const Spec& spec, const RunLoad& load) {
  Spec at_run = spec;
  auto& w = at_run.workload.inference;
  w.input_tokens = load.input_tokens;
  w.output_tokens = load.output_tokens;
  w.concurrency = load.concurrency;
  w.length_low_ratio = 1.0; // the run's means, as fixed lengths
  return at_run;
}

RunComparison compare_run(const Spec& spec,
                          const Gpu& gpu,
                          const Parallelism& layout,
                          const BenchRun& run,
                          const Constants& constants,
                          const Efficiency& efficiency,
                          const Uncertainty& uncertainty) {
  RunComparison out;
  out.run = run.source;
  Spec at_run = run_spec(spec, layout, run, out.load);
  const EstimateEvaluation e = estimate_configuration(
      at_run, gpu, layout, out.load.concurrency, constants, efficiency, uncertainty);
  if (!e.inference || !e.inference_bands) {
    throw InputError(run.source,
                     fmt::format("{} does not fit on {} in this layout: nothing to compare",
                                 spec.model.family,
                                 gpu.name));
  }
  const InferencePerformance& p = *e.inference;
  const InferenceBands& b = *e.inference_bands;
  out.queueing = p.queueing;
  out.running_limit = p.running_limit;
  const bool online = run.mode == BenchMode::online;
  if (online && run.ttft.mean) {
    out.metrics.push_back({RunMetric::ttft, run.ttft.mean->si(), p.ttft.si(), b.ttft});
  }
  if (online && run.tpot.mean) {
    out.metrics.push_back({RunMetric::tpot, run.tpot.mean->si(), p.tpot.si(), b.tpot});
  }
  if (const auto rate = output_tokens_per_s(run, out.load)) {
    out.metrics.push_back(
        {RunMetric::output_tokens_per_s, *rate, p.output_tokens_per_s, b.output_tokens_per_s});
  }
  return out;
}

std::vector<ComparisonSummary> summarize(const std::vector<RunComparison>& comparisons) {
  std::vector<ComparisonSummary> out;
  for (const auto& [metric, name] : k_run_metric_rows) {
    std::vector<double> errors;
    long long inside = 0;
    for (const auto& c : comparisons) {
      for (const auto& m : c.metrics) {
        if (m.metric == metric) {
          errors.push_back(std::abs(m.error()));
          inside += m.in_band() ? 1 : 0;
        }
      }
    }
    if (errors.empty()) {
      continue;
    }
    std::sort(errors.begin(), errors.end());
    const auto n = static_cast<long long>(errors.size());
    out.push_back({metric,
                   n,
                   linear_percentile(errors, 50), // the median
                   static_cast<double>(inside) / static_cast<double>(n)});
  }
  return out;
}

} // namespace rightsize
