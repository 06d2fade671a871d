// Lock files and regression checks. Behaviour: docs/ci.md.

#include <rightsize/check/lock.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/spec/spec_json.hpp>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

bool CheckThresholds::fails_on(const std::string& what) const {
  return std::find(fail_on.begin(), fail_on.end(), what) != fail_on.end();
}

std::string digest_spec(const Spec& spec) {
  nlohmann::json j = model_to_json(spec);
  j.erase("provenance"); // file paths are not part of the plan
  j.erase("warnings");
  nlohmann::json v = validation_to_json(spec);
  v.erase("file");
  v.erase("warnings");
  const auto& d = spec.deployment;
  nlohmann::json rest{
      {"constraints",
       {{"gpus", spec.constraints.gpus},
        {"vendors", spec.constraints.vendors},
        {"max_gpus", spec.constraints.max_gpus ? *spec.constraints.max_gpus : -1},
        {"max_gpus_per_node",
         spec.constraints.max_gpus_per_node ? *spec.constraints.max_gpus_per_node : -1},
        {"allow_cross_node_tp", spec.constraints.allow_cross_node_tp}}},
      {"deployment",
       {{"mode", std::string(to_string(d.mode))},
        {"horizon_months", d.horizon_months},
        {"growth", d.growth_per_month},
        {"hours", d.hours_per_month},
        {"provider", d.provider.value_or("")},
        {"price_kind", d.price_kind},
        {"utilization", d.utilization},
        {"pue", d.pue},
        {"electricity", d.electricity_usd_per_kwh},
        {"amortization", d.amortization_years},
        {"operations", d.operations_share}}},
      {"allow", [&] {
         std::vector<std::string> a;
         for (const DType t : spec.precision.allow) {
           a.emplace_back(to_string(t));
         }
         return a;
       }()}};
  if (d.gpus_per_server) {
    // Only when set, so digests of locks written before the field existed still match.
    rest["deployment"]["gpus_per_server"] = *d.gpus_per_server;
  }
  return detail::fnv1a_hex(j.dump() + v.dump() + rest.dump());
}

