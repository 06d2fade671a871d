// The values behind a workload's units (include/rightsize/plan/unit_values.hpp).

#include <rightsize/plan/unit_values.hpp>

#include <algorithm>

namespace rightsize {

double rate_of(const InferencePerformance& p, RateUnit r) {
  switch (r) {
  case RateUnit::none:
    break;
  case RateUnit::output_tokens:
    return p.output_tokens_per_s;
  case RateUnit::sequences:
  case RateUnit::images:
    return p.requests_per_s;
  case RateUnit::audio_seconds:
    return p.audio_seconds_per_s;
  }
  return 0;
}

Band rate_band_of(const InferenceBands& b, const Spec& spec, RateUnit r) {
  switch (r) {
  case RateUnit::output_tokens:
    return b.output_tokens_per_s;
  case RateUnit::audio_seconds: {
    const double per_window = spec.workload.inference.transcription->audio_per_window();
    return Band{b.requests_per_s.low * per_window, b.requests_per_s.high * per_window};
  }
  case RateUnit::none:
  case RateUnit::sequences:
  case RateUnit::images:
    break;
  }
  return b.requests_per_s;
}

double tokens_of(const InferencePerformance& p, TokenRate t) {
  switch (t) {
  case TokenRate::none:
    break;
  case TokenRate::output:
    return p.output_tokens_per_s;
  case TokenRate::input:
  case TokenRate::latent:
    return p.prefill_tokens_per_s;
  }
  return 0;
}

std::optional<double> price_of(const CostBreakdown& c, PriceBasis basis, bool full_load) {
  switch (basis) {
  case PriceBasis::per_thousand_images:
    return full_load ? c.usd_per_thousand_images_full_load : c.usd_per_thousand_images;
  case PriceBasis::per_audio_hour:
    return full_load ? c.usd_per_audio_hour_at_full_load : c.usd_per_audio_hour;
  case PriceBasis::per_million_output_tokens:
  case PriceBasis::per_million_input_tokens:
  case PriceBasis::per_million_trained_tokens:
    break;
  }
  return full_load ? c.usd_per_million_at_full_load : c.usd_per_million_tokens;
}

std::optional<double> price_of(const EstimateCost& c, PriceBasis basis) {
  switch (basis) {
  case PriceBasis::per_thousand_images:
    return c.usd_per_thousand_images;
  case PriceBasis::per_audio_hour:
    return c.usd_per_audio_hour;
  case PriceBasis::per_million_output_tokens:
  case PriceBasis::per_million_input_tokens:
  case PriceBasis::per_million_trained_tokens:
    break;
  }
  return c.usd_per_million_tokens;
}

double share_at_target(const InferencePerformance& p, const Spec& spec) {
  const auto& t = spec.workload.inference.targets;
  double share = 1.0;
  if (t.requests_per_s && p.requests_per_s > 0) {
    share = std::min(share, *t.requests_per_s / p.requests_per_s);
  }
  if (t.output_tokens_per_s && p.output_tokens_per_s > 0) {
    share = std::min(share, *t.output_tokens_per_s / p.output_tokens_per_s);
  }
  return share;
}

} // namespace rightsize
