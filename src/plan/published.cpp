// Published runs re-predicted on a spec's model (include/rightsize/plan/published.hpp,
// docs/published.md).

#include <rightsize/core/bisect.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/plan/precision.hpp>
#include <rightsize/plan/published.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace rightsize {

namespace {

constexpr double k_parameter_tolerance = 0.02;
constexpr double k_length_factor = 2.5;

// The spec as the published run ran it: inference on the run's engine and lengths, no targets,
// no images; offline (no concurrency) unless the scenario fixes a batch.
Spec run_spec(const Spec& spec, const PublishedResult& r, Engine engine, DType w, DType kv) {
  // The run's formats in their usual deployment (fp8 W8A8, fp4 W4A4), whatever the spec says of
  // its own activations.
  Spec base = spec;
  base.precision.activations = DType::bf16;
  base.precision.activations_stated_for = std::nullopt;
  Spec s = with_precision(base, w, kv);
  s.workload.type = WorkloadType::inference;
  auto& inf = s.workload.inference;
  inf.engine = engine;
  inf.input_tokens = r.input_tokens;
  inf.output_tokens = r.output_tokens;
  inf.concurrency = std::nullopt;
  inf.targets = InferenceTargets{};
  inf.images_per_request = 0;
  inf.image_tokens = 0;
  inf.gpu_memory_utilization = std::nullopt;
  inf.max_num_batched_tokens = std::nullopt;
  return s;
}

struct RunEstimate {
  double output_tokens_per_s = 0;
  long long batch = 0;
  std::optional<InferencePerformance> perf; // for the band
  std::string problem;
};

// Offline: the largest batch that fits, continuously batched.
RunEstimate offline(const Spec& s,
                    const Gpu& gpu,
                    const Parallelism& p,
                    int replicas,
                    const Efficiency& eff,
                    const Constants& constants) {
  RunEstimate e;
  const MemoryEstimate memory = estimate_memory(s, gpu, p, constants);
  if (memory.max_batch < 1) {
    e.problem = "does not fit: not one sequence beside the weights";
    return e;
  }
  e.perf = estimate_inference(s, gpu, p, memory, eff, constants, replicas);
  e.batch = memory.batch;
  e.output_tokens_per_s = e.perf->output_tokens_per_s;
  return e;
}

// A static batch: all prompts prefilled in one step, then all outputs decoded together; the
// rate is the batch's output tokens over the two.
RunEstimate static_batch(const Spec& s,
                         const Gpu& gpu,
                         const Parallelism& p,
                         int replicas,
                         long long batch,
                         const Efficiency& eff,
                         const Constants& constants) {
  RunEstimate e;
  const MemoryEstimate memory = estimate_memory(s, gpu, p, constants, batch);
  if (memory.max_batch < batch) {
    e.problem = fmt::format("does not fit: {} sequences of {} + {} tokens, {} fit",
                            batch,
                            s.workload.inference.input_tokens,
                            s.workload.inference.output_tokens,
                            memory.max_batch);
    return e;
  }
  e.perf = estimate_inference(s, gpu, p, memory, eff, constants, replicas);
  const double in = static_cast<double>(s.workload.inference.input_tokens);
  const double out = static_cast<double>(s.workload.inference.output_tokens);
  const Seconds prefill =
      prefill_step_time(s, gpu, p, eff, in * static_cast<double>(batch), in).total();
  const double seconds = prefill.si() + e.perf->decode_step.si() * out;
  e.batch = batch;
  e.output_tokens_per_s =
      static_cast<double>(batch) * out / seconds * static_cast<double>(replicas);
  return e;
}

// Server and interactive: the most sequences per replica whose TTFT and TPOT stay within the
// scenario's limits (rightsize's typical values against limits the runs hold at a percentile,
// docs/published.md).
RunEstimate latency_bounded(const Spec& s,
                            const Gpu& gpu,
                            const Parallelism& p,
                            int replicas,
                            const PublishedResult& r,
                            const Efficiency& eff,
                            const Constants& constants) {
  RunEstimate e;
  const long long fits = estimate_memory(s, gpu, p, constants).max_batch;
  if (fits < 1) {
    e.problem = "does not fit: not one sequence beside the weights";
    return e;
  }
  const double ttft = *r.ttft_ms / 1e3;
  const double tpot = *r.tpot_ms / 1e3;
  const auto at = [&](long long batch) {
    Spec online = s;
    online.workload.inference.concurrency = batch * replicas;
    const MemoryEstimate memory = estimate_memory(online, gpu, p, constants, batch);
    return estimate_inference(online, gpu, p, memory, eff, constants, replicas);
  };
  const auto within = [&](long long batch) {
    const auto perf = at(batch);
    return perf.ttft.si() <= ttft && perf.tpot.si() <= tpot;
  };
  if (!within(1)) {
    const auto one = at(1);
    e.problem = fmt::format("misses the scenario's limits at one sequence: TTFT {:.0f} ms, TPOT "
                            "{:.1f} ms",
                            one.ttft.si() * 1e3,
                            one.tpot.si() * 1e3);
    return e;
  }
  long long best = fits;
  if (!within(fits)) {
    // The first batch that misses, less one.
    best = first_holding<long long>(1, fits, [&](long long b) { return !within(b); }) - 1;
  }
  e.perf = at(best);
  e.batch = best;
  e.output_tokens_per_s = e.perf->output_tokens_per_s;
  return e;
}

RunEstimate run_estimate(const Spec& s,
                         const Gpu& gpu,
                         const Parallelism& p,
                         int replicas,
                         const PublishedResult& r,
                         const Efficiency& eff,
                         const Constants& constants) {
  switch (r.scenario) {
  case PublishedScenario::static_batch:
    return static_batch(s, gpu, p, replicas, *r.batch, eff, constants);
  case PublishedScenario::server:
  case PublishedScenario::interactive:
    return latency_bounded(s, gpu, p, replicas, r, eff, constants);
  case PublishedScenario::offline:
    break;
  }
  return offline(s, gpu, p, replicas, eff, constants);
}

// The layouts a run may have had: the published one, or every tensor-parallel size (one
// pipeline stage) that divides the run's GPUs, the model and one server.
std::vector<Parallelism> layouts_of(const PublishedResult& r, const Spec& s, const Gpu& gpu) {
  std::vector<Parallelism> out;
  if (r.tp) {
    out.push_back(serving_parallelism(*r.tp, r.pp.value_or(1), r.ep.value_or(1)));
    return out;
  }
  const int server = gpus_per_server(s, gpu);
  for (int tp = 1; tp <= r.gpus && tp <= server; tp *= 2) {
    if (r.gpus % tp == 0 && s.model.tp_indivisible(tp).empty()) {
      Parallelism p;
      p.tp = tp;
      out.push_back(p);
    }
  }
  return out;
}

// The KV cache of a run whose source does not state its format (docs/published.md): TensorRT-LLM
// keeps it in FP8 when it quantizes to FP8 or FP4 ("If you specify FP8 quantization, the KV cache
// will automatically be set to FP8 as well!", its performance overview at 0.12 and 0.17); other
// runs keep it in the 16-bit format of their weights or activations.
DType assumed_kv_cache(const std::string& engine, DType weights) {
  if (engine == "tensorrt-llm" && (weights == DType::fp8 || is_float4(weights))) {
    return DType::fp8;
  }
  return weights == DType::fp16 ? DType::fp16 : DType::bf16;
}

double log_distance(double a, double b) {
  return std::fabs(std::log(a / b));
}

} // namespace

