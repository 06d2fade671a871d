// The price a GPU is paid at (catalog/price_pick.hpp): the cheapest of the kind, from the provider
// when one is named, and its label.

#include "fixtures.hpp"

#include <rightsize/catalog/price_pick.hpp>

#include <catch2/catch.hpp>

namespace rightsize {

namespace {

Price price(std::string provider,
            std::string kind,
            double per_hour,
            bool stated = true,
            std::string instance = "",
            int gpus_per_instance = 1) {
  Price p;
  p.provider = std::move(provider);
  p.kind = std::move(kind);
  p.per_gpu = p.listed_per_gpu = usd_per_hour(per_hour);
  p.as_of = "2026-11-21";
  p.as_of_stated = stated;
  p.instance = std::move(instance);
  p.gpus_per_instance = gpus_per_instance;
  p.shape_stated = !p.instance.empty();
  return p;
}

// AWS's A10G shapes (SKY_AWS, us-east-1): g5.xlarge 1 GPU $1.006/h, g5.12xlarge 4 GPUs $5.672/h,
// g5.48xlarge 8 GPUs $16.288/h, as per-GPU prices.
Gpu a10g_at_aws() {
  Gpu g;
  g.name = "A10G-24GB";
  g.prices = {price("AWS", "on_demand", 1.006, false, "g5.xlarge", 1),
              price("AWS", "on_demand", 5.672 / 4, false, "g5.12xlarge", 4),
              price("AWS", "on_demand", 16.288 / 8, false, "g5.48xlarge", 8)};
  return g;
}

} // namespace

TEST_CASE("pick price: the cheapest of the kind, from the provider when named",
          "[catalog][prices]") {
  Gpu g;
  g.prices = {price("A", "on_demand", 3.00),
              price("B", "on_demand", 2.50),
              price("B", "spot", 1.00),
              price("C", "on_demand", 2.75)};
  CHECK(pick_price(g, "on_demand", std::nullopt) == &g.prices[1]);
  CHECK(pick_price(g, "spot", std::nullopt) == &g.prices[2]);
  CHECK(pick_price(g, "on_demand", std::string("C")) == &g.prices[3]);
  CHECK(pick_price(g, "committed", std::nullopt) == nullptr);
  CHECK(pick_price(g, "spot", std::string("A")) == nullptr);
  // Equal prices: the first listed.
  g.prices.push_back(price("D", "on_demand", 2.50));
  CHECK(pick_price(g, "on_demand", std::nullopt) == &g.prices[1]);
}

TEST_CASE("pick price: the bundled H100's on-demand and spot prices", "[catalog][prices]") {
  // data/gpus.json: Nebius $2.95/h on demand is the cheapest, $1.25/h spot; AWS $12.29/h.
  const Gpu& h100 = test::catalog().resolve("H100-SXM-80GB", "test");
  const Price* on_demand = pick_price(h100, "on_demand", std::nullopt);
  REQUIRE(on_demand != nullptr);
  CHECK(on_demand->provider == "Nebius");
  CHECK(on_demand->per_gpu.si() == Approx(usd_per_hour(2.95).si()));
  CHECK(pick_price(h100, "spot", std::nullopt)->per_gpu.si() == Approx(usd_per_hour(1.25).si()));
  CHECK(pick_price(h100, "on_demand", std::string("AWS"))->per_gpu.si() ==
        Approx(usd_per_hour(12.29).si()));
}

TEST_CASE("cloud price label: the instance's price, provider, shape, kind and date",
          "[catalog][prices]") {
  CHECK(cloud_price_label(price("Nebius", "on_demand", 2.95, false)) ==
        "$2.95/h Nebius (per GPU, shape not stated) on_demand (retrieved 2026-11-21)");
  CHECK(cloud_price_label(price("AWS", "spot", 12.29, true, "p5.48xlarge", 8)) ==
        "$98.32/h AWS p5.48xlarge (8 GPUs, instance) spot (as of 2026-11-21)");
  Price t4 = price("GCP", "on_demand", 0.54, false, "t4-on-n1", 1);
  t4.gpu_only = true;
  t4.host = PriceHost{"n1-standard-4", usd_per_hour(0.19), {}};
  CHECK(cloud_price_label(t4) ==
        "$0.540/h GCP t4-on-n1 (1 GPU, GPU + host n1-standard-4) on_demand (retrieved "
        "2026-11-21)");
}

// Hand-checked: n GPUs per instance, k per replica, R replicas.
TEST_CASE("instances for a layout: whole replicas per instance, or whole instances per replica",
          "[catalog][prices]") {
  // n % k == 0: an instance holds n/k replicas; ceil(R / (n/k)).
  CHECK(instances_for(4, {4, 4}, 1) == 1LL);  // TP4 on g5.12xlarge: one instance
  CHECK(instances_for(4, {2, 2}, 2) == 1LL);  // two TP2 replicas share one 4-GPU instance
  CHECK(instances_for(4, {2, 2}, 3) == 2LL);  // three: ceil(3 / 2) = 2
  CHECK(instances_for(8, {1, 1}, 9) == 2LL);  // nine TP1 replicas: ceil(9 / 8) = 2
  CHECK(instances_for(1, {1, 1}, 5) == 5LL);
  CHECK(instances_for(8, {2, 2}, 0) == 0LL);
  // k % n == 0 with TP inside one instance: a replica spans k/n instances; R x k/n.
  CHECK(instances_for(8, {16, 8}, 2) == 4LL); // TP8 PP2 on 8-GPU instances: 2 each
  CHECK(instances_for(1, {4, 1}, 3) == 12LL); // PP4 over 1-GPU instances
  CHECK(instances_for(4, {8, 4}, 1) == 2LL);
  // Otherwise no: TP4 cannot span four 1-GPU VMs; 3 GPUs do not divide 4; TP8 not in a 4-GPU one.
  CHECK_FALSE(instances_for(1, {4, 4}, 1));
  CHECK_FALSE(instances_for(4, {3, 3}, 1));
  CHECK_FALSE(instances_for(8, {12, 4}, 1));
  CHECK_FALSE(instances_for(4, {8, 8}, 1));
}

TEST_CASE("pick fleet: the cheapest shape that holds the layout, paid for whole",
          "[catalog][prices]") {
  const Gpu g = a10g_at_aws();
  const std::optional<std::string> aws("AWS");
  // TP4: one g5.12xlarge, $5.672/h, not 4 x g5.xlarge ($4.024/h): TP stays in one instance.
  auto f = pick_fleet(g, "on_demand", aws, {4, 4}, 1);
  REQUIRE(f);
  CHECK(f->price->instance == "g5.12xlarge");
  CHECK(f->instances == 1);
  CHECK(f->gpus() == 4);
  CHECK(f->per_hour().si() == Approx(usd_per_hour(5.672).si()));
  CHECK(cloud_fleet_label(*f) ==
        "$5.67/h AWS g5.12xlarge (4 GPUs, instance) on_demand (retrieved 2026-11-21)");
  // Two TP2 replicas: one g5.12xlarge ($5.672/h) holds both.
  f = pick_fleet(g, "on_demand", aws, {2, 2}, 2);
  REQUIRE(f);
  CHECK(f->price->instance == "g5.12xlarge");
  CHECK(f->instances == 1);
  CHECK(f->per_hour().si() == Approx(usd_per_hour(5.672).si()));
  // Three TP2 replicas: 2 x g5.12xlarge $11.344/h beats g5.48xlarge $16.288/h.
  f = pick_fleet(g, "on_demand", aws, {2, 2}, 3);
  REQUIRE(f);
  CHECK(f->instances == 2);
  CHECK(f->per_hour().si() == Approx(usd_per_hour(11.344).si()));
  CHECK(cloud_fleet_label(*f).rfind("2 x $5.67/h AWS g5.12xlarge", 0) == 0);
  // TP1: 3 replicas on 3 x g5.xlarge, $3.018/h.
  f = pick_fleet(g, "on_demand", aws, {1, 1}, 3);
  REQUIRE(f);
  CHECK(f->price->instance == "g5.xlarge");
  CHECK(f->per_hour().si() == Approx(usd_per_hour(3.018).si()));
  // TP3: no shape holds it; the reason names the shapes sold.
  std::string why;
  CHECK_FALSE(pick_fleet(g, "on_demand", aws, {3, 3}, 1, &why));
  CHECK(why == "no instance shape holds a replica of 3 GPUs (TP3 in one instance): AWS sells "
               "A10G-24GB in instances of 1, 4 and 8 GPUs");
  CHECK_FALSE(pick_fleet(g, "spot", aws, {1, 1}, 1, &why));
  CHECK(why == "no spot price from AWS in the catalog");
}

TEST_CASE("pick fleet: a price that states no shape is paid per GPU, TP included",
          "[catalog][prices]") {
  // An overlay's contract price without gpus_per_instance: TP4 is 4 GPUs x $2.00, as before.
  Gpu g;
  g.name = "H100";
  g.prices = {price("our-contract", "committed", 2.00)};
  const auto f = pick_fleet(g, "committed", std::nullopt, {4, 4}, 3);
  REQUIRE(f);
  CHECK(f->instances == 12);
  CHECK(f->per_hour().si() == Approx(usd_per_hour(24.0).si()));
}

TEST_CASE("pick fleet: a GPU-only price counts with its host, and without one is not used",
          "[catalog][prices]") {
  Gpu g;
  g.name = "T4-16GB";
  Price gcp = price("GCP", "on_demand", 0.35, false, "t4-on-n1", 1);
  gcp.gpu_only = true;
  g.prices = {gcp, price("AWS", "on_demand", 0.526, false, "g4dn.xlarge", 1)};
  // Without a host the GCP price is never picked, though lower.
  CHECK(pick_price(g, "on_demand", std::nullopt) == &g.prices[1]);
  auto f = pick_fleet(g, "on_demand", std::nullopt, {1, 1}, 1);
  REQUIRE(f);
  CHECK(f->price->provider == "AWS");
  std::string why;
  CHECK_FALSE(pick_fleet(g, "on_demand", std::string("GCP"), {1, 1}, 1, &why));
  CHECK(why.find("GPU only, without the VM it needs") != std::string::npos);
  CHECK(pick_price(g, "on_demand", std::string("GCP")) == nullptr);
}

TEST_CASE("bundled catalog: T4 at GCP completed with its n1-standard-4 host; AWS shapes",
          "[catalog][prices]") {
  const Gpu& t4 = test::catalog().resolve("T4-16GB", "test");
  const Price* gcp = pick_price(t4, "on_demand", std::string("GCP"));
  REQUIRE(gcp != nullptr);
  REQUIRE(gcp->host);
  CHECK(gcp->host->name == "n1-standard-4");
  CHECK(gcp->listed_per_gpu.si() == Approx(usd_per_hour(0.35).si()));
  CHECK(gcp->per_gpu.si() == Approx(usd_per_hour(0.54).si())); // 0.35 + 0.19
  // With its host GCP no longer ranks first: AWS g4dn.xlarge $0.526/h... rounded $0.53 there.
  CHECK(pick_price(t4, "on_demand", std::nullopt)->provider == "AWS");
  const Gpu& a10g = test::catalog().resolve("A10G-24GB", "test");
  const auto f = pick_fleet(a10g, "on_demand", std::string("AWS"), {4, 4}, 1);
  REQUIRE(f);
  CHECK(f->price->instance == "g5.12xlarge");
  CHECK(f->per_hour().si() == Approx(usd_per_hour(5.672).si()));
  // The AWS P family and Nebius B200 are 8-GPU instances.
  const Gpu& b200 = test::catalog().resolve("B200-SXM-180GB", "test");
  CHECK(pick_price(b200, "on_demand", std::string("Nebius"))->gpus_per_instance == 8);
  const Gpu& h100 = test::catalog().resolve("H100-SXM-80GB", "test");
  CHECK(pick_price(h100, "on_demand", std::string("AWS"))->gpus_per_instance == 8);
}

} // namespace rightsize
