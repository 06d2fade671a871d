#pragma once

// Deterministic, valid and varied workload specs (docs/spec.md), for benchmarks (`check` over
// 1,000 specs, docs/performance.md) and for tests that plan many specs. The tool
// rightsize_generate_specs writes them to a directory.

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace rightsize::bench {

// `n` specs as (file name, spec JSON), drawn with `seed` over the models of `configs_dir` (one
// folder per model holding a config.json, as tests/data/configs). Each model is used in turn,
// every other choice is drawn: about 80% serving workloads (input and output lengths within the
// model's context, concurrency or offline, TTFT/TPOT/throughput/request-rate targets, precisions
// with `allow`, the engines vllm, sglang and tensorrt-llm, constraints, cloud and on-prem
// deployments) and 20% training and fine-tuning (full, LoRA, QLoRA).
//
// Specs name their model by absolute path, so they can be written to any directory. The same
// arguments give the same specs on every platform (no std::*_distribution), and the first k of n
// specs are those of k. Every spec loads and plans without an input error; some are infeasible
// on purpose (tight latency targets, few or small GPUs). File names are "<index>-<model>-<kind>
// .json", in index order. Throws InputError when `configs_dir` holds no readable config.
std::vector<std::pair<std::string, nlohmann::json>>
generate_specs(int n, unsigned seed, const std::string& configs_dir);

} // namespace rightsize::bench
