// End-to-end tests of `rightsize plan --lock` and `rightsize check` through the real binary.

#include "cli_helpers.hpp"
#include "spec_generator.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>

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

TEST_CASE("check: an unchanged spec exits 0, and the report still shows the bill", "[check][cli]") {
  LockedChat c;
  const auto r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("pass: 1 spec, no sizing change; $627.80/month"));
  CHECK_THAT(r.out, Catch::Contains("1 x L40S-48GB"));
  const auto md = run_binary("check " + c.spec + " --format markdown");
  CHECK_THAT(md.out,
             Catch::StartsWith("<!-- rightsize-check -->\n### rightsize :white_check_mark:"));
  CHECK_THAT(md.out, Catch::Contains("| $627.80 |"));
}

TEST_CASE("check: more layers push memory past the GPU and fail with the threshold named",
          "[check][cli]") {
  LockedChat c;
  c.edit_config([](nlohmann::json& j) { j["num_hidden_layers"] = 400; });
  const auto r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out,
             Catch::Contains("FAIL memory: the locked configuration, 1 x L40S-48GB (TP1 PP1 "
                             "DP1, fp8/fp8), no longer fits"));
  CHECK_THAT(r.out, Catch::Contains("spec changed"));
  // The figures then compare the new recommendation with the lock, and say so.
  CHECK_THAT(r.out, Catch::Contains("the new recommendation against the lock"));
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
  // The on-demand price of the locked pick (a pair of L40S) moves up 5%: only the catalog changed.
  const auto overlay = c.dir.write("prices.json", R"({"schema_version": 1, "extends": "bundled",
    "gpus": [{"name": "L40S-48GB", "prices": [{"provider": "RunPod", "kind": "on_demand",
      "usd_per_gpu_hour": 0.903, "as_of": "2026-11-01", "source": "CARSONPO"}]}]})");
  const auto r = run_binary("check " + c.spec + " --catalog " + overlay);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("catalog changed"));
  CHECK_THAT(r.err, Catch::Contains("rightsize: warning:") && Catch::Contains("$/hour +5.0%"));
  // Over the threshold it fails.
  const auto strict =
      run_binary("check " + c.spec + " --catalog " + overlay + " --max-cost-increase 2%");
  CHECK(strict.exit_code == 1);
  CHECK_THAT(
      strict.out,
      Catch::Contains("FAIL cost: $/hour $0.860/h -> $0.903/h (+5.0%), over the 2% threshold"));
  // --update accepts the change and says what it accepted.
  const auto update =
      run_binary("check " + c.spec + " --catalog " + overlay + " --max-cost-increase 2% --update");
  CHECK(update.exit_code == 0);
  CHECK_THAT(update.out, Catch::Contains("updated"));
  // It accepts the new prices of the same configuration (the pair of L40S, dearer by 5%, still
  // costs less over the horizon than one H100 with its replicas added as demand grows).
  CHECK_THAT(update.err,
             Catch::Contains("accepted: cost: $/hour $0.860/h -> $0.903/h (+5.0%), over the 2% "
                             "threshold"));
  CHECK_THAT(update.out, Catch::Contains("1 x L40S-48GB"));
  CHECK(run_binary("check " + c.spec + " --catalog " + overlay).exit_code == 0);
}

TEST_CASE("check: corrupt or foreign lock files are the spec's error, in a complete report",
          "[check][cli]") {
  LockedChat c;
  const std::string lock = c.dir.path() + "/rightsize.lock.json";
  std::ofstream(lock) << "{\"schema_version\": 1, \"locks\": {";
  auto r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("rightsize.lock.json:1:") && Catch::Contains("invalid JSON"));
  CHECK_THAT(r.out, Catch::Contains("1 error"));

  std::ofstream(lock) << R"({"schema_version": 3, "locks": {}})";
  r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/schema_version: unsupported lock schema version"));

  // An unreadable entry is the error of its own spec only: named alone, this spec is new;
  // checking the directory surfaces the bad entry.
  std::ofstream(lock) << R"({"schema_version": 1, "locks": {"other.json": {}}})";
  r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("1 added"));
  r = run_binary("check " + c.dir.path());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/locks/other.json/spec_digest: required field is missing"));

  // No entry, or no lock file at all: the spec is new.
  std::ofstream(lock) << R"({"schema_version": 1, "locks": {}})";
  r = run_binary("check " + c.spec);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("1 added"));
  fs::remove(lock);
  CHECK(run_binary("check " + c.spec).exit_code == 0);
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
  CHECK_THAT(r.out, Catch::Contains("pass: 2 specs, no sizing change"));
  c.edit_config([](nlohmann::json& j) { j["num_hidden_layers"] = 96; });
  r = run_binary("check " + c.dir.path() + " --format markdown");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("### rightsize :x: FAIL: 2 specs: 2 regression"));
  CHECK_THAT(r.out, Catch::Contains("| Figure | Locked | Now | Change | Threshold |"));
}

