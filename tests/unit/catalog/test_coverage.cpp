// What a buyer shops from (docs/catalog.md, "Coverage", "Instance shapes"): every bundled GPU
// priced or marked not rentable, vendors beyond NVIDIA and AMD with the fields they publish, and
// the instance table that names each price's shape.

#include "fixtures.hpp"
#include "test_paths.hpp"

#include <rightsize/catalog/instances.hpp>
#include <rightsize/catalog/price_pick.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>

#include <set>

namespace rightsize {

namespace {

const std::string k_data = RIGHTSIZE_DATA_DIR;

// A complete catalog of one GPU, its entry given as JSON members.
Catalog one_gpu(const std::string& members, const std::string& vendor = "google") {
  return parse_catalog(
      nlohmann::json::parse(
          R"({"schema_version": 1, "catalog_version": "t",
      "sources": {"S": {"name":
      "s", "location": "l"}}, "gpus": [{"name": "X-1", "vendor": ")" +
          vendor +
          R"(", "architecture": "x",
      "generation": "tpu-v6e", "release_year": 2024, "form_factor": "chip",
      "memory_gib": {"value": 32, "source": "S"},
      "memory_bandwidth_gb_per_s": {"value": 1638, "source": "S"},
      "dense_tflop_per_s": {"bf16": {"value": 918, "source": "S"},
                            "fp8": {"value": 918, "source": "S"}},
      "gpu_link": {"kind": "ici", "gb_per_s": 400, "source": "S"},
      "nvlink_domain": {"value": 8, "source": "S"})" +
          (members.find("\"prices\"") == std::string::npos ? ", \"prices\": []" : "") + members +
          "}]}"),
      "c.json");
}

} // namespace

TEST_CASE("coverage: 32+ SKUs of at least four vendors, each priced or not rentable",
          "[catalog][coverage]") {
  const Catalog& c = test::catalog();
  CHECK(c.gpus.size() >= 32);
  std::set<std::string> vendors;
  for (const Gpu& g : c.gpus) {
    vendors.insert(g.vendor);
    const bool priced =
        std::any_of(g.prices.begin(), g.prices.end(), [](const Price& p) { return p.usable(); });
    INFO(g.name);
    CHECK(priced != !g.not_rentable.empty());
  }
  CHECK(vendors.size() >= 4);
  // The parts the issue names are all there.
  for (const char* name : {"MI355X",
                           "MI350X",
                           "H20",
                           "L20",
                           "RTX PRO 6000",
                           "Gaudi3",
                           "Gaudi2",
                           "TPU v5e",
                           "TPU v5p",
                           "TPU v6e",
                           "Trainium2",
                           "Inferentia2"}) {
    CHECK_NOTHROW(c.resolve(name, "test"));
  }
}

TEST_CASE("coverage: AMD rents in the cloud; a TP4 A10G replica is the 4-GPU g5.12xlarge",
          "[catalog][coverage]") {
  const Catalog& c = test::catalog();
  for (const char* amd : {"MI300X", "MI325X"}) {
    INFO(amd);
    CHECK(pick_fleet(c.resolve(amd, "test"), "on_demand", std::nullopt, {1, 1}, 1));
  }
  // MI355X rents by quote only: its rejection says so.
  std::string why;
  CHECK_FALSE(pick_fleet(c.resolve("MI355X", "test"), "on_demand", std::nullopt, {1, 1}, 1, &why));
  CHECK_THAT(why, Catch::StartsWith("not rentable: no public on-demand price"));

  const auto fleet =
      pick_fleet(c.resolve("A10G", "test"), "on_demand", std::string("AWS"), {4, 4}, 1);
  REQUIRE(fleet);
  CHECK(fleet->price->instance == "g5.12xlarge");
  CHECK(fleet->instances == 1);
  CHECK(fleet->per_hour().si() * 3600 == Approx(5.672));
}

TEST_CASE("coverage: parts only rented may leave out what their makers do not publish",
          "[catalog][coverage]") {
  // No TDP, host link or network: read as 0, "not published"; fp8 at the bf16 rate is fine off
  // NVIDIA and AMD.
  const Catalog c = one_gpu(R"(, "not_rentable": {"reason": "by quote", "source": "S"})");
  CHECK(c.gpus[0].tdp.si() == 0);
  CHECK(c.gpus[0].host_link.si() == 0);
  CHECK(c.gpus[0].network.si() == 0);
  CHECK(c.gpus[0].not_rentable == "by quote");
  // A purchase needs the TDP (on-prem power); prices and a not-rentable mark contradict.
  CHECK_THROWS_WITH(one_gpu(R"(, "purchase": {"usd_per_gpu": 1000, "as_of": "2026-01-01",
                       "source": "S"})"),
                    Catch::Contains("c.json:/gpus/0/tdp_watts: required field is missing: a "
                                    "purchase price or MIG profiles need the TDP"));
  CHECK_THROWS_WITH(one_gpu(R"(, "not_rentable": {"reason": "x", "source": "S"}, "prices": [
                       {"provider": "GCP", "kind": "on_demand", "usd_per_gpu_hour": 2.7,
                        "as_of": "2026-12-07", "source": "S"}])"),
                    Catch::Contains("not_rentable: is for a GPU without cloud prices"));
  CHECK_THROWS_WITH(one_gpu(R"(, "not_rentable": {"reason": "", "source": "S"})"),
                    Catch::Contains("not_rentable/reason: must say why no cloud rents it"));
  // NVIDIA's ratios still hold NVIDIA's parts to them.
  CHECK_THROWS_WITH(one_gpu(R"(, "not_rentable": {"reason": "x", "source": "S"})", "nvidia"),
                    Catch::Contains("dense_tflop_per_s/fp8: is 1.00x the bf16 rate"));
}

