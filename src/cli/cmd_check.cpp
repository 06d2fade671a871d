#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/plan_setup.hpp"

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/check/lock.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/plan/evaluate.hpp>
#include <rightsize/render/check.hpp>
#include <rightsize/spec/spec.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace rightsize::cli {

namespace fs = std::filesystem;

namespace {

struct CheckOptions {
  PlanCliOptions plan;
  std::vector<std::string> specs;
  std::string lock;
  std::string config;
  std::string output;
  // Thresholds given on the command line (empty: the config file's, else the default).
  std::string max_cost;
  std::string max_latency;
  std::string max_ttft;
  std::string max_tpot;
  std::string max_throughput_drop;
  std::string max_gpus;
  std::string min_headroom;
  std::string fail_on;
  bool update = false;
  bool replan = false;
  bool fail_on_given = false;
  int jobs = 0; // 0: one per core
};

// The thresholds: defaults, then the config file's, then the command line's.
CheckThresholds thresholds_from(const CheckOptions& o, Context& ctx) {
  CheckThresholds t;
  std::string config = o.config;
  std::error_code ec;
  if (config.empty() && fs::exists(".rightsize.json", ec)) {
    config = ".rightsize.json";
  }
  if (!config.empty()) {
    read_check_config(config, t);
    ctx.log->info("thresholds from {}", config);
  }
  if (!o.max_cost.empty()) {
    t.cost = parse_threshold(o.max_cost, "--max-cost-increase");
  }
  if (!o.max_latency.empty()) {
    t.ttft = t.tpot = t.time_to_train = parse_threshold(o.max_latency, "--max-latency-increase");
  }
  if (!o.max_ttft.empty()) {
    t.ttft = parse_threshold(o.max_ttft, "--max-ttft-increase");
  }
  if (!o.max_tpot.empty()) {
    t.tpot = parse_threshold(o.max_tpot, "--max-tpot-increase");
  }
  if (!o.max_throughput_drop.empty()) {
    t.throughput = parse_threshold(o.max_throughput_drop, "--max-throughput-decrease");
  }
  if (!o.max_gpus.empty()) {
    t.gpus = parse_threshold(o.max_gpus, "--max-gpus-increase");
  }
  if (!o.min_headroom.empty()) {
    t.memory_headroom = parse_threshold(o.min_headroom, "--min-memory-headroom");
  }
  if (o.fail_on_given && o.fail_on.empty()) {
    throw InputError("--fail-on", "is empty; name the checks that fail the job");
  }
  if (!o.fail_on.empty()) {
    std::vector<std::string> items;
    std::stringstream list(o.fail_on);
    for (std::string item; std::getline(list, item, ',');) {
      items.push_back(item);
    }
    t.fail_on = parse_fail_on(items, "--fail-on");
  }
  // A configuration that fitted and no longer does always fails.
  if (!t.fails_on("memory")) {
    t.fail_on.emplace_back("memory");
    ctx.log->info("--fail-on: memory is always checked");
  }
  return t;
}

// Specs named on the command line, each once; a directory means every spec in it (not lock files,
// not the config file; not its subdirectories, which are named in a warning). A directory without
// specs is an error of its own (`errors`), not the end of the report.
struct Expanded {
  std::vector<std::string> specs;
  std::set<std::string> from_directories; // lock files of directories given: removed specs count
  std::vector<std::pair<std::string, std::string>> errors; // argument, message
  std::vector<std::string> warnings;
};

Expanded expand_specs(const std::vector<std::string>& given) {
  Expanded out;
  std::set<std::string> seen;
  const auto add = [&](const std::string& file) {
    std::error_code ec;
    const std::string key = fs::weakly_canonical(file, ec).string();
    if (seen.insert(ec ? file : key).second) {
      out.specs.push_back(file);
    }
  };
  for (const auto& g : given) {
    std::error_code ec;
    if (fs::is_directory(g, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(g, ec)) {
        const auto name = e.path().filename().string();
        if (e.is_directory(ec)) {
          out.warnings.push_back(
              fmt::format("{}: subdirectories are not checked; name {} too if it holds specs",
                          g,
                          e.path().string()));
          continue;
        }
        if (e.path().extension() == ".json" && name.find(".lock.") == std::string::npos &&
            name != "rightsize.lock.json" && name != ".rightsize.json") {
          found.push_back(e.path().string());
        }
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) {
        out.errors.emplace_back(g, g + ": directory holds no spec (.json) files");
      }
      for (const auto& f : found) {
        add(f);
      }
      out.from_directories.insert(
          (fs::path(g) / "rightsize.lock.json").lexically_normal().string());
    } else {
      add(g);
    }
  }
  return out;
}

std::string default_lock_path(const std::string& spec) {
  const fs::path dir = fs::path(spec).parent_path();
  return (dir.empty() ? fs::path("rightsize.lock.json") : dir / "rightsize.lock.json").string();
}

// -o must not replace what check reads (specs, locks, the config, the catalog overlay), nor a
// lock file --update is about to write.
void check_output(const CheckOptions& o, const Expanded& expanded, const std::string& catalog) {
  if (o.output.empty()) {
    return;
  }
  std::vector<std::string> inputs = expanded.specs;
  for (const auto& spec : expanded.specs) {
    inputs.push_back(o.lock.empty() ? default_lock_path(spec) : o.lock);
  }
  inputs.insert(inputs.end(), expanded.from_directories.begin(), expanded.from_directories.end());
  std::error_code ec;
  inputs.push_back(o.config.empty() && fs::exists(".rightsize.json", ec) ? ".rightsize.json"
                                                                         : o.config);
  inputs.push_back(catalog);
  const auto output = fs::path(o.output).lexically_normal();
  for (const auto& input : inputs) {
    if (!input.empty() &&
        (fs::path(input).lexically_normal() == output || same_file(input, o.output))) {
      throw InputError("--output",
                       fmt::format("{} is an input of this run; refusing to "
                                   "overwrite it with the report",
                                   o.output));
    }
  }
}

// 2 (bad input) > 3 (infeasible) > 1 (regression) > 0.
int worse(int a, int b) {
  const auto rank = [](int code) { return code == 2 ? 3 : code == 3 ? 2 : code == 1 ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

// What a check of one spec needs that does not depend on the spec.
struct Shared {
  const Catalog& catalog;
  const Efficiency& eff;
  const Uncertainty& uncertainty;
  const EngineSupport& engines;
  // Constants and model digests per --assume list (locks may record different ones).
  std::map<std::vector<std::string>, std::pair<Constants, std::string>> by_assume;
};

// One spec's work, done on a worker thread: the lock entry it is compared with, its plan made
// with the lock's settings (and the command line's), and the locked configuration re-evaluated.
struct SpecCheck {
  std::string file;
  std::string lock_path;
  std::optional<LockEntry> entry; // none: added
  PlanCliOptions settings;
  nlohmann::json settings_json;
  std::string model_digest;
  Spec spec;
  std::string spec_digest; // as written, before the settings
  Plan plan;
  std::optional<ConfigurationEvaluation> locked_now;
  // Everything the plan depends on is as locked (spec, catalog, model data, settings, rightsize
  // version): the plan would be the lock's, so it is not made again.
  bool unchanged = false;
  bool same_version = false;
  std::string error; // set: this spec could not be checked
};

std::optional<DType> dtype_of(const std::string& name) {
  return parse_dtype(name);
}

void check_one(SpecCheck& c, const Shared& shared, bool replan) {
  const auto& [constants, digest] = shared.by_assume.at(c.settings.assume);
  c.model_digest = digest;
  c.spec = load_spec(c.file);
  c.spec_digest = digest_spec(c.spec);
  if (!replan && c.entry && c.same_version && c.entry->spec_digest == c.spec_digest &&
      c.entry->catalog_digest == shared.catalog.digest && c.entry->model_digest == digest &&
      !c.entry->settings.is_null() && c.entry->settings == c.settings_json) {
    c.unchanged = true;
    return;
  }
  apply_settings(c.settings, shared.catalog, c.spec);
  const PlanOptions options =
      plan_options_for(c.settings, c.spec, shared.uncertainty, shared.engines);
  c.plan = make_plan(c.spec, shared.catalog, constants, shared.eff, options);
  if (c.entry && c.entry->recommended) {
    const LockedConfiguration& l = *c.entry->recommended;
    const auto weights = dtype_of(l.weights);
    const auto kv = dtype_of(l.kv_cache);
    if (weights && kv) {
      // The locked batch while the spec is as locked; else the batch the plan would give the
      // locked replicas (demand moved with the spec): evaluate_configuration sizes it.
      const bool same_spec = c.entry->spec_digest == c.spec_digest;
      ConfigurationRef ref{
          l.gpu, l.layout, l.replicas, *weights, *kv, same_spec ? l.batch : std::nullopt};
      c.locked_now =
          evaluate_configuration(c.spec, shared.catalog, constants, shared.eff, options, ref);
    }
  }
}

std::string error_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return x.what();
  } catch (const std::exception& x) {
    return std::string("internal error: ") + x.what();
  }
}

} // namespace

