// End-to-end tests of `rightsize plan --lock` and `rightsize check` through the real binary.

#include "cli_helpers.hpp"
#include "spec_generator.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

namespace fs = std::filesystem;
using rightsize::test::run_binary;
using rightsize::test::ScratchDir;

namespace {

// A scratch copy of the 8B chat example with its model config, locked.
struct LockedChat {
  ScratchDir dir;
  std::string spec;
  std::string config;
  LockedChat() {
    const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
    fs::create_directories(fs::path(dir.path()) / "models");
    fs::copy(examples / "models" / "llama-3.1-8b",
             fs::path(dir.path()) / "models" / "llama-3.1-8b");
    spec = dir.path() + "/chat.json";
    fs::copy_file(examples / "llama-3.1-8b-chat.json", spec);
    config = dir.path() + "/models/llama-3.1-8b/config.json";
    const auto r = run_binary("plan " + spec + " --lock --format json");
    REQUIRE(r.exit_code == 0);
    REQUIRE(fs::exists(dir.path() + "/rightsize.lock.json"));
  }
  void edit_config(const std::function<void(nlohmann::json&)>& edit) const {
    std::ifstream in(config);
    auto j = nlohmann::json::parse(in);
    in.close();
    edit(j);
    std::ofstream(config) << j.dump(2);
  }
};

} // namespace

TEST_CASE("check: an unchanged spec exits 0", "[check][cli]") {
  LockedChat c;
  const auto r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("no sizing change in 1 spec"));
  CHECK_THAT(r.out, Catch::Contains("nothing changed"));
}

TEST_CASE("check: more layers push memory past the GPU and fail with the threshold named",
          "[check][cli]") {
  LockedChat c;
  c.edit_config([](nlohmann::json& j) { j["num_hidden_layers"] = 200; });
  const auto r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 1);
  CHECK_THAT(
      r.out,
      Catch::Contains("FAIL memory: the locked configuration (1 x H100-NVL-94GB) no longer fits"));
  CHECK_THAT(r.out, Catch::Contains("spec changed"));
  // JSON lists every crossed threshold.
  const auto report = nlohmann::json::parse(run_binary("check " + c.spec + " --format json").out);
  CHECK(report["exit_code"] == 1);
  CHECK(report["results"][0]["crossed"].size() >= 2);
  // When nothing fits at all: exit 3.
  c.edit_config([](nlohmann::json& j) { j["num_hidden_layers"] = 4000; });
  CHECK(run_binary("check " + c.spec).exit_code == 3);
}

TEST_CASE("check: a cost increase under the threshold passes with a warning, labelled as a "
          "catalog change",
          "[check][cli]") {
  LockedChat c;
  // On-demand prices of the pick (H100 NVL) and the runner-up (L40S, within 1%) move up 5%:
  // only the catalog changed.
  const auto overlay = c.dir.write("prices.json", R"({"schema_version": 1, "extends": "bundled",
    "gpus": [{"name": "H100-NVL-94GB", "prices": [{"provider": "RunPod", "kind": "on_demand",
      "usd_per_gpu_hour": 2.9295, "as_of": "2026-11-01", "source": "CARSONPO"}]},
             {"name": "L40S", "prices": [{"provider": "RunPod", "kind": "on_demand",
      "usd_per_gpu_hour": 0.903, "as_of": "2026-11-01", "source": "CARSONPO"}]}]})");
  const auto r = run_binary("check " + c.spec + " --catalog " + overlay);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("catalog changed (prices or GPU data moved), spec unchanged"));
  CHECK_THAT(r.err, Catch::Contains("rightsize: warning:") && Catch::Contains("cost rose +5.0%"));
  // Over the threshold it fails.
  const auto strict =
      run_binary("check " + c.spec + " --catalog " + overlay + " --max-cost-increase 2%");
  CHECK(strict.exit_code == 1);
  CHECK_THAT(strict.out, Catch::Contains("FAIL cost: $/hour +5.0% exceeds the 2% threshold"));
  // --update accepts the change.
  CHECK(run_binary("check " + c.spec + " --catalog " + overlay + " --update").exit_code == 0);
  CHECK(run_binary("check " + c.spec + " --catalog " + overlay).exit_code == 0);
}

