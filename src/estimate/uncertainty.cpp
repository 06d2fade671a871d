// Uncertainty bands from data/uncertainty.json. Derivation: docs/accuracy.md, "Uncertainty bands".

#include <rightsize/core/error.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/estimate/uncertainty.hpp>

#include <fmt/format.h>

#include <cmath>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace {

constexpr const char* k_metrics[] = {"ttft", "tpot", "step_time", "memory"};

Band scaled(double point, const RatioBand& r) {
  return {point * r.low_ratio, point * r.high_ratio};
}

// A throughput is inverse to a time: its band is the time's band inverted.
Band inverted(double point, const RatioBand& r) {
  return {point / r.high_ratio, point / r.low_ratio};
}

} // namespace

Uncertainty Uncertainty::from_json(const nlohmann::json& j, const std::string& file) {
  const FieldReader root(j, file);
  root.reject_unknown({"schema_version",
                       "description",
                       "generated_by",
                       "coverage",
                       "min_group_lines",
                       "uncalibrated_widening",
                       "metrics"});
  if (root.integer("schema_version", Range::between(1.0, 1.0)) != 1) {
    root.fail_plain("unsupported schema_version");
  }
  Uncertainty u;
  u.coverage = root.number("coverage", Range{0.0, 1.0, true});
  u.widening = root.number("uncalibrated_widening", Range::between(1.0, 10.0));
  const auto metrics = root.object("metrics");
  metrics.reject_unknown({"ttft", "tpot", "step_time", "memory"});
  for (const char* metric : k_metrics) {
    const auto m = metrics.object(metric);
    if (!m.has("all")) {
      m.fail_plain("needs an \"all\" band");
    }
    for (const auto& [group, value] : m.json().items()) {
      const auto g = m.object(group);
      g.reject_unknown({"low_ratio", "high_ratio", "lines"});
      Entry e{g.number("low_ratio", Range{0.0, 1.0, true}),
              g.number("high_ratio", Range::between(1.0, 1000.0)),
              g.integer("lines", Range::between(1.0, 1e9))};
      u.m_metrics[metric][group] = e;
    }
  }
  return u;
}

Uncertainty Uncertainty::load(const std::string& path) {
  return from_json(detail::load_json_file(path), path);
}

const Uncertainty::Entry& Uncertainty::entry(const std::string& metric,
                                             const std::string& family,
                                             const std::string& engine,
                                             bool& own) const {
  const auto& groups = m_metrics.at(metric);
  std::string key;
  key.reserve(family.size() + 1 + engine.size());
  key.append(family).append("/").append(engine);
  const auto it = groups.find(key);
  own = it != groups.end();
  return own ? it->second : groups.at("all");
}

double Uncertainty::widened(const std::string& metric, double ratio, bool own) const {
  // Memory and step-time bands are not split by family or engine: every line informs every
  // prediction, so the overall band is not widened for them.
  if (own || metric == "memory" || metric == "step_time") {
    return ratio;
  }
  return std::pow(ratio, widening);
}

RatioBand Uncertainty::band(const std::string& metric,
                            const std::string& family,
                            const std::string& engine) const {
  bool own = false;
  const Entry& e = entry(metric, family, engine, own);
  const double low = widened(metric, e.low_ratio, own);
  const double high = widened(metric, e.high_ratio, own);
  if (own) {
    return {low, high, true, fmt::format("{}/{}, {} held-out lines", family, engine, e.lines)};
  }
  if (metric == "memory" || metric == "step_time") {
    return {low, high, true, fmt::format("{} held-out lines", e.lines)};
  }
  return {low,
          high,
          false,
          fmt::format("no {}/{} lines: all {} held-out lines, widened x{:g}",
                      family,
                      engine,
                      e.lines,
                      widening)};
}

double Uncertainty::high_ratio(const std::string& metric,
                               const std::string& family,
                               const std::string& engine) const {
  bool own = false;
  const Entry& e = entry(metric, family, engine, own);
  return widened(metric, e.high_ratio, own);
}

InferenceBands inference_bands(const InferencePerformance& p,
                               const Uncertainty& u,
                               const Gpu& gpu,
                               Engine engine) {
  const std::string family = Efficiency::family_name(gpu);
  const std::string eng(to_string(engine));
  InferenceBands b;
  b.ttft_ratio = u.band("ttft", family, eng);
  b.tpot_ratio = u.band("tpot", family, eng);
  b.ttft = scaled(p.ttft.si(), b.ttft_ratio);
  b.tpot = scaled(p.tpot.si(), b.tpot_ratio);
  b.output_tokens_per_s = inverted(p.output_tokens_per_s, b.tpot_ratio);
  b.requests_per_s = inverted(p.requests_per_s, b.tpot_ratio);
  return b;
}

TrainingBands training_bands(const TrainingPerformance& p, const Uncertainty& u, const Gpu& gpu) {
  TrainingBands b;
  b.step_ratio = u.band("step_time", Efficiency::family_name(gpu), "megatron");
  b.step = scaled(p.step.si(), b.step_ratio);
  if (p.time_to_train) {
    b.time_to_train = scaled(p.time_to_train->si(), b.step_ratio);
  }
  b.tokens_per_s = inverted(p.tokens_per_s, b.step_ratio);
  return b;
}

Band memory_band(Bytes total, const Uncertainty& u) {
  return scaled(total.si(), u.band("memory", "", ""));
}

} // namespace rightsize
