#include "test_paths.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/core/error.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace rightsize;
using rightsize::test::ScratchDir;

namespace {

const std::string k_bundled = std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json";

const Catalog& bundled() {
  static const Catalog c = load_catalog(k_bundled);
  return c;
}

nlohmann::json bundled_json() {
  std::ifstream in(k_bundled);
  return nlohmann::json::parse(in);
}

// All error messages of loading `doc` as a complete catalog.
std::vector<std::string> errors_of(const nlohmann::json& doc) {
  try {
    parse_catalog(doc, "bad.json");
  } catch (const InputErrors& e) {
    std::vector<std::string> out;
    for (const auto& one : e.errors()) {
      out.emplace_back(one.what());
    }
    return out;
  } catch (const InputError& e) {
    return {e.what()};
  }
  return {};
}

bool contains(const std::vector<std::string>& errors, const std::string& text) {
  return std::any_of(errors.begin(), errors.end(), [&](const std::string& e) {
    return e.find(text) != std::string::npos;
  });
}

} // namespace

TEST_CASE("catalog: covers every SKU a buyer considers", "[catalog]") {
  for (const char* name :
       {"A100-SXM-40GB",  "A100-SXM-80GB",     "A100-PCIE-40GB", "A100-PCIE-80GB", "H100-SXM-80GB",
        "H100-PCIE-80GB", "H100-NVL-94GB",     "H200-SXM-141GB", "GH200-144GB",    "L4-24GB",
        "L40S-48GB",      "L40-48GB",          "A10G-24GB",      "A10-24GB",       "T4-16GB",
        "A30-24GB",       "RTX-PRO-6000-96GB", "B200-SXM-180GB", "B300-SXM-288GB", "GB200-186GB",
        "GB300-288GB",    "MI300X-192GB",      "MI325X-256GB"}) {
    CAPTURE(name);
    CHECK(bundled().find(name) != nullptr);
  }
}

TEST_CASE("catalog: values pinned to their datasheets", "[catalog]") {
  const auto& h100 = bundled().resolve("H100", "test");
  CHECK(h100.name == "H100-SXM-80GB");
  CHECK(h100.memory == gib(80));
  CHECK(h100.memory_bandwidth.si() == Approx(3.35e12)); // not the 3.07 TB/s conflict
  CHECK(h100.rate(TensorPrecision::bf16)->si() == Approx(989e12).epsilon(0.001)); // dense, not 1979
  CHECK(h100.tdp.si() == 700);
  CHECK(h100.rate(TensorPrecision::fp8).has_value());
  CHECK_FALSE(h100.rate(TensorPrecision::fp4).has_value()); // Hopper has fp8, not fp4
  CHECK(h100.nvlink_domain == 8);
  CHECK(h100.gpu_link.si() == Approx(450e9));
  CHECK(h100.host_link.si() == Approx(64e9)); // PCIe Gen5 x16

  const auto& l40s = bundled().resolve("L40S", "test");
  CHECK(l40s.memory == gib(48));
  CHECK(l40s.memory_bandwidth.si() == Approx(864e9));
  CHECK(l40s.plannable_memory() == mib(46068)); // usable with ECC on
  CHECK(l40s.nvlink_domain == 1);
  CHECK(l40s.host_link.si() == Approx(32e9)); // Gen4

  CHECK(bundled().resolve("A100", "test").memory_bandwidth.si() == Approx(2.039e12));
  CHECK_FALSE(bundled().resolve("A100", "test").rate(TensorPrecision::fp8).has_value());

  const auto& l4 = bundled().resolve("L4", "test");
  CHECK(l4.memory == gib(24));
  CHECK(l4.memory_bandwidth.si() == Approx(300e9));
  CHECK(l4.tdp.si() == 72);

  const auto& b200 = bundled().resolve("B200", "test");
  CHECK(b200.rate(TensorPrecision::fp4)->si() == Approx(9000e12));
  CHECK(b200.rate(TensorPrecision::fp8)->si() == Approx(4500e12));
  CHECK(bundled().resolve("GB200", "test").nvlink_domain == 72);
  CHECK(bundled().resolve("GB200", "test").rate(TensorPrecision::fp4).has_value());
  CHECK(bundled().resolve("A10", "test").memory == gib(24)); // 24, not llm-analysis's 28
  CHECK_FALSE(bundled().resolve("T4", "test").rate(TensorPrecision::bf16).has_value());
}

