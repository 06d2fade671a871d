// A site's calibration file, read for --calibration and installed for one spec
// (site_calibration.hpp); `rightsize calibrate` writes it (src/calibrate/calibration_file.cpp).

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/estimate/site_calibration.hpp>

#include <fmt/format.h>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

nlohmann::json site_efficiency_json(const FamilyEfficiency& family, const EngineOverhead& engine) {
  return {{"compute", family.compute},
          {"memory", family.memory},
          {"layer_overhead_us", engine.per_layer.si() * 1e6},
          {"step_overhead_ms", to_ms(engine.per_step)},
          {"ttft_overhead_ms", to_ms(engine.per_request)},
          {"ttft_wave_factor", engine.wave_factor},
          {"prefill_interference", engine.prefill_interference}};
}

void read_site_efficiency(const nlohmann::json& j,
                          const std::string& file,
                          const std::string& pointer,
                          FamilyEfficiency& family,
                          EngineOverhead& engine) {
  const FieldReader f(j, file, pointer);
  f.reject_unknown({"compute",
                    "memory",
                    "layer_overhead_us",
                    "step_overhead_ms",
                    "ttft_overhead_ms",
                    "ttft_wave_factor",
                    "prefill_interference"});
  // The bounds the fit keeps them in (src/calibrate/fit.cpp), as data/efficiency.json's.
  family.compute = f.number("compute", Range{0.0, 1.0, true});
  family.memory = f.number("memory", Range{0.0, 1.0, true});
  engine.per_layer = microseconds(f.number("layer_overhead_us", Range::non_negative(1e4)));
  engine.per_step = milliseconds(f.number("step_overhead_ms", Range::non_negative(1e4)));
  engine.per_request = milliseconds(f.number("ttft_overhead_ms", Range::non_negative(1e5)));
  engine.wave_factor = f.number("ttft_wave_factor", Range::between(0.0, 2.0));
  engine.prefill_interference = f.number("prefill_interference", Range::between(0.0, 1.0));
}

std::string calibration_content_digest(const nlohmann::json& document) {
  nlohmann::json content = document;
  content.erase("digest");
  return detail::fnv1a_hex(detail::dump_json(content));
}

const Efficiency::SiteOverride* Efficiency::site_for(const Gpu& gpu, const Spec& spec) const {
  if (site.empty()) {
    return nullptr;
  }
  const auto it = site.find(family_key(gpu));
  return it != site.end() && it->second.engine == engine_name(spec) ? &it->second : nullptr;
}

const FamilyEfficiency& Efficiency::family_for(const Gpu& gpu, const Spec& spec) const {
  const SiteOverride* s = site_for(gpu, spec);
  return s != nullptr ? s->family : family(gpu);
}

const EngineOverhead& Efficiency::engine_for(const Gpu& gpu, const Spec& spec) const {
  const SiteOverride* s = site_for(gpu, spec);
  return s != nullptr ? s->overhead : engine(spec.workload.inference.engine);
}

namespace {

RatioBand read_band(const FieldReader& bands, std::string_view metric, long long runs) {
  const FieldReader b = bands.object(metric);
  b.reject_unknown({"low_ratio", "high_ratio", "basis"});
  RatioBand r;
  r.low_ratio = b.number("low_ratio", Range{0.0, 1.0, true});
  r.high_ratio = b.number("high_ratio", Range::between(1.0, 1e3));
  r.basis = b.string("basis");
  r.calibrated = true;
  r.lines = runs;
  return r;
}

Uncertainty::SiteRun read_site_run(const FieldReader& r) {
  Uncertainty::SiteRun s;
  s.gpu = r.string("gpu");
  s.model_params = r.number("model_params", Range::positive(1e15));
  const FieldReader formats = r.object("formats");
  s.weights = formats.string("weights");
  s.kv_cache = formats.string("kv_cache");
  const FieldReader layout = r.object("layout");
  const auto part = [&layout](std::string_view key) {
    return static_cast<int>(layout.integer(key, Range::between(1, 4096)));
  };
  s.tp = part("tp");
  s.pp = part("pp");
  s.ep = part("ep");
  s.attention_dp = part("attention_dp");
  const FieldReader load = r.object("load");
  s.input_tokens = load.integer("input_tokens", Range::between(1, 1e9));
  s.output_tokens = load.integer("output_tokens", Range::between(1, 1e9));
  s.concurrency = load.integer("concurrency", Range::between(1, 1e9));
  return s;
}

SiteFactors read_factors(const FieldReader& f) {
  f.reject_unknown({"family",
                    "engine",
                    "model_kind",
                    "runs",
                    "efficiency",
                    "fitted",
                    "not_fitted",
                    "leave_one_out",
                    "bands"});
  SiteFactors s;
  s.family = f.string("family");
  s.engine = f.string("engine");
  s.model_kind =
      f.choice("model_kind",
               std::vector<std::pair<std::string, std::string>>{
                   {"dense", "dense"}, {"moe", "moe"}, {"mla", "mla"}, {"hybrid", "hybrid"}});
  s.runs = f.integer("runs", Range::between(1, 1e6));
  read_site_efficiency(f.member("efficiency").json(),
                       f.file(),
                       f.pointer() + "/efficiency",
                       s.family_efficiency,
                       s.overhead);
  for (const auto& e : f.array("leave_one_out")) {
    e.reject_unknown({"metric", "lines", "before", "after"});
    s.leave_one_out.push_back({e.choice("metric",
                                        std::vector<std::pair<std::string, std::string>>{
                                            {"ttft", "ttft"},
                                            {"tpot", "tpot"},
                                            {"output_tokens_per_s", "output_tokens_per_s"}}),
                               e.integer("lines", Range::between(0, 1e6)),
                               e.number("before", Range::non_negative(1e6)),
                               e.number("after", Range::non_negative(1e6))});
  }
  const FieldReader bands = f.object("bands");
  bands.reject_unknown({"ttft", "tpot"});
  s.ttft = read_band(bands, "ttft", s.runs);
  s.tpot = read_band(bands, "tpot", s.runs);
  return s;
}

} // namespace

