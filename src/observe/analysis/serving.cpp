// A serving workload judged on its engine's own metrics: queue, KV-cache usage and latency against
// the SLA of the spec it serves, and sized by the estimator on that spec at the observed load.
// docs/observe.md, "Serving engines".

#include "text.hpp"
#include "workload_analysis.hpp"

#include <rightsize/core/units_format.hpp>
#include <rightsize/plan/evaluate.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rightsize::analysis {

void attach_engine_metrics(std::vector<Group>& groups,
                           const std::vector<EngineSeries>& pods,
                           std::vector<std::string>& warnings) {
  std::size_t unmatched = 0;
  std::string first_unmatched;
  for (const EngineSeries& e : pods) {
    bool found = false;
    for (Group& g : groups) {
      const bool by_name = !e.workload.empty() && e.workload == g.name;
      const bool by_pod =
          e.workload.empty() && std::any_of(g.gpus.begin(), g.gpus.end(), [&](const auto* s) {
            return s->id.pod == e.pod && s->id.namespace_name == e.namespace_name;
          });
      if (by_name || by_pod) {
        g.engine.push_back(&e);
        found = true;
        break;
      }
    }
    if (!found && unmatched++ == 0) {
      first_unmatched = e.workload.empty() ? e.namespace_name + "/" + e.pod : e.workload;
    }
  }
  if (unmatched > 0) {
    warnings.push_back(fmt::format(
        "engine metrics of {} pod{} match no workload's GPUs (the first: {}); ignored (with "
        "--engine-metrics WORKLOAD=FILE, WORKLOAD is a name the report lists)",
        unmatched,
        unmatched == 1 ? "" : "s",
        first_unmatched));
  }
}

namespace {

std::string seconds_text(double s) {
  return s < 1.0 ? fmt::format("{:.0f} ms", s * 1000) : fmt::format("{:.2f} s", s);
}

// The spec's target on a latency and the statistic it is held on: its strictest percentile
// target (the highest percentile), else its mean target.
std::pair<std::optional<double>, std::string>
target_of(const std::vector<PercentileTarget>& percentiles, const std::optional<Seconds>& mean) {
  if (!percentiles.empty()) {
    const auto& t = percentiles.back();
    return {t.limit.si(), statistic_name(t.percentile)};
  }
  if (mean) {
    return {mean->si(), "mean"};
  }
  return {std::nullopt, ""};
}

std::optional<double> statistic(const std::optional<LatencyHistogram>& h, const std::string& stat) {
  if (!h) {
    return std::nullopt;
  }
  if (stat == "mean" || stat.size() < 2) {
    return h->mean();
  }
  return h->quantile(std::stod(stat.substr(1)) / 100.0);
}

} // namespace

void WorkloadAnalysis::measure_serving() {
  if (m_group.engine.empty()) {
    return;
  }
  ServingObservation s;
  s.engine = m_group.engine.front()->engine;
  std::optional<LatencyHistogram> ttft;
  std::optional<LatencyHistogram> itl;
  for (const EngineSeries* e : m_group.engine) {
    ++s.pods;
    s.scrapes = std::max(s.scrapes, e->scrapes);
    s.window_s = std::max(s.window_s, e->window_s);
    if (e->running.p95 >= s.running.p95) {
      s.running = e->running;
    }
    if (e->waiting.p95 >= s.waiting.p95 && e->waiting.max >= s.waiting.max) {
      s.waiting = e->waiting;
    }
    s.demand += e->demand.p95;
    if (e->kv_cache_usage &&
        (!s.kv_cache_usage || e->kv_cache_usage->p95 > s.kv_cache_usage->p95)) {
      s.kv_cache_usage = e->kv_cache_usage;
    }
    if (e->preemptions) {
      s.preemptions = s.preemptions.value_or(0) + *e->preemptions;
    }
    for (auto [from, into] : {std::pair{&e->ttft, &ttft}, std::pair{&e->itl, &itl}}) {
      if (*from) {
        if (*into) {
          (*into)->add(**from);
        } else {
          *into = *from;
        }
      }
    }
  }
  // Pods that followed each other (a rollout, a restart) did not hold their requests at once: the
  // sum is scaled to the most pods that ran at once.
  if (m_w.pods > 0 && s.pods > m_w.pods) {
    s.demand *= static_cast<double>(m_w.pods) / static_cast<double>(s.pods);
  }
  if (ttft) {
    s.ttft_p50_s = ttft->quantile(0.50);
    s.ttft_p95_s = ttft->quantile(0.95);
    s.ttft_mean_s = ttft->mean();
  }
  if (itl) {
    s.itl_p50_s = itl->quantile(0.50);
    s.itl_p95_s = itl->quantile(0.95);
    s.itl_mean_s = itl->mean();
  }
  for (const auto& m : m_o.specs) {
    if (workload_matches(m.pattern, m_w.name)) {
      m_spec = m.spec.get();
      s.spec_file = m.spec_file;
      s.spec_name = m.spec->name;
      const auto& t = m.spec->workload.inference.targets;
      std::tie(s.ttft_target_s, s.ttft_target_statistic) = target_of(t.ttft_percentiles, t.ttft);
      std::tie(s.itl_target_s, s.itl_target_statistic) = target_of(t.tpot_percentiles, t.tpot);
      s.ttft_observed_s = statistic(ttft, s.ttft_target_statistic);
      s.itl_observed_s = statistic(itl, s.itl_target_statistic);
      break;
    }
  }
  s.sized_concurrency =
      std::max(1LL, static_cast<long long>(std::ceil(s.demand * (1.0 + m_o.buffer) - 1e-9)));
  m_w.serving = std::move(s);
}

