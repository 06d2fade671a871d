#pragma once

// Running rightsize in-process (cli::run) and through the real binary.

#include "cli/app.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace rightsize::test {

struct CliResult {
  int exit_code = 0;
  std::string out;
  std::string err;
};

inline CliResult run_in_process(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  CliResult r;
  r.exit_code = rightsize::cli::run(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// Runs a shell command, its stdout read through a pipe and its stderr captured through a
// temporary file; none when the shell cannot be started.
inline std::optional<CliResult> run_command(const std::string& command) {
  std::string err_file = "/tmp/rightsize-test-stderr-XXXXXX";
  const int fd = ::mkstemp(err_file.data());
  if (fd >= 0) {
    ::close(fd);
  }
  FILE* pipe = ::popen(("{ " + command + "; } 2>" + err_file).c_str(), "r");
  if (pipe == nullptr) {
    std::remove(err_file.c_str());
    return std::nullopt;
  }
  CliResult r;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    r.out.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (FILE* f = std::fopen(err_file.c_str(), "r")) {
    while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0) {
      r.err.append(buffer.data(), n);
    }
    std::fclose(f);
  }
  std::remove(err_file.c_str());
  return r;
}

// Runs the real binary through the shell (run_command). `prefix` goes before the binary
// (environment assignments, `timeout 20`).
inline CliResult run_binary(const std::string& args, const std::string& prefix = "") {
  return run_command(prefix + " " + std::string(RIGHTSIZE_BINARY) + " " + args)
      .value_or(CliResult{-1, "", ""});
}

} // namespace rightsize::test