const PublishedModel* match_published_model(const ModelArch& m, const PublishedData& data) {
  for (const auto& p : data.models) {
    const bool same = m.layers == p.layers && m.hidden == p.hidden && m.heads == p.heads &&
                      m.kv_heads == p.kv_heads && m.intermediate == p.intermediate &&
                      m.experts == p.experts && m.experts_active == p.experts_active &&
                      m.moe_intermediate == p.moe_intermediate && !m.encoder_only &&
                      !m.encoder_decoder && m.recurrent_layers() == 0;
    if (same && std::fabs(m.params.total() / p.parameters - 1.0) <= k_parameter_tolerance) {
      return &p;
    }
  }
  return nullptr;
}

PublishedPrediction predict_published(const Spec& spec,
                                      const PublishedResult& result,
                                      const PublishedData& data,
                                      const Catalog& catalog,
                                      const Constants& constants,
                                      const Efficiency& efficiency,
                                      const Uncertainty* uncertainty) {
  PublishedPrediction out;
  out.result = result;
  out.source = data.sources.at(result.source);
  // The published layout, even for a run that is not predicted.
  out.layout =
      serving_parallelism(result.tp.value_or(1), result.pp.value_or(1), result.ep.value_or(1));
  out.replicas = result.gpus / (out.layout.tp * out.layout.pp);
  const Gpu* gpu = catalog.find(result.gpu);
  const auto engine = k_engine_names.find(result.engine);
  const DType weights = parse_dtype(result.weights).value_or(DType::bf16);
  const DType kv = result.kv_cache.empty() ? assumed_kv_cache(result.engine, weights)
                                           : parse_dtype(result.kv_cache).value_or(DType::bf16);
  out.weights = result.weights.empty() ? "?" : std::string(to_string(weights));
  out.kv_cache = std::string(to_string(kv));
  out.kv_cache_assumed = result.kv_cache.empty();
  if (result.weights.empty()) {
    out.unpredicted = "the run's weight format is not published";
    return out;
  }
  if (gpu == nullptr) {
    out.unpredicted = fmt::format("{} is not in the catalog", result.gpu);
    return out;
  }
  if (!engine) {
    out.unpredicted =
        fmt::format("rightsize does not model this engine ({})",
                    result.engine_version.empty() ? result.engine : result.engine_version);
    return out;
  }
  if (result.input_tokens == 0) {
    out.unpredicted = "the benchmark's mean input length is not published";
    return out;
  }
  const Spec s = run_spec(spec, result, *engine, weights, kv);
  const long long context = s.model.max_position;
  if (context > 0 && result.input_tokens + result.output_tokens > context) {
    out.unpredicted =
        fmt::format("{} + {} tokens exceed the model's context of {} tokens in the spec's config",
                    result.input_tokens,
                    result.output_tokens,
                    context);
    return out;
  }
  const auto layouts = layouts_of(result, s, *gpu);
  if (layouts.empty()) {
    out.unpredicted =
        fmt::format("no tensor-parallel size divides both {} GPUs and the model", result.gpus);
    return out;
  }
  if (result.tp) {
    if (const auto parts = s.model.tp_indivisible(*result.tp); !parts.empty()) {
      out.unpredicted = fmt::format("tp {} does not divide the model's {}", *result.tp, parts);
      return out;
    }
  }
  std::optional<RunEstimate> best;
  for (const auto& p : layouts) {
    const int replicas = result.gpus / (p.tp * p.pp);
    RunEstimate e = run_estimate(s, *gpu, p, replicas, result, efficiency, constants);
    if (!best || (e.perf && (!best->perf || e.output_tokens_per_s > best->output_tokens_per_s))) {
      best = std::move(e);
      out.layout = p;
      out.replicas = replicas;
    }
  }
  out.layout_chosen = !result.tp;
  if (!best->perf) {
    out.unpredicted = best->problem;
    return out;
  }
  out.batch = best->batch;
  out.predicted = best->output_tokens_per_s;
  if (uncertainty != nullptr) {
    const auto bands =
        inference_bands(*best->perf, *uncertainty, efficiency.family_name(*gpu), *engine);
    // The band's ratios around this run's rate (a static batch's rate is not the continuous one).
    const double scale = best->output_tokens_per_s / best->perf->output_tokens_per_s;
    out.band = Band{bands.output_tokens_per_s.low * scale, bands.output_tokens_per_s.high * scale};
    out.calibration = uncertainty->calibration(
        efficiency.family_name(*gpu), std::string(to_string(*engine)), false);
  }
  return out;
}

