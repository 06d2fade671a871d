#include "disaggregated_cases.hpp"

#include <rightsize/core/csv_reader.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/estimate/disaggregation.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <memory>

namespace rightsize::accuracy {

namespace {

using rightsize::detail::CsvRecordReader;
using rightsize::detail::CsvTable;
using rightsize::detail::parse_csv;

// A column's text, empty when the field is.
std::string field(const CsvRecordReader& r, const std::string& column) {
  return r.optional_string(column).value_or("");
}

int count_of(const std::string& s, int otherwise) {
  return s.empty() || s == "0" ? otherwise : std::stoi(s);
}

// One pool's layout from its columns: attention over attention_dp groups of tp GPUs, experts
// over moe_ep (perf_cases.cpp's rule for the aggregated rows).
Parallelism pool_layout(const CsvRecordReader& r, const std::string& pool, const Spec& spec) {
  const int tp = count_of(field(r, pool + "_tp_size"), 1);
  const int adp = count_of(field(r, pool + "_attention_dp_size"), 1);
  const int ep = count_of(field(r, pool + "_moe_ep_size"), 1);
  return serving_parallelism(tp * adp, 1, ep > 1 && spec.model.is_moe() ? ep : 1, adp);
}

// "silicon_concurrency=64" in the source column: the client's requests in flight.
long long concurrency_of(const std::string& source) {
  const std::string key = "silicon_concurrency=";
  const auto at = source.find(key);
  return at == std::string::npos ? 0 : std::stoll(source.substr(at + key.size()));
}

// What a predictor keeps of its run.
struct Run {
  Spec spec;
  const Gpu* gpu = nullptr;
  DisaggregatedLayout layout;
};

} // namespace

void append_disaggregated_cases(PerfCases& perf,
                                const std::string& validation_dir,
                                const std::string& configs_dir,
                                const Catalog& catalog,
                                const Constants& constants,
                                const Efficiency& efficiency) {
  const std::string path = validation_dir + "/serving_measured.csv";
  const std::string text = read_input_file(path, std::size_t{64} << 20, "validation data");
  const CsvTable table = parse_csv(text, path, 100000);
  std::map<std::string, int> skipped;
  for (const auto& record : table.records) {
    const CsvRecordReader r(table, record);
    if (field(r, "mode") != "disagg") {
      continue;
    }
    const auto skip = [&](const char* why) { ++skipped[std::string("disaggregated: ") + why]; };
    if (field(r, "prefill_num_workers").empty() || field(r, "decode_num_workers").empty()) {
      skip("no worker counts");
      continue;
    }
    const auto model = k_serving_models.find(field(r, "model_path"));
    if (model == k_serving_models.end()) {
      skip("model without a config here (Kimi-K2.5, ...)");
      continue;
    }
    const long long concurrency = concurrency_of(field(r, "silicon_data_source"));
    if (concurrency < 1 || field(r, "prefill_pp_size") != "1" ||
        field(r, "decode_pp_size") != "1") {
      skip("no concurrency, or pipeline stages");
      continue;
    }
    const std::string engine = k_serving_engines.at(field(r, "backend"));
    auto run = std::make_shared<Run>();
    try {
      run->spec = parse_spec(
          {{"model", configs_dir + "/" + model->second + "/config.json"},
           {"precision", serving_precision(field(r, "precision"), field(r, "gemm_quant_mode"))},
           {"workload",
            {{"type", "inference"},
             {"engine", engine},
             {"input_tokens", std::stoll(field(r, "isl"))},
             {"output_tokens", std::stoll(field(r, "osl"))},
             {"concurrency", concurrency},
             // The run's configuration: the prefill workers' batch (whole prompts a step) and
             // the decode workers' (per attention rank, as the columns give them).
             {"max_num_batched_tokens",
              std::stoll(field(r, "isl")) *
                  std::max(1, count_of(field(r, "prefill_batch_size"), 1)) *
                  count_of(field(r, "prefill_attention_dp_size"), 1)},
             {"max_num_seqs",
              std::max(1, count_of(field(r, "decode_batch_size"), 1)) *
                  count_of(field(r, "decode_attention_dp_size"), 1)}}}},
          field(r, "id"));
    } catch (const InputError&) {
      skip("the spec could not be expressed");
      continue;
    }
    const Spec& spec = run->spec;
    run->gpu = &catalog.resolve(k_serving_systems.at(field(r, "system")), "validation");
    run->layout.prefill = {pool_layout(r, "prefill", spec),
                           count_of(field(r, "prefill_num_workers"), 1)};
    run->layout.decode = {pool_layout(r, "decode", spec),
                          count_of(field(r, "decode_num_workers"), 1)};
    bool refused = false;
    for (const auto* p : {&run->layout.prefill.layout, &run->layout.decode.layout}) {
      refused = refused || spec.model.heads % p->attention_tp() != 0 ||
                (p->ep > 1 && p->tp % p->ep != 0) || attention_dp_refusal(spec, *p);
    }
    if (refused) {
      skip("a layout rightsize does not run (heads, experts, attention DP)");
      continue;
    }
    if (!estimate_disaggregated(spec, *run->gpu, run->layout, constants, efficiency)) {
      skip("rightsize's memory model says a pool does not fit");
      continue;
    }
    const std::string id = fmt::format("{} {}P({})+{}D({}) c={}",
                                       field(r, "id"),
                                       run->layout.prefill.replicas,
                                       run->layout.prefill.layout.gpus(),
                                       run->layout.decode.replicas,
                                       run->layout.decode.layout.gpus(),
                                       concurrency);
    const auto predictor = [run, &constants](bool ttft) {
      return [run, &constants, ttft](const Efficiency& eff) {
        const auto d = estimate_disaggregated(run->spec, *run->gpu, run->layout, constants, eff);
        return d ? to_ms(ttft ? d->perf.ttft : d->perf.tpot) : 0.0;
      };
    };
    const std::string family = efficiency.family_name(*run->gpu);
    const bool held = held_out_key(id);
    for (const bool ttft : {true, false}) {
      perf.disaggregated.push_back(
          {id,
           ttft ? "ttft" : "tpot",
           "disaggregated",
           family,
           engine,
           std::stod(field(r, ttft ? "silicon_ttft_ms" : "silicon_tpot_ms")),
           held,
           predictor(ttft),
           {}});
    }
  }
  for (const auto& [reason, n] : skipped) {
    perf.skipped.push_back({fmt::format("{} rows", n), reason});
  }
}

} // namespace rightsize::accuracy
