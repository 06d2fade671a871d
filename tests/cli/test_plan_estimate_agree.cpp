// One evaluation path: every candidate `rightsize plan` ranks, evaluated again with `rightsize
// estimate` with the candidate's check-it command (GPU, layout, replicas, precision and the batch
// asked of a replica), gives the
// same memory, speed, target verdicts and price. Both run through the real binary, as a user
// would run them.

#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using rightsize::test::run_binary;
using rightsize::test::ScratchDir;

namespace {

const char* const k_env = "RIGHTSIZE_TODAY=2026-11-21 RIGHTSIZE_CATALOG=";

// The bundled example specs (not the catalog overlay beside them), sorted.
std::vector<std::string> example_specs() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(RIGHTSIZE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".json") {
      continue;
    }
    std::ifstream in(entry.path());
    const auto j = nlohmann::json::parse(in);
    if (j.contains("workload")) {
      out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The user trial's case (issue 12): a mixture of experts that plans at fp8 with a shared batch.
std::string qwen3_moe_spec(const ScratchDir& dir) {
  return dir.write("qwen3-30b-a3b.json",
                   R"({"name": "qwen3-moe", "model": ")" +
                       rightsize::test::config_path("qwen3-30b-a3b") + R"(",
 "precision": {"weights": "bf16", "kv_cache": "bf16", "allow": ["fp8"]},
 "workload": {"type": "inference", "input_tokens": 8192, "output_tokens": 1024, "concurrency": 64,
              "targets": {"ttft_ms": 3000, "tpot_ms": 50}}})");
}

// The estimate command line that reproduces one plan candidate: the plan's own check-it command
// (its "estimate_command"), as a user would paste it. Serving passes the sequences asked of each
// replica as --batch (estimate works out what the replica runs of them); training its micro-batch.
std::string estimate_args(const nlohmann::json& c) {
  const std::string command = c.at("estimate_command").get<std::string>();
  const std::string prefix = "rightsize ";
  REQUIRE(command.rfind(prefix, 0) == 0);
  return command.substr(prefix.size()) + " --format json";
}

bool same(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>();
    const double y = b.get<double>();
    return x == y || std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
  }
  return a == b;
}

void check_agrees(const std::string& spec, const nlohmann::json& c, const nlohmann::json& e) {
  const auto& memory = c.at("memory").at("per_gpu");
  for (const auto& term : memory.items()) {
    INFO("memory." << term.key());
    CHECK(same(e.at("memory").at("per_gpu").at(term.key()), term.value()));
  }
  CHECK(e.at("fits") == true);
  CHECK(e.at("gpus") == c.at("gpus"));
  const char* const section = c.contains("inference") ? "inference" : "training";
  for (const auto& field : c.at(section).items()) {
    INFO(section << "." << field.key());
    CHECK(same(e.at(section).at(field.key()), field.value()));
  }
  // Plan ranks only what meets every target at the band's edge; estimate judges the same way.
  for (const auto& t : e.at("targets")) {
    INFO(spec << ": target " << t.dump());
    CHECK(t.at("met") == true);
  }
  if (!e.at("cost").is_null()) {
    CHECK(same(e.at("cost").at("usd_per_hour"), c.at("cost").at("usd_per_hour")));
    CHECK(e.at("cost").at("price") == c.at("cost").at("price"));
  }
}

} // namespace

TEST_CASE("plan and estimate: every candidate estimates to what the plan reported",
          "[plan][estimate][cli]") {
  ScratchDir dir;
  std::vector<std::string> specs = example_specs();
  specs.push_back(qwen3_moe_spec(dir));
  int planned = 0;
  for (const auto& spec : specs) {
    INFO(spec);
    const auto plan = run_binary("plan " + spec + " --format json", k_env);
    if (plan.exit_code == 3) {
      continue; // nothing feasible: no candidate to reproduce
    }
    INFO(plan.err);
    REQUIRE(plan.exit_code == 0);
    ++planned;
    const auto candidates = nlohmann::json::parse(plan.out).at("candidates");
    CHECK(!candidates.empty());
    for (const auto& c : candidates) {
      if (!c.at("partition").is_null()) {
        continue; // estimate evaluates whole GPUs; MIG slices are plan's (docs/plan.md)
      }
      const std::string args = estimate_args(c);
      INFO(args);
      const auto e = run_binary(args, k_env);
      INFO(e.err);
      REQUIRE(e.exit_code == 0);
      check_agrees(spec, c, nlohmann::json::parse(e.out));
    }
  }
  CHECK(planned == static_cast<int>(specs.size()) - 1); // all but infeasible-latency.json
}