// Issue 15, "Seen" 1: a lock written with command-line settings replays them.
TEST_CASE("check: a lock made with --objective or --mode replays them", "[check][cli]") {
  LockedChat c;
  for (const char* flags : {"--objective latency", "--mode onprem"}) {
    INFO(flags);
    REQUIRE(run_binary("plan " + c.spec + " " + flags + " --lock --format csv").exit_code == 0);
    const auto r = run_binary("check " + c.spec);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("no sizing change"));
  }
  // The lock records them; a different setting on check's command line is a settings change.
  std::ifstream in(c.dir.path() + "/rightsize.lock.json");
  const auto lock = nlohmann::json::parse(in);
  CHECK(lock["schema_version"] == 2);
  CHECK(lock["locks"]["chat.json"]["settings"]["mode"] == "onprem");
  CHECK(lock["locks"]["chat.json"]["model_digest"].is_string());
  const auto r = run_binary("check " + c.spec + " --mode cloud --format json");
  const auto report = nlohmann::json::parse(r.out);
  CHECK(report["results"][0]["cause"]["settings"] == true);
  CHECK(report["results"][0]["cause"]["spec"] == false);
}

// "Seen" 2: a new spec, a broken one and a removed one each get their own outcome.
TEST_CASE("check: added, removed and broken specs do not hide the others", "[check][cli]") {
  LockedChat c;
  const std::string gone = c.dir.path() + "/gone.json";
  fs::copy_file(c.spec, gone);
  REQUIRE(run_binary("plan " + gone + " --lock --format csv").exit_code == 0);
  fs::remove(gone);
  fs::copy_file(c.spec, c.dir.path() + "/new.json");
  auto r = run_binary("check " + c.dir.path());
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("3 specs: 1 added, 1 removed"));
  CHECK(run_binary("check " + c.dir.path() + " --fail-on added").exit_code == 1);
  CHECK(run_binary("check " + c.dir.path() + " --fail-on removed").exit_code == 1);
  c.dir.write("broken.json", "{ not json");
  r = run_binary("check " + c.dir.path() + " --format markdown");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("`" + c.spec + "` | :white_check_mark: ok"));
  CHECK_THAT(r.out, Catch::Contains("broken.json` | :x: error"));
  CHECK_THAT(r.out, Catch::Contains("new.json` | :warning: added"));
  CHECK_THAT(r.out, Catch::Contains("gone.json` | :warning: removed"));
  // --update locks the new spec and drops the removed one's entry.
  fs::remove(c.dir.path() + "/broken.json");
  REQUIRE(run_binary("check " + c.dir.path() + " --update").exit_code == 0);
  std::ifstream in(c.dir.path() + "/rightsize.lock.json");
  const auto lock = nlohmann::json::parse(in);
  CHECK(lock["locks"].contains("new.json"));
  CHECK_FALSE(lock["locks"].contains("gone.json"));
}

