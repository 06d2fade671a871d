#pragma once

// The values behind a workload's units (spec/workload_units.hpp): which figure of a serving
// estimate its rate and tokens per second are, which field of a cost holds a price basis. The
// description names the units; these read them, so no caller asks which kind a workload is.

#include <rightsize/estimate/performance.hpp>
#include <rightsize/estimate/uncertainty.hpp>
#include <rightsize/plan/estimate_report.hpp>
#include <rightsize/plan/plan.hpp>
#include <rightsize/spec/workload_units.hpp>

#include <optional>

namespace rightsize {

// The rate `r` counts, over all replicas: output tokens/s, sequences or images per second (the
// requests, one sequence each), audio seconds/s; 0 for none.
double rate_of(const InferencePerformance& p, RateUnit r);
// Its band: the requests' band, a transcription's in audio seconds (audio per window x windows);
// output tokens' their own.
Band rate_band_of(const InferenceBands& b, const Spec& spec, RateUnit r);
// The tokens per second `t` counts: output tokens, or the prefill's (embedded or latent) tokens.
double tokens_of(const InferencePerformance& p, TokenRate t);
// The share of its predicted output a configuration is asked for: its rate targets over what it
// serves (requests/s, output tokens/s; the smaller), at most 1; 1 without rate targets (the load
// is the concurrency's). Prices per token, image and audio hour are at this load, the one the
// spec asks for, not at what a fleet provisioned for a latency target could serve.
double share_at_target(const InferencePerformance& p, const Spec& spec);
// The price per `basis` a cost holds, at the planned load or with every replica full; every
// per-million-token basis is the cost's token price (the workload's own tokens).
std::optional<double> price_of(const CostBreakdown& c, PriceBasis basis, bool full_load = false);
// The same of an estimate's cost (no full-load figures).
std::optional<double> price_of(const EstimateCost& c, PriceBasis basis);

} // namespace rightsize