void WorkloadAnalysis::find_serving_reasons() {
  const ServingObservation& s = *m_w.serving;
  // What the GPU metrics say of a serving engine is what it holds: its metrics replace them.
  std::vector<ObserveReason> kept;
  for (auto& r : m_w.reasons) {
    if (r.code == "throttled" || r.code == "interconnect_bound") {
      kept.push_back(std::move(r));
    }
  }
  m_w.reasons = std::move(kept);
  const std::string window = format_seconds(seconds(s.window_s));
  const std::string where = s.pods > 1 ? " on the pod that queued most" : "";
  if (s.running.max <= 0 && s.waiting.max <= 0) {
    reason("idle",
           fmt::format("no request ran or waited on the {} server over {}: nothing was served",
                       s.engine,
                       window));
    return;
  }
  if (s.waiting.p95 >= 1) {
    reason("requests_waiting",
           fmt::format("requests waiting p95 is {:g}{} (>= 1): at least 5% of the time a "
                       "request waited for a slot in the batch",
                       s.waiting.p95,
                       where));
  }
  if (s.preemptions && *s.preemptions > 0) {
    reason("kv_cache_full",
           fmt::format("{:.0f} request{} preempted over {}: the KV cache ran out and the engine "
                       "evicted running requests to recompute them later",
                       *s.preemptions,
                       *s.preemptions == 1 ? " was" : "s were",
                       window));
  } else if (s.kv_cache_usage && s.kv_cache_usage->p95 >= m_o.kv_cache_full_above) {
    reason("kv_cache_full",
           fmt::format("KV-cache usage p95 is {} (>= {}): new requests wait for cache to free",
                       percent(s.kv_cache_usage->p95),
                       percent(m_o.kv_cache_full_above)));
  }
  const auto over = [&](const std::optional<double>& observed,
                        const std::optional<double>& target,
                        const std::string& stat,
                        const char* what) {
    if (observed && target && *observed > *target) {
      reason("latency_over_target",
             fmt::format("{} {} is {} (> the spec's {}): the SLA is missed",
                         what,
                         stat,
                         seconds_text(*observed),
                         seconds_text(*target)));
    }
  };
  over(s.ttft_observed_s, s.ttft_target_s, s.ttft_target_statistic, "TTFT");
  over(s.itl_observed_s, s.itl_target_s, s.itl_target_statistic, "inter-token latency");
  // Headroom needs the queue measured: an engine without a waiting gauge says nothing of it.
  if (s.kv_cache_usage && s.kv_cache_usage->p95 < m_o.kv_cache_headroom_below &&
      s.waiting.samples > 0 && s.waiting.max <= 0 && !has_reason("latency_over_target") &&
      !has_reason("kv_cache_full")) {
    reason("kv_cache_headroom",
           fmt::format("KV-cache usage p95 is {} (< {}) and no request ever waited: the load "
                       "uses a fraction of the cache the engine holds",
                       percent(s.kv_cache_usage->p95),
                       percent(m_o.kv_cache_headroom_below)));
  }
  if (s.spec_file.empty()) {
    m_w.notes.push_back(fmt::format(
        "no spec maps to {}: no latency target to hold it to, and no estimate of its memory "
        "(--spec-map FILE or --spec FILE, docs/observe.md \"Serving engines\")",
        m_w.name));
  }
}

