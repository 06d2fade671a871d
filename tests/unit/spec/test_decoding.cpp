// The spec's speculative decoding and prefix caching (docs/spec.md, "Speculative decoding and
// prefix caching"): what is read, and one-line errors naming the file and field (issue 46).

#include "spec_test_helpers.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace rightsize;
using rightsize::test::spec_error;

namespace {

std::string with(const std::string& fields, const std::string& engine = "vllm") {
  return R"({"model": "models/llama", "workload": {"type": "inference", "engine": ")" + engine +
         R"(", )" + fields + "}}";
}

std::string eagle(const std::string& extra) {
  return with(R"("speculative": {"method": "eagle", "draft_tokens": 3, "acceptance_rate": 0.8)" +
              extra + "}");
}

} // namespace

TEST_CASE("spec: speculative decoding and prefix caching are read", "[spec][decoding]") {
  CHECK(spec_error(eagle("")) == "no error");
  CHECK(spec_error(with(R"("prefix_cache_hit_rate": 0.5)")) == "no error");
  CHECK(spec_error(with(R"("prefix_cache_hit_rate": 0.5)", "sglang")) == "no error");
  CHECK(spec_error(eagle(R"(, "draft_model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")")) ==
        "no error");
}

TEST_CASE("spec: bad speculative decoding and prefix caching are one-line errors",
          "[spec][decoding]") {
  CHECK(spec_error(with(R"("prefix_cache_hit_rate": 1.5)")) ==
        "spec.json:/workload/prefix_cache_hit_rate: must be between 0 and 1, got 1.5");
  CHECK(spec_error(with(R"("prefix_cache_hit_rate": -0.1)")) ==
        "spec.json:/workload/prefix_cache_hit_rate: must be between 0 and 1, got -0.1");
  CHECK(spec_error(with(R"("speculative": {"method": "eagle", "draft_tokens": 3,
                                           "acceptance_rate": 0})")) ==
        "spec.json:/workload/speculative/acceptance_rate: must be > 0 and <= 1, got 0");
  CHECK(spec_error(with(R"("speculative": {"method": "eagle", "draft_tokens": 3,
                                           "acceptance_rate": 1.2})")) ==
        "spec.json:/workload/speculative/acceptance_rate: must be > 0 and <= 1, got 1.2");
  CHECK(spec_error(with(R"("speculative": {"method": "eagle", "draft_tokens": 0,
                                           "acceptance_rate": 0.8})")) ==
        "spec.json:/workload/speculative/draft_tokens: must be between 1 and 16, got 0");
  CHECK(spec_error(with(R"("speculative": {"method": "eagle", "draft_tokens": 17,
                                           "acceptance_rate": 0.8})")) ==
        "spec.json:/workload/speculative/draft_tokens: must be between 1 and 16, got 17");
  CHECK_THAT(spec_error(with(R"("speculative": {"method": "medusa", "draft_tokens": 3,
                                                "acceptance_rate": 0.8})")),
             Catch::StartsWith("spec.json:/workload/speculative/method: must be one of mtp, "
                               "eagle, draft"));
  CHECK_THAT(spec_error(with(R"("speculative": {"method": "eagle", "draft_tokens": 3})")),
             Catch::StartsWith("spec.json:/workload/speculative: speculative decoding needs "
                               "\"acceptance_rate\"") &&
                 Catch::Contains("rightsize does not assume one"));
  // Which engine runs which method: transformers has only a draft model (assisted generation).
  CHECK_THAT(spec_error(with(R"("speculative": {"method": "eagle", "draft_tokens": 3,
                                                "acceptance_rate": 0.8})",
                             "transformers")),
             Catch::StartsWith("spec.json:/workload/speculative/method: transformers does not run "
                               "eagle speculative decoding (transformers generation strategies"));
  CHECK_THAT(spec_error(with(R"("prefix_cache_hit_rate": 0.3)", "transformers")),
             Catch::StartsWith("spec.json:/workload/prefix_cache_hit_rate: transformers has no "
                               "prefix cache"));
  // MTP: the module is the checkpoint's own, and Llama has none.
  CHECK_THAT(spec_error(with(R"("speculative": {"method": "mtp", "draft_tokens": 1,
                                                "acceptance_rate": 0.85, "draft_model": "x"})")),
             Catch::StartsWith("spec.json:/workload/speculative/draft_model: has no meaning for "
                               "mtp"));
  CHECK_THAT(spec_error(with(R"("speculative": {"method": "mtp", "draft_tokens": 1,
                                                "acceptance_rate": 0.85})")),
             Catch::StartsWith("spec.json:/workload/speculative/method: llama checkpoints carry "
                               "no multi-token-prediction module"));
  CHECK(spec_error(with(R"("speculative": {"method": "draft", "draft_tokens": 4,
                                           "acceptance_rate": 0.7})")) ==
        "spec.json:/workload/speculative: method draft needs \"draft_model\": the draft model's "
        "config.json or folder, relative to the spec");
  CHECK_THAT(spec_error(with(R"("speculative": {"method": "draft", "draft_tokens": 4,
                                                "acceptance_rate": 0.7, "draft_model": "nope"})")),
             Catch::StartsWith("spec.json:/workload/speculative/draft_model:"));
  CHECK_THAT(spec_error(eagle(R"(, "draft_tokns": 2)")),
             Catch::Contains("unknown field \"draft_tokns\""));
}
