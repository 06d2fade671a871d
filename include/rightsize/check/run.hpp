#pragma once

// rightsize check's run (docs/ci.md): the specs named (files, or directories of them), each
// planned again with the settings its lock recorded (the command line's over them), the locked
// configuration re-evaluated, both compared with the lock; lock entries whose spec is gone;
// --update's new lock files. The report is rendered by the caller (render/check.hpp).

#include <rightsize/check/note.hpp>
#include <rightsize/check/result.hpp>
#include <rightsize/check/thresholds.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rightsize {

// Where check reads rightsize's own data.
struct CheckData {
  // The bundled data: gpus.json, memory.json, efficiency.json, uncertainty.json, engines.json.
  std::string data_dir;
  std::string catalog_overlay; // --catalog (or $RIGHTSIZE_CATALOG); "": none
  // Today, YYYY-MM-DD, for stale prices: asked once for each spec planned, from several threads
  // at once. An InputError it throws is that spec's error.
  std::function<std::string()> today;
};

struct CheckRequest {
  std::vector<std::string> specs; // spec files, or directories of them
  // One lock file, for a single spec (it must exist unless --update); "": rightsize.lock.json
  // beside each spec.
  std::string lock;
  // The report's file: refused when it is an input of the run (a spec, a lock, the config file,
  // the catalog overlay). "": standard output. check never writes it.
  std::string output;
  ThresholdOptions thresholds;
  // The plan settings given on the command line (settings_to_json's keys), over each lock's.
  nlohmann::json given = nlohmann::json::object();
  bool update = false; // accept the current plans: rewrite the lock entries, drop removed ones
  bool replan = false; // plan every spec, also those whose plan inputs are all as locked
  int jobs = 0;        // specs planned at once; 0: one per core
  CheckData data;
};

struct CheckRun {
  // One per spec in the order named (each spec once; a directory's in name order), then one per
  // directory without specs, then the removed and unreadable entries of each directory's lock.
  // The same whatever `jobs`.
  std::vector<CheckResult> results;
  int exit_code = 0; // the worst of the results' (worse_exit_code)
};

// Checks the request's specs, and with --update writes their lock files. InputError for what
// stops the whole run (a bad threshold or config file, --lock with several specs or missing, -o
// over an input, a catalog that cannot be read); anything about one spec is that spec's result.
// `notes` gets the lines for a person as they come, also when an InputError follows: the caller
// logs them before the error.
CheckRun run_check(const CheckRequest& request, std::vector<CheckNote>& notes);

// What the results say on standard error after the report: each error, and each warning headed
// by its spec file.
std::vector<CheckNote> result_notes(const std::vector<CheckResult>& results);

// The specs named on the command line, each once (by canonical path); a directory means every
// spec in it (*.json but lock files and .rightsize.json), in name order, not its subdirectories,
// which are named in a warning. A directory without specs is an error of its own.
struct ExpandedSpecs {
  std::vector<std::string> specs;
  // The lock files of the directories given: their entries whose spec is gone are removed.
  std::set<std::string> from_directories;
  std::vector<std::pair<std::string, std::string>> errors; // the argument, the message
  std::vector<std::string> warnings;
};
ExpandedSpecs expand_specs(const std::vector<std::string>& given);

} // namespace rightsize
