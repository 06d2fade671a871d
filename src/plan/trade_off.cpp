// A plan's speed-cost trade-off and its Pareto front (include/rightsize/plan/trade_off.hpp).

#include <rightsize/plan/trade_off.hpp>
#include <rightsize/plan/unit_values.hpp>

#include <algorithm>
#include <limits>
#include <numeric>

namespace rightsize {

namespace {

// A point's x and its band; without a band (or an empty one), the band is the point.
void set_x(TradePoint& p, double x, const Band* band) {
  p.x = x;
  const bool banded = band != nullptr && band->high > 0;
  p.x_low = banded ? band->low : x;
  p.x_high = banded ? band->high : x;
}

TradeOff training_trade_off(const Plan& plan) {
  TradeOff a;
  const Spec& s = plan.spec;
  const bool timed =
      std::all_of(plan.candidates.begin(), plan.candidates.end(), [](const Candidate& c) {
        return c.training->time_to_train.has_value();
      });
  a.time = timed ? TradeTime::time_to_train : TradeTime::step_time;
  a.price = timed ? TradePrice::run : TradePrice::per_hour;
  if (timed && s.workload.training.deadline) {
    a.target = TradeTarget::deadline;
    a.target_time = *s.workload.training.deadline;
  }
  for (const auto& c : plan.candidates) {
    TradePoint p;
    p.candidate = &c;
    const auto& t = *c.training;
    set_x(p,
          timed ? t.time_to_train->si() : t.step.si(),
          !c.training_bands ? nullptr
          : timed           ? &c.training_bands->time_to_train
                            : &c.training_bands->step);
    if (timed) {
      // The run costs its hourly price for its time: the band of one is the other's.
      const double per_second = c.cost.per_hour.si() / units::k_seconds_per_hour;
      p.y = per_second * p.x;
      p.y_low = per_second * p.x_low;
      p.y_high = per_second * p.x_high;
    } else {
      p.y = p.y_low = p.y_high = c.cost.per_hour.si();
    }
    a.points.push_back(p);
  }
  return a;
}

TradeOff serving_trade_off(const Plan& plan) {
  TradeOff a;
  const auto& targets = plan.spec.workload.inference.targets;
  // A request's whole latency (an embedding has no TPOT, a transcription's is not what a person
  // waits for) is the time; else TPOT, or TTFT when only TTFT has a target.
  const bool whole = plan.units.latency == LatencyUnit::request;
  const bool ttft = whole || (targets.ttft && !targets.tpot);
  a.time = whole ? TradeTime::latency : ttft ? TradeTime::ttft : TradeTime::tpot;
  a.price = TradePrice::unit;
  a.basis = plan.units.price;
  a.full_load =
      !std::all_of(plan.candidates.begin(), plan.candidates.end(), [&](const Candidate& c) {
        return price_of(c.cost, a.basis).has_value();
      });
  if (ttft && targets.ttft) {
    a.target = TradeTarget::ttft;
    a.target_time = *targets.ttft;
  } else if (targets.tpot) {
    a.target = TradeTarget::tpot;
    a.target_time = *targets.tpot;
  }
  for (const auto& c : plan.candidates) {
    const auto cost = price_of(c.cost, a.basis, a.full_load);
    if (!cost) {
      continue;
    }
    TradePoint p;
    p.candidate = &c;
    set_x(p,
          ttft ? c.inference->ttft.si() : c.inference->tpot.si(),
          !c.inference_bands ? nullptr
          : ttft             ? &c.inference_bands->ttft
                             : &c.inference_bands->tpot);
    p.y = p.y_low = p.y_high = *cost;
    a.points.push_back(p);
  }
  return a;
}

} // namespace

std::vector<std::size_t> mark_pareto_front(std::vector<TradePoint>& points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    const TradePoint& a = points[i];
    const TradePoint& b = points[j];
    return a.x != b.x ? a.x < b.x : a.y < b.y;
  });
  std::vector<std::size_t> front;
  double cheapest = std::numeric_limits<double>::infinity();
  for (const std::size_t i : order) {
    if (points[i].y < cheapest) {
      cheapest = points[i].y;
      points[i].front = true;
      front.push_back(i);
    }
  }
  return front;
}

TradeOff trade_off(const Plan& plan) {
  TradeOff a = plan.units.serving ? serving_trade_off(plan) : training_trade_off(plan);
  a.front = mark_pareto_front(a.points);
  return a;
}

} // namespace rightsize
