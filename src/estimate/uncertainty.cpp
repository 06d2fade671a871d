// Uncertainty bands from data/uncertainty.json. Derivation: docs/accuracy.md, "Uncertainty bands".

#include "bundled.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/estimate/uncertainty.hpp>

#include <fmt/format.h>

#include <algorithm>
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

// A band entry of the file: low_ratio, high_ratio, lines (and, in transfer groups, coverage).
// An unsized entry says why ("reason"), reported by the file, not kept.
template <class Entry> Entry read_entry(const FieldReader& g) {
  g.reject_unknown({"low_ratio", "high_ratio", "lines", "coverage", "unsized", "reason"});
  if (g.has("coverage")) {
    static_cast<void>(g.number("coverage", Range::between(0.0, 1.0)));
  }
  Entry e{g.number("low_ratio", Range{0.0, 1.0, true}),
          g.number("high_ratio", Range::between(1.0, 1000.0)),
          g.integer("lines", Range::between(1.0, 1e9))};
  e.unsized =
      g.has("unsized") && g.json().at("unsized").is_boolean() && g.json().at("unsized").get<bool>();
  if (e.unsized && !g.has("reason")) {
    g.fail_plain("an unsized band needs its \"reason\"");
  }
  return e;
}

// "transfer": per dimension of the leave-one-group-out derivation its pooled ttft and tpot bands
// and its groups (reported, checked for shape); the bands use gpu_family's and engine's, and the
// envelope of the two ("both").
template <class Map> void read_transfer(const FieldReader& t, Map& into) {
  using Entry = typename Map::mapped_type::mapped_type;
  t.reject_unknown({"description",
                    "max_rounds",
                    "gpu_family",
                    "engine",
                    "model_kind",
                    "input_length",
                    "output_length",
                    "kv_regime",
                    "layout"});
  for (const char* dimension : {"gpu_family", "engine"}) {
    if (!t.has(dimension)) {
      t.fail_plain(std::string("needs the \"") + dimension + "\" transfer band");
    }
  }
  for (const auto& [dimension, value] : t.json().items()) {
    if (!value.is_object()) {
      continue;
    }
    const auto d = t.object(dimension);
    d.reject_unknown({"ttft", "tpot", "groups"});
    for (const char* metric : {"ttft", "tpot"}) {
      into[dimension][metric] = read_entry<Entry>(d.object(metric));
    }
    if (d.has("groups")) {
      const auto groups = d.object("groups");
      for (const auto& [name, g] : groups.json().items()) {
        const auto group = groups.object(name);
        group.reject_unknown({"ttft", "tpot"});
        for (const auto& [metric, e] : g.items()) {
          const Entry entry = read_entry<Entry>(group.object(metric));
          if (dimension == "kv_regime" && name == "queues") {
            into["kv_overflow"][metric] = entry; // the band of an overflowing KV cache
          }
          if (dimension == "layout" && (name == "disaggregated" || name == "attention_dp")) {
            into[name][metric] = entry; // the band of a layout no line was fitted on
          }
        }
      }
    }
  }
  for (const char* metric : {"ttft", "tpot"}) {
    const Entry& f = into.at("gpu_family").at(metric);
    const Entry& e = into.at("engine").at(metric);
    into["both"][metric] = Entry{std::min(f.low_ratio, e.low_ratio),
                                 std::max(f.high_ratio, e.high_ratio),
                                 std::min(f.lines, e.lines)};
  }
  for (auto it = into.begin(); it != into.end();) {
    const bool used = it->first == "gpu_family" || it->first == "engine" || it->first == "both" ||
                      it->first == "kv_overflow" || it->first == "disaggregated" ||
                      it->first == "attention_dp";
    it = used ? std::next(it) : into.erase(it);
  }
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
                       "transfer",
                       "metrics",
                       "calibration"});
  const long long version = root.integer("schema_version", Range::between(1.0, 2.0));
  Uncertainty u;
  u.coverage = root.number("coverage", Range{0.0, 1.0, true});
  if (version == 1 || root.has("uncalibrated_widening")) {
    u.widening = root.number("uncalibrated_widening", Range::between(1.0, 10.0));
  }
  if (version == 2) {
    read_transfer(root.object("transfer"), u.m_transfer);
  }
  const auto metrics = root.object("metrics");
  metrics.reject_unknown({"ttft", "tpot", "step_time", "memory"});
  for (const char* metric : k_metrics) {
    const auto m = metrics.object(metric);
    if (!m.has("all")) {
      m.fail_plain("needs an \"all\" band");
    }
    for (const auto& [group, value] : m.json().items()) {
      u.m_metrics[metric][group] = read_entry<Entry>(m.object(group));
    }
  }
  if (const auto cal = root.optional_object("calibration")) {
    cal->reject_unknown({"serving", "training"});
    const auto read = [&](const char* kind,
                          std::map<std::string, Fitted>& into,
                          std::initializer_list<std::pair<const char*, const char*>> errors) {
      const auto part = cal->object(kind);
      for (const auto& [key, value] : part.json().items()) {
        const auto g = part.object(key);
        std::vector<std::string> known = {"fit_runs", "held_out_runs"};
        for (const auto& [field, name] : errors) {
          known.emplace_back(field);
        }
        g.reject_unknown(known);
        Fitted f;
        f.fit_runs = g.integer("fit_runs", Range::between(0.0, 1e9));
        f.held_out_runs = g.integer("held_out_runs", Range::between(0.0, 1e9));
        for (const auto& [field, name] : errors) {
          if (const auto e = g.optional_number(field, Range::between(0.0, 1000.0))) {
            f.median_error[name] = *e;
          }
        }
        into[key] = f;
      }
    };
    read("serving",
         u.m_serving,
         {{"tpot_median_error", "TPOT"},
          {"ttft_median_error", "TTFT"},
          {"table_median_error", "published tables"}});
    read("training", u.m_training, {{"median_error", "MFU"}});
  }
  return u;
}

