// A locked configuration: when two are the same one (check's "now best", deploy --lock's lookup),
// and its figures compared with a threshold each (check/result.hpp).

#include <rightsize/check/result.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;

namespace {

LockedConfiguration two_l40s() {
  LockedConfiguration l;
  l.gpu = "L40S-48GB";
  l.gpus = 2;
  l.replicas = 2;
  l.layout.tp = 1;
  l.layout.pp = 1;
  l.layout.dp = 2;
  l.layout.ep = 1;
  l.weights = "fp8";
  l.kv_cache = "fp8";
  l.memory_per_gpu_bytes = 90e9;
  l.memory_budget_bytes = 100e9;
  l.usd_per_hour = 1.72;
  l.tco_usd = 61524.4;
  l.ttft_ms = 221.7;
  l.tpot_ms = 19.7;
  l.output_tokens_per_s = 1693.6;
  return l;
}

LockEntry entry_of(const LockedConfiguration& l) {
  LockEntry e;
  e.feasible = true;
  e.recommended = l;
  return e;
}

} // namespace

TEST_CASE("configuration: the same replica, the same deployment", "[check]") {
  const LockedConfiguration a = two_l40s();
  LockedConfiguration b = a;
  b.memory_per_gpu_bytes = 1; // figures never count
  b.usd_per_hour = 9;
  CHECK(same_configuration(a, b));
  CHECK(same_configuration(a, b, Sameness::replica));

  SECTION("another replica count: the same replica, another deployment") {
    b.replicas = 3;
    b.gpus = 3;
    b.layout.dp = 3;
    CHECK(same_configuration(a, b, Sameness::replica));
    CHECK_FALSE(same_configuration(a, b, Sameness::deployment));
  }
  SECTION("context parallelism: the same replica for deploy, another deployment") {
    b.layout.cp = 2;
    CHECK(same_configuration(a, b, Sameness::replica));
    CHECK_FALSE(same_configuration(a, b));
  }
  SECTION("GPU, tensor, pipeline or expert parallel size, or a format: another replica") {
    const auto differs = [&](LockedConfiguration c) {
      return !same_configuration(a, c, Sameness::replica) && !same_configuration(a, c);
    };
    LockedConfiguration c = a;
    c.gpu = "H100-SXM-80GB";
    CHECK(differs(c));
    c = a;
    c.layout.tp = 2;
    CHECK(differs(c));
    c = a;
    c.layout.pp = 2;
    CHECK(differs(c));
    c = a;
    c.layout.ep = 2;
    CHECK(differs(c));
    c = a;
    c.weights = "bf16";
    CHECK(differs(c));
    c = a;
    c.kv_cache = "bf16";
    CHECK(differs(c));
  }
}

TEST_CASE("configuration: as text, with CP only where it is above 1", "[check]") {
  LockedConfiguration l = two_l40s();
  CHECK(configuration_text(l) == "2 x L40S-48GB (TP1 PP1 DP2, fp8/fp8)");
  l.layout.cp = 4;
  CHECK(configuration_text(l) == "2 x L40S-48GB (TP1 CP4 PP1 DP2, fp8/fp8)");
  CHECK_FALSE(configuration_to_json(two_l40s())["parallelism"].contains("cp"));
  CHECK(configuration_to_json(l)["parallelism"]["cp"] == 4);
  // Expert and attention data parallelism show too: a move to attention DP at the same TP was
  // "TP8 PP1 DP1 -> TP8 PP1 DP1".
  LockedConfiguration moe = two_l40s();
  moe.layout.tp = 8;
  moe.layout.ep = 8;
  moe.layout.attention_dp = 8;
  CHECK(configuration_text(moe) == "2 x L40S-48GB (TP8 EP8 DP-attention8 PP1 DP2, fp8/fp8)");
  moe.prefill_replicas = 1;
  CHECK(configuration_text(moe) ==
        "2 x L40S-48GB (1P+1D x TP8 EP8 DP-attention8 PP1, disaggregated, fp8/fp8)");
}

TEST_CASE("figures: an unchanged spec still holds the memory headroom threshold", "[check]") {
  // 90 GB of a 100 GB budget: 10.0% left free.
  const LockEntry lock = entry_of(two_l40s());
  CheckThresholds t;
  CHECK(unchanged_result(lock, t).status == "ok");
  t.memory_headroom = 0.20;
  const CheckResult r = unchanged_result(lock, t);
  CHECK(r.status == "regression");
  CHECK(r.exit_code == 1);
  REQUIRE(r.crossed.size() == 1);
  CHECK(r.crossed[0].check == "memory");
  CHECK(r.crossed[0].text ==
        "memory: 10.0% of the memory budget left free, under the 20% headroom threshold");
  CHECK(r.changes.empty()); // the figures are the lock's
}

TEST_CASE("figures: a lock with nothing feasible stays infeasible", "[check]") {
  LockEntry lock;
  CheckThresholds t;
  const CheckResult r = unchanged_result(lock, t);
  CHECK(r.status == "infeasible");
  CHECK(r.exit_code == 3);
  t.fail_on = {"memory"};
  CHECK(unchanged_result(lock, t).exit_code == 0);
}

TEST_CASE("outcome: --update accepts what moved", "[check]") {
  CheckResult r;
  r.status = "regression";
  r.exit_code = 1;
  r.crossed = {{"cost", "cost: $/hour $1.38/h -> $1.72/h (+25.0%), over the 10% threshold"}};
  Change change;
  change.crossed = true;
  r.changes = {change};
  accept_update(r);
  CHECK(r.status == "updated");
  CHECK(r.exit_code == 0);
  CHECK(r.crossed.empty());
  CHECK_FALSE(r.changes[0].crossed);
  CHECK(r.warnings ==
        std::vector<std::string>{"accepted: cost: $/hour $1.38/h -> $1.72/h (+25.0%), over the 10% "
                                 "threshold"});

  CheckResult added;
  added.status = "added";
  added.exit_code = 1;
  added.crossed = {{"added", "added: ..."}};
  accept_update(added);
  CHECK(added.status == "added");
  CHECK(added.exit_code == 0);
  CHECK(added.warnings.empty());
}

TEST_CASE("outcome: the worst exit code is 2, then 3, then 1, then 0", "[check]") {
  CHECK(worse_exit_code(0, 1) == 1);
  CHECK(worse_exit_code(1, 3) == 3);
  CHECK(worse_exit_code(3, 2) == 2);
  CHECK(worse_exit_code(2, 3) == 2);
  CHECK(worse_exit_code(1, 0) == 1);
}
