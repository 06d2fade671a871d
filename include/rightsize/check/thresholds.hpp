#pragma once

// The thresholds check holds each figure to, and which checks fail the job (docs/ci.md,
// "Thresholds"): the defaults, the repository's config file (.rightsize.json) over them, the
// command line over both.

#include <rightsize/check/note.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rightsize {

// Thresholds per metric, relative (0.1 = 10%), and which checks fail the job (docs/ci.md).
struct CheckThresholds {
  double cost = 0.10;           // rise of $/hour or TCO
  double ttft = 0.20;           // rise
  double tpot = 0.20;           // rise
  double time_to_train = 0.20;  // rise
  double throughput = 0.10;     // drop of output tokens/s
  double gpus = 0.0;            // rise of the GPU count
  double memory_headroom = 0.0; // the least share of the memory budget left free
  std::vector<std::string> fail_on{"infeasible", "memory", "cost", "latency", "throughput"};
  [[nodiscard]] bool fails_on(const std::string& what) const;
};
// Every name --fail-on and the config file accept.
const std::vector<std::string>& check_names();
// A threshold as written: "10%" or a fraction from 0 to 1; InputError at `where` otherwise.
double parse_threshold(const std::string& text, const std::string& where);
// Check names, each known (InputError at `where` with a suggestion otherwise).
std::vector<std::string> parse_fail_on(const std::vector<std::string>& items,
                                       const std::string& where);
// The repository's check config (.rightsize.json: schema_version 1, thresholds, fail_on),
// applied over `t`. InputError naming the file and field for anything else.
void read_check_config(const std::string& path, CheckThresholds& t);

// The thresholds as the command line gives them, as written; empty: not given.
struct ThresholdOptions {
  std::string config;      // --config FILE; empty: .rightsize.json in the current directory, if any
  std::string max_cost;    // --max-cost-increase
  std::string max_latency; // --max-latency-increase: TTFT, TPOT and time to train
  std::string max_ttft;    // --max-ttft-increase
  std::string max_tpot;    // --max-tpot-increase
  std::string max_throughput_drop; // --max-throughput-decrease
  std::string max_gpus;            // --max-gpus-increase
  std::string min_headroom;        // --min-memory-headroom
  // --fail-on as given: a comma-separated list; given empty, an InputError.
  std::optional<std::string> fail_on;
};
// The config file check reads: `config`, else .rightsize.json in the current directory if there
// is one, else "".
std::string check_config_path(const std::string& config);
// The defaults, the config file's over them, the command line's over both; `memory` is always
// among the checks that fail. `notes` gets, at info level, the config file read and the memory
// check added.
CheckThresholds resolve_thresholds(const ThresholdOptions& o, std::vector<CheckNote>& notes);

} // namespace rightsize