const char* unmeasured_workload(const Spec& spec) {
  if (spec.generates_images()) {
    return "image generation";
  }
  if (spec.embeds_images()) {
    // A CNN's convolutions run through cuDNN, not the GEMMs the efficiencies were fitted on.
    return spec.model.image->cnn ? "CNN (convolution) image embedding" : "image embedding";
  }
  if (spec.workload.is_embedding()) {
    return "embedding";
  }
  if (spec.workload.is_transcription()) {
    return "transcription";
  }
  if (spec.model.encoder_decoder) {
    // T5-family generation: an encoder pass and a decode with cross-attention, unlike the
    // decoder-only runs the efficiencies were fitted on (docs/model.md "Text-to-text workloads").
    return "text-to-text (encoder-decoder)";
  }
  // No measured run had a drafter or a prefix cache's hits (docs/model.md, "Speculative
  // decoding", "Prefix caching"): the bands are those of plain decoding.
  if (spec.workload.inference.speculative) {
    return "speculative decoding";
  }
  if (spec.workload.inference.prefix_cache_hit_rate > 0) {
    return "prefix-cached";
  }
  return nullptr;
}

Calibration Uncertainty::calibration(const std::string& family,
                                     const std::string& engine,
                                     bool training,
                                     const char* unmeasured) const {
  const auto errors = [](const Fitted& f) {
    std::string out;
    for (const auto& [name, e] : f.median_error) {
      out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : ", ", name, 100.0 * e);
    }
    return out.empty() ? std::string()
                       : fmt::format("; held-out median error {} ({} runs)", out, f.held_out_runs);
  };
  if (training) {
    if (const auto it = m_training.find(family);
        it != m_training.end() && it->second.fit_runs > 0) {
      return {true,
              fmt::format("{} training: fitted on {} measured runs{}",
                          family,
                          it->second.fit_runs,
                          errors(it->second))};
    }
    const Entry& all = m_metrics.at("step_time").at("all");
    return {false,
            all.unsized ? fmt::format("{} training: no measured runs; step-time band unsized ({} "
                                      "measured lines of other families)",
                                      family,
                                      all.lines)
                        : fmt::format("{} training: no measured runs; step-time band widened x{:g}",
                                      family,
                                      widening)};
  }
  if (const SiteBands* s = site(family, engine); s && unmeasured == nullptr) {
    return {true, s->text};
  }
  const std::string key = family + "/" + engine;
  if (unmeasured != nullptr) {
    const auto it = m_serving.find(key);
    const long long runs = it == m_serving.end() ? 0 : it->second.fit_runs;
    return {false,
            runs > 0 ? fmt::format("{}: no measured {} runs; its efficiencies are fitted on {} "
                                   "text generation runs",
                                   key,
                                   unmeasured,
                                   runs)
                     : fmt::format("{}: no measured {} runs; {}",
                                   key,
                                   unmeasured,
                                   uncalibrated_text(family, engine))};
  }
  if (const auto it = m_serving.find(key); it != m_serving.end() && it->second.fit_runs > 0) {
    return {true,
            fmt::format(
                "{}: fitted on {} measured runs{}", key, it->second.fit_runs, errors(it->second))};
  }
  // Other engines of the family may still have informed its efficiencies.
  long long family_runs = 0;
  for (const auto& [k, f] : m_serving) {
    if (k.rfind(family + "/", 0) == 0) {
      family_runs += f.fit_runs;
    }
  }
  if (family_runs > 0) {
    return {false,
            fmt::format("{}: no measured runs (the family's efficiencies rest on {} runs "
                        "of other engines); {}",
                        key,
                        family_runs,
                        uncalibrated_text(family, engine))};
  }
  return {false,
          fmt::format("{}: no measured runs: efficiencies are initial values, not fitted; {}",
                      key,
                      uncalibrated_text(family, engine))};
}

