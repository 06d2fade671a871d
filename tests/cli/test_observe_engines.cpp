// observe does not size a serving engine on what the engine holds (issue 43, defect 6): vLLM
// preallocates its memory fraction of each GPU and keeps a kernel running whenever it holds a
// request, so memory.used is not its need and gpu_utilization near 100% is not saturation.
// The README's cluster scrape once called the vLLM 70B pod under-provisioned (2x B200, +$3,723 a
// month) on a "need" of 176.8 GiB (vLLM's 90% x 1.2) and a 98% gpu_utilization.

#include "cli_helpers.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using rightsize::test::run_binary;

TEST_CASE("observe: a vLLM pod is judged on engine metrics, never upsized on its own "
          "preallocation",
          "[observe][cli]") {
  const std::string prom = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/observe/cluster.prom";
  // The window is short; let it through to reach the judgement itself.
  const auto r =
      run_binary("observe --dcgm " + prom + " --min-window 1s --min-samples 1 --format json",
                 "RIGHTSIZE_TODAY=2026-11-21 RIGHTSIZE_CATALOG=");
  REQUIRE(r.exit_code == 0);
  const auto report = nlohmann::json::parse(r.out);
  bool seen = false;
  for (const auto& w : report.at("workloads")) {
    const std::string name = w.at("name");
    if (name.find("vllm") == std::string::npos) {
      CHECK(w.at("verdict") != "inconclusive"); // the others are judged as before
      continue;
    }
    seen = true;
    CHECK(w.at("verdict") == "inconclusive");
    CHECK(w.at("memory_needed_gib").is_null());
    bool busy = false;
    for (const auto& reason : w.at("reasons")) {
      CHECK(reason.at("code") != "compute_saturated");
      CHECK(reason.at("code") != "memory_pressure");
      busy = busy || reason.at("code") == "engine_busy";
    }
    CHECK(busy);
    const auto& rec = w.at("recommendation");
    CHECK(rec.at("gpu") == "H100-SXM-80GB");
    CHECK(rec.at("gpus") == 2);
    CHECK(rec.at("usd_per_month_saved") == 0.0);
  }
  CHECK(seen);
}