TEST_CASE("coverage: the instance table names every shape's GPU and host, checked against the "
          "catalog",
          "[catalog][instances]") {
  const InstanceTable t = load_instances(k_data + "/instances.json", test::catalog());
  const InstanceShape* p5 = t.find("aws", "p5.48xlarge");
  REQUIRE(p5 != nullptr);
  CHECK(p5->gpu == "H100-SXM-80GB");
  CHECK(p5->describe() == "8 x H100-SXM-80GB, 192 vCPU, 2048 GiB, 30.4 TB NVMe, 3200 Gb/s");
  // Every bundled price that names a listed shape states its GPU count (parse_instances checks).
  for (const Gpu& g : test::catalog().gpus) {
    for (const Price& p : g.prices) {
      if (const InstanceShape* s = t.find(p.provider, p.instance)) {
        INFO(p.provider << " " << p.instance);
        CHECK(s->gpus == p.gpus_per_instance);
        CHECK(s->gpu == g.name);
      }
    }
  }
  const auto table = [](const std::string& rows) {
    return parse_instances(nlohmann::json::parse(R"({"schema_version": 1, "sources": {"K":
        {"name": "k", "location": "l"}}, "instances": [)" +
                                                 rows + "]}"),
                           "i.json",
                           test::catalog());
  };
  const std::string g5 = R"({"provider": "AWS", "name": "g5.12xlarge", "gpu": "A10G", "gpus": 4,
      "vcpus": 48, "memory_gib": 192, "source": "K"})";
  CHECK(table(g5).shapes[0].gpu == "A10G-24GB");
  CHECK_THROWS_WITH(table(g5 + "," + g5), Catch::Contains("AWS g5.12xlarge is listed twice"));
  CHECK_THROWS_WITH(table(R"({"provider": "AWS", "name": "g5.12xlarge", "gpu": "A10G", "gpus": 8,
      "vcpus": 48, "memory_gib": 192, "source": "K"})"),
                    Catch::Contains("AWS g5.12xlarge holds 8 x A10G-24GB, but the catalog prices "
                                    "it for A10G-24GB with 4 GPUs per instance"));
  CHECK_THROWS_WITH(table(R"({"provider": "AWS", "name": "x", "gpu": "A10Q", "gpus": 1,
      "vcpus": 4, "memory_gib": 16, "source": "K"})"),
                    Catch::StartsWith("i.json:/instances/0/gpu: "));
  CHECK_THROWS_WITH(table(R"({"provider": "AWS", "name": "x", "gpu": "A10G", "gpus": 1,
      "vcpus": 4, "memory_gib": 16, "source": "KK"})"),
                    Catch::Contains("is not a key of /sources (did you mean \"K\"?)"));
}

} // namespace rightsize

namespace rightsize {

TEST_CASE("coverage: a price in an overlay lifts a GPU's not-rentable mark",
          "[catalog][coverage]") {
  // The review of issue 47: docs and every rejection say "add a price with --catalog", and an
  // overlay giving MI355X a quote failed validation ("not_rentable ... has prices").
  const test::ScratchDir dir;
  const std::string overlay = dir.write("quote.json", R"({"schema_version": 1,
      "extends": "bundled", "sources": {"Q": {"name": "our quote", "location": "email"}},
      "gpus": [{"name": "MI355X", "prices": [{"provider": "OurCloud", "kind": "committed",
        "usd_per_gpu_hour": 2.1, "instance": "8x", "gpus_per_instance": 8,
        "as_of": "2026-12-01", "source": "Q"}]}]})");
  const Catalog c = load_catalog(k_data + "/gpus.json", overlay);
  const Gpu& g = c.resolve("MI355X", "test");
  CHECK(g.not_rentable.empty());
  CHECK(pick_fleet(g, "committed", std::nullopt, {8, 8}, 1));
  // Setting the mark again beside prices is still a contradiction.
  const std::string both = dir.write("both.json", R"({"schema_version": 1,
      "extends": "bundled", "sources": {"Q": {"name": "our quote", "location": "email"}},
      "gpus": [{"name": "MI355X", "not_rentable": {"reason": "x", "source": "Q"}, "prices": [
        {"provider": "OurCloud", "kind": "committed", "usd_per_gpu_hour": 2.1,
         "as_of": "2026-12-01", "source": "Q"}]}]})");
  CHECK_THROWS_WITH(load_catalog(k_data + "/gpus.json", both),
                    Catch::Contains("not_rentable: is for a GPU without cloud prices"));
}

} // namespace rightsize