Uncertainty Uncertainty::load(const std::string& path) {
  // The bundled file, unedited: validated when it was compiled in (bundled.hpp).
  const detail::BundledFile bundled = detail::bundled_uncertainty_file();
  const auto text =
      read_input_file_unless(path, bundled.known(), k_max_json_file_bytes, "JSON input");
  if (!text) {
    return detail::deserialize_uncertainty(bundled.value);
  }
  return from_json(detail::parse_json_text(*text, path), path);
}

const Uncertainty::Entry& Uncertainty::entry(const std::string& metric,
                                             const std::string& family,
                                             const std::string& engine,
                                             Source& source) const {
  const auto& groups = m_metrics.at(metric);
  if (metric == "step_time") {
    // One band for all training; the family's own when it has measured training runs.
    const auto it = m_training.find(family);
    const Entry& all = groups.at("all");
    source = all.unsized                                         ? Source::unsized
             : it != m_training.end() && it->second.fit_runs > 0 ? Source::own
                                                                 : Source::overall;
    return all;
  }
  std::string key;
  key.reserve(family.size() + 1 + engine.size());
  key.append(family).append("/").append(engine);
  if (const auto it = groups.find(key); it != groups.end()) {
    source = Source::own;
    return it->second;
  }
  source = Source::overall;
  if (m_transfer.empty() || metric == "memory") {
    return groups.at("all");
  }
  // A family (engine) is known when one of its pairs has a band of its own.
  bool family_known = false;
  bool engine_known = false;
  for (const auto& [pair, e] : groups) {
    const auto slash = pair.find('/');
    family_known = family_known || pair.compare(0, slash, family) == 0;
    engine_known = engine_known || (slash != std::string::npos && pair.substr(slash + 1) == engine);
  }
  source = !family_known && engine_known   ? Source::family_transfer
           : family_known && !engine_known ? Source::engine_transfer
                                           : Source::both_transfer;
  const char* dimension = source == Source::family_transfer   ? "gpu_family"
                          : source == Source::engine_transfer ? "engine"
                                                              : "both";
  return m_transfer.at(dimension).at(metric);
}

double Uncertainty::widened(const std::string& metric, double ratio, Source source) const {
  // Memory bands are not split by family: every line informs every prediction, so the overall
  // band is not widened. Transfer bands are measured, not widened.
  if (source != Source::overall || metric == "memory") {
    return ratio;
  }
  return std::pow(ratio, widening);
}

namespace {

// The engine of a key engine_band_key() made for a version older than the calibrated runs
// ("vllm 0.7.3 (older than ...)"): "vllm"; empty for a plain engine name.
std::string versioned_base(const std::string& engine) {
  const auto space = engine.find(' ');
  return space == std::string::npos ? std::string() : engine.substr(0, space);
}

} // namespace

void Uncertainty::set_site(const std::string& family, const std::string& engine, SiteBands bands) {
  m_site[family + "/" + engine] = std::move(bands);
}

const Uncertainty::SiteBands* Uncertainty::site(const std::string& family,
                                                const std::string& engine) const {
  if (m_site.empty()) {
    return nullptr;
  }
  const std::string base = versioned_base(engine);
  const auto it = m_site.find(family + "/" + (base.empty() ? engine : base));
  return it == m_site.end() ? nullptr : &it->second;
}

