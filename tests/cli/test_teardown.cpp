// Teardown::leave_to_exit: the process's main() leaves a plan's data to the exit instead of freeing
// it piece by piece (docs/performance.md); the report is the same.

#include "cli/context.hpp"
#include "cli_helpers.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <sstream>
#include <string>

namespace {

struct Probe {
  explicit Probe(int* counter) : destroyed(counter) {}
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;
  ~Probe() { ++*destroyed; }
  int* destroyed;
};

rightsize::cli::Context context(std::ostream& out, rightsize::cli::Teardown teardown) {
  rightsize::cli::Context ctx{out, out, nullptr, 0, false, false, {}};
  ctx.teardown = teardown;
  return ctx;
}

} // namespace

TEST_CASE("cli: ScopedData frees its data, or leaves it to the process's exit") {
  using rightsize::cli::ScopedData;
  using rightsize::cli::Teardown;
  std::ostringstream out;
  int destroyed = 0;

  SECTION("Teardown::free destroys it at the end of the scope") {
    const auto ctx = context(out, Teardown::free);
    {
      const ScopedData<Probe> data(ctx, std::make_unique<Probe>(&destroyed));
      CHECK(data->destroyed == &destroyed);
    }
    CHECK(destroyed == 1);
  }

  SECTION("Teardown::leave_to_exit does not") {
    const auto ctx = context(out, Teardown::leave_to_exit);
    auto owned = std::make_unique<Probe>(&destroyed);
    Probe* const raw = owned.get();
    {
      const ScopedData<Probe> data(ctx, std::move(owned));
      CHECK(&*data == raw);
    }
    CHECK(destroyed == 0);
    delete raw; // what the process's exit would have reclaimed (and LeakSanitizer would report)
    CHECK(destroyed == 1);
  }
}

TEST_CASE("cli: the binary, which leaves the plan to its exit, prints what cli::run prints") {
  const std::string spec = std::string(RIGHTSIZE_EXAMPLES_DIR) + "/llama-3.1-8b-chat.json";
  for (const std::string format : {"json", "table"}) {
    const auto in_process = rightsize::test::run_in_process({"plan", spec, "--format", format});
    const auto binary = rightsize::test::run_binary("plan " + spec + " --format " + format);
    INFO(format);
    CHECK(binary.exit_code == in_process.exit_code);
    CHECK(binary.out == in_process.out);
    CHECK(binary.err == in_process.err);
    CHECK_FALSE(binary.out.empty());
  }
}