// "Seen" 3 and 4: every crossed threshold is listed, with numbers in the JSON.
TEST_CASE("check: every crossed threshold, as numbers", "[check][cli]") {
  LockedChat c;
  std::ifstream in(c.spec);
  auto spec = nlohmann::json::parse(in);
  in.close();
  // More and longer requests under looser targets, so that the locked configuration (one L40S
  // since issue 44's bands) still meets them while its TTFT and TPOT cross their thresholds
  // (3072-token prompts, as before the refit on attention-DP and expert-TP physics, miss TPOT).
  spec["workload"]["concurrency"] = 48;
  spec["workload"]["input_tokens"] = 2560;
  spec["workload"]["targets"]["ttft_ms"] = 5000;
  spec["workload"]["targets"]["tpot_ms"] = 100;
  std::ofstream(c.spec) << spec.dump(2);
  const auto r = run_binary("check " + c.spec + " --format json");
  CHECK(r.exit_code == 1);
  const auto report = nlohmann::json::parse(r.out);
  const auto& result = report["results"][0];
  std::set<std::string> crossed;
  for (const auto& x : result["crossed"]) {
    crossed.insert(x["check"].get<std::string>() + ":" +
                   x["text"].get<std::string>().substr(0, 13));
  }
  CHECK(crossed.count("latency:latency: TTFT") == 1);
  CHECK(crossed.count("latency:latency: TPOT") == 1);
  bool seen_ttft = false;
  for (const auto& ch : result["changes"]) {
    if (ch["metric"] == "ttft_ms") {
      seen_ttft = true;
      CHECK(ch["before"].is_number());
      CHECK(ch["after"].is_number());
      CHECK(ch["delta"].get<double>() ==
            Approx(ch["after"].get<double>() - ch["before"].get<double>()));
      CHECK(ch["percent"].get<double>() ==
            Approx(100.0 * (ch["after"].get<double>() / ch["before"].get<double>() - 1.0)));
      CHECK(ch["threshold_percent"] == 20.0);
      CHECK(ch["crossed"] == true);
    }
  }
  CHECK(seen_ttft);
  CHECK(result["basis"] == "locked configuration");
  CHECK(report["summary"]["usd_per_month_now"].is_number());
}

// "Seen" 5: a price-only catalog move compares the same configuration, and says when another is
// now best.
TEST_CASE("check: a price move compares like with like", "[check][cli]") {
  LockedChat c;
  // The locked L40S pair gets dearer than one H100 PCIe: the recommendation changes, but the
  // locked configuration's latency did not move and must not fail the check.
  const auto overlay = c.dir.write("prices.json", R"({"schema_version": 1, "extends": "bundled",
    "gpus": [{"name": "L40S-48GB", "prices": [{"provider": "RunPod", "kind": "on_demand",
      "usd_per_gpu_hour": 1.20, "as_of": "2026-11-01", "source": "CARSONPO"}]}]})");
  const auto r = run_binary("check " + c.spec + " --catalog " + overlay + " --format json");
  const auto report = nlohmann::json::parse(r.out);
  const auto& result = report["results"][0];
  CHECK(result["basis"] == "locked configuration");
  CHECK(result["recommendation_changed"] == true);
  CHECK(result["cause"]["catalog"] == true);
  CHECK(result["cause"]["spec"] == false);
  for (const auto& ch : result["changes"]) {
    CHECK(ch["metric"] != "ttft_ms");
    CHECK(ch["metric"] != "tpot_ms");
  }
  for (const auto& x : result["crossed"]) {
    CHECK(x["check"] == "cost");
  }
  const auto table = run_binary("check " + c.spec + " --catalog " + overlay);
  CHECK_THAT(table.out, Catch::Contains("same configuration, new figures"));
  CHECK_THAT(table.out, Catch::Contains("now best: 1 x RTX-PRO-6000-96GB"));
}

TEST_CASE("check: thresholds from a config file, the command line over it", "[check][cli]") {
  LockedChat c;
  const auto overlay = c.dir.write("prices.json", R"({"schema_version": 1, "extends": "bundled",
    "gpus": [{"name": "L40S-48GB", "prices": [{"provider": "RunPod", "kind": "on_demand",
      "usd_per_gpu_hour": 0.903, "as_of": "2026-11-01", "source": "CARSONPO"}]}]})");
  const auto config = c.dir.write(
      "rs.json", R"({"schema_version": 1, "thresholds": {"cost": "2%"}, "fail_on": ["cost"]})");
  CHECK(run_binary("check " + c.spec + " --catalog " + overlay + " --config " + config).exit_code ==
        1);
  CHECK(run_binary("check " + c.spec + " --catalog " + overlay + " --config " + config +
                   " --max-cost-increase 10%")
            .exit_code == 0);
  const auto bad = c.dir.write("bad.json", R"({"schema_version": 1, "thresholds": {"cots": 1}})");
  const auto r = run_binary("check " + c.spec + " --config " + bad);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad.json:/thresholds") && Catch::Contains("cots"));
}

