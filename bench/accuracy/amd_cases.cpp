#include "amd_cases.hpp"

#include <rightsize/core/csv_reader.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>

namespace rightsize::accuracy {

namespace {

using Row = std::map<std::string, std::string>;

// The rows of the file by column name, read with the project's strict CSV reader (each error
// names the file and line).
std::vector<Row> read_rows(const std::string& csv_file) {
  const std::string text = read_input_file(csv_file, 16 << 20, "the AMD measurements");
  const detail::CsvTable table = detail::parse_csv(text, csv_file, 100'000);
  std::vector<Row> rows;
  for (const detail::CsvRecord& record : table.records) {
    Row r;
    for (std::size_t i = 0; i < record.fields.size(); ++i) {
      r[table.header[i]] = std::string(record.fields[i]);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// The rightsize spec of one row: the row's engine, FP8 weights, its KV format and lengths; the
// batch as the concurrency where the row states one (an offline run's prompt count: all requests
// at once), else none (the largest batch that fits, as `estimate` and the published offline runs).
nlohmann::json amd_spec(const Row& r, const std::string& root) {
  nlohmann::json w{{"type", "inference"},
                   {"engine", r.at("engine")},
                   {"input_tokens", std::stoll(r.at("input_tokens"))},
                   {"output_tokens", std::stoll(r.at("output_tokens"))}};
  if (!r.at("batch").empty()) {
    w["concurrency"] = std::stoll(r.at("batch"));
  }
  return {{"model", root + "/" + r.at("config")},
          {"precision", {{"weights", r.at("weights")}, {"kv_cache", r.at("kv_cache")}}},
          {"workload", w}};
}

// The predictor of one row's metric.
std::function<double(const Efficiency&)> amd_predictor(std::shared_ptr<Prepared> prepared,
                                                       const Constants& constants,
                                                       const std::string& metric) {
  if (metric == "output_tokens_per_s") {
    // Offline: continuous batching at the run's batch (or the largest that fits).
    return [prepared, &constants](const Efficiency& eff) {
      return estimate_inference(
                 prepared->spec, prepared->gpu, prepared->p, prepared->memory, eff, constants)
          .output_tokens_per_s;
    };
  }
  if (metric == "tpot_ms") {
    // A static batch's decode step, alone (bench_one_batch's median decode latency).
    return [prepared, &constants](const Efficiency& eff) {
      return to_ms(estimate_inference(
                       prepared->spec, prepared->gpu, prepared->p, prepared->memory, eff, constants)
                       .decode_step);
    };
  }
  // e2e_latency_ms: a static batch, all prompts prefilled in one step, then every output token
  // decoded together (benchmark_latency; as plan/published.cpp's static batch).
  return [prepared, &constants](const Efficiency& eff) {
    const auto& inf = prepared->spec.workload.inference;
    const double in = static_cast<double>(inf.input_tokens);
    const double out = static_cast<double>(inf.output_tokens);
    const double batch = static_cast<double>(prepared->memory.batch);
    const Seconds prefill =
        prefill_step_time(prepared->spec, prepared->gpu, prepared->p, eff, in * batch, in).total();
    const Seconds decode =
        estimate_inference(
            prepared->spec, prepared->gpu, prepared->p, prepared->memory, eff, constants)
            .decode_step;
    return to_ms(prefill) + to_ms(decode) * out;
  };
}

// The case's metric name beside the validation data's (throughput, tpot) and the new one.
std::string metric_name(const std::string& csv_metric) {
  return csv_metric == "output_tokens_per_s" ? "throughput"
         : csv_metric == "tpot_ms"           ? "tpot"
                                             : "e2e_latency";
}

} // namespace

std::string amd_source(const PerfCase& c) {
  // "amd:<source>:<row id>"
  const auto first = c.id.find(':');
  const auto second = c.id.find(':', first + 1);
  return c.id.substr(first + 1, second - first - 1);
}

void append_amd_cases(PerfCases& out,
                      const std::string& csv_file,
                      const std::string& root,
                      const Catalog& catalog,
                      const Constants& constants,
                      const Efficiency& efficiency) {
  for (const Row& r : read_rows(csv_file)) {
    const std::string id = "amd:" + r.at("source") + ":" + r.at("id");
    const Gpu& gpu = catalog.resolve(r.at("gpu"), csv_file);
    Spec spec = parse_spec(amd_spec(r, root), id);
    Parallelism p;
    p.tp = std::stoi(r.at("tp"));
    const MemoryEstimate memory = estimate_memory(spec, gpu, p, constants);
    const bool static_batch = r.at("scenario") == "static_batch";
    if (memory.max_batch < 1 || (static_batch && memory.max_batch < std::stoll(r.at("batch")))) {
      out.skipped.push_back({id, "amd: rightsize's memory model says the batch does not fit"});
      continue;
    }
    const std::string key = fmt::format("{}|{}|tp{}|{}|{}/{}|{}|b{}",
                                        r.at("gpu"),
                                        r.at("config"),
                                        r.at("tp"),
                                        r.at("engine"),
                                        r.at("input_tokens"),
                                        r.at("output_tokens"),
                                        r.at("scenario"),
                                        r.at("batch"));
    // MoE rows (DeepSeek-V3's MLA on SGLang) are never fitted: their decode model is not the
    // dense one the family's efficiencies stand for (docs/accuracy.md, "AMD CDNA3").
    const bool held = held_out_key(key) || spec.model.is_moe();
    auto prepared = std::make_shared<Prepared>(Prepared{std::move(spec), gpu, p, memory});
    PerfCase c;
    c.id = id;
    c.metric = metric_name(r.at("metric"));
    c.group = k_amd_group;
    c.family = efficiency.family_name(gpu);
    c.engine = r.at("engine");
    c.measured = std::stod(r.at("value"));
    c.held_out = held;
    c.predict = amd_predictor(prepared, constants, r.at("metric"));
    describe_serving(c, *prepared, efficiency, constants);
    out.cases.push_back(std::move(c));
  }
}

} // namespace rightsize::accuracy
