#pragma once

// The options of `rightsize observe` as its command line reads them: the inputs (files, traces,
// a Prometheus server and how to reach it), the thresholds of the verdicts and the
// recommendation's settings. cmd_observe.cpp registers and runs the command. docs/observe.md,
// "Options".

#include "cli/common_options.hpp"

#include <rightsize/observe/inputs.hpp>
#include <rightsize/observe/settings.hpp>

#include <CLI/App.hpp>

#include <array>
#include <string>

namespace rightsize::cli {

struct ObserveCliOptions {
  CommonOptions common;
  ObserveInputs inputs;
  ObserveSettings settings;
  long watch_count = 0;
  bool no_mig = false;
  bool no_owners = false;
};

// The options that apply to --prometheus only.
inline constexpr std::array<const char*, 14> k_live_flags{"--range",
                                                          "--end",
                                                          "--step",
                                                          "--selector",
                                                          "--timeout",
                                                          "--aggregate",
                                                          "--bearer-token",
                                                          "--bearer-token-file",
                                                          "--header",
                                                          "--ca-file",
                                                          "--insecure-skip-verify",
                                                          "--watch",
                                                          "--watch-count",
                                                          "--no-owners"};

// The inputs: files, traces, --prometheus and its options (--watch among them).
void add_input_options(CLI::App& sub, ObserveCliOptions& o);
// The verdicts' thresholds (--percentile, --buffer, --idle-below, ...), under `group`.
void add_threshold_options(CLI::App& sub, ObserveSettings& s, const std::string& group);
// The recommendation's settings (--group-by, --gpus, --provider, ...), under `group`.
void add_recommendation_options(CLI::App& sub, ObserveCliOptions& o, const std::string& group);

} // namespace rightsize::cli
