// check's run, one outcome at a time, through the library (check/run.hpp), not the CLI. The
// spec is the 8B chat example: its plan recommends 1 replica of 1 x L40S-48GB in fp8 (2 before the
// transfer bands of issue 44), at $0.86/h, x 730 h = $627.80 the first month (docs/ci.md).

#include "check_repo.hpp"

#include <rightsize/check/run.hpp>

#include <catch2/catch.hpp>

#include <filesystem>

using namespace rightsize;
using rightsize::test::CheckRepo;

namespace {

const char* const k_locked_text = "1 x L40S-48GB (TP1 PP1 DP1, fp8/fp8)";

} // namespace

TEST_CASE("check run: a spec without a lock entry is added, and --update locks it", "[check]") {
  CheckRepo repo;
  const std::string spec = repo.write_spec("chat.json");
  CheckRequest r = repo.request({spec});

  SECTION("added: its plan, exit 0 by default") {
    const CheckRun run = CheckRepo::check(r);
    REQUIRE(run.results.size() == 1);
    const CheckResult& added = run.results[0];
    CHECK(added.status == "added");
    CHECK(added.exit_code == 0);
    CHECK(run.exit_code == 0);
    CHECK(added.spec_file == spec);
    CHECK(added.lock_file == repo.lock_path());
    REQUIRE(added.now);
    CHECK(configuration_text(*added.now) == k_locked_text);
    CHECK(added.now->usd_per_hour == Approx(0.86));
    CHECK(added.crossed.empty());
    CHECK_FALSE(std::filesystem::exists(repo.lock_path())); // nothing written without --update
  }
  SECTION("--fail-on added: exit 1 with the configuration it would lock") {
    r.thresholds.fail_on = "added";
    const CheckRun run = CheckRepo::check(r);
    REQUIRE(run.results[0].crossed.size() == 1);
    CHECK(run.results[0].crossed[0].check == "added");
    CHECK(run.results[0].crossed[0].text ==
          "added: " + std::string(k_locked_text) + " at $0.860/h");
    CHECK(run.exit_code == 1);
  }
  SECTION("--update: still 'added', exit 0, and the lock holds the plan") {
    r.thresholds.fail_on = "added";
    r.update = true;
    const CheckRun run = CheckRepo::check(r);
    CHECK(run.results[0].status == "added");
    CHECK(run.results[0].crossed.empty());
    CHECK(run.exit_code == 0);
    const LockFile lock = repo.read_lock();
    const LockEntry& entry = lock.entries.at("chat.json");
    REQUIRE(entry.recommended);
    CHECK(entry.recommended->usd_per_hour == Approx(0.86));
    CHECK(*entry.recommended->usd_per_month == Approx(627.8));
    CHECK(entry.settings == nlohmann::json{{"objective", "tco"},
                                           {"confidence", "band"},
                                           {"share_gpus", false},
                                           {"assume", nlohmann::json::array()}});
    CHECK(lock.rightsize_version == RIGHTSIZE_VERSION);
  }
}

TEST_CASE("check run: a spec as locked is ok, reported from the lock without a plan", "[check]") {
  CheckRepo repo;
  const std::string spec = repo.write_spec("chat.json");
  repo.lock({spec});
  // The figures of an unchanged spec are the lock's: an edit of the lock alone shows nowhere.
  repo.edit_locked(spec, [](LockedConfiguration& l) { l.usd_per_hour = 1.0; });
  const CheckRun run = CheckRepo::check(repo.request({spec}));
  const CheckResult& ok = run.results.at(0);
  CHECK(ok.status == "ok");
  CHECK(ok.exit_code == 0);
  CHECK(ok.basis == "locked configuration");
  CHECK(ok.changes.empty());
  CHECK(ok.warnings.empty());
  CHECK(ok.cause.text() == "nothing changed");
  CHECK(ok.now->usd_per_hour == 1.0);
}

