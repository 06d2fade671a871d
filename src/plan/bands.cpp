// What the uncertainty data says of a candidate (search.hpp): its calibration and its bands,
// those of its GPU's family and engine, widened where its layout was never fitted (attention
// data parallelism, disaggregated pools: docs/accuracy.md).

#include "search.hpp"

namespace rightsize::detail {

const Calibration& family_calibration(const Search& S, const Gpu& g) {
  const std::string family = S.eff.family_name(g);
  const auto matches = [&](const Search::FamilyCalibration& k) { return k.family == family; };
  const auto make = [&] {
    const Spec& spec = S.spec;
    return Search::FamilyCalibration{
        family,
        S.options.uncertainty->calibration(
            family, engine_band_key(spec, S.eff), !S.units.serving, unmeasured_workload(spec))};
  };
  return remembered(S.calibrations, matches, make).calibration;
}

InferenceBands serving_bands(const Search& S,
                             const Gpu& g,
                             const std::string& engine,
                             const InferencePerformance& p,
                             int attention_dp) {
  const std::string family = S.eff.family_name(g);
  const auto matches = [&](const Search::FamilyBands& k) {
    return k.family == family && k.engine == engine;
  };
  const auto make = [&] {
    const Uncertainty& u = *S.options.uncertainty;
    return Search::FamilyBands{
        family, engine, u.band("ttft", family, engine), u.band("tpot", family, engine)};
  };
  const Search::FamilyBands& bands = remembered(S.serving_bands, matches, make);
  const Uncertainty& u = *S.options.uncertainty;
  RatioBand ttft = p.kv_overflow() ? u.overflowing(bands.ttft, "ttft") : bands.ttft;
  RatioBand tpot = p.kv_overflow() ? u.overflowing(bands.tpot, "tpot") : bands.tpot;
  if (attention_dp > 1) {
    ttft = u.attention_data_parallel(ttft, "ttft");
    tpot = u.attention_data_parallel(tpot, "tpot");
  }
  return inference_bands(p, ttft, tpot);
}

Band memory_band_of(const Search& S, Bytes total) {
  if (!S.memory_ratio) {
    S.memory_ratio = S.options.uncertainty->band("memory", "", "");
  }
  return memory_band(total, *S.memory_ratio);
}

Calibration candidate_calibration(const Search& S, const Candidate& c) {
  if (S.options.uncertainty != nullptr && c.inference && c.layout.attention_dp > 1 &&
      !c.disaggregation) {
    return S.options.uncertainty->attention_dp_calibration(S.eff.family_name(*c.gpu),
                                                           engine_band_key(*c.spec, S.eff));
  }
  if (!c.disaggregation) {
    return family_calibration(S, *c.gpu);
  }
  return S.options.uncertainty->disaggregated_calibration(
      S.eff.family_name(*c.gpu), engine_band_key(*c.spec, S.eff), c.layout.attention_dp);
}

} // namespace rightsize::detail
