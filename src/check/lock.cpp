// Lock files and regression checks. Behaviour: docs/ci.md.

#include <rightsize/check/lock.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/core/units_format.hpp>
#include <rightsize/spec/spec_json.hpp>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

bool CheckThresholds::fails_on(const std::string& what) const {
  return std::find(fail_on.begin(), fail_on.end(), what) != fail_on.end();
}

const std::vector<std::string>& check_names() {
  static const std::vector<std::string> names{"infeasible",
                                              "memory",
                                              "cost",
                                              "latency",
                                              "throughput",
                                              "gpus",
                                              "gpu-change",
                                              "added",
                                              "removed"};
  return names;
}

double parse_threshold(const std::string& text, const std::string& where) {
  std::string t = text;
  const bool pct = !t.empty() && t.back() == '%';
  if (pct) {
    t.pop_back();
  }
  try {
    std::size_t used = 0;
    const double v = std::stod(t, &used);
    // A bare number is a fraction: 5 would mean 500%, almost certainly a missing %.
    if (used != t.size() || !(v >= 0) || !std::isfinite(v) || (pct ? v > 10000.0 : v > 1.0)) {
      throw std::invalid_argument("bad");
    }
    return pct ? v / 100.0 : v;
  } catch (const std::exception&) {
    throw InputError(where,
                     "expected a percentage such as 10% (or a fraction from 0 to 1 such as 0.1), "
                     "got \"" +
                         text + "\"");
  }
}

std::vector<std::string> parse_fail_on(const std::vector<std::string>& items,
                                       const std::string& where) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    if (item.empty()) {
      continue;
    }
    if (std::find(check_names().begin(), check_names().end(), item) == check_names().end()) {
      throw InputError(where, "unknown check \"" + item + "\"" + did_you_mean(item, check_names()));
    }
    out.push_back(item);
  }
  return out;
}

void read_check_config(const std::string& path, CheckThresholds& t) {
  const nlohmann::json j = detail::load_json_file(path);
  const FieldReader r(j, path);
  if (!j.is_object()) {
    r.fail("a config file must be a JSON object");
  }
  r.reject_unknown({"schema_version", "thresholds", "fail_on"});
  if (r.integer("schema_version", Range::positive(1e6)) != 1) {
    r.member("schema_version").fail("unsupported schema version (this rightsize reads 1)");
  }
  if (const auto th = r.optional_object("thresholds")) {
    th->reject_unknown(
        {"cost", "ttft", "tpot", "time_to_train", "throughput", "gpus", "memory_headroom"});
    const auto read = [&](const char* key, double& into) {
      if (!th->has(key)) {
        return;
      }
      const auto m = th->member(key);
      into = m.json().is_string() ? parse_threshold(m.as_string(), m.where())
                                  : m.as_number(Range::non_negative(1.0));
    };
    read("cost", t.cost);
    read("ttft", t.ttft);
    read("tpot", t.tpot);
    read("time_to_train", t.time_to_train);
    read("throughput", t.throughput);
    read("gpus", t.gpus);
    read("memory_headroom", t.memory_headroom);
  }
  if (r.has("fail_on")) {
    t.fail_on = parse_fail_on(r.string_array("fail_on"), r.where("fail_on"));
  }
}

