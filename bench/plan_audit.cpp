#include "plan_audit.hpp"

#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/plan/evaluate.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace rightsize::bench {

namespace {

// Equal within rounding: the two paths compute the same figures in the same order.
bool same(double a, double b) {
  return a == b || std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

class Auditor {
public:
  Auditor(const Plan& plan, const AuditData& data, AuditCounts& counts)
      : m_plan(plan), m_data(data), m_counts(counts) {}

  void candidate(const Candidate& c) {
    m_who = fmt::format("{}: {} x{} TP{} PP{} {}/{}",
                        m_plan.spec.file,
                        c.partition.empty() ? c.gpu->name : c.whole_gpu->name + "/" + c.partition,
                        c.replicas,
                        c.layout.tp,
                        c.layout.pp,
                        to_string(c.spec->precision.weights),
                        to_string(c.spec->precision.kv_cache));
    ++m_counts.candidates;
    memory_within(c.memory, "");
    if (c.partition.empty()) {
      reproduced_by_estimate(c);
    }
    if (c.inference) {
      months(c);
    }
    double sum = 0;
    for (const MonthCost& m : c.cost.months) {
      sum += m.cost.si();
    }
    if (!c.cost.months.empty() && !same(sum, c.cost.tco.si())) {
      fail(fmt::format("TCO {} is not the sum of its months, {}", c.cost.tco.si(), sum));
    }
  }

private:
  void fail(const std::string& what) { m_counts.violations.push_back(m_who + ": " + what); }

  void memory_within(const MemoryEstimate& m, const std::string& when) {
    const double total = m.per_gpu.total().si();
    if (total > m.budget.si() * (1 + 1e-12)) {
      fail(fmt::format("{}memory {:.4g} GiB over the usable {:.4g} GiB",
                       when,
                       total / 1073741824.0,
                       m.budget.si() / 1073741824.0));
    }
    if (m.budget.si() > m.capacity.si() * (1 + 1e-12)) {
      fail(fmt::format("{}usable memory over the GPU's capacity", when));
    }
  }

  // `rightsize estimate` with the candidate's check-it arguments.
  void reproduced_by_estimate(const Candidate& c) {
    Parallelism layout = c.layout;
    std::optional<long long> batch = c.memory.batch;
    if (c.inference) {
      layout.dp = c.replicas;
      batch = std::max(c.inference->offered, c.memory.batch);
    }
    const EstimateEvaluation e =
        c.disaggregation
            ? estimate_disaggregated_configuration(*c.spec,
                                                   *c.gpu,
                                                   c.layout,
                                                   c.disaggregation->pools.layout.prefill.replicas,
                                                   c.disaggregation->pools.layout.decode.replicas,
                                                   m_data.constants,
                                                   m_data.efficiency,
                                                   m_data.uncertainty)
            : estimate_configuration(*c.spec,
                                     *c.gpu,
                                     layout,
                                     batch,
                                     m_data.constants,
                                     m_data.efficiency,
                                     m_data.uncertainty);
    ++m_counts.estimates;
    const auto compare = [&](const char* figure, double planned, double estimated) {
      if (!same(planned, estimated)) {
        fail(fmt::format("{}: plan {} but estimate {}", figure, planned, estimated));
      }
    };
    compare("memory per GPU", c.memory.per_gpu.total().si(), e.memory.per_gpu.total().si());
    if (c.inference && e.inference) {
      compare("TTFT", c.inference->ttft.si(), e.inference->ttft.si());
      compare("TPOT", c.inference->tpot.si(), e.inference->tpot.si());
      compare("requests/s", c.inference->requests_per_s, e.inference->requests_per_s);
      compare(
          "output tokens/s", c.inference->output_tokens_per_s, e.inference->output_tokens_per_s);
    } else if (c.training && e.training) {
      compare("step time", c.training->step.si(), e.training->step.si());
    } else {
      fail("estimate gives no speed for it");
      return;
    }
    const EstimateReport report =
        estimate_report(e, m_data.options.confidence, m_data.options.today);
    for (const TargetCheck& t : report.targets) {
      if (!t.met) {
        fail(fmt::format(
            "estimate finds the {} target missed ({:.4g} vs {:.4g})", t.target, t.held, t.limit));
      }
    }
  }

  // Each month alone: its concurrency and rate targets, its replicas, no further growth.
  void months(const Candidate& c) {
    const Deployment& d = m_plan.spec.deployment;
    std::set<std::pair<long long, long long>> seen; // (replicas, concurrency) judged
    for (const MonthCost& m : c.cost.months) {
      if (m.gpus != m.replicas * c.gpus_per_replica()) {
        fail(fmt::format("month {}: {} GPUs for {} replicas", m.month, m.gpus, m.replicas));
      }
      if (m.replicas < c.replicas) {
        fail(fmt::format("month {}: {} replicas, fewer than planned", m.month, m.replicas));
      }
      const double factor =
          std::max(1.0, std::pow(1.0 + d.growth_per_month, static_cast<double>(m.month - 1)));
      if (!seen.insert({m.replicas, m.concurrency.value_or(-1)}).second && factor == 1.0) {
        continue;
      }
      Spec month = *c.spec;
      auto& w = month.workload.inference;
      if (m.concurrency) {
        w.concurrency = m.concurrency;
      }
      if (w.targets.requests_per_s) {
        w.targets.requests_per_s = *w.targets.requests_per_s * factor;
      }
      if (w.targets.output_tokens_per_s) {
        w.targets.output_tokens_per_s = *w.targets.output_tokens_per_s * factor;
      }
      month.deployment.growth_per_month = 0;
      month.deployment.horizon_months = 1;
      ConfigurationRef ref;
      ref.gpu = c.partition.empty() ? c.gpu->name : c.whole_gpu->name + " " + c.partition;
      ref.layout = c.layout;
      ref.replicas = static_cast<int>(m.replicas);
      ref.weights = month.precision.weights;
      ref.kv_cache = month.precision.kv_cache;
      // A disaggregated candidate's month: its replicas split as best serves the month's load.
      ref.disaggregated = c.disaggregation != nullptr;
      // Offline serving runs each replica's own largest batch that meets the latency targets,
      // the same every month (only the replicas grow with the rate targets); online serving
      // shares the month's concurrency as the search does.
      if (!w.concurrency) {
        ref.batch = c.memory.batch;
      }
      const ConfigurationEvaluation e = evaluate_configuration(
          month, m_data.catalog, m_data.constants, m_data.efficiency, m_data.options, ref);
      ++m_counts.months;
      const std::string when = fmt::format(
          "month {} ({} replicas{}): ",
          m.month,
          m.replicas,
          m.concurrency ? fmt::format(", {} concurrent", *m.concurrency) : std::string());
      if (!e.problem.empty() && e.problem_kind != "price") {
        fail(when + e.problem);
      }
      if (e.candidate) {
        memory_within(e.candidate->memory, when);
      }
    }
  }

  const Plan& m_plan;
  const AuditData& m_data;
  AuditCounts& m_counts;
  std::string m_who;
};

} // namespace

void audit_plan(const Plan& plan, const AuditData& data, AuditCounts& counts) {
  ++counts.plans;
  Auditor auditor(plan, data, counts);
  for (const Candidate& c : plan.candidates) {
    auditor.candidate(c);
  }
}

} // namespace rightsize::bench
