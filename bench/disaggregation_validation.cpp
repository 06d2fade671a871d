// rightsize_disaggregation_validation: the disaggregated serving model (estimate/
// disaggregation.hpp) against the measured disaggregated runs of ../shared/validation/
// serving_measured.csv (NVIDIA aiconfigurator's silicon samples, mode "disagg"), the rows that
// give both pools' worker counts and layouts. Nothing is fitted on them: each run is predicted
// with the factors fitted on aggregated runs (data/efficiency.json) and compared with its
// measured TTFT and TPOT; the aggregated bands of the run's GPU family and engine are checked
// for how often they hold the measured value (docs/accuracy.md, "Disaggregated serving").
// `--lines` prints every run.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/csv_reader.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/statistics.hpp>
#include <rightsize/estimate/disaggregation.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace rightsize;
using rightsize::detail::CsvRecordReader;
using rightsize::detail::CsvTable;
using rightsize::detail::parse_csv;

namespace {

// The same names as bench/accuracy/perf_cases.cpp reads the aggregated rows with.
const std::map<std::string, std::string> k_models{
    {"Qwen/Qwen3-32B", "qwen3-32b"},
    {"nvidia/Qwen3-32B-NVFP4", "qwen3-32b"},
    {"deepseek-ai/DeepSeek-V3", "deepseek-v3"},
    {"deepseek-ai/DeepSeek-R1", "deepseek-v3"},
    {"Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b"},
    {"meta-llama/Llama-3.1-70B", "llama-3.1-70b"},
    {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"}};
const std::map<std::string, std::string> k_systems{{"h100_sxm", "H100"},
                                                   {"h200_sxm", "H200"},
                                                   {"b200_sxm", "B200"},
                                                   {"b300_sxm", "B300"},
                                                   {"gb200", "GB200"},
                                                   {"gb300", "GB300"}};
const std::map<std::string, std::string> k_engines{
    {"trtllm", "tensorrt-llm"}, {"vllm", "vllm"}, {"sglang", "sglang"}};

nlohmann::json precision_of(const std::string& prec, const std::string& gemm) {
  if (prec == "fp4" || gemm == "nvfp4") {
    return {{"weights", "fp4"}, {"kv_cache", "fp8"}};
  }
  if (prec == "fp8" || gemm == "fp8" || gemm == "fp8_block") {
    return {{"weights", "fp8"}, {"kv_cache", "fp8"}};
  }
  return "bf16";
}

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

struct Line {
  std::string id;
  std::string group; // engine / GPU family
  double ttft_measured = 0;
  double tpot_measured = 0;
  double ttft = 0;
  double tpot = 0;
  bool ttft_in_band = false;
  bool tpot_in_band = false;
};

struct Summary {
  std::vector<double> ttft;
  std::vector<double> tpot;
  int ttft_held = 0;
  int tpot_held = 0;
};

double error(double predicted, double measured) {
  return std::abs(predicted / measured - 1.0);
}

} // namespace

int main(int argc, char** argv) {
  const bool lines = argc > 1 && std::strcmp(argv[1], "--lines") == 0;
  try {
    const auto catalog = load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    const Constants constants = Constants::load(std::string(RIGHTSIZE_DATA_DIR) + "/memory.json");
    const Efficiency eff = Efficiency::load(std::string(RIGHTSIZE_DATA_DIR) + "/efficiency.json");
    const Uncertainty bands =
        Uncertainty::load(std::string(RIGHTSIZE_DATA_DIR) + "/uncertainty.json");
    const std::string path = std::string(RIGHTSIZE_VALIDATION_DIR) + "/serving_measured.csv";
    const std::string text = read_input_file(path, std::size_t{64} << 20, "validation data");
    const CsvTable table = parse_csv(text, path, 100000);
    std::map<std::string, int> skipped;
    std::vector<Line> out;
    for (const auto& record : table.records) {
      const CsvRecordReader r(table, record);
      if (field(r, "mode") != "disagg") {
        continue;
      }
      if (field(r, "prefill_num_workers").empty() || field(r, "decode_num_workers").empty()) {
        ++skipped["no worker counts"];
        continue;
      }
      const auto model = k_models.find(field(r, "model_path"));
      if (model == k_models.end()) {
        ++skipped["model without a config here (Kimi-K2.5, ...)"];
        continue;
      }
      const long long concurrency = concurrency_of(field(r, "silicon_data_source"));
      if (concurrency < 1 || field(r, "prefill_pp_size") != "1" || field(r, "decode_pp_size") != "1") {
        ++skipped["no concurrency, or pipeline stages"];
        continue;
      }
      const std::string engine = k_engines.at(field(r, "backend"));
      Spec spec;
      try {
        spec = parse_spec(
            {{"model",
              std::string(RIGHTSIZE_CONFIGS_DIR) + "/" + model->second + "/config.json"},
             {"precision", precision_of(field(r, "precision"), field(r, "gemm_quant_mode"))},
             {"workload",
              {{"type", "inference"},
               {"engine", engine},
               {"input_tokens", std::stoll(field(r, "isl"))},
               {"output_tokens", std::stoll(field(r, "osl"))},
               {"concurrency", concurrency},
               // The decode workers' configured batch (per attention rank, as the column
               // gives it): the engine's cap on a decode replica's sequences.
               // The prefill workers' configured batch: whole prompts per step.
               {"max_num_batched_tokens",
                std::stoll(field(r, "isl")) *
                    std::max(1, count_of(field(r, "prefill_batch_size"), 1)) *
                    count_of(field(r, "prefill_attention_dp_size"), 1)},
               {"max_num_seqs",
                std::max(1, count_of(field(r, "decode_batch_size"), 1)) *
                    count_of(field(r, "decode_attention_dp_size"), 1)}}}},
            field(r, "id"));
      } catch (const InputError&) {
        ++skipped["the spec could not be expressed"];
        continue;
      }
      const Gpu& gpu = catalog.resolve(k_systems.at(field(r, "system")), "validation");
      DisaggregatedLayout layout;
      layout.prefill = {pool_layout(r, "prefill", spec),
                        count_of(field(r, "prefill_num_workers"), 1)};
      layout.decode = {pool_layout(r, "decode", spec), count_of(field(r, "decode_num_workers"), 1)};
      bool refused = false;
      for (const auto* p : {&layout.prefill.layout, &layout.decode.layout}) {
        refused = refused || spec.model.heads % p->attention_tp() != 0 ||
                  (p->ep > 1 && p->tp % p->ep != 0) || attention_dp_refusal(spec, *p);
      }
      if (refused) {
        ++skipped["a layout rightsize does not run (heads, experts, attention DP)"];
        continue;
      }
      const auto d = estimate_disaggregated(spec, gpu, layout, constants, eff);
      if (!d) {
        ++skipped["rightsize's memory model says a pool does not fit"];
        continue;
      }
      const std::string family = eff.family_name(gpu);
      Line l;
      l.id = field(r, "id");
      l.group = engine + " / " + family;
      l.ttft_measured = std::stod(field(r, "silicon_ttft_ms"));
      l.tpot_measured = std::stod(field(r, "silicon_tpot_ms"));
      l.ttft = to_ms(d->perf.ttft);
      l.tpot = to_ms(d->perf.tpot);
      const RatioBand tb = bands.band("ttft", family, engine);
      const RatioBand pb = bands.band("tpot", family, engine);
      const auto inside = [](double predicted, double measured, const RatioBand& b) {
        return measured >= predicted * b.low_ratio && measured <= predicted * b.high_ratio;
      };
      l.ttft_in_band = inside(l.ttft, l.ttft_measured, tb);
      l.tpot_in_band = inside(l.tpot, l.tpot_measured, pb);
      if (lines) {
        fmt::print("{}  {}P({})+{}D({})  c={}  ttft {:.1f} vs {:.1f} ms  tpot {:.2f} vs {:.2f} "
                   "ms  limited {} batch {:.0f}/{}\n",
                   l.id,
                   layout.prefill.replicas,
                   layout.prefill.layout.gpus(),
                   layout.decode.replicas,
                   layout.decode.layout.gpus(),
                   concurrency,
                   l.ttft,
                   l.ttft_measured,
                   l.tpot,
                   l.tpot_measured,
                   d->limited_by.empty() ? "-" : d->limited_by, d->decode_batch, d->decode_max_batch);
      }
      out.push_back(l);
    }
    std::map<std::string, Summary> groups;
    for (const Line& l : out) {
      for (Summary* s : {&groups[l.group], &groups["all"]}) {
        s->ttft.push_back(error(l.ttft, l.ttft_measured));
        s->tpot.push_back(error(l.tpot, l.tpot_measured));
        s->ttft_held += l.ttft_in_band ? 1 : 0;
        s->tpot_held += l.tpot_in_band ? 1 : 0;
      }
    }
    fmt::print("| group | runs | TTFT median abs. error | TPOT median abs. error | TTFT in "
               "band | TPOT in band |\n|---|---|---|---|---|---|\n");
    for (auto& [name, s] : groups) {
      std::sort(s.ttft.begin(), s.ttft.end());
      std::sort(s.tpot.begin(), s.tpot.end());
      const auto n = static_cast<double>(s.ttft.size());
      fmt::print("| {} | {} | {:.0f}% | {:.0f}% | {:.0f}% | {:.0f}% |\n",
                 name,
                 s.ttft.size(),
                 100.0 * linear_percentile(s.ttft, 50),
                 100.0 * linear_percentile(s.tpot, 50),
                 100.0 * s.ttft_held / n,
                 100.0 * s.tpot_held / n);
    }
    for (const auto& [why, count] : skipped) {
      fmt::print("skipped {}: {}\n", count, why);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