std::string digest_spec(const Spec& spec) {
  nlohmann::json j = model_to_json(spec);
  j.erase("provenance"); // file paths are not part of the plan
  j.erase("warnings");
  nlohmann::json v = validation_to_json(spec);
  v.erase("file");
  v.erase("warnings");
  // validate names no KV cache format for a workload without one (null); the digest keeps the
  // format as before, so that locks of embedding and image generation specs still match.
  v["precision"]["kv_cache"] = std::string(to_string(spec.precision.kv_cache));
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

LockedConfiguration configuration_of(const Candidate& c) {
  LockedConfiguration l;
  l.gpu = c.gpu->name;
  l.gpus = c.total_gpus();
  l.replicas = c.replicas;
  l.layout = c.layout;
  l.weights = std::string(to_string(c.spec->precision.weights));
  l.kv_cache = std::string(to_string(c.spec->precision.kv_cache));
  l.memory_per_gpu_bytes = c.memory.per_gpu.total().si();
  l.memory_budget_bytes = c.memory.budget.si();
  const Workload& w = c.spec->workload;
  const bool own_unit = w.one_pass() || w.is_transcription();
  if (c.inference) {
    l.batch = c.memory.batch;
    if (!own_unit) {
      l.ttft_ms = to_ms(c.inference->ttft);
      l.tpot_ms = to_ms(c.inference->tpot);
      l.output_tokens_per_s = c.inference->output_tokens_per_s;
    } else {
      // An embedding's TTFT is its sequence's latency (an image's for image generation), a
      // transcription's its request's.
      l.latency_ms = to_ms(c.inference->ttft);
      if (w.is_transcription()) {
        l.audio_seconds_per_s = c.inference->audio_seconds_per_s;
      } else if (c.spec->per_image()) {
        l.images_per_s = c.inference->requests_per_s; // one image a sequence
      } else {
        l.sequences_per_s = c.inference->requests_per_s;
      }
    }
  }
  if (c.training) {
    l.step_time_s = c.training->step.si();
    if (c.training->time_to_train) {
      l.time_to_train_hours = to_hours(*c.training->time_to_train);
    }
  }
  l.usd_per_hour = c.cost.per_hour.si();
  if (!own_unit) {
    l.usd_per_million_tokens = c.cost.usd_per_million_tokens;
  } else if (w.is_transcription()) {
    l.usd_per_audio_hour = c.cost.usd_per_audio_hour;
  } else if (c.spec->per_image()) {
    l.usd_per_thousand_images = c.cost.usd_per_thousand_images;
  } else {
    l.usd_per_million_input_tokens = c.cost.usd_per_million_tokens; // per input token
  }
  l.tco_usd = c.cost.tco.si();
  if (!c.cost.months.empty()) {
    l.usd_per_month = c.cost.months.front().cost.si();
  }
  return l;
}

std::string configuration_text(const LockedConfiguration& l) {
  return fmt::format("{} x {} (TP{}{} PP{} DP{}, {}/{})",
                     l.gpus,
                     l.gpu,
                     l.layout.tp,
                     l.layout.cp > 1 ? fmt::format(" CP{}", l.layout.cp) : std::string(),
                     l.layout.pp,
                     l.layout.dp,
                     l.weights,
                     l.kv_cache);
}

bool same_configuration(const LockedConfiguration& a, const LockedConfiguration& b) {
  return a.gpu == b.gpu && a.gpus == b.gpus && a.replicas == b.replicas &&
         a.layout.tp == b.layout.tp && a.layout.cp == b.layout.cp && a.layout.pp == b.layout.pp &&
         a.layout.dp == b.layout.dp && a.layout.ep == b.layout.ep && a.weights == b.weights &&
         a.kv_cache == b.kv_cache;
}

namespace {

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The figures of workloads measured in their own unit, by their name in a lock file.
template <class L> auto own_unit_figures(L& l) {
  return std::array{std::pair{"latency_ms", &l.latency_ms},
                    std::pair{"sequences_per_s", &l.sequences_per_s},
                    std::pair{"images_per_s", &l.images_per_s},
                    std::pair{"audio_seconds_per_s", &l.audio_seconds_per_s},
                    std::pair{"usd_per_million_input_tokens", &l.usd_per_million_input_tokens},
                    std::pair{"usd_per_thousand_images", &l.usd_per_thousand_images},
                    std::pair{"usd_per_audio_hour", &l.usd_per_audio_hour}};
}

} // namespace

nlohmann::json configuration_to_json(const LockedConfiguration& l) {
  nlohmann::json j = {
      {"gpu", l.gpu},
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
      {"usd_per_month", optional_json(l.usd_per_month)},
      {"batch", l.batch ? nlohmann::json(*l.batch) : nlohmann::json(nullptr)},
      {"usd_per_million_output_tokens", optional_json(l.usd_per_million_tokens)},
      {"tco_usd", l.tco_usd}};
  // Written only when set: a generation workload's lock reads as before.
  for (const auto& [key, v] : own_unit_figures(l)) {
    if (*v) {
      j[key] = **v;
    }
  }
  // Context parallelism only where a training layout has it: every other lock reads as before.
  if (l.layout.cp > 1) {
    j["parallelism"]["cp"] = l.layout.cp;
  }
  return j;
}

namespace {

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
                    "usd_per_month",
                    "batch",
                    "usd_per_million_output_tokens",
                    "tco_usd",
                    "latency_ms",
                    "sequences_per_s",
                    "images_per_s",
                    "audio_seconds_per_s",
                    "usd_per_million_input_tokens",
                    "usd_per_thousand_images",
                    "usd_per_audio_hour"});
  LockedConfiguration l;
  l.gpu = r.string("gpu");
  l.gpus = static_cast<int>(r.integer("gpus", Range::positive(1e7)));
  l.replicas = static_cast<int>(r.integer("replicas", Range::positive(1e7)));
  const auto p = r.object("parallelism");
  p.reject_unknown({"tp", "pp", "dp", "ep", "cp"});
  l.layout.tp = static_cast<int>(p.integer("tp", Range::positive(1e5)));
  l.layout.pp = static_cast<int>(p.integer("pp", Range::positive(1e5)));
  l.layout.dp = static_cast<int>(p.integer("dp", Range::positive(1e7)));
  l.layout.ep = static_cast<int>(p.integer("ep", Range::positive(1e5)));
  l.layout.cp = static_cast<int>(p.optional_integer("cp", Range::positive(1e5)).value_or(1));
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
  l.usd_per_month = optional_number(r, "usd_per_month");
  l.batch = r.optional_integer("batch", Range::positive(1e9));
  l.usd_per_million_tokens = optional_number(r, "usd_per_million_output_tokens");
  l.tco_usd = r.number("tco_usd", Range::non_negative(1e15));
  for (const auto& [key, v] : own_unit_figures(l)) {
    *v = optional_number(r, key);
  }
  return l;
}