// What an audit as a new user found (each failed before the fix).
TEST_CASE("check: the audit's cases", "[check][cli]") {
  LockedChat c;
  SECTION("a spec named twice is checked once") {
    const auto r = run_binary("check " + c.dir.path() + " " + c.spec);
    CHECK_THAT(r.out, Catch::Contains("pass: 1 spec"));
  }
  SECTION("a spec named alone does not report its siblings' entries as removed") {
    const std::string other = c.dir.path() + "/other.json";
    fs::copy_file(c.spec, other);
    REQUIRE(run_binary("plan " + other + " --lock --format csv").exit_code == 0);
    fs::remove(other);
    CHECK(run_binary("check " + c.spec + " --fail-on removed").exit_code == 0);
    CHECK(run_binary("check " + c.dir.path() + " --fail-on removed").exit_code == 1);
  }
  SECTION("an empty directory is an error row, not the end of the report") {
    fs::create_directories(c.dir.path() + "/empty");
    const auto r = run_binary("check " + c.spec + " " + c.dir.path() + "/empty");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.out, Catch::Contains("1 error") && Catch::Contains("chat.json"));
  }
  SECTION("a mistyped --lock is an error, not a new spec") {
    const auto r = run_binary("check " + c.spec + " --lock " + c.dir.path() + "/typo.json");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("no such lock file"));
  }
  SECTION("a bare number above 1 is a missing %") {
    CHECK(run_binary("check " + c.spec + " --max-cost-increase 5").exit_code == 2);
    CHECK(run_binary("check " + c.spec + " --max-cost-increase 0.05").exit_code == 0);
    CHECK(run_binary("check " + c.spec + " --fail-on ''").exit_code == 2);
  }
  SECTION("one unreadable lock entry is its spec's error, and --update repairs it") {
    const std::string second = c.dir.path() + "/second.json";
    fs::copy_file(c.spec, second);
    REQUIRE(run_binary("plan " + second + " --lock --format csv").exit_code == 0);
    const std::string path = c.dir.path() + "/rightsize.lock.json";
    std::ifstream in(path);
    auto lock = nlohmann::json::parse(in);
    in.close();
    lock["locks"]["second.json"]["recommended"]["gpus"] = "one";
    std::ofstream(path) << lock.dump(2);
    auto r = run_binary("check " + c.dir.path() + " --format json");
    CHECK(r.exit_code == 2);
    const auto report = nlohmann::json::parse(r.out);
    CHECK(report["summary"]["by_status"]["ok"] == 1);
    CHECK(report["summary"]["by_status"]["error"] == 1);
    CHECK_THAT(r.err, Catch::Contains("second.json/recommended/gpus"));
    REQUIRE(run_binary("check " + c.dir.path() + " --update").exit_code == 0);
    CHECK(run_binary("check " + c.dir.path()).exit_code == 0);
  }
  SECTION("the memory headroom threshold holds on unchanged specs too") {
    const auto fast = run_binary("check " + c.spec + " --min-memory-headroom 90%");
    const auto full = run_binary("check " + c.spec + " --min-memory-headroom 90% --replan");
    CHECK(fast.exit_code == 1);
    CHECK(full.exit_code == 1);
    CHECK(fast.out == full.out);
  }
  SECTION("a GPU gone from the catalog always fails") {
    std::ifstream in(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
    auto catalog = nlohmann::json::parse(in);
    auto& gpus = catalog["gpus"];
    gpus.erase(std::remove_if(gpus.begin(),
                              gpus.end(),
                              [](const nlohmann::json& g) { return g["name"] == "L40S-48GB"; }),
               gpus.end());
    const auto file = c.dir.write("nonvl.json", catalog.dump());
    const auto r = run_binary("check " + c.spec + " --catalog " + file + " --fail-on cost");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("is no longer in the catalog"));
  }
  SECTION("a target eased: the locked configuration is judged at the batch the plan gave it") {
    // The plan sized the 2 x L40S at 17 sequences a replica (Little's law for 2 requests/s), more
    // than the 16 that 32 users give each: judged at 16 it missed the request-rate target
    // (1.99 < 2.00 requests/s), so any edit of the workload failed the check. Since issue 44's
    // transfer bands the plan locks 1 x L40S at 48 sequences: still the plan's batch, not the
    // users'.
    std::ifstream in(c.spec);
    auto spec = nlohmann::json::parse(in);
    in.close();
    spec["workload"]["targets"]["ttft_ms"] = 1400;
    std::ofstream(c.spec) << spec.dump(2);
    const auto r = run_binary("check " + c.spec + " --format json --fail-on throughput");
    CHECK(r.exit_code == 0);
    const auto report = nlohmann::json::parse(r.out);
    CHECK(report["results"][0]["status"] == "ok");
    CHECK(report["results"][0]["locked_problem"].is_null());
    CHECK(report["results"][0]["compared"]["batch"] == 48);
  }
  SECTION("more users: the locked configuration is judged at the new concurrency") {
    std::ifstream in(c.spec);
    auto spec = nlohmann::json::parse(in);
    in.close();
    spec["workload"]["concurrency"] = 64;
    std::ofstream(c.spec) << spec.dump(2);
    const auto report = nlohmann::json::parse(run_binary("check " + c.spec + " --format json").out);
    // 64 users over the lock's two replicas (2 x L40S, TP1): 32 each, where 32 users gave 16.
    CHECK(report["results"][0]["compared"]["batch"] == 32);
  }
}

