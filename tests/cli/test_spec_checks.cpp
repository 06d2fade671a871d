// What `validate` and `plan` refuse of a spec, the same way (issue 43, defect 7): `validate` said
// "valid" for constraints.gpus ["H1000"] that plan refused.

#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using rightsize::test::run_binary;
using rightsize::test::run_in_process;
using rightsize::test::ScratchDir;

namespace {

const std::string k_model =
    std::string(RIGHTSIZE_EXAMPLES_DIR) + "/models/llama-3.1-8b/config.json";

std::string spec_with(const std::string& extra) {
  return R"({"schema_version": 1, "name": "t", "model": ")" + k_model +
         R"(", "workload": {"type": "inference", "input_tokens": 512, "output_tokens": 128, )"
         R"("concurrency": 4})" +
         extra + "}";
}

} // namespace

TEST_CASE("validate: GPU names and the provider are resolved in the catalog as plan does",
          "[cli][validate]") {
  const ScratchDir dir;
  struct Case {
    std::string extra;
    std::string error; // what both say after "rightsize: error: <spec>:"
  };
  const std::vector<Case> cases{
      {R"(, "constraints": {"gpus": ["H1000"]})",
       R"(/constraints/gpus: unknown GPU "H1000" (did you mean "H100"?); see 'rightsize )"
       R"(catalog list')"},
      {R"(, "constraints": {"gpus": ["L4", "MI3"]})",
       R"(/constraints/gpus: GPU name "MI3" is ambiguous: it could be )"},
      {R"(, "deployment": {"mode": "cloud", "provider": "awz"})",
       R"(/deployment/provider: unknown provider "awz" (did you mean "AWS"?))"},
  };
  for (const Case& c : cases) {
    const std::string spec = dir.write("spec.json", spec_with(c.extra));
    INFO(c.extra);
    const auto validated = run_in_process({"validate", spec});
    const auto planned = run_in_process({"plan", spec});
    CHECK(validated.exit_code == 2);
    CHECK(validated.out.empty());
    CHECK(validated.err.rfind("rightsize: error: " + spec + ":" + c.error, 0) == 0);
    CHECK(validated.err == planned.err);
  }
}

TEST_CASE("validate: a spec whose GPUs are in the catalog or an overlay is valid",
          "[cli][validate]") {
  const ScratchDir dir;
  const std::string spec = dir.write(
      "spec.json", spec_with(R"(, "constraints": {"gpus": ["h100-sxm-80gb", "MY-GPU"]})"));
  const auto without = run_in_process({"validate", spec});
  CHECK(without.exit_code == 2);
  CHECK(without.err.find("unknown GPU \"MY-GPU\"") != std::string::npos);
  const std::string overlay =
      dir.write("overlay.json",
                R"({"schema_version": 1, "extends": "bundled", )"
                R"("gpus": [{"name": "H100-SXM-80GB", "aliases": ["H100", "MY-GPU"]}]})");
  const auto with = run_binary("validate " + spec + " --catalog " + overlay);
  INFO(with.err);
  CHECK(with.exit_code == 0);
  CHECK(with.out.find(": valid (") != std::string::npos);
}