std::string percent(double relative) {
  return fmt::format("{:+.1f}%", 100.0 * relative);
}

} // namespace

LockEntry make_lock_entry(const Plan& plan,
                          const std::string& model_digest,
                          const nlohmann::json& settings,
                          const std::string& spec_digest) {
  LockEntry e;
  e.spec_digest = spec_digest.empty() ? digest_spec(plan.spec) : spec_digest;
  e.catalog_version = plan.catalog_version;
  e.catalog_digest = plan.catalog_digest;
  e.model_digest = model_digest;
  e.settings = settings;
  e.objective = std::string(to_string(plan.objective));
  e.feasible = plan.feasible();
  for (std::size_t i = 0; i < plan.candidates.size() && i < 4; ++i) {
    if (i == 0) {
      e.recommended = configuration_of(plan.candidates[i]);
    } else {
      e.alternatives.push_back(configuration_of(plan.candidates[i]));
    }
  }
  return e;
}

nlohmann::json lock_entry_to_json(const LockEntry& e) {
  nlohmann::json alternatives = nlohmann::json::array();
  for (const auto& a : e.alternatives) {
    alternatives.push_back(configuration_to_json(a));
  }
  nlohmann::json j{
      {"spec_digest", e.spec_digest},
      {"catalog", {{"version", e.catalog_version}, {"digest", e.catalog_digest}}},
      {"objective", e.objective},
      {"feasible", e.feasible},
      {"recommended",
       e.recommended ? configuration_to_json(*e.recommended) : nlohmann::json(nullptr)},
      {"alternatives", alternatives}};
  if (!e.model_digest.empty()) {
    j["model_digest"] = e.model_digest;
  }
  if (!e.settings.is_null()) {
    j["settings"] = e.settings;
  }
  return j;
}

LockEntry
parse_lock_entry(const nlohmann::json& j, const std::string& file, const std::string& pointer) {
  const FieldReader r(j, file, pointer);
  r.reject_unknown({"spec_digest",
                    "catalog",
                    "model_digest",
                    "settings",
                    "objective",
                    "feasible",
                    "recommended",
                    "alternatives"});
  LockEntry e;
  e.spec_digest = r.string("spec_digest");
  const auto c = r.object("catalog");
  e.catalog_version = c.string("version");
  e.catalog_digest = c.string("digest");
  e.model_digest = r.optional_string("model_digest").value_or("");
  if (r.has("settings")) {
    const auto settings = r.object("settings");
    e.settings = settings.json();
  }
  e.objective = r.string("objective");
  e.feasible = r.boolean("feasible");
  if (r.has("recommended") && !r.member("recommended").json().is_null()) {
    e.recommended = parse_configuration(r.object("recommended"));
  } else if (e.feasible) {
    r.fail_plain("a feasible lock must have a recommended configuration");
  }
  for (const auto& a : r.array("alternatives")) {
    e.alternatives.push_back(parse_configuration(a));
  }
  return e;
}

