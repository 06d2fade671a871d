#include "cli/app.hpp"

#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/context.hpp"

#include <rightsize/core/error.hpp>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <new>
#include <streambuf>
#include <unistd.h>
#include <vector>

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

// The report as it is written: in 64 KiB chunks, none ever copied or moved. A stringstream
// doubles its buffer, copying it each time, and a plan's JSON runs to a few hundred KB: on a
// freshly started process every page it touches is a page fault, which cost more than the
// copies themselves (docs/performance.md, "page faults").
class ReportBuffer : public std::streambuf {
public:
  // Writes the report to `out`, chunk by chunk.
  void write_to(std::ostream& out) const {
    for (std::size_t i = 0; i < m_chunks.size(); ++i) {
      const bool last = i + 1 == m_chunks.size();
      out.write(m_chunks[i].get(), last ? pptr() - pbase() : static_cast<std::streamsize>(k_chunk));
    }
  }

protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) {
      return traits_type::not_eof(ch);
    }
    next_chunk();
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::streamsize done = 0;
    while (done < n) {
      if (pptr() == epptr()) {
        next_chunk();
      }
      const std::streamsize room = std::min<std::streamsize>(epptr() - pptr(), n - done);
      std::copy_n(s + done, room, pptr());
      pbump(static_cast<int>(room));
      done += room;
    }
    return n;
  }

private:
  static constexpr std::size_t k_chunk = 64 * 1024;
  void next_chunk() {
    if (!m_chunks.empty()) {
      m_full += k_chunk;
    }
    m_chunks.emplace_back(new char[k_chunk]); // not zeroed: only what is written is touched
    char* begin = m_chunks.back().get();
    setp(begin, begin + k_chunk);
  }
  std::vector<std::unique_ptr<char[]>> m_chunks;
  std::size_t m_full = 0; // characters in the chunks before the last
};

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
                                  {"calibrate", register_calibrate},
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
  // A command's option before the command: its value would be read as the command's name
  // ("rightsize --data DIR plan" said 'unknown command "DIR"').
  for (auto a = args.begin(); a != it; ++a) {
    const std::string flag = a->substr(0, a->find('='));
    if (!is_verbosity_flag(flag) && flag != "-h" && flag != "--help" && flag != "--version") {
      throw InputError(flag,
                       "is not an option of rightsize itself (only -v, -q, --help and "
                       "--version come before the command): give a command's options after "
                       "its name (rightsize plan SPEC " +
                           flag + " ...); see 'rightsize --help'");
    }
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

void write_report(const ReportBuffer& report, std::ostream& out) {
  report.write_to(out);
  out.flush();
  if (!out) {
    throw InputError("standard output", "cannot write the report (disk full or closed pipe?)");
  }
}

void print_error(std::ostream& err, const std::string& message) {
  err << "rightsize: error: " << message << '\n';
}

} // namespace

int run(const std::vector<std::string>& args,
        std::ostream& out,
        std::ostream& err,
        Teardown teardown) {
  // Reports are built in a buffer and written when the command succeeds: a failure leaves no
  // partial report on standard output, and a failed write is reported.
  register_compiled_in_data();
  ReportBuffer buffer;
  std::ostream report(&buffer);
  Context ctx{report, err, nullptr, 0, false, false, {}};
  ctx.teardown = teardown;
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
    write_report(buffer, out);
    return to_int(code);
  } catch (const InputErrors& e) {
    for (const auto& one : e.errors()) {
      print_error(err, one.what());
    }
    return to_int(ExitCode::input);
  } catch (const InputError& e) {
    print_error(err, e.what());
    return to_int(ExitCode::input);
  } catch (const std::bad_alloc&) {
    // Not a bug: the input needs more memory than the process may have (ulimit -v, a cgroup).
    // Nothing was written: reports are written whole, at the end.
    print_error(err,
                "out of memory: the input needs more memory than this process may use (ulimit "
                "-v, a container's limit); give it more, or less input (a shorter --range, fewer "
                "or smaller files)");
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
