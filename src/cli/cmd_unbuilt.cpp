#include "cli/commands.hpp"

#include <CLI/CLI.hpp>

namespace rightsize::cli {

void register_unbuilt(CLI::App& app, Context& ctx, const std::string& name, const std::string& help) {
  auto* sub = app.add_subcommand(name, help + " (not built yet)");
  sub->add_option("args", ctx.unbuilt_args, "Arguments")->allow_extra_args();
  sub->allow_extras();
  sub->callback([&ctx, name]() {
    ctx.action = [name]() -> ExitCode {
      throw InputError("rightsize " + name,
                       "this subcommand is not built yet in rightsize " RIGHTSIZE_VERSION);
    };
  });
}


} // namespace rightsize::cli