// The estimator on the workload's spec at the observed load: on what it runs now (its memory and
// latency there), and the cheapest configuration the plan finds.
void WorkloadAnalysis::size_spec() {
  if (m_spec == nullptr || m_o.planning == nullptr) {
    return;
  }
  ServingObservation& s = *m_w.serving;
  const SpecPlanning& p = *m_o.planning;
  Spec spec = *m_spec;
  spec.workload.inference.concurrency = s.sized_concurrency;
  // The load as observed, priced as observe prices, for one month: no growth to plan for.
  const Deployment given = spec.deployment;
  spec.deployment = m_o.pricing;
  spec.deployment.horizon_months = 1;
  spec.deployment.growth_per_month = 0;
  spec.deployment.gpus_per_server = given.gpus_per_server;
  if (!m_o.gpus.empty()) {
    spec.constraints.gpus = m_o.gpus;
  } else if (spec.constraints.gpus.empty() && spec.constraints.vendors.empty()) {
    spec.constraints.vendors = {m_whole.vendor};
  }
  if (m_w.partition.empty() && m_w.pods > 0 && m_w.gpus % m_w.pods == 0) {
    ConfigurationRef current;
    current.gpu = m_whole.name;
    current.layout.tp = m_w.gpus / m_w.pods;
    current.replicas = m_w.pods;
    current.weights = spec.precision.weights;
    current.kv_cache = spec.precision.kv_cache;
    const auto now =
        evaluate_configuration(spec, *p.catalog, *p.constants, *p.efficiency, p.options, current);
    if (now.candidate && now.candidate->memory.fits) {
      s.estimated_memory_per_gpu_bytes = now.candidate->memory.per_gpu.total().si();
      // The estimator's memory replaces what the engine preallocated (docs/observe.md).
      m_w.memory_needed_bytes = *s.estimated_memory_per_gpu_bytes * m_w.gpus;
      const std::string plan_tail = "rightsize plan on the workload's spec sizes its memory";
      for (auto& note : m_w.notes) {
        if (note.size() > plan_tail.size() &&
            note.compare(note.size() - plan_tail.size(), plan_tail.size(), plan_tail) == 0) {
          note.replace(note.size() - plan_tail.size(),
                       plan_tail.size(),
                       fmt::format("the estimator puts {}'s need at {} per GPU there, at {} "
                                   "concurrent requests",
                                   s.spec_name,
                                   gib_text(*s.estimated_memory_per_gpu_bytes),
                                   s.sized_concurrency));
        }
      }
      if (now.candidate->inference) {
        s.estimated_ttft_s = now.candidate->inference->ttft.si();
        s.estimated_tpot_s = now.candidate->inference->tpot.si();
        // The time per output token is the steadiest of what the engine and the estimator both
        // give: twice off either way, the spec likely describes something else than this pod
        // serves (another model, precision or lengths), and its sizing with it.
        if (s.itl_mean_s && *s.estimated_tpot_s > 0) {
          const double ratio = *s.itl_mean_s / *s.estimated_tpot_s;
          if (ratio > 2.0 || ratio < 0.5) {
            m_spec_mismatch = fmt::format(
                "check the spec: the inter-token latency observed, {:.1f} ms on average, is "
                "{:.1f}x the estimator's TPOT on the same GPUs for {} ({:.1f} ms), so the spec "
                "likely describes something else than this pod serves (model, precision, input "
                "and output lengths) and no size made from it is given; keep it until then",
                *s.itl_mean_s * 1000,
                ratio,
                s.spec_file,
                *s.estimated_tpot_s * 1000);
          }
        }
      }
    } else if (!now.problem.empty()) {
      m_w.notes.push_back(fmt::format("the estimator on {} at {} concurrent requests, on {}x {} "
                                      "as {} pod{}: {}",
                                      s.spec_file,
                                      s.sized_concurrency,
                                      m_w.gpus,
                                      m_whole.name,
                                      m_w.pods,
                                      m_w.pods == 1 ? "" : "s",
                                      now.problem));
    }
  }
  m_plan =
      std::make_shared<Plan>(make_plan(spec, *p.catalog, *p.constants, *p.efficiency, p.options));
}

