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

// The subcommands, in the order --help lists them.
struct Command {
  const char* name;
  void (*add)(CLI::App&, Context&);
};
constexpr Command k_commands[] = {{"plan", register_plan},
                                  {"estimate", register_estimate},
                                  {"compare", register_compare},
                                  {"check", register_check},
                                  {"deploy", register_deploy},
                                  {"observe", register_observe},
                                  {"catalog", register_catalog},
                                  {"validate", register_validate},
                                  {"model", register_model}};

bool is_command(const std::string& arg) {
  return std::any_of(std::begin(k_commands), std::end(k_commands), [&](const Command& c) {
    return arg == c.name;
  });
}

// The first argument that is not an option names the subcommand: top-level options take no
// values, so this is exact.
std::vector<std::string>::const_iterator command_name(const std::vector<std::string>& args) {
  return std::find_if(
      args.begin(), args.end(), [](const std::string& a) { return a.empty() || a[0] != '-'; });
}

bool is_verbosity_flag(const std::string& arg) {
  return arg == "--verbose" || arg == "--quiet" || arg == "-q" ||
         (arg.size() >= 2 && arg[0] == '-' &&
          std::all_of(arg.begin() + 1, arg.end(), [](char c) { return c == 'v'; }));
}

// Registering every subcommand's options is about a tenth of a plan's instructions, so only the
// one the arguments name is registered, where CLI11 cannot tell the difference: nothing before
// the name but -v and -q (no --help, which lists every subcommand) and no other argument that
// names a subcommand (which CLI11 treats differently when that subcommand exists). Otherwise all.
void register_commands(CLI::App& app, Context& ctx, const std::vector<std::string>& args) {
  const auto name = command_name(args);
  const bool alone = name != args.end() && std::all_of(args.begin(), name, is_verbosity_flag) &&
                     std::none_of(name + 1, args.end(), is_command);
  for (const Command& c : k_commands) {
    if (!alone || *name == c.name) {
      c.add(app, ctx);
    }
  }
}

// Unknown names get a suggestion instead of CLI11's generic message.
void check_subcommand_name(const std::vector<std::string>& args) {
  const auto it = command_name(args);
  if (it == args.end()) {
    return;
  }
  std::vector<std::string> names;
  for (const Command& c : k_commands) {
    names.emplace_back(c.name);
  }
  if (std::find(names.begin(), names.end(), *it) == names.end()) {
    throw InputError("",
                     "unknown command \"" + *it + "\"" + did_you_mean(*it, names) +
                         "; see 'rightsize --help'");
  }
}

void write_report(std::stringstream& report, std::ostream& out) {
  // Streamed from the buffer (readable: a stringstream, not an ostringstream), not copied out of
  // it (a plan's JSON is up to a few hundred KB); inserting an empty buffer would set failbit.
  if (report.tellp() > 0) {
    out << report.rdbuf();
  }
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
  std::stringstream report;
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

  register_commands(app, ctx, args);

  try {
    try {
      check_subcommand_name(args);
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
    write_report(report, out);
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
