// estimate refuses, with one line and exit 2, what plan rejects: a format the engine does not run
// on the GPU's generation (issue 43, defect 5) and a layout the training framework cannot run
// (defect 4). A bf16 request on a GPU without bf16 is evaluated in fp16, with a warning.

#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

using rightsize::test::run_in_process;

namespace {

rightsize::test::CliResult estimate(std::vector<std::string> args) {
  ::setenv("RIGHTSIZE_TODAY", "2026-11-21", 1);
  ::unsetenv("RIGHTSIZE_CATALOG");
  args.insert(args.begin(), "estimate");
  return run_in_process(args);
}

bool one_line(const std::string& s) {
  return !s.empty() && s.find('\n') == s.size() - 1;
}

} // namespace

TEST_CASE("estimate: fp8 KV cache on a T4 under vLLM is refused with plan's reason",
          "[estimate][cli][formats]") {
  const auto r = estimate({std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json",
                           "--gpu",
                           "T4",
                           "--weights",
                           "fp8",
                           "--kv-cache",
                           "fp8"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(one_line(r.err));
  CHECK_THAT(r.err,
             Catch::StartsWith("rightsize: error: --gpu: T4-16GB: vllm has no fp8 KV cache on "
                               "sm75 (Turing)"));
}

TEST_CASE("estimate: bf16 on a T4 is evaluated in fp16", "[estimate][cli][formats]") {
  const auto r = estimate({std::string(RIGHTSIZE_EXAMPLES_DIR) +
                               "/flan-t5-large-summarization.json",
                           "--gpu",
                           "T4",
                           "--weights",
                           "bf16"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("weights fp16, KV cache fp16"));
  CHECK_THAT(r.err, Catch::Contains("T4-16GB (sm75) has no bf16") &&
                        Catch::Contains("T5 is known to overflow"));
}

TEST_CASE("estimate: a pipeline on transformers is refused naming the framework",
          "[estimate][cli][frameworks]") {
  const rightsize::test::ScratchDir dir;
  const std::string spec = dir.write(
      "ft.json",
      R"({"schema_version":1,"name":"ft","model":")" + rightsize::test::config_path("llama-3.1-8b") +
          R"(","workload":{"type":"finetune","method":"full","framework":"transformers",)"
          R"("zero_stage":3,"seq_len":4096,"global_batch":64,"tokens":1e9},)"
          R"("deployment":{"mode":"cloud"}})");
  const auto r = estimate({spec, "--gpu", "H100-PCIE", "--tp", "1", "--pp", "4", "--dp", "2"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(one_line(r.err));
  CHECK_THAT(r.err,
             Catch::StartsWith("rightsize: error: --pp: framework transformers has no pipeline "
                               "parallelism"));
}