TEST_CASE("check run: a figure that moved is a warning under its threshold, a regression over it",
          "[check]") {
  CheckRepo repo;
  const std::string spec = repo.write_spec("chat.json");
  repo.lock({spec});
  CheckRequest r = repo.request({spec});
  r.replan = true; // the lock's digests still match: plan anyway, as after a change

  SECTION("$/hour +5.0%, under the 10% cost threshold: warning, exit 0") {
    repo.edit_locked(spec, [](LockedConfiguration& l) { l.usd_per_hour = 0.86 / 1.05; });
    const CheckResult res = CheckRepo::check(r).results.at(0);
    CHECK(res.status == "warning");
    CHECK(res.exit_code == 0);
    CHECK(res.basis == "locked configuration");
    CHECK(res.warnings == std::vector<std::string>{"$/hour +5.0% (cost threshold 10%)"});
    REQUIRE(res.changes.size() == 1);
    CHECK(res.changes[0].metric == "usd_per_hour");
    CHECK(res.changes[0].before == Approx(0.819).epsilon(1e-3));
    CHECK(res.changes[0].after == Approx(0.86));
    CHECK_FALSE(res.changes[0].crossed);
  }
  SECTION("$/hour +25.0%, over it: regression, exit 1, the crossing as numbers") {
    repo.edit_locked(spec, [](LockedConfiguration& l) { l.usd_per_hour = 0.86 / 1.25; });
    const CheckRun run = CheckRepo::check(r);
    const CheckResult& res = run.results.at(0);
    CHECK(res.status == "regression");
    CHECK(run.exit_code == 1);
    REQUIRE(res.crossed.size() == 1);
    CHECK(res.crossed[0].check == "cost");
    CHECK(res.crossed[0].text ==
          "cost: $/hour $0.688/h -> $0.860/h (+25.0%), over the 10% threshold");
    REQUIRE(res.changes.size() == 1);
    CHECK(res.changes[0].crossed);
    CHECK(*res.changes[0].threshold == 0.10);
    CHECK(*res.changes[0].relative() == Approx(0.25));
  }
  SECTION("the same move, cost not among the checks that fail: a warning") {
    repo.edit_locked(spec, [](LockedConfiguration& l) { l.usd_per_hour = 0.86 / 1.25; });
    r.thresholds.fail_on = "latency";
    const CheckResult res = CheckRepo::check(r).results.at(0);
    CHECK(res.status == "warning");
    CHECK(res.warnings ==
          std::vector<std::string>{
              "cost: $/hour $0.688/h -> $0.860/h (+25.0%), over the 10% threshold"});
  }
}

TEST_CASE("check run: a spec nothing satisfies any more is infeasible, exit 3", "[check]") {
  CheckRepo repo;
  const std::string spec = repo.write_spec("chat.json");
  repo.lock({spec});
  repo.write_infeasible_spec("chat.json");
  CheckRequest r = repo.request({spec});
  SECTION("infeasible fails by default") {
    const CheckRun run = CheckRepo::check(r);
    const CheckResult& res = run.results.at(0);
    CHECK(res.status == "infeasible");
    CHECK(run.exit_code == 3);
    REQUIRE_FALSE(res.crossed.empty());
    CHECK(res.crossed.back().check == "infeasible");
    CHECK(res.crossed.back().text ==
          "infeasible: no GPU configuration satisfies the spec any more");
    CHECK(res.cause.spec);
    CHECK(res.cause.text() == "spec changed");
  }
  SECTION("without infeasible among the checks that fail: exit 0") {
    r.thresholds.fail_on = "memory";
    CHECK(CheckRepo::check(r).exit_code == 0);
  }
}

TEST_CASE("check run: a spec that cannot be read is an error of its own, in spec order",
          "[check]") {
  CheckRepo repo;
  const std::string good = repo.write_spec("a.json");
  const std::string bad =
      repo.write_spec("b.json", [](nlohmann::json& s) { s["workload"]["concurrency"] = 0; });
  const std::string also_good = repo.write_spec("c.json");
  CheckRequest r = repo.request({good, bad, also_good});
  r.jobs = 3; // the order and the texts are the same on any number of threads
  const CheckRun run = CheckRepo::check(r);
  REQUIRE(run.results.size() == 3);
  CHECK(run.results[0].status == "added");
  CHECK(run.results[1].status == "error");
  CHECK(run.results[1].spec_file == bad);
  CHECK(run.results[1].exit_code == 2);
  CHECK(run.results[1].error == bad + ":/workload/concurrency: must be between 1 and 1e+06, got 0");
  CHECK(run.results[2].status == "added");
  CHECK(run.exit_code == 2); // the worst: 2, then 3, then 1, then 0
  CHECK(result_notes(run.results).front().text == run.results[1].error);
}