// A spec whose plan inputs are all as locked is not planned again: the report must be the one a
// full re-plan gives, on many varied specs (serving, training, MIG, on-prem, infeasible).
TEST_CASE("check: skipping unchanged specs reports what --replan reports", "[check][cli]") {
  ScratchDir dir;
  const auto specs =
      rightsize::bench::generate_specs(60, 11, std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs");
  for (const auto& [name, body] : specs) {
    std::ofstream(dir.path() + "/" + name) << body.dump(2);
  }
  REQUIRE(run_binary("check " + dir.path() + " --update").exit_code == 0);
  const auto fast = run_binary("check " + dir.path() + " --format json");
  const auto full = run_binary("check " + dir.path() + " --format json --replan");
  CHECK(fast.exit_code == full.exit_code);
  CHECK(fast.out == full.out);
}

TEST_CASE("check: the output is the same whatever --jobs, and the first error in spec order wins",
          "[check][cli]") {
  ScratchDir dir;
  const auto specs =
      rightsize::bench::generate_specs(40, 5, std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs");
  for (const auto& [name, body] : specs) {
    std::ofstream(dir.path() + "/" + name) << body.dump(2);
  }
  const auto update1 = run_binary("check " + dir.path() + " --update --format json --jobs 1");
  REQUIRE(update1.exit_code == 0);
  std::ifstream in1(dir.path() + "/rightsize.lock.json");
  const std::string lock1((std::istreambuf_iterator<char>(in1)), std::istreambuf_iterator<char>());
  in1.close();
  fs::remove(dir.path() + "/rightsize.lock.json"); // the same first update, on 3 threads
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
    CHECK(a.out == b.out);
    CHECK_THAT(b.err, Catch::Contains(specs[20].first));
  }
}

// An embedding workload's lock kept its latency as ttft_ms, a TPOT and output tokens/s of 0 and
// its price per input token as usd_per_million_output_tokens: a throughput drop could not fail
// the check. Now it locks figures in its own unit, and compares them.
TEST_CASE("check: an embedding workload locks and compares latency, sequences/s and $/M input "
          "tokens",
          "[check][cli]") {
  ScratchDir dir;
  const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
  fs::create_directories(fs::path(dir.path()) / "models");
  fs::copy(examples / "models" / "bge-m3", fs::path(dir.path()) / "models" / "bge-m3");
  const std::string spec = dir.path() + "/embed.json";
  fs::copy_file(examples / "bge-m3-rag-embeddings.json", spec);
  REQUIRE(run_binary("plan " + spec + " --lock --format json").exit_code == 0);
  const std::string lock_path = dir.path() + "/rightsize.lock.json";
  const auto read_json = [](const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
  };
  const auto lock = read_json(lock_path);
  const auto& locked = lock["locks"]["embed.json"]["recommended"];
  CHECK(locked["latency_ms"].get<double>() > 0.0);
  CHECK(locked["sequences_per_s"].get<double>() >= 2000.0);
  CHECK(locked["usd_per_million_input_tokens"].get<double>() > 0.0);
  CHECK(locked["ttft_ms"].is_null());
  CHECK(locked["tpot_ms"].is_null());
  CHECK(locked["output_tokens_per_s"].is_null());
  CHECK(locked["usd_per_million_output_tokens"].is_null());
  CHECK_FALSE(locked.contains("images_per_s"));

  // The locked fleet as if it had been faster: --replan evaluates it again, and the figures in
  // the workload's own unit cross the throughput and latency thresholds.
  auto faster = lock;
  auto& fast = faster["locks"]["embed.json"]["recommended"];
  fast["sequences_per_s"] = fast["sequences_per_s"].get<double>() * 1.5;
  fast["latency_ms"] = fast["latency_ms"].get<double>() * 0.5;
  std::ofstream(lock_path) << faster.dump(2);
  const auto checked = run_binary("check " + spec + " --replan --format json");
  CHECK(checked.exit_code == 1);
  const auto result = nlohmann::json::parse(checked.out)["results"][0];
  CHECK(result["basis"] == "locked configuration");
  std::set<std::string> crossed;
  for (const auto& x : result["crossed"]) {
    const auto text = x["text"].get<std::string>();
    crossed.insert(x["check"].get<std::string>() + " | " + text.substr(0, text.find(" -> ")));
  }
  CHECK(crossed.count("throughput | throughput: sequences/s " +
                      fmt::format("{:.1f}", fast["sequences_per_s"].get<double>())) == 1);
  CHECK(std::count_if(crossed.begin(), crossed.end(), [](const std::string& x) {
          return x.rfind("latency | latency: latency ", 0) == 0;
        }) == 1);
  CHECK(crossed.size() == 2);

  // A lock written before: latency under ttft_ms, the price as output tokens', no sequences/s.
  auto old = lock;
  auto& rec = old["locks"]["embed.json"]["recommended"];
  rec["ttft_ms"] = rec["latency_ms"].get<double>() * 0.5; // and faster, to show a change
  rec["tpot_ms"] = 0.0;
  rec["output_tokens_per_s"] = 0.0;
  rec["usd_per_million_output_tokens"] = rec["usd_per_million_input_tokens"].get<double>() * 0.5;
  for (const char* k : {"latency_ms", "sequences_per_s", "usd_per_million_input_tokens"}) {
    rec.erase(k);
  }
  std::ofstream(lock_path) << old.dump(2);
  const auto r = run_binary("check " + spec + " --replan --format json");
  CHECK(r.exit_code == 1); // the latency doubled
  const auto report = nlohmann::json::parse(r.out);
  std::set<std::string> metrics;
  for (const auto& ch : report["results"][0]["changes"]) {
    metrics.insert(ch["metric"].get<std::string>());
  }
  CHECK(metrics.count("latency_ms") == 1);
  CHECK(metrics.count("usd_per_million_input_tokens") == 1);
  CHECK(metrics.count("ttft_ms") == 0);
  CHECK(metrics.count("output_tokens_per_s") == 0);
}

// The merge of image generation (which is neither an embedding nor a transcription) left its
// locks in the token fields: ttft_ms for its latency, zeros for TPOT and tokens/s, and a price
// per million latent tokens. It locks images like an image embedding workload.
TEST_CASE("check: an image generation workload locks latency, images/s and $/1k images",
          "[check][cli][images]") {
  ScratchDir dir;
  const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
  fs::create_directories(fs::path(dir.path()) / "models");
  fs::copy(examples / "models" / "sdxl-base-1.0",
           fs::path(dir.path()) / "models" / "sdxl-base-1.0",
           fs::copy_options::recursive);
  const std::string spec = dir.path() + "/sdxl.json";
  fs::copy_file(examples / "sdxl-image-generation.json", spec);
  REQUIRE(run_binary("plan " + spec + " --lock --format json").exit_code == 0);
  std::ifstream in(dir.path() + "/rightsize.lock.json");
  const auto lock = nlohmann::json::parse(in);
  const auto& locked = lock["locks"]["sdxl.json"]["recommended"];
  CHECK(locked["latency_ms"].get<double>() > 0.0);
  CHECK(locked["images_per_s"].get<double>() >= 2.0);
  CHECK(locked["usd_per_thousand_images"].get<double>() > 0.0);
  CHECK(locked["ttft_ms"].is_null());
  CHECK(locked["output_tokens_per_s"].is_null());
  CHECK(locked["usd_per_million_output_tokens"].is_null());
  CHECK(run_binary("check " + spec).exit_code == 0);
}

// A context-parallel layout (issue 14) is locked with its cp, and a lock's parallelism rejects
// members it does not know; locks without cp (every other workload's) read as cp 1.
TEST_CASE("check: a long-context training plan locks its context-parallel size",
          "[check][cli][training]") {
  ScratchDir dir;
  const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
  fs::create_directories(fs::path(dir.path()) / "models");
  fs::copy(examples / "models" / "llama-3.1-405b",
           fs::path(dir.path()) / "models" / "llama-3.1-405b",
           fs::copy_options::recursive);
  std::ifstream source(std::string(RIGHTSIZE_TESTS_DIR) +
                       "/data/specs/llama-3.1-405b-128k-training.json");
  auto body = nlohmann::json::parse(source);
  body["model"] = "models/llama-3.1-405b/config.json";
  const std::string spec = dir.path() + "/long.json";
  std::ofstream(spec) << body.dump(2);
  const auto plan = run_binary("plan " + spec + " --lock --format json");
  REQUIRE(plan.exit_code == 0);
  const auto report = nlohmann::json::parse(plan.out);
  const auto& best = report["candidates"][0];
  CHECK(best["parallelism"]["cp"].get<int>() > 1);
  const std::string lock_path = dir.path() + "/rightsize.lock.json";
  std::ifstream in(lock_path);
  auto lock = nlohmann::json::parse(in);
  in.close();
  const auto& locked = lock["locks"]["long.json"]["recommended"];
  CHECK(locked["parallelism"]["cp"] == best["parallelism"]["cp"]);
  CHECK(locked["gpus"] == best["gpus"]);
  CHECK(run_binary("check " + spec).exit_code == 0);

  lock["locks"]["long.json"]["recommended"]["parallelism"]["sp"] = 2;
  std::ofstream(lock_path) << lock.dump(2);
  const auto bad = run_binary("check " + spec);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.out + bad.err, Catch::Contains("sp"));
}