namespace {

// nearest_published among `results`.
const PublishedResult* nearest_in(const Spec& spec,
                                  const std::string& gpu,
                                  const Parallelism& layout,
                                  DType weights,
                                  const std::vector<PublishedResult>& results,
                                  const PublishedModel& model) {
  const auto& inf = spec.workload.inference;
  const double in = static_cast<double>(inf.prompt_tokens());
  const double out = static_cast<double>(inf.output_tokens);
  const double limit = std::log(k_length_factor);
  const PublishedResult* best = nullptr;
  double best_distance = 0;
  for (const auto& r : results) {
    if (r.model != model.key || r.gpu != gpu || r.input_tokens == 0 ||
        (r.tp && *r.tp * r.pp.value_or(1) != layout.tp * layout.pp) ||
        r.weights != to_string(weights) || !k_engine_names.find(r.engine)) {
      continue;
    }
    const double din = log_distance(static_cast<double>(r.input_tokens), in);
    const double dout = log_distance(static_cast<double>(r.output_tokens), out);
    if (din > limit || dout > limit) {
      continue;
    }
    const double distance = din + dout;
    const auto rank = [](const PublishedResult& x) {
      return x.scenario == PublishedScenario::offline ? 0 : 1;
    };
    if (best == nullptr || distance < best_distance ||
        (distance == best_distance &&
         (rank(r) < rank(*best) || (rank(r) == rank(*best) && r.id < best->id)))) {
      best = &r;
      best_distance = distance;
    }
  }
  return best;
}

} // namespace

const PublishedResult* nearest_published(const Spec& spec,
                                         const std::string& gpu,
                                         const Parallelism& layout,
                                         DType weights,
                                         const PublishedData& data,
                                         const PublishedModel& model) {
  return nearest_in(spec, gpu, layout, weights, data.results, model);
}

} // namespace rightsize

