// Published measurements: the index (JSON) and the results table (CSV), read and validated
// (include/rightsize/catalog/published.hpp; the format: docs/published.md).

#include "bundled.hpp"

#include <rightsize/catalog/engines.hpp>
#include <rightsize/catalog/published.hpp>
#include <rightsize/core/csv_reader.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>

namespace rightsize {

namespace {

using detail::CsvRecordReader;
using detail::FieldReader;
using detail::Range;

constexpr long long k_max_dimension = 10000000;
constexpr long long k_max_tokens = 10000000;
constexpr int k_max_gpus = 100000;

// Keys and ids: what a person types after --id and what a CSV cell holds without quotes.
bool is_key(const std::string& s) {
  return !s.empty() && s.size() <= 120 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
  });
}

void check_key(const FieldReader& r, const std::string& key) {
  if (!is_key(key)) {
    r.fail_plain(fmt::format("key \"{}\" must be 1-120 characters of a-z, 0-9, '-', '.', '_'",
                             key.substr(0, 60)));
  }
}

PublishedSource read_source(const FieldReader& r, const std::string& key) {
  check_key(r, key);
  r.reject_unknown(
      {"title", "url", "repository", "path", "commit", "date", "engine_version", "method"});
  PublishedSource s;
  s.key = key;
  s.title = r.string("title");
  s.url = r.string("url");
  s.repository = r.optional_string("repository").value_or("");
  s.path = r.optional_string("path").value_or("");
  s.commit = r.optional_string("commit").value_or("");
  s.date = r.string("date");
  s.engine_version = r.optional_string("engine_version").value_or("");
  s.method = r.string("method");
  return s;
}

PublishedModel read_model(const FieldReader& r, const std::string& key, const std::string& index) {
  check_key(r, key);
  r.reject_unknown({"name", "same_architecture", "results", "architecture"});
  PublishedModel m;
  m.key = key;
  m.name = r.string("name");
  const std::string results = r.string("results");
  const std::filesystem::path relative(results);
  if (results.empty() || relative.is_absolute() ||
      std::any_of(
          relative.begin(), relative.end(), [](const auto& part) { return part == ".."; })) {
    r.member("results").fail("must name a file beside the index or below it");
  }
  m.results_file = (std::filesystem::path(index).parent_path() / relative).string();
  if (r.has("same_architecture")) {
    m.same_architecture = r.string_array("same_architecture");
  }
  const FieldReader a = r.object("architecture");
  a.reject_unknown({"layers",
                    "hidden_size",
                    "heads",
                    "kv_heads",
                    "intermediate_size",
                    "vocab_size",
                    "experts",
                    "experts_active",
                    "moe_intermediate_size",
                    "parameters"});
  const Range dim{1, k_max_dimension};
  m.layers = a.integer("layers", dim);
  m.hidden = a.integer("hidden_size", dim);
  m.heads = a.integer("heads", dim);
  m.kv_heads = a.integer("kv_heads", dim);
  m.intermediate = a.integer("intermediate_size", Range{0, k_max_dimension});
  m.vocab = a.integer("vocab_size", dim);
  m.experts = a.optional_integer("experts", Range{0, k_max_dimension}).value_or(0);
  m.experts_active = a.optional_integer("experts_active", Range{0, k_max_dimension}).value_or(0);
  m.moe_intermediate =
      a.optional_integer("moe_intermediate_size", Range{0, k_max_dimension}).value_or(0);
  if ((m.experts == 0) != (m.experts_active == 0) || m.experts_active > m.experts) {
    a.fail_plain("experts_active must be between 1 and experts for a mixture of experts, and "
                 "both absent (or 0) for a dense model");
  }
  m.parameters = a.number("parameters", Range::positive(1e15));
  return m;
}

const std::vector<std::pair<std::string, PublishedScenario>>& scenarios() {
  static const std::vector<std::pair<std::string, PublishedScenario>> names{
      {"offline", PublishedScenario::offline},
      {"server", PublishedScenario::server},
      {"interactive", PublishedScenario::interactive},
      {"static-batch", PublishedScenario::static_batch}};
  return names;
}

std::string read_format(const CsvRecordReader& r, std::string_view column) {
  if (!r.has(column)) {
    return "";
  }
  static const std::vector<std::pair<std::string, std::string>> options = [] {
    std::vector<std::pair<std::string, std::string>> o;
    for (const auto& name : engine_weight_formats()) {
      o.emplace_back(name, name);
    }
    return o;
  }();
  return r.choice(column, options);
}

