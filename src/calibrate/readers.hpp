#pragma once

// One reader per client, each in its own file under clients/, registered in one table
// (bench_result.cpp) in the order FORMATS' detection rules are tried: a new client is a file and
// a row. docs/calibrate.md, "Result files".

#include "fields.hpp"

#include <rightsize/calibrate/bench_result.hpp>

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string_view>

namespace rightsize::calibrate {

struct ClientReader {
  BenchClient client;
  // Whether a top-level object is this client's, by its keys alone.
  bool (*detect)(const nlohmann::json& object);
  // The keys `detect` looks for, in words, for the error about a file no reader recognises.
  std::string_view looks_for;
  // Reads one run; client, source and digest are set by the caller.
  BenchRun (*read)(const FieldReader& object);
};

bool is_trtllm_bench(const nlohmann::json& object);
BenchRun read_trtllm_bench(const FieldReader& object);

bool is_vllm_throughput(const nlohmann::json& object);
BenchRun read_vllm_throughput(const FieldReader& object);

bool is_aiperf(const nlohmann::json& object);
BenchRun read_aiperf(const FieldReader& object);

bool is_genai_perf(const nlohmann::json& object);
BenchRun read_genai_perf(const FieldReader& object);

bool is_sglang_bench_serving(const nlohmann::json& object);
BenchRun read_sglang_bench_serving(const FieldReader& object);

bool is_vllm_serve(const nlohmann::json& object);
BenchRun read_vllm_serve(const FieldReader& object);

// Whether `object` has every one of `keys` (null counts as absent, as FieldReader::has says).
bool has_all(const nlohmann::json& object, std::initializer_list<std::string_view> keys);
bool has_any(const nlohmann::json& object, std::initializer_list<std::string_view> keys);

} // namespace rightsize::calibrate
