#pragma once

// The command-line front end. main() only calls run(); tests call it in-process.

#include <iostream>
#include <string>
#include <vector>

namespace rightsize::cli {

// Runs rightsize with `args` (without the program name), writing the report to `out` and logs
// and errors to `err`. Returns the process exit code (see rightsize::ExitCode).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace rightsize::cli
