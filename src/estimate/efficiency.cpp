// The fitted efficiency factors (data/efficiency.json; performance.hpp): read, checked, written
// back for rightsize_fit. Each GPU generation's family is read in generations.cpp.

#include "bundled.hpp"

#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/version.hpp>
#include <rightsize/estimate/performance.hpp>

#include <fmt/format.h>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

Efficiency Efficiency::from_json(const nlohmann::json& j, const std::string& file) {
  const FieldReader root(j, file);
  root.reject_unknown({"schema_version",
                       "description",
                       "families",
                       "generations",
                       "engines",
                       "interconnect",
                       "training",
                       "fitted_on"});
  if (root.integer("schema_version", Range::positive(1e6)) != 1) {
    root.member("schema_version").fail("unsupported schema version (this rightsize reads 1)");
  }
  Efficiency e;
  const auto families = root.object("families");
  for (const auto& [name, value] : families.json().items()) {
    const auto f = families.object(name);
    f.reject_unknown({"compute", "memory", "training_compute"});
    e.families[name] = FamilyEfficiency{f.number("compute", Range{0.0, 1.0, true}),
                                        f.number("memory", Range{0.0, 1.0, true}),
                                        f.number("training_compute", Range{0.0, 1.0, true})};
  }
  e.read_generations(root.object("generations"));
  const auto engines = root.object("engines");
  for (const auto& [name, value] : engines.json().items()) {
    const auto f = engines.object(name);
    f.reject_unknown({"layer_overhead_us",
                      "step_overhead_ms",
                      "ttft_overhead_ms",
                      "ttft_wave_factor",
                      "prefill_interference",
                      "calibrated_versions"});
    EngineOverhead o;
    o.per_layer = microseconds(f.number("layer_overhead_us", Range::non_negative(1e6)));
    o.per_step = milliseconds(f.number("step_overhead_ms", Range::non_negative(1e6)));
    o.per_request = milliseconds(f.number("ttft_overhead_ms", Range::non_negative(1e6)));
    o.wave_factor = f.number("ttft_wave_factor", Range::between(0.0, 2.0));
    o.prefill_interference = f.number("prefill_interference", Range::between(0.0, 1.0));
    if (const auto versions = f.optional_object("calibrated_versions")) {
      versions->reject_unknown({"oldest", "newest", "source"});
      o.oldest_version = versions->string("oldest");
      o.newest_version = versions->string("newest");
      o.versions_source = versions->string("source");
      for (const char* key : {"oldest", "newest"}) {
        if (!parse_version(versions->string(key))) {
          versions->member(key).fail("must be a version such as \"0.11.2\"");
        }
      }
    }
    e.engines[name] = o;
  }
  for (const NameRow<Engine>& needed : k_engine_names) {
    if (e.engines.count(needed.name) == 0) {
      engines.fail_plain("needs an entry for engine " + std::string(needed.name));
    }
  }
  const auto ic = root.object("interconnect");
  ic.reject_unknown({"allreduce_latency_us",
                     "pcie_allreduce_latency_us",
                     "pcie_allreduce_efficiency",
                     "network_latency_us",
                     "dp_overlap"});
  if (root.has("training")) {
    const auto t = root.object("training");
    t.reject_unknown({"size_exponent", "reference_hidden", "fp8_speedup"});
    e.training_size_exponent = t.number("size_exponent", Range::between(0.0, 1.0));
    e.training_reference_hidden = t.number("reference_hidden", Range::positive(1e6));
    e.fp8_training_speedup =
        t.optional_number("fp8_speedup", Range::between(1.0, 2.0)).value_or(e.fp8_training_speedup);
  }
  e.allreduce_latency = microseconds(ic.number("allreduce_latency_us", Range::non_negative(1e6)));
  e.pcie_allreduce_latency =
      microseconds(ic.number("pcie_allreduce_latency_us", Range::non_negative(1e6)));
  e.pcie_allreduce_efficiency = ic.number("pcie_allreduce_efficiency", Range::between(0.01, 1.0));
  e.network_latency = microseconds(ic.number("network_latency_us", Range::non_negative(1e6)));
  e.dp_overlap = ic.number("dp_overlap", Range::between(0.0, 1.0));
  e.fitted_on = root.has("fitted_on") ? root.member("fitted_on").json() : nlohmann::json::object();
  return e;
}

Efficiency Efficiency::load(const std::string& path) {
  // The bundled file, unedited: validated when it was compiled in (bundled.hpp).
  const detail::BundledFile bundled = detail::bundled_efficiency_file();
  const auto text =
      read_input_file_unless(path, bundled.known(), k_max_json_file_bytes, "JSON input");
  if (!text) {
    return detail::deserialize_efficiency(bundled.value);
  }
  return from_json(detail::parse_json_text(*text, path), path);
}

nlohmann::json Efficiency::to_json() const {
  nlohmann::json fam = nlohmann::json::object();
  for (const auto& [name, f] : families) {
    fam[name] = {
        {"compute", f.compute}, {"memory", f.memory}, {"training_compute", f.training_compute}};
  }
  nlohmann::json gen = nlohmann::json::object();
  for (const auto& [name, g] : m_generations) {
    gen[name] = {{"family", g.family}, {"source", g.source}};
  }
  nlohmann::json eng = nlohmann::json::object();
  for (const auto& [name, o] : engines) {
    eng[name] = {{"layer_overhead_us", o.per_layer.si() * 1e6},
                 {"step_overhead_ms", to_ms(o.per_step)},
                 {"ttft_overhead_ms", to_ms(o.per_request)},
                 {"ttft_wave_factor", o.wave_factor},
                 {"prefill_interference", o.prefill_interference}};
    if (!o.oldest_version.empty()) {
      eng[name]["calibrated_versions"] = {{"oldest", o.oldest_version},
                                          {"newest", o.newest_version},
                                          {"source", o.versions_source}};
    }
  }
  return {{"schema_version", 1},
          {"description",
           "Efficiency factors of the performance model (docs/model.md, 'Performance'), per GPU "
           "family (with the GPU generations each family stands for, 'generations') and per "
           "serving engine, written by build/bench/rightsize_fit "
           "(bench/fit_efficiency.cpp) from ../shared/validation; 'fitted_on' says which rows."},
          {"families", fam},
          {"generations", gen},
          {"engines", eng},
          {"interconnect",
           {{"allreduce_latency_us", allreduce_latency.si() * 1e6},
            {"pcie_allreduce_latency_us", pcie_allreduce_latency.si() * 1e6},
            {"pcie_allreduce_efficiency", pcie_allreduce_efficiency},
            {"network_latency_us", network_latency.si() * 1e6},
            {"dp_overlap", dp_overlap}}},
          {"training",
           {{"size_exponent", training_size_exponent},
            {"reference_hidden", training_reference_hidden},
            {"fp8_speedup", fp8_training_speedup}}},
          {"fitted_on", fitted_on}};
}

const EngineOverhead& Efficiency::engine(Engine e) const {
  const auto it = engines.find(to_string(e));
  if (it == engines.end()) {
    throw InternalError("data/efficiency.json has no engine " + std::string(to_string(e)));
  }
  return it->second;
}

} // namespace rightsize
