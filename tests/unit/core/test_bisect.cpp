// bisect_crossing_fast returns exactly what bisect_crossing does, with fewer evaluations: the
// serving model's request-rate solve depends on it (docs/model.md, "Serving").

#include <rightsize/core/bisect.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

using rightsize::bisect_crossing;
using rightsize::bisect_crossing_fast;

namespace {

// The requests in flight at rate lambda, as estimate_inference computes them (prefill P, decode
// step D, per-request overhead t0, the wave term, prefill interference, output length).
struct InFlight {
  double prefill;
  double decode;
  double t0;
  double wave_factor;
  double concurrency;
  double interference;
  double osl;
  mutable int calls = 0;

  double operator()(double lambda) const {
    ++calls;
    const double share = std::min(0.98, lambda * prefill);
    const double tpot = decode / (1.0 - share * interference);
    const double wait = prefill * (share / (2.0 * (1.0 - share)));
    const double wave = prefill * (wave_factor * (concurrency - 1.0) / 2.0);
    const double ttft = t0 + prefill + decode * 0.5 + std::max(wait, wave);
    return lambda * (ttft + tpot * std::max(0.0, osl - 1.0));
  }
};

bool same_bits(double a, double b) {
  std::uint64_t x = 0;
  std::uint64_t y = 0;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  return std::exp(u(rng));
}

} // namespace

TEST_CASE("bisect: the fast crossing equals the plain bisection bit for bit on the serving model",
          "[core][bisect]") {
  std::mt19937_64 rng(20261122);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int cases = 0;
  int plain_calls = 0;
  int fast_calls = 0;
  for (int i = 0; i < 20000; ++i) {
    const double c = std::floor(log_uniform(rng, 1.0, 4096.0));
    const InFlight f{log_uniform(rng, 1e-4, 30.0), // prefill, s
                     log_uniform(rng, 1e-3, 2.0),  // decode step, s
                     log_uniform(rng, 1e-4, 0.5),  // per-request overhead, s
                     unit(rng) * 0.5,              // wave factor
                     c,
                     unit(rng), // prefill interference
                     std::floor(log_uniform(rng, 1.0, 20000.0))};
    const double hi = 0.98 / f.prefill;
    const InFlight plain_f = f;
    const double plain = bisect_crossing(hi, c, plain_f);
    const double fast = bisect_crossing_fast(hi, c, 1e-13, f);
    INFO("case " << i << ": plain " << plain << " fast " << fast);
    REQUIRE(same_bits(plain, fast));
    plain_calls += plain_f.calls;
    fast_calls += f.calls;
    ++cases;
  }
  // The point of it: fewer evaluations of f (a count, not a time): about 21 a case against 56.
  CHECK(fast_calls * 5 < plain_calls * 2);
}

TEST_CASE("bisect: the fast crossing falls back to every halving when its checks fail",
          "[core][bisect]") {
  SECTION("target beyond f(hi)") {
    const auto f = [](double x) { return x; };
    CHECK(same_bits(bisect_crossing(10.0, 50.0, f), bisect_crossing_fast(10.0, 50.0, 1e-13, f)));
  }
  SECTION("a step at the crossing (flat on both sides)") {
    const auto f = [](double x) { return x < 3.0 ? 0.0 : 10.0; };
    CHECK(same_bits(bisect_crossing(10.0, 5.0, f), bisect_crossing_fast(10.0, 5.0, 1e-13, f)));
  }
  SECTION("a crossing at zero") {
    const auto f = [](double x) { return x + 1.0; };
    CHECK(same_bits(bisect_crossing(10.0, 1.0, f), bisect_crossing_fast(10.0, 1.0, 1e-13, f)));
  }
  SECTION("hand-checked: x^2 crosses 2 at sqrt(2)") {
    const auto f = [](double x) { return x * x; };
    const double r = bisect_crossing_fast(4.0, 2.0, 1e-15, f);
    CHECK(r == Approx(1.4142135623730951).epsilon(1e-15));
    CHECK(same_bits(r, bisect_crossing(4.0, 2.0, f)));
  }
}
