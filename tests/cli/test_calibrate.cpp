// rightsize calibrate through the real binary (docs/calibrate.md): a calibration file made,
// added to and used; what a bad run or a changed spec leaves of it; check telling a calibration
// change apart. The bad-input classes are rows of test_bad_input.cpp.

#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using rightsize::test::run_binary;
using rightsize::test::ScratchDir;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string k_examples = RIGHTSIZE_EXAMPLES_DIR;

// The worked example's spec and runs (examples/calibrate/README.md), copied into `dir` with the
// model they name, so that the test can change them.
void copy_example(const ScratchDir& dir) {
  fs::copy(k_examples + "/calibrate", dir.path() + "/calibrate");
  fs::create_directories(dir.path() + "/models");
  fs::copy(k_examples + "/models/llama-3.1-70b", dir.path() + "/models/llama-3.1-70b");
}

std::string calibrate_args(const ScratchDir& dir, const std::string& runs) {
  std::string args =
      "calibrate " + dir.path() + "/calibrate/llama-3.1-70b-fp8.json --gpu H200 --tp 4";
  for (std::size_t at = 0, next; at < runs.size(); at = next + 1) {
    next = runs.find(' ', at);
    next = next == std::string::npos ? runs.size() : next;
    args += " " + dir.path() + "/calibrate/vllm-" + runs.substr(at, next - at) + ".json";
  }
  return args + " -o " + dir.path() + "/cal.json";
}

} // namespace

TEST_CASE("calibrate: a file is made, added to, and a run of the same configuration replaces the "
          "older",
          "[calibrate][cli]") {
  ScratchDir dir;
  copy_example(dir);
  auto r = run_binary(calibrate_args(dir, "c4 c64"));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Calibration: 2 runs (2 added) -> "));
  auto cal = nlohmann::json::parse(read_text(dir.path() + "/cal.json"));
  CHECK(cal["runs"].size() == 2);
  CHECK(cal["runs"][0]["spec"]["file"] == "calibrate/llama-3.1-70b-fp8.json");
  CHECK(cal["factors"][0]["family"] == "hopper");
  CHECK(cal["factors"][0]["runs"] == 2);

  r = run_binary(calibrate_args(dir, "c16"));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Calibration: 3 runs (1 added, 2 kept from the file)"));
  r = run_binary(calibrate_args(dir, "c16"));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Calibration: 3 runs (1 added, 1 replaced, 2 kept"));
  cal = nlohmann::json::parse(read_text(dir.path() + "/cal.json"));
  CHECK(cal["runs"].size() == 3);
  CHECK(cal["factors"][0]["runs"] == 3);

  // Used: the report names the calibration and the runs it rests on.
  r = run_binary("estimate " + dir.path() +
                 "/calibrate/llama-3.1-70b-fp8.json --gpu H200 --tp 4 "
                 "--batch 8 --calibration " +
                 dir.path() + "/cal.json");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("calibration: hopper/vllm/dense: site calibration"));
  CHECK_THAT(r.out, Catch::Contains("(3 of its 3 runs)"));
  CHECK_THAT(r.out, Catch::Contains("leave-one-run-out"));
}

TEST_CASE("calibrate: a bad run, or a spec changed since, leaves the file as it was",
          "[calibrate][cli]") {
  ScratchDir dir;
  copy_example(dir);
  REQUIRE(run_binary(calibrate_args(dir, "c4 c64")).exit_code == 0);
  const std::string before = read_text(dir.path() + "/cal.json");
  // A failed run among good ones: nothing written, no temporary file left.
  dir.write(
      "calibrate/vllm-failed.json",
      read_text(std::string(RIGHTSIZE_TESTS_DIR) + "/data/calibrate/vllm-serve-allfailed.json"));
  auto r = run_binary(calibrate_args(dir, "c16 failed"));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(read_text(dir.path() + "/cal.json") == before);
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 3);
  // The spec the file's runs were calibrated with changed: they no longer describe it.
  std::ofstream(dir.path() + "/calibrate/llama-3.1-70b-fp8.json", std::ios::app) << "\n";
  r = run_binary(calibrate_args(dir, "c16"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("cal.json:/runs/0/spec/digest"));
  CHECK(read_text(dir.path() + "/cal.json") == before);
}

TEST_CASE("calibrate: check tells a calibration change from a model change", "[calibrate][cli]") {
  ScratchDir dir;
  copy_example(dir);
  REQUIRE(run_binary(calibrate_args(dir, "c4 c64")).exit_code == 0);
  const std::string spec = dir.path() + "/calibrate/llama-3.1-70b-fp8.json";
  const std::string lock = dir.path() + "/lock.json";
  const std::string today = "RIGHTSIZE_TODAY=2026-11-22";
  REQUIRE(run_binary("plan " + spec + " --calibration " + dir.path() + "/cal.json --lock " + lock,
                     today)
              .exit_code == 0);
  const auto locked = nlohmann::json::parse(read_text(lock));
  const auto& entry = locked["locks"].begin().value();
  CHECK(entry["calibration_digest"].get<std::string>().size() == 16);
  CHECK(entry["settings"]["calibration"] == dir.path() + "/cal.json");
  auto r = run_binary("check " + spec + " --lock " + lock + " --format json", today);
  CHECK(nlohmann::json::parse(r.out)["results"][0]["cause"]["calibration"] == false);
  // More runs: the calibration changes, and check says so.
  REQUIRE(run_binary(calibrate_args(dir, "c16"), today).exit_code == 0);
  r = run_binary("check " + spec + " --lock " + lock + " --format json", today);
  const auto cause = nlohmann::json::parse(r.out)["results"][0]["cause"];
  CHECK(cause["calibration"] == true);
  CHECK(cause["spec"] == false);
  CHECK(cause["model"] == false);
  CHECK(cause["text"] == "the site calibration changed");
}

TEST_CASE("calibrate: the bundled example calibration is what calibrate writes from its runs",
          "[calibrate][cli]") {
  // docs/calibrate.md's worked example reads examples/calibrate/site.json: it must be current.
  ScratchDir dir;
  const auto r = run_binary("calibrate " + k_examples +
                            "/calibrate/llama-3.1-70b-fp8.json --gpu "
                            "H200 --tp 4 " +
                            k_examples + "/calibrate/vllm-c4.json " + k_examples +
                            "/calibrate/vllm-c64.json -o " + dir.path() + "/site.json");
  REQUIRE(r.exit_code == 0);
  const auto made = nlohmann::json::parse(read_text(dir.path() + "/site.json"));
  const auto bundled = nlohmann::json::parse(read_text(k_examples + "/calibrate/site.json"));
  CHECK(made["factors"] == bundled["factors"]);
  REQUIRE(made["runs"].size() == bundled["runs"].size());
  for (std::size_t i = 0; i < made["runs"].size(); ++i) {
    CHECK(made["runs"][i]["measured"] == bundled["runs"][i]["measured"]);
    CHECK(made["runs"][i]["load"] == bundled["runs"][i]["load"]);
  }
}