TEST_CASE("check: corrupt, missing or mismatched lock files are exit 2", "[check][cli]") {
  LockedChat c;
  const std::string lock = c.dir.path() + "/rightsize.lock.json";
  std::ofstream(lock) << "{\"schema_version\": 1, \"locks\": {";
  auto r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("rightsize.lock.json:1:") && Catch::Contains("invalid JSON"));

  std::ofstream(lock) << R"({"schema_version": 2, "locks": {}})";
  r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/schema_version: unsupported lock schema version"));

  std::ofstream(lock) << R"({"schema_version": 1, "locks": {"other.json": {}}})";
  r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/locks/other.json/spec_digest: required field is missing"));

  std::ofstream(lock) << R"({"schema_version": 1, "locks": {}})";
  r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("has no lock for chat.json; create it with 'rightsize plan"));

  fs::remove(lock);
  r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("lock file not found"));
  CHECK(run_binary("check " + c.spec + " --max-cost-increase lots").exit_code == 2);
  CHECK(run_binary("check " + c.spec + " --fail-on cost,latncy").exit_code == 2);
}

TEST_CASE("check: many specs at once, the worst exit code", "[check][cli]") {
  LockedChat c;
  const std::string second = c.dir.path() + "/second.json";
  fs::copy_file(c.spec, second);
  REQUIRE(run_binary("plan " + second + " --lock --format csv").exit_code == 0);
  auto r = run_binary("check " + c.dir.path());
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("no sizing change in 2 specs"));
  c.edit_config([](nlohmann::json& j) { j["num_hidden_layers"] = 96; });
  r = run_binary("check " + c.dir.path() + " --format markdown");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::StartsWith("### rightsize: :x: sizing regression in 2 of 2 specs"));
  CHECK_THAT(r.out, Catch::Contains("| Figure | Locked | Now | Change |"));
}

TEST_CASE("check: the output is the same whatever --jobs, and the first error in spec order wins",
          "[check][cli]") {
  ScratchDir dir;
  const auto specs = rightsize::bench::generate_specs(
      40, 5, std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs");
  for (const auto& [name, body] : specs) {
    std::ofstream(dir.path() + "/" + name) << body.dump(2);
  }
  const auto update1 = run_binary("check " + dir.path() + " --update --format json --jobs 1");
  REQUIRE(update1.exit_code == 0);
  std::ifstream in1(dir.path() + "/rightsize.lock.json");
  const std::string lock1((std::istreambuf_iterator<char>(in1)), std::istreambuf_iterator<char>());
  const auto update3 = run_binary("check " + dir.path() + " --update --format json --jobs 3");
  REQUIRE(update3.exit_code == 0);
  std::ifstream in3(dir.path() + "/rightsize.lock.json");
  const std::string lock3((std::istreambuf_iterator<char>(in3)), std::istreambuf_iterator<char>());
  CHECK(lock1 == lock3);
  CHECK(update1.out == update3.out);
  const auto check1 = run_binary("check " + dir.path() + " --format json --jobs 1");
  const auto check3 = run_binary("check " + dir.path() + " --format json --jobs 3");
  CHECK(check1.exit_code == check3.exit_code);
  CHECK(check1.out == check3.out);
  CHECK(check1.err == check3.err);
  SECTION("a broken spec midway: the same one-line error as one at a time") {
    std::ofstream(dir.path() + "/" + specs[20].first) << "{ not json";
    std::ofstream(dir.path() + "/" + specs[30].first) << "{\"schema_version\": 1}";
    const auto a = run_binary("check " + dir.path() + " --jobs 1");
    const auto b = run_binary("check " + dir.path() + " --jobs 4");
    CHECK(a.exit_code == 2);
    CHECK(b.exit_code == 2);
    CHECK(a.err == b.err);
    CHECK_THAT(b.err, Catch::Contains(specs[20].first));
  }
}
