#pragma once

// State shared by the subcommands of one cli::run call.

#include "cli/app.hpp"

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
  Teardown teardown = Teardown::free;
};

// Frees `data` at the end of the scope, or with Teardown::leave_to_exit leaves it to the
// process's exit.
template <class T> class ScopedData {
public:
  ScopedData(const Context& ctx, std::unique_ptr<T> data)
      : m_leave(ctx.teardown == Teardown::leave_to_exit), m_data(std::move(data)) {}
  ScopedData(const ScopedData&) = delete;
  ScopedData& operator=(const ScopedData&) = delete;
  ~ScopedData() {
    if (m_leave) {
      (void)m_data.release();
    }
  }
  T* operator->() const { return m_data.get(); }
  T& operator*() const { return *m_data; }

private:
  bool m_leave;
  std::unique_ptr<T> m_data;
};

} // namespace rightsize::cli