TEST_CASE("check: a disaggregated recommendation is locked with its split and re-evaluated",
          "[check][cli][disaggregation]") {
  ScratchDir dir;
  const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
  fs::create_directories(fs::path(dir.path()) / "models");
  fs::copy(examples / "models" / "deepseek-v3", fs::path(dir.path()) / "models" / "deepseek-v3");
  const std::string spec = dir.path() + "/long.json";
  fs::copy_file(examples / "deepseek-v3-long-prompts.json", spec);
  REQUIRE(run_binary("plan " + spec + " --lock --format csv").exit_code == 0);
  const std::string lock_path = dir.path() + "/rightsize.lock.json";
  nlohmann::json lock = nlohmann::json::parse(std::ifstream(lock_path));
  const auto& entry = lock["locks"].begin().value();
  const auto& recommended = entry["recommended"];
  REQUIRE(recommended.contains("prefill_replicas"));
  CHECK(recommended["prefill_replicas"].get<int>() < recommended["replicas"].get<int>());

  const auto same = run_binary("check " + spec);
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.out, Catch::Contains("no sizing change"));

  // deploy writes the recommendation as llm-d's DisaggregatedSet, from the fresh plan and from the
  // lock alike; an engine without an llm-d recipe gets the best aggregated configuration and a
  // warning naming what plan ranks first.
  const auto fresh = run_binary("deploy " + spec + " --model-uri deepseek-ai/DeepSeek-V3 -o " +
                                dir.path() + "/fresh");
  INFO(fresh.err);
  CHECK(fresh.exit_code == 0);
  CHECK(fs::exists(dir.path() + "/fresh/disaggregatedset-deepseek-v3-long-prompts.yaml"));
  const auto deploy =
      run_binary("deploy " + spec + " --lock --model-uri deepseek-ai/DeepSeek-V3 -o " + dir.path() +
                 "/manifests");
  CHECK(deploy.exit_code == 0);
  CHECK(fs::exists(dir.path() + "/manifests/disaggregatedset-deepseek-v3-long-prompts.yaml"));
  const auto trtllm =
      run_binary("deploy " + spec + " --engine tensorrt-llm --model-uri deepseek-ai/DeepSeek-V3");
  CHECK(trtllm.exit_code == 0);
  CHECK_THAT(trtllm.err, Catch::Contains("ranks a disaggregated configuration first"));
  CHECK_THAT(trtllm.out, Catch::Contains("kind: Deployment"));

  // An aggregated lock of the same GPU (7 x TP8, as plan ranked it before disaggregation) is
  // looked up among aggregated configurations and deployed as before.
  nlohmann::json aggregated_lock = lock;
  auto& agg = aggregated_lock["locks"].begin().value()["recommended"];
  agg.erase("prefill_replicas");
  agg["replicas"] = 7;
  agg["gpus"] = 56;
  std::ofstream(dir.path() + "/aggregated.lock.json") << aggregated_lock.dump(2);
  const auto aggregated = run_binary("deploy " + spec + " --lock " + dir.path() +
                                     "/aggregated.lock.json --model-uri deepseek-ai/DeepSeek-V3");
  INFO(aggregated.err);
  CHECK(aggregated.exit_code == 0);
  CHECK_THAT(aggregated.out, Catch::Contains("as 7 replicas of 8 x B200-SXM-180GB"));

  // A locked split the plan no longer sizes is refused, naming the lock; nothing is written.
  nlohmann::json resized = lock;
  resized["locks"].begin().value()["recommended"]["prefill_replicas"] =
      recommended["prefill_replicas"].get<int>() + 1;
  std::ofstream(dir.path() + "/resized.lock.json") << resized.dump(2);
  const auto stale = run_binary("deploy " + spec + " --lock " + dir.path() +
                                "/resized.lock.json --model-uri deepseek-ai/DeepSeek-V3 -o " +
                                dir.path() + "/stale");
  CHECK(stale.exit_code == 2);
  CHECK_THAT(stale.err, Catch::Contains("resized.lock.json"));
  CHECK_THAT(stale.err, Catch::Contains("sized differently"));
  CHECK_THAT(stale.err, Catch::Contains("rightsize check --replan --update"));
  CHECK_FALSE(fs::exists(dir.path() + "/stale"));

  // A split with no decode replica left is the lock's error.
  lock["locks"].begin().value()["recommended"]["prefill_replicas"] =
      recommended["replicas"].get<int>();
  std::ofstream(lock_path) << lock.dump(2);
  const auto broken = run_binary("check " + spec);
  CHECK(broken.exit_code == 2);
  CHECK_THAT(broken.out + broken.err, Catch::Contains("prefill_replicas"));
}