TEST_CASE("catalog: every number has a source and prices a date", "[catalog]") {
  for (const auto& g : bundled().gpus) {
    CAPTURE(g.name);
    for (const char* field :
         {"memory_gib", "memory_bandwidth_gb_per_s", "gpu_link", "nvlink_domain"}) {
      CAPTURE(field);
      CHECK(g.provenance.count(field) == 1);
    }
    // Optional where the maker publishes none (docs/catalog.md): sourced whenever given.
    CHECK(g.provenance.count("tdp_watts") == (g.tdp.si() > 0 ? 1U : 0U));
    CHECK(g.provenance.count("host_link") == (g.host_link.si() > 0 ? 1U : 0U));
    CHECK(g.provenance.count("network_gbit_per_s") == (g.network.si() > 0 ? 1U : 0U));
    for (const auto& [p, rate] : g.dense) {
      CHECK(g.provenance.count("dense_tflop_per_s." + std::string(to_string(p))) == 1);
    }
    for (const auto& p : g.prices) {
      CHECK(parse_date(p.as_of).has_value());
      CHECK_FALSE(p.provenance.source.empty());
    }
    CHECK((!g.prices.empty() || g.purchase.has_value() || !g.not_rentable.empty()));
  }
}

TEST_CASE("catalog: names resolve as a person types them", "[catalog]") {
  const auto& c = bundled();
  CHECK(c.resolve("h100", "x").name == "H100-SXM-80GB");
  CHECK(c.resolve("H100-PCIE", "x").name == "H100-PCIE-80GB");
  CHECK(c.resolve("H200", "x").name == "H200-SXM-141GB");
  CHECK(c.resolve("A100", "x").name == "A100-SXM-80GB");
  CHECK(c.resolve("A100-40GB", "x").name == "A100-SXM-40GB");
  CHECK(c.resolve("l40s", "x").name == "L40S-48GB");
  CHECK(c.resolve("B200", "x").name == "B200-SXM-180GB");
  CHECK(c.resolve("GB200", "x").name == "GB200-186GB");
  CHECK(c.resolve("MI300X", "x").name == "MI300X-192GB");
  CHECK(c.resolve("h100 sxm", "x").name == "H100-SXM-80GB");
  CHECK_THROWS_WITH(c.resolve("H10O", "--gpu"),
                    Catch::StartsWith("--gpu: unknown GPU \"H10O\" (did you mean \"H100\""));
  CHECK_THROWS_WITH(c.resolve("MI3", "--gpu"),
                    "--gpu: GPU name \"MI3\" is ambiguous: it could be MI300X-192GB, MI325X-256GB, "
                    "MI355X-288GB, MI350X-288GB");
  CHECK(c.resolve("trillium", "x").name == "TPU-v6e-32GB");
  CHECK(c.resolve("gaudi 3", "x").name == "Gaudi3-128GB");
  CHECK_THROWS_WITH(c.resolve("TPU-v5", "--gpu"),
                    "--gpu: GPU name \"TPU-v5\" is ambiguous: it could be TPU-v5e-16GB, "
                    "TPU-v5p-95GB");
  CHECK_THROWS_WITH(c.resolve("TPU-v7", "--gpu"), Catch::Contains("unknown GPU \"TPU-v7\""));
}

TEST_CASE("catalog: dates and stale prices", "[catalog]") {
  CHECK(parse_date("1970-01-01") == 0L);
  CHECK(parse_date("2024-02-29").has_value());
  CHECK_FALSE(parse_date("2023-02-29").has_value());
  CHECK_FALSE(parse_date("2025-13-01").has_value());
  CHECK_FALSE(parse_date("2025-1-01").has_value());
  CHECK_FALSE(parse_date("yesterday").has_value());
  CHECK(*parse_date("2026-11-21") - *parse_date("2026-05-25") == 180);
  CHECK_FALSE(is_stale("2026-05-25", "2026-11-21", 180));
  CHECK(is_stale("2026-05-24", "2026-11-21", 180));
  CHECK(is_stale("2024-02-07", "2026-11-21", 180));
}