// One record of the results table, checked against the index.
PublishedResult read_result(const CsvRecordReader& r, const PublishedData& data) {
  PublishedResult x;
  x.id = r.string("id");
  if (!is_key(x.id)) {
    r.fail("id", "must be 1-120 characters of a-z, 0-9, '-', '.', '_'");
  }
  x.source = r.string("source");
  if (data.sources.count(x.source) == 0) {
    std::vector<std::string> keys;
    for (const auto& [k, s] : data.sources) {
      keys.push_back(k);
    }
    r.fail("source",
           fmt::format("names no source of {}{}", data.index_file, did_you_mean(x.source, keys)));
  }
  x.location = r.string("location");
  x.model = r.string("model");
  const auto model = std::find_if(
      data.models.begin(), data.models.end(), [&](const auto& m) { return m.key == x.model; });
  if (model == data.models.end()) {
    std::vector<std::string> keys;
    for (const auto& m : data.models) {
      keys.push_back(m.key);
    }
    r.fail("model",
           fmt::format("names no model of {}{}", data.index_file, did_you_mean(x.model, keys)));
  }
  x.model_name = r.string("model_name");
  x.system = r.string("system");
  x.gpu = r.string("gpu");
  x.gpus = static_cast<int>(r.integer("gpus", Range{1, k_max_gpus}));
  const auto part = [&](std::string_view column) -> std::optional<int> {
    const auto v = r.optional_integer(column, Range{1, k_max_gpus});
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  };
  x.tp = part("tp");
  x.pp = part("pp");
  x.ep = part("ep");
  if (x.gpus % (x.tp.value_or(1) * x.pp.value_or(1)) != 0) {
    r.fail("gpus",
           fmt::format("must be a multiple of tp x pp = {}", x.tp.value_or(1) * x.pp.value_or(1)));
  }
  if (x.ep && (!x.tp || *x.tp % *x.ep != 0)) {
    r.fail("ep", "must divide tp (a serving replica's experts stay inside its TP group)");
  }
  x.engine = r.choice<std::string>("engine",
                                   {{"tensorrt-llm", "tensorrt-llm"},
                                    {"vllm", "vllm"},
                                    {"sglang", "sglang"},
                                    {"transformers", "transformers"},
                                    {"other", "other"}});
  x.engine_version = r.optional_string("engine_version").value_or("");
  x.weights = read_format(r, "weights");
  x.kv_cache = read_format(r, "kv_cache");
  x.scenario = r.choice("scenario", scenarios());
  x.mean_lengths = r.choice<bool>("lengths", {{"fixed", false}, {"mean", true}});
  // A benchmark dataset's mean input length is not always published (MLPerf's): such a run is
  // listed, not predicted.
  x.input_tokens = x.mean_lengths
                       ? r.optional_integer("input_tokens", Range{1, k_max_tokens}).value_or(0)
                       : r.integer("input_tokens", Range{1, k_max_tokens});
  x.output_tokens = r.integer("output_tokens", Range{1, k_max_tokens});
  x.batch = r.optional_integer("batch", Range{1, k_max_tokens});
  if ((x.scenario == PublishedScenario::static_batch) != x.batch.has_value()) {
    r.fail("batch", "is given exactly for the static-batch scenario");
  }
  x.ttft_ms = r.optional_number("ttft_ms", Range::positive(1e8));
  x.tpot_ms = r.optional_number("tpot_ms", Range::positive(1e8));
  const bool bounded =
      x.scenario == PublishedScenario::server || x.scenario == PublishedScenario::interactive;
  if (bounded != (x.ttft_ms.has_value() && x.tpot_ms.has_value()) ||
      (!bounded && (x.ttft_ms || x.tpot_ms))) {
    r.fail(x.ttft_ms ? "tpot_ms" : "ttft_ms",
           "server and interactive results state both latency limits; other scenarios none");
  }
  (void)r.choice<std::string>("metric", {{"output_tokens_per_s", "output_tokens_per_s"}});
  const bool per_gpu = r.choice<bool>("scope", {{"system", false}, {"gpu", true}});
  const double value = r.number("value", Range::positive(1e12));
  x.output_tokens_per_s = per_gpu ? value * x.gpus : value;
  return x;
}