TEST_CASE("check run: a directory's lock entry whose spec is gone is removed", "[check]") {
  CheckRepo repo;
  repo.write_spec("chat.json");
  const std::string gone = repo.write_spec("gone.json");
  const std::string dir = repo.path("");
  repo.lock({dir});
  std::filesystem::remove(gone);
  CheckRequest r = repo.request({dir});

  SECTION("removed: exit 0 by default") {
    const CheckRun run = CheckRepo::check(r);
    REQUIRE(run.results.size() == 2);
    CHECK(run.results[0].status == "ok");
    const CheckResult& removed = run.results[1];
    CHECK(removed.status == "removed");
    CHECK(removed.spec_file == gone);
    REQUIRE(removed.locked);
    CHECK(configuration_text(*removed.locked) == k_locked_text);
    CHECK(run.exit_code == 0);
  }
  SECTION("--fail-on removed: exit 1") {
    r.thresholds.fail_on = "removed";
    const CheckRun run = CheckRepo::check(r);
    REQUIRE(run.results[1].crossed.size() == 1);
    CHECK(run.results[1].crossed[0].text ==
          "removed: the lock has an entry for gone.json, whose spec is gone (" +
              std::string(k_locked_text) + ")");
    CHECK(run.exit_code == 1);
  }
  SECTION("--update drops the entry") {
    r.thresholds.fail_on = "removed";
    r.update = true;
    const CheckRun run = CheckRepo::check(r);
    CHECK(run.results[1].status == "removed");
    CHECK(run.exit_code == 0);
    CHECK(repo.read_lock().entries.count("gone.json") == 0);
    CHECK(repo.read_lock().entries.count("chat.json") == 1);
  }
  SECTION("a spec named alone: its siblings' entries are not its business") {
    const CheckRun run = CheckRepo::check(repo.request({repo.path("chat.json")}));
    CHECK(run.results.size() == 1);
  }
}

TEST_CASE("check run: --update accepts a change, says what it accepted and rewrites the lock",
          "[check]") {
  CheckRepo repo;
  const std::string spec = repo.write_spec("chat.json");
  repo.lock({spec});
  repo.edit_locked(spec, [](LockedConfiguration& l) { l.usd_per_hour = 0.86 / 1.25; });
  CheckRequest r = repo.request({spec});
  r.update = true;
  r.replan = true;
  const CheckRun run = CheckRepo::check(r);
  const CheckResult& res = run.results.at(0);
  CHECK(res.status == "updated");
  CHECK(res.exit_code == 0);
  CHECK(res.basis == "new recommendation"); // --update compares what it locks with the lock
  CHECK(res.crossed.empty());
  CHECK(res.warnings == std::vector<std::string>{"accepted: cost: $/hour $0.688/h -> $0.860/h "
                                                 "(+25.0%), over the 10% threshold"});
  CHECK(repo.read_lock().entries.at("chat.json").recommended->usd_per_hour == Approx(0.86));
}

TEST_CASE("check run: the lock's settings are replayed, the command line's over them", "[check]") {
  CheckRepo repo;
  const std::string spec = repo.write_spec("chat.json");
  CheckRequest lock = repo.request({spec});
  lock.update = true;
  lock.given = {{"objective", "latency"}};
  CheckRepo::check(lock);
  CHECK(repo.read_lock().entries.at("chat.json").settings["objective"] == "latency");

  const CheckResult replayed = CheckRepo::check(repo.request({spec})).results.at(0);
  CHECK(replayed.status == "ok");
  CHECK_FALSE(replayed.cause.settings);

  CheckRequest other = repo.request({spec});
  other.given = {{"objective", "tco"}};
  const CheckResult overridden = CheckRepo::check(other).results.at(0);
  CHECK(overridden.cause.settings);
  CHECK(overridden.cause.text() == "settings changed");
}

