#pragma once

// A configuration as a lock records it and check compares it: the GPU, layout, replicas and
// formats that make the deployment, and its key figures in SI-derived units named in each field
// (docs/ci.md, "What a lock holds"). Also when two configurations are the same one, for check
// (a different configuration is now best) and deploy --lock (the locked one among a plan's).

#include <rightsize/plan/plan.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace rightsize {

// The key figures of one configuration, as locked.
struct LockedConfiguration {
  std::string gpu; // catalog name, or "<name> <MIG profile>"
  int gpus = 0;
  int replicas = 1;
  // Disaggregated prefill/decode: of `replicas`, the prefill pool's (0: aggregated; absent from
  // locks written before 2026-12-07 and from aggregated ones).
  int prefill_replicas = 0;
  Parallelism layout;
  std::string weights; // dtype names
  std::string kv_cache;
  double memory_per_gpu_bytes = 0;
  double memory_budget_bytes = 0;
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  // The simulated p99 of each (docs/model.md, "Latency distributions"): recorded when the spec's
  // targets name percentiles, absent otherwise (and from locks written before 2026-12-07).
  std::optional<double> ttft_p99_ms;
  std::optional<double> tpot_p99_ms;
  std::optional<double> output_tokens_per_s;
  std::optional<double> step_time_s;
  std::optional<double> time_to_train_hours;
  double usd_per_hour = 0;
  std::optional<double> usd_per_million_tokens;
  double tco_usd = 0;
  std::optional<double> usd_per_month; // the first month (absent in schema 1 locks)
  std::optional<long long> batch;      // serving: sequences per replica (absent in schema 1)
  // Workloads that decode no tokens of their own, or whose unit is not a token (embeddings,
  // image embeddings, transcription): their request latency, throughput in their own unit and
  // unit price; ttft_ms, tpot_ms, output_tokens_per_s and usd_per_million_tokens stay empty.
  // Absent from locks written before 2026-11-27, which put the latency under ttft_ms.
  std::optional<double> latency_ms;
  std::optional<double> sequences_per_s;     // text embeddings
  std::optional<double> images_per_s;        // image embeddings
  std::optional<double> audio_seconds_per_s; // transcription
  std::optional<double> usd_per_million_input_tokens;
  std::optional<double> usd_per_thousand_images;
  std::optional<double> usd_per_audio_hour;
};

// The figures of a candidate as a lock records them.
LockedConfiguration configuration_of(const Candidate& c);
// A configuration as lock files and check reports write it.
nlohmann::json configuration_to_json(const LockedConfiguration& l);
// "2 x L40S-48GB (TP1 PP1 DP1, fp8/fp8)"; CP only where it is above 1.
std::string configuration_text(const LockedConfiguration& l);

// Which fields two configurations must share to be the same one. The figures never count.
enum class Sameness {
  // One replica's shape: the GPU, the tensor, pipeline and expert parallel sizes, the weight and
  // KV cache formats. The replica count may differ, and with it the data parallel size and the
  // GPU count (deploy --lock deploys the lock's replicas of the shape the plan still finds).
  replica,
  // The whole deployment: the replica's shape, and the replica count, the GPU count and the data
  // and context parallel sizes (check: whether another configuration is now best).
  deployment,
};
bool same_configuration(const LockedConfiguration& a,
                        const LockedConfiguration& b,
                        Sameness sameness = Sameness::deployment);

} // namespace rightsize