const Uncertainty::SiteBands* Uncertainty::measured_site(const std::string& family,
                                                         const std::string& engine,
                                                         const Gpu& gpu,
                                                         const Parallelism& layout,
                                                         const Spec& spec,
                                                         long long concurrency) const {
  const SiteBands* s = site(family, engine);
  if (s == nullptr || spec.workload.type != WorkloadType::inference) {
    return nullptr;
  }
  const auto& w = spec.workload.inference;
  // The runs of this configuration, and the range of lengths and loads they span.
  long long lo_in = 0, hi_in = 0, lo_out = 0, hi_out = 0, lo_c = 0, hi_c = 0;
  bool any = false;
  for (const SiteRun& r : s->measured) {
    if (r.gpu != gpu.name || std::abs(r.model_params / spec.model.params_total - 1.0) > 0.005 ||
        r.weights != to_string(spec.precision.weights) ||
        r.kv_cache != to_string(spec.precision.kv_cache) || r.tp != layout.tp ||
        r.pp != layout.pp || r.ep != layout.ep || r.attention_dp != layout.attention_dp) {
      continue;
    }
    lo_in = any ? std::min(lo_in, r.input_tokens) : r.input_tokens;
    hi_in = any ? std::max(hi_in, r.input_tokens) : r.input_tokens;
    lo_out = any ? std::min(lo_out, r.output_tokens) : r.output_tokens;
    hi_out = any ? std::max(hi_out, r.output_tokens) : r.output_tokens;
    lo_c = any ? std::min(lo_c, r.concurrency) : r.concurrency;
    hi_c = any ? std::max(hi_c, r.concurrency) : r.concurrency;
    any = true;
  }
  // Lengths within 10% of the runs' range (their means are rounded, a spec's are round).
  const auto within = [](long long v, long long lo, long long hi) {
    return static_cast<double>(v) >= 0.9 * static_cast<double>(lo) &&
           static_cast<double>(v) <= 1.1 * static_cast<double>(hi);
  };
  const bool inside = any && within(w.input_tokens, lo_in, hi_in) &&
                      within(w.output_tokens, lo_out, hi_out) && concurrency >= lo_c &&
                      concurrency <= hi_c;
  return inside ? s : nullptr;
}

RatioBand Uncertainty::band(const std::string& metric,
                            const std::string& family,
                            const std::string& engine) const {
  if (const SiteBands* s = site(family, engine); s && (metric == "ttft" || metric == "tpot")) {
    return metric == "ttft" ? s->ttft : s->tpot;
  }
  if (const std::string base = versioned_base(engine);
      !base.empty() && metric != "memory" && metric != "step_time") {
    // An engine version older than its calibrated runs: what the version changes is what an
    // engine the data lacks would, so the band is the envelope of the engine's own band on this
    // family and the engine transfer band, each edge the wider (docs/accuracy.md, "Engine
    // versions").
    RatioBand own = band(metric, family, base);
    if (const auto t = m_transfer.find("engine"); t != m_transfer.end()) {
      if (const auto m = t->second.find(metric); m != t->second.end()) {
        own.low_ratio = std::min(own.low_ratio, m->second.low_ratio);
        own.high_ratio = std::max(own.high_ratio, m->second.high_ratio);
      }
    }
    own.calibrated = false;
    own.basis = fmt::format("{} on {}: the envelope of {}/{}'s band and the engine transfer band",
                            engine,
                            family,
                            family,
                            base);
    return own;
  }
  Source source = Source::overall;
  const Entry& e = entry(metric, family, engine, source);
  const double low = widened(metric, e.low_ratio, source);
  const double high = widened(metric, e.high_ratio, source);
  if (source == Source::unsized) {
    const auto it = m_training.find(family);
    RatioBand b{low,
                high,
                it != m_training.end() && it->second.fit_runs > 0,
                fmt::format("band unsized, {} measured lines", e.lines)};
    b.unsized = true;
    b.lines = e.lines;
    return b;
  }
  if (metric == "step_time") {
    return source == Source::own
               ? RatioBand{low,
                           high,
                           true,
                           fmt::format("{} training, {} held-out lines", family, e.lines)}
               : RatioBand{low,
                           high,
                           false,
                           fmt::format("no {} training runs: all {} held-out lines, widened x{:g}",
                                       family,
                                       e.lines,
                                       widening)};
  }
  if (source == Source::own) {
    return {low, high, true, fmt::format("{}/{}, {} held-out lines", family, engine, e.lines)};
  }
  if (metric == "memory") {
    return {low, high, true, fmt::format("{} held-out lines", e.lines)};
  }
  switch (source) {
  case Source::family_transfer:
    return {low,
            high,
            false,
            fmt::format("no {}/{} lines: GPU-family transfer band (leave-one-family-out, {} "
                        "lines)",
                        family,
                        engine,
                        e.lines)};
  case Source::engine_transfer:
    return {low,
            high,
            false,
            fmt::format("no {}/{} lines: engine transfer band (leave-one-engine-out, {} lines)",
                        family,
                        engine,
                        e.lines)};
  case Source::both_transfer:
    return {low,
            high,
            false,
            fmt::format("no {}/{} lines: envelope of the GPU-family and engine transfer bands",
                        family,
                        engine)};
  default:
    return {low,
            high,
            false,
            fmt::format("no {}/{} lines: all {} held-out lines, widened x{:g}",
                        family,
                        engine,
                        e.lines,
                        widening)};
  }
}