// The cheapest of the plan's whole-GPU configurations (each meets the spec's targets) at
// observe's prices, which is what "now" is priced at; ties go to fewer GPUs. Null without one.
const Candidate* WorkloadAnalysis::cheapest_in_plan(double& usd_per_month) const {
  const Candidate* best = nullptr;
  usd_per_month = HUGE_VAL;
  if (!m_plan) {
    return nullptr;
  }
  for (const auto& c : m_plan->candidates) {
    if (!c.partition.empty() || c.disaggregation != nullptr) {
      continue;
    }
    const auto usd = monthly(*c.gpu, c.total_gpus(), m_o);
    if (!usd) {
      continue;
    }
    const double tolerance = 1e-9 * std::max(*usd, best == nullptr ? *usd : usd_per_month);
    if (best == nullptr || *usd < usd_per_month - tolerance ||
        (*usd <= usd_per_month + tolerance && c.total_gpus() < best->total_gpus())) {
      best = &c;
      usd_per_month = *usd;
    }
  }
  return best;
}

// Under-provisioned without a spec: as many replicas as the observed demand needs at the most
// requests one pod ran at once, and one more than now at least.
void WorkloadAnalysis::scale_out(ObserveRecommendation& r) const {
  const ServingObservation& s = *m_w.serving;
  const int per_pod = m_w.pods > 0 ? m_w.gpus / m_w.pods : m_w.gpus;
  const double held = std::max(1.0, s.running.max);
  const int pods_now = std::max(1, m_w.pods);
  const int replicas = std::max(
      pods_now + 1, static_cast<int>(std::ceil(s.demand * (1.0 + m_o.buffer) / held - 1e-9)));
  r.gpu = m_whole.name;
  r.gpus = replicas * per_pod;
  r.partition = m_w.partition;
  r.usd_per_month_recommended = monthly(m_shape, r.gpus, m_o);
  r.text = fmt::format("{} replicas of {}x {}: requests held at once p95 {:.0f} over the "
                       "workload with the {} buffer, at the {:.0f} one pod ran at most; a spec "
                       "(--spec-map) sizes it with the estimator instead",
                       replicas,
                       per_pod,
                       m_whole.name,
                       s.demand,
                       percent(m_o.buffer),
                       held);
}