SiteCalibration site_calibration_from_json(const nlohmann::json& document,
                                           const std::string& file,
                                           std::string digest) {
  const FieldReader root(document, file);
  if (!document.is_object() || !root.has("rightsize_calibration")) {
    throw InputError(file,
                     "is not a rightsize calibration file (no \"rightsize_calibration\"; "
                     "`rightsize calibrate ... -o FILE` writes one)");
  }
  root.reject_unknown({"rightsize_calibration", "description", "digest", "runs", "factors"});
  if (root.integer("rightsize_calibration", Range::positive(1e6)) != k_calibration_schema) {
    root.member("rightsize_calibration")
        .fail(fmt::format("unsupported calibration format (this rightsize reads {})",
                          k_calibration_schema));
  }
  if (root.string("digest") != calibration_content_digest(document)) {
    root.member("digest").fail_plain(
        "does not match the file's content: it was edited after rightsize calibrate wrote it; "
        "run calibrate again on the result files instead of editing the factors");
  }
  SiteCalibration c;
  c.file = file;
  c.digest = std::move(digest);
  const auto runs = root.array("runs");
  c.runs = static_cast<long long>(runs.size());
  for (const auto& f : root.array("factors")) {
    c.factors.push_back(read_factors(f));
  }
  // Each run's configuration, in its group (rightsize calibrate checks the rest of each run).
  for (const auto& r : runs) {
    const std::string group =
        r.string("family") + "/" + r.string("engine") + "/" + r.string("model_kind");
    for (auto& f : c.factors) {
      if (f.family + "/" + f.engine + "/" + f.model_kind == group) {
        f.measured.push_back(read_site_run(r));
      }
    }
  }
  return c;
}

SiteCalibration load_site_calibration(const std::string& path) {
  std::string text;
  const nlohmann::json document = detail::load_json_file(path, text);
  return site_calibration_from_json(document, path, detail::fnv1a_hex(text));
}

const SiteFactors*
find_site_factors(const SiteCalibration& calibration, const Spec& spec, std::string_view family) {
  const std::string engine = engine_name(spec);
  const std::string_view kind = spec.model.kind();
  for (const auto& f : calibration.factors) {
    if (f.family == family && f.engine == engine && f.model_kind == kind) {
      return &f;
    }
  }
  return nullptr;
}

std::string site_calibration_text(const SiteCalibration& calibration, const SiteFactors& f) {
  std::string errors;
  for (const auto& e : f.leave_one_out) {
    if (e.lines > 0) {
      errors += fmt::format("{}{} {:.0f}% (bundled {:.0f}%)",
                            errors.empty() ? "" : ", ",
                            e.metric,
                            100.0 * e.after,
                            100.0 * e.before);
    }
  }
  return fmt::format("{}/{}/{}: site calibration {} ({} of its {} runs){}",
                     f.family,
                     f.engine,
                     f.model_kind,
                     detail::valid_utf8(calibration.file),
                     f.runs,
                     calibration.runs,
                     errors.empty() ? std::string("; too few runs for a leave-one-run-out error")
                                    : "; leave-one-run-out median error " + errors);
}

int apply_site_calibration(const SiteCalibration& calibration,
                           const Spec& spec,
                           Efficiency& efficiency,
                           Uncertainty& uncertainty) {
  if (spec.workload.type != WorkloadType::inference || unmeasured_workload(spec) != nullptr) {
    return 0; // calibrated on text generation runs only
  }
  const std::string engine = engine_name(spec);
  int applied = 0;
  for (const auto& f : calibration.factors) {
    if (f.engine != engine || f.model_kind != spec.model.kind() ||
        efficiency.families.count(f.family) == 0) {
      continue;
    }
    efficiency.site[f.family] = {engine, f.family_efficiency, f.overhead};
    // Versions and their source stay the bundled engine's: the site's runs name no version.
    auto& overhead = efficiency.site[f.family].overhead;
    const auto& versions = efficiency.engine(spec.workload.inference.engine);
    overhead.oldest_version = versions.oldest_version;
    overhead.newest_version = versions.newest_version;
    overhead.versions_source = versions.versions_source;
    const auto inside = [](RatioBand b) {
      b.basis = "inside the configurations the site measured; " + b.basis;
      return b;
    };
    // Outside the configurations the site measured, never narrower than the bundled band.
    const auto enveloped = [&](const RatioBand& site, const char* metric) {
      const RatioBand bundled = uncertainty.band(metric, f.family, engine);
      RatioBand b = site;
      b.low_ratio = std::min(site.low_ratio, bundled.low_ratio);
      b.high_ratio = std::max(site.high_ratio, bundled.high_ratio);
      b.basis = "outside the configurations the site measured: the envelope of its band and the "
                "bundled one (" +
                bundled.basis + ")";
      return b;
    };
    uncertainty.set_site(f.family,
                         engine,
                         {enveloped(f.ttft, "ttft"),
                          enveloped(f.tpot, "tpot"),
                          inside(f.ttft),
                          inside(f.tpot),
                          f.measured,
                          site_calibration_text(calibration, f)});
    ++applied;
  }
  return applied;
}

} // namespace rightsize
