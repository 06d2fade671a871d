// What `validate` and `plan` refuse of a spec, the same way (issue 43, defect 7): `validate` said
// "valid" for constraints.gpus ["H1000"] that plan refused; and a plan with nothing feasible
// because the only GPUs allowed have no price says so, with the fixes, instead of "nothing
// feasible" alone.

#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
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

TEST_CASE("validate: GPU names, the provider and the growth are checked as plan does",
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
      {R"(, "deployment": {"horizon_months": 120, "growth_per_month": 1.0})",
       R"(/deployment/growth_per_month: demand would grow 6.65e+35-fold over 120 months)"},
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

TEST_CASE("plan: AMD in the cloud plans on MI300X and MI325X rentals, and says why not MI35x",
          "[cli][plan]") {
  // Issue 47: `vendors: ["amd"]` in the cloud was "nothing feasible", no AMD part had a price.
  const ScratchDir dir;
  const std::string spec = dir.write(
      "spec.json",
      spec_with(R"(, "deployment": {"mode": "cloud"}, "constraints": {"vendors": ["AMD"]})"));
  const auto r = run_in_process({"plan", spec, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto plan = nlohmann::json::parse(r.out);
  std::set<std::string> ranked;
  for (const auto& c : plan.at("candidates")) {
    ranked.insert(c.at("gpu").get<std::string>());
  }
  CHECK(ranked == std::set<std::string>{"MI300X-192GB", "MI325X-256GB"});
  std::map<std::string, std::string> rejected;
  for (const auto& x : plan.at("rejected")) {
    rejected[x.at("gpu").get<std::string>()] = x.at("reason").get<std::string>();
  }
  CHECK_THAT(rejected.at("MI355X-288GB"), Catch::StartsWith("not rentable: no public on-demand"));
  CHECK_THAT(rejected.at("MI350X-288GB"), Catch::StartsWith("not rentable: no public on-demand"));
  // A vendor no catalog GPU has is a typo with the list, not "nothing feasible".
  const std::string typo =
      dir.write("typo.json", spec_with(R"(, "constraints": {"vendors": ["nvida"]})"));
  const auto t = run_in_process({"plan", typo});
  CHECK(t.exit_code == 2);
  CHECK(t.err == "rightsize: error: " + typo +
                     ":/constraints/vendors/0: no GPU of the catalog is made by \"nvida\" (did "
                     "you mean \"nvidia\"?); its vendors are nvidia, amd, intel, google, aws\n");
}

TEST_CASE("deploy: a TPU or Neuron recommendation is refused, not written as a CUDA manifest",
          "[cli][deploy]") {
  // The review of issue 47: deploy wrote a vLLM Deployment for TPU v6e and Inferentia2 with
  // --image, though neither's flags nor topology are modelled.
  const ScratchDir dir;
  for (const std::string vendor : {"google", "aws"}) {
    const std::string spec =
        dir.write(vendor + ".json",
                  spec_with(R"(, "precision": {"weights": "bf16", "kv_cache": "bf16"},
                   "deployment": {"mode": "cloud"}, "constraints": {"vendors": [")" +
                            vendor + R"("]})"));
    const auto r = run_in_process({"deploy", spec, "--model-uri", "org/model", "--image", "x:1"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("for which deploy writes no manifests yet"));
  }
}

TEST_CASE("plan: nothing feasible for want of cloud prices says so and how to fix it",
          "[cli][plan]") {
  const ScratchDir dir;
  const std::string spec = dir.write(
      "spec.json",
      spec_with(R"(, "deployment": {"mode": "cloud"}, "constraints": {"vendors": ["intel"]})"));
  const auto r = run_in_process({"plan", spec});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err ==
        "rightsize: error: nothing feasible: " + spec +
            ": Gaudi3-128GB and Gaudi2-96GB, the only GPUs the spec allows, were "
            "excluded for lack of a price in the cloud mode (no on_demand price: each "
            "GPU's rejection says why); plan on-prem with --mode onprem (priced by purchase), or "
            "give their cloud prices in a catalog overlay (--catalog FILE, "
            "docs/catalog.md)\n");
  // The table wraps it at 80 columns, and gives each GPU's reason.
  CHECK(r.out.find("\nnothing feasible: Gaudi3-128GB and Gaudi2-96GB, the only GPUs the spec") !=
        std::string::npos);
  CHECK(r.out.find("  Gaudi3-128GB, Gaudi2-96GB: not rentable at a public price (rightsize") !=
        std::string::npos);
  CHECK(r.out.find("  were excluded for lack of a price in the cloud mode") != std::string::npos);
  const auto json = run_in_process({"plan", spec, "--format", "json"});
  CHECK(json.exit_code == 3);
  CHECK(json.out.find(R"("infeasible_because": "Gaudi3-128GB and Gaudi2-96GB)") !=
        std::string::npos);
  // On-prem prices Gaudi 3 by purchase: the same spec is feasible there.
  CHECK(run_in_process({"plan", spec, "--mode", "onprem"}).exit_code == 0);
}

TEST_CASE("plan: nothing feasible for other reasons keeps the closest misses", "[cli][plan]") {
  const auto r =
      run_in_process({"plan", std::string(RIGHTSIZE_EXAMPLES_DIR) + "/infeasible-latency.json"});
  CHECK(r.exit_code == 3);
  CHECK(r.out.find("nothing feasible: no GPU configuration meets the spec; closest misses:") !=
        std::string::npos);
  CHECK(r.out.find("excluded for lack of a price") == std::string::npos);
}