LockFile read_lock_file(const std::string& path, bool allow_missing, bool lenient) {
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
  const long long version = r.integer("schema_version", Range::positive(1e6));
  if (version != 1 && version != 2) {
    r.member("schema_version")
        .fail("unsupported lock schema version (this rightsize reads 1 and 2)");
  }
  lock.rightsize_version = r.optional_string("rightsize_version").value_or("");
  const auto locks = r.object("locks");
  for (const auto& [name, value] : locks.json().items()) {
    const std::string pointer = "/locks/" + detail::escape_pointer_token(name);
    if (!lenient) {
      lock.entries[name] = parse_lock_entry(value, path, pointer);
      continue;
    }
    try {
      lock.entries[name] = parse_lock_entry(value, path, pointer);
    } catch (const InputError& e) {
      lock.bad_entries[name] = e.what();
      lock.bad_json[name] = value;
    }
  }
  return lock;
}

std::string lock_key(const std::string& spec_file) {
  return detail::valid_utf8(std::filesystem::path(spec_file).filename().string());
}

void write_lock_file(const LockFile& lock) {
  nlohmann::json locks = nlohmann::json::object();
  for (const auto& [name, raw] : lock.bad_json) {
    locks[name] = raw; // an entry that could not be read stays as it was until replaced
  }
  for (const auto& [name, e] : lock.entries) {
    locks[name] = lock_entry_to_json(e);
  }
  const nlohmann::json file{
      {"schema_version", 2}, {"rightsize_version", RIGHTSIZE_VERSION}, {"locks", locks}};
  write_file_atomically(lock.path, detail::dump_json(file, 2) + "\n");
}

