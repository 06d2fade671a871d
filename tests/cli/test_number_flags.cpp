// Number options: every one refuses NaN, infinity and values outside its range with exit 2 and
// one line naming the flag (issue 43, defect 7: `plan SPEC --growth nan` exited 0). The check
// lives in one place, number_in / whole_number_in (src/cli/common_options.hpp); the coverage
// test below finds every option of every command that reads a number and fails for any that
// does not go through it, so a new flag cannot forget it.

#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/context.hpp"
#include "cli_helpers.hpp"
#include "test_paths.hpp"

#include <CLI/CLI.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using rightsize::test::run_binary;
using rightsize::test::run_in_process;

namespace {

const std::string k_spec = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json";
const std::string k_dcgm = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/observe/cluster.prom";

struct NumberFlag {
  std::vector<std::string> command; // the arguments before the flag
  std::string flag;
  std::string out_of_range; // a finite value outside the flag's range
};

// Every number option, with the command that takes it.
std::vector<NumberFlag> number_flags() {
  const std::vector<std::string> plan{"plan", k_spec};
  const std::vector<std::string> observe{"observe", "--dcgm", k_dcgm};
  std::vector<NumberFlag> flags;
  for (const auto& command : {plan,
                              std::vector<std::string>{"check", k_spec},
                              std::vector<std::string>{"deploy", k_spec}}) {
    flags.push_back({command, "--horizon-months", "241"});
    flags.push_back({command, "--growth", "11"});
    flags.push_back({command, "--hours-per-month", "745"});
    flags.push_back({command, "--pue", "0.5"});
    flags.push_back({command, "--electricity", "-1"});
    flags.push_back({command, "--amortization-years", "0"});
    flags.push_back({command, "--utilization", "2"});
  }
  flags.push_back({plan, "--top", "0"});
  const std::vector<std::string> estimate{"estimate", k_spec, "--gpu", "H100"};
  for (const char* flag : {"--gpus",
                           "--tp",
                           "--cp",
                           "--pp",
                           "--dp",
                           "--ep",
                           "--attention-dp",
                           "--batch",
                           "--prefill-replicas",
                           "--decode-replicas"}) {
    flags.push_back({estimate, flag, "0"});
  }
  flags.push_back({{"check", k_spec}, "--jobs", "257"});
  flags.push_back({{"catalog", "list"}, "--stale-days", "0"});
  flags.push_back({{"catalog", "show", "H100"}, "--stale-days", "0"});
  flags.push_back({{"catalog", "validate"}, "--stale-days", "0"});
  const std::vector<std::string> refresh{"catalog", "refresh", "--provider", "aws", "-o", "x.json"};
  flags.push_back({refresh, "--timeout", "0"});
  flags.push_back({refresh, "--retries", "11"});
  flags.push_back({observe, "--timeout", "0"});
  flags.push_back({observe, "--watch-count", "-1"});
  flags.push_back({observe, "--percentile", "101"});
  flags.push_back({observe, "--memory-percentile", "0"});
  flags.push_back({observe, "--buffer", "501"});
  flags.push_back({observe, "--idle-below", "-1"});
  flags.push_back({observe, "--low-below", "101"});
  flags.push_back({observe, "--min-saving", "101"});
  flags.push_back({observe, "--scale-out-efficiency", "5"});
  flags.push_back({observe, "--max-gpus", "0"});
  flags.push_back({observe, "--hours-per-month", "0"});
  return flags;
}

// One line on stderr that names the flag and says what it must be.
void require_refused(const rightsize::test::CliResult& r, const std::string& flag) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("rightsize: error: " + flag + ": must be a ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

// Every subcommand, sub-subcommands included, as the path of names that selects it.
void walk(CLI::App& app,
          std::vector<std::string> path,
          const std::function<void(CLI::App&, const std::vector<std::string>&)>& visit) {
  for (CLI::App* sub : app.get_subcommands({})) {
    std::vector<std::string> here = path;
    here.push_back(sub->get_name());
    visit(*sub, here);
    walk(*sub, here, visit);
  }
}

// Every command's options, as cli::run registers them.
void register_all(CLI::App& app, rightsize::cli::Context& ctx) {
  for (auto* add : {rightsize::cli::register_plan,
                    rightsize::cli::register_estimate,
                    rightsize::cli::register_compare,
                    rightsize::cli::register_check,
                    rightsize::cli::register_deploy,
                    rightsize::cli::register_observe,
                    rightsize::cli::register_catalog,
                    rightsize::cli::register_validate,
                    rightsize::cli::register_model}) {
    add(app, ctx);
  }
}

// What CLI11 throws parsing `args`, as the name of its class ("" when it parses).
std::string parse_error(const std::vector<std::string>& args) {
  std::ostringstream out;
  rightsize::cli::Context ctx{out, out, nullptr, 0, false, false, {}};
  CLI::App app;
  register_all(app, ctx);
  try {
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
  } catch (const CLI::ConversionError&) {
    return "ConversionError";
  } catch (const CLI::ValidationError&) {
    return "ValidationError";
  } catch (const std::exception&) {
    return "other"; // a missing argument, or a subcommand's own check of its inputs
  }
  return "";
}

} // namespace

TEST_CASE("number flags: NaN, infinity and out-of-range values are refused, naming the flag",
          "[cli][number_flags]") {
  for (const NumberFlag& f : number_flags()) {
    for (const std::string& value : {std::string("nan"),
                                     std::string("inf"),
                                     std::string("-inf"),
                                     std::string("1e999"),
                                     std::string("ten"),
                                     f.out_of_range}) {
      std::vector<std::string> args = f.command;
      args.push_back(f.flag);
      args.push_back(value);
      INFO(f.command.front() << " " << f.flag << " " << value);
      require_refused(run_in_process(args), f.flag);
    }
  }
}

TEST_CASE("number flags: the message says the range and the value given", "[cli][number_flags]") {
  const auto growth = run_in_process({"plan", k_spec, "--growth", "nan"});
  CHECK(growth.err == "rightsize: error: --growth: must be a finite number between -0.5 and 10, "
                      "got nan; see 'rightsize --help'\n");
  const auto top = run_in_process({"plan", k_spec, "--top", "2.5"});
  CHECK(top.err == "rightsize: error: --top: must be a whole number between 1 and 1000, got "
                   "2.5; see 'rightsize --help'\n");
}

TEST_CASE("number flags: whole numbers may be written with an exponent", "[cli][number_flags]") {
  const auto r = run_in_process({"plan", k_spec, "--top", "1e1", "--format", "json"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

// The six flags the issue names, through the real binary: each exited 0 with the spec's value.
TEST_CASE("number flags: plan's deployment flags refuse nan through the binary",
          "[cli][number_flags]") {
  for (const char* flag : {"--growth",
                           "--pue",
                           "--electricity",
                           "--utilization",
                           "--amortization-years",
                           "--hours-per-month"}) {
    INFO(flag);
    require_refused(run_binary("plan " + k_spec + " " + flag + " nan"), flag);
  }
}

// Every option that reads a number goes through number_in or whole_number_in. An option whose
// value CLI11 converts to a number fails "abc" with a ConversionError unless a validator refuses
// it first; so an option that does is a number option without the shared check.
TEST_CASE("number flags: every number option of every command has the shared check",
          "[cli][number_flags]") {
  std::ostringstream out;
  rightsize::cli::Context ctx{out, out, nullptr, 0, false, false, {}};
  CLI::App app;
  register_all(app, ctx);
  int checked = 0;
  walk(app, {}, [&](CLI::App& sub, const std::vector<std::string>& path) {
    for (CLI::Option* opt : sub.get_options({})) {
      if (opt->get_positional() || opt->get_expected_max() == 0 || opt->get_lnames().empty()) {
        continue;
      }
      const std::string flag = "--" + opt->get_lnames().front();
      std::vector<std::string> args = path;
      args.push_back(flag);
      args.push_back("abc");
      INFO(path.front() << " " << flag);
      bool shared = true;
      try {
        (void)opt->get_validator(rightsize::cli::k_number_validator);
      } catch (const CLI::OptionNotFound&) {
        shared = false;
      }
      if (shared) {
        ++checked;
        CHECK(parse_error(args) == "ValidationError");
      } else {
        CHECK(parse_error(args) != "ConversionError");
      }
    }
  });
  CHECK(checked == static_cast<int>(number_flags().size()));
}