void WorkloadAnalysis::decide_serving(std::vector<std::string>& warnings) {
  const ServingObservation& s = *m_w.serving;
  ObserveRecommendation r = priced_now(warnings);
  const double current_share = m_w.partition.empty() ? 1.0 : share_of_gpu(m_whole, m_shape);
  const auto keep = [&](std::string text) { keep_current(r, std::move(text)); };
  const std::string window = format_seconds(seconds(s.window_s));
  // The plan's cheapest whole-GPU configuration, as a recommendation.
  double best_usd = HUGE_VAL;
  const Candidate* best = cheapest_in_plan(best_usd);
  const auto from_plan = [&](const Candidate& c) {
    r.gpu = c.gpu->name;
    r.gpus = c.total_gpus();
    r.usd_per_month_recommended = monthly(*c.gpu, r.gpus, m_o);
    const bool same = c.gpu == &m_whole || c.gpu->name == m_whole.name;
    r.gpus_freed = std::max(0.0, current_share * m_w.gpus - (same ? r.gpus : 0.0));
    r.text = fmt::format("{}x {} ({} replica{} of TP{}): the estimator on {} at {} concurrent "
                         "requests (the observed {:.0f} with the {} buffer) meets its targets "
                         "there with {} per GPU",
                         r.gpus,
                         c.gpu->name,
                         c.replicas,
                         c.replicas == 1 ? "" : "s",
                         c.layout.tp,
                         s.spec_file,
                         s.sized_concurrency,
                         s.demand,
                         percent(m_o.buffer),
                         gib_text(c.memory.per_gpu.total().si()));
    if (c.inference) {
      r.text += fmt::format(" (TTFT {}, TPOT {} predicted)",
                            seconds_text(c.inference->ttft.si()),
                            seconds_text(c.inference->tpot.si()));
    }
  };
  const bool under = has_reason("latency_over_target") ||
                     (has_reason("requests_waiting") && has_reason("kv_cache_full")) ||
                     (s.spec_file.empty() && has_reason("kv_cache_full"));
  if (s.scrapes < static_cast<std::size_t>(m_o.min_samples_per_gpu) ||
      s.window_s < m_o.min_window_s) {
    m_w.verdict = "inconclusive";
    keep(fmt::format("observe longer: {} scrape{} of the {} server's metrics over {} (a "
                     "verdict needs at least {} over {}); keep it until then",
                     s.scrapes,
                     s.scrapes == 1 ? "" : "s",
                     s.engine,
                     window,
                     m_o.min_samples_per_gpu,
                     format_seconds(seconds(m_o.min_window_s))));
  } else if (!m_spec_mismatch.empty() && !has_reason("idle")) {
    m_w.verdict = "inconclusive";
    keep(m_spec_mismatch);
  } else if (has_reason("idle")) {
    m_w.verdict = "idle";
    r.gpus = 0;
    r.usd_per_month_recommended = 0.0;
    r.gpus_freed = current_share * m_w.gpus;
    r.text = fmt::format("free the {} GPU{}: no request in {} (scale to zero, or give them back)",
                         m_w.gpus,
                         m_w.gpus == 1 ? "" : "s",
                         window);
  } else if (under) {
    m_w.verdict = "under-provisioned";
    if (best != nullptr) {
      from_plan(*best);
      r.gpus_freed = 0;
    } else if (m_plan) {
      r.text = fmt::format("nothing in the catalog meets {}'s targets at {} concurrent requests",
                           s.spec_file,
                           s.sized_concurrency);
    } else {
      scale_out(r);
    }
  } else if (has_reason("kv_cache_headroom") && best != nullptr && r.usd_per_month_now &&
             monthly(*best->gpu, best->total_gpus(), m_o).value_or(HUGE_VAL) <=
                 *r.usd_per_month_now * (1.0 - m_o.min_saving)) {
    m_w.verdict = "over-provisioned";
    from_plan(*best);
  } else if (has_reason("kv_cache_headroom") && s.spec_file.empty()) {
    m_w.verdict = "inconclusive";
    keep(fmt::format("map it to its spec (--spec-map) for a size: the {} server uses {} of its "
                     "KV cache and no request waited, but only the estimator on the model and "
                     "its traffic says what smaller configuration holds it; keep it until then",
                     s.engine,
                     percent(s.kv_cache_usage->p95)));
  } else {
    m_w.verdict = "right-sized";
    if (best != nullptr) {
      keep(fmt::format("keep it: the cheapest configuration that meets {}'s targets at {} "
                       "concurrent requests is {}x {} at {}/month, not {} less than what runs",
                       s.spec_file,
                       s.sized_concurrency,
                       best->total_gpus(),
                       best->gpu->name,
                       format_usd(usd(best_usd)),
                       percent(m_o.min_saving)));
      if (best->gpu->name == m_whole.name && best->total_gpus() == m_w.gpus) {
        r.text = fmt::format("keep it: {}x {} is the cheapest configuration that meets {}'s "
                             "targets at {} concurrent requests",
                             m_w.gpus,
                             m_whole.name,
                             s.spec_file,
                             s.sized_concurrency);
      }
    } else if (m_plan) {
      keep(fmt::format("keep it: nothing in the catalog meets {}'s targets at {} concurrent "
                       "requests (rightsize plan on it says why)",
                       s.spec_file,
                       s.sized_concurrency));
    } else {
      keep("keep it: its engine's queue, KV cache and latency show neither a shortage nor a "
           "surplus");
    }
  }
  if (r.usd_per_month_now && r.usd_per_month_recommended) {
    r.usd_per_month_saved = *r.usd_per_month_now - *r.usd_per_month_recommended;
  }
  m_w.recommendation = r;
}

} // namespace rightsize::analysis
