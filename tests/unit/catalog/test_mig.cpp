// MIG slices as GPUs of their own (catalog/mig.hpp). Profile names ("3g.40gb") are read as
// sscanf(name, "%dg.%lfgb") read them, without sscanf (issue 17: a plan of slices parses every
// profile of a GPU for each of its slices); a slice's figures are its GPU's shares, worked out by
// hand below for a GPU made up for the test.

#include <rightsize/catalog/mig.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

using rightsize::detail::parse_mig_profile;

TEST_CASE("mig profile: the same reading as sscanf's %dg.%lfgb", "[catalog][mig]") {
  const std::vector<std::string> names = {// the catalog's forms
                                          "1g.5gb",
                                          "1g.10gb",
                                          "2g.20gb",
                                          "3g.40gb",
                                          "4g.71gb",
                                          "7g.80gb",
                                          "7g.141gb",
                                          "1g.12gb+me",
                                          "1g.18gb",
                                          "3g.135gb",
                                          "7g.269gb",
                                          // what people and tools type
                                          "1g.5",
                                          "1g.5GB",
                                          "1G.5gb",
                                          " 1g.5gb",
                                          "1 g.5gb",
                                          "1g. 5gb",
                                          "1g .5gb",
                                          "+1g.5gb",
                                          "-1g.5gb",
                                          "1g.-5gb",
                                          "1g.+5gb",
                                          "01g.05gb",
                                          "1g.5.5gb",
                                          "1g.2.5gb",
                                          "1g.1e1gb",
                                          "1g.0x10gb",
                                          "1g.inf",
                                          "1g.nangb",
                                          "1g.",
                                          "1g",
                                          "g.5gb",
                                          ".5gb",
                                          "",
                                          "gb",
                                          "1x.5gb",
                                          "1g,5gb",
                                          "12345678901g.5gb",
                                          "2147483647g.1gb",
                                          "1g.1e400gb",
                                          "1g.1e-400gb",
                                          "7g.80gb trailing"};
  for (const auto& name : names) {
    int compute = 0;
    double gb = 0;
    const bool read = std::sscanf(name.c_str(), "%dg.%lfgb", &compute, &gb) == 2;
    const auto parsed = parse_mig_profile(name);
    INFO('"' << name << '"');
    REQUIRE(parsed.has_value() == read);
    if (read) {
      CHECK(parsed->compute == compute);
      // the same double, NaN included
      CHECK((parsed->gb == gb || (parsed->gb != parsed->gb && gb != gb)));
    }
  }
}

namespace rightsize {
namespace {

// An 80 GiB GPU cut into 7 compute slices, profiles up to 7g.80gb; $2.80/h, bought for $28,000
// plus $7,000 of its server, 8 to a server.
Gpu made_up_gpu() {
  Gpu g;
  g.name = "X-80GB";
  g.memory = gib(80);
  g.usable_memory = gib(79);
  g.memory_bandwidth = gb_per_s(3500);
  g.dense[TensorPrecision::bf16] = tflop_per_s(700);
  g.tdp = watts(700);
  g.gpu_link_kind = "nvlink4";
  g.nvlink_domain = 8;
  g.mig = Mig{7, {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}};
  Price cloud;
  cloud.provider = "Cloud";
  cloud.kind = "on_demand";
  cloud.per_gpu = cloud.listed_per_gpu = usd_per_hour(2.80);
  cloud.as_of = "2026-11-21";
  g.prices.push_back(cloud);
  Purchase p;
  p.gpu = usd(28000);
  p.server_share = usd(7000);
  p.gpus_per_server = 8;
  g.purchase = p;
  return g;
}

} // namespace

TEST_CASE("mig slice: a profile's shares of its GPU", "[catalog][mig]") {
  const Gpu g = made_up_gpu();
  CHECK(detail::largest_mig_gb(g) == 80);

  SECTION("1g.10gb: 1/7 of the compute, 10/80 of the memory, priced at the larger share") {
    const auto s = mig_slice(g, "1g.10gb", true);
    REQUIRE(s);
    CHECK(s->name == "X-80GB 1g.10gb");
    CHECK(to_gib(s->memory) == Approx(10));
    CHECK(to_gib(*s->usable_memory) == Approx(79.0 / 8));
    CHECK(to_gb_per_s(s->memory_bandwidth) == Approx(3500.0 / 8));
    CHECK(to_tflop_per_s(*s->rate(TensorPrecision::bf16)) == Approx(100));
    CHECK(s->tdp.si() == Approx(100));
    CHECK(s->gpu_link_kind == "none");
    CHECK_FALSE(s->has_nvlink());
    CHECK(s->nvlink_domain == 1);
    CHECK_FALSE(s->mig);
    CHECK(s->provenance.empty());
    // max(1/7, 1/8) = 1/7 of $2.80/h.
    REQUIRE(s->prices.size() == 1);
    CHECK(s->prices[0].per_gpu.si() == Approx(usd_per_hour(0.40).si()));
    // A GPU holds floor(7) = 7 such slices: each costs 1/7 of the GPU and its server share.
    REQUIRE(s->purchase);
    CHECK(s->purchase->gpu.si() == Approx(4000));
    CHECK(s->purchase->server_share.si() == Approx(1000));
    CHECK(s->purchase->gpus_per_server == 56);
    CHECK(s->purchase->units_per_gpu == 7);
    CHECK(s->purchase->unit_tdp->si() == Approx(100));
  }
  SECTION("3g.40gb: half the memory is the larger share; a GPU holds two") {
    const auto s = mig_slice(g, "3g.40gb", true);
    REQUIRE(s);
    CHECK(s->prices[0].per_gpu.si() == Approx(usd_per_hour(1.40).si()));
    CHECK(s->purchase->units_per_gpu == 2);
    CHECK(s->purchase->gpu.si() == Approx(14000));
  }
  SECTION("unpriced: the figures without prices or purchase") {
    const auto s = mig_slice(g, "2g.20gb", false);
    REQUIRE(s);
    CHECK(to_gib(s->memory) == Approx(20));
    CHECK(s->prices.empty());
    CHECK_FALSE(s->purchase);
  }
  SECTION("the whole GPU, a name that does not read, a GPU without MIG: none") {
    CHECK_FALSE(mig_slice(g, "7g.80gb", true));
    CHECK_FALSE(mig_slice(g, "full", true));
    Gpu whole = g;
    whole.mig.reset();
    CHECK_FALSE(mig_slice(whole, "1g.10gb", true));
    CHECK(detail::largest_mig_gb(whole) == 0);
  }
  SECTION("the detail form gives what the public one does") {
    const auto parsed = parse_mig_profile("1g.10gb");
    REQUIRE(parsed);
    const auto a = detail::mig_slice(g, "1g.10gb", *parsed, detail::largest_mig_gb(g), true);
    const auto b = mig_slice(g, "1g.10gb", true);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->name == b->name);
    CHECK(a->memory.si() == b->memory.si());
    CHECK(a->prices[0].per_gpu.si() == b->prices[0].per_gpu.si());
  }
}

} // namespace rightsize
