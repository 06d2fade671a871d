#pragma once

// The command-line front end. main() only calls run(); tests call it in-process.

#include <iostream>
#include <string>
#include <vector>

namespace rightsize::cli {

// What run() does with a command's data when it is done with it.
enum class Teardown {
  free,          // frees it: run() is called in a process that goes on (tests, benchmarks)
  leave_to_exit, // leaves the largest of it (a plan and what it was made from) to the process's
                 // exit, which returns the memory at once: main(), whose process ends right after.
                 // Freeing a plan piece by piece was 4% of a plan's instructions (as compilers
                 // do, docs/performance.md).
};

// Runs rightsize with `args` (without the program name), writing the report to `out` and logs
// and errors to `err`. Returns the process exit code (see rightsize::ExitCode).
int run(const std::vector<std::string>& args,
        std::ostream& out,
        std::ostream& err,
        Teardown teardown = Teardown::free);

} // namespace rightsize::cli
