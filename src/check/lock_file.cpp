// Lock files: their entries as JSON, read leniently or strictly, written atomically.

#include "configuration_json.hpp"

#include <rightsize/check/lock.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/core/files.hpp>
#include <rightsize/core/json_reader.hpp>
#include <rightsize/spec/spec_json.hpp>

#include <filesystem>

namespace rightsize {

using detail::FieldReader;
using detail::Range;

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

LockEntry make_lock_entry(const Plan& plan,
                          const std::string& model_digest,
                          const nlohmann::json& settings,
                          const std::string& spec_digest,
                          const std::string& calibration_digest) {
  LockEntry e;
  e.calibration_digest = calibration_digest;
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
  if (!e.calibration_digest.empty()) {
    j["calibration_digest"] = e.calibration_digest;
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
                    "calibration_digest",
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
  e.calibration_digest = r.optional_string("calibration_digest").value_or("");
  if (r.has("settings")) {
    const auto settings = r.object("settings");
    e.settings = settings.json();
  }
  e.objective = r.string("objective");
  e.feasible = r.boolean("feasible");
  if (r.has("recommended") && !r.member("recommended").json().is_null()) {
    e.recommended = detail::parse_configuration(r.object("recommended"));
  } else if (e.feasible) {
    r.fail_plain("a feasible lock must have a recommended configuration");
  }
  for (const auto& a : r.array("alternatives")) {
    e.alternatives.push_back(detail::parse_configuration(a));
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

std::string lock_pointer(const std::string& spec_file) {
  return "/locks/" + detail::escape_pointer_token(lock_key(spec_file));
}

std::string default_lock_path(const std::string& spec_file) {
  const std::filesystem::path dir = std::filesystem::path(spec_file).parent_path();
  return (dir.empty() ? std::filesystem::path("rightsize.lock.json") : dir / "rightsize.lock.json")
      .string();
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

void write_lock_entry(const Plan& plan,
                      const std::string& spec_file,
                      const std::string& lock_path,
                      const std::string& digest,
                      const nlohmann::json& settings,
                      const std::string& spec_digest,
                      const std::string& calibration_digest) {
  LockFile lock = read_lock_file(lock_path, /*allow_missing=*/true);
  lock.entries[lock_key(spec_file)] =
      make_lock_entry(plan, digest, settings, spec_digest, calibration_digest);
  write_lock_file(lock);
}

} // namespace rightsize
