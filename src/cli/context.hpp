#pragma once

// State shared by the subcommands of one cli::run call.

#include <rightsize/core/error.hpp>

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace rightsize::cli {

struct Context {
  std::ostream& out; // the report, written to standard output when the command succeeds
  std::ostream& err;
  std::shared_ptr<spdlog::logger> log;
  int verbosity = 0;  // -v count
  bool quiet = false; // -q
  // Whether the report goes to a terminal (colour, when --color auto).
  bool out_is_terminal = false;
  // Set by the chosen subcommand's CLI11 callback; run() calls it after parsing, inside the one
  // catch site, and returns its exit code.
  std::function<ExitCode()> action;
};

} // namespace rightsize::cli