double Uncertainty::high_ratio(const std::string& metric,
                               const std::string& family,
                               const std::string& engine) const {
  if (!versioned_base(engine).empty() || site(family, engine) != nullptr) {
    return band(metric, family, engine).high_ratio;
  }
  Source source = Source::overall;
  const Entry& e = entry(metric, family, engine, source);
  return widened(metric, e.high_ratio, source);
}

namespace {

// The transfer band of `group` ("kv_overflow", "disaggregated", "attention_dp") for `metric`, or
// null.
template <class Transfer>
auto transfer_entry(const Transfer& transfer, const std::string& group, const std::string& metric)
    -> decltype(&transfer.begin()->second.begin()->second) {
  const auto t = transfer.find(group);
  if (t == transfer.end()) {
    return nullptr;
  }
  const auto e = t->second.find(metric);
  return e == t->second.end() ? nullptr : &e->second;
}

// `base` with each edge the wider of its own and `e`'s.
RatioBand enveloped(RatioBand base, double low_ratio, double high_ratio) {
  base.low_ratio = std::min(base.low_ratio, low_ratio);
  base.high_ratio = std::max(base.high_ratio, high_ratio);
  return base;
}

// A layout no measured line was fitted on (`group`: "disaggregated", "attention_dp"): `base`
// enveloped with the band of its measured runs, never calibrated, the basis naming `what` and
// `runs`; `base` when the file has no such group.
template <class Transfer>
RatioBand never_fitted(const Transfer& transfer,
                       const RatioBand& base,
                       const std::string& metric,
                       const char* group,
                       const char* what,
                       const char* runs) {
  const auto* e = transfer_entry(transfer, group, metric);
  if (e == nullptr) {
    return base;
  }
  RatioBand b = enveloped(base, e->low_ratio, e->high_ratio);
  b.calibrated = false;
  b.basis = fmt::format("{}; {}: enveloped with the band of {} measured {} runs, none fitted "
                        "(docs/accuracy.md)",
                        base.basis,
                        what,
                        e->lines,
                        runs);
  return b;
}

// The measured runs a never-fitted layout's band rests on (0 when the file has none).
template <class Transfer> long long group_lines(const Transfer& transfer, const char* group) {
  const auto* e = transfer_entry(transfer, group, "ttft");
  return e == nullptr ? 0 : e->lines;
}

} // namespace

RatioBand Uncertainty::overflowing(const RatioBand& base, const std::string& metric) const {
  const auto* e = transfer_entry(m_transfer, "kv_overflow", metric);
  if (e == nullptr) {
    return base;
  }
  RatioBand b = enveloped(base, e->low_ratio, e->high_ratio);
  b.basis = fmt::format("{}; the KV cache overflows (the engine queues and may preempt): "
                        "enveloped with the KV-overflow transfer band ({} lines)",
                        base.basis,
                        e->lines);
  return b;
}

RatioBand Uncertainty::disaggregated(const RatioBand& base, const std::string& metric) const {
  return never_fitted(
      m_transfer, base, metric, "disaggregated", "disaggregated prefill/decode", "disaggregated");
}

RatioBand Uncertainty::attention_data_parallel(const RatioBand& base,
                                               const std::string& metric) const {
  return never_fitted(
      m_transfer, base, metric, "attention_dp", "attention data-parallel", "attention-DP");
}