TEST_CASE("catalog: validation reports each kind of problem, all at once", "[catalog]") {
  auto doc = bundled_json();
  auto& gpus = doc["gpus"];
  gpus[0].erase("tdp_watts");                          // missing field
  gpus[1]["memory_gib"]["value"] = -80;                // non-positive
  gpus[2]["dense_tflop_per_s"]["fp16"]["value"] = 624; // sparse listed as dense
  gpus[3]["memory_bandwith_gb_per_s"] = gpus[3]["memory_bandwidth_gb_per_s"]; // unknown key
  gpus[4]["name"] = "A100-SXM-40GB";                                          // duplicate name
  gpus[5]["prices"] = {{{"provider", "X"},
                        {"kind", "on_demand"},
                        {"usd_per_gpu_hour", 1.0},
                        {"as_of", "2025-02-30"},
                        {"source", "AIC"}}};   // bad date
  gpus[6]["tdp_watts"]["source"] = "DATASHET"; // unknown source
  gpus[7]["host_link"]["gb_per_s"] = 32;       // Gen3 is 16 GB/s
  gpus[11]["sparse_tflop_per_s"] = {{"bf16", {{"value", 989}, {"source", "GKW"}}}};
  const auto errors = errors_of(doc);
  CAPTURE(errors);
  CHECK(errors.size() >= 9);
  CHECK(contains(errors, "bad.json:/gpus/0/tdp_watts: required field is missing"));
  CHECK(contains(errors, "bad.json:/gpus/1/memory_gib/value: must be > 0 and <= 4096, got -80"));
  CHECK(contains(errors,
                 "bad.json:/gpus/2/dense_tflop_per_s/fp16: is 2.00x the bf16 rate, "
                 "expected 1x: one of them may be a sparse figure listed as dense"));
  CHECK(contains(errors,
                 "bad.json:/gpus/3/memory_bandwith_gb_per_s: unknown field "
                 "\"memory_bandwith_gb_per_s\" (did you mean \"memory_bandwidth_gb_per_s\"?)"));
  CHECK(contains(errors, "bad.json:/gpus/4/name: name or alias \"A100-SXM-40GB\" is already used"));
  CHECK(contains(errors,
                 "bad.json:/gpus/5/prices/0/as_of: must be a date YYYY-MM-DD, got "
                 "\"2025-02-30\""));
  CHECK(contains(errors, "bad.json:/gpus/6/tdp_watts/source: is not a key of /sources"));
  CHECK(contains(errors,
                 "bad.json:/gpus/7/host_link/gb_per_s: does not match PCIe Gen3 x16 "
                 "(16 GB/s per direction), got 32"));
  CHECK(contains(errors,
                 "bad.json:/gpus/11/dense_tflop_per_s/bf16: dense 989.4 TFLOP/s is more "
                 "than half the sparse 989 TFLOP/s: the sparse figure is listed as dense"));
}

TEST_CASE("catalog: an overlay overrides single fields and adds prices", "[catalog]") {
  ScratchDir dir;
  const auto overlay = dir.write("prices.json", R"({
    "schema_version": 1, "extends": "bundled",
    "sources": {"CONTRACT": {"name": "Our 2026 contract", "location": "legal/contract.pdf"}},
    "gpus": [
      {"name": "H100", "prices": [{"provider": "our-contract", "kind": "committed",
        "usd_per_gpu_hour": 1.85, "as_of": "2026-10-01", "source": "CONTRACT"}]},
      {"name": "L4", "tdp_watts": {"value": 75, "source": "CONTRACT", "note": "measured"}}
    ]})");
  const Catalog c = load_catalog(k_bundled, overlay);
  const auto& h100 = c.resolve("H100", "x");
  CHECK(h100.prices.size() == bundled().resolve("H100", "x").prices.size() + 1);
  CHECK(h100.prices.front().provider == "our-contract");
  CHECK(h100.prices.front().per_gpu.si() == Approx(1.85));
  CHECK(h100.memory_bandwidth.si() == Approx(3.35e12)); // untouched fields stay
  CHECK(c.resolve("L4", "x").tdp.si() == 75);
  CHECK(c.gpus.size() == bundled().gpus.size());
  CHECK(c.digest != bundled().digest);

  // Same provider and kind replaces the bundled price.
  const auto replace = dir.write("replace.json", R"({"schema_version": 1, "extends": "bundled",
    "gpus": [{"name": "H100", "prices": [{"provider": "AWS", "kind": "on_demand",
      "usd_per_gpu_hour": 6.88, "as_of": "2026-06-01", "source": "SKY_AWS"}]}]})");
  const Catalog replaced = load_catalog(k_bundled, replace);
  const auto& h = replaced.resolve("H100", "x");
  CHECK(h.prices.size() == bundled().resolve("H100", "x").prices.size());
  const auto aws = std::find_if(
      h.prices.begin(), h.prices.end(), [](const Price& p) { return p.provider == "AWS"; });
  CHECK(aws->per_gpu.si() == Approx(6.88));

  // Errors in an overlay name the overlay file and its pointer.
  const auto bad = dir.write("bad.json", R"({"schema_version": 1, "extends": "bundled",
    "gpus": [{"name": "L4", "memory_gib": {"value": 0, "source": "AIC"}}]})");
  CHECK_THROWS_WITH(
      load_catalog(k_bundled, bad),
      Catch::EndsWith("bad.json:/gpus/0/memory_gib/value: must be > 0 and <= 4096, got 0"));
  // A new GPU in an overlay must be complete.
  const auto incomplete = dir.write("new.json", R"({"schema_version": 1, "extends": "bundled",
    "gpus": [{"name": "TPU-v9", "vendor": "google"}]})");
  CHECK_THROWS_WITH(load_catalog(k_bundled, incomplete), Catch::Contains("new.json:/gpus/0/"));
}
