#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

using rightsize::test::run_binary;
using rightsize::test::run_in_process;

TEST_CASE("cli: --version prints the version", "[cli]") {
  const auto r = run_in_process({"--version"});
  CHECK(r.exit_code == 0);
  // The data versions too (docs/release.md): a pinned CI knows which catalog it checks against.
  CHECK_THAT(
      r.out,
      Catch::Matches("rightsize " RIGHTSIZE_VERSION
                     R"( \(catalog [0-9]+\.[0-9]+\.[0-9]+, engines [0-9]+\.[0-9]+\.[0-9]+\)\n)"));
  CHECK(r.err.empty());
  const auto b = run_binary("--version");
  CHECK(b.exit_code == 0);
  CHECK(b.out == r.out);
}

TEST_CASE("cli: --help on every level", "[cli]") {
  const auto top = run_in_process({"--help"});
  CHECK(top.exit_code == 0);
  CHECK_THAT(top.out, Catch::Contains("Subcommands:"));
  for (const std::string sub : {"plan", "estimate", "check", "catalog", "validate"}) {
    CAPTURE(sub);
    CHECK_THAT(top.out, Catch::Contains(sub));
    const auto r = run_in_process({sub, "--help"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Usage:"));
    CHECK(r.err.empty());
  }
  CHECK(run_binary("--help").exit_code == 0);
}

// cli::run registers only the named subcommand when CLI11 could not tell (src/cli/app.cpp):
// help after -v, and a second subcommand's name among the arguments, read as with every one.
TEST_CASE("cli: one subcommand registered or all, the same answers", "[cli]") {
  const auto help = run_in_process({"-v", "plan", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out == run_in_process({"plan", "--help"}).out);
  CHECK_THAT(run_in_process({"-v", "--help"}).out, Catch::Contains("observe"));
  const auto extra = run_in_process({"plan", "spec.json", "estimate"});
  CHECK(extra.exit_code == 2);
  CHECK(extra.err == "rightsize: error: The following argument was not expected: estimate; see "
                     "'rightsize --help'\n");
}

TEST_CASE("cli: an unknown subcommand is exit 2 with a suggestion", "[cli]") {
  const auto r = run_in_process({"plna", "model.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "rightsize: error: unknown command \"plna\" (did you mean \"plan\"?); see "
                 "'rightsize --help'\n");
  const auto b = run_binary("plna model.json");
  CHECK(b.exit_code == 2);
  CHECK(b.err == r.err);
}

TEST_CASE("cli: a bad flag is exit 2 with one line on stderr", "[cli]") {
  const auto r = run_in_process({"--no-such-flag"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("rightsize: error: "));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(run_binary("--no-such-flag").exit_code == 2);
}

TEST_CASE("cli: no subcommand is a usage error", "[cli]") {
  const auto r = run_in_process({});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("rightsize: error: "));
}

TEST_CASE("cli: validate and model through the real binary", "[cli]") {
  const std::string root = std::string(RIGHTSIZE_TESTS_DIR) + "/..";
  const auto ok = run_binary("validate " + root + "/examples/llama-3.1-8b-chat.json");
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::Contains("valid"));
  const auto json =
      run_binary("model " + root + "/examples/models/llama-3.1-8b/config.json --format json");
  CHECK(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["params_total"].get<double>() ==
        Approx(8.03e9).epsilon(0.001));
  const auto bad = run_binary("validate " + root + "/tests/golden/validate-kv-heads/config.json");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK_THAT(
      bad.err,
      Catch::EndsWith("/num_key_value_heads: must divide num_attention_heads (32), got 6\n"));
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  const auto missing = run_binary("validate /no/such/spec.json");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err ==
        "rightsize: error: /no/such/spec.json: cannot read file: no such file or directory\n");
}

// A model folder is a SPEC wherever a config.json is, resolved as the spec's "model" path
// resolves one: config.json, else a diffusers pipeline's model_index.json (docs/spec.md). A
// folder with neither is one line and exit 2, not "is a directory".
TEST_CASE("cli: model/validate/plan take a model folder as SPEC", "[cli]") {
  const std::string root = std::string(RIGHTSIZE_TESTS_DIR) + "/..";
  const std::string llama = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/models/llama-3.1-8b";
  const auto folder = run_binary("model " + llama + " --format json");
  CHECK(folder.exit_code == 0);
  CHECK(folder.err.empty());
  const auto file = run_binary("model " + llama + "/config.json --format json");
  REQUIRE(file.exit_code == 0);
  CHECK(folder.out == file.out);

  const auto sdxl = run_binary("model " + root + "/tests/data/configs/diffusion/sdxl-base-1.0");
  CHECK(sdxl.exit_code == 0);
  CHECK_THAT(sdxl.out, Catch::StartsWith("sdxl-base-1.0 (StableDiffusionXLPipeline)\n"));

  const auto valid = run_binary("validate " + llama);
  CHECK(valid.exit_code == 0);
  CHECK_THAT(valid.out, Catch::StartsWith(llama + "/config.json: valid ("));
  const auto pipeline = run_binary("validate " + root + "/tests/data/configs/diffusion/flux.1-dev");
  CHECK(pipeline.exit_code == 0);
  CHECK_THAT(pipeline.out, Catch::Contains("image_generation workload"));

  const auto plan =
      run_binary("plan " + root + "/tests/data/configs/vision/vit-base-patch16-224 --format json");
  CHECK(plan.exit_code == 0);
  CHECK(nlohmann::json::parse(plan.out)["spec"]["workload"] == "embedding");

  rightsize::test::ScratchDir empty;
  const auto neither = run_binary("model " + empty.path());
  CHECK(neither.exit_code == 2);
  CHECK(neither.out.empty());
  CHECK(neither.err == "rightsize: error: " + empty.path() +
                           ": a directory with neither config.json nor model_index.json: give a "
                           "spec file, a Hugging Face model folder (config.json) or a diffusers "
                           "pipeline folder (model_index.json)\n");
  CHECK(run_binary("validate " + empty.path()).err == neither.err);
}

// An encoder (an image or text embedding model) and a diffusers pipeline keep no KV cache:
// validate lists no KV cache format for them, in text or JSON; a decoder still has one.
TEST_CASE("cli: validate lists a KV cache format only for workloads that have one", "[cli]") {
  const std::string configs = std::string(RIGHTSIZE_TESTS_DIR) + "/data/configs/";
  for (const auto& [input, precision] : std::vector<std::pair<std::string, std::string>>{
           {"vision/siglip-so400m-patch14-384/config.json", "weights fp32, activations fp32"},
           {"encoder/bge-m3/config.json", "weights fp16, activations fp16"},
           {"diffusion/sdxl-base-1.0/model_index.json", "weights bf16, activations bf16"}}) {
    CAPTURE(input);
    const auto text = run_binary("validate " + configs + input);
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("default: precision: " + precision + " (from the "));
    CHECK_THAT(text.out, !Catch::Contains("kv_cache"));
    const auto json =
        nlohmann::json::parse(run_binary("validate " + configs + input + " --format json").out);
    CHECK(json["precision"]["kv_cache"].is_null());
    CHECK(json["precision"]["weights"] == precision.substr(8, 4));
  }
  const auto decoder = run_binary("validate " + configs + "llama-3.1-8b/config.json");
  CHECK_THAT(decoder.out,
             Catch::Contains("default: precision: weights bf16, kv_cache bf16, activations bf16"));
}

// --format is accepted in any case and renders the format it names: "JSON" is JSON (before the
// renderer tables, a format in another case than the table's fell through to the table).
TEST_CASE("cli: --format in any case renders that format", "[cli]") {
  const std::string spec = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json";
  for (const auto& [command, format] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"plan", spec, "--top", "1"}, "JSON"},
           {{"estimate", spec, "--gpu", "L4"}, "Json"},
           {{"model", spec}, "JSON"},
           {{"catalog", "show", "H100"}, "JSON"}}) {
    std::vector<std::string> args = command;
    args.push_back("--format");
    args.push_back(format);
    CAPTURE(args);
    const auto r = run_in_process(args);
    CHECK(r.exit_code == 0);
    CHECK(nlohmann::json::parse(r.out).is_object());
  }
}
