// deploy --lock: the locked entry, the spec held to the locked formats, and the locked
// configuration found again among a fresh plan's candidates (check/locked.hpp).

#include "check_repo.hpp"

#include <rightsize/check/lock.hpp>
#include <rightsize/check/locked.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>

#include <catch2/catch.hpp>

using namespace rightsize;
using rightsize::test::CheckRepo;

namespace {

// The plan of `spec_file` as plan and deploy make it with the default settings.
Plan plan_of(const std::string& spec_file, Spec& spec) {
  const std::string data = RIGHTSIZE_DATA_DIR;
  static const Catalog catalog = load_catalog(data + "/gpus.json", "", CatalogDetail::figures);
  static const Constants constants = Constants::load(data + "/memory.json");
  static const Efficiency efficiency = Efficiency::load(data + "/efficiency.json");
  static const Uncertainty uncertainty = Uncertainty::load(data + "/uncertainty.json");
  static const EngineSupport engines = load_engine_support(data + "/engines.json");
  spec = load_spec(spec_file);
  const PlanSettings settings;
  apply_settings(settings, catalog, spec);
  return make_plan(spec,
                   catalog,
                   constants,
                   efficiency,
                   plan_options_for(settings, spec, uncertainty, engines, "2026-12-01"));
}

} // namespace

TEST_CASE("locked: the entry of a spec, its settings with the command line's over them",
          "[check]") {
  CheckRepo repo;
  const std::string spec = repo.write_spec("chat.json");
  REQUIRE_THROWS_WITH(read_locked_plan(repo.lock_path(), spec, {}),
                      repo.lock_path() +
                          ": lock file not found; create it with 'rightsize plan SPEC --lock'");
  repo.lock({spec});
  const LockedPlan locked = read_locked_plan(repo.lock_path(), spec, {{"objective", "gpus"}});
  CHECK(configuration_text(locked.configuration) == "1 x L40S-48GB (TP1 PP1 DP1, fp8/fp8)");
  REQUIRE(locked.settings);
  CHECK(locked.settings->objective == Objective::gpus);
  const std::string other = repo.write_spec("other.json");
  REQUIRE_THROWS_WITH(read_locked_plan(repo.lock_path(), other, {}),
                      repo.lock_path() +
                          ": has no lock for other.json; create it with "
                          "'rightsize plan " +
                          other + " --lock'");
}

TEST_CASE("locked: the locked configuration among the plan's candidates", "[check]") {
  CheckRepo repo;
  Spec spec;
  const Plan plan = plan_of(repo.write_spec("chat.json"), spec);
  REQUIRE(plan.feasible());
  LockedPlan locked{"specs/rightsize.lock.json", configuration_of(plan.candidates.front()), {}};
  std::vector<std::string> notes;

  SECTION("found: the plan's candidate") {
    const Candidate c = locked_candidate(plan, locked, notes);
    CHECK(c.gpu->name == "L40S-48GB");
    CHECK(c.replicas == 1);
    CHECK(notes.empty());
  }
  SECTION("the spec now needs another replica count: the lock's is deployed, with a note") {
    locked.configuration.replicas = 3;
    locked.configuration.layout.dp = 3; // a different deployment, the same replica
    const Candidate c = locked_candidate(plan, locked, notes);
    CHECK(c.replicas == 3);
    CHECK(notes == std::vector<std::string>{
                       "specs/rightsize.lock.json: the spec now needs 1 replicas of the locked "
                       "configuration, the lock says 3: deploying 3 (rightsize check reports the "
                       "change)"});
  }
  SECTION("a replica the plan no longer finds") {
    locked.configuration.layout.tp = 8;
    REQUIRE_THROWS_WITH(locked_candidate(plan, locked, notes),
                        "specs/rightsize.lock.json: the locked configuration, 1 x L40S-48GB (TP8 "
                        "PP1 DP1, fp8/fp8), is no longer one the plan finds for the spec as it "
                        "is now; see rightsize check, and re-lock with rightsize check --update");
  }
  SECTION("the spec held to the locked formats") {
    Spec held = spec;
    restrict_to_locked_formats(locked, held);
    CHECK(held.precision.allow == std::vector<DType>{DType::fp8}); // the checkpoint is bf16
    locked.configuration.kv_cache = "fp7";
    REQUIRE_THROWS_WITH(restrict_to_locked_formats(locked, held),
                        "specs/rightsize.lock.json:kv_cache: unknown format \"fp7\"");
  }
}
