#pragma once

// Published measurements (vendor performance tables, MLPerf results): what a named system
// measured for a named model, with the source of every number. rightsize shows them beside its
// own predictions (rightsize compare; a plan's candidates) and reports its error against them
// (docs/accuracy.md, "Published results"). The data, its format and its sources:
// data/published/ and docs/published.md.
//
// An index (data/published/published.json: sources and models), small enough to read on every
// plan, and one results table (CSV) per model, read only for the spec's model.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// What a result's run was held to. Offline: every request queued at once, throughput at full
// load. Server and interactive (MLPerf): the highest load whose latency percentiles stay within
// the scenario's TTFT and TPOT limits. Static batch: a fixed batch prefilled together, then
// decoded together.
enum class PublishedScenario { offline, server, interactive, static_batch };
std::string to_string(PublishedScenario s);

struct PublishedSource {
  std::string key;
  std::string title;
  std::string url;        // the page, or the file at a fixed commit
  std::string repository; // where the url is a repository's file: owner/name, path, commit
  std::string path;
  std::string commit;
  std::string date;
  std::string engine_version;
  std::string method; // what was measured and how, in the source's words where possible
};

// A model's architecture as rightsize reads it from its config.json, written into the index so
// that a spec's model can be matched without reading any other file.
struct PublishedModel {
  std::string key;  // "llama-3.1-70b": what results.csv's model column names
  std::string name; // "Llama 3.1 70B"
  std::vector<std::string> same_architecture; // other published names ("Llama 3.3 70B")
  long long layers = 0;
  long long hidden = 0;
  long long heads = 0;
  long long kv_heads = 0;
  long long intermediate = 0;
  long long vocab = 0;
  long long experts = 0;
  long long experts_active = 0;
  long long moe_intermediate = 0;
  double parameters = 0;    // rightsize's count from the config, all experts
  std::string results_file; // its results table, resolved beside the index
};

struct PublishedResult {
  std::string id;
  std::string source;     // a key of PublishedData::sources
  std::string location;   // where in the source
  std::string model;      // a key of PublishedData::models
  std::string model_name; // as published ("nvidia/Llama-3.3-70B-Instruct-FP8")
  std::string system;     // as published ("DGX H200")
  std::string gpu;        // a catalog name
  int gpus = 1;           // GPUs the value was measured on
  std::optional<int> tp;  // none: not published
  std::optional<int> pp;
  std::optional<int> ep;
  std::string engine; // tensorrt-llm, vllm, sglang, transformers or other
  std::string engine_version;
  std::string weights; // a dtype name (engine_weight_formats()), "" when not published
  std::string kv_cache;
  PublishedScenario scenario = PublishedScenario::offline;
  long long input_tokens = 0; // 0: a dataset mean that is not published (mean_lengths)
  long long output_tokens = 0;
  bool mean_lengths = false;      // the dataset's mean lengths, not every request's
  std::optional<long long> batch; // static batch: sequences per batch
  std::optional<double> ttft_ms;  // server/interactive: the scenario's limits
  std::optional<double> tpot_ms;
  double output_tokens_per_s = 0; // for all `gpus`
};

struct PublishedData {
  std::string index_file;
  std::map<std::string, PublishedSource> sources;
  std::vector<PublishedModel> models;
  std::vector<PublishedResult> results; // the loaded models' runs, by model, then as in the file
  std::vector<std::string> loaded;      // the models whose results are loaded
  std::string digest;                   // FNV-1a of the index's bytes
  [[nodiscard]] bool is_loaded(const std::string& model) const;
};

// Reads and validates the index: schema_version 1, every source and model complete, no unknown
// field. Throws InputError naming the file and JSON pointer.
PublishedData load_published_index(const std::string& path);

// Reads and validates the results table of `model` (every column; the index's sources; its rows
// all of this model; ids unique among the loaded runs; numbers in range), or of every model when
// `model` is empty; an InputError names the file, the line and the column. A model already loaded
// is not read again.
void load_published_results(PublishedData& data, const std::string& model = "");

// The runs of `model` that `keep` accepts, in the table's order, without adding any to `data`:
// from data.results when the model is loaded, else from its table, read and validated as
// load_published_results reads it (the bundled table's other rows are read past, not copied: a
// plan looks only at its candidates' GPUs). Throws as load_published_results does.
using PublishedFilter = std::function<bool(const PublishedResult&)>;
std::vector<PublishedResult> published_results_where(const PublishedData& data,
                                                     const PublishedModel& model,
                                                     const PublishedFilter& keep);

// The most records a results table may hold.
inline constexpr std::size_t k_max_published_results = 100000;

} // namespace rightsize
