// The deploy stage's steps on their own (src/deploy/serving.hpp): the engine's command line from a
// recipe and settings written here, and the shell quoting of multi-node launchers.

#include "deploy/serving.hpp"

#include <catch2/catch.hpp>

using namespace rightsize;

namespace {

EngineRecipe small_recipe() {
  EngineRecipe r;
  r.command = {"vllm", "serve"};
  r.host_arg = "--host";
  r.port_arg = "--port";
  r.port = 8000;
  r.args = {{"served_model_name", "--served-model-name"},
            {"tensor_parallel", "--tensor-parallel-size"},
            {"max_model_len", "--max-model-len"},
            {"max_num_seqs", "--max-num-seqs"},
            {"memory_fraction", "--gpu-memory-utilization"},
            {"embedding", "--runner pooling"}};
  return r;
}

ServingSettings chat_settings() {
  ServingSettings s;
  s.name = "chat";
  s.model_uri = "meta-llama/Llama-3.1-8B-Instruct";
  s.layout.tp = 2;
  s.max_model_len = 4096;
  s.capacity_per_replica = 64;
  s.memory_fraction = 0.9;
  return s;
}

} // namespace

TEST_CASE("deploy: the engine's command line, word by word, with where each comes from",
          "[deploy]") {
  SECTION("a chat model: no pipeline, no experts, no formats to set") {
    std::vector<std::string> notes;
    const auto words = serving::engine_command_line(chat_settings(), small_recipe(), notes);
    REQUIRE(words == std::vector<std::string>{"vllm",
                                              "serve",
                                              "meta-llama/Llama-3.1-8B-Instruct",
                                              "--served-model-name",
                                              "chat",
                                              "--host",
                                              "0.0.0.0",
                                              "--port",
                                              "8000",
                                              "--tensor-parallel-size",
                                              "2",
                                              "--max-model-len",
                                              "4096",
                                              "--max-num-seqs",
                                              "64",
                                              "--gpu-memory-utilization",
                                              "0.90"});
    REQUIRE(notes.size() == words.size());
    CHECK(notes[0].empty());
    CHECK(notes[2] == "the checkpoint to serve");
    CHECK(notes[3].empty());
    CHECK(notes[6] == "reachable through the Service");
    CHECK(notes[10] == "the plan's tensor-parallel size");
    CHECK(notes[12] == "input + output tokens of the spec: the length the KV cache was sized for");
    CHECK(notes[14] ==
          "capacity per replica: all the sequences that fit (no latency target stops it sooner)");
  }
  SECTION("a capacity the engine's max_num_seqs sets, below what fits, says so") {
    ServingSettings s = chat_settings();
    s.engine_bound = true;
    std::vector<std::string> notes;
    serving::engine_command_line(s, small_recipe(), notes);
    CHECK(notes[14] == "capacity per replica: the engine's cap on sequences (more fit; no latency "
                       "target stops it sooner)");
  }
  SECTION("an embedding model held by its latency target: the role's words, one by one") {
    ServingSettings s = chat_settings();
    s.embedding = true;
    s.latency_bound = true;
    std::vector<std::string> notes;
    const auto words = serving::engine_command_line(s, small_recipe(), notes);
    REQUIRE(words.size() == 19);
    CHECK(words[14] == "64");
    CHECK(notes[14] == "capacity per replica: the most sequences at which the latency target holds "
                       "(docs/deploy.md)");
    CHECK(notes[12] == "tokens per sequence of the spec: longer inputs are refused");
    CHECK(words[17] == "--runner");
    CHECK(notes[17].empty());
    CHECK(words[18] == "pooling");
    CHECK(
        notes[18] ==
        "an embedding workload: the engine pools each sequence into a vector and decodes nothing");
  }
}

TEST_CASE("deploy: words for a shell, and placeholders replaced", "[deploy]") {
  CHECK(serving::shell_quote("--max-num-seqs") == "--max-num-seqs");
  CHECK(serving::shell_quote("meta-llama/Llama-3.1-8B") == "meta-llama/Llama-3.1-8B");
  CHECK(serving::shell_quote("") == "''");
  CHECK(serving::shell_quote(R"({"image":2})") == R"('{"image":2}')");
  CHECK(serving::shell_quote("it's") == R"('it'\''s')");
  CHECK(serving::replace_all("{nodes} of {nodes}", "{nodes}", "2") == "2 of 2");
  // The replacement is not searched again: no endless loop when it holds what it replaces.
  CHECK(serving::replace_all("a-a", "a", "aa") == "aa-aa");
}