TEST_CASE("check run: what stops the whole run, after the notes made before it", "[check]") {
  CheckRepo repo;
  const std::string a = repo.write_spec("a.json");
  const std::string b = repo.write_spec("b.json");
  CheckRequest r = repo.request({a, b});
  r.lock = repo.lock_path();
  r.thresholds.fail_on = "cost";
  std::vector<CheckNote> notes;
  REQUIRE_THROWS_WITH(run_check(r, notes),
                      "--lock: one lock file cannot be given for several specs; leave it out to "
                      "use rightsize.lock.json beside each spec");
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].text == "thresholds from " + repo.config_path());
  CHECK(notes[1].level == CheckNote::Level::info);
  CHECK(notes[1].text == "--fail-on: memory is always checked");

  SECTION("-o over an input") {
    CheckRequest o = repo.request({a});
    o.output = repo.lock_path();
    REQUIRE_THROWS_WITH(CheckRepo::check(o),
                        "--output: " + repo.lock_path() +
                            " is an input of this run; refusing to overwrite it with the report");
  }
  SECTION("a --lock that does not exist") {
    CheckRequest o = repo.request({a});
    o.lock = repo.path("typo.lock.json");
    REQUIRE_THROWS_WITH(CheckRepo::check(o), "--lock: " + o.lock + ": no such lock file");
  }
}

TEST_CASE("check run: a directory means its specs, in name order, each once", "[check]") {
  CheckRepo repo;
  repo.write_spec("b.json");
  repo.write_spec("a.json");
  repo.write_spec("sub/c.json");
  repo.write_spec("x.lock.json");
  std::filesystem::create_directories(repo.path("empty"));
  const ExpandedSpecs e = expand_specs({repo.path(""), repo.path("a.json"), repo.path("empty")});
  CHECK(e.specs == std::vector<std::string>{repo.path("a.json"), repo.path("b.json")});
  REQUIRE(e.warnings.size() == 2);
  REQUIRE(e.errors.size() == 1);
  CHECK(e.errors[0].second == repo.path("empty") + ": directory holds no spec (.json) files");
  CHECK(e.from_directories.count(repo.path("rightsize.lock.json")) == 1);
}

TEST_CASE("check run: percentile targets lock and compare the simulated p99", "[check]") {
  CheckRepo repo;
  const std::string spec = repo.write_spec("chat.json", [](nlohmann::json& s) {
    s["workload"]["targets"]["ttft_ms"] = {{"p99", 3000}};
    s["workload"]["targets"]["tpot_ms"] = {{"p99", 100}};
  });
  repo.lock({spec});
  // The locked p99 TTFT 30% below what the configuration gives now: over the 20% threshold.
  double locked = 0;
  repo.edit_locked(spec, [&](LockedConfiguration& l) {
    REQUIRE(l.ttft_p99_ms);
    REQUIRE(l.tpot_p99_ms);
    CHECK(*l.ttft_p99_ms > *l.ttft_ms); // the tail above the mean
    locked = *l.ttft_p99_ms / 1.3;
    l.ttft_p99_ms = locked;
  });
  CheckRequest r = repo.request({spec});
  r.replan = true;
  const CheckResult res = CheckRepo::check(r).results.at(0);
  CHECK(res.status == "regression");
  const auto change = std::find_if(res.changes.begin(), res.changes.end(), [](const auto& c) {
    return c.metric == "ttft_p99_ms";
  });
  REQUIRE(change != res.changes.end());
  CHECK(change->label == "p99 TTFT");
  CHECK(change->before == Approx(locked));
  CHECK(*change->relative() == Approx(0.3));
  CHECK(change->crossed);
  CHECK(std::none_of(res.changes.begin(), res.changes.end(), [](const auto& c) {
    return c.metric == "tpot_p99_ms" || c.metric == "ttft_ms";
  }));
  // A spec without percentile targets records no p99.
  const std::string plain = repo.write_spec("plain.json");
  repo.lock({plain});
  const CheckResult same = CheckRepo::check(repo.request({plain})).results.at(0);
  REQUIRE(same.now);
  CHECK_FALSE(same.now->ttft_p99_ms);
}
