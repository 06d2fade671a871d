#pragma once

// Lock files (rightsize plan --lock, check --update; docs/ci.md, "What a lock holds"): what a
// plan recommended, the digests of what it was made from and the settings it was made with, one
// entry per spec file. check re-plans and compares (check/result.hpp, check/run.hpp).

#include <rightsize/check/configuration.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/spec.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rightsize {

struct LockEntry {
  std::string spec_digest; // of the normalized model and workload (digest_spec)
  std::string catalog_version;
  std::string catalog_digest;
  // Digest of rightsize's own model data (memory, efficiency, uncertainty, engine tables and
  // --assume overrides; check/settings.hpp, model_digest); empty in schema 1 locks.
  std::string model_digest;
  // The settings that shaped the plan (check/settings.hpp, settings_to_json), as rightsize check
  // replays them; null in schema 1 locks (the defaults).
  nlohmann::json settings;
  // Digest of the site calibration the plan used (settings "calibration"; SiteCalibration::
  // digest), so that check tells a calibration change from a model change; empty: none.
  std::string calibration_digest;
  std::string objective;
  bool feasible = false;
  std::optional<LockedConfiguration> recommended;
  std::vector<LockedConfiguration> alternatives;
};

// Digest of everything about a spec that changes its plan: the normalized model (architecture,
// parameters, quantization) and workload, precision, constraints and deployment.
std::string digest_spec(const Spec& spec);

// `spec_digest`: of the spec as written, before command-line settings (so that a settings change
// is not also a spec change); empty: of the plan's spec.
LockEntry make_lock_entry(const Plan& plan,
                          const std::string& model_digest = {},
                          const nlohmann::json& settings = nullptr,
                          const std::string& spec_digest = {},
                          const std::string& calibration_digest = {});
nlohmann::json lock_entry_to_json(const LockEntry& e);
// Reads one entry; `where` names the file and pointer in errors.
LockEntry
parse_lock_entry(const nlohmann::json& j, const std::string& file, const std::string& pointer);

// A lock file: {"schema_version": 2, "rightsize_version": ..., "locks": {"<spec file name>":
// entry}}. Schema 1 files are read too (no settings, no model digest).
struct LockFile {
  std::string path;
  std::string rightsize_version; // of the rightsize that wrote it
  std::map<std::string, LockEntry> entries;
  // Read leniently: the entries that could not be read, with their one-line error and their JSON
  // (written back as they were unless replaced), so that one bad entry is its spec's error only.
  std::map<std::string, std::string> bad_entries;
  std::map<std::string, nlohmann::json> bad_json;
};
// The key of a spec's entry: its file name, with bytes that are not UTF-8 replaced by U+FFFD (a
// lock file is JSON text), so that writing and reading find the same entry.
std::string lock_key(const std::string& spec_file);
// The JSON pointer of a spec's entry in its lock file ("/locks/chat.json").
std::string lock_pointer(const std::string& spec_file);
// rightsize.lock.json in the spec's directory: the lock plan --lock, check and deploy --lock use
// when none is named.
std::string default_lock_path(const std::string& spec_file);
// Missing file: an empty lock (allow_missing) or an InputError. Corrupt files: InputError; with
// `lenient`, an entry that cannot be read goes to bad_entries instead (the file itself must
// still be a lock file).
LockFile read_lock_file(const std::string& path, bool allow_missing, bool lenient = false);
// Written atomically (core/files.hpp): a failure leaves the previous lock file as it was.
void write_lock_file(const LockFile& lock);
// Writes (or replaces) the lock entry of `plan`'s spec in `lock_path` (plan --lock), the other
// entries kept. The entry records the settings that shaped the plan and the digest of
// rightsize's model data, so that check replays the one and reports the other.
void write_lock_entry(const Plan& plan,
                      const std::string& spec_file,
                      const std::string& lock_path,
                      const std::string& model_digest,
                      const nlohmann::json& settings,
                      const std::string& spec_digest,
                      const std::string& calibration_digest = {});

} // namespace rightsize
