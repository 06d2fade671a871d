// Each engine's memory policy (data/memory.json "engines", estimate/memory.hpp): which constant
// plays which role, hand-checked against the file; the estimate reads the policy, not the engine;
// and what a bad policy is told.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::ScratchDir;

namespace {

const std::string k_memory = std::string(RIGHTSIZE_DATA_DIR) + "/memory.json";

nlohmann::json memory_json() {
  return nlohmann::json::parse(read_input_file(k_memory, k_max_json_file_bytes, "test"));
}

// The InputErrors of a memory.json, one line each.
std::string load_error(const nlohmann::json& j) {
  ScratchDir dir;
  const std::string path = dir.write("memory.json", j.dump(1));
  try {
    (void)Constants::load(path);
  } catch (const std::exception& e) {
    std::string m = e.what();
    for (auto pos = m.find(path); pos != std::string::npos; pos = m.find(path)) {
      m.replace(pos, path.size(), "memory.json");
    }
    return m;
  }
  return "no error";
}

// The role's constant and value, or "" and 0 when the engine has none.
std::pair<std::string, double> role(const std::optional<PolicyConstant>& c) {
  return c ? std::make_pair(c->name, c->value) : std::make_pair(std::string(), 0.0);
}

using Role = std::pair<std::string, double>;

Spec llama_8b(const char* engine) {
  return parse_spec({{"model", config_path("llama-3.1-8b")},
                     {"workload",
                      {{"type", "inference"},
                       {"engine", engine},
                       {"input_tokens", 2048},
                       {"output_tokens", 512}}}},
                    "test.json");
}

} // namespace

TEST_CASE("engine policy: each engine's roles, as data/memory.json gives them",
          "[estimate][engines]") {
  const Constants& c = constants();
  const EngineMemoryPolicy& vllm = c.engine(Engine::vllm);
  CHECK(vllm.engine == "vllm");
  CHECK(role(vllm.memory_fraction) == Role{"vllm_gpu_memory_utilization", 0.90});
  CHECK(vllm.fraction_of == FractionOf::capacity);
  CHECK(role(vllm.kv_block_tokens) == Role{"vllm_block_size_tokens", 16});
  CHECK(role(vllm.cuda_graphs_mib) == Role{"cuda_graphs_mib", 512});
  CHECK(vllm.activation_peak == ActivationPeak::profiled_chunk);
  CHECK(role(vllm.max_batched_tokens) == Role{"max_num_batched_tokens", 8192});
  CHECK(role(vllm.max_sequences) == Role{"max_num_seqs", 1024});
  CHECK(vllm.chunked_prefill == ChunkedPrefill::on);
  CHECK(vllm.unchunked_pass == UnchunkedPass::max_model_len);
  CHECK(vllm.tiers.size() == 3); // V0, GPUs under 70 GiB, A100s
  CHECK_FALSE(vllm.allocator_fragmentation);
  CHECK_FALSE(vllm.source.empty());

  const EngineMemoryPolicy& sglang = c.engine(Engine::sglang);
  CHECK(role(sglang.memory_fraction) == Role{"sglang_mem_fraction_static", 0.88});
  CHECK(sglang.fraction_of == FractionOf::capacity);
  CHECK(role(sglang.kv_block_tokens) == Role{"sglang_page_size_tokens", 1});
  CHECK(role(sglang.cuda_graphs_mib) == Role{"cuda_graphs_mib", 512});
  CHECK(sglang.activation_peak == ActivationPeak::profiled_chunk);
  CHECK(role(sglang.max_batched_tokens) == Role{"sglang_large_chunked_prefill_tokens", 16384});
  CHECK(role(sglang.max_sequences) == Role{"sglang_max_running_requests", 2048});
  CHECK(sglang.tiers.size() == 3); // its chunk under 35, 60 and 160 GB
  CHECK_FALSE(sglang.allocator_fragmentation);

  const EngineMemoryPolicy& trtllm = c.engine(Engine::tensorrt_llm);
  CHECK(trtllm.engine == "tensorrt-llm");
  CHECK(role(trtllm.memory_fraction) == Role{"trtllm_kv_cache_free_gpu_mem_fraction", 0.90});
  CHECK(trtllm.fraction_of == FractionOf::free_memory);
  CHECK(role(trtllm.kv_block_tokens) == Role{"trtllm_tokens_per_block", 32});
  CHECK(role(trtllm.cuda_graphs_mib) == Role{"cuda_graphs_mib", 512});
  CHECK(trtllm.activation_peak == ActivationPeak::profiled_chunk);
  CHECK(role(trtllm.max_batched_tokens) == Role{"trtllm_max_num_tokens", 8192});
  CHECK(role(trtllm.max_sequences) == Role{"trtllm_max_seqs", 256});
  CHECK(trtllm.chunked_prefill == ChunkedPrefill::off);
  CHECK_FALSE(trtllm.allocator_fragmentation);

  const EngineMemoryPolicy& hf = c.engine(Engine::transformers);
  CHECK_FALSE(hf.memory_fraction);
  CHECK(hf.fraction_of == FractionOf::capacity);
  CHECK_FALSE(hf.kv_block_tokens);
  CHECK_FALSE(hf.cuda_graphs_mib);
  CHECK(hf.activation_peak == ActivationPeak::whole_batch);
  CHECK_FALSE(hf.max_batched_tokens);
  CHECK_FALSE(hf.max_sequences);
  CHECK(role(hf.allocator_fragmentation) == Role{"allocator_fragmentation", 0.10});

  // Reports list them in this order after the runtime's own constants.
  CHECK(vllm.constant_names() == std::vector<std::string_view>{"cuda_graphs_mib",
                                                               "max_num_batched_tokens",
                                                               "max_num_seqs",
                                                               "vllm_gpu_memory_utilization"});
  CHECK(hf.constant_names() == std::vector<std::string_view>{"allocator_fragmentation"});
}