// Writes (or replaces) the lock entry of `plan`'s spec; used by plan --lock.
void write_lock_entry(const Plan& plan,
                      const std::string& spec_file,
                      const std::string& lock_path,
                      const std::string& digest,
                      const nlohmann::json& settings,
                      const std::string& spec_digest) {
  LockFile lock = read_lock_file(lock_path, /*allow_missing=*/true);
  lock.entries[lock_key(spec_file)] = make_lock_entry(plan, digest, settings, spec_digest);
  write_lock_file(lock);
}

void register_check(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CheckOptions>();
  auto* sub = app.add_subcommand("check",
                                 "Re-plan specs with the settings their locks recorded and "
                                 "compare: exit 1 when a threshold is crossed (for CI, "
                                 "docs/ci.md)");
  sub->add_option("SPEC", o->specs, "Specs or directories of specs")->required();
  sub->add_option("--lock", o->lock, "Lock file (default: rightsize.lock.json beside each spec)")
      ->type_name("FILE");
  sub->add_option("--config",
                  o->config,
                  "Thresholds and fail-on list (default: .rightsize.json in the current "
                  "directory, if there is one)")
      ->type_name("FILE");
  const auto* th = "Thresholds (override the config file's)";
  sub->add_option("--max-cost-increase", o->max_cost, "$/hour or TCO rise (10%)")->group(th);
  sub->add_option(
         "--max-latency-increase", o->max_latency, "TTFT, TPOT and time-to-train rise (20%)")
      ->group(th);
  sub->add_option("--max-ttft-increase", o->max_ttft, "TTFT rise (20%)")->group(th);
  sub->add_option("--max-tpot-increase", o->max_tpot, "TPOT rise (20%)")->group(th);
  sub->add_option("--max-throughput-decrease", o->max_throughput_drop, "tokens/s drop (10%)")
      ->group(th);
  sub->add_option("--max-gpus-increase", o->max_gpus, "GPU count rise (0%)")->group(th);
  sub->add_option("--min-memory-headroom", o->min_headroom, "memory budget left free (0%)")
      ->group(th);
  sub->add_option("--fail-on",
                  o->fail_on,
                  "Comma-separated checks that fail the job: infeasible, memory, cost, latency, "
                  "throughput, gpus, gpu-change, added, removed (default: the first five)")
      ->group(th);
  sub->add_flag("--update",
                o->update,
                "Accept the current plans: rewrite the lock entries (and drop those of removed "
                "specs); exit 0")
      ->group(th);
  sub->add_flag("--replan",
                o->replan,
                "Plan every spec again, even those whose spec, catalog, model data, settings and "
                "rightsize version are all as locked (whose plan is then the lock's)");
  sub->add_option("-j,--jobs", o->jobs, "Specs planned at once (default: one per core)")
      ->check(CLI::Range(1, 256))
      ->type_name("N");
  add_catalog_option(*sub, o->plan.common);
  add_format_option(*sub, o->plan.common, {"table", "json", "markdown", "html", "svg"});
  sub->add_option("-o,--output", o->output, "Write the report to FILE instead of stdout")
      ->type_name("FILE");
  add_plan_options(*sub, o->plan);
  sub->callback([&ctx, o, sub]() {
    o->fail_on_given = sub->get_option("--fail-on")->count() > 0;
    const nlohmann::json given = given_settings(*sub, o->plan);
    ctx.action = [&ctx, o, given]() {
      const CheckThresholds t = thresholds_from(*o, ctx);
      const Expanded expanded = expand_specs(o->specs);
      const auto& specs = expanded.specs;
      for (const auto& w : expanded.warnings) {
        ctx.log->warn("{}", w);
      }
      check_output(*o, expanded, user_catalog_path(o->plan.common));
      if (!o->lock.empty() && specs.size() > 1) {
        throw InputError("--lock",
                         "one lock file cannot be given for several specs; leave it out "
                         "to use rightsize.lock.json beside each spec");
      }
      const Catalog catalog = load_catalog(
          bundled_catalog_path(), user_catalog_path(o->plan.common), CatalogDetail::figures);
      const Efficiency eff = Efficiency::load(bundled_data_dir() + "/efficiency.json");
      const Uncertainty uncertainty = Uncertainty::load(bundled_data_dir() + "/uncertainty.json");
      const EngineSupport engines = load_engine_support(bundled_data_dir() + "/engines.json");
      Shared shared{catalog, eff, uncertainty, engines, {}};

      // Lock files, read once each (a directory's specs share one). A lock file that cannot be
      // read is an error of every spec that uses it.
      std::map<std::string, LockFile> locks;
      std::map<std::string, std::string> lock_errors;
      std::vector<SpecCheck> checks(specs.size());
      for (std::size_t i = 0; i < specs.size(); ++i) {
        SpecCheck& c = checks[i];
        c.file = specs[i];
        c.lock_path = o->lock.empty() ? default_lock_path(c.file) : o->lock;
        if (locks.count(c.lock_path) == 0 && lock_errors.count(c.lock_path) == 0) {
          std::error_code missing;
          if (!o->lock.empty() && !o->update && !fs::exists(o->lock, missing)) {
            throw InputError("--lock", fmt::format("{}: no such lock file", o->lock));
          }
          try {
            locks.emplace(c.lock_path,
                          read_lock_file(c.lock_path, /*allow_missing=*/true, /*lenient=*/true));
          } catch (const InputError& e) {
            lock_errors.emplace(c.lock_path, e.what());
          }
        }
        if (const auto err = lock_errors.find(c.lock_path); err != lock_errors.end()) {
          c.error = err->second;
          continue;
        }
        const LockFile& lock = locks.at(c.lock_path);
        if (const auto it = lock.entries.find(lock_key(c.file)); it != lock.entries.end()) {
          c.entry = it->second;
        }
        if (const auto bad = lock.bad_entries.find(lock_key(c.file));
            bad != lock.bad_entries.end() && !o->update) {
          c.error = bad->second + " (check --update replaces the entry)";
          continue;
        }
        c.same_version = lock.rightsize_version == RIGHTSIZE_VERSION;
        // The lock's settings, replayed; the command line's override them.
        try {
          nlohmann::json settings = c.entry && !c.entry->settings.is_null()
                                        ? c.entry->settings
                                        : settings_to_json(PlanCliOptions{});
          if (c.entry && c.entry->settings.is_null() && !c.entry->objective.empty()) {
            settings["objective"] = c.entry->objective; // a schema 1 lock records only this
          }
          for (const auto& [key, value] : given.items()) {
            settings[key] = value;
          }
          c.settings = settings_from_json(
              settings,
              c.lock_path,
              "/locks/" + detail::escape_pointer_token(lock_key(c.file)) + "/settings");
          c.settings.common = o->plan.common;
          c.settings_json = settings_to_json(c.settings);
          if (c.entry && !c.entry->settings.is_null()) {
            // Normalized as written, so that equal settings compare equal.
            c.entry->settings = settings_to_json(settings_from_json(
                c.entry->settings,
                c.lock_path,
                "/locks/" + detail::escape_pointer_token(lock_key(c.file)) + "/settings"));
          }
          c.settings.spec = c.file;
          if (shared.by_assume.count(c.settings.assume) == 0) {
            shared.by_assume.emplace(
                c.settings.assume,
                std::make_pair(load_constants(c.settings.assume), model_digest(c.settings.assume)));
          }
        } catch (const InputError& e) {
          c.error = e.what();
        }
      }

      // Planned on every core; each spec's outcome is its own, in spec order.
      const int jobs = o->jobs > 0
                           ? o->jobs
                           : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
      std::atomic<std::size_t> next{0};
      const auto work = [&] {
        for (std::size_t i = next++; i < checks.size(); i = next++) {
          SpecCheck& c = checks[i];
          if (!c.error.empty()) {
            continue;
          }
          try {
            check_one(c, shared, o->replan);
          } catch (...) {
            c.error = error_text(std::current_exception());
          }
        }
      };
      std::vector<std::thread> pool;
      for (int w = 1; w < jobs && static_cast<std::size_t>(w) < checks.size(); ++w) {
        pool.emplace_back(work);
      }
      work();
      for (auto& worker : pool) {
        worker.join();
      }

      std::vector<CheckResult> results;
      int exit_code = 0;
      std::map<std::string, std::set<std::string>> checked_keys; // per lock file
      for (SpecCheck& c : checks) {
        checked_keys[c.lock_path].insert(lock_key(c.file));
        CheckResult r;
        if (!c.error.empty()) {
          r.status = "error";
          r.error = c.error;
          r.exit_code = 2;
        } else if (!c.entry) {
          r = added_result(c.plan, t);
          if (o->update) {
            r.status = "added";
            r.exit_code = 0;
            r.crossed.clear();
          }
        } else {
          Cause cause;
          cause.spec = c.spec_digest != c.entry->spec_digest;
          cause.catalog = c.plan.catalog_digest != c.entry->catalog_digest;
          cause.unknown = c.entry->model_digest.empty() || c.entry->settings.is_null();
          cause.model = !c.entry->model_digest.empty() && c.entry->model_digest != c.model_digest;
          cause.settings = !c.entry->settings.is_null() && c.entry->settings != c.settings_json;
          if (c.unchanged) {
            r = unchanged_result(*c.entry, t);
          } else {
            // --update accepts the new recommendation: what it reports is the lock's move.
            const ConfigurationEvaluation* locked_now =
                o->update || !c.locked_now ? nullptr : &*c.locked_now;
            r = compare_with_lock(c.plan, *c.entry, locked_now, cause, t);
          }
          if (o->update) {
            // Accepted: what moved is reported, nothing fails.
            r.status = r.changes.empty() && !r.recommendation_changed ? "ok" : "updated";
            r.exit_code = 0;
            for (const auto& x : r.crossed) {
              r.warnings.push_back("accepted: " + x.text);
            }
            r.crossed.clear();
            for (auto& change : r.changes) {
              change.crossed = false;
            }
            if (r.recommendation_changed && r.now) {
              r.warnings.push_back("the lock now holds " + configuration_text(*r.now));
            }
          }
        }
        r.spec_file = c.file;
        r.lock_file = c.lock_path;
        if (o->update && c.error.empty() && !c.unchanged) {
          locks[c.lock_path].path = c.lock_path;
          locks[c.lock_path].entries[lock_key(c.file)] =
              make_lock_entry(c.plan, c.model_digest, c.settings_json, c.spec_digest);
          locks[c.lock_path].bad_entries.erase(lock_key(c.file));
          locks[c.lock_path].bad_json.erase(lock_key(c.file));
        }
        exit_code = worse(exit_code, r.exit_code);
        results.push_back(std::move(r));
      }
      for (const auto& [arg, message] : expanded.errors) {
        CheckResult r;
        r.spec_file = arg;
        r.status = "error";
        r.error = message;
        r.exit_code = 2;
        exit_code = worse(exit_code, r.exit_code);
        results.push_back(std::move(r));
      }
      // Entries whose spec file is gone: removed (only what was checked shares their lock).
      for (auto& [path, lock] : locks) {
        if (expanded.from_directories.count(fs::path(path).lexically_normal().string()) == 0) {
          continue; // specs named one by one: their siblings are not this check's business
        }
        std::vector<std::string> gone;
        for (const auto& [key, entry] : lock.entries) {
          if (checked_keys[path].count(key) != 0) {
            continue;
          }
          std::error_code ec;
          const fs::path spec_path = fs::path(path).parent_path() / key;
          if (fs::exists(spec_path, ec)) {
            continue; // a spec not named on this command line
          }
          CheckResult r;
          r.spec_file = spec_path.string();
          r.lock_file = path;
          r.status = "removed";
          r.locked = entry.recommended;
          const std::string line = fmt::format(
              "removed: the lock has an entry for {}, whose spec is gone{}",
              key,
              entry.recommended ? " (" + configuration_text(*entry.recommended) + ")" : "");
          if (o->update) {
            gone.push_back(key);
          } else if (t.fails_on("removed")) {
            r.crossed.push_back({"removed", line});
            r.exit_code = 1;
          }
          exit_code = worse(exit_code, r.exit_code);
          results.push_back(std::move(r));
        }
        // Unreadable entries of specs not checked here: the lock file needs repair.
        for (const auto& [key, message] : lock.bad_entries) {
          if (checked_keys[path].count(key) != 0) {
            continue;
          }
          if (o->update) {
            gone.push_back(key); // its spec is gone (every spec of the directory was checked)
            continue;
          }
          CheckResult r;
          r.spec_file = (fs::path(path).parent_path() / key).string();
          r.lock_file = path;
          r.status = "error";
          r.error = message + " (check --update drops the entry of a spec that is gone)";
          r.exit_code = 2;
          exit_code = worse(exit_code, r.exit_code);
          results.push_back(std::move(r));
        }
        for (const auto& key : gone) {
          lock.entries.erase(key);
          lock.bad_json.erase(key);
        }
      }
      if (o->update) {
        for (const auto& [path, lock] : locks) {
          write_lock_file(lock);
        }
      }
      std::ostringstream rendered;
      const std::string& format = o->plan.common.format;
      if (format == "json") {
        render_check_json(results, exit_code, rendered);
      } else if (format == "markdown") {
        render_check_markdown(results, exit_code, rendered);
      } else if (format == "html") {
        render_check_html(results, exit_code, rendered);
      } else if (format == "svg") {
        render_check_svg(results, exit_code, rendered);
      } else {
        render_check_table(results, exit_code, rendered);
      }
      // The exit code is the check's, wherever the report goes.
      if (o->output.empty()) {
        ctx.out << rendered.str();
      } else {
        write_file_atomically(o->output, rendered.str());
        ctx.log->info("wrote {}", o->output);
      }
      for (const auto& r : results) {
        if (!r.error.empty()) {
          ctx.log->error("{}", r.error);
        }
        for (const auto& w : r.warnings) {
          ctx.log->warn("{}: {}", r.spec_file, w);
        }
      }
      return static_cast<ExitCode>(exit_code);
    };
  });
}

} // namespace rightsize::cli
