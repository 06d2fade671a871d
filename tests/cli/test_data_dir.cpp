// Where a run finds its data (docs/cli.md, "Where the data comes from"): --data, RIGHTSIZE_DATA,
// the installed data, the source tree for a binary inside its build tree, else the data compiled
// into the binary. Issue 43, defect 8: a copied binary with its source tree gone failed every
// command on "<source tree>/data/gpus.json: cannot read file".

#include "cli/common_options.hpp"
#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <rightsize/core/compiled_in.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>

namespace fs = std::filesystem;
using rightsize::test::run_binary;
using rightsize::test::ScratchDir;

namespace {

// The example's config.json names no Hugging Face id; deploy needs one.
const std::string k_model_uri = " --model-uri meta-llama/Llama-3.1-8B-Instruct";

// A search from a binary at `exe`, with a build tree and a source tree that may not exist.
rightsize::cli::DataDirSearch search_from(const std::string& exe, const std::string& root) {
  rightsize::cli::DataDirSearch s;
  s.executable = exe;
  s.build_dir = root + "/build";
  s.source_dir = root + "/src/data";
  s.install_subdir = "share/rightsize";
  return s;
}

// The example's spec and model, copied under `dir`: the spec's model path is relative to it.
std::string copy_example(const std::string& dir) {
  const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
  fs::create_directories(fs::path(dir) / "models");
  fs::copy(examples / "llama-3.1-8b-chat.json", fs::path(dir) / "llama-3.1-8b-chat.json");
  fs::copy(examples / "models/llama-3.1-8b",
           fs::path(dir) / "models/llama-3.1-8b",
           fs::copy_options::recursive);
  return dir + "/llama-3.1-8b-chat.json";
}

// Runs a shell command (rightsize::test::run_command), which must start.
rightsize::test::CliResult run_shell(const std::string& command) {
  const auto r = rightsize::test::run_command(command);
  REQUIRE(r.has_value());
  return *r;
}

// `command` run with the binary copied alone into `bin`, from the empty folder `cwd`, with HOME
// there too and no data directory or catalog in the environment.
rightsize::test::CliResult run_copy(const std::string& bin,
                                    const std::string& cwd,
                                    const std::string& command,
                                    const std::string& env = "") {
  const std::string full = "cd " + cwd +
                           " && env -u RIGHTSIZE_DATA -u RIGHTSIZE_CATALOG HOME=" + cwd + " " +
                           env + " " + bin + "/rightsize " + command;
  return run_shell(full);
}

} // namespace

TEST_CASE("data: the search takes --data, then RIGHTSIZE_DATA, then what the binary finds",
          "[cli][data]") {
  const ScratchDir tree;
  const std::string root = tree.path();
  fs::create_directories(root + "/build");
  fs::create_directories(root + "/src/data");
  fs::create_directories(root + "/given");

  SECTION("a binary inside its build tree reads the source tree's data/") {
    CHECK(find_data_dir(search_from(root + "/build/rightsize", root)) == root + "/src/data");
  }
  SECTION("its source tree gone, it reads the data compiled into it") {
    fs::remove_all(root + "/src");
    CHECK(find_data_dir(search_from(root + "/build/rightsize", root)) ==
          std::string(rightsize::k_compiled_in_data_dir));
  }
  SECTION(
      "a copy outside the build tree reads its compiled-in data, the source tree there or not") {
    CHECK(find_data_dir(search_from(root + "/elsewhere/rightsize", root)) ==
          std::string(rightsize::k_compiled_in_data_dir));
    CHECK(find_data_dir(search_from(root + "/build-other/rightsize", root)) ==
          std::string(rightsize::k_compiled_in_data_dir));
  }
  SECTION("an installed binary reads <prefix>/share/rightsize when it holds gpus.json") {
    fs::create_directories(root + "/usr/share/rightsize");
    CHECK(find_data_dir(search_from(root + "/usr/bin/rightsize", root)) ==
          std::string(rightsize::k_compiled_in_data_dir));
    std::ofstream(root + "/usr/share/rightsize/gpus.json") << "{}";
    CHECK(find_data_dir(search_from(root + "/usr/bin/rightsize", root)) ==
          root + "/usr/share/rightsize");
  }
  SECTION("--data wins over RIGHTSIZE_DATA, which wins over the rest") {
    auto s = search_from(root + "/build/rightsize", root);
    s.env = root + "/given";
    CHECK(find_data_dir(s) == root + "/given");
    s.option = root + "/src/data";
    CHECK(find_data_dir(s) == root + "/src/data");
  }
  SECTION("a given directory that is not there, or not a directory, is an error naming it") {
    auto s = search_from(root + "/build/rightsize", root);
    s.env = root + "/nowhere";
    CHECK_THROWS_WITH(find_data_dir(s),
                      "RIGHTSIZE_DATA: data directory \"" + root + "/nowhere\": no such directory");
    s.option = root + "/src/data/gpus.json";
    std::ofstream(s.option) << "{}";
    CHECK_THROWS_WITH(find_data_dir(s),
                      "--data: data directory \"" + s.option + "\": not a directory");
  }
}