Calibration Uncertainty::disaggregated_calibration(const std::string& family,
                                                   const std::string& engine,
                                                   int attention_dp) const {
  if (attention_dp > 1) {
    return {false,
            fmt::format("{}/{} disaggregated prefill/decode with attention data-parallel pools: "
                        "efficiencies fitted on aggregated runs without it; bands widened to the "
                        "error of {} measured disaggregated runs and {} attention-DP runs, none "
                        "fitted (docs/accuracy.md, \"Disaggregated serving\", \"Attention data "
                        "parallelism\")",
                        family,
                        engine,
                        group_lines(m_transfer, "disaggregated"),
                        group_lines(m_transfer, "attention_dp"))};
  }
  return {false,
          fmt::format("{}/{} disaggregated prefill/decode: efficiencies fitted on aggregated "
                      "runs; bands widened to the error of {} measured disaggregated runs, none "
                      "fitted (docs/accuracy.md, \"Disaggregated serving\")",
                      family,
                      engine,
                      group_lines(m_transfer, "disaggregated"))};
}

Calibration Uncertainty::attention_dp_calibration(const std::string& family,
                                                  const std::string& engine) const {
  return {false,
          fmt::format("{}/{} attention data-parallel: efficiencies fitted on runs without it; "
                      "bands widened to the error of {} measured attention-DP runs, none fitted "
                      "(docs/accuracy.md, \"Attention data parallelism\")",
                      family,
                      engine,
                      group_lines(m_transfer, "attention_dp"))};
}

std::string Uncertainty::uncalibrated_text(const std::string& family,
                                           const std::string& engine) const {
  if (m_transfer.empty()) {
    return fmt::format("bands widened x{:g}", widening);
  }
  if (const std::string base = versioned_base(engine); !base.empty()) {
    return fmt::format(
        "bands: the envelope of {}/{}'s band and the engine transfer band", family, base);
  }
  Source source = Source::overall;
  static_cast<void>(entry("tpot", family, engine, source));
  return source == Source::family_transfer   ? "bands from the GPU-family transfer error"
         : source == Source::engine_transfer ? "bands from the engine transfer error"
         : source == Source::own             ? "bands of the pair's own held-out lines"
                                 : "bands from the GPU-family and engine transfer error";
}

InferenceBands inference_bands(const InferencePerformance& p,
                               const Uncertainty& u,
                               const std::string& family,
                               Engine engine,
                               int attention_dp) {
  return inference_bands(p, u, family, std::string(to_string(engine)), attention_dp);
}

InferenceBands inference_bands(const InferencePerformance& p,
                               const Uncertainty& u,
                               const std::string& family,
                               const std::string& eng,
                               int attention_dp) {
  RatioBand ttft = u.band("ttft", family, eng);
  RatioBand tpot = u.band("tpot", family, eng);
  if (p.kv_overflow()) {
    ttft = u.overflowing(ttft, "ttft");
    tpot = u.overflowing(tpot, "tpot");
  }
  if (attention_dp > 1) {
    ttft = u.attention_data_parallel(ttft, "ttft");
    tpot = u.attention_data_parallel(tpot, "tpot");
  }
  return inference_bands(p, ttft, tpot);
}

InferenceBands
inference_bands(const InferencePerformance& p, const RatioBand& ttft, const RatioBand& tpot) {
  InferenceBands b;
  b.tpot_ratio = tpot;
  // A transcription's `ttft` is a request's whole latency, decode steps for the most part: it
  // carries the TPOT band.
  b.ttft_ratio = p.audio_seconds_per_s > 0 ? tpot : ttft;
  b.ttft = scaled(p.ttft.si(), b.ttft_ratio);
  b.tpot = scaled(p.tpot.si(), b.tpot_ratio);
  // Rates follow the step that bounds them: decode, or for an embedding workload the forward
  // pass, whose error the TTFT band measures.
  const RatioBand& rate_ratio = p.prefill_only ? b.ttft_ratio : b.tpot_ratio;
  b.output_tokens_per_s = inverted(p.output_tokens_per_s, rate_ratio);
  b.requests_per_s = inverted(p.requests_per_s, rate_ratio);
  return b;
}

TrainingBands
training_bands(const TrainingPerformance& p, const Uncertainty& u, const std::string& family) {
  TrainingBands b;
  b.step_ratio = u.band("step_time", family, "megatron");
  b.step = scaled(p.step.si(), b.step_ratio);
  if (p.time_to_train) {
    b.time_to_train = scaled(p.time_to_train->si(), b.step_ratio);
  }
  b.tokens_per_s = inverted(p.tokens_per_s, b.step_ratio);
  return b;
}

Band memory_band(Bytes total, const Uncertainty& u) {
  return memory_band(total, u.band("memory", "", ""));
}

Band memory_band(Bytes total, const RatioBand& memory) {
  return scaled(total.si(), memory);
}

} // namespace rightsize
