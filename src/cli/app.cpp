#include "cli/app.hpp"

#include "cli/commands.hpp"
#include "cli/context.hpp"

#include <rightsize/core/error.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace rightsize::cli {

namespace {

std::shared_ptr<spdlog::logger> make_logger(std::ostream& err, int verbosity, bool quiet) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err, /*force_flush=*/true);
  auto logger = std::make_shared<spdlog::logger>("rightsize", std::move(sink));
  logger->set_pattern("rightsize: %l: %v");
  if (quiet) {
    logger->set_level(spdlog::level::err);
  } else if (verbosity >= 2) {
    logger->set_level(spdlog::level::debug);
  } else if (verbosity == 1) {
    logger->set_level(spdlog::level::info);
  } else {
    logger->set_level(spdlog::level::warn);
  }
  return logger;
}

// The first argument that is not an option names the subcommand: top-level options take no
// values, so this is exact. Unknown names get a suggestion instead of CLI11's generic message.
void check_subcommand_name(const CLI::App& app, const std::vector<std::string>& args) {
  const auto it = std::find_if(
      args.begin(), args.end(), [](const std::string& a) { return a.empty() || a[0] != '-'; });
  if (it == args.end()) {
    return;
  }
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  if (std::find(names.begin(), names.end(), *it) == names.end()) {
    throw InputError("",
                     "unknown command \"" + *it + "\"" + did_you_mean(*it, names) +
                         "; see 'rightsize --help'");
  }
}

void write_report(const std::string& report, std::ostream& out) {
  out << report;
  out.flush();
  if (!out) {
    throw InputError("standard output", "cannot write the report (disk full or closed pipe?)");
  }
}

void print_error(std::ostream& err, const std::string& message) {
  err << "rightsize: error: " << message << '\n';
}

} // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // Reports are built in a buffer and written when the command succeeds: a failure leaves no
  // partial report on standard output, and a failed write is reported.
  std::ostringstream report;
  Context ctx{report, err, nullptr, 0, false, false, {}};
  ctx.out_is_terminal = &out == &std::cout && ::isatty(STDOUT_FILENO) != 0;
  CLI::App app{"rightsize: GPU right-sizing advisor. Reads a model and its workload and says "
               "which GPUs, how many, in what layout, at what cost, and why.",
               "rightsize"};
  // The release and the versions of the data compiled into it (cmake/Packaging.cmake reads them
  // from data/ at configure time; docs/release.md): no file is read to print them.
  app.set_version_flag("--version",
                       "rightsize " RIGHTSIZE_VERSION " (catalog " RIGHTSIZE_CATALOG_VERSION
                       ", engines " RIGHTSIZE_ENGINES_VERSION ")");
  app.require_subcommand(1);
  app.fallthrough();
  app.add_flag("-v,--verbose", ctx.verbosity, "More log output on stderr (repeat for more)");
  app.add_flag("-q,--quiet", ctx.quiet, "Only errors on stderr");

  register_plan(app, ctx);
  register_estimate(app, ctx);
  register_check(app, ctx);
  register_deploy(app, ctx);
  register_observe(app, ctx);
  register_catalog(app, ctx);
  register_validate(app, ctx);
  register_model(app, ctx);

  try {
    try {
      check_subcommand_name(app, args);
      std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 2.1 pops from the back
      app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
      out << app.help();
      return to_int(ExitCode::ok);
    } catch (const CLI::CallForAllHelp&) {
      out << app.help("", CLI::AppFormatMode::All);
      return to_int(ExitCode::ok);
    } catch (const CLI::CallForVersion& e) {
      out << e.what() << '\n';
      return to_int(ExitCode::ok);
    } catch (const CLI::ParseError& e) {
      // Every CLI11 failure (missing file 105, missing subcommand 106, bad value, ...) is a usage
      // error: exit 2.
      std::string message = e.what();
      if (message.empty()) {
        message = e.get_name();
      }
      print_error(err, message + "; see 'rightsize --help'");
      return to_int(ExitCode::input);
    }
    ctx.log = make_logger(err, ctx.verbosity, ctx.quiet);
    if (!ctx.action) {
      throw InternalError("no subcommand action was set");
    }
    const ExitCode code = ctx.action();
    write_report(report.str(), out);
    return to_int(code);
  } catch (const InputErrors& e) {
    for (const auto& one : e.errors()) {
      print_error(err, one.what());
    }
    return to_int(ExitCode::input);
  } catch (const InputError& e) {
    print_error(err, e.what());
    return to_int(ExitCode::input);
  } catch (const std::exception& e) {
    err << "rightsize: internal error: " << e.what()
        << " (this is a bug in rightsize; please report it)\n";
    return to_int(ExitCode::internal);
  } catch (...) {
    err << "rightsize: internal error: unknown exception (this is a bug in rightsize)\n";
    return to_int(ExitCode::internal);
  }
}

} // namespace rightsize::cli
