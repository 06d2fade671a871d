// rightsize check's run, as named steps: thresholds, specs, the lock files and settings of each
// spec, the plans on every core, each spec's outcome, the removed entries, --update's locks.

#include <rightsize/catalog/catalog.hpp>
#include <rightsize/catalog/engines.hpp>
#include <rightsize/check/run.hpp>
#include <rightsize/check/settings.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/estimate/memory.hpp>
#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/site_calibration.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/evaluate.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

namespace rightsize {

namespace fs = std::filesystem;

namespace {

// -o must not replace what check reads (specs, locks, the config, the catalog overlay), nor a
// lock file --update is about to write.
void refuse_output_over_input(const CheckRequest& request, const ExpandedSpecs& expanded) {
  if (request.output.empty()) {
    return;
  }
  std::vector<std::string> inputs = expanded.specs;
  for (const auto& spec : expanded.specs) {
    inputs.push_back(request.lock.empty() ? default_lock_path(spec) : request.lock);
  }
  inputs.insert(inputs.end(), expanded.from_directories.begin(), expanded.from_directories.end());
  inputs.push_back(check_config_path(request.thresholds.config));
  inputs.push_back(request.data.catalog_overlay);
  const auto output = fs::path(request.output).lexically_normal();
  for (const auto& input : inputs) {
    if (!input.empty() &&
        (fs::path(input).lexically_normal() == output || same_file(input, request.output))) {
      throw InputError("--output",
                       fmt::format("{} is an input of this run; refusing to "
                                   "overwrite it with the report",
                                   request.output));
    }
  }
}

// What a check of one spec needs that does not depend on the spec.
struct Shared {
  const Catalog& catalog;
  const Efficiency& eff;
  const Uncertainty& uncertainty;
  const EngineSupport& engines;
  const CheckData& data;
  // Constants and model digests per --assume list (locks may record different ones).
  std::map<std::vector<std::string>, std::pair<Constants, std::string>> by_assume;
};

// One spec's work, done on a worker thread: the lock entry it is compared with, its plan made
// with the lock's settings (and the command line's), and the locked configuration re-evaluated.
struct SpecCheck {
  std::string file;
  std::string lock_path;
  std::optional<LockEntry> entry; // none: added
  PlanSettings settings;
  nlohmann::json settings_json;
  std::string model_digest;
  std::string calibration_digest; // of the settings' calibration file; empty: none
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

// Lock files, read once each (a directory's specs share one). A lock file that cannot be read
// is an error of every spec that uses it.
struct Locks {
  std::map<std::string, LockFile> files;
  std::map<std::string, std::string> errors;
};

// The spec's lock file and entry; false when the spec cannot be checked (c.error says why).
bool find_entry(SpecCheck& c, const CheckRequest& request, Locks& locks) {
  if (locks.files.count(c.lock_path) == 0 && locks.errors.count(c.lock_path) == 0) {
    std::error_code missing;
    if (!request.lock.empty() && !request.update && !fs::exists(request.lock, missing)) {
      throw InputError("--lock", fmt::format("{}: no such lock file", request.lock));
    }
    try {
      locks.files.emplace(c.lock_path,
                          read_lock_file(c.lock_path, /*allow_missing=*/true, /*lenient=*/true));
    } catch (const InputError& e) {
      locks.errors.emplace(c.lock_path, e.what());
    }
  }
  if (const auto err = locks.errors.find(c.lock_path); err != locks.errors.end()) {
    c.error = err->second;
    return false;
  }
  const LockFile& lock = locks.files.at(c.lock_path);
  if (const auto it = lock.entries.find(lock_key(c.file)); it != lock.entries.end()) {
    c.entry = it->second;
  }
  if (const auto bad = lock.bad_entries.find(lock_key(c.file));
      bad != lock.bad_entries.end() && !request.update) {
    c.error = bad->second + " (check --update replaces the entry)";
    return false;
  }
  c.same_version = lock.rightsize_version == RIGHTSIZE_VERSION;
  return true;
}

// The lock's settings, replayed; the command line's override them.
void replay(SpecCheck& c, const CheckRequest& request, Shared& shared) {
  const bool recorded = c.entry && !c.entry->settings.is_null();
  nlohmann::json settings = recorded ? c.entry->settings : settings_to_json(PlanSettings{});
  if (c.entry && !recorded && !c.entry->objective.empty()) {
    settings["objective"] = c.entry->objective; // a schema 1 lock records only this
  }
  c.settings = replay_settings(settings, request.given, c.lock_path, c.file);
  c.settings_json = settings_to_json(c.settings);
  if (recorded) {
    // Normalized as written, so that equal settings compare equal.
    c.entry->settings = settings_to_json(
        settings_from_json(c.entry->settings, c.lock_path, lock_pointer(c.file) + "/settings"));
  }
  if (shared.by_assume.count(c.settings.assume) == 0) {
    std::string digest = model_digest(shared.data.data_dir, c.settings.assume);
    Constants constants = Constants::load(shared.data.data_dir + "/memory.json");
    constants.assume(c.settings.assume);
    shared.by_assume.emplace(c.settings.assume,
                             std::make_pair(std::move(constants), std::move(digest)));
  }
}

// Every spec with its lock entry and settings, in order.
std::vector<SpecCheck> prepare(const std::vector<std::string>& specs,
                               const CheckRequest& request,
                               Shared& shared,
                               Locks& locks) {
  std::vector<SpecCheck> checks(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    SpecCheck& c = checks[i];
    c.file = specs[i];
    c.lock_path = request.lock.empty() ? default_lock_path(c.file) : request.lock;
    if (!find_entry(c, request, locks)) {
      continue;
    }
    try {
      replay(c, request, shared);
    } catch (const InputError& e) {
      c.error = e.what();
    }
  }
  return checks;
}

void check_one(SpecCheck& c, const Shared& shared, bool replan) {
  const auto& [constants, digest] = shared.by_assume.at(c.settings.assume);
  c.model_digest = digest;
  c.spec = load_spec(c.file);
  c.spec_digest = digest_spec(c.spec);
  // The site calibration the settings name, installed for this spec (docs/calibrate.md).
  Efficiency eff = shared.eff;
  Uncertainty uncertainty = shared.uncertainty;
  if (c.settings.calibration) {
    const SiteCalibration calibration = load_site_calibration(*c.settings.calibration);
    c.calibration_digest = calibration.digest;
    apply_site_calibration(calibration, c.spec, eff, uncertainty);
  }
  if (!replan && c.entry && c.same_version && c.entry->spec_digest == c.spec_digest &&
      c.entry->calibration_digest == c.calibration_digest &&
      c.entry->catalog_digest == shared.catalog.digest && c.entry->model_digest == digest &&
      !c.entry->settings.is_null() && c.entry->settings == c.settings_json) {
    c.unchanged = true;
    return;
  }
  apply_settings(c.settings, shared.catalog, c.spec);
  const PlanOptions options =
      plan_options_for(c.settings, c.spec, uncertainty, shared.engines, shared.data.today());
  c.plan = make_plan(c.spec, shared.catalog, constants, eff, options);
  if (c.entry && c.entry->recommended) {
    const LockedConfiguration& l = *c.entry->recommended;
    const auto weights = parse_dtype(l.weights);
    const auto kv = parse_dtype(l.kv_cache);
    if (weights && kv) {
      // The locked batch while the spec is as locked; else the batch the plan would give the
      // locked replicas (demand moved with the spec): evaluate_configuration sizes it.
      const bool same_spec = c.entry->spec_digest == c.spec_digest;
      ConfigurationRef ref{l.gpu,
                           l.layout,
                           l.replicas,
                           *weights,
                           *kv,
                           same_spec ? l.batch : std::nullopt,
                           l.prefill_replicas > 0,
                           l.prefill_replicas};
      c.locked_now = evaluate_configuration(c.spec, shared.catalog, constants, eff, options, ref);
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

// Planned on every core; each spec's outcome is its own, in spec order.
void check_all(std::vector<SpecCheck>& checks, const Shared& shared, bool replan, int jobs) {
  if (jobs <= 0) {
    jobs = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  }
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < checks.size(); i = next++) {
      SpecCheck& c = checks[i];
      if (!c.error.empty()) {
        continue;
      }
      try {
        check_one(c, shared, replan);
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
}

// What changed since the lock.
Cause cause_of(const SpecCheck& c) {
  Cause cause;
  cause.spec = c.spec_digest != c.entry->spec_digest;
  cause.catalog = c.plan.catalog_digest != c.entry->catalog_digest;
  cause.unknown = c.entry->model_digest.empty() || c.entry->settings.is_null();
  cause.model = !c.entry->model_digest.empty() && c.entry->model_digest != c.model_digest;
  cause.settings = !c.entry->settings.is_null() && c.entry->settings != c.settings_json;
  cause.calibration = c.entry->calibration_digest != c.calibration_digest;
  return cause;
}

CheckResult outcome_of(const SpecCheck& c, const CheckThresholds& t, bool update) {
  CheckResult r;
  if (!c.error.empty()) {
    r.status = "error";
    r.error = c.error;
    r.exit_code = 2;
    return r;
  }
  if (!c.entry) {
    r = added_result(c.plan, t);
  } else if (c.unchanged) {
    r = unchanged_result(*c.entry, t);
  } else {
    // --update accepts the new recommendation: what it reports is the lock's move.
    const ConfigurationEvaluation* locked_now = update || !c.locked_now ? nullptr : &*c.locked_now;
    r = compare_with_lock(c.plan, *c.entry, locked_now, cause_of(c), t);
  }
  if (update) {
    accept_update(r);
  }
  return r;
}

// The entries of a directory's lock whose spec is gone (removed), and its unreadable entries of
// specs not checked here (the lock file needs repair); --update drops both.
void add_removed(const std::string& path,
                 LockFile& lock,
                 const std::set<std::string>& checked,
                 const CheckThresholds& t,
                 bool update,
                 CheckRun& run) {
  std::vector<std::string> gone;
  for (const auto& [key, entry] : lock.entries) {
    std::error_code ec;
    if (checked.count(key) != 0 || fs::exists(fs::path(path).parent_path() / key, ec)) {
      continue; // checked, or a spec not named on this command line
    }
    if (update) {
      gone.push_back(key);
    }
    CheckResult r = removed_result(key, path, entry, t, update);
    run.exit_code = worse_exit_code(run.exit_code, r.exit_code);
    run.results.push_back(std::move(r));
  }
  for (const auto& [key, message] : lock.bad_entries) {
    if (checked.count(key) != 0) {
      continue;
    }
    if (update) {
      gone.push_back(key); // its spec is gone (every spec of the directory was checked)
      continue;
    }
    CheckResult r;
    r.spec_file = (fs::path(path).parent_path() / key).string();
    r.lock_file = path;
    r.status = "error";
    r.error = message + " (check --update drops the entry of a spec that is gone)";
    r.exit_code = 2;
    run.exit_code = worse_exit_code(run.exit_code, r.exit_code);
    run.results.push_back(std::move(r));
  }
  for (const auto& key : gone) {
    lock.entries.erase(key);
    lock.bad_json.erase(key);
  }
}

// Each spec's outcome in order, with --update its new lock entry; then the directories without
// specs; then, for the lock of each directory given, the entries whose spec is gone.
CheckRun outcomes(std::vector<SpecCheck>& checks,
                  const ExpandedSpecs& expanded,
                  const CheckThresholds& t,
                  bool update,
                  Locks& locks) {
  CheckRun run;
  std::map<std::string, std::set<std::string>> checked_keys; // per lock file
  for (SpecCheck& c : checks) {
    checked_keys[c.lock_path].insert(lock_key(c.file));
    CheckResult r = outcome_of(c, t, update);
    r.spec_file = c.file;
    r.lock_file = c.lock_path;
    if (update && c.error.empty() && !c.unchanged) {
      LockFile& lock = locks.files[c.lock_path];
      lock.path = c.lock_path;
      lock.entries[lock_key(c.file)] = make_lock_entry(
          c.plan, c.model_digest, c.settings_json, c.spec_digest, c.calibration_digest);
      lock.bad_entries.erase(lock_key(c.file));
      lock.bad_json.erase(lock_key(c.file));
    }
    run.exit_code = worse_exit_code(run.exit_code, r.exit_code);
    run.results.push_back(std::move(r));
  }
  for (const auto& [arg, message] : expanded.errors) {
    CheckResult r;
    r.spec_file = arg;
    r.status = "error";
    r.error = message;
    r.exit_code = 2;
    run.exit_code = worse_exit_code(run.exit_code, r.exit_code);
    run.results.push_back(std::move(r));
  }
  for (auto& [path, lock] : locks.files) {
    // Specs named one by one: their siblings are not this check's business.
    if (expanded.from_directories.count(fs::path(path).lexically_normal().string()) != 0) {
      add_removed(path, lock, checked_keys[path], t, update, run);
    }
  }
  return run;
}

} // namespace

ExpandedSpecs expand_specs(const std::vector<std::string>& given) {
  ExpandedSpecs out;
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
    if (!fs::is_directory(g, ec)) {
      add(g);
      continue;
    }
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
    out.from_directories.insert((fs::path(g) / "rightsize.lock.json").lexically_normal().string());
  }
  return out;
}

CheckRun run_check(const CheckRequest& request, std::vector<CheckNote>& notes) {
  const CheckThresholds t = resolve_thresholds(request.thresholds, notes);
  const ExpandedSpecs expanded = expand_specs(request.specs);
  for (const auto& w : expanded.warnings) {
    notes.push_back({CheckNote::Level::warning, w});
  }
  refuse_output_over_input(request, expanded);
  if (!request.lock.empty() && expanded.specs.size() > 1) {
    throw InputError("--lock",
                     "one lock file cannot be given for several specs; leave it out "
                     "to use rightsize.lock.json beside each spec");
  }
  const std::string& dir = request.data.data_dir;
  const Catalog catalog =
      load_catalog(dir + "/gpus.json", request.data.catalog_overlay, CatalogDetail::figures);
  const Efficiency eff = Efficiency::load(dir + "/efficiency.json");
  const Uncertainty uncertainty = Uncertainty::load(dir + "/uncertainty.json");
  const EngineSupport engines = load_engine_support(dir + "/engines.json");
  Shared shared{catalog, eff, uncertainty, engines, request.data, {}};

  Locks locks;
  std::vector<SpecCheck> checks = prepare(expanded.specs, request, shared, locks);
  check_all(checks, shared, request.replan, request.jobs);
  CheckRun run = outcomes(checks, expanded, t, request.update, locks);
  if (request.update) {
    for (const auto& [path, lock] : locks.files) {
      write_lock_file(lock);
    }
  }
  return run;
}

std::vector<CheckNote> result_notes(const std::vector<CheckResult>& results) {
  std::vector<CheckNote> notes;
  for (const auto& r : results) {
    if (!r.error.empty()) {
      notes.push_back({CheckNote::Level::error, r.error});
    }
    for (const auto& w : r.warnings) {
      notes.push_back({CheckNote::Level::warning, r.spec_file + ": " + w});
    }
  }
  return notes;
}

} // namespace rightsize