TEST_CASE("engine policy: --assume reaches the roles that name the constant",
          "[estimate][engines]") {
  Constants c = constants();
  c.assume({"vllm_block_size_tokens=32", "cuda_graphs_mib=256"});
  CHECK(c.engine(Engine::vllm).kv_block_tokens->value == 32);
  CHECK(c.engine(Engine::sglang).kv_block_tokens->value == 1);
  for (const Engine e : {Engine::vllm, Engine::sglang, Engine::tensorrt_llm}) {
    CHECK(c.engine(e).cuda_graphs_mib->value == 256);
  }
  const Spec s = llama_8b("vllm");
  CHECK(kv_cache_geometry(s, Parallelism{}, c).block == 32);
  CHECK(kv_cache_geometry(s, Parallelism{}, constants()).block == 16);
}

TEST_CASE("engine policy: the estimate follows the policy, not the engine's name",
          "[estimate][engines]") {
  const Gpu& h100 = catalog().resolve("H100", "test");
  const Spec s = llama_8b("vllm");
  const MemoryEstimate as_shipped = estimate_memory(s, h100, Parallelism{}, constants());
  // vLLM's fraction is of the whole GPU: 0.9 x 79.6 GiB usable.
  CHECK(as_shipped.budget.si() == Approx(h100.plannable_memory().si() * 0.9));

  // The same engine given TensorRT-LLM's rule in the data: the KV cache takes 90% of what is
  // free after the weights, activations and overhead.
  nlohmann::json j = memory_json();
  j["engines"]["vllm"]["fraction_of"] = "free_memory";
  // ... and TensorRT-LLM's chunk and sequence cap, so that only the rule differs.
  j["engines"]["vllm"]["max_batched_tokens"] = "trtllm_max_num_tokens";
  j["engines"]["vllm"]["max_sequences"] = "trtllm_max_seqs";
  j["engines"]["vllm"].erase("tiers");
  ScratchDir dir;
  const Constants edited = Constants::load(dir.write("memory.json", j.dump(1)));
  const MemoryEstimate e = estimate_memory(s, h100, Parallelism{}, edited, 1);
  const Bytes rest = e.per_gpu.weights + e.per_gpu.activations + e.per_gpu.overhead;
  CHECK(e.budget.si() == Approx((rest + (h100.plannable_memory() - rest) * 0.9).si()));
  // As TensorRT-LLM's row makes it, but for its own block and fraction constants.
  const MemoryEstimate trt =
      estimate_memory(llama_8b("tensorrt-llm"), h100, Parallelism{}, constants(), 1);
  CHECK(trt.budget.si() == Approx(e.budget.si()));

  // No CUDA graphs in the data: the overhead drops by cuda_graphs_mib.
  j = memory_json();
  j["engines"]["vllm"].erase("cuda_graphs_mib");
  const Constants no_graphs = Constants::load(dir.write("memory2.json", j.dump(1)));
  const MemoryEstimate without = estimate_memory(s, h100, Parallelism{}, no_graphs, 1);
  const MemoryEstimate with = estimate_memory(s, h100, Parallelism{}, constants(), 1);
  CHECK((with.per_gpu.overhead - without.per_gpu.overhead).si() == Approx(mib(512).si()));
}

TEST_CASE("engine policy: a bad policy is one line per problem, naming the file",
          "[estimate][engines]") {
  nlohmann::json j = memory_json();
  j["engines"].erase("sglang");
  CHECK(load_error(j) == "memory.json:/engines: needs an entry for engine sglang");

  j = memory_json();
  j["engines"]["vlm"] = j["engines"]["vllm"];
  CHECK(load_error(j) == "memory.json:/engines/vlm: unknown engine \"vlm\" (expected one of "
                         "vllm, sglang, tensorrt-llm, transformers) (did you mean \"vllm\"?)");

  j = memory_json();
  j["engines"]["vllm"]["memory_fraction"] = "vllm_gpu_memory_utilisation";
  CHECK(load_error(j) ==
        "memory.json:/engines/vllm/memory_fraction: is not a constant of /constants (did you "
        "mean \"vllm_gpu_memory_utilization\"?), got \"vllm_gpu_memory_utilisation\"");

  j = memory_json();
  j["engines"]["vllm"]["memory_fraction"] = "cuda_graphs_mib";
  CHECK(load_error(j) == "memory.json:/engines/vllm/memory_fraction: must name a share of "
                         "memory, got \"cuda_graphs_mib\"");
  j = memory_json();
  j["engines"]["sglang"]["cuda_graphs_mib"] = "sglang_page_size_tokens";
  CHECK(load_error(j) == "memory.json:/engines/sglang/cuda_graphs_mib: must name a size in MiB, "
                         "got \"sglang_page_size_tokens\"");

  j = memory_json();
  j["engines"]["sglang"].erase("max_sequences");
  CHECK(load_error(j) == "memory.json:/engines/sglang: a profiled chunk needs "
                         "max_batched_tokens and max_sequences");

  j = memory_json();
  j["engines"]["transformers"]["activation_peak"] = "whole_batches";
  CHECK(load_error(j) ==
        "memory.json:/engines/transformers/activation_peak: must be one of profiled_chunk, "
        "whole_batch (did you mean \"whole_batch\"?), got \"whole_batches\"");

  j = memory_json();
  j["engines"]["vllm"]["block_size"] = 16;
  CHECK_THAT(load_error(j),
             Catch::StartsWith("memory.json:/engines/vllm/block_size: unknown field"));
}
