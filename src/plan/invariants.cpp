// Invariants of a plan, checked before rendering. docs/reliability.md, "Invariants".

#include <rightsize/core/error.hpp>
#include <rightsize/plan/invariants.hpp>

#include <fmt/format.h>

#include <cmath>

namespace rightsize {

namespace {

class Checker {
public:
  explicit Checker(std::string who) : m_who(std::move(who)) {}

  // A finite value at or above `min`.
  void at_least(const char* figure, double value, double min) const {
    if (!std::isfinite(value) || value < min) {
      fail(figure, fmt::format("{}", value), fmt::format("a finite value >= {:g}", min));
    }
  }
  // A finite value above zero.
  void positive(const char* figure, double value) const {
    if (!std::isfinite(value) || value <= 0.0) {
      fail(figure, fmt::format("{}", value), "a finite value > 0");
    }
  }
  // low <= point <= high, all finite.
  void band(const char* figure, const Band& b, double point) const {
    const double slack = 1e-9 * std::fabs(point);
    if (!std::isfinite(b.low) || !std::isfinite(b.high) || b.low > point + slack ||
        b.high < point - slack) {
      fail(figure,
           fmt::format("[{}, {}] around {}", b.low, b.high, point),
           "a band that contains its point");
    }
  }
  void holds(const char* figure, bool ok, const char* what) const {
    if (!ok) {
      fail(figure, what, "consistent figures");
    }
  }
  // The same, with the sentence written (what() -> std::string) only when the check fails: a plan
  // checks every month of every candidate.
  template <class What> void holds(const char* figure, bool ok, const What& what) const {
    if (!ok) {
      fail(figure, what(), "consistent figures");
    }
  }

private:
  [[noreturn]] void
  fail(const char* figure, const std::string& value, const std::string& expected) const {
    throw InternalError(fmt::format(
        "report invariant violated: {}: {} is {}, expected {}", m_who, figure, value, expected));
  }
  std::string m_who;
};

void check_cost(const Checker& ck, const Candidate& c) {
  const CostBreakdown& k = c.cost;
  ck.at_least("cost.per_hour", k.per_hour.si(), 0.0);
  ck.at_least("cost.tco", k.tco.si(), 0.0);
  ck.at_least("cost.purchase", k.purchase.si(), 0.0);
  ck.at_least("cost.power_per_hour", k.power_per_hour.si(), 0.0);
  if (k.usd_per_million_tokens) {
    ck.at_least("cost.usd_per_million_tokens", *k.usd_per_million_tokens, 0.0);
  }
  if (k.usd_per_million_at_full_load) {
    ck.at_least("cost.usd_per_million_at_full_load", *k.usd_per_million_at_full_load, 0.0);
  }
  if (k.usd_per_audio_hour) {
    ck.at_least("cost.usd_per_audio_hour", *k.usd_per_audio_hour, 0.0);
  }
  if (k.usd_per_audio_hour_at_full_load) {
    ck.at_least("cost.usd_per_audio_hour_at_full_load", *k.usd_per_audio_hour_at_full_load, 0.0);
  }
  if (k.gpus_bought > 0) {
    ck.holds(
        "cost.on_prem.gpus_bought",
        k.gpus_bought == k.servers * k.gpus_per_server && k.gpus_bought >= k.gpus_needed_peak &&
            k.gpus_needed_peak >= k.gpus_needed_first && k.gpus_needed_first >= 1,
        [&] {
          return fmt::format("{} bought in {} servers of {}, {} needed at the peak, {} in month 1",
                             k.gpus_bought,
                             k.servers,
                             k.gpus_per_server,
                             k.gpus_needed_peak,
                             k.gpus_needed_first);
        });
  }
  if (!k.months.empty()) {
    double sum = 0.0;
    for (const auto& m : k.months) {
      ck.at_least("cost.months[].cost", m.cost.si(), 0.0);
      ck.holds("cost.months[].replicas", m.replicas >= c.replicas, [&] {
        return fmt::format(
            "{} in month {}, fewer than the {} planned", m.replicas, m.month, c.replicas);
      });
      sum += m.cost.si();
    }
    ck.holds("cost.tco", std::fabs(sum - k.tco.si()) <= 1e-6 * std::max(1.0, k.tco.si()), [&] {
      return fmt::format("{} while the months add up to {}", k.tco.si(), sum);
    });
  }
}

void check_candidate(const Candidate& c) {
  // The GPU and the layout, so that a report of a broken figure says which candidate it was.
  const Checker ck(c.gpu != nullptr ? fmt::format("{} (TP{} PP{} DP{} x {} replicas)",
                                                  c.gpu->name,
                                                  c.layout.tp,
                                                  c.layout.pp,
                                                  c.layout.dp,
                                                  c.replicas)
                                    : std::string("a candidate without a GPU"));
  ck.holds("gpu", c.gpu != nullptr, "missing");
  ck.holds("spec", c.spec != nullptr, "missing"); // the spec it was evaluated on
  ck.positive("replicas", c.replicas);
  ck.positive("gpus_per_replica", c.gpus_per_replica());
  const long long total =
      static_cast<long long>(c.layout.tp) * c.layout.cp * c.layout.pp * c.layout.dp * c.replicas;
  ck.holds("gpus", total == c.total_gpus(), [&] {
    return fmt::format("{} while tp x cp x pp x dp x replicas = {}", c.total_gpus(), total);
  });
  ck.at_least("memory.per_gpu", c.memory.per_gpu.total().si(), 0.0);
  ck.positive("memory.budget", c.memory.budget.si());
  // A configuration fits its own memory model: a serving replica's memory is at the batch it
  // runs (the rest queue), never over what the engine may use (issue 43, defect 2).
  ck.holds("memory.per_gpu",
           c.memory.per_gpu.total().si() <= c.memory.budget.si() * (1.0 + 1e-9) &&
               c.memory.per_gpu.total().si() <= c.memory.capacity.si() * (1.0 + 1e-9),
           [&] {
             return fmt::format("{} bytes per GPU at a batch of {}, over the {} bytes usable",
                                c.memory.per_gpu.total().si(),
                                c.memory.batch,
                                c.memory.budget.si());
           });
  if (c.memory_band) {
    ck.band("memory.bands.total_bytes", *c.memory_band, c.memory.per_gpu.total().si());
  }
  if (c.inference) {
    const InferencePerformance& i = *c.inference;
    ck.positive("inference.ttft", i.ttft.si());
    ck.positive("inference.requests_per_s", i.requests_per_s);
    if (i.prefill_only) {
      // An embedding workload decodes nothing: no TPOT, no output tokens.
      ck.positive("inference.prefill_tokens_per_s", i.prefill_tokens_per_s);
      ck.holds("inference.tpot", i.tpot.si() == 0.0 && i.output_tokens_per_s == 0.0, [&] {
        return fmt::format("an embedding workload reports TPOT {} s and {} output tokens/s",
                           i.tpot.si(),
                           i.output_tokens_per_s);
      });
    } else {
      ck.positive("inference.tpot", i.tpot.si());
      ck.positive("inference.output_tokens_per_s", i.output_tokens_per_s);
    }
    if (c.spec->workload.is_transcription()) {
      ck.positive("inference.audio_seconds_per_s", i.audio_seconds_per_s);
    }
    if (c.inference_bands) {
      const InferenceBands& b = *c.inference_bands;
      ck.band("inference.bands.ttft", b.ttft, i.ttft.si());
      if (!i.prefill_only) {
        ck.band("inference.bands.tpot", b.tpot, i.tpot.si());
        ck.band(
            "inference.bands.output_tokens_per_s", b.output_tokens_per_s, i.output_tokens_per_s);
      }
      ck.band("inference.bands.requests_per_s", b.requests_per_s, i.requests_per_s);
    }
  }
  if (c.training) {
    const TrainingPerformance& t = *c.training;
    ck.positive("training.step", t.step.si());
    ck.positive("training.tokens_per_s", t.tokens_per_s);
    ck.holds("training.mfu", std::isfinite(t.mfu) && t.mfu > 0.0 && t.mfu <= 1.0, [&] {
      return fmt::format("{}", t.mfu);
    });
    if (t.time_to_train) {
      ck.positive("training.time_to_train", t.time_to_train->si());
    }
    if (c.training_bands) {
      ck.band("training.bands.step_time", c.training_bands->step, t.step.si());
    }
  }
  check_cost(ck, c);
}

} // namespace

void check_invariants(const Plan& plan) {
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    const Candidate& c = plan.candidates[i];
    check_candidate(c);
    if (c.rank != static_cast<int>(i + 1)) {
      throw InternalError(
          fmt::format("report invariant violated: candidate {} has rank {}", i + 1, c.rank));
    }
  }
}

} // namespace rightsize