namespace {

LockedConfiguration lock_configuration(const Candidate& c) {
  LockedConfiguration l;
  l.gpu = c.gpu->name;
  l.gpus = c.total_gpus();
  l.replicas = c.replicas;
  l.layout = c.layout;
  l.weights = std::string(to_string(c.spec.precision.weights));
  l.kv_cache = std::string(to_string(c.spec.precision.kv_cache));
  l.memory_per_gpu_bytes = c.memory.per_gpu.total().si();
  l.memory_budget_bytes = c.memory.budget.si();
  if (c.inference) {
    l.ttft_ms = to_ms(c.inference->ttft);
    l.tpot_ms = to_ms(c.inference->tpot);
    l.output_tokens_per_s = c.inference->output_tokens_per_s;
  }
  if (c.training) {
    l.step_time_s = c.training->step.si();
    if (c.training->time_to_train) {
      l.time_to_train_hours = to_hours(*c.training->time_to_train);
    }
  }
  l.usd_per_hour = c.cost.per_hour.si();
  l.usd_per_million_tokens = c.cost.usd_per_million_output_tokens;
  l.tco_usd = c.cost.tco.si();
  return l;
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json configuration_json(const LockedConfiguration& l) {
  return {{"gpu", l.gpu},
          {"gpus", l.gpus},
          {"replicas", l.replicas},
          {"parallelism",
           {{"tp", l.layout.tp}, {"pp", l.layout.pp}, {"dp", l.layout.dp}, {"ep", l.layout.ep}}},
          {"precision", {{"weights", l.weights}, {"kv_cache", l.kv_cache}}},
          {"memory_per_gpu_bytes", l.memory_per_gpu_bytes},
          {"memory_budget_bytes", l.memory_budget_bytes},
          {"ttft_ms", optional_json(l.ttft_ms)},
          {"tpot_ms", optional_json(l.tpot_ms)},
          {"output_tokens_per_s", optional_json(l.output_tokens_per_s)},
          {"step_time_s", optional_json(l.step_time_s)},
          {"time_to_train_hours", optional_json(l.time_to_train_hours)},
          {"usd_per_hour", l.usd_per_hour},
          {"usd_per_million_output_tokens", optional_json(l.usd_per_million_tokens)},
          {"tco_usd", l.tco_usd}};
}

std::optional<double> optional_number(const FieldReader& r, const char* key) {
  return r.optional_number(key, Range::non_negative(1e18));
}

LockedConfiguration parse_configuration(const FieldReader& r) {
  r.reject_unknown({"gpu",
                    "gpus",
                    "replicas",
                    "parallelism",
                    "precision",
                    "memory_per_gpu_bytes",
                    "memory_budget_bytes",
                    "ttft_ms",
                    "tpot_ms",
                    "output_tokens_per_s",
                    "step_time_s",
                    "time_to_train_hours",
                    "usd_per_hour",
                    "usd_per_million_output_tokens",
                    "tco_usd"});
  LockedConfiguration l;
  l.gpu = r.string("gpu");
  l.gpus = static_cast<int>(r.integer("gpus", Range::positive(1e7)));
  l.replicas = static_cast<int>(r.integer("replicas", Range::positive(1e7)));
  const auto p = r.object("parallelism");
  l.layout.tp = static_cast<int>(p.integer("tp", Range::positive(1e5)));
  l.layout.pp = static_cast<int>(p.integer("pp", Range::positive(1e5)));
  l.layout.dp = static_cast<int>(p.integer("dp", Range::positive(1e7)));
  l.layout.ep = static_cast<int>(p.integer("ep", Range::positive(1e5)));
  const auto pr = r.object("precision");
  l.weights = pr.string("weights");
  l.kv_cache = pr.string("kv_cache");
  l.memory_per_gpu_bytes = r.number("memory_per_gpu_bytes", Range::non_negative(1e18));
  l.memory_budget_bytes = r.number("memory_budget_bytes", Range::non_negative(1e18));
  l.ttft_ms = optional_number(r, "ttft_ms");
  l.tpot_ms = optional_number(r, "tpot_ms");
  l.output_tokens_per_s = optional_number(r, "output_tokens_per_s");
  l.step_time_s = optional_number(r, "step_time_s");
  l.time_to_train_hours = optional_number(r, "time_to_train_hours");
  l.usd_per_hour = r.number("usd_per_hour", Range::non_negative(1e12));
  l.usd_per_million_tokens = optional_number(r, "usd_per_million_output_tokens");
  l.tco_usd = r.number("tco_usd", Range::non_negative(1e15));
  return l;
}

std::string percent(double relative) {
  return fmt::format("{:+.1f}%", 100.0 * relative);
}

} // namespace

LockEntry make_lock_entry(const Plan& plan) {
  LockEntry e;
  e.spec_digest = digest_spec(plan.spec);
  e.catalog_version = plan.catalog_version;
  e.catalog_digest = plan.catalog_digest;
  e.objective = std::string(to_string(plan.objective));
  e.feasible = plan.feasible();
  for (std::size_t i = 0; i < plan.candidates.size() && i < 4; ++i) {
    if (i == 0) {
      e.recommended = lock_configuration(plan.candidates[i]);
    } else {
      e.alternatives.push_back(lock_configuration(plan.candidates[i]));
    }
  }
  return e;
}

nlohmann::json lock_entry_to_json(const LockEntry& e) {
  nlohmann::json alternatives = nlohmann::json::array();
  for (const auto& a : e.alternatives) {
    alternatives.push_back(configuration_json(a));
  }
  return {
      {"spec_digest", e.spec_digest},
      {"catalog", {{"version", e.catalog_version}, {"digest", e.catalog_digest}}},
      {"objective", e.objective},
      {"feasible", e.feasible},
      {"recommended", e.recommended ? configuration_json(*e.recommended) : nlohmann::json(nullptr)},
      {"alternatives", alternatives}};
}

LockEntry
parse_lock_entry(const nlohmann::json& j, const std::string& file, const std::string& pointer) {
  const FieldReader r(j, file, pointer);
  r.reject_unknown(
      {"spec_digest", "catalog", "objective", "feasible", "recommended", "alternatives"});
  LockEntry e;
  e.spec_digest = r.string("spec_digest");
  const auto c = r.object("catalog");
  e.catalog_version = c.string("version");
  e.catalog_digest = c.string("digest");
  e.objective = r.string("objective");
  e.feasible = r.boolean("feasible");
  if (r.has("recommended")) {
    e.recommended = parse_configuration(r.object("recommended"));
  } else if (e.feasible) {
    r.fail_plain("a feasible lock must have a recommended configuration");
  }
  for (const auto& a : r.array("alternatives")) {
    e.alternatives.push_back(parse_configuration(a));
  }
  return e;
}

LockFile read_lock_file(const std::string& path, bool allow_missing) {
  LockFile lock;
  lock.path = path;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (allow_missing) {
      return lock;
    }
    throw InputError(path, "lock file not found; create it with 'rightsize plan SPEC --lock'");
  }
  const auto json = detail::load_json_file(path);
  const FieldReader r(json, path);
  if (!json.is_object()) {
    r.fail("a lock file must be a JSON object");
  }
  r.reject_unknown({"schema_version", "rightsize_version", "locks"});
  if (r.integer("schema_version", Range::positive(1e6)) != 1) {
    r.member("schema_version").fail("unsupported lock schema version (this rightsize reads 1)");
  }
  const auto locks = r.object("locks");
  for (const auto& [name, value] : locks.json().items()) {
    lock.entries[name] =
        parse_lock_entry(value, path, "/locks/" + detail::escape_pointer_token(name));
  }
  return lock;
}