// A spec whose latency targets are all percentiles (here under gamma arrivals, where a mean
// target becomes one too) is re-evaluated with the replicas month by month the plan costed it
// with: check --replan on the unchanged spec reported "TCO -32.7%" when the re-evaluation's
// growth held no latency target at all.
TEST_CASE("check: an unchanged percentile spec re-evaluates to the TCO it was locked with",
          "[check][cli]") {
  ScratchDir dir;
  const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
  fs::create_directories(fs::path(dir.path()) / "models");
  fs::copy(examples / "models" / "llama-3.1-70b",
           fs::path(dir.path()) / "models" / "llama-3.1-70b");
  std::ifstream in(examples / "llama-3.1-70b-sla-p99.json");
  nlohmann::json spec = nlohmann::json::parse(in);
  spec["workload"]["arrivals"] = {{"process", "gamma"}, {"burstiness", 0.5}};
  const std::string path = dir.path() + "/gamma.json";
  std::ofstream(path) << spec.dump(2);
  REQUIRE(run_binary("check " + path + " --update").exit_code == 0);
  const auto r = run_binary("check " + path + " --replan --format json");
  REQUIRE(r.exit_code == 0);
  const auto result = nlohmann::json::parse(r.out)["results"][0];
  CHECK(result["changes"].empty());
  CHECK(result["compared"]["tco_usd"].get<double>() ==
        Approx(result["locked"]["tco_usd"].get<double>()));
}

// --update writes a new spec's configuration: the report says it is locked, not that it would be.
TEST_CASE("check: --update says what it locked for a new spec", "[check][cli]") {
  ScratchDir dir;
  const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
  fs::create_directories(fs::path(dir.path()) / "models");
  fs::copy(examples / "models" / "llama-3.1-8b", fs::path(dir.path()) / "models" / "llama-3.1-8b");
  const std::string spec = dir.path() + "/chat.json";
  fs::copy_file(examples / "llama-3.1-8b-chat.json", spec);
  const auto dry = run_binary("check " + spec);
  CHECK(dry.out.find("would lock: ") != std::string::npos);
  const auto r = run_binary("check " + spec + " --update");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("  locked: ") != std::string::npos);
  CHECK(r.out.find("would lock") == std::string::npos);
}
