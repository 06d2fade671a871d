#pragma once

// One register_<name>() per subcommand, each in its own cmd_<name>.cpp.

#include "cli/context.hpp"

#include <CLI/App.hpp>
#include <string>

namespace rightsize::cli {

void register_plan(CLI::App& app, Context& ctx);
void register_estimate(CLI::App& app, Context& ctx);
void register_check(CLI::App& app, Context& ctx);
void register_catalog(CLI::App& app, Context& ctx);
void register_validate(CLI::App& app, Context& ctx);
void register_model(CLI::App& app, Context& ctx);

// A subcommand that exists in the interface but is not built yet: it says so and exits 2.
void register_unbuilt(CLI::App& app, Context& ctx, const std::string& name, const std::string& help);

} // namespace rightsize::cli
