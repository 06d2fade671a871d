// The invariant checker of issue 43 over many plans (bench/plan_audit.hpp): the bundled examples
// and N generated specs (bench/spec_generator.hpp), each planned as `rightsize plan` plans it,
// every candidate checked. Prints what it checked and every violation; exit 1 on any.
// Usage: rightsize_audit [N [SEED]]   (N generated specs, default 1000; SEED default 1)

#include "plan_audit.hpp"
#include "spec_generator.hpp"

#include <rightsize/catalog/engines.hpp>
#include <rightsize/core/error.hpp>
#include <rightsize/spec/spec.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace rightsize;

std::vector<std::string> example_specs() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(RIGHTSIZE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".json") {
      continue;
    }
    std::ifstream in(entry.path());
    if (nlohmann::json::parse(in, nullptr, false).contains("workload")) {
      out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::stoi(argv[1]) : 1000;
  const unsigned seed = argc > 2 ? static_cast<unsigned>(std::stoul(argv[2])) : 1U;
  const std::string data = RIGHTSIZE_DATA_DIR;
  try {
    const Catalog catalog = load_catalog(data + "/gpus.json");
    const Constants constants = Constants::load(data + "/memory.json");
    const Efficiency efficiency = Efficiency::load(data + "/efficiency.json");
    const Uncertainty uncertainty = Uncertainty::load(data + "/uncertainty.json");
    const EngineSupport engines = load_engine_support(data + "/engines.json");
    PlanOptions options;
    options.today = "2026-11-21";
    options.uncertainty = &uncertainty;
    options.engines = &engines;
    const bench::AuditData audit{catalog, constants, efficiency, uncertainty, options};
    bench::AuditCounts counts;
    long long infeasible = 0;
    const auto start = std::chrono::steady_clock::now();
    const auto check = [&](const Spec& spec) {
      const Plan plan = make_plan(spec, catalog, constants, efficiency, options);
      if (!plan.feasible()) {
        ++infeasible;
      }
      bench::audit_plan(plan, audit, counts);
    };
    for (const std::string& path : example_specs()) {
      check(load_spec(path));
    }
    for (const auto& [name, body] : bench::generate_specs(n, seed, RIGHTSIZE_CONFIGS_DIR)) {
      check(parse_spec(body, name));
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << fmt::format("audited {} plans ({} infeasible): {} candidates, {} reproduced "
                             "through estimate, {} months re-evaluated, in {:.1f} s\n",
                             counts.plans,
                             infeasible,
                             counts.candidates,
                             counts.estimates,
                             counts.months,
                             seconds);
    for (const std::string& v : counts.violations) {
      std::cout << "VIOLATION " << v << '\n';
    }
    std::cout << fmt::format("{} violations\n", counts.violations.size());
    return counts.violations.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "rightsize_audit: " << e.what() << '\n';
    return 2;
  }
}
