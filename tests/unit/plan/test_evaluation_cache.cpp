// The serving search's evaluation cache: what it keeps, and that forgetting a GPU's evaluations
// hands their memory to the next GPU's (docs/performance.md).

#include "fixtures.hpp"
#include "plan/search.hpp"
#include "test_paths.hpp"

#include <rightsize/estimate/performance.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <optional>

using namespace rightsize;
using rightsize::test::catalog;
using rightsize::test::config_path;
using rightsize::test::constants;
using rightsize::test::efficiency;

namespace {

ServingLayout layout_on(const Spec& spec, const char* gpu) {
  return serving_layout(
      spec, catalog().resolve(gpu, "test"), Parallelism{}, constants(), efficiency());
}

Spec chat_spec() {
  return parse_spec({{"model", config_path("llama-3.1-8b")},
                     {"workload",
                      {{"type", "inference"},
                       {"input_tokens", 2048},
                       {"output_tokens", 256},
                       {"concurrency", 24}}}},
                    "test.json");
}

} // namespace

TEST_CASE("evaluation cache: a layout's evaluations are kept by batch until forgotten", "[plan]") {
  const Spec spec = chat_spec();
  const Gpu& h100 = catalog().resolve("H100", "test");
  detail::EvaluationCache cache(catalog());
  CHECK(cache.holds(h100));
  const detail::EvaluationCache::Layout key{&h100, spec.precision.weights, spec.precision.kv_cache};
  CHECK(cache.memo(key).empty());
  const ServingLayout layout = layout_on(spec, "H100");
  const detail::Evaluated& at_8 = cache.keep(layout, 8);
  cache.memo(key).emplace_back(8, &at_8);
  CHECK(at_8.memory.batch == 8);
  CHECK(at_8.perf.requests_per_s > 0);
  CHECK(cache.memo(key).size() == 1);

  cache.forget_evaluations();
  CHECK(cache.memo(key).empty());
}

TEST_CASE("evaluation store: cleared, it reuses its blocks in order for the next evaluations",
          "[plan]") {
  const Spec spec = chat_spec();
  const ServingLayout h100 = layout_on(spec, "H100");
  const ServingLayout l4 = layout_on(spec, "L4");
  detail::EvaluationStore store(2);
  // Three evaluations fill the first block and start a second.
  const detail::Evaluated* first = &store.emplace(h100, 1);
  const detail::Evaluated* second = &store.emplace(h100, 2);
  const detail::Evaluated* third = &store.emplace(h100, 3);
  CHECK(second == first + 1);
  CHECK(third != second + 1);

  store.clear();
  // The next GPU's evaluations land where the first ones were: no new memory is touched.
  const detail::Evaluated& again = store.emplace(l4, 6);
  const detail::Evaluated& next = store.emplace(l4, 7);
  const detail::Evaluated& third_again = store.emplace(l4, 8);
  CHECK(&again == first);
  CHECK(&next == second);
  CHECK(&third_again == third);
  // And they are the new evaluations, not the old ones (batches an L4 holds: 11 fit).
  CHECK(again.memory.batch == 6);
  CHECK(third_again.memory.batch == 8);
  CHECK(again.memory.capacity == estimate_memory(l4.memory, 6, Detail::numbers).capacity);
}
