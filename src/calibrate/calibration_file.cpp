// The calibration file: its runs written and read back, the factors written (calibration_file.hpp;
// --calibration reads the factors in src/estimate/site_calibration.cpp).

#include <rightsize/calibrate/calibration_file.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <filesystem>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

namespace {

nlohmann::json run_json(const RunRecord& r) {
  nlohmann::json measured = nlohmann::json::object();
  if (r.ttft) {
    measured["ttft_s"] = *r.ttft;
  }
  if (r.tpot) {
    measured["tpot_s"] = *r.tpot;
  }
  if (r.output_tokens_per_s) {
    measured["output_tokens_per_s"] = *r.output_tokens_per_s;
  }
  nlohmann::json j = {
      {"result", detail::valid_utf8(r.result)},
      {"result_digest", r.result_digest},
      {"client", r.client},
      {"spec", {{"file", detail::valid_utf8(r.spec_file)}, {"digest", r.spec_digest}}},
      {"model", detail::valid_utf8(r.model)},
      {"model_params", r.model_params},
      {"formats", {{"weights", r.weights_format}, {"kv_cache", r.kv_cache_format}}},
      {"engine", r.engine},
      {"model_kind", r.model_kind},
      {"gpu", r.gpu},
      {"family", r.family},
      {"layout",
       {{"tp", r.layout.tp},
        {"pp", r.layout.pp},
        {"ep", r.layout.ep},
        {"attention_dp", r.layout.attention_dp}}},
      {"load",
       {{"input_tokens", r.load.input_tokens},
        {"output_tokens", r.load.output_tokens},
        {"concurrency", r.load.concurrency},
        {"source", k_load_source_names.name(r.load.source)}}},
      {"measured", measured}};
  // The formats given on the command line; absent: the spec's own.
  if (!r.weights.empty()) {
    j["weights"] = r.weights;
  }
  if (!r.kv_cache.empty()) {
    j["kv_cache"] = r.kv_cache;
  }
  return j;
}

nlohmann::json band_json(const RatioBand& b) {
  return {{"low_ratio", b.low_ratio}, {"high_ratio", b.high_ratio}, {"basis", b.basis}};
}

nlohmann::json fit_json(const SiteFit& f) {
  nlohmann::json fitted = nlohmann::json::array();
  for (const SiteFactor s : f.fitted) {
    fitted.push_back(k_site_factor_names.name(s));
  }
  nlohmann::json held = nlohmann::json::array();
  for (const auto& h : f.held) {
    held.push_back({{"factor", k_site_factor_names.name(h.factor)}, {"why", h.why}});
  }
  nlohmann::json loo = nlohmann::json::array();
  for (const auto& e : f.leave_one_out) {
    loo.push_back(
        {{"metric", e.metric}, {"lines", e.lines}, {"before", e.before}, {"after", e.after}});
  }
  return {{"family", f.family},
          {"engine", f.engine},
          {"model_kind", f.model_kind},
          {"runs", f.runs.size()},
          {"efficiency", site_efficiency_json(f.family_efficiency, f.overhead)},
          {"fitted", fitted},
          {"not_fitted", held},
          {"leave_one_out", loo},
          {"bands", {{"ttft", band_json(f.ttft)}, {"tpot", band_json(f.tpot)}}}};
}

std::optional<double> measured_value(const FieldReader& m, std::string_view key) {
  return m.optional_number(key, Range::positive(1e12));
}

} // namespace

bool same_configuration(const RunRecord& a, const RunRecord& b) {
  const auto layout = [](const Parallelism& p) {
    return std::tuple(p.tp, p.pp, p.ep, p.attention_dp);
  };
  return a.spec_digest == b.spec_digest && a.gpu == b.gpu && layout(a.layout) == layout(b.layout) &&
         a.weights == b.weights && a.kv_cache == b.kv_cache &&
         a.load.input_tokens == b.load.input_tokens &&
         a.load.output_tokens == b.load.output_tokens && a.load.concurrency == b.load.concurrency &&
         a.load.source == b.load.source;
}

std::string spec_file_digest(const std::string& path) {
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(path, ec);
  const std::string file = folder ? (std::filesystem::path(path) / "config.json").string() : path;
  return detail::fnv1a_hex(read_input_file(file, k_max_json_file_bytes, "spec"));
}

