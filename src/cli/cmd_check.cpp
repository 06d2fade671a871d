#include "cli/commands.hpp"
#include "cli/common_options.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/prices.hpp>
#include <rightsize/check/lock.hpp>
#include <rightsize/render/check.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

namespace rightsize::cli {

namespace fs = std::filesystem;

namespace {

struct CheckOptions {
  CommonOptions common;
  std::vector<std::string> specs;
  std::string lock;
  std::string max_cost = "10%";
  std::string max_latency = "20%";
  std::string fail_on = "infeasible,memory,cost,latency";
  bool update = false;
  std::vector<std::string> assume;
  int jobs = 0; // 0: one per core
};

double parse_percent(const std::string& text, const char* flag) {
  std::string t = text;
  const bool pct = !t.empty() && t.back() == '%';
  if (pct) {
    t.pop_back();
  }
  try {
    std::size_t used = 0;
    const double v = std::stod(t, &used);
    if (used != t.size() || v < 0 || !std::isfinite(v)) {
      throw std::invalid_argument("bad");
    }
    return pct ? v / 100.0 : v;
  } catch (const std::exception&) {
    throw InputError(flag,
                     "expected a percentage such as 10% (or a fraction such as 0.1), got \"" +
                         text + "\"");
  }
}

// Specs named on the command line; a directory means every spec in it (not lock files).
std::vector<std::string> expand_specs(const std::vector<std::string>& given) {
  std::vector<std::string> out;
  for (const auto& g : given) {
    std::error_code ec;
    if (fs::is_directory(g, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(g)) {
        const auto name = e.path().filename().string();
        if (e.path().extension() == ".json" && name.find(".lock.") == std::string::npos &&
            name != "rightsize.lock.json") {
          found.push_back(e.path().string());
        }
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) {
        throw InputError(g, "directory holds no spec (.json) files");
      }
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(g);
    }
  }
  return out;
}

std::string default_lock_path(const std::string& spec) {
  const fs::path dir = fs::path(spec).parent_path();
  return (dir.empty() ? fs::path("rightsize.lock.json") : dir / "rightsize.lock.json").string();
}

// 2 (bad input) > 3 (infeasible) > 1 (regression) > 0.
int worse(int a, int b) {
  const auto rank = [](int code) { return code == 2 ? 3 : code == 3 ? 2 : code == 1 ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

struct Planned {
  Spec spec;
  Plan plan;
};

Planned plan_spec(const std::string& file,
                  const Catalog& catalog,
                  const Constants& constants,
                  const Efficiency& eff,
                  const Uncertainty& uncertainty,
                  const EngineSupport& engines) {
  Spec spec = load_spec(file);
  // As in `plan`: the spec's provider in any case, and no plan against prices the catalog lacks.
  if (spec.deployment.mode == DeploymentMode::cloud) {
    auto& d = spec.deployment;
    if (d.provider) {
      d.provider = resolve_provider(catalog, *d.provider, file + ":/deployment/provider");
    }
    check_price_kind(catalog, d.price_kind, d.provider, file + ":/deployment/price_kind");
  }
  PlanOptions options;
  options.today = today();
  options.stale_days = spec.deployment.stale_price_days;
  options.uncertainty = &uncertainty;
  options.engines = &engines;
  return {spec, make_plan(spec, catalog, constants, eff, options)};
}

// Plans specs [begin, end) on `jobs` threads (the plans are independent and the data they share
// is read-only); a spec whose planning throws keeps its exception, rethrown in spec order by the
// caller, so the first error reported is the one a sequential run would stop at.
struct PlannedOrError {
  std::optional<Planned> planned;
  std::exception_ptr error;
};

template <class Plan1>
std::vector<PlannedOrError>
plan_range(const std::vector<std::string>& specs, std::size_t begin, std::size_t end, int jobs,
           const Plan1& plan_one) {
  std::vector<PlannedOrError> out(end - begin);
  std::atomic<std::size_t> next{begin};
  const auto work = [&] {
    for (std::size_t i = next++; i < end; i = next++) {
      try {
        out[i - begin].planned = plan_one(specs[i]);
      } catch (...) {
        out[i - begin].error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < jobs; ++w) {
    pool.emplace_back(work);
  }
  work();
  for (auto& t : pool) {
    t.join();
  }
  return out;
}

} // namespace

// Writes (or replaces) the lock entry of `plan`'s spec; used by plan --lock and check --update.
void write_lock_entry(const Plan& plan,
                      const std::string& spec_file,
                      const std::string& lock_path) {
  LockFile lock = read_lock_file(lock_path, /*allow_missing=*/true);
  lock.entries[lock_key(spec_file)] = make_lock_entry(plan);
  write_lock_file(lock);
}

void register_check(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CheckOptions>();
  auto* sub = app.add_subcommand("check",
                                 "Re-plan specs and compare with their lock files: exit 1 "
                                 "when a threshold is crossed (for CI, docs/ci.md)");
  sub->add_option("SPEC", o->specs, "Specs or directories of specs")->required();
  sub->add_option("--lock", o->lock, "Lock file (default: rightsize.lock.json beside each spec)")
      ->type_name("FILE");
  sub->add_option("--max-cost-increase", o->max_cost, "Fail above this cost increase")
      ->default_str("10%");
  sub->add_option("--max-latency-increase", o->max_latency, "Fail above this TTFT/TPOT increase")
      ->default_str("20%");
  sub->add_option(
         "--fail-on", o->fail_on, "Comma-separated: infeasible, gpu-change, cost, latency, memory")
      ->default_str("infeasible,memory,cost,latency");
  sub->add_flag("--update", o->update, "Rewrite the lock files from the current plans (exit 0)");
  sub->add_option("--assume", o->assume, "Override a model constant: NAME=VALUE (repeatable)");
  sub->add_option("-j,--jobs", o->jobs, "Specs planned at once (default: one per core)")
      ->check(CLI::Range(1, 256))
      ->type_name("N");
  add_catalog_option(*sub, o->common);
  add_format_option(*sub, o->common, {"table", "json", "markdown"});
  sub->callback([&ctx, o]() {
    ctx.action = [&ctx, o]() {
      CheckThresholds t;
      t.max_cost_increase = parse_percent(o->max_cost, "--max-cost-increase");
      t.max_latency_increase = parse_percent(o->max_latency, "--max-latency-increase");
      t.fail_on.clear();
      const std::vector<std::string> known{"infeasible", "gpu-change", "cost", "latency", "memory"};
      std::stringstream list(o->fail_on);
      for (std::string item; std::getline(list, item, ',');) {
        if (item.empty()) {
          continue;
        }
        if (std::find(known.begin(), known.end(), item) == known.end()) {
          throw InputError("--fail-on",
                           "unknown check \"" + item + "\"" + did_you_mean(item, known));
        }
        t.fail_on.push_back(item);
      }
      // A configuration that fitted and no longer does always fails.
      if (!t.fails_on("memory")) {
        t.fail_on.emplace_back("memory");
        ctx.log->info("--fail-on: memory is always checked");
      }
      const auto specs = expand_specs(o->specs);
      if (!o->lock.empty() && specs.size() > 1) {
        throw InputError("--lock",
                         "one lock file cannot be given for several specs; leave it out "
                         "to use rightsize.lock.json beside each spec");
      }
      const Catalog catalog = load_catalog(bundled_catalog_path(), user_catalog_path(o->common));
      const Constants constants = load_constants(o->assume);
      const Efficiency eff = Efficiency::load(bundled_data_dir() + "/efficiency.json");
      const Uncertainty uncertainty = Uncertainty::load(bundled_data_dir() + "/uncertainty.json");
      const EngineSupport engines = load_engine_support(bundled_data_dir() + "/engines.json");
      std::vector<CheckResult> results;
      int exit_code = 0;
      // Specs of one directory share one lock file: read each once (it holds every spec's entry,
      // so reading it per spec made check quadratic), and with --update write each once at the
      // end, after every spec planned.
      std::map<std::string, LockFile> locks;
      const auto lock_at = [&](const std::string& path, bool allow_missing) -> LockFile& {
        auto it = locks.find(path);
        if (it == locks.end()) {
          it = locks.emplace(path, read_lock_file(path, allow_missing)).first;
        }
        return it->second;
      };
      // Planned a chunk at a time on every core, then compared in spec order: the output is the
      // same whatever --jobs, and memory stays that of a chunk of plans.
      const int jobs = o->jobs > 0 ? o->jobs
                                   : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
      const std::size_t chunk = 16 * static_cast<std::size_t>(jobs);
      std::vector<PlannedOrError> chunk_plans;
      for (std::size_t index = 0; index < specs.size(); ++index) {
        const std::string& file = specs[index];
        if (index % chunk == 0) {
          chunk_plans = plan_range(specs, index, std::min(specs.size(), index + chunk), jobs,
                             [&](const std::string& f) {
                               return plan_spec(f, catalog, constants, eff, uncertainty, engines);
                             });
        }
        PlannedOrError& slot = chunk_plans[index % chunk];
        if (slot.error) {
          std::rethrow_exception(slot.error);
        }
        const std::string lock_path = o->lock.empty() ? default_lock_path(file) : o->lock;
        const Planned p = std::move(*slot.planned);
        slot.planned.reset();
        if (o->update) {
          lock_at(lock_path, /*allow_missing=*/true).entries[lock_key(file)] =
              make_lock_entry(p.plan);
          CheckResult r;
          r.spec_file = file;
          r.lock_file = lock_path;
          r.status = "ok";
          r.cause = "lock updated";
          results.push_back(r);
          continue;
        }
        const LockFile& lock = lock_at(lock_path, /*allow_missing=*/false);
        const std::string key = lock_key(file);
        const auto it = lock.entries.find(key);
        if (it == lock.entries.end()) {
          throw InputError(lock_path,
                           "has no lock for " + key + "; create it with 'rightsize plan " + file +
                               " --lock'");
        }
        // The locked configuration, re-evaluated on the spec as it is now.
        std::optional<MemoryEstimate> locked_now;
        if (it->second.recommended) {
          if (const Gpu* g = catalog.find(it->second.recommended->gpu)) {
            const auto& l = it->second.recommended->layout;
            Parallelism layout = l;
            std::optional<long long> batch;
            if (!p.spec.workload.is_training() && p.spec.workload.inference.concurrency) {
              batch =
                  (*p.spec.workload.inference.concurrency + it->second.recommended->replicas - 1) /
                  it->second.recommended->replicas;
            }
            if (p.spec.model.heads % layout.tp == 0) {
              locked_now = estimate_memory(p.spec, *g, layout, constants, batch);
            }
          }
        }
        CheckResult r = compare_with_lock(p.plan, it->second, locked_now, t);
        r.spec_file = file;
        r.lock_file = lock_path;
        exit_code = worse(exit_code, r.exit_code);
        results.push_back(std::move(r));
      }
      if (o->update) {
        for (const auto& [path, lock] : locks) {
          write_lock_file(lock);
        }
      }
      if (o->common.format == "json") {
        render_check_json(results, exit_code, ctx.out);
      } else if (o->common.format == "markdown") {
        render_check_markdown(results, ctx.out);
      } else {
        render_check_table(results, ctx.out);
      }
      for (const auto& r : results) {
        for (const auto& w : r.warnings) {
          ctx.log->warn("{}: {}", r.spec_file, w);
        }
      }
      return static_cast<ExitCode>(exit_code);
    };
  });
}

} // namespace rightsize::cli