TEST_CASE("data: the binary copied alone runs every data-reading command on its compiled-in data",
          "[cli][data]") {
  const ScratchDir scratch;
  const std::string bin = scratch.path() + "/bin";
  const std::string cwd = scratch.path() + "/empty";
  fs::create_directories(bin);
  fs::create_directories(cwd);
  fs::copy_file(RIGHTSIZE_BINARY, bin + "/rightsize");
  const std::string spec = copy_example(scratch.path() + "/example");

  const auto plan = run_copy(bin, cwd, "plan " + spec);
  INFO(plan.err);
  CHECK(plan.exit_code == 0);
  CHECK(plan.out.find("\nrecommended: ") != std::string::npos);
  // It read the compiled-in catalog, not the source tree's data/.
  const auto validate = run_copy(bin, cwd, "catalog validate");
  CHECK(validate.exit_code == 0);
  CHECK(validate.out.rfind("<compiled-in>/gpus.json: ok: ", 0) == 0);
  // deploy.json is compiled in too (text alone), and so is published/.
  const auto deploy = run_copy(bin, cwd, "deploy " + spec + k_model_uri);
  INFO(deploy.err);
  CHECK(deploy.exit_code == 0);
  const auto estimate = run_copy(bin, cwd, "estimate " + spec + " --gpu H100-SXM");
  INFO(estimate.err);
  CHECK(estimate.exit_code == 0);
  const auto compare = run_copy(bin, cwd, "compare --list");
  INFO(compare.err);
  CHECK(compare.exit_code == 0);
  const auto check = run_copy(bin, cwd, "check " + spec);
  CHECK(check.err.find("cannot read file") == std::string::npos);
  CHECK(check.err.find("compiled") == std::string::npos);
  const auto version = run_copy(bin, cwd, "--version");
  CHECK(version.out.find("(catalog ") != std::string::npos);
}

TEST_CASE("data: --data and RIGHTSIZE_DATA point a run at another directory; a bad one is exit 2",
          "[cli][data]") {
  const ScratchDir scratch;
  const std::string data = scratch.path() + "/data";
  fs::copy(RIGHTSIZE_DATA_DIR, data, fs::copy_options::recursive);
  std::ofstream(data + "/gpus.json", std::ios::app) << "not json";
  const std::string spec = copy_example(scratch.path() + "/example");

  for (const std::string& how : {"--data " + data, std::string()}) {
    const std::string env = how.empty() ? "RIGHTSIZE_DATA=" + data : "";
    const auto r = run_binary("plan " + spec + " " + how, env);
    CAPTURE(how, r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("rightsize: error: " + data + "/gpus.json:", 0) == 0);
  }
  const auto missing = run_binary("plan " + spec + " --data " + scratch.path() + "/nowhere");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "rightsize: error: --data: data directory \"" + scratch.path() +
                           "/nowhere\": no such directory\n");
  const auto env = run_binary("catalog list", "RIGHTSIZE_DATA=" + scratch.path() + "/nowhere");
  CHECK(env.exit_code == 2);
  CHECK(env.err == "rightsize: error: RIGHTSIZE_DATA: data directory \"" + scratch.path() +
                       "/nowhere\": no such directory\n");
  // A directory without deploy.json: deploy names the file; plan, which does not read it, runs.
  fs::copy_file(
      RIGHTSIZE_DATA_DIR "/gpus.json", data + "/gpus.json", fs::copy_options::overwrite_existing);
  fs::remove(data + "/deploy.json");
  CHECK(run_binary("plan " + spec + " --data " + data).exit_code == 0);
  const auto deploy = run_binary("deploy " + spec + " --data " + data + k_model_uri);
  CHECK(deploy.exit_code == 2);
  CHECK(deploy.err.find(data + "/deploy.json: cannot read file") != std::string::npos);
}

TEST_CASE("data: a file the binary did not compile in is an error naming it and --data",
          "[cli][data]") {
  rightsize::cli::register_compiled_in_data();
  const std::string path = std::string(rightsize::k_compiled_in_data_dir) + "/measured/h200.json";
  CHECK_THROWS_WITH(rightsize::read_input_file(path, 1024, "JSON input"),
                    Catch::Contains(path + ": is not compiled into this binary") &&
                        Catch::Contains("--data DIR"));
  const std::string gpus = std::string(rightsize::k_compiled_in_data_dir) + "/gpus.json";
  std::ifstream in(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(rightsize::read_input_file(gpus, rightsize::k_max_json_file_bytes, "JSON input") == text);
}
