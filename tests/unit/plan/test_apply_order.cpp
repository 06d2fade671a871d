// apply_order (plan/search.hpp): the plan's ranking puts each candidate in its place by moving it
// round its permutation's cycle, without a second buffer of candidates. Checked against a copy
// made in the new order, on every permutation of five and on random ones.

#include "plan/search.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

using rightsize::detail::apply_order;

namespace {

// Items that can only be moved (as a Candidate need never be copied), holding their first index.
std::vector<std::unique_ptr<std::size_t>> items(std::size_t n) {
  std::vector<std::unique_ptr<std::size_t>> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(std::make_unique<std::size_t>(i));
  }
  return out;
}

// Item k of the result must be the item that was at order[k].
bool ordered_as(const std::vector<std::unique_ptr<std::size_t>>& v,
                const std::vector<std::size_t>& order) {
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (!v[k] || *v[k] != order[k]) {
      return false;
    }
  }
  return true;
}

} // namespace

TEST_CASE("apply_order: every permutation of five, and none") {
  std::vector<std::size_t> order(5);
  std::iota(order.begin(), order.end(), std::size_t{0});
  int checked = 0;
  do {
    auto v = items(order.size());
    apply_order(v, order);
    CHECK(ordered_as(v, order));
    ++checked;
  } while (std::next_permutation(order.begin(), order.end()));
  CHECK(checked == 120);
  std::vector<std::unique_ptr<std::size_t>> none;
  apply_order(none, {});
  CHECK(none.empty());
}

TEST_CASE("apply_order: random permutations up to 200 items") {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 500; ++round) {
    const std::size_t n = 1 + rng() % 200;
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    auto v = items(n);
    apply_order(v, order);
    REQUIRE(ordered_as(v, order));
  }
}