nlohmann::json calibration_document(const std::vector<RunRecord>& runs,
                                    const std::vector<SiteFit>& fits) {
  nlohmann::json r = nlohmann::json::array();
  for (const auto& run : runs) {
    r.push_back(run_json(run));
  }
  nlohmann::json f = nlohmann::json::array();
  for (const auto& fit : fits) {
    f.push_back(fit_json(fit));
  }
  nlohmann::json doc = {
      {"rightsize_calibration", k_calibration_schema},
      {"description",
       "A site's calibration, written by `rightsize calibrate` (docs/calibrate.md): its benchmark "
       "runs and the efficiency factors fitted on them per GPU family x engine x model kind. "
       "Read with --calibration. Do not edit: 'digest' checks the content; run calibrate "
       "again instead."},
      {"runs", r},
      {"factors", f}};
  doc["digest"] = calibration_content_digest(doc);
  return doc;
}

std::vector<RunRecord> read_run_records(const nlohmann::json& document, const std::string& file) {
  const FieldReader root(document, file);
  std::vector<RunRecord> out;
  for (const auto& r : root.array("runs")) {
    r.reject_unknown({"result",
                      "result_digest",
                      "client",
                      "spec",
                      "model",
                      "model_params",
                      "formats",
                      "engine",
                      "model_kind",
                      "gpu",
                      "family",
                      "layout",
                      "weights",
                      "kv_cache",
                      "load",
                      "measured"});
    RunRecord rec;
    rec.result = r.string("result");
    rec.result_digest = r.string("result_digest");
    rec.client = r.string("client");
    (void)r.choice("client", k_bench_client_names);
    const FieldReader spec = r.object("spec");
    spec.reject_unknown({"file", "digest"});
    rec.spec_file = spec.string("file");
    rec.spec_digest = spec.string("digest");
    rec.model = r.string("model");
    rec.model_params = r.number("model_params", Range::positive(1e15));
    const FieldReader formats = r.object("formats");
    formats.reject_unknown({"weights", "kv_cache"});
    rec.weights_format = formats.string("weights");
    rec.kv_cache_format = formats.string("kv_cache");
    rec.engine = r.string("engine");
    rec.model_kind = r.string("model_kind");
    rec.gpu = r.string("gpu");
    rec.family = r.string("family");
    const FieldReader layout = r.object("layout");
    layout.reject_unknown({"tp", "pp", "ep", "attention_dp"});
    rec.layout.tp = static_cast<int>(layout.integer("tp", Range::between(1, 4096)));
    rec.layout.pp = static_cast<int>(layout.integer("pp", Range::between(1, 4096)));
    rec.layout.ep = static_cast<int>(layout.integer("ep", Range::between(1, 4096)));
    rec.layout.attention_dp =
        static_cast<int>(layout.integer("attention_dp", Range::between(1, 4096)));
    rec.weights = r.optional_string("weights").value_or("");
    rec.kv_cache = r.optional_string("kv_cache").value_or("");
    const FieldReader load = r.object("load");
    load.reject_unknown({"input_tokens", "output_tokens", "concurrency", "source"});
    rec.load.input_tokens = load.integer("input_tokens", Range::between(1, 1e9));
    rec.load.output_tokens = load.integer("output_tokens", Range::between(1, 1e9));
    rec.load.concurrency = load.integer("concurrency", Range::between(1, 1e9));
    rec.load.source = load.choice("source", k_load_source_names);
    const FieldReader measured = r.object("measured");
    measured.reject_unknown({"ttft_s", "tpot_s", "output_tokens_per_s"});
    rec.ttft = measured_value(measured, "ttft_s");
    rec.tpot = measured_value(measured, "tpot_s");
    rec.output_tokens_per_s = measured_value(measured, "output_tokens_per_s");
    if (!rec.ttft && !rec.tpot && !rec.output_tokens_per_s) {
      measured.fail_plain("needs at least one of ttft_s, tpot_s, output_tokens_per_s");
    }
    out.push_back(std::move(rec));
  }
  return out;
}

CalibrationReport calibration_report(const std::vector<CalibrationRun>& runs,
                                     std::vector<RunRecord> records,
                                     const Efficiency& efficiency,
                                     const Uncertainty& uncertainty,
                                     const Constants& constants) {
  CalibrationReport report;
  report.fits = fit_sites(runs, efficiency, uncertainty, constants);
  SiteCalibration calibration;
  calibration.runs = static_cast<long long>(runs.size());
  for (const auto& f : report.fits) {
    calibration.factors.push_back(to_site_factors(f));
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    Efficiency calibrated = efficiency;
    Uncertainty bands = uncertainty;
    apply_site_calibration(calibration, runs[i].spec, calibrated, bands);
    report.runs.push_back({std::move(records[i]),
                           predict_run(runs[i], efficiency, uncertainty, constants),
                           predict_run(runs[i], calibrated, bands, constants)});
  }
  return report;
}

} // namespace rightsize