std::string lock_key(const std::string& spec_file) {
  return detail::valid_utf8(std::filesystem::path(spec_file).filename().string());
}

void write_lock_file(const LockFile& lock) {
  nlohmann::json locks = nlohmann::json::object();
  for (const auto& [name, e] : lock.entries) {
    locks[name] = lock_entry_to_json(e);
  }
  const nlohmann::json file{
      {"schema_version", 1}, {"rightsize_version", RIGHTSIZE_VERSION}, {"locks", locks}};
  write_file_atomically(lock.path, detail::dump_json(file, 2) + "\n");
}

namespace {

// A rise under 0.05% would read +0.0%: not worth a warning.
constexpr double k_noticeable_rise = 0.0005;

std::string attribute_cause(const Plan& plan, const LockEntry& lock) {
  const bool spec_changed = digest_spec(plan.spec) != lock.spec_digest;
  const bool catalog_changed = plan.catalog_digest != lock.catalog_digest;
  return spec_changed && catalog_changed ? "spec changed and catalog changed"
         : spec_changed                  ? "spec changed"
         : catalog_changed ? "catalog changed (prices or GPU data moved), spec unchanged"
                           : "nothing changed";
}

// A configuration that fitted and no longer does always fails, whatever --fail-on says
// (docs/ci.md).
void flag_locked_configuration_no_longer_fits(
    CheckResult& r, const LockEntry& lock, const std::optional<MemoryEstimate>& locked_config_now) {
  if (lock.recommended && locked_config_now && !locked_config_now->fits) {
    r.crossed.push_back(fmt::format("memory: the locked configuration ({} x {}) no longer fits: "
                                    "needs {} per GPU, has {}",
                                    lock.recommended->gpus,
                                    lock.recommended->gpu,
                                    format_bytes(locked_config_now->per_gpu.total()),
                                    format_bytes(locked_config_now->budget)));
  }
}

void report_infeasible(CheckResult& r, const CheckThresholds& t) {
  r.status = "infeasible";
  r.crossed.push_back("infeasible: no GPU configuration satisfies the spec any more");
  r.exit_code = t.fails_on("infeasible") ? 3 : 0;
}

// Records a figure whose text differs from the locked one. Returns its relative change, 0 when
// the locked figure was 0, even if the text reads the same.
double record_change(CheckResult& r,
                     std::string figure,
                     double before,
                     double after,
                     const std::string& before_text,
                     const std::string& after_text) {
  std::optional<double> relative;
  if (before > 0) {
    relative = after / before - 1.0;
  }
  if (before_text != after_text) {
    r.changes.push_back({std::move(figure), before_text, after_text, relative});
  }
  return relative.value_or(0.0);
}

std::string configuration_text(const std::string& gpu, int gpus, const Parallelism& p) {
  return fmt::format("{} x {} (TP{} PP{} DP{})", gpus, gpu, p.tp, p.pp, p.dp);
}

void compare_configuration(CheckResult& r,
                           const LockedConfiguration& was,
                           const Candidate& now,
                           const CheckThresholds& t) {
  const std::string before = configuration_text(was.gpu, was.gpus, was.layout);
  const std::string after = configuration_text(now.gpu->name, now.total_gpus(), now.layout);
  if (before != after) {
    r.changes.push_back({"configuration", before, after, std::nullopt});
    const std::string msg = fmt::format("gpu-change: {} -> {}", before, after);
    (t.fails_on("gpu-change") ? r.crossed : r.warnings).push_back(msg);
  }
}

void compare_memory(CheckResult& r, const LockedConfiguration& was, const Candidate& now) {
  record_change(r,
                "memory per GPU",
                was.memory_per_gpu_bytes,
                now.memory.per_gpu.total().si(),
                format_bytes(Bytes(was.memory_per_gpu_bytes)),
                format_bytes(now.memory.per_gpu.total()));
}

void compare_cost(CheckResult& r,
                  const LockedConfiguration& was,
                  const Candidate& now,
                  const CheckThresholds& t) {
  const double per_hour = record_change(r,
                                        "$/hour",
                                        was.usd_per_hour,
                                        now.cost.per_hour.si(),
                                        format_usd_per_hour(usd_per_hour(was.usd_per_hour)),
                                        format_usd_per_hour(now.cost.per_hour));
  const double tco = record_change(r,
                                   "TCO",
                                   was.tco_usd,
                                   now.cost.tco.si(),
                                   format_usd(usd(was.tco_usd)),
                                   format_usd(now.cost.tco));
  if (was.usd_per_million_tokens && now.cost.usd_per_million_output_tokens) {
    record_change(r,
                  "$/M tokens",
                  *was.usd_per_million_tokens,
                  *now.cost.usd_per_million_output_tokens,
                  fmt::format("${:.3f}", *was.usd_per_million_tokens),
                  fmt::format("${:.3f}", *now.cost.usd_per_million_output_tokens));
  }
  const double increase = std::max(per_hour, tco);
  if (increase > t.max_cost_increase && t.fails_on("cost")) {
    r.crossed.push_back(fmt::format("cost: {} {} exceeds the {:.0f}% threshold",
                                    per_hour >= tco ? "$/hour" : "TCO",
                                    percent(increase),
                                    100.0 * t.max_cost_increase));
  } else if (increase > k_noticeable_rise) {
    r.warnings.push_back(fmt::format(
        "cost rose {} (threshold {:.0f}%)", percent(increase), 100.0 * t.max_cost_increase));
  }
}

// The largest relative rise seen so far among comparable figures, and which figure it was.
struct Increase {
  double relative = 0;
  std::string figure;
};

void keep_largest(Increase& largest, double relative, const char* figure) {
  if (relative > largest.relative) {
    largest.relative = relative;
    largest.figure = figure;
  }
}

void record_inference_changes(CheckResult& r,
                              const LockedConfiguration& was,
                              const InferencePerformance& now,
                              Increase& largest) {
  if (was.ttft_ms) {
    keep_largest(largest,
                 record_change(r,
                               "TTFT",
                               *was.ttft_ms,
                               to_ms(now.ttft),
                               format_seconds(milliseconds(*was.ttft_ms)),
                               format_seconds(now.ttft)),
                 "TTFT");
  }
  if (was.tpot_ms) {
    keep_largest(largest,
                 record_change(r,
                               "TPOT",
                               *was.tpot_ms,
                               to_ms(now.tpot),
                               format_seconds(milliseconds(*was.tpot_ms)),
                               format_seconds(now.tpot)),
                 "TPOT");
  }
  if (was.output_tokens_per_s) {
    record_change(r,
                  "tokens/s",
                  *was.output_tokens_per_s,
                  now.output_tokens_per_s,
                  fmt::format("{:.0f}", *was.output_tokens_per_s),
                  fmt::format("{:.0f}", now.output_tokens_per_s));
  }
}

void record_training_changes(CheckResult& r,
                             const LockedConfiguration& was,
                             const TrainingPerformance& now,
                             Increase& largest) {
  if (was.time_to_train_hours && now.time_to_train) {
    keep_largest(largest,
                 record_change(r,
                               "time to train",
                               *was.time_to_train_hours,
                               to_hours(*now.time_to_train),
                               format_seconds(hours(*was.time_to_train_hours)),
                               format_seconds(*now.time_to_train)),
                 "time to train");
  }
}

void compare_latency(CheckResult& r,
                     const LockedConfiguration& was,
                     const Candidate& now,
                     const CheckThresholds& t) {
  Increase largest;
  if (now.inference) {
    record_inference_changes(r, was, *now.inference, largest);
  }
  if (now.training) {
    record_training_changes(r, was, *now.training, largest);
  }
  if (largest.relative > t.max_latency_increase && t.fails_on("latency")) {
    r.crossed.push_back(fmt::format("latency: {} {} exceeds the {:.0f}% threshold",
                                    largest.figure,
                                    percent(largest.relative),
                                    100.0 * t.max_latency_increase));
  } else if (largest.relative > k_noticeable_rise) {
    r.warnings.push_back(fmt::format("{} rose {} (threshold {:.0f}%)",
                                     largest.figure,
                                     percent(largest.relative),
                                     100.0 * t.max_latency_increase));
  }
}

void set_verdict(CheckResult& r) {
  r.status = r.crossed.empty() ? (r.warnings.empty() ? "ok" : "warning") : "regression";
  r.exit_code = r.crossed.empty() ? 0 : 1;
}

} // namespace

CheckResult compare_with_lock(const Plan& plan,
                              const LockEntry& lock,
                              const std::optional<MemoryEstimate>& locked_config_now,
                              const CheckThresholds& t) {
  CheckResult r;
  r.cause = attribute_cause(plan, lock);
  flag_locked_configuration_no_longer_fits(r, lock, locked_config_now);
  if (!plan.feasible()) {
    report_infeasible(r, t);
    return r;
  }
  if (!lock.recommended) {
    r.changes.push_back({"feasible", "no", "yes", std::nullopt});
    r.status = "ok";
    return r;
  }
  const LockedConfiguration& was = *lock.recommended;
  const Candidate& now = plan.candidates.front();
  compare_configuration(r, was, now, t);
  compare_memory(r, was, now);
  compare_cost(r, was, now, t);
  compare_latency(r, was, now, t);
  set_verdict(r);
  return r;
}

} // namespace rightsize