// One model's results table, its rows validated (ids unique within it and among the runs `data`
// holds already); with `keep`, only the rows it accepts (an edited table is still read and
// validated whole).
std::vector<PublishedResult> read_model_results(const PublishedData& data,
                                                const PublishedModel& model,
                                                const PublishedFilter* keep) {
  // The bundled table, unedited, of the bundled index (a table is checked against its index:
  // sources, models): validated when it was compiled in (bundled.hpp), its ids unique among
  // themselves; against the tables loaded before it (none when it is the first, as in a plan),
  // checked here.
  const detail::BundledFile bundled = data.digest == detail::bundled_published_index_digest()
                                          ? detail::bundled_published_table(model.key)
                                          : detail::BundledFile{};
  std::optional<std::string> text = read_input_file_unless(
      model.results_file, bundled.known(), k_max_json_file_bytes, "published results table");
  if (!text) {
    auto rows = keep != nullptr ? detail::deserialize_published_results(bundled.value, *keep)
                                : detail::deserialize_published_results(bundled.value);
    const std::set<std::string_view> before = [&] {
      std::set<std::string_view> ids;
      for (const auto& r : data.results) {
        ids.insert(r.id);
      }
      return ids;
    }();
    const bool unique =
        before.empty() || std::none_of(rows.begin(), rows.end(), [&](const auto& r) {
          return before.count(r.id) > 0;
        });
    if (unique) {
      return rows;
    }
    // A repeated id: the parse below names its line.
    text = read_input_file(model.results_file, k_max_json_file_bytes, "published results table");
  }
  std::set<std::string> ids;
  for (const auto& r : data.results) {
    ids.insert(r.id);
  }
  const auto table = detail::parse_csv(*text, model.results_file, k_max_published_results);
  const detail::CsvColumns columns(table);
  columns.reject_unknown({"id",       "source",       "location",       "model",   "model_name",
                          "system",   "gpu",          "gpus",           "tp",      "pp",
                          "ep",       "engine",       "engine_version", "weights", "kv_cache",
                          "scenario", "input_tokens", "output_tokens",  "lengths", "batch",
                          "ttft_ms",  "tpot_ms",      "metric",         "scope",   "value"});
  columns.require({"id",
                   "source",
                   "location",
                   "model",
                   "model_name",
                   "system",
                   "gpu",
                   "gpus",
                   "engine",
                   "scenario",
                   "input_tokens",
                   "output_tokens",
                   "lengths",
                   "metric",
                   "scope",
                   "value"});
  std::vector<PublishedResult> results;
  results.reserve(table.records.size());
  for (const auto& record : table.records) {
    const CsvRecordReader r(table, record);
    PublishedResult x = read_result(r, data);
    if (x.model != model.key) {
      r.fail("model", fmt::format("must be {}: this is that model's results table", model.key));
    }
    if (!ids.insert(x.id).second) {
      r.fail("id", "appears twice");
    }
    if (keep == nullptr || (*keep)(x)) {
      results.push_back(std::move(x));
    }
  }
  return results;
}

// One model's results table, appended to data.results.
void load_model_results(PublishedData& data, const PublishedModel& model) {
  auto rows = read_model_results(data, model, nullptr);
  if (data.results.empty()) {
    data.results = std::move(rows); // a first table: no second vector of its rows
  } else {
    data.results.insert(data.results.end(),
                        std::make_move_iterator(rows.begin()),
                        std::make_move_iterator(rows.end()));
  }
  data.loaded.push_back(model.key);
}

} // namespace

std::string to_string(PublishedScenario s) {
  for (const auto& [name, value] : scenarios()) {
    if (value == s) {
      return name;
    }
  }
  return "offline";
}

PublishedData load_published_index(const std::string& path) {
  // The bundled index, unedited: validated when it was compiled in (bundled.hpp).
  const detail::BundledFile bundled = detail::bundled_published_index_file();
  const auto text =
      read_input_file_unless(path, bundled.known(), k_max_json_file_bytes, "JSON input");
  if (!text) {
    return detail::deserialize_published_index(bundled.value, path);
  }
  const nlohmann::json j = detail::parse_json_text(*text, path);
  const FieldReader r(j, path);
  if (!r.is_object()) {
    r.fail("must be a JSON object");
  }
  r.reject_unknown({"schema_version", "description", "sources", "models"});
  if (r.integer("schema_version", Range{1, 1e9}) != 1) {
    r.member("schema_version").fail("must be 1 (this rightsize reads version 1)");
  }
  PublishedData data;
  data.index_file = path;
  const FieldReader sources = r.object("sources");
  if (!sources.is_object()) {
    sources.fail("must be an object of sources by key");
  }
  for (const auto& [key, value] : sources.json().items()) {
    data.sources.emplace(key, read_source(sources.object(key), key));
  }
  const FieldReader models = r.object("models");
  if (!models.is_object()) {
    models.fail("must be an object of models by key");
  }
  for (const auto& [key, value] : models.json().items()) {
    data.models.push_back(read_model(models.object(key), key, path));
  }
  data.digest = detail::fnv1a_hex(*text);
  return data;
}

bool PublishedData::is_loaded(const std::string& model) const {
  return std::find(loaded.begin(), loaded.end(), model) != loaded.end();
}

std::vector<PublishedResult> published_results_where(const PublishedData& data,
                                                     const PublishedModel& model,
                                                     const PublishedFilter& keep) {
  if (!data.is_loaded(model.key)) {
    return read_model_results(data, model, &keep);
  }
  std::vector<PublishedResult> rows;
  std::copy_if(data.results.begin(),
               data.results.end(),
               std::back_inserter(rows),
               [&](const PublishedResult& r) { return r.model == model.key && keep(r); });
  return rows;
}

void load_published_results(PublishedData& data, const std::string& model) {
  for (const auto& m : data.models) {
    if ((model.empty() || m.key == model) && !data.is_loaded(m.key)) {
      load_model_results(data, m);
    }
  }
}

} // namespace rightsize
