// rightsize deploy through the real binary: the files it writes beside the manifests (issue 49,
// prometheus-adapter's Helm chart values) and the options refused before anything is written.

#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <yaml-cpp/yaml.h>

using rightsize::test::run_binary;
using rightsize::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

TEST_CASE("deploy --adapter-values writes the HPA's rule as prometheus-adapter's chart values",
          "[cli][deploy]") {
  const ScratchDir dir;
  const fs::path examples(RIGHTSIZE_EXAMPLES_DIR);
  const std::string spec = (examples / "llama-3.1-70b-sla.json").string();
  const fs::path values = fs::path(dir.path()) / "adapter-values.yaml";
  const auto r = run_binary("deploy " + spec + " --model-uri meta-llama/Llama-3.1-70B-Instruct " +
                            "--adapter-values " + values.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(fs::exists(values));
  // The file is the ConfigMap's values.yaml, as the chart reads it: rules.custom.
  const YAML::Node file = YAML::Load(read(values));
  REQUIRE(file["rules"]["custom"].IsSequence());
  CHECK(file["rules"]["custom"][0]["name"]["as"].as<std::string>() == "rightsize_gpu_dram_active");
  YAML::Node configmap;
  for (const auto& doc : YAML::LoadAll(r.out)) {
    if (doc["kind"].as<std::string>() == "ConfigMap") {
      configmap = doc;
    }
  }
  REQUIRE(configmap);
  const YAML::Node embedded = YAML::Load(configmap["data"]["values.yaml"].as<std::string>());
  CHECK(YAML::Dump(embedded) == YAML::Dump(file));

  // Refused before anything is read or written: another autoscaler, an empty name.
  const fs::path other = fs::path(dir.path()) / "keda-values.yaml";
  const auto keda =
      run_binary("deploy " + spec + " --model-uri meta-llama/Llama-3.1-70B-Instruct " +
                 "--autoscaler keda --adapter-values " + other.string());
  CHECK(keda.exit_code == 2);
  CHECK(keda.out.empty());
  CHECK_THAT(keda.err,
             Catch::Contains("--adapter-values: is prometheus-adapter's rule for "
                             "--autoscaler hpa, not keda"));
  CHECK_FALSE(fs::exists(other));
  // A directory that does not exist: exit 2 naming it, and no manifests on standard output.
  const auto missing = run_binary(
      "deploy " + spec + " --model-uri meta-llama/Llama-3.1-70B-Instruct --adapter-values " +
      (fs::path(dir.path()) / "no/such/dir/values.yaml").string());
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.empty());
}
