// deploy -o DIR: the manifests written one file per object, and what the directory must not hold
// (deploy/manifest_files.hpp).

#include "test_paths.hpp"

#include <rightsize/deploy/manifest_files.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::vector<ManifestFile> k_files{{"deployment-chat.yaml", "kind: Deployment\n"},
                                        {"service-chat.yaml", "kind: Service\n"}};

} // namespace

TEST_CASE("manifest files: one file per object, the directory created", "[deploy]") {
  ScratchDir scratch;
  const std::string dir = scratch.path() + "/out/manifests";
  write_manifest_files(k_files, dir);
  CHECK(text_of(dir + "/deployment-chat.yaml") == "kind: Deployment\n");
  CHECK(text_of(dir + "/service-chat.yaml") == "kind: Service\n");

  SECTION("a second run replaces its own files, beside files kubectl does not apply") {
    scratch.write("out/manifests/README.md", "notes");
    write_manifest_files({{"service-chat.yaml", "kind: Service # new\n"}, k_files[0]}, dir);
    CHECK(text_of(dir + "/service-chat.yaml") == "kind: Service # new\n");
  }
  SECTION("another manifest there would be applied with them: refused, nothing written") {
    const std::string earlier = scratch.path() + "/earlier";
    scratch.write("earlier/hpa-chat.yaml", "kind: HorizontalPodAutoscaler\n");
    REQUIRE_THROWS_WITH(write_manifest_files(k_files, earlier),
                        "--output: " + earlier +
                            " already holds hpa-chat.yaml, which kubectl apply -f would apply "
                            "with these manifests; write to a new or empty directory");
    CHECK_FALSE(std::filesystem::exists(earlier + "/deployment-chat.yaml"));
  }
}

TEST_CASE("manifest files: a file where the directory should be", "[deploy]") {
  ScratchDir scratch;
  const std::string file = scratch.write("manifests", "not a directory");
  REQUIRE_THROWS_WITH(write_manifest_files(k_files, file),
                      "--output: " + file + " exists and is not a directory");
}
