#pragma once

// A plan's trade-off between speed and cost: each candidate placed by one time (with its band)
// and one price (with its band), and the Pareto front, the candidates no other is both faster and
// cheaper than. The plan's HTML page and SVG chart draw it (render/plan_html.cpp), and the page's
// table marks the front.

#include <rightsize/plan/plan.hpp>

#include <cstddef>
#include <vector>

namespace rightsize {

// The time a candidate is placed by.
enum class TradeTime {
  tpot,          // serving: time per output token
  ttft,          // serving with a TTFT target and no TPOT target
  latency,       // a request's whole latency: an embedding's, an image's, a transcription's
  time_to_train, // training, when every candidate's run has a time
  step_time,     // training otherwise
};

// The price a candidate is placed by (USD).
enum class TradePrice {
  unit,     // serving: the workload's price (TradeOff::basis), per million tokens, per thousand
            // images or per audio hour
  run,      // training with a time to train: the run's cost
  per_hour, // training otherwise
};

// The spec's target on the time, drawn as a line.
enum class TradeTarget { none, deadline, ttft, tpot };

// One candidate on the trade-off: x its time (seconds), y its price (USD), each with its band;
// without a band (or an empty one) the band is the point.
struct TradePoint {
  const Candidate* candidate = nullptr;
  double x = 0;
  double x_low = 0;
  double x_high = 0;
  double y = 0;
  double y_low = 0;
  double y_high = 0;
  bool front = false; // on the Pareto front
};

struct TradeOff {
  TradeTime time = TradeTime::tpot;
  TradePrice price = TradePrice::unit;
  PriceBasis basis = PriceBasis::per_million_output_tokens; // serving: the workload's price
  // Serving: the prices with every replica running full, because some candidate has no price at
  // the planned load.
  bool full_load = false;
  TradeTarget target = TradeTarget::none;
  Seconds target_time; // the target's value, when there is one
  // The plan's candidates in its order (serving: those with a price); `front` marked.
  std::vector<TradePoint> points;
  // The front, indices into `points`, fastest first.
  std::vector<std::size_t> front;
};

// The trade-off of a plan's candidates, in the units of plan.units. Serving: TPOT, or a request's
// whole latency (an embedding's, an image's, a transcription's), or TTFT when only a TTFT target
// is set; the workload's price (per million output or input tokens, per thousand images, per
// audio hour), at the planned load when every candidate has one, else at full load. Training: the
// time to train and the run's cost (its price per hour over that time, the band of one the
// other's), or the step time and the price per hour when some candidate has no time to train.
TradeOff trade_off(const Plan& plan);

// Marks the points on the Pareto front and returns their indices, fastest first: sorted by time
// (then price), each point cheaper than every faster one is on it.
std::vector<std::size_t> mark_pareto_front(std::vector<TradePoint>& points);

} // namespace rightsize
