#pragma once

// One register_<name>() per subcommand, each in its own cmd_<name>.cpp.

#include "cli/common_options.hpp"
#include "cli/context.hpp"

#include <rightsize/estimate/memory.hpp>
#include <rightsize/plan/plan.hpp>

#include <CLI/App.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rightsize::cli {

void register_plan(CLI::App& app, Context& ctx);
void register_estimate(CLI::App& app, Context& ctx);
void register_check(CLI::App& app, Context& ctx);
void register_deploy(CLI::App& app, Context& ctx);
void register_observe(CLI::App& app, Context& ctx);
void register_catalog(CLI::App& app, Context& ctx);
void register_validate(CLI::App& app, Context& ctx);
void register_model(CLI::App& app, Context& ctx);
void register_compare(CLI::App& app, Context& ctx);
void register_calibrate(CLI::App& app, Context& ctx);

// memory.json of the data directory (bundled_data_dir) with --assume NAME=VALUE overrides applied.
Constants load_constants(const CommonOptions& common, const std::vector<std::string>& assume);

// The published data's index: --published FILE, else the bundled data/published/published.json.
std::string published_index_path(const CommonOptions& common, const std::string& option);

} // namespace rightsize::cli