namespace rightsize {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

PublishedSummary summarize(const std::string& scenario,
                           const std::vector<const PublishedPrediction*>& rows) {
  PublishedSummary s;
  s.scenario = scenario;
  std::vector<double> errors;
  std::vector<double> abs_errors;
  for (const auto* r : rows) {
    if (r->predicted) {
      errors.push_back(r->error());
      abs_errors.push_back(std::fabs(r->error()));
    }
  }
  s.runs = static_cast<int>(errors.size());
  if (!errors.empty()) {
    s.median_error = median_of(errors);
    s.median_abs_error = median_of(abs_errors);
  }
  return s;
}

bool row_before(const PublishedPrediction& a, const PublishedPrediction& b) {
  const auto key = [](const PublishedPrediction& p) {
    const auto& r = p.result;
    return std::make_tuple(r.gpu,
                           r.gpus,
                           r.weights,
                           static_cast<int>(r.scenario),
                           r.input_tokens,
                           r.output_tokens,
                           r.id);
  };
  return key(a) < key(b);
}

} // namespace

Comparison compare_published(const Spec& spec,
                             PublishedData& data,
                             const Catalog& catalog,
                             const Constants& constants,
                             const Efficiency& efficiency,
                             const Uncertainty* uncertainty,
                             const CompareFilter& filter) {
  Comparison c;
  c.spec_name = spec.name;
  c.spec_model = spec.model.name;
  for (const auto& m : data.models) {
    c.published_models.push_back(m.key);
  }
  const PublishedModel* model = match_published_model(spec.model, data);
  if (model == nullptr) {
    return c;
  }
  c.model = *model;
  load_published_results(data, model->key);
  for (const auto& r : data.results) {
    const bool gpu_wanted =
        filter.gpus.empty() ||
        std::find(filter.gpus.begin(), filter.gpus.end(), r.gpu) != filter.gpus.end();
    if (r.model != model->key || !gpu_wanted ||
        (filter.scenario && r.scenario != *filter.scenario)) {
      continue;
    }
    c.rows.push_back(predict_published(spec, r, data, catalog, constants, efficiency, uncertainty));
  }
  std::stable_sort(c.rows.begin(), c.rows.end(), row_before);
  std::vector<const PublishedPrediction*> all;
  for (const auto& name : {"offline", "server", "interactive", "static-batch"}) {
    std::vector<const PublishedPrediction*> rows;
    for (const auto& r : c.rows) {
      if (to_string(r.result.scenario) == name) {
        rows.push_back(&r);
        all.push_back(&r);
      }
    }
    if (!rows.empty()) {
      c.summary.push_back(summarize(name, rows));
    }
  }
  if (c.summary.size() > 1) {
    c.summary.push_back(summarize("all", all));
  }
  for (const auto& r : c.rows) {
    if (std::none_of(c.sources.begin(), c.sources.end(), [&](const PublishedSource& s) {
          return s.key == r.source.key;
        })) {
      c.sources.push_back(r.source);
    }
  }
  std::sort(c.sources.begin(), c.sources.end(), [](const auto& a, const auto& b) {
    return a.key < b.key;
  });
  return c;
}

void attach_published(Plan& plan,
                      PublishedData& data,
                      const Catalog& catalog,
                      const Constants& constants,
                      const Efficiency& efficiency,
                      const PlanOptions& options) {
  if (!plan.feasible() || plan.spec.workload.type != WorkloadType::inference) {
    return;
  }
  const PublishedModel* model = match_published_model(plan.spec.model, data);
  if (model == nullptr) {
    return;
  }
  // A run can be nearest a candidate only on its GPU in its weight format: the table's other
  // rows are not copied out (most, for a model with many runs on GPUs or formats a plan passes
  // over).
  std::vector<std::pair<std::string_view, std::string_view>> wanted; // GPU, weight format
  for (const auto& c : plan.candidates) {
    if (c.partition.empty()) {
      wanted.emplace_back(c.gpu->name, to_string(c.spec->precision.weights));
    }
  }
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  const std::vector<PublishedResult> runs =
      published_results_where(data, *model, [&](const PublishedResult& r) {
        return std::any_of(wanted.begin(), wanted.end(), [&](const auto& w) {
          return w.first == r.gpu && w.second == r.weights;
        });
      });
  for (auto& c : plan.candidates) {
    if (!c.partition.empty()) {
      continue;
    }
    const PublishedResult* near =
        nearest_in(*c.spec, c.gpu->name, c.layout, c.spec->precision.weights, runs, *model);
    if (near != nullptr) {
      c.published = std::make_shared<const PublishedPrediction>(predict_published(
          *c.spec, *near, data, catalog, constants, efficiency, options.uncertainty));
    }
  }
}

} // namespace rightsize