std::string Cause::text() const {
  std::vector<std::string> parts;
  if (spec) {
    parts.emplace_back("spec");
  }
  if (catalog) {
    parts.emplace_back("catalog");
  }
  if (model) {
    parts.emplace_back("rightsize's model");
  }
  if (settings) {
    parts.emplace_back("settings");
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  if (out.empty()) {
    return unknown ? "nothing changed that the lock records (it predates settings and model "
                     "digests: re-lock)"
                   : "nothing changed";
  }
  return out + " changed";
}

namespace {

// A rise under 0.05% would read +0.0%: not worth a warning.
constexpr double k_noticeable = 0.0005;

struct Metric {
  const char* metric;
  const char* label;
  const char* unit;
  const char* check; // the --fail-on name; "" for figures without a threshold
  bool higher_is_worse;
};

std::string money(double amount) {
  return format_usd(rightsize::usd(amount));
}

// Adds the change of one figure; crosses its threshold when it moves the wrong way by more.
void compare_figure(CheckResult& r,
                    const Metric& m,
                    double before,
                    double after,
                    std::string before_text,
                    std::string after_text,
                    std::optional<double> threshold,
                    const CheckThresholds& t) {
  Change c{m.metric,
           m.label,
           m.unit,
           before,
           after,
           std::move(before_text),
           std::move(after_text),
           threshold,
           false};
  const auto rel = c.relative();
  if (rel && threshold) {
    const double worse = m.higher_is_worse ? *rel : -*rel;
    if (worse > *threshold + 1e-12) {
      const std::string line = fmt::format("{}: {} {} -> {} ({}), over the {:.0f}% threshold",
                                           m.check,
                                           m.label,
                                           c.before_text,
                                           c.after_text,
                                           percent(*rel),
                                           100.0 * *threshold);
      if (t.fails_on(m.check)) {
        c.crossed = true;
        r.crossed.push_back({m.check, line});
      } else {
        r.warnings.push_back(line);
      }
    } else if (worse > k_noticeable) {
      r.warnings.push_back(fmt::format(
          "{} {} ({} threshold {:.0f}%)", m.label, percent(*rel), m.check, 100.0 * *threshold));
    }
  }
  if (c.before_text != c.after_text || c.crossed) {
    r.changes.push_back(std::move(c));
  }
}

void compare_figures(CheckResult& r,
                     const LockedConfiguration& was,
                     const LockedConfiguration& now,
                     const CheckThresholds& t) {
  compare_figure(r,
                 {"gpus", "GPUs", "GPUs", "gpus", true},
                 was.gpus,
                 now.gpus,
                 std::to_string(was.gpus),
                 std::to_string(now.gpus),
                 t.gpus,
                 t);
  compare_figure(r,
                 {"usd_per_hour", "$/hour", "USD/h", "cost", true},
                 was.usd_per_hour,
                 now.usd_per_hour,
                 format_usd_per_hour(usd_per_hour(was.usd_per_hour)),
                 format_usd_per_hour(usd_per_hour(now.usd_per_hour)),
                 t.cost,
                 t);
  if (was.usd_per_month && now.usd_per_month) {
    compare_figure(r,
                   {"usd_per_month", "$/month", "USD/month", "cost", true},
                   *was.usd_per_month,
                   *now.usd_per_month,
                   money(*was.usd_per_month),
                   money(*now.usd_per_month),
                   std::nullopt,
                   t);
  }
  compare_figure(r,
                 {"tco_usd", "TCO", "USD", "cost", true},
                 was.tco_usd,
                 now.tco_usd,
                 money(was.tco_usd),
                 money(now.tco_usd),
                 t.cost,
                 t);
  if (was.usd_per_million_tokens && now.usd_per_million_tokens) {
    compare_figure(r,
                   {"usd_per_million_output_tokens", "$/M tokens", "USD", "cost", true},
                   *was.usd_per_million_tokens,
                   *now.usd_per_million_tokens,
                   fmt::format("${:.3f}", *was.usd_per_million_tokens),
                   fmt::format("${:.3f}", *now.usd_per_million_tokens),
                   std::nullopt,
                   t);
  }
  compare_figure(r,
                 {"memory_per_gpu_bytes", "memory per GPU", "bytes", "memory", true},
                 was.memory_per_gpu_bytes,
                 now.memory_per_gpu_bytes,
                 format_bytes(Bytes(was.memory_per_gpu_bytes)),
                 format_bytes(Bytes(now.memory_per_gpu_bytes)),
                 std::nullopt,
                 t);
  if (was.ttft_ms && now.ttft_ms) {
    compare_figure(r,
                   {"ttft_ms", "TTFT", "ms", "latency", true},
                   *was.ttft_ms,
                   *now.ttft_ms,
                   format_seconds(milliseconds(*was.ttft_ms)),
                   format_seconds(milliseconds(*now.ttft_ms)),
                   t.ttft,
                   t);
  }
  if (was.tpot_ms && now.tpot_ms) {
    compare_figure(r,
                   {"tpot_ms", "TPOT", "ms", "latency", true},
                   *was.tpot_ms,
                   *now.tpot_ms,
                   format_seconds(milliseconds(*was.tpot_ms)),
                   format_seconds(milliseconds(*now.tpot_ms)),
                   t.tpot,
                   t);
  }
  if (was.output_tokens_per_s && now.output_tokens_per_s) {
    compare_figure(r,
                   {"output_tokens_per_s", "tokens/s", "tokens/s", "throughput", false},
                   *was.output_tokens_per_s,
                   *now.output_tokens_per_s,
                   fmt::format("{:.0f}", *was.output_tokens_per_s),
                   fmt::format("{:.0f}", *now.output_tokens_per_s),
                   t.throughput,
                   t);
  }
  // Embeddings and transcription: the request latency, under the TTFT threshold (a lock written
  // before 2026-11-27 kept it as ttft_ms), and the throughput and unit price in their own unit.
  const auto latency_was = was.latency_ms   ? was.latency_ms
                           : now.latency_ms ? was.ttft_ms
                                            : std::nullopt;
  if (latency_was && now.latency_ms) {
    compare_figure(r,
                   {"latency_ms", "latency", "ms", "latency", true},
                   *latency_was,
                   *now.latency_ms,
                   format_seconds(milliseconds(*latency_was)),
                   format_seconds(milliseconds(*now.latency_ms)),
                   t.ttft,
                   t);
  }
  const auto rate = [&](const std::optional<double>& before,
                        const std::optional<double>& after,
                        const Metric& m) {
    if (before && after) {
      compare_figure(r,
                     m,
                     *before,
                     *after,
                     fmt::format("{:.1f}", *before),
                     fmt::format("{:.1f}", *after),
                     t.throughput,
                     t);
    }
  };
  rate(was.sequences_per_s,
       now.sequences_per_s,
       {"sequences_per_s", "sequences/s", "sequences/s", "throughput", false});
  rate(was.images_per_s,
       now.images_per_s,
       {"images_per_s", "images/s", "images/s", "throughput", false});
  rate(was.audio_seconds_per_s,
       now.audio_seconds_per_s,
       {"audio_seconds_per_s", "audio seconds/s", "audio s/s", "throughput", false});
  const auto price = [&](const std::optional<double>& before,
                         const std::optional<double>& after,
                         const Metric& m,
                         const char* format) {
    if (before && after) {
      compare_figure(r,
                     m,
                     *before,
                     *after,
                     fmt::format(fmt::runtime(format), *before),
                     fmt::format(fmt::runtime(format), *after),
                     std::nullopt,
                     t);
    }
  };
  // A text embedding's price per million tokens was locked as usd_per_million_output_tokens.
  price(was.usd_per_million_input_tokens   ? was.usd_per_million_input_tokens
        : now.usd_per_million_input_tokens ? was.usd_per_million_tokens
                                           : std::nullopt,
        now.usd_per_million_input_tokens,
        {"usd_per_million_input_tokens", "$/M input tokens", "USD", "cost", true},
        "${:.4f}");
  price(was.usd_per_thousand_images,
        now.usd_per_thousand_images,
        {"usd_per_thousand_images", "$/1k images", "USD", "cost", true},
        "${:.4f}");
  price(was.usd_per_audio_hour,
        now.usd_per_audio_hour,
        {"usd_per_audio_hour", "$/audio hour", "USD", "cost", true},
        "${:.4f}");
  if (was.step_time_s && now.step_time_s) {
    compare_figure(r,
                   {"step_time_s", "step time", "s", "latency", true},
                   *was.step_time_s,
                   *now.step_time_s,
                   format_seconds(seconds(*was.step_time_s)),
                   format_seconds(seconds(*now.step_time_s)),
                   std::nullopt,
                   t);
  }
  if (was.time_to_train_hours && now.time_to_train_hours) {
    compare_figure(r,
                   {"time_to_train_hours", "time to train", "h", "latency", true},
                   *was.time_to_train_hours,
                   *now.time_to_train_hours,
                   format_seconds(hours(*was.time_to_train_hours)),
                   format_seconds(hours(*now.time_to_train_hours)),
                   t.time_to_train,
                   t);
  }
  // Memory headroom: the share of the budget left free, checked on what is compared now.
  if (now.memory_budget_bytes > 0 && t.memory_headroom > 0) {
    const double headroom = 1.0 - now.memory_per_gpu_bytes / now.memory_budget_bytes;
    if (headroom < t.memory_headroom) {
      const std::string line =
          fmt::format("memory: {:.1f}% of the memory budget left free, under the {:.0f}% "
                      "headroom threshold",
                      100.0 * headroom,
                      100.0 * t.memory_headroom);
      (t.fails_on("memory") ? r.crossed.push_back({"memory", line}) : r.warnings.push_back(line));
    }
  }
}

void set_status(CheckResult& r) {
  r.status = r.crossed.empty()
                 ? (r.warnings.empty() && !r.recommendation_changed ? "ok" : "warning")
                 : "regression";
  r.exit_code = r.crossed.empty() ? 0 : 1;
}

} // namespace

CheckResult compare_with_lock(const Plan& plan,
                              const LockEntry& lock,
                              const ConfigurationEvaluation* locked_now,
                              const Cause& cause,
                              const CheckThresholds& t) {
  CheckResult r;
  r.cause = cause;
  r.locked = lock.recommended;
  if (plan.feasible()) {
    r.now = configuration_of(plan.candidates.front());
  }
  // The locked configuration on the spec and catalog as they are now.
  std::optional<LockedConfiguration> locked_after;
  if (lock.recommended && locked_now != nullptr) {
    if (locked_now->candidate) {
      locked_after = configuration_of(*locked_now->candidate);
    }
    if (!locked_now->problem.empty()) {
      r.locked_problem = locked_now->problem;
      // A configuration that fitted and no longer does always fails (docs/ci.md); one that
      // misses a target fails as that target's check.
      const std::string& kind = locked_now->problem_kind;
      const std::string check = kind == "memory"                          ? "memory"
                                : kind == "latency" || kind == "deadline" ? "latency"
                                : kind == "throughput"                    ? "throughput"
                                                                          : "infeasible";
      const std::string line = fmt::format("{}: the locked configuration, {}, {}",
                                           check,
                                           configuration_text(*lock.recommended),
                                           locked_now->problem);
      // Memory, a GPU gone from the catalog and one the catalog has no rate for the locked
      // precision always fail: the locked deployment cannot run, or cannot be judged.
      if (check == "memory" || kind == "gone" || kind == "precision" || t.fails_on(check)) {
        r.crossed.push_back({check, line});
      } else {
        r.warnings.push_back(line);
      }
    }
  }
  if (!plan.feasible()) {
    r.status = "infeasible";
    r.crossed.push_back({"infeasible",
                         lock.feasible
                             ? "infeasible: no GPU configuration satisfies the spec any more"
                             : "infeasible: no GPU configuration satisfies the spec"});
    r.exit_code = t.fails_on("infeasible") ? 3 : 0;
    return r;
  }
  if (!lock.recommended) {
    r.basis = "new recommendation";
    r.warnings.push_back("feasible now; the lock recorded nothing feasible");
    set_status(r);
    return r;
  }
  r.recommendation_changed = !same_configuration(*lock.recommended, *r.now);
  if (locked_after && r.locked_problem.empty()) {
    // Same configuration, new figures.
    r.basis = "locked configuration";
    r.compared = locked_after;
    compare_figures(r, *lock.recommended, *locked_after, t);
    if (r.recommendation_changed) {
      const std::string line = fmt::format(
          "gpu-change: a different configuration is now best: {} at {} ({} for the locked one)",
          configuration_text(*r.now),
          format_usd_per_hour(usd_per_hour(r.now->usd_per_hour)),
          format_usd_per_hour(usd_per_hour(locked_after->usd_per_hour)));
      (t.fails_on("gpu-change") ? r.crossed.push_back({"gpu-change", line})
                                : r.warnings.push_back(line));
    }
  } else {
    // The locked configuration no longer serves: what it takes now against what was locked.
    r.basis = "new recommendation";
    r.compared = r.now;
    compare_figures(r, *lock.recommended, *r.now, t);
    if (r.recommendation_changed) {
      const std::string line = fmt::format("gpu-change: {} -> {}",
                                           configuration_text(*lock.recommended),
                                           configuration_text(*r.now));
      (t.fails_on("gpu-change") ? r.crossed.push_back({"gpu-change", line})
                                : r.warnings.push_back(line));
    }
  }
  set_status(r);
  return r;
}

CheckResult unchanged_result(const LockEntry& lock, const CheckThresholds& t) {
  CheckResult r;
  r.locked = lock.recommended;
  r.now = lock.recommended;
  r.compared = lock.recommended;
  if (!lock.feasible) {
    r.status = "infeasible";
    r.crossed.push_back({"infeasible", "infeasible: no GPU configuration satisfies the spec"});
    r.exit_code = t.fails_on("infeasible") ? 3 : 0;
    return r;
  }
  r.basis = "locked configuration";
  // The figures are the lock's; the thresholds on figures alone (memory headroom) still apply.
  compare_figures(r, *lock.recommended, *lock.recommended, t);
  set_status(r);
  return r;
}

CheckResult added_result(const Plan& plan, const CheckThresholds& t) {
  CheckResult r;
  r.status = "added";
  r.basis = "new recommendation";
  if (plan.feasible()) {
    r.now = configuration_of(plan.candidates.front());
    r.compared = r.now;
  }
  const std::string line = plan.feasible()
                               ? fmt::format("added: {} at {}",
                                             configuration_text(*r.now),
                                             format_usd_per_hour(usd_per_hour(r.now->usd_per_hour)))
                               : "added: nothing feasible";
  if (t.fails_on("added")) {
    r.crossed.push_back({"added", line});
    r.exit_code = 1;
  }
  if (!plan.feasible() && t.fails_on("infeasible")) {
    r.crossed.push_back({"infeasible", "infeasible: no GPU configuration satisfies the spec"});
    r.exit_code = 3;
  }
  return r;
}

} // namespace rightsize
